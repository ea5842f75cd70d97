/**
 * Outgoing e-mail through an outbox: a message is written (body sealed by the vault, since it may carry
 * credentials) in the business transaction and delivered by a durable job over SMTP (nodemailer).
 */
import { randomUUID } from 'node:crypto';
import nodemailer, { type Transporter } from 'nodemailer';
import type { ColumnType } from 'kysely';
import type { Database, Executor } from '../db/database.js';
import type { JobQueue } from '../jobs/queue.js';
import { PermanentJobError } from '../jobs/queue.js';
import type { Vault } from '../security/vault.js';
import type { Clock } from '../time/clock.js';

export interface MailOutboxTable {
  id: string;
  merchant_id: string | null;
  recipient: string;
  subject: string;
  body_sealed: string;
  status: ColumnType<'pending' | 'sent' | 'failed', 'pending' | 'sent' | 'failed' | undefined>;
  attempts: ColumnType<number, number | undefined>;
  last_error: string | null;
  created_at: ColumnType<Date, Date | undefined, never>;
  sent_at: Date | null;
}

declare module '../db/schema.js' {
  interface DB {
    mail_outbox: MailOutboxTable;
  }
}

export const MAIL_QUEUE = 'mail.send';

export interface MailMessage {
  merchantId: string | null;
  to: string;
  subject: string;
  text: string;
  html?: string;
}

/** A pooled connection closes once no message has been sent on it for this long. */
export const SMTP_IDLE_CLOSE_MS = 2000;

/**
 * The SMTP URL with nodemailer's connection pool on (unless the URL says `pool=false`): a campaign's
 * hundreds of messages reuse a few connections instead of a TCP and SMTP handshake (and TLS) each.
 */
export function pooledSmtpUrl(url: string): string {
  try {
    const u = new URL(url);
    if (!u.searchParams.has('pool')) u.searchParams.set('pool', 'true');
    return u.toString();
  } catch {
    return url;
  }
}

export class Mailer {
  #transport: Transporter | null = null;
  #sending = 0;
  #idle: NodeJS.Timeout | null = null;

  constructor(
    private readonly deps: { database: Database; jobs: JobQueue; vault: Vault; clock: Clock },
    private readonly opts: { smtpUrl: string | null; from: string },
  ) {}

  /**
   * Sends one message on the pooled transport, opened on first use. The pool is closed once nothing has
   * been sent for SMTP_IDLE_CLOSE_MS, so an idle process holds no connection (and exits when done).
   */
  async #send(mail: { to: string; subject: string; text: string; html?: string }): Promise<void> {
    this.#transport ??= nodemailer.createTransport(pooledSmtpUrl(this.opts.smtpUrl!));
    if (this.#idle) clearTimeout(this.#idle);
    this.#sending++;
    try {
      await this.#transport.sendMail({ from: this.opts.from, ...mail });
    } finally {
      this.#sending--;
      if (this.#idle) clearTimeout(this.#idle);
      this.#idle = setTimeout(() => {
        if (this.#sending === 0) this.close();
      }, SMTP_IDLE_CLOSE_MS);
      this.#idle.unref();
    }
  }

  /** Closes the SMTP connections now (at shutdown); a later message opens new ones. */
  close(): void {
    if (this.#idle) clearTimeout(this.#idle);
    this.#idle = null;
    this.#transport?.close();
    this.#transport = null;
  }

  /** Queues a message in the caller's transaction. */
  async queue(trx: Executor, msg: MailMessage): Promise<string> {
    const id = randomUUID();
    const body = JSON.stringify({ text: msg.text, html: msg.html ?? null });
    await trx
      .insertInto('mail_outbox')
      .values({
        id,
        merchant_id: msg.merchantId,
        recipient: msg.to,
        subject: msg.subject,
        body_sealed: this.deps.vault.seal(body, `mail:${id}`),
        last_error: null,
        sent_at: null,
      })
      .execute();
    await this.deps.jobs.enqueue(trx, { queue: MAIL_QUEUE, payload: { id }, maxAttempts: 8 });
    return id;
  }

  /** Sends a message immediately (payment links need the result). */
  async sendNow(msg: { to: string; subject: string; text: string; html?: string }): Promise<void> {
    if (!this.configured) throw new Error('e-mail is not configured (PAYGATE_SMTP_URL)');
    await this.#send({ to: msg.to, subject: msg.subject, text: msg.text, html: msg.html });
  }

  get configured(): boolean {
    return this.opts.smtpUrl !== null;
  }

  registerJobs(): void {
    this.deps.jobs.register<{ id: string }>(MAIL_QUEUE, async (job) => {
      const db = this.deps.database.db;
      const row = await db.selectFrom('mail_outbox').selectAll().where('id', '=', job.payload.id).executeTakeFirst();
      if (!row || row.status === 'sent') return;
      try {
        if (!this.configured) throw new PermanentJobError('e-mail is not configured (PAYGATE_SMTP_URL)');
        const body = JSON.parse(this.deps.vault.open(row.body_sealed, `mail:${row.id}`).reveal()) as { text: string; html: string | null };
        await this.#send({ to: row.recipient, subject: row.subject, text: body.text, html: body.html ?? undefined });
        await db.updateTable('mail_outbox').set({ status: 'sent', sent_at: this.deps.clock.now(), attempts: job.attempts, last_error: null }).where('id', '=', row.id).execute();
      } catch (err) {
        const last = err instanceof PermanentJobError || job.attempts >= job.maxAttempts;
        await db
          .updateTable('mail_outbox')
          .set({ status: last ? 'failed' : 'pending', attempts: job.attempts, last_error: (err as Error).message.slice(0, 500) })
          .where('id', '=', row.id)
          .execute();
        throw err;
      }
    }, { lane: 'delivery' });
  }
}
