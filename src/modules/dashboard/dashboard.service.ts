/**
 * Use cases of the dashboard: sign-in and sessions for the D3 users, and the staff's actions, each one a
 * call to the same module service the merchant API calls (a refund here is the B12 refund), recorded in
 * the audit log. The dashboard holds no business rule of its own beyond who may do what (ROLES).
 */
import { randomBytes, randomUUID } from 'node:crypto';
import { PassThrough } from 'node:stream';
import { sql } from 'kysely';
import type { Platform } from '../../platform/index.js';
import type { Executor } from '../../platform/db/database.js';
import { ApiError, badRequest, conflict, forbidden, notFound, tooManyRequests, unauthorized } from '../../platform/errors/errors.js';
import type { RequestContext } from '../../platform/http/types.js';
import { hashPassword, needsRehash, randomPassword, safeEqual, sha256Hex, verifyPassword } from '../../platform/security/hashing.js';
import { credentialsEmail, type MerchantsService, type DashboardUserRow } from '../merchants/index.js';
import type { PaymentsService, OrderFilters } from '../payments/index.js';
import type { EventsService } from '../events/index.js';
import { externalIdsByEmail, type CustomersService } from '../customers/index.js';
import type { SourcesService } from '../sources/index.js';
import type { CampaignsService } from '../campaigns/index.js';
import type { BatchService } from '../batch/index.js';
import type { SubscriptionsService } from '../subscriptions/index.js';
import type { CardPresentService, DevicesService } from '../devices/index.js';
import type { RiskService } from '../risk/index.js';
import type { ServicesService } from '../services/index.js';
import type { TemplatesService } from '../templates/index.js';
import type { CheckoutsService } from '../checkouts/index.js';
import type { WalletsService } from '../wallets/index.js';
import type { DccService } from '../dcc/index.js';
import type { TerminalService } from '../terminal/index.js';
import type { ReconciliationService } from '../reconciliation/index.js';
import {
  API_OPERATIONS,
  afterFailure,
  afterUserFailure,
  can,
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
  type Permission,
  type Stage,
} from './dashboard.domain.js';
import * as repo from './dashboard.repo.js';
import { generateSecret, generateURI, verify as verifyTotp } from 'otplib';
import QRCode from 'qrcode';
import { issueTicket } from '../../platform/http/internal-call.js';
import { uuidV7 } from '../../platform/ids.js';
import { redactEntry, redactPans, redactValue, type CapturedRequest, type RequestLogSink } from '../../platform/http/request-log.js';
import { isProfile, type Profile } from '../../platform/http/types.js';

export interface DashboardDeps {
  merchants: MerchantsService;
  payments: PaymentsService;
  events: EventsService;
  /** the modules the dashboard's areas read through (lists the API has no operation for) */
  customers: CustomersService;
  sources: SourcesService;
  campaigns: CampaignsService;
  batch: BatchService;
  subscriptions: SubscriptionsService;
  devices: DevicesService;
  cardPresent: CardPresentService;
  risk: RiskService;
  services: ServicesService;
  templates: TemplatesService;
  checkouts: CheckoutsService;
  wallets: WalletsService;
  dcc: DccService;
  /** the virtual terminal's one-time card forms (the terminal area) */
  terminal: TerminalService;
  /** reconciliation: the services whose connector gives settlement reports (the reconciliation area) */
  reconciliation: ReconciliationService;
}

/** What a request of a signed-in user carries. */
export interface DashSession {
  tokenHash: string;
  session: repo.SessionRow;
  user: DashboardUserRow;
  /** the merchant looked at, and its environment */
  merchantId: string;
  env: Env;
  ip: string | null;
}

/** The payments list's filters: the search's, plus the customer's e-mail (found in the customers' profiles). */
export type DashFilters = Omit<OrderFilters, 'customers_in'> & { email?: string };

export interface Caller {
  ip: string | null;
  userAgent: string | null;
}

/** How long a password reset link works. */
const RESET_TTL_MS = 30 * 60_000;

/** A recovery code: 10 characters of an unambiguous alphabet, shown as two groups of 5. */
function recoveryCode(): string {
  const alphabet = 'ABCDEFGHJKLMNPQRSTUVWXYZ23456789';
  const bytes = randomBytes(10);
  const raw = [...bytes].map((b) => alphabet[b % 32]).join('');
  return `${raw.slice(0, 5)}-${raw.slice(5)}`;
}

function normaliseRecovery(code: string): string {
  return code.toUpperCase().replace(/[^A-Z0-9]/g, '');
}

function resetEmail(language: string, username: string, link: string) {
  const texts: Record<string, { subject: string; body: string }> = {
    ES: { subject: 'Restablece tu contraseña de paygate', body: `Hola ${username},\n\nPara elegir una contraseña nueva abre este enlace (vale 30 minutos y una sola vez):\n\n${link}\n\nSi no lo has pedido tú, ignora este mensaje.\n` },
    EN: { subject: 'Reset your paygate password', body: `Hello ${username},\n\nTo choose a new password open this link (it works for 30 minutes, once):\n\n${link}\n\nIf you did not ask for it, ignore this message.\n` },
    PT: { subject: 'Redefina a sua palavra-passe paygate', body: `Olá ${username},\n\nPara escolher uma palavra-passe nova abra esta ligação (válida 30 minutos, uma só vez):\n\n${link}\n\nSe não foi você que pediu, ignore esta mensagem.\n` },
  };
  return texts[language] ?? texts.EN;
}

