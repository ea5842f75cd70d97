/**
 * The team: the dashboard users of the merchant looked at and its children (invitations, one-time
 * passwords, sign-in locks, group and status) and the audit log of their sign-ins and actions.
 */
import { badRequest, conflict, notFound } from '../../platform/errors/errors.js';
import { hashPassword, randomPassword } from '../../platform/security/hashing.js';
import { credentialsEmail } from '../merchants/index.js';
import type { DashboardCore, DashSession } from './dashboard.core.js';
import * as repo from './dashboard.repo.js';

export class DashboardTeam {
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

  async users(s: DashSession) {
    const scope = await this.c.scope(s);
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
    const ctx = await this.c.ctx(s);
    const byMail = this.p.mailer.configured;
    const delivery = byMail ? ('EMAIL' as const) : ('SHOWN' as const);
    const r = await this.deps.merchants.createUser(ctx, { ...input, environment: s.env === 'sandbox' ? 'SANDBOX' : 'PRODUCTION', send_email_with_credentials: byMail }, (trx, created) =>
      repo.saveInvitation(trx, { user_id: created.userId, delivery, mail_id: created.mailId, invited_by: s.user.id, invited_at: this.p.clock.now() }),
    );
    await this.c.writeAudit(s.user, s.merchantId, 'user.invite', r.user.uuid, { username: input.username, group: input.group, delivery }, s.ip);
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
    await this.c.writeAudit(s.user, s.merchantId, 'user.credentials', u.id, { username: u.username, delivery }, s.ip);
    return { delivery, password: byMail ? null : password };
  }

  /** Lifts a user's sign-in locks and counts (a manager's unlock). */
  async unlockUser(s: DashSession, userId: string) {
    const u = await this.#target(s, userId);
    const n = await repo.clearUserFailures(this.#db, u.id);
    await this.c.writeAudit(s.user, s.merchantId, 'user.unlock', u.id, { username: u.username, cleared: n }, s.ip);
  }

  async #target(s: DashSession, userId: string) {
    const scope = new Set(await this.c.scope(s));
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
    await this.c.writeAudit(s.user, s.merchantId, 'user.update', u.id, { username: u.username, ...input }, s.ip);
  }

  async audit(s: DashSession, q: { before?: string; limit: number; user?: string; action?: string }) {
    return repo.listAudit(this.#db, await this.c.scope(s), { before: q.before, limit: q.limit, userId: q.user, action: q.action });
  }

  async *eachAudit(s: DashSession, q: { user?: string; action?: string }) {
    const scope = await this.c.scope(s);
    await this.c.writeAudit(s.user, s.merchantId, 'audit.export', null, q.user || q.action ? { ...q } : null, s.ip);
    let before: string | undefined;
    for (;;) {
      const rows = await repo.listAudit(this.#db, scope, { before, limit: 500, userId: q.user, action: q.action });
      if (rows.length === 0) return;
      yield rows;
      if (rows.length < 500) return;
      before = String(rows[rows.length - 1].id);
    }
  }
}
