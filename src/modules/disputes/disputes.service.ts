/**
 * Disputes and chargebacks (docs/disputes.md): a dispute of a payment, entered by hand, imported from an
 * acquirer's file or raised by the sandbox; its evidence; submitting and accepting it; its deadline (a
 * durable job on the merchant's clock expires it) and the reminder e-mail before it; the sandbox's
 * decision of a submitted dispute; the dispute events (opt-in) on the event log, the stream and the
 * merchant's URL.
 */
import { randomUUID } from 'node:crypto';
import type { Executor, Tx } from '../../platform/db/database.js';
import { badRequest, conflict, notFound, unavailable, unprocessable } from '../../platform/errors/errors.js';
import type { RequestContext } from '../../platform/http/types.js';
import type { Platform } from '../../platform/index.js';
import type { Job } from '../../platform/jobs/queue.js';
import { currencyByNumber } from '../../platform/money/currency.js';
import { containsCardNumber } from '../../platform/security/card-numbers.js';
import { isAbsoluteHttpUrl } from '../../platform/net/outgoing.js';
import { UUID_RE } from '../../platform/ids.js';
import type { Payments } from '../payments/index.js';
import type { EventsService } from '../events/index.js';
import type { MerchantsService } from '../merchants/index.js';
import type { DisputeActionResult, DisputeNotice } from '../../processors/connector.js';
import type { DisputedPayment, ProcessorRegistry } from '../../processors/registry.js';
import {
  DEFAULT_RESPONSE_DAYS, DISPUTE_DOCUMENTS_MAX_BYTES, DOCUMENTS_MAX, REMINDER_DAYS, SANDBOX_DECISION_DAYS, TEXT_MAX,
  disputeTransition, eventTowards, evidenceFields, isOpen, laterStage, pdfHasCardNumber, reminderAt, sniffDocument, UnreadablePdf,
  type DisputeCategory, type DisputeEvent, type DisputeSource, type DisputeStage, type DisputeStatus,
} from './disputes.domain.js';
import * as repo from './disputes.repo.js';
import { disputeRatios } from './disputes.ratios.js';
import { EVENT_TYPE, orderTotals, presentDispute, recordChange, type DisputeEventType } from './disputes.changes.js';
import { cursorOf, decodeDocument, presentEvidence, presentHistory, readCursor } from './disputes.present.js';
import { importDisputes } from './disputes.import.js';

export { presentDispute, DISPUTE_EVENT_TYPES } from './disputes.changes.js';

export const DEADLINE_QUEUE = 'disputes.deadline';
export const REMINDER_QUEUE = 'disputes.reminder';
export const SANDBOX_DECISION_QUEUE = 'disputes.sandbox-decision';

/** Largest JSON body of the evidence route: the documents' limit in base64, with room for the text. */
export const EVIDENCE_BODY_LIMIT = Math.ceil((DISPUTE_DOCUMENTS_MAX_BYTES * 4) / 3) + 1024 * 1024;
/** Largest import file, decoded. */
export { IMPORT_MAX_BYTES, IMPORT_BODY_LIMIT } from './disputes.import.js';

export interface NewDispute {
  order_uuid: string;
  transaction_uuid?: string | null;
  reason_code: string;
  category: DisputeCategory;
  amount?: number | null;
  stage?: DisputeStage | null;
  evidence_due_at?: string | null;
  acquirer?: string | null;
  provider_id?: string | null;
}

export interface EvidenceInput {
  fields?: Record<string, string> | null;
  documents?: Array<{ filename: string; data: string; field?: string | null }> | null;
}

interface Payment {
  orderId: string;
  transactionId: string;
  amount: number;
  currency: string;
  serviceId: string | null;
  serviceType: string | null;
}

const own = (ctx: RequestContext): repo.Owner => ({ merchantId: ctx.merchant.id, env: ctx.env });
const iso = (d: Date | null) => (d ? d.toISOString() : null);

export class DisputesService {
  constructor(
    private readonly p: Platform,
    private readonly deps: { payments: Payments; events: EventsService; merchants: MerchantsService; processors: ProcessorRegistry },
  ) {}