/** The e-mail that tells a user their sign-in was locked at an address, or is slowed down. */
function lockEmail(language: string, username: string, how: 'pair' | 'slow', ip: string, minutes: number, failures: number) {
  const texts: Record<string, { subject: string; body: string }> = {
    ES: {
      subject: 'Intentos fallidos de entrar en tu cuenta de paygate',
      body: how === 'pair'
        ? `Hola ${username},\n\nHa habido ${failures} intentos fallidos de entrar con tu usuario desde la dirección ${ip}: desde ella queda bloqueado ${minutes} minutos. Desde las direcciones donde ya has entrado puedes seguir haciéndolo.\n\nSi no has sido tú, cambia tu contraseña y avisa a un responsable de tu comercio.\n`
        : `Hola ${username},\n\nHa habido ${failures} intentos fallidos de entrar con tu usuario desde varias direcciones. Desde las direcciones donde ya has entrado puedes seguir haciéndolo; desde otras, cada intento espera unos segundos.\n\nSi no has sido tú, cambia tu contraseña y avisa a un responsable de tu comercio.\n`,
    },
    EN: {
      subject: 'Failed sign-ins to your paygate account',
      body: how === 'pair'
        ? `Hello ${username},\n\nThere were ${failures} failed sign-ins with your user from the address ${ip}: from there it is locked for ${minutes} minutes. From the addresses you signed in from before you can still sign in.\n\nIf it was not you, change your password and tell a manager of your merchant.\n`
        : `Hello ${username},\n\nThere were ${failures} failed sign-ins with your user from several addresses. From the addresses you signed in from before you can still sign in; from others, each try now waits a few seconds.\n\nIf it was not you, change your password and tell a manager of your merchant.\n`,
    },
    PT: {
      subject: 'Tentativas falhadas de entrar na sua conta paygate',
      body: how === 'pair'
        ? `Olá ${username},\n\nHouve ${failures} tentativas falhadas de entrar com o seu utilizador a partir do endereço ${ip}: a partir dele fica bloqueado ${minutes} minutos. A partir dos endereços onde já entrou pode continuar a fazê-lo.\n\nSe não foi você, altere a sua palavra-passe e avise um responsável do seu comerciante.\n`
        : `Olá ${username},\n\nHouve ${failures} tentativas falhadas de entrar com o seu utilizador a partir de vários endereços. A partir dos endereços onde já entrou pode continuar a fazê-lo; a partir de outros, cada tentativa espera uns segundos.\n\nSe não foi você, altere a sua palavra-passe e avise um responsável do seu comerciante.\n`,
    },
  };
  return texts[language] ?? texts.EN;
}

/** A password that no user has: unknown names take as long to refuse as wrong passwords. */
let decoyHash: Promise<string> | null = null;

/** How long an address a user signed in from stays known (not slowed down by failures elsewhere). */
const KNOWN_ADDRESS_MS = 90 * 86400_000;

/**
 * The passwords no one may choose: the common-password list of @zxcvbn-ts/language-common (about 50,000
 * passwords seen in breaches, shipped in the package: nothing is fetched), read at the first need.
 */
let commonPasswords: Promise<ReadonlySet<string>> | null = null;
export function loadCommonPasswords(): Promise<ReadonlySet<string>> {
  commonPasswords ??= import('@zxcvbn-ts/language-common').then((m) => new Set(m.dictionary['passwords-common'].map((x) => x.toLowerCase())));
  return commonPasswords;
}

/** The row of a captured request: redacted (request-log.ts) and shaped for the table. */
function rowOf(c: CapturedRequest): repo.NewRequestLog {
  const e = redactEntry(c);
  return {
    id: uuidV7(e.at.getTime()),
    merchant_id: e.merchantId,
    env: e.env,
    key_id: e.keyId,
    method: e.method,
    path: e.path,
    status: e.status,
    duration_ms: e.durationMs,
    idempotency_key: e.idempotencyKey,
    request_id: e.requestId,
    order_id: e.orderId,
    request_body: e.requestBody,
    response_body: e.responseBody,
    created_at: e.at,
  };
}

/**
 * Where the platform's request-log hook puts what it captured: kept in memory, then redacted and written
 * in batches (one statement for many requests), off the request's path: a request pays only for its
 * capture. Memory is bounded: past MAX_PENDING captures waiting (the database slower than the traffic)
 * new ones are dropped and counted (`dropped`, a metric and a warning a minute). Readers flush first, so
 * what was answered is there when a developer looks. An entry still in memory when the process dies is
 * lost (a log, not a record of money).
 */
export class RequestLogStore implements RequestLogSink {
  static readonly MAX_PENDING = 20_000;
  static readonly BATCH = 200;
  #buffer: CapturedRequest[] = [];
  #timer: NodeJS.Timeout | null = null;
  #writing: Promise<void> = Promise.resolve();
  /** Captures dropped because too many waited (since the process started). */
  dropped = 0;
  #warnedAt = 0;

  constructor(private readonly p: Platform) {}

  /** Captures taken and not yet written (buffered, or waiting for the writes before them). */
  #pending = 0;

  get pending(): number {
    return this.#pending;
  }

