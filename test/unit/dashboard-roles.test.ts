/**
 * The dashboard's pure rules: the role table (what each D3 group may do), session ends, sign-in
 * lockout, new passwords.
 */
import { describe, expect, it } from 'vitest';
import { afterFailure, afterUserFailure, lockedForSeconds, passwordProblem, sessionEnd, signInKeys, signInRefusal, stageAfterPassword } from '../../src/modules/dashboard/dashboard.domain.js';
import { PERMISSIONS, ROLES, can, permissionsOf } from '../../src/platform/security/permissions.js';
import { loadCommonPasswords } from '../../src/modules/dashboard/dashboard.sessions.js';

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
    // routing: read and tried by those who manage services, changed by MANAGER only
    expect(['MANAGER', 'USER', 'VIEWER', 'MANUAL PAYMENT', 'BATCH', 'PAYMENTS'].filter((g) => can(g, 'routing.read'))).toEqual(['MANAGER', 'USER']);
    expect(['MANAGER', 'USER', 'VIEWER', 'MANUAL PAYMENT', 'BATCH', 'PAYMENTS'].filter((g) => can(g, 'routing.manage'))).toEqual(['MANAGER']);
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

  it('counts a user and an address apart: a lock holds at its address only', () => {
    const mine = signInKeys('user:u1', '203.0.113.9');
    const theirs = signInKeys('user:u1', '198.51.100.7');
    expect(mine.subject).toBe(theirs.subject);
    expect(mine.pair).not.toBe(theirs.pair);
    expect(signInKeys('name:ghost', '203.0.113.9').pair).not.toBe(mine.pair);
    let pair = afterFailure(undefined, at(0), policy);
    pair = afterFailure(pair, at(0), policy);
    pair = afterFailure(pair, at(0), policy);
    expect(signInRefusal({ pair }, true, at(1))).toEqual({ by: 'pair', seconds: 14 * 60 });
    // another address of the same user: no pair lock there
    expect(signInRefusal({}, true, at(1))).toBeNull();
  });

  it('slows down new addresses of a user failing everywhere, never locks them, and lets known addresses through', () => {
    const t0 = at(0);
    const ms = (n: number) => new Date(t0.getTime() + n);
    let user = afterUserFailure(undefined, t0, policy);
    user = afterUserFailure(user, t0, policy);
    expect(user.slowed_until).toBeNull();
    user = afterUserFailure(user, t0, policy); // the limit: 1 s
    expect(user.slowed_until).toEqual(ms(1000));
    user = afterUserFailure(user, t0, policy);
    expect(user.slowed_until).toEqual(ms(2000));
    for (let i = 0; i < 20; i++) user = afterUserFailure(user, t0, policy);
    expect(user.slowed_until).toEqual(ms(60_000)); // at most a minute
    expect(user.locked_until).toBeNull();
    expect(signInRefusal({ subject: user }, false, ms(500))).toEqual({ by: 'slow', seconds: 60 });
    expect(signInRefusal({ subject: user }, true, ms(500))).toBeNull();
    expect(signInRefusal({ subject: user }, false, ms(60_000))).toBeNull();
    // a new window starts from nothing
    expect(afterUserFailure(user, at(20), policy)).toMatchObject({ failures: 1, slowed_until: null });
  });
});

describe('new passwords', () => {
  const u = { username: 'lucia.martin', email: 'lucia@shop.example' };
  it('are long enough and not the username or e-mail', async () => {
    const common = await loadCommonPasswords();
    expect(passwordProblem('short', u, common)).toMatch(/at least 12/);
    expect(passwordProblem('my lucia.martin pass', u, common)).toMatch(/username/);
    expect(passwordProblem('aaaaaaaaaaaaaaaa', u, common)).toMatch(/repeat/);
    expect(passwordProblem('a long and fine passphrase', u, common)).toBeNull();
  });

  it('are not common passwords (the breach lists of @zxcvbn-ts/language-common), repetitions or runs (NIST SP 800-63B)', async () => {
    const common = await loadCommonPasswords();
    expect(common.size).toBeGreaterThan(40_000);
    for (const weak of ['password1234', 'Password1234', 'qwertyuiop12', 'monkey123456', 'iloveyou2026!', 'Dragon123456', 'Paygate2026!!']) expect(passwordProblem(weak, u, common), weak).toMatch(/common/);
    for (const repeated of ['abababababab', 'abcabcabcabc', 'xyzzyxyzzyxyzzy']) expect(passwordProblem(repeated, u, common), repeated).toMatch(/repeated/);
    for (const run of ['abcdefghijkl', '123456789012', '345678901234', 'zyxwvutsrqpo']) expect(passwordProblem(run, u, common), run).toMatch(/run/);
    expect(passwordProblem('lucia winter 2026', u, common)).toMatch(/e-mail/);
    for (const fine of ['correct horse battery', 'verde market staff 2026', 'tres tristes tigres']) expect(passwordProblem(fine, u, common), fine).toBeNull();
  });
});
