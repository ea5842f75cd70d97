/**
 * Sign-in and sessions of the D3 users: the password (with its lockouts and slow-downs), the second
 * factor, sessions in cookies (idle and absolute limits), the password change and the reset by e-mail,
 * and what a session looks at (environment, merchant, language).
 */
import { randomBytes } from 'node:crypto';
import { ApiError, badRequest, forbidden, notFound, tooManyRequests, unauthorized } from '../../platform/errors/errors.js';
import { hashPassword, needsRehash, sha256Hex, verifyPassword } from '../../platform/security/hashing.js';
import type { DashboardUserRow } from '../merchants/index.js';
import {
  afterFailure,
  afterUserFailure,
  defaultEnv,
  passwordProblem,
  permissionsOf,
  sessionEnd,
  signInKeys,
  signInRefusal,
  stageAfterPassword,
  stageAfterTotp,
  twinOf,
  type Env,
  type Stage,
} from './dashboard.domain.js';
import type { Caller, DashboardCore, DashSession } from './dashboard.core.js';
import * as repo from './dashboard.repo.js';
import { lockEmail, resetEmail } from './dashboard.mail.js';
import { normaliseRecovery, type DashboardTwoFactor } from './dashboard.two-factor.js';

/** How long a password reset link works. */
const RESET_TTL_MS = 30 * 60_000;

/** A password that no user has: unknown names take as long to refuse as wrong passwords. */
let decoyHash: Promise<string> | null = null;

/** How long an address a user signed in from stays known (not slowed down by failures elsewhere). */
export const KNOWN_ADDRESS_MS = 90 * 86400_000;

/**
 * The passwords no one may choose: the common-password list of @zxcvbn-ts/language-common (about 50,000
 * passwords seen in breaches, shipped in the package: nothing is fetched), read at the first need.
 */
let commonPasswords: Promise<ReadonlySet<string>> | null = null;
export function loadCommonPasswords(): Promise<ReadonlySet<string>> {
  commonPasswords ??= import('@zxcvbn-ts/language-common').then((m) => new Set(m.dictionary['passwords-common'].map((x) => x.toLowerCase())));
  return commonPasswords;
}

export class DashboardSessions {
  constructor(private readonly c: DashboardCore, private readonly twoFactor: DashboardTwoFactor) {}

  private get p() {
    return this.c.p;
  }

  private get deps() {
    return this.c.deps;
  }