  capture(c: CapturedRequest): void {
    if (this.#pending >= RequestLogStore.MAX_PENDING) {
      this.dropped++;
      this.p.metrics.requestLogDropped.inc();
      const now = Date.now();
      if (now - this.#warnedAt > 60_000) {
        this.#warnedAt = now;
        this.p.logger.warn({ dropped: this.dropped, pending: this.#buffer.length }, 'request log behind the traffic: entries dropped');
      }
      return;
    }
    this.#buffer.push(c);
    this.#pending++;
    if (this.#buffer.length >= RequestLogStore.BATCH) void this.flush();
    else if (!this.#timer) {
      this.#timer = setTimeout(() => void this.flush(), 1000);
      this.#timer.unref();
    }
  }

  /** Writes what is buffered (and waits for writes under way). */
  flush(): Promise<void> {
    if (this.#timer) clearTimeout(this.#timer);
    this.#timer = null;
    const rows = this.#buffer;
    this.#buffer = [];
    this.#writing = this.#writing.then(async () => {
      if (rows.length === 0) return;
      try {
        // redacted here, a batch at a time, yielding to requests between batches
        for (let i = 0; i < rows.length; i += RequestLogStore.BATCH) {
          if (i > 0) await new Promise((r) => setImmediate(r));
          await repo.insertRequestLogs(this.p.database.db, uuidV7(), rows.slice(i, i + RequestLogStore.BATCH).map(rowOf));
        }
      } catch (err) {
        this.p.logger.warn({ err: err instanceof Error ? err.message : String(err), entries: rows.length }, 'request log entries not written');
      } finally {
        this.#pending -= rows.length;
      }
    });
    return this.#writing;
  }
}

export class DashboardService {
  readonly requestLog: RequestLogStore;

  constructor(
    private readonly p: Platform,
    readonly deps: DashboardDeps,
  ) {
    this.requestLog = new RequestLogStore(p);
  }

  get #db() {
    return this.p.database.db;
  }

  get limits() {
    return { idleMs: this.p.config.dashboardIdleMinutes * 60_000, absoluteMs: this.p.config.dashboardSessionMinutes * 60_000 };
  }

  /** The CSRF token of a session: derived from its secret token, so it needs no storage. */
  csrfOf(token: string): string {
    return this.p.vault.fingerprint('dashboard-csrf', token);
  }

  // ---- sign-in ----------------------------------------------------------------------------------------

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
      await this.#audit(user ?? null, user?.merchant_id ?? null, 'signin.locked', login, { by: refusal.by }, caller.ip);
      throw this.#locked(refusal.by, refusal.seconds);
    }
    const ok = user ? await verifyPassword(input.password, user.password_hash) : (await verifyPassword(input.password, await (decoyHash ??= hashPassword(randomBytes(16).toString('hex')))), false);
    if (!ok) {
      const lockedBy = await this.#failed(user ?? null, keys, states, ip, now);
      await this.#audit(user ?? null, user?.merchant_id ?? null, 'signin.failed', login, lockedBy ? { locked: lockedBy } : null, caller.ip);
      if (lockedBy) throw this.#locked(lockedBy, this.p.config.dashboardLockoutMinutes * 60);
      throw unauthorized('The username or password is not right');
    }
    if (user!.status !== 'ACTIVE') {
      await this.#audit(user!, user!.merchant_id, 'signin.disabled', login, null, caller.ip);
      throw forbidden('This user is disabled: ask a manager of your merchant');
    }
    await repo.clearFailures(this.#db, [keys.pair]);
    if (needsRehash(user!.password_hash)) await this.deps.merchants.updateDashboardUser(this.#db, user!.id, { password_hash: await hashPassword(input.password) });
    const stage = stageAfterPassword(user!);
    // the address becomes known once the whole sign-in is done (the second factor too)
    if (stage !== 'TOTP') await repo.rememberAddress(this.#db, user!.id, ip, now);
    const token = await this.#newSession(user!, stage, caller, now);
    await this.#audit(user!, user!.merchant_id, stage === 'ACTIVE' ? 'signin' : 'signin.password', null, { stage }, caller.ip);
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
      expires_at: new Date(now.getTime() + this.limits.absoluteMs),
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
    const end = sessionEnd(session, now, this.limits);
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

  /** Throws 403 unless the user's group may do `permission`. */
  authorize(s: DashSession, permission: Permission): void {
    if (!can(s.user.user_group, permission)) {
      throw forbidden(`Your group (${s.user.user_group}) may not do this (${permission})`);
    }
  }

  /** Checks a change's CSRF token against the session's, in constant time. */
  checkCsrf(token: string, given: string | undefined): void {
    if (!given || !safeEqual(given, this.csrfOf(token))) {
      throw forbidden('The request lacks the dashboard\'s CSRF token (X-CSRF-Token): reload the page');
    }
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
    await this.#audit(updated, updated.merchant_id, 'password.changed', null, null, caller.ip);
    return { token, stage };
  }

  async signOut(s: DashSession): Promise<void> {
    await repo.endSession(this.#db, s.tokenHash, this.p.clock.now(), 'SIGNED_OUT');
    await this.#audit(s.user, s.merchantId, 'signout', null, null, s.ip);
  }

  /** Ends every session of the user, this one included. */
  async signOutEverywhere(s: DashSession): Promise<number> {
    const n = await repo.endUserSessions(this.#db, s.user.id, this.p.clock.now(), 'SIGNED_OUT_EVERYWHERE');
    await this.#audit(s.user, s.merchantId, 'signout.everywhere', null, { sessions: n }, s.ip);
    return n;
  }

  // ---- two-factor (TOTP) -----------------------------------------------------------------------------

  /** Starts enrolment: a new secret (sealed, not in force until a code proves it) and its otpauth URI. */
  async totpSetup(s: DashSession) {
    if (s.user.totp_enabled_at) throw badRequest('Two-factor sign-in is already on: turn it off first to enrol again');
    const secret = generateSecret();
    await this.deps.merchants.updateDashboardUser(this.#db, s.user.id, { totp_secret_sealed: this.p.vault.seal(secret, `totp:${s.user.id}`), totp_last_step: null });
    const uri = generateURI({ issuer: 'paygate', label: s.user.username, secret });
    return { secret, otpauth_uri: uri, qr_code: await QRCode.toDataURL(uri, { margin: 1, width: 220 }) };
  }

  async #checkTotp(user: DashboardUserRow, code: string): Promise<boolean> {
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
    if (!(await this.#checkTotp(user, code))) throw badRequest('The code is not right: check the time of your phone and enter the current code');
    const now = this.p.clock.now();
    const codes = Array.from({ length: 10 }, () => recoveryCode());
    await this.p.database.transaction(async (trx) => {
      await this.deps.merchants.updateDashboardUser(trx, user.id, { totp_enabled_at: now });
      await repo.replaceRecoveryCodes(trx, user.id, codes.map((c) => sha256Hex(normaliseRecovery(c))), now);
    });
    await this.#audit(user, s.merchantId, 'totp.enabled', null, null, s.ip);
    return codes;
  }

  /** Turns two-factor off (the password and a current code, or a recovery code, are needed). */
  async totpDisable(s: DashSession, input: { password: string; code: string }) {
    const user = (await this.deps.merchants.dashboardUser(this.#db, s.user.id))!;
    if (!user.totp_enabled_at) throw badRequest('Two-factor sign-in is off');
    if (!(await verifyPassword(input.password, user.password_hash))) throw badRequest('The password is not right');
    const now = this.p.clock.now();
    const ok = (await this.#checkTotp(user, input.code)) || (await repo.useRecoveryCode(this.#db, user.id, sha256Hex(normaliseRecovery(input.code)), now));
    if (!ok) throw badRequest('The code is not right');
    await this.p.database.transaction(async (trx) => {
      await this.deps.merchants.updateDashboardUser(trx, user.id, { totp_enabled_at: null, totp_secret_sealed: null, totp_last_step: null });
      await repo.replaceRecoveryCodes(trx, user.id, [], now);
    });
    await this.#audit(user, s.merchantId, 'totp.disabled', null, null, s.ip);
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
    if (input.code) ok = await this.#checkTotp(user, input.code.trim());
    else if (input.recovery_code) {
      how = 'recovery_code';
      ok = await repo.useRecoveryCode(this.#db, user.id, sha256Hex(normaliseRecovery(input.recovery_code)), now);
    }
    if (!ok) {
      const lockedBy = await this.#failed(user, keys, states, ip, now, false);
      await this.#audit(user, user.merchant_id, 'signin.totp_failed', null, { how }, caller.ip);
      if (lockedBy) throw this.#locked(lockedBy, this.p.config.dashboardLockoutMinutes * 60);
      throw unauthorized('The code is not right');
    }
    await repo.clearFailures(this.#db, [keys.pair]);
    await repo.rememberAddress(this.#db, user.id, ip, now);
    await repo.endSession(this.#db, s.tokenHash, now, 'SECOND_FACTOR_DONE');
    const stage = stageAfterTotp(user);
    const token = await this.#newSession(user, stage, caller, now, { env: s.env, merchantId: s.merchantId });
    const left = how === 'recovery_code' ? await repo.recoveryCodesLeft(this.#db, user.id) : null;
    await this.#audit(user, user.merchant_id, stage === 'ACTIVE' ? 'signin' : 'signin.password', null, { second_factor: how, ...(left !== null ? { recovery_codes_left: left } : {}) }, caller.ip);
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
      await this.#audit(null, null, 'password.reset_unknown', login.trim().slice(0, 100), null, caller.ip);
      return;
    }
    if ((await repo.recentResets(this.#db, user.id, new Date(now.getTime() - 3600_000))) >= 3) {
      await this.#audit(user, user.merchant_id, 'password.reset_throttled', null, null, caller.ip);
      return;
    }
    const token = randomBytes(32).toString('base64url');
    const link = `${this.p.config.publicUrl}/dashboard/reset?token=${token}`;
    const mail = resetEmail(user.language, user.username, link);
    await this.p.database.transaction(async (trx) => {
      await repo.insertPasswordReset(trx, { token_hash: sha256Hex(token), user_id: user.id, created_at: now, expires_at: new Date(now.getTime() + RESET_TTL_MS), used_at: null });
      await this.p.mailer.queue(trx, { merchantId: user.merchant_id, to: user.email, subject: mail.subject, text: mail.body });
    });
    await this.#audit(user, user.merchant_id, 'password.reset_requested', null, null, caller.ip);
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
    await this.#audit(user, user.merchant_id, 'password.reset', null, null, caller.ip);
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
      csrf_token: this.csrfOf(token),
      env: s.env,
      envs: (['sandbox', 'production'] as const).filter((e) => twinOf(s.user, e) !== null),
      merchant: { uuid: s.merchantId, name: merchant?.name ?? '', timezone: merchant?.timezone ?? 'Europe/Madrid' },
      merchants: s.session.stage === 'ACTIVE' ? await this.merchantsOf(s.user, s.env) : [],
      permissions: s.session.stage === 'ACTIVE' ? permissionsOf(s.user.user_group) : [],
      idle_timeout_s: this.limits.idleMs / 1000,
    };
  }

  /** Switches the session to the user's twin of another environment (never mixing the two). */
  async switchEnv(s: DashSession, env: Env): Promise<void> {
    const twin = twinOf(s.user, env);
    if (!twin) throw badRequest(`You have no ${env} merchant`);
    await repo.updateSession(this.#db, s.tokenHash, { env, merchant_id: twin });
    await this.#audit(s.user, twin, 'switch.env', env, null, s.ip);
  }

  /** A partner's user looks at one of its child merchants (or back at its own). */
  async switchMerchant(s: DashSession, merchantId: string): Promise<void> {
    const own = twinOf(s.user, s.env);
    const allowed = own ? await this.deps.merchants.selfAndDescendantIds(this.#db, own) : [];
    if (!allowed.includes(merchantId.toLowerCase())) throw notFound(`The merchant ${merchantId} was not found`);
    await repo.updateSession(this.#db, s.tokenHash, { merchant_id: merchantId.toLowerCase() });
    await this.#audit(s.user, merchantId.toLowerCase(), 'switch.merchant', merchantId.toLowerCase(), null, s.ip);
  }

  async setLanguage(s: DashSession, language: string): Promise<void> {
    await this.deps.merchants.updateDashboardUser(this.#db, s.user.id, { language });
  }

  // ---- payments -----------------------------------------------------------------------------------------

  /** The caller context of the merchant looked at: what the API's services take. */
  ctx(s: DashSession): Promise<RequestContext> {
    return this.deps.merchants.dashboardContext(s.merchantId);
  }

  async #filters(s: DashSession, f: DashFilters): Promise<OrderFilters> {
    const { email, ...rest } = f;
    if (!email) return rest;
    return { ...rest, customers_in: await externalIdsByEmail(this.#db, s.merchantId, email) };
  }

  async listOrders(s: DashSession, f: DashFilters, page: { limit: number; cursor?: string }) {
    const ctx = await this.ctx(s);
    return { ctx, ...(await this.deps.payments.searchOrders(ctx, await this.#filters(s, f), page)) };
  }

  async eachOrder(s: DashSession, f: DashFilters) {
    const ctx = await this.ctx(s);
    await this.#audit(s.user, s.merchantId, 'payments.export', null, { filters: f }, s.ip);
    return { ctx, pages: this.deps.payments.eachOrder(ctx, await this.#filters(s, f)) };
  }

  async order(s: DashSession, orderId: string) {
    const ctx = await this.ctx(s);
    const r = await this.deps.payments.getOrder(ctx, orderId);
    const events = await this.deps.events.list(ctx, { order_uuid: r.order.uuid, limit: 50 });
    const notifications = [];
    for (const e of events.events) notifications.push(await this.deps.events.get(ctx, e.uuid));
    // what the API's presentation of an order has no place for: its description, expiry, metadata
    const extras = await repo.orderExtras(this.#db, ctx.merchant.id, r.order.uuid);
    return { ctx, order: r.order, notifications, description: extras.order?.description ?? '', expires_at: extras.order?.expires_at ?? null, metadata: extras.metadata };
  }

  /** A staff change made by an area's route, in the audit log (who, what, on what, from where). */
  async auditAction(s: DashSession, action: string, target: string | null, details: Record<string, unknown> | null): Promise<void> {
    await this.#audit(s.user, s.merchantId, action, target, details, s.ip);
  }

  /** An action on an order: the API's service, audited whatever its outcome. */
  async act<T>(s: DashSession, action: string, target: string, details: Record<string, unknown> | null, run: (ctx: RequestContext) => Promise<T>): Promise<T> {
    const ctx = await this.ctx(s);
    try {
      const out = await run(ctx);
      await this.#audit(s.user, s.merchantId, action, target, details, s.ip);
      return out;
    } catch (err) {
      if (err instanceof ApiError) await this.#audit(s.user, s.merchantId, `${action}.refused`, target, { ...(details ?? {}), status: err.status, details: err.details }, s.ip);
      throw err;
    }
  }

  refund(s: DashSession, orderId: string, amount: number | null) {
    return this.act(s, 'order.refund', orderId, { amount }, (ctx) => this.deps.payments.refund(ctx, { order_uuid: orderId, amount }));
  }

  confirm(s: DashSession, orderId: string, amount: number | null) {
    return this.act(s, 'order.confirm', orderId, { amount }, (ctx) => this.deps.payments.confirm(ctx, { order_uuid: orderId, amount }));
  }

  cancel(s: DashSession, orderId: string) {
    return this.act(s, 'order.cancel', orderId, null, (ctx) => this.deps.payments.cancel(ctx, { order_uuid: orderId }));
  }

  expire(s: DashSession, orderId: string) {
    return this.act(s, 'order.expire', orderId, null, (ctx) => this.deps.payments.expireOrder(ctx, orderId));
  }

  metadata(s: DashSession, txId: string, metadata: Record<string, string>) {
    return this.act(s, 'transaction.metadata', txId, { keys: Object.keys(metadata) }, (ctx) => this.deps.payments.attachMetadata(ctx, txId, metadata));
  }

  /**
   * A call of the merchant API for the user (the bridge): `send` makes the request with the ticket it is
   * given, through the very route a key reaches. The ticket lets the route's operation run only when
   * API_OPERATIONS allows it to the user's group. A change is audited with its outcome.
   */
  async callApi<R extends { statusCode: number; body: string }>(s: DashSession, method: string, path: string, send: (ticket: string, signature: string) => Promise<R>): Promise<{ res: R; operationId: string | null }> {
    const ctx = await this.ctx(s);
    let operationId: string | null = null;
    const ticket = issueTicket({
      ctx,
      authorize: (op) => {
        const permission = op ? API_OPERATIONS[op] : undefined;
        if (!op || !permission) throw forbidden(`${op ?? 'This operation'} is not available from the dashboard`);
        operationId = op;
        this.authorize(s, permission);
      },
    });
    const res = await send(ticket, ctx.signature().reveal());
    if (operationId && method !== 'GET') {
      let details: unknown = null;
      if (res.statusCode >= 400) {
        try {
          details = (JSON.parse(res.body) as { details?: unknown }).details ?? null;
        } catch {
          details = null;
        }
      }
      const action = `api.${operationId}${res.statusCode >= 400 ? '.refused' : ''}`;
      await this.#audit(s.user, s.merchantId, action, `${method} ${path}`, { status: res.statusCode, ...(details ? { details } : {}) }, s.ip);
    }
    return { res, operationId };
  }

  resendNotification(s: DashSession, eventId: string) {
    return this.act(s, 'notification.resend', eventId, null, (ctx) => this.deps.events.resend(ctx, eventId));
  }

  /**
   * Live updates of the payments list, as Server-Sent Events: `change` whenever the merchant's event
   * stream (the API's `GET /events/stream` machinery: woken by the database when a notification is
   * made) has something, or a new order appeared (looked for every `pollMs`). Only the word `change`
   * goes out: the page reads the list again through its own route and role. The stream ends with the
   * session.
   */
  async live(s: DashSession, token: string, caller: Caller, pollMs: number): Promise<PassThrough> {
    const ctx = await this.ctx(s);
    const out = new PassThrough();
    let closed = false;
    let upstream: PassThrough | null = null;
    let last = await this.#newestOrder(s.merchantId);
    const send = (event: string) => {
      if (!closed) out.write(`event: ${event}\ndata: {}\n\n`);
    };
    const stop = () => {
      if (closed) return;
      closed = true;
      clearInterval(timer);
      upstream?.destroy();
      out.end();
    };
    try {
      upstream = await this.deps.events.streams.openStream(ctx, {});
      upstream.on('data', (chunk: Buffer) => {
        // anything but the stream's own `ready` message and keep-alive comments is a notification
        if (/^event: (?!ready)/m.test(chunk.toString('utf8'))) send('change');
      });
      upstream.on('error', () => undefined);
      // the gateway is closing its streams: this one ends too (the page reconnects)
      upstream.on('close', stop);
    } catch {
      // too many streams open for this merchant: new orders are still found by polling
      upstream = null;
    }
    const timer = setInterval(async () => {
      try {
        // a check, not a use: an open page alone never keeps the session from idling out
        await this.resolve(token, caller, { use: false });
        const newest = await this.#newestOrder(s.merchantId);
        if (newest !== last) {
          last = newest;
          send('change');
        } else if (!closed) out.write(': keep-alive\n\n');
      } catch {
        stop();
      }
    }, pollMs);
    timer.unref();
    out.on('close', stop);
    out.write('retry: 3000\n');
    send('ready');
    return out;
  }

  async #newestOrder(merchantId: string): Promise<string> {
    const { rows } = await sql<{ at: Date | null }>`select max(created_at) as at from orders where merchant_id = ${merchantId}`.execute(this.#db);
    return rows[0]?.at ? new Date(rows[0].at).toISOString() : '';
  }

  // ---- developers -----------------------------------------------------------------------------------------

  async keys(s: DashSession) {
    const keys = await this.deps.merchants.listKeys(this.#db, s.merchantId);
    await this.requestLog.flush();
    const used = await repo.lastUse(this.#db, keys.map((k) => k.id));
    return keys.map((k) => ({
      uuid: k.id,
      prefix: k.key_prefix,
      profiles: k.profiles,
      description: k.description,
      created_at: k.created_at.toISOString(),
      revoked_at: k.revoked_at ? k.revoked_at.toISOString() : null,
      last_used_at: used.get(k.id)?.toISOString() ?? null,
    }));
  }

  /** A new API key and signature for the merchant looked at: shown once, stored hashed and sealed. */
  async createKey(s: DashSession, input: { profiles: string[]; description?: string | null }) {
    const profiles: Profile[] = [];
    for (const p of input.profiles) {
      if (!isProfile(p)) throw badRequest(`unknown profile "${p}"`);
      profiles.push(p);
    }
    const ctx = await this.ctx(s);
    const issued = await this.p.database.transaction((trx) => this.deps.merchants.issueKey(trx, s.merchantId, s.env, profiles, input.description ?? undefined, ctx.clock.now()));
    await this.#audit(s.user, s.merchantId, 'key.create', issued.keyId, { profiles: issued.profiles }, s.ip);
    return { uuid: issued.keyId, api_key: issued.apiKey, signature: issued.signature, profiles: issued.profiles };
  }

  async revokeKey(s: DashSession, keyId: string) {
    const keys = await this.deps.merchants.listKeys(this.#db, s.merchantId);
    const key = keys.find((k) => k.id === keyId.toLowerCase());
    if (!key) throw notFound(`The API key ${keyId} was not found`);
    if (key.revoked_at) throw badRequest('This API key is already revoked');
    await this.deps.merchants.revokeKey(key.id);
    await this.#audit(s.user, s.merchantId, 'key.revoke', key.id, { prefix: key.key_prefix }, s.ip);
  }

  async deliveries(s: DashSession, q: { status?: string; limit?: number; offset?: number; order_uuid?: string }) {
    const ctx = await this.ctx(s);
    return this.deps.events.list(ctx, q);
  }

  async requests(s: DashSession, q: repo.RequestLogQuery) {
    await this.requestLog.flush();
    return repo.listRequestLogs(this.#db, s.merchantId, q);
  }

  async request(s: DashSession, id: string) {
    await this.requestLog.flush();
    const r = await repo.findRequestLog(this.#db, s.merchantId, id);
    if (!r) throw notFound(`The request ${id} was not found`);
    return r;
  }

  // ---- users and audit ------------------------------------------------------------------------------------

  /** The merchant looked at and its children (whose users and audit a manager sees). */
  async #scope(s: DashSession): Promise<string[]> {
    return this.deps.merchants.selfAndDescendantIds(this.#db, s.merchantId);
  }

  async users(s: DashSession) {
    const scope = await this.#scope(s);
    const rows = await this.deps.merchants.listDashboardUsers(this.#db, scope);
    const now = this.p.clock.now();
    const ids = rows.map((u) => u.id);
    const locks = await repo.activeLocks(this.#db, ids, now);
    const invitations = new Map((await repo.invitationsOf(this.#db, ids)).map((i) => [i.user_id, i]));
    return rows.map((u) => {
      const mine = locks.filter((l) => l.user_id === u.id);
      const slowed = mine.find((l) => l.key.startsWith('user:') && l.slowed_until && l.slowed_until > now);
      const inv = invitations.get(u.id);
      return {
        uuid: u.id,
        username: u.username,
        email: u.email,
        language: u.language,
        group: u.user_group,
        status: u.status,
        merchant_uuid: u.merchant_id,
        totp_enabled: !!u.totp_enabled_at,
        must_change_password: u.must_change_password,
        created_at: u.created_at.toISOString(),
        signin: {
          locks: mine
            .filter((l) => l.key.startsWith('pair:') && l.locked_until && l.locked_until > now)
            .map((l) => ({ address: l.ip ?? '', locked_until: l.locked_until!.toISOString(), failures: l.failures, attempts_during_lock: l.blocked })),
          slowed_until: slowed ? slowed.slowed_until!.toISOString() : null,
          failures: slowed ? slowed.failures : 0,
        },
        invitation: inv
          ? {
              delivery: inv.delivery,
              // an e-mail whose outbox message is gone (purged) is no longer followed
              mail_status: inv.delivery === 'EMAIL' && inv.mail_status ? (inv.mail_status.toUpperCase() as 'PENDING' | 'SENT' | 'FAILED') : null,
              mail_error: inv.mail_error ?? null,
              invited_at: inv.invited_at.toISOString(),
            }
          : null,
      };
    });
  }

  /**
   * Invites a user: D3 itself. With e-mail configured (PAYGATE_SMTP_URL) D3 e-mails the generated
   * password (the Users page shows the message's delivery); without it, nothing could deliver it, so it
   * is answered here, once, for the inviting manager to hand over (as D3 answers it).
   */
  async invite(s: DashSession, input: { username: string; email: string; language: string; group: string }) {
    const ctx = await this.ctx(s);
    const byMail = this.p.mailer.configured;
    const delivery = byMail ? ('EMAIL' as const) : ('SHOWN' as const);
    const r = await this.deps.merchants.createUser(ctx, { ...input, environment: s.env === 'sandbox' ? 'SANDBOX' : 'PRODUCTION', send_email_with_credentials: byMail }, (trx, created) =>
      repo.saveInvitation(trx, { user_id: created.userId, delivery, mail_id: created.mailId, invited_by: s.user.id, invited_at: this.p.clock.now() }),
    );
    await this.#audit(s.user, s.merchantId, 'user.invite', r.user.uuid, { username: input.username, group: input.group, delivery }, s.ip);
    return { uuid: r.user.uuid, delivery, password: byMail ? null : r.password };
  }

  /**
   * A new one-time password for a user who has not chosen their own yet (the invitation again): the one
   * before stops working, and the new one goes by e-mail, or is answered once without e-mail.
   */
  async resendCredentials(s: DashSession, userId: string) {
    const u = await this.#target(s, userId);
    if (!u.must_change_password) throw conflict(`${u.username} has already chosen a password: they can ask for a reset link ("Forgot your password?")`);
    if (u.status !== 'ACTIVE') throw conflict(`${u.username} is disabled: enable the user first`);
    const byMail = this.p.mailer.configured;
    const delivery = byMail ? ('EMAIL' as const) : ('SHOWN' as const);
    const password = randomPassword(16);
    const hash = await hashPassword(password);
    const now = this.p.clock.now();
    await this.p.database.transaction(async (trx) => {
      await this.deps.merchants.updateDashboardUser(trx, u.id, { password_hash: hash, must_change_password: true });
      await repo.endUserSessions(trx, u.id, now, 'PASSWORD_RESET');
      let mailId: string | null = null;
      if (byMail) {
        const mail = credentialsEmail(u, password, `${this.p.config.publicUrl}/dashboard`);
        mailId = await this.p.mailer.queue(trx, { merchantId: u.merchant_id, to: u.email, subject: mail.subject, text: mail.body });
      }
      await repo.saveInvitation(trx, { user_id: u.id, delivery, mail_id: mailId, invited_by: s.user.id, invited_at: now });
    });
    await this.#audit(s.user, s.merchantId, 'user.credentials', u.id, { username: u.username, delivery }, s.ip);
    return { delivery, password: byMail ? null : password };
  }

  /** Lifts a user's sign-in locks and counts (a manager's unlock). */
  async unlockUser(s: DashSession, userId: string) {
    const u = await this.#target(s, userId);
    const n = await repo.clearUserFailures(this.#db, u.id);
    await this.#audit(s.user, s.merchantId, 'user.unlock', u.id, { username: u.username, cleared: n }, s.ip);
  }

  async #target(s: DashSession, userId: string) {
    const scope = new Set(await this.#scope(s));
    const u = await this.deps.merchants.dashboardUser(this.#db, userId.toLowerCase());
    if (!u || ![u.merchant_id, u.client_sandbox_id, u.client_production_id].some((id) => id && scope.has(id))) throw notFound(`The user ${userId} was not found`);
    return u;
  }

  /** Changes a user's group or status; a disabled user's sessions end at once. Not one's own. */
  async updateUser(s: DashSession, userId: string, input: { group?: string; status?: 'ACTIVE' | 'DISABLED' }) {
    const u = await this.#target(s, userId);
    if (u.id === s.user.id) throw badRequest('You cannot change your own group or status: ask another manager');
    const now = this.p.clock.now();
    await this.p.database.transaction(async (trx) => {
      await this.deps.merchants.updateDashboardUser(trx, u.id, { ...(input.group ? { user_group: input.group } : {}), ...(input.status ? { status: input.status } : {}) });
      if (input.status === 'DISABLED') await repo.endUserSessions(trx, u.id, now, 'USER_DISABLED');
    });
    await this.#audit(s.user, s.merchantId, 'user.update', u.id, { username: u.username, ...input }, s.ip);
  }

  async audit(s: DashSession, q: { before?: string; limit: number; user?: string; action?: string }) {
    return repo.listAudit(this.#db, await this.#scope(s), { before: q.before, limit: q.limit, userId: q.user, action: q.action });
  }

  async *eachAudit(s: DashSession, q: { user?: string; action?: string }) {
    const scope = await this.#scope(s);
    await this.#audit(s.user, s.merchantId, 'audit.export', null, q.user || q.action ? { ...q } : null, s.ip);
    let before: string | undefined;
    for (;;) {
      const rows = await repo.listAudit(this.#db, scope, { before, limit: 500, userId: q.user, action: q.action });
      if (rows.length === 0) return;
      yield rows;
      if (rows.length < 500) return;
      before = String(rows[rows.length - 1].id);
    }
  }

  // ---- saved views ----------------------------------------------------------------------------------------

  listViews(s: DashSession) {
    return repo.listViews(this.#db, s.user.id);
  }

  async saveView(s: DashSession, name: string, filters: DashFilters) {
    if ((await repo.countViews(this.#db, s.user.id)) >= 50) throw badRequest('At most 50 saved views per user');
    return repo.upsertView(this.#db, { id: randomUUID(), user_id: s.user.id, name, filters, created_at: this.p.clock.now() });
  }

  async deleteView(s: DashSession, id: string) {
    if (!(await repo.deleteView(this.#db, s.user.id, id))) throw notFound(`The view ${id} was not found`);
  }

  // ---- audit ----------------------------------------------------------------------------------------------

  async #audit(user: DashboardUserRow | null, merchantId: string | null, action: string, target: string | null, details: Record<string, unknown> | null, ip: string | null, db: Executor = this.#db) {
    await repo.insertAudit(db, {
      merchant_id: merchantId,
      user_id: user?.id ?? null,
      username: user?.username ?? null,
      action,
      // what staff typed (a name at sign-in, the filters of an export) is kept without card numbers
      target: target === null ? null : redactPans(target.slice(0, 200)),
      details: details === null ? null : (redactValue(details) as Record<string, unknown>),
      ip,
      created_at: this.p.clock.now(),
    });
  }

  // ---- background -----------------------------------------------------------------------------------------

  registerJobs(): void {
    this.p.jobs.register('dashboard.purge', async () => {
      const dayAgo = new Date(this.p.clock.now().getTime() - 86400_000);
      await repo.purgeSessions(this.#db, dayAgo);
      await repo.purgeFailures(this.#db, dayAgo);
      await repo.purgeKnownAddresses(this.#db, new Date(this.p.clock.now().getTime() - KNOWN_ADDRESS_MS));
    });
    this.p.jobs.every('dashboard.purge', 3600_000);
    // the API request log is kept PAYGATE_REQUEST_LOG_DAYS days
    this.p.jobs.register('request_logs.prune', async () => {
      await this.pruneRequestLogs();
    });
    this.p.jobs.every('request_logs.prune', 3600_000);
  }

  /** Deletes request log entries older than the retention; returns how many went. */
  async pruneRequestLogs(): Promise<number> {
    const before = new Date(this.p.clock.now().getTime() - this.p.config.requestLogDays * 86400_000);
    let total = 0;
    for (;;) {
      const n = await repo.pruneRequestLogs(this.#db, before, 5000);
      total += n;
      if (n < 5000) return total;
    }
  }
}
