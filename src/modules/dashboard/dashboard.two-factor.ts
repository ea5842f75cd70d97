/**
 * Two-factor sign-in (TOTP) of the dashboard users: enrolment with a sealed secret, a code good once, and
 * the ten recovery codes given once (stored hashed).
 */
import { randomBytes } from 'node:crypto';
import { generateSecret, generateURI, verify as verifyTotp } from 'otplib';
import QRCode from 'qrcode';
import { badRequest } from '../../platform/errors/errors.js';
import { sha256Hex, verifyPassword } from '../../platform/security/hashing.js';
import type { DashboardUserRow } from '../merchants/index.js';
import type { DashboardCore, DashSession } from './dashboard.core.js';
import * as repo from './dashboard.repo.js';

/** A recovery code: 10 characters of an unambiguous alphabet, shown as two groups of 5. */
function recoveryCode(): string {
  const alphabet = 'ABCDEFGHJKLMNPQRSTUVWXYZ23456789';
  const bytes = randomBytes(10);
  const raw = [...bytes].map((b) => alphabet[b % 32]).join('');
  return `${raw.slice(0, 5)}-${raw.slice(5)}`;
}

export function normaliseRecovery(code: string): string {
  return code.toUpperCase().replace(/[^A-Z0-9]/g, '');
}

export class DashboardTwoFactor {
  constructor(private readonly c: DashboardCore) {}

  private get p() {
    return this.c.p;
  }

  private get deps() {
    return this.c.deps;
  }

  get #db() {
    return this.c.db;
  }

  /** Starts enrolment: a new secret (sealed, not in force until a code proves it) and its otpauth URI. */
  async totpSetup(s: DashSession) {
    if (s.user.totp_enabled_at) throw badRequest('Two-factor sign-in is already on: turn it off first to enrol again');
    const secret = generateSecret();
    await this.deps.merchants.updateDashboardUser(this.#db, s.user.id, { totp_secret_sealed: this.p.vault.seal(secret, `totp:${s.user.id}`), totp_last_step: null });
    const uri = generateURI({ issuer: 'paygate', label: s.user.username, secret });
    return { secret, otpauth_uri: uri, qr_code: await QRCode.toDataURL(uri, { margin: 1, width: 220 }) };
  }

  /** Whether a code of the app is right (and not used before: a code is good once). */
  async check(user: DashboardUserRow, code: string): Promise<boolean> {
    if (!user.totp_secret_sealed || !/^\d{6}$/.test(code)) return false;
    const secret = this.p.vault.open(user.totp_secret_sealed, `totp:${user.id}`).reveal();
    const r = await verifyTotp({ secret, token: code, epoch: Math.floor(this.p.clock.now().getTime() / 1000), epochTolerance: 30 });
    if (!r.valid || !('timeStep' in r)) return false;
    // a code is good once
    return repo.advanceTotpStep(this.#db, user.id, Number(r.timeStep));
  }

  /** Ends enrolment with a code from the app: two-factor is on, and the recovery codes are given once. */
  async totpEnable(s: DashSession, code: string) {
    const user = (await this.deps.merchants.dashboardUser(this.#db, s.user.id))!;
    if (user.totp_enabled_at) throw badRequest('Two-factor sign-in is already on');
    if (!user.totp_secret_sealed) throw badRequest('Start the enrolment first');
    if (!(await this.check(user, code))) throw badRequest('The code is not right: check the time of your phone and enter the current code');
    const now = this.p.clock.now();
    const codes = Array.from({ length: 10 }, () => recoveryCode());
    await this.p.database.transaction(async (trx) => {
      await this.deps.merchants.updateDashboardUser(trx, user.id, { totp_enabled_at: now });
      await repo.replaceRecoveryCodes(trx, user.id, codes.map((c) => sha256Hex(normaliseRecovery(c))), now);
    });
    await this.c.writeAudit(user, s.merchantId, 'totp.enabled', null, null, s.ip);
    return codes;
  }

  /** Turns two-factor off (the password and a current code, or a recovery code, are needed). */
  async totpDisable(s: DashSession, input: { password: string; code: string }) {
    const user = (await this.deps.merchants.dashboardUser(this.#db, s.user.id))!;
    if (!user.totp_enabled_at) throw badRequest('Two-factor sign-in is off');
    if (!(await verifyPassword(input.password, user.password_hash))) throw badRequest('The password is not right');
    const now = this.p.clock.now();
    const ok = (await this.check(user, input.code)) || (await repo.useRecoveryCode(this.#db, user.id, sha256Hex(normaliseRecovery(input.code)), now));
    if (!ok) throw badRequest('The code is not right');
    await this.p.database.transaction(async (trx) => {
      await this.deps.merchants.updateDashboardUser(trx, user.id, { totp_enabled_at: null, totp_secret_sealed: null, totp_last_step: null });
      await repo.replaceRecoveryCodes(trx, user.id, [], now);
    });
    await this.c.writeAudit(user, s.merchantId, 'totp.disabled', null, null, s.ip);
  }
}
