/**
 * The dashboard's pure rules: the role table (what each D3 group may do), session ends, sign-in
 * lockout, new passwords.
 */
import { describe, expect, it } from 'vitest';
import { PERMISSIONS, ROLES, afterFailure, can, lockedForSeconds, passwordProblem, permissionsOf, sessionEnd, stageAfterPassword } from '../../src/modules/dashboard/dashboard.domain.js';

describe('the role table', () => {
  it('gives MANAGER everything and each other group what api.md D3 says', () => {
    expect([...ROLES.MANAGER].sort()).toEqual([...PERMISSIONS].sort());
    // operations: USER and MANUAL PAYMENT act on payments; VIEWER and PAYMENTS only read them; BATCH not even
    for (const p of ['payments.refund', 'payments.capture', 'payments.expire', 'notifications.resend'] as const) {
      expect(['MANAGER', 'USER', 'VIEWER', 'MANUAL PAYMENT', 'BATCH', 'PAYMENTS'].filter((g) => can(g, p))).toEqual(['MANAGER', 'USER', 'MANUAL PAYMENT']);
    }
    expect(['MANAGER', 'USER', 'VIEWER', 'MANUAL PAYMENT', 'BATCH', 'PAYMENTS'].filter((g) => can(g, 'payments.read'))).toEqual(['MANAGER', 'USER', 'VIEWER', 'MANUAL PAYMENT', 'PAYMENTS']);
    expect(permissionsOf('BATCH').sort()).toEqual(['batch.create', 'batch.read']);
    expect(can('USER', 'terminals.manage')).toBe(true);
    expect(can('PAYMENTS', 'cards.read')).toBe(true);
    expect(can('VIEWER', 'moto.read')).toBe(true);
    expect(can('MANUAL PAYMENT', 'manual.create')).toBe(true);
    for (const g of ['USER', 'VIEWER', 'MANUAL PAYMENT', 'BATCH', 'PAYMENTS']) {
      for (const p of ['users.manage', 'audit.read', 'developers.read', 'developers.keys', 'settings.manage'] as const) expect(can(g, p), `${g} ${p}`).toBe(false);
    }
    expect(can('ROOT', 'payments.read')).toBe(false);
    expect(permissionsOf('nobody')).toEqual([]);
  });
});

describe('sessions', () => {
  const limits = { idleMs: 30 * 60_000, absoluteMs: 12 * 3600_000 };
  const at = (min: number) => new Date(Date.UTC(2026, 0, 1, 0, min));
  it('ends after the idle time, after the absolute time, and when ended', () => {
    const s = { created_at: at(0), last_seen_at: at(0), expires_at: new Date(at(0).getTime() + limits.absoluteMs), ended_at: null };
    expect(sessionEnd(s, at(29), limits)).toBeNull();
    expect(sessionEnd(s, at(30), limits)).toBe('IDLE');
    expect(sessionEnd({ ...s, last_seen_at: at(12 * 60 - 1) }, at(12 * 60), limits)).toBe('EXPIRED');
    expect(sessionEnd({ ...s, ended_at: at(1) }, at(2), limits)).toBe('ENDED');
  });
  it('starts at the password change, the second factor, or in', () => {
    expect(stageAfterPassword({ must_change_password: true, totp_enabled_at: null })).toBe('PASSWORD_CHANGE');
    expect(stageAfterPassword({ must_change_password: false, totp_enabled_at: null })).toBe('ACTIVE');
    expect(stageAfterPassword({ must_change_password: false, totp_enabled_at: new Date() })).toBe('TOTP');
  });
});

describe('lockout', () => {
  const policy = { limit: 3, windowMs: 15 * 60_000 };
  const at = (min: number) => new Date(Date.UTC(2026, 0, 1, 0, min));
  it('locks at the limit within the window, for the window; a failure after the window starts again', () => {
    let s = afterFailure(undefined, at(0), policy);
    s = afterFailure(s, at(1), policy);
    expect(s.locked_until).toBeNull();
    s = afterFailure(s, at(2), policy);
    expect(s.locked_until).toEqual(at(17));
    expect(lockedForSeconds(s, at(16))).toBe(60);
    expect(lockedForSeconds(s, at(17))).toBe(0);
    const later = afterFailure({ failures: 2, window_started_at: at(0), locked_until: null }, at(20), policy);
    expect(later).toEqual({ failures: 1, window_started_at: at(20), locked_until: null });
  });
});

describe('new passwords', () => {
  const u = { username: 'lucia.martin', email: 'lucia@shop.example' };
  it('are long enough and not the username or e-mail', () => {
    expect(passwordProblem('short', u)).toMatch(/at least 12/);
    expect(passwordProblem('my lucia.martin pass', u)).toMatch(/username/);
    expect(passwordProblem('aaaaaaaaaaaaaaaa', u)).toMatch(/repeat/);
    expect(passwordProblem('a long and fine passphrase', u)).toBeNull();
  });
});