  get #db() {
    return this.p.database.db;
  }

  /** A change of a dispute, in its transaction: its order's money and its event (disputes.changes.ts). */
  #changed(trx: Executor, d: repo.DisputeRow, type: DisputeEventType, now: Date): Promise<void> {
    return recordChange(this.deps, trx, d, type, now);
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
      await this.#scheduleDeadline(trx, row, ctx.clock.offsetMs);
      await this.#changed(trx, row, 'DISPUTE_CREATED', now);
    });
    return this.get(ctx, row.id);
  }

  /**
   * The deadline's expiry job and the reminder before it, at their instants on the merchant's clock. A
   * CONNECTOR dispute gets the reminder only: its provider keeps the deadline and says when it expired.
   */
  async #scheduleDeadline(trx: Executor, d: repo.DisputeRow, offsetMs: number): Promise<void> {
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
    const db = this.#db;
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
    const d = await repo.findDispute(this.#db, own(ctx), id);
    if (!d) throw notFound(`The dispute ${id} was not found`);
    const doc = UUID_RE.test(documentId) ? await repo.documentOf(this.#db, id, documentId) : undefined;
    if (!doc) throw notFound(`The document ${documentId} of the dispute ${id} was not found`);
    return { document: { uuid: doc.id, filename: doc.name, content_type: doc.content_type!, size: Number(doc.size), data: Buffer.from(doc.content!).toString('base64') } };
  }

  // ---- evidence, submit, accept ------------------------------------------------------------------------------

  async addEvidence(ctx: RequestContext, id: string, input: EvidenceInput) {
    const fields = Object.entries(input.fields ?? {});
    const docs = input.documents ?? [];
    if (fields.length === 0 && docs.length === 0) throw badRequest('Give evidence: text `fields`, `documents`, or both');
    // checked before anything is stored: the whole request is refused on any problem
    const d0 = await repo.findDispute(this.#db, own(ctx), id);
    if (!d0) throw notFound(`The dispute ${id} was not found`);
    const allowed = evidenceFields(d0.category);
    for (const [name, value] of fields) {
      if (!allowed.includes(name)) throw badRequest(`fields.${name} is not evidence of a ${d0.category} dispute; its fields are ${allowed.join(', ')}`);
      if (typeof value !== 'string' || value.trim() === '') throw badRequest(`fields.${name} must be text`);
      if (value.length > TEXT_MAX) throw badRequest(`fields.${name} is longer than ${TEXT_MAX} characters`);
      if (containsCardNumber(value)) throw badRequest(`fields.${name} must not contain a card number: card numbers go only in the card fields`);
    }
    const decoded = docs.map((doc, i) => {
      if (doc.field && !allowed.includes(doc.field)) throw badRequest(`documents[${i}].field ${doc.field} is not evidence of a ${d0.category} dispute; its fields are ${allowed.join(', ')}`);
      const bytes = decodeDocument(`documents[${i}].data`, doc.data);
      const type = sniffDocument(bytes);
      if (!type) throw badRequest(`documents[${i}] (${doc.filename}) is not a PDF, PNG or JPEG file (read by its content, not its name): only those are accepted`);
      if (type === 'application/pdf') {
        let carries: boolean;
        try {
          carries = pdfHasCardNumber(bytes);
        } catch (err) {
          if (err instanceof UnreadablePdf) throw badRequest(`documents[${i}] (${doc.filename}) is refused: ${err.message}`);
          throw err;
        }
        if (carries) throw badRequest(`documents[${i}] (${doc.filename}) must not contain a card number: mask it (BIN and last 4 at most) before sending the document`);
      }
      return { filename: doc.filename, bytes, type, field: doc.field ?? null };
    });
    const now = ctx.clock.now();
    await this.p.database.transaction(async (trx) => {
      const d = await repo.lockDispute(trx, own(ctx), id);
      if (!d) throw notFound(`The dispute ${id} was not found`);
      if (d.status !== 'NEEDS_RESPONSE') throw conflict(`The dispute is ${d.status}: evidence is taken only while it NEEDS_RESPONSE`);
      const held = await repo.documentsSize(trx, id);
      const adding = decoded.reduce((n, x) => n + x.bytes.length, 0);
      if (held.count + decoded.length > DOCUMENTS_MAX) throw badRequest(`A dispute holds at most ${DOCUMENTS_MAX} documents (it has ${held.count})`);
      if (held.bytes + adding > DISPUTE_DOCUMENTS_MAX_BYTES) throw badRequest(`A dispute's documents take at most ${DISPUTE_DOCUMENTS_MAX_BYTES} bytes (10 MiB) together: it holds ${held.bytes}, these add ${adding}`);
      for (const [name, value] of fields) await repo.upsertText(trx, { id: randomUUID(), dispute_id: id, kind: 'TEXT', name, text_value: value, size: Buffer.byteLength(value), created_at: now });
      for (const x of decoded) await repo.insertDocument(trx, { id: randomUUID(), dispute_id: id, kind: 'DOCUMENT', name: x.filename, text_value: null, content_type: x.type, size: x.bytes.length, content: x.bytes, field: x.field, created_at: now });
      const what = [...fields.map(([n]) => n), ...decoded.map((x) => `${x.filename} (${x.type}, ${x.bytes.length} bytes)`)].join(', ');
      await repo.addHistory(trx, [{ dispute_id: id, at: now, actor: `api:${ctx.keyId}`, event: 'EVIDENCE', from_status: d.status, to_status: d.status, stage: d.stage, detail: what.slice(0, 1000) }]);
      await repo.updateDispute(trx, id, { updated_at: now });
    });
    return this.get(ctx, id);
  }

  async submit(ctx: RequestContext, id: string) {
    const sent = await this.#throughConnector(ctx, id, 'SUBMIT');
    const now = ctx.clock.now();
    await this.p.database.transaction(async (trx) => {
      const d = await this.#lockFor(trx, ctx, id, 'SUBMIT');
      const evidence = await repo.evidenceOf(trx, id);
      if (evidence.length === 0) throw conflict('The dispute has no evidence: add it (POST /disputes/{uuid}/evidence) before submitting, or accept the dispute');
      await this.#apply(trx, d, 'SUBMIT', now, `api:${ctx.keyId}`, `${evidence.length} evidence item${evidence.length > 1 ? 's' : ''} submitted${sent ? `; ${sent}` : ''}`, { submitted_at: now });
      if (d.source === 'SANDBOX') {
        const at = new Date(now.getTime() + SANDBOX_DECISION_DAYS * 86400_000 - ctx.clock.offsetMs);
        await this.p.jobs.enqueue(trx, { queue: SANDBOX_DECISION_QUEUE, payload: { disputeId: id }, runAt: at, merchantId: d.merchant_id, maxAttempts: 20 });
      }
    });
    return this.get(ctx, id);
  }

  async accept(ctx: RequestContext, id: string) {
    const sent = await this.#throughConnector(ctx, id, 'ACCEPT');
    const now = ctx.clock.now();
    await this.p.database.transaction(async (trx) => {
      const d = await this.#lockFor(trx, ctx, id, 'ACCEPT');
      await this.#apply(trx, d, 'ACCEPT', now, `api:${ctx.keyId}`, `the merchant accepted the dispute${sent ? `; ${sent}` : ''}`, { resolved_at: now });
    });
    return this.get(ctx, id);
  }

  /**
   * A CONNECTOR dispute's submission or acceptance goes to the provider first (outside any transaction):
   * refused there, nothing changes here (422); not known, nothing changes here (503: ask again). Returns
   * what the provider said, or null for a dispute that has no connector.
   */
  async #throughConnector(ctx: RequestContext, id: string, event: 'SUBMIT' | 'ACCEPT'): Promise<string | null> {
    const d = await repo.findDispute(this.#db, own(ctx), id);
    if (!d) throw notFound(`The dispute ${id} was not found`);
    if (d.source !== 'CONNECTOR') return null;
    if (!disputeTransition(d.status, event)) return null; // #lockFor answers the 409
    const connector = this.deps.processors.connectorNamed(d.acquirer.toLowerCase());
    if (!connector?.disputes || !d.provider_id || !d.service_type) throw unprocessable(`The dispute came from ${d.acquirer}, whose connector takes no dispute action now: answer it at ${d.acquirer} and import the outcome`);
    const terminal = { serviceType: d.service_type, terminalId: null, serviceId: d.service_id };
    let r: DisputeActionResult;
    if (event === 'SUBMIT') {
      const evidence = await repo.evidenceOf(this.#db, id);
      if (evidence.length === 0) throw conflict('The dispute has no evidence: add it (POST /disputes/{uuid}/evidence) before submitting, or accept the dispute');
      const fields = Object.fromEntries(evidence.filter((e) => e.kind === 'TEXT').map((e) => [e.name, e.text_value!]));
      const documents = (await repo.documentsOf(this.#db, id)).map((x) => ({ filename: x.name, contentType: x.content_type, content: x.content, field: x.field }));
      r = await connector.disputes.submitEvidence({ terminal, providerId: d.provider_id, evidence: { fields, documents } });
    } else r = await connector.disputes.accept({ terminal, providerId: d.provider_id });
    if (r.outcome === 'REFUSED') throw unprocessable(`${r.details}: nothing changed`);
    if (r.outcome === 'UNKNOWN') throw unavailable(`${r.details}: it is not known whether ${d.acquirer} took it; ask again (the same request is safe)`);
    return r.details;
  }

  // ---- connectors' notices ---------------------------------------------------------------------------------

  /** A verified dispute notice of a connector about a payment of ours: the dispute created or moved. */
  async fromConnector(connector: string, notice: DisputeNotice, payment: DisputedPayment): Promise<'applied' | 'ignored'> {
    const m = await this.deps.merchants.findMerchant(this.#db, payment.merchantId);
    if (!m) return 'ignored';
    const ctx = await this.deps.merchants.dashboardContext(payment.merchantId);
    const { order } = await this.deps.payments.getOrder(ctx, payment.orderId);
    const acquirer = connector.toUpperCase();
    const actor = `connector:${connector}`;
    const now = ctx.clock.now();
    return this.p.database.transaction(async (trx) => {
      const existing = await repo.lockByProviderId(trx, own(ctx), acquirer, notice.providerId);
      if (existing) {
        const event = eventTowards(existing, notice);
        if (event === null) return 'ignored';
        if (event === 'impossible') {
          this.p.logger.warn({ dispute: existing.id, from: existing.status, to: notice.status, stage: notice.stage }, 'disputes: a connector reported a move the lifecycle does not allow');
          return 'ignored';
        }
        const extra: Partial<repo.DisputeRow> = event === 'ESCALATE' ? { evidence_due_at: notice.dueAt ?? new Date(now.getTime() + DEFAULT_RESPONSE_DAYS * 86400_000), amount: notice.amount } : event === 'SUBMIT' ? { submitted_at: now } : {};
        const next = await this.#apply(trx, existing, event, now, actor, notice.detail, extra, event === 'ESCALATE' ? notice.stage : undefined);
        if (event === 'ESCALATE') await this.#scheduleDeadline(trx, next, ctx.clock.offsetMs);
        return 'applied';
      }
      if (isOpen(notice.status) && (await repo.openDisputeOf(trx, payment.transactionId))) {
        this.p.logger.warn({ transaction: payment.transactionId, provider_id: notice.providerId }, 'disputes: a second open dispute of a payment reported by a connector is ignored');
        return 'ignored';
      }
      const resolved = !isOpen(notice.status);
      const row: repo.DisputeRow = {
        id: randomUUID(), merchant_id: payment.merchantId, env: m.env, order_id: payment.orderId, transaction_id: payment.transactionId,
        service_id: order.service_uuid ?? null, service_type: order.service ?? null, source: 'CONNECTOR', acquirer, provider_id: notice.providerId,
        reason_code: notice.reasonCode, category: notice.category, amount: notice.amount, currency: notice.currency, stage: notice.stage, status: notice.status,
        evidence_due_at: notice.dueAt ?? new Date(now.getTime() + DEFAULT_RESPONSE_DAYS * 86400_000), sandbox_outcome: null,
        submitted_at: notice.status === 'UNDER_REVIEW' ? now : null, resolved_at: resolved ? now : null, created_at: now, updated_at: now,
      };
      await repo.insertDispute(trx, row);
      await repo.addHistory(trx, [{ dispute_id: row.id, at: now, actor, event: 'CREATE', from_status: null, to_status: row.status, stage: row.stage, detail: notice.detail }]);
      if (row.status === 'NEEDS_RESPONSE') await this.#scheduleDeadline(trx, row, ctx.clock.offsetMs);
      await this.#changed(trx, row, 'DISPUTE_CREATED', now);
      return 'applied';
    });
  }

  async #lockFor(trx: Tx, ctx: RequestContext, id: string, event: DisputeEvent): Promise<repo.DisputeRow> {
    const d = await repo.lockDispute(trx, own(ctx), id);
    if (!d) throw notFound(`The dispute ${id} was not found`);
    if (!disputeTransition(d.status, event)) throw conflict(`A dispute that is ${d.status} cannot be ${event === 'SUBMIT' ? 'submitted' : 'accepted'}${isOpen(d.status) ? '' : ': it is decided'}`);
    return d;
  }

  /** Applies an event of the transition table: the row, its history line, and its notification. */
  async #apply(trx: Executor, d: repo.DisputeRow, event: DisputeEvent, now: Date, actor: string, detail: string | null, extra: Partial<repo.DisputeRow> = {}, stage?: DisputeStage): Promise<repo.DisputeRow> {
    const to = disputeTransition(d.status, event);
    if (!to) throw new Error(`dispute ${d.id}: ${event} does not apply in ${d.status}`);
    const resolved = to === 'WON' || to === 'LOST' || to === 'EXPIRED' || to === 'ACCEPTED';
    const next: repo.DisputeRow = { ...d, ...extra, status: to, stage: stage ?? d.stage, updated_at: now, resolved_at: resolved ? (extra.resolved_at ?? now) : null };
    await repo.updateDispute(trx, d.id, { status: next.status, stage: next.stage, amount: next.amount, reason_code: next.reason_code, updated_at: now, resolved_at: next.resolved_at, submitted_at: next.submitted_at, evidence_due_at: next.evidence_due_at });
    await repo.addHistory(trx, [{ dispute_id: d.id, at: now, actor, event, from_status: d.status, to_status: to, stage: next.stage, detail }]);
    await this.#changed(trx, next, EVENT_TYPE[event], now);
    return next;
  }

  // ---- import ------------------------------------------------------------------------------------------------

  /** POST /disputes/import: an acquirer's disputes in the CSV layout; all or nothing (disputes.import.ts). */
  importFile(ctx: RequestContext, body: { data: string; filename: string; acquirer: string }) {
    return importDisputes(this.p, ctx, body, {
      apply: (trx, d, event, now, actor, detail, extra, stage) => this.#apply(trx, d, event, now, actor, detail, extra, stage),
      scheduleDeadline: (trx, d, offsetMs) => this.#scheduleDeadline(trx, d, offsetMs),
      changed: (trx, d, type, now) => this.#changed(trx, d, type, now),
    });
  }

  // ---- risk: the dispute ratio against the schemes' programmes (disputes.ratios.ts) ------------------------

  ratios(ctx: RequestContext, q: { months?: number }) {
    return disputeRatios(this.p.reads.db, ctx, q);
  }

  // ---- settings and notifications ------------------------------------------------------------------------------

  async settings(ctx: RequestContext) {
    const s = await repo.settingsOf(this.#db, ctx.merchant.id);
    return { dispute_settings: { notification_url: s?.notification_url ?? null, reminder_days: s?.reminder_days ?? REMINDER_DAYS, updated_at: iso(s?.updated_at ?? null) } };
  }

  async saveSettings(ctx: RequestContext, body: { notification_url?: string | null; reminder_days?: number | null }) {
    const url = body.notification_url ?? null;
    if (url !== null && !isAbsoluteHttpUrl(url)) throw badRequest('notification_url must be an absolute http(s) URL');
    const old = await repo.settingsOf(this.#db, ctx.merchant.id);
    await repo.saveSettings(this.#db, {
      merchant_id: ctx.merchant.id,
      notification_url: url,
      key_id: url ? ctx.keyId : null,
      reminder_days: body.reminder_days ?? old?.reminder_days ?? REMINDER_DAYS,
      updated_at: ctx.clock.now(),
    });
    return this.settings(ctx);
  }

  // ---- background ----------------------------------------------------------------------------------------------

  registerJobs(): void {
    this.p.jobs.register<{ disputeId: string; due: string }>(DEADLINE_QUEUE, (job) => this.#deadline(job));
    this.p.jobs.register<{ disputeId: string; due: string }>(REMINDER_QUEUE, (job) => this.#reminder(job));
    this.p.jobs.register<{ disputeId: string }>(SANDBOX_DECISION_QUEUE, (job) => this.#sandboxDecision(job));
  }

  async #merchantNow(db: Executor, merchantId: string): Promise<Date> {
    const m = await this.deps.merchants.findMerchant(db, merchantId);
    return new Date(this.p.clock.now().getTime() + Number(m?.clock_offset_ms ?? 0));
  }

  /** The deadline passed with no response: EXPIRED (the merchant's loss). */
  async #deadline(job: Job<{ disputeId: string; due: string }>): Promise<void> {
    await this.p.database.transaction(async (trx) => {
      const d = await repo.lockDisputeById(trx, job.payload.disputeId);
      // answered, or given a later deadline by a new stage (whose own job expires it then)
      if (!d || d.status !== 'NEEDS_RESPONSE' || d.evidence_due_at.toISOString() !== job.payload.due) return;
      const now = await this.#merchantNow(trx, d.merchant_id);
      if (now.getTime() < d.evidence_due_at.getTime()) return;
      await this.#apply(trx, d, 'EXPIRE', now, 'system', `no response by ${d.evidence_due_at.toISOString()}`, { resolved_at: now });
    });
  }

  /** The e-mail to the merchant's dashboard users a few days before the deadline. */
  async #reminder(job: Job<{ disputeId: string; due: string }>): Promise<void> {
    await this.p.database.transaction(async (trx) => {
      const d = await repo.lockDisputeById(trx, job.payload.disputeId);
      if (!d || d.status !== 'NEEDS_RESPONSE' || d.evidence_due_at.toISOString() !== job.payload.due) return;
      const users = (await this.deps.merchants.listDashboardUsers(trx, [d.merchant_id])).filter((u) => u.status === 'ACTIVE');
      const now = await this.#merchantNow(trx, d.merchant_id);
      const days = Math.max(0, Math.ceil((d.evidence_due_at.getTime() - now.getTime()) / 86400_000));
      const subject = `Dispute of ${d.amount} ${d.currency} (minor units): evidence due in ${days} day${days === 1 ? '' : 's'}`;
      const text = [
        `A ${d.stage.toLowerCase().replace('_', '-')} (${d.category}, reason ${d.reason_code}) of the order ${d.order_id} needs your response.`,
        `Evidence is due by ${d.evidence_due_at.toISOString()} (UTC). With no response by then the dispute is lost.`,
        `Dispute: ${d.id} (${d.acquirer}${d.provider_id ? ` ${d.provider_id}` : ''}). Add evidence and submit it, or accept the dispute, in the dashboard or through the API.`,
      ].join('\n\n');
      for (const u of users) await this.p.mailer.queue(trx, { merchantId: d.merchant_id, to: u.email, subject, text });
      await repo.addHistory(trx, [{ dispute_id: d.id, at: now, actor: 'system', event: 'REMINDER', from_status: d.status, to_status: d.status, stage: d.stage, detail: `deadline reminder e-mailed to ${users.length} dashboard user${users.length === 1 ? '' : 's'}` }]);
    });
  }

  /** The sandbox decides a submitted dispute as its trigger asked (docs/disputes.md "The sandbox"). */
  async #sandboxDecision(job: Job<{ disputeId: string }>): Promise<void> {
    await this.p.database.transaction(async (trx) => {
      const d = await repo.lockDisputeById(trx, job.payload.disputeId);
      if (!d || d.source !== 'SANDBOX' || d.status !== 'UNDER_REVIEW') return;
      const now = await this.#merchantNow(trx, d.merchant_id);
      const event: DisputeEvent = d.sandbox_outcome === 'LOST' ? 'LOSE' : 'WIN';
      await this.#apply(trx, d, event, now, 'sandbox', `the sandbox decided the dispute ${d.sandbox_outcome}`, { resolved_at: now });
    });
  }
}

export { laterStage };
export type { DisputeSource };