  get #db() {
    return this.c.db;
  }

  /**
   * Username (or e-mail) and password. Failures are counted per user and address (five lock the user
   * at that address only), per user from every address (past the limit, addresses the user never signed
   * in from wait a few seconds between tries: slowed down, never locked) and per address (many names
   * tried from one address lock it). A name that is no user is counted the same way, so its answers are
   * a user's. Attempts refused while locked are counted too. A new session is always made (the token a
   * browser had before is never kept: no session fixation).
   */
  async signIn(input: { login: string; password: string }, caller: Caller): Promise<{ token: string; stage: Stage; user: DashboardUserRow }> {
    const now = this.p.clock.now();
    const login = input.login.trim();
    const user = await this.deps.merchants.dashboardUserForSignIn(login);
    const ip = caller.ip ?? 'unknown';
    const keys = signInKeys(user ? `user:${user.id}` : `name:${login.toLowerCase()}`, ip);
    const states = await repo.failureStates(this.#db, [keys.pair, keys.subject, keys.address]);
    const known = user ? await repo.isKnownAddress(this.#db, user.id, ip, new Date(now.getTime() - KNOWN_ADDRESS_MS)) : false;
    const refusal = signInRefusal({ pair: states.get(keys.pair), subject: states.get(keys.subject), address: states.get(keys.address) }, known, now);
    if (refusal) {
      await repo.countBlocked(this.#db, refusal.by === 'pair' ? keys.pair : refusal.by === 'slow' ? keys.subject : keys.address);
      await this.c.writeAudit(user ?? null, user?.merchant_id ?? null, 'signin.locked', login, { by: refusal.by }, caller.ip);
      throw this.#locked(refusal.by, refusal.seconds);
    }
    const ok = user ? await verifyPassword(input.password, user.password_hash) : (await verifyPassword(input.password, await (decoyHash ??= hashPassword(randomBytes(16).toString('hex')))), false);
    if (!ok) {
      const lockedBy = await this.#failed(user ?? null, keys, states, ip, now);
      await this.c.writeAudit(user ?? null, user?.merchant_id ?? null, 'signin.failed', login, lockedBy ? { locked: lockedBy } : null, caller.ip);
      if (lockedBy) throw this.#locked(lockedBy, this.p.config.dashboardLockoutMinutes * 60);
      throw unauthorized('The username or password is not right');
    }
    if (user!.status !== 'ACTIVE') {
      await this.c.writeAudit(user!, user!.merchant_id, 'signin.disabled', login, null, caller.ip);
      throw forbidden('This user is disabled: ask a manager of your merchant');
    }
    await repo.clearFailures(this.#db, [keys.pair]);
    if (needsRehash(user!.password_hash)) await this.deps.merchants.updateDashboardUser(this.#db, user!.id, { password_hash: await hashPassword(input.password) });
    const stage = stageAfterPassword(user!);
    // the address becomes known once the whole sign-in is done (the second factor too)
    if (stage !== 'TOTP') await repo.rememberAddress(this.#db, user!.id, ip, now);
    const token = await this.#newSession(user!, stage, caller, now);
    await this.c.writeAudit(user!, user!.merchant_id, stage === 'ACTIVE' ? 'signin' : 'signin.password', null, { stage }, caller.ip);
    return { token, stage, user: user! };
  }

  /**
   * Counts a failed password or second-factor code under the keys of a sign-in; tells the user by e-mail
   * when this failure locked their address or began to slow their user down. What it locked, if anything.
   */
  async #failed(user: DashboardUserRow | null, keys: ReturnType<typeof signInKeys>, states: Map<string, repo.FailureRow>, ip: string, now: Date, address = true): Promise<'pair' | 'address' | null> {
    const windowMs = this.p.config.dashboardLockoutMinutes * 60_000;
    const limit = this.p.config.dashboardLockoutFailures;
    const pair = afterFailure(states.get(keys.pair), now, { limit, windowMs });
    await repo.saveFailureState(this.#db, keys.pair, pair, { user_id: user?.id ?? null, ip });
    const before = states.get(keys.subject);
    const subject = afterUserFailure(before, now, { limit, windowMs });
    await repo.saveFailureState(this.#db, keys.subject, subject, { user_id: user?.id ?? null });
    let lockedBy: 'pair' | 'address' | null = pair.locked_until ? 'pair' : null;
    if (address) {
      const next = afterFailure(states.get(keys.address), now, { limit: this.p.config.dashboardLockoutFailuresPerAddress, windowMs });
      await repo.saveFailureState(this.#db, keys.address, next, { ip });
      if (next.locked_until) lockedBy ??= 'address';
    }
    if (user && this.p.mailer.configured) {
      const how = pair.locked_until ? 'pair' : subject.failures === limit ? 'slow' : null;
      if (how) {
        const mail = lockEmail(user.language, user.username, how, ip, this.p.config.dashboardLockoutMinutes, how === 'pair' ? pair.failures : subject.failures);
        await this.p.database.transaction((trx) => this.p.mailer.queue(trx, { merchantId: user.merchant_id, to: user.email, subject: mail.subject, text: mail.body }));
      }
    }
    return lockedBy;
  }

  #locked(by: 'pair' | 'address' | 'slow', seconds: number): ApiError {
    const minutes = Math.max(1, Math.ceil(seconds / 60));
    const m = `${minutes} minute${minutes === 1 ? '' : 's'}`;
    return tooManyRequests(
      by === 'pair'
        ? `Too many failed sign-ins for this user from this address: it is locked here for ${m}. Try again later or reset the password.`
        : by === 'slow'
          ? `Too many failed sign-ins for this user: from a new address, wait ${seconds} second${seconds === 1 ? '' : 's'} before trying again.`
          : `Too many failed sign-ins from this address: try again in ${m}.`,
      seconds,
    );
  }

  async #newSession(user: DashboardUserRow, stage: Stage, caller: Caller, now: Date, keep?: { env: Env; merchantId: string }): Promise<string> {
    const env = keep?.env ?? defaultEnv(user);
    const merchantId = keep?.merchantId ?? twinOf(user, env) ?? user.merchant_id;
    const token = randomBytes(32).toString('base64url');
    await repo.insertSession(this.#db, {
      token_hash: sha256Hex(token),
      user_id: user.id,
      stage,
      env,
      merchant_id: merchantId,
      ip: caller.ip,
      user_agent: caller.userAgent?.slice(0, 300) ?? null,
      created_at: now,
      last_seen_at: now,
      expires_at: new Date(now.getTime() + this.c.limits.absoluteMs),
      ended_at: null,
      end_reason: null,
    });
    return token;
  }

  /**
   * The session of a cookie's token, or an error saying why there is none (401). A disabled user's
   * session ends here, at its next request. `use: false`: the request is no use of the session (it does
   * not keep it from idling out).
   */
  async resolve(token: string | undefined, caller: Caller, opts: { use?: boolean } = {}): Promise<DashSession> {
    if (!token || token.length > 100) throw unauthorized('Sign in to the dashboard first');
    const tokenHash = sha256Hex(token);
    const session = await repo.findSession(this.#db, tokenHash);
    if (!session) throw unauthorized('Sign in to the dashboard first');
    const now = this.p.clock.now();
    const end = sessionEnd(session, now, this.c.limits);
    if (end) {
      if (end !== 'ENDED') await repo.endSession(this.#db, tokenHash, now, end);
      throw unauthorized(end === 'IDLE' ? 'Your session ended after a while without use: sign in again' : 'Your session has ended: sign in again');
    }
    const user = await this.deps.merchants.dashboardUser(this.#db, session.user_id);
    if (!user || user.status !== 'ACTIVE') {
      await repo.endSession(this.#db, tokenHash, now, 'USER_DISABLED');
      throw unauthorized('This user is disabled: the session has ended');
    }
    // only a person's action is use: the live stream's checks and the pages' own refreshes are not
    if (opts.use !== false && now.getTime() - session.last_seen_at.getTime() > 5_000) await repo.touchSession(this.#db, tokenHash, now);
    return { tokenHash, session, user, merchantId: session.merchant_id, env: session.env, ip: caller.ip };
  }

  /** The first password change: a new password, then a new session (the old one ends). */
  async changePassword(s: DashSession, input: { current_password: string; new_password: string }, caller: Caller): Promise<{ token: string; stage: Stage }> {
    const user = s.user;
    if (!(await verifyPassword(input.current_password, user.password_hash))) throw badRequest('The current password is not right');
    const problem = passwordProblem(input.new_password, user, await loadCommonPasswords());
    if (problem) throw badRequest(problem);
    if (await verifyPassword(input.new_password, user.password_hash)) throw badRequest('The new password must differ from the current one');
    const now = this.p.clock.now();
    const hash = await hashPassword(input.new_password);
    await this.p.database.transaction(async (trx) => {
      await this.deps.merchants.updateDashboardUser(trx, user.id, { password_hash: hash, must_change_password: false, password_changed_at: now });
      // every other session of the user ends with the old password
      await repo.endUserSessions(trx, user.id, now, 'PASSWORD_CHANGED');
    });
    const updated = (await this.deps.merchants.dashboardUser(this.#db, user.id))!;
    const stage: Stage = 'ACTIVE';
    const token = await this.#newSession(updated, stage, caller, now, { env: s.env, merchantId: s.merchantId });
    await this.c.writeAudit(updated, updated.merchant_id, 'password.changed', null, null, caller.ip);
    return { token, stage };
  }

  async signOut(s: DashSession): Promise<void> {
    await repo.endSession(this.#db, s.tokenHash, this.p.clock.now(), 'SIGNED_OUT');
    await this.c.writeAudit(s.user, s.merchantId, 'signout', null, null, s.ip);
  }

  /** Ends every session of the user, this one included. */
  async signOutEverywhere(s: DashSession): Promise<number> {
    const n = await repo.endUserSessions(this.#db, s.user.id, this.p.clock.now(), 'SIGNED_OUT_EVERYWHERE');
    await this.c.writeAudit(s.user, s.merchantId, 'signout.everywhere', null, { sessions: n }, s.ip);
    return n;
  }

  /**
   * The second step of a sign-in: a code of the authenticator app or a recovery code. Failures count
   * toward the user's lockout. A new session replaces the half-signed-in one.
   */
  async signInTotp(s: DashSession, input: { code?: string; recovery_code?: string }, caller: Caller): Promise<{ token: string; stage: Stage }> {
    const now = this.p.clock.now();
    const ip = caller.ip ?? 'unknown';
    const keys = signInKeys(`user:${s.user.id}`, ip);
    const states = await repo.failureStates(this.#db, [keys.pair, keys.subject]);
    const refusal = signInRefusal({ pair: states.get(keys.pair) }, true, now);
    if (refusal) {
      await repo.countBlocked(this.#db, keys.pair);
      throw this.#locked(refusal.by, refusal.seconds);
    }
    const user = s.user;
    let ok = false;
    let how = 'totp';
    if (input.code) ok = await this.twoFactor.check(user, input.code.trim());
    else if (input.recovery_code) {
      how = 'recovery_code';
      ok = await repo.useRecoveryCode(this.#db, user.id, sha256Hex(normaliseRecovery(input.recovery_code)), now);
    }
    if (!ok) {
      const lockedBy = await this.#failed(user, keys, states, ip, now, false);
      await this.c.writeAudit(user, user.merchant_id, 'signin.totp_failed', null, { how }, caller.ip);
      if (lockedBy) throw this.#locked(lockedBy, this.p.config.dashboardLockoutMinutes * 60);
      throw unauthorized('The code is not right');
    }
    await repo.clearFailures(this.#db, [keys.pair]);
    await repo.rememberAddress(this.#db, user.id, ip, now);
    await repo.endSession(this.#db, s.tokenHash, now, 'SECOND_FACTOR_DONE');
    const stage = stageAfterTotp(user);
    const token = await this.#newSession(user, stage, caller, now, { env: s.env, merchantId: s.merchantId });
    const left = how === 'recovery_code' ? await repo.recoveryCodesLeft(this.#db, user.id) : null;
    await this.c.writeAudit(user, user.merchant_id, stage === 'ACTIVE' ? 'signin' : 'signin.password', null, { second_factor: how, ...(left !== null ? { recovery_codes_left: left } : {}) }, caller.ip);
    return { token, stage };
  }

  // ---- password reset by e-mail -------------------------------------------------------------------------

  /**
   * Sends a reset link to the user a sign-in name names (through the outbox, in the user's language).
   * Answers the same whether or not the user exists; at most 3 links per user an hour.
   */
  async requestReset(login: string, caller: Caller): Promise<void> {
    const user = await this.deps.merchants.dashboardUserForSignIn(login.trim());
    const now = this.p.clock.now();
    if (!user || user.status !== 'ACTIVE') {
      await this.c.writeAudit(null, null, 'password.reset_unknown', login.trim().slice(0, 100), null, caller.ip);
      return;
    }
    if ((await repo.recentResets(this.#db, user.id, new Date(now.getTime() - 3600_000))) >= 3) {
      await this.c.writeAudit(user, user.merchant_id, 'password.reset_throttled', null, null, caller.ip);
      return;
    }
    const token = randomBytes(32).toString('base64url');
    const link = `${this.p.config.publicUrl}/dashboard/reset?token=${token}`;
    const mail = resetEmail(user.language, user.username, link);
    await this.p.database.transaction(async (trx) => {
      await repo.insertPasswordReset(trx, { token_hash: sha256Hex(token), user_id: user.id, created_at: now, expires_at: new Date(now.getTime() + RESET_TTL_MS), used_at: null });
      await this.p.mailer.queue(trx, { merchantId: user.merchant_id, to: user.email, subject: mail.subject, text: mail.body });
    });
    await this.c.writeAudit(user, user.merchant_id, 'password.reset_requested', null, null, caller.ip);
  }

  /** Sets a new password with a reset link's token (once, within its time); every session ends. */
  async confirmReset(input: { token: string; new_password: string }, caller: Caller): Promise<void> {
    const now = this.p.clock.now();
    const userId = await repo.takePasswordReset(this.#db, sha256Hex(input.token), now);
    if (!userId) throw badRequest('This reset link is not valid any more: ask for a new one');
    const user = (await this.deps.merchants.dashboardUser(this.#db, userId))!;
    const problem = passwordProblem(input.new_password, user, await loadCommonPasswords());
    if (problem) {
      // the link stays good for another try
      await this.#db.updateTable('dashboard_password_resets').set({ used_at: null }).where('token_hash', '=', sha256Hex(input.token)).execute();
      throw badRequest(problem);
    }
    const hash = await hashPassword(input.new_password);
    await this.p.database.transaction(async (trx) => {
      await this.deps.merchants.updateDashboardUser(trx, user.id, { password_hash: hash, must_change_password: false, password_changed_at: now });
      await repo.endUserSessions(trx, user.id, now, 'PASSWORD_RESET');
      // a new password lifts the user's locks (the old one may have been guessed at)
      await repo.clearUserFailures(trx, user.id);
    });
    await this.c.writeAudit(user, user.merchant_id, 'password.reset', null, null, caller.ip);
  }

  // ---- who is signed in, and where --------------------------------------------------------------------

  /** Merchants the user may look at in the session's environment: its own twin and its descendants. */
  async merchantsOf(user: DashboardUserRow, env: Env) {
    const own = twinOf(user, env);
    if (!own) return [];
    const ids = await this.deps.merchants.selfAndDescendantIds(this.#db, own);
    const out: { uuid: string; name: string; parent_uuid: string | null }[] = [];
    for (const id of ids.slice(0, 200)) {
      const m = await this.deps.merchants.findMerchant(this.#db, id);
      if (m) out.push({ uuid: m.id, name: m.name, parent_uuid: m.parent_id });
    }
    return out;
  }

  async me(s: DashSession, token: string) {
    const merchant = await this.deps.merchants.findMerchant(this.#db, s.merchantId);
    return {
      user: { uuid: s.user.id, username: s.user.username, email: s.user.email, language: s.user.language, group: s.user.user_group, totp_enabled: !!s.user.totp_enabled_at },
      stage: s.session.stage,
      csrf_token: this.c.csrfOf(token),
      env: s.env,
      envs: (['sandbox', 'production'] as const).filter((e) => twinOf(s.user, e) !== null),
      merchant: { uuid: s.merchantId, name: merchant?.name ?? '', timezone: merchant?.timezone ?? 'Europe/Madrid' },
      merchants: s.session.stage === 'ACTIVE' ? await this.merchantsOf(s.user, s.env) : [],
      permissions: s.session.stage === 'ACTIVE' ? permissionsOf(s.user.user_group) : [],
      idle_timeout_s: this.c.limits.idleMs / 1000,
    };
  }

  /** Switches the session to the user's twin of another environment (never mixing the two). */
  async switchEnv(s: DashSession, env: Env): Promise<void> {
    const twin = twinOf(s.user, env);
    if (!twin) throw badRequest(`You have no ${env} merchant`);
    await repo.updateSession(this.#db, s.tokenHash, { env, merchant_id: twin });
    await this.c.writeAudit(s.user, twin, 'switch.env', env, null, s.ip);
  }

  /** A partner's user looks at one of its child merchants (or back at its own). */
  async switchMerchant(s: DashSession, merchantId: string): Promise<void> {
    const own = twinOf(s.user, s.env);
    const allowed = own ? await this.deps.merchants.selfAndDescendantIds(this.#db, own) : [];
    if (!allowed.includes(merchantId.toLowerCase())) throw notFound(`The merchant ${merchantId} was not found`);
    await repo.updateSession(this.#db, s.tokenHash, { merchant_id: merchantId.toLowerCase() });
    await this.c.writeAudit(s.user, merchantId.toLowerCase(), 'switch.merchant', merchantId.toLowerCase(), null, s.ip);
  }

  async setLanguage(s: DashSession, language: string): Promise<void> {
    await this.deps.merchants.updateDashboardUser(this.#db, s.user.id, { language });
  }
}
