/**
 * The first layer of DisputesService (disputes.service.ts): creating a dispute and scheduling its
 * deadline, reading disputes and their documents, applying an event of the transition table (row,
 * history, notification), the merchant's dispute settings and notifications.
 */
import { randomUUID } from 'node:crypto';
import type { Executor, Tx } from '../../platform/db/database.js';
import { badRequest, conflict, notFound } from '../../platform/errors/errors.js';
import type { RequestContext } from '../../platform/http/types.js';
import type { Platform } from '../../platform/index.js';
import { currencyByNumber } from '../../platform/money/currency.js';
import { isAbsoluteHttpUrl } from '../../platform/net/outgoing.js';
import { UUID_RE } from '../../platform/ids.js';
import { type Payments } from '../payments/index.js';
import type { EventsService } from '../events/index.js';
import type { MerchantsService } from '../merchants/index.js';
import type { ProcessorRegistry } from '../../processors/registry.js';
import { DEFAULT_RESPONSE_DAYS, REMINDER_DAYS, disputeTransition, isOpen, reminderAt, type DisputeEvent, type DisputeStage, type DisputeStatus } from './disputes.domain.js';
import * as repo from './disputes.repo.js';
import {
  DEADLINE_QUEUE,
  EVENT_TYPE,
  REMINDER_QUEUE,
  cursorOf,
  iso,
  orderTotals,
  own,
  presentDispute,
  presentEvidence,
  presentHistory,
  readCursor,
  type DisputeEventType,
  type NewDispute,
  type Payment,
} from './disputes.types.js';

export class DisputesCore {
  constructor(
    protected readonly p: Platform,
    protected readonly deps: { payments: Payments; events: EventsService; merchants: MerchantsService; processors: ProcessorRegistry },
  ) {}

  protected get db() {
    return this.p.database.db;
  }

  // ---- creating --------------------------------------------------------------------------------------------

  /** The disputed payment: a successful sale or capture of an order of the caller. */
  async #payment(ctx: RequestContext, orderUuid: string, transactionUuid: string | null | undefined): Promise<Payment> {
    const { order } = await this.deps.payments.getOrder(ctx, orderUuid);
    const txs = (order.transactions ?? []) as Array<{ uuid: string; operative: string; status: string; amount: number }>;
    const payable = txs.filter((t) => (t.operative === 'AUTHORIZATION' || t.operative === 'CONFIRMATION') && t.status === 'SUCCESS');
    let tx;
    if (transactionUuid) {
      tx = txs.find((t) => t.uuid === transactionUuid.toLowerCase());
      if (!tx) throw notFound(`The transaction ${transactionUuid} is not a transaction of the order ${orderUuid}`);
      if (!payable.includes(tx)) throw badRequest(`The transaction ${transactionUuid} is not a successful payment (a sale or a capture): only those can be disputed`);
    } else {
      tx = payable[payable.length - 1];
      if (!tx) throw badRequest(`The order ${orderUuid} has no successful payment (a sale or a capture): only those can be disputed`);
    }
    const currency = currencyByNumber(String(order.currency))?.code ?? String(order.currency);
    return { orderId: order.uuid, transactionId: tx.uuid, amount: Number(tx.amount), currency, serviceId: order.service_uuid ?? null, serviceType: order.service ?? null };
  }

  /** POST /disputes (MANUAL) and the sandbox's trigger (SANDBOX). */
  async create(ctx: RequestContext, input: NewDispute, opts: { source: 'MANUAL' | 'SANDBOX'; sandboxOutcome?: 'WON' | 'LOST' }) {
    const pay = await this.#payment(ctx, input.order_uuid, input.transaction_uuid);
    const now = ctx.clock.now();
    const amount = input.amount ?? pay.amount;
    if (amount > pay.amount) throw badRequest(`amount (${amount}) is more than the disputed payment's amount (${pay.amount})`);
    let due: Date;
    if (input.evidence_due_at) {
      due = new Date(input.evidence_due_at);
      if (Number.isNaN(due.getTime())) throw badRequest('evidence_due_at must be an ISO 8601 date and time with its offset');
      if (due.getTime() <= now.getTime()) throw badRequest('evidence_due_at must be in the future of the merchant clock');
    } else due = new Date(now.getTime() + DEFAULT_RESPONSE_DAYS * 86400_000);
    const row: repo.DisputeRow = {
      id: randomUUID(),
      merchant_id: ctx.merchant.id,
      env: ctx.env,
      order_id: pay.orderId,
      transaction_id: pay.transactionId,
      service_id: pay.serviceId,
      service_type: pay.serviceType,
      source: opts.source,
      acquirer: opts.source === 'SANDBOX' ? 'SANDBOX' : (input.acquirer ?? 'MANUAL').toUpperCase(),
      provider_id: opts.source === 'SANDBOX' ? `sdp_${randomUUID().replace(/-/g, '').slice(0, 20)}` : input.provider_id ?? null,
      reason_code: input.reason_code,
      category: input.category,
      amount,
      currency: pay.currency,
      stage: input.stage ?? 'CHARGEBACK',
      status: 'NEEDS_RESPONSE',
      evidence_due_at: due,
      sandbox_outcome: opts.source === 'SANDBOX' ? opts.sandboxOutcome ?? 'WON' : null,
      submitted_at: null,
      resolved_at: null,
      created_at: now,
      updated_at: now,
    };
    const actor = opts.source === 'SANDBOX' ? 'sandbox' : `api:${ctx.keyId}`;
    await this.p.database.transaction(async (trx) => {
      if (await repo.openDisputeOf(trx, pay.transactionId)) throw conflict(`The payment ${pay.transactionId} already has an open dispute: answer it (a new stage of it is the same dispute)`);
      if (row.provider_id && (await repo.lockByProviderId(trx, own(ctx), row.acquirer, row.provider_id))) throw conflict(`A dispute ${row.provider_id} of ${row.acquirer} already exists`);
      await repo.insertDispute(trx, row);
      await repo.addHistory(trx, [{ dispute_id: row.id, at: now, actor, event: 'CREATE', from_status: null, to_status: 'NEEDS_RESPONSE', stage: row.stage, detail: `${row.stage} ${row.reason_code} (${row.category}) of ${row.amount} ${row.currency}` }]);
      await this.scheduleDeadline(trx, row, ctx.clock.offsetMs);
      await this.notify(trx, row, 'DISPUTE_CREATED', now);
    });
    return this.get(ctx, row.id);
  }

  /**
   * The deadline's expiry job and the reminder before it, at their instants on the merchant's clock. A
   * CONNECTOR dispute gets the reminder only: its provider keeps the deadline and says when it expired.
   */
  protected async scheduleDeadline(trx: Executor, d: repo.DisputeRow, offsetMs: number): Promise<void> {
    const settings = await repo.settingsOf(trx, d.merchant_id);
    const days = settings?.reminder_days ?? REMINDER_DAYS;
    const real = (t: Date) => new Date(t.getTime() - offsetMs);
    if (d.source !== 'CONNECTOR') {
      await this.p.jobs.enqueue(trx, { queue: DEADLINE_QUEUE, payload: { disputeId: d.id, due: d.evidence_due_at.toISOString() }, runAt: real(d.evidence_due_at), merchantId: d.merchant_id, maxAttempts: 20 });
    }
    if (days > 0) {
      await this.p.jobs.enqueue(trx, { queue: REMINDER_QUEUE, payload: { disputeId: d.id, due: d.evidence_due_at.toISOString() }, runAt: real(reminderAt(d.evidence_due_at, days)), merchantId: d.merchant_id, maxAttempts: 10 });
    }
  }

  // ---- reading ---------------------------------------------------------------------------------------------

  async get(ctx: RequestContext, id: string) {
    const db = this.db;
    const d = await repo.findDispute(db, own(ctx), id);
    if (!d) throw notFound(`The dispute ${id} was not found`);
    const [history, evidence, ofOrder] = await Promise.all([repo.historyOf(db, id), repo.evidenceOf(db, id), repo.disputesOfOrder(db, own(ctx), d.order_id)]);
    return {
      dispute: {
        ...presentDispute(d),
        evidence: evidence.map(presentEvidence),
        history: history.map(presentHistory),
      },
      order_totals: orderTotals(d.order_id, ofOrder),
    };
  }

  async list(ctx: RequestContext, q: { status?: DisputeStatus[]; stage?: DisputeStage[]; order_uuid?: string | null; limit?: number; cursor?: string | null }) {
    const limit = q.limit ?? 50;
    const rows = await repo.listDisputes(this.p.reads.db, own(ctx), { status: q.status, stage: q.stage, orderId: q.order_uuid ?? null, before: readCursor(q.cursor), limit: limit + 1 });
    const page = rows.slice(0, limit);
    const last = page[page.length - 1];
    const totals = q.order_uuid ? orderTotals(q.order_uuid.toLowerCase(), await repo.disputesOfOrder(this.p.reads.db, own(ctx), q.order_uuid.toLowerCase())) : null;
    return { disputes: page.map(presentDispute), next_cursor: rows.length > limit && last ? cursorOf(last) : null, order_totals: totals };
  }

  /** A document of the evidence with its bytes in base64. */
  async document(ctx: RequestContext, id: string, documentId: string) {
    const d = await repo.findDispute(this.db, own(ctx), id);
    if (!d) throw notFound(`The dispute ${id} was not found`);
    const doc = UUID_RE.test(documentId) ? await repo.documentOf(this.db, id, documentId) : undefined;
    if (!doc) throw notFound(`The document ${documentId} of the dispute ${id} was not found`);
    return { document: { uuid: doc.id, filename: doc.name, content_type: doc.content_type!, size: Number(doc.size), data: Buffer.from(doc.content!).toString('base64') } };
  }

  protected async lockFor(trx: Tx, ctx: RequestContext, id: string, event: DisputeEvent): Promise<repo.DisputeRow> {
    const d = await repo.lockDispute(trx, own(ctx), id);
    if (!d) throw notFound(`The dispute ${id} was not found`);
    if (!disputeTransition(d.status, event)) throw conflict(`A dispute that is ${d.status} cannot be ${event === 'SUBMIT' ? 'submitted' : 'accepted'}${isOpen(d.status) ? '' : ': it is decided'}`);
    return d;
  }

  /** Applies an event of the transition table: the row, its history line, and its notification. */
  protected async apply(trx: Executor, d: repo.DisputeRow, event: DisputeEvent, now: Date, actor: string, detail: string | null, extra: Partial<repo.DisputeRow> = {}, stage?: DisputeStage): Promise<repo.DisputeRow> {
    const to = disputeTransition(d.status, event);
    if (!to) throw new Error(`dispute ${d.id}: ${event} does not apply in ${d.status}`);
    const resolved = to === 'WON' || to === 'LOST' || to === 'EXPIRED' || to === 'ACCEPTED';
    const next: repo.DisputeRow = { ...d, ...extra, status: to, stage: stage ?? d.stage, updated_at: now, resolved_at: resolved ? (extra.resolved_at ?? now) : null };
    await repo.updateDispute(trx, d.id, { status: next.status, stage: next.stage, amount: next.amount, reason_code: next.reason_code, updated_at: now, resolved_at: next.resolved_at, submitted_at: next.submitted_at, evidence_due_at: next.evidence_due_at });
    await repo.addHistory(trx, [{ dispute_id: d.id, at: now, actor, event, from_status: d.status, to_status: to, stage: next.stage, detail }]);
    await this.notify(trx, next, EVENT_TYPE[event], now);
    return next;
  }
  // ---- settings and notifications ------------------------------------------------------------------------------

  async settings(ctx: RequestContext) {
    const s = await repo.settingsOf(this.db, ctx.merchant.id);
    return { dispute_settings: { notification_url: s?.notification_url ?? null, reminder_days: s?.reminder_days ?? REMINDER_DAYS, updated_at: iso(s?.updated_at ?? null) } };
  }

  async saveSettings(ctx: RequestContext, body: { notification_url?: string | null; reminder_days?: number | null }) {
    const url = body.notification_url ?? null;
    if (url !== null && !isAbsoluteHttpUrl(url)) throw badRequest('notification_url must be an absolute http(s) URL');
    const old = await repo.settingsOf(this.db, ctx.merchant.id);
    await repo.saveSettings(this.db, {
      merchant_id: ctx.merchant.id,
      notification_url: url,
      key_id: url ? ctx.keyId : null,
      reminder_days: body.reminder_days ?? old?.reminder_days ?? REMINDER_DAYS,
      updated_at: ctx.clock.now(),
    });
    return this.settings(ctx);
  }

  /** A dispute event: on the event log, the stream and the merchant's URL, when the merchant opted in. */
  protected async notify(trx: Executor, d: repo.DisputeRow, type: DisputeEventType, now: Date): Promise<void> {
    const s = await repo.settingsOf(trx, d.merchant_id);
    if (!s?.notification_url || !s.key_id) return;
    const m = await this.deps.merchants.findMerchant(trx, d.merchant_id);
    await this.deps.events.enqueueNotification(trx, {
      merchantId: d.merchant_id,
      env: d.env,
      orderId: d.order_id,
      type,
      keyId: s.key_id,
      url: s.notification_url,
      payload: JSON.stringify({ dispute: presentDispute(d) }),
      retries: m?.resend_failed_notifications ?? false,
      at: now,
    });
  }

  protected async merchantNow(db: Executor, merchantId: string): Promise<Date> {
    const m = await this.deps.merchants.findMerchant(db, merchantId);
    return new Date(this.p.clock.now().getTime() + Number(m?.clock_offset_ms ?? 0));
  }
}
