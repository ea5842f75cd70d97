/**
 * Disputes and chargebacks (docs/disputes.md): a dispute of a payment, entered by hand, imported from an
 * acquirer's file or raised by the sandbox; its evidence; submitting and accepting it; its deadline (a
 * durable job on the merchant's clock expires it) and the reminder e-mail before it; the sandbox's
 * decision of a submitted dispute; the dispute events (opt-in) on the event log, the stream and the
 * merchant's URL.
 */
import { randomUUID } from 'node:crypto';
import { sql } from 'kysely';
import { badRequest, conflict, notFound, unavailable, unprocessable } from '../../platform/errors/errors.js';
import type { RequestContext } from '../../platform/http/types.js';
import type { Job } from '../../platform/jobs/queue.js';
import { readCsv, type LineError } from '../../platform/csv/csv.js';
import { containsCardNumber } from '../../platform/security/card-numbers.js';
import { moneyMovementsSql } from '../payments/index.js';
import type { DisputeActionResult, DisputeNotice } from '../../processors/connector.js';
import type { DisputedPayment } from '../../processors/registry.js';
import {
  CSV_OPTIONAL,
  CSV_REQUIRED,
  DEFAULT_RESPONSE_DAYS,
  DISPUTE_DOCUMENTS_MAX_BYTES,
  DOCUMENTS_MAX,
  SANDBOX_DECISION_DAYS,
  TEXT_MAX,
  SCHEMES,
  assessRatio,
  disputeTransition,
  eventTowards,
  schemeOfBin,
  evidenceFields,
  isOpen,
  laterStage,
  parseImportRow,
  pdfHasCardNumber,
  sniffDocument,
  UnreadablePdf,
  type DisputeEvent,
  type ImportRow,
} from './disputes.domain.js';
import * as repo from './disputes.repo.js';
import { DEADLINE_QUEUE, REMINDER_QUEUE, SANDBOX_DECISION_QUEUE, decodeCsv, decodeDocument, own, type EvidenceInput } from './disputes.types.js';
import { DisputesCore } from './disputes.core.js';

/** Disputes: their evidence, submission and acceptance, connectors' notices, imports, ratios and schedules. */
export class DisputesService extends DisputesCore {
  // ---- evidence, submit, accept ------------------------------------------------------------------------------

  async addEvidence(ctx: RequestContext, id: string, input: EvidenceInput) {
    const fields = Object.entries(input.fields ?? {});
    const docs = input.documents ?? [];
    if (fields.length === 0 && docs.length === 0) throw badRequest('Give evidence: text `fields`, `documents`, or both');
    // checked before anything is stored: the whole request is refused on any problem
    const d0 = await repo.findDispute(this.db, own(ctx), id);
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
      const d = await this.lockFor(trx, ctx, id, 'SUBMIT');
      const evidence = await repo.evidenceOf(trx, id);
      if (evidence.length === 0) throw conflict('The dispute has no evidence: add it (POST /disputes/{uuid}/evidence) before submitting, or accept the dispute');
      await this.apply(trx, d, 'SUBMIT', now, `api:${ctx.keyId}`, `${evidence.length} evidence item${evidence.length > 1 ? 's' : ''} submitted${sent ? `; ${sent}` : ''}`, { submitted_at: now });
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
      const d = await this.lockFor(trx, ctx, id, 'ACCEPT');
      await this.apply(trx, d, 'ACCEPT', now, `api:${ctx.keyId}`, `the merchant accepted the dispute${sent ? `; ${sent}` : ''}`, { resolved_at: now });
    });
    return this.get(ctx, id);
  }

  /**
   * A CONNECTOR dispute's submission or acceptance goes to the provider first (outside any transaction):
   * refused there, nothing changes here (422); not known, nothing changes here (503: ask again). Returns
   * what the provider said, or null for a dispute that has no connector.
   */
  async #throughConnector(ctx: RequestContext, id: string, event: 'SUBMIT' | 'ACCEPT'): Promise<string | null> {
    const d = await repo.findDispute(this.db, own(ctx), id);
    if (!d) throw notFound(`The dispute ${id} was not found`);
    if (d.source !== 'CONNECTOR') return null;
    if (!disputeTransition(d.status, event)) return null; // #lockFor answers the 409
    const connector = this.deps.processors.connectorNamed(d.acquirer.toLowerCase());
    if (!connector?.disputes || !d.provider_id || !d.service_type) throw unprocessable(`The dispute came from ${d.acquirer}, whose connector takes no dispute action now: answer it at ${d.acquirer} and import the outcome`);
    const terminal = { serviceType: d.service_type, terminalId: null, serviceId: d.service_id };
    let r: DisputeActionResult;
    if (event === 'SUBMIT') {
      const evidence = await repo.evidenceOf(this.db, id);
      if (evidence.length === 0) throw conflict('The dispute has no evidence: add it (POST /disputes/{uuid}/evidence) before submitting, or accept the dispute');
      const fields = Object.fromEntries(evidence.filter((e) => e.kind === 'TEXT').map((e) => [e.name, e.text_value!]));
      const documents = (await repo.documentsOf(this.db, id)).map((x) => ({ filename: x.name, contentType: x.content_type, content: x.content, field: x.field }));
      r = await connector.disputes.submitEvidence({ terminal, providerId: d.provider_id, evidence: { fields, documents } });
    } else r = await connector.disputes.accept({ terminal, providerId: d.provider_id });
    if (r.outcome === 'REFUSED') throw unprocessable(`${r.details}: nothing changed`);
    if (r.outcome === 'UNKNOWN') throw unavailable(`${r.details}: it is not known whether ${d.acquirer} took it; ask again (the same request is safe)`);
    return r.details;
  }

  // ---- connectors' notices ---------------------------------------------------------------------------------

  /** A verified dispute notice of a connector about a payment of ours: the dispute created or moved. */
  async fromConnector(connector: string, notice: DisputeNotice, payment: DisputedPayment): Promise<'applied' | 'ignored'> {
    const m = await this.deps.merchants.findMerchant(this.db, payment.merchantId);
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
        const next = await this.apply(trx, existing, event, now, actor, notice.detail, extra, event === 'ESCALATE' ? notice.stage : undefined);
        if (event === 'ESCALATE') await this.scheduleDeadline(trx, next, ctx.clock.offsetMs);
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
      if (row.status === 'NEEDS_RESPONSE') await this.scheduleDeadline(trx, row, ctx.clock.offsetMs);
      await this.notify(trx, row, 'DISPUTE_CREATED', now);
      return 'applied';
    });
  }
  // ---- import ------------------------------------------------------------------------------------------------

  /** POST /disputes/import: an acquirer's disputes in the CSV layout; all or nothing. */
  async importFile(ctx: RequestContext, body: { data: string; filename: string; acquirer: string }) {
    const bytes = decodeCsv(body.data);
    const file = await readCsv('data', bytes, { required: CSV_REQUIRED, optional: CSV_OPTIONAL });
    const problems: LineError[] = [];
    const rows: Array<ImportRow & { acquirer: string }> = [];
    const seen = new Map<string, number>();
    for (const r of file.rows) {
      const parsed = parseImportRow(r.line, r.values);
      if ('problems' in parsed) {
        for (const msg of parsed.problems) problems.push({ line: r.line, msg });
        continue;
      }
      const acquirer = (r.values.ACQUIRER?.trim() || body.acquirer).toUpperCase();
      const key = `${acquirer}\u0000${parsed.row.providerId}`;
      if (seen.has(key)) problems.push({ line: r.line, msg: `DISPUTE_ID ${parsed.row.providerId} is already on line ${seen.get(key)}` });
      seen.set(key, r.line);
      rows.push({ ...parsed.row, acquirer });
    }
    const now = ctx.clock.now();
    const actor = `import:${body.filename}`.slice(0, 300);
    const result = await this.p.database.transaction(async (trx) => {
      // the disputed payments, as the payments module presents its money movements
      const ids = [...new Set(rows.map((r) => r.transactionId))];
      const pays = new Map<string, { order_id: string; amount: number; currency: string; type: string; status: string; service_id: string }>();
      for (let i = 0; i < ids.length; i += 1000) {
        const chunk = ids.slice(i, i + 1000);
        const { rows: found } = await sql<{ transaction_id: string; order_id: string; amount: string | number; currency: string; type: string; status: string; service_id: string }>`
          select m.transaction_id, m.order_id, m.amount, m.currency, m.type, m.status, m.service_id from (${moneyMovementsSql({ merchantId: ctx.merchant.id, env: ctx.env })}) m
          where m.transaction_id in (${sql.join(chunk.map((x) => sql`${x}::uuid`))})`.execute(trx);
        for (const f of found) pays.set(f.transaction_id, { ...f, amount: Number(f.amount) });
      }
      let created = 0;
      let updated = 0;
      let unchanged = 0;
      for (const r of rows) {
        const pay = pays.get(r.transactionId);
        if (!pay || pay.type !== 'PAYMENT' || pay.status !== 'SUCCESS') {
          problems.push({ line: r.line, msg: `TRANSACTION ${r.transactionId} is not a successful payment of this merchant` });
          continue;
        }
        if (r.currency !== pay.currency) problems.push({ line: r.line, msg: `CURRENCY ${r.currency} is not the payment's (${pay.currency})` });
        if (r.amount > pay.amount) problems.push({ line: r.line, msg: `AMOUNT ${r.amount} is more than the payment's amount (${pay.amount})` });
        if (problems.some((p) => p.line === r.line)) continue;
        const existing = await repo.lockByProviderId(trx, own(ctx), r.acquirer, r.providerId);
        if (existing) {
          if (existing.transaction_id !== r.transactionId) {
            problems.push({ line: r.line, msg: `DISPUTE_ID ${r.providerId} is a dispute of another payment (${existing.transaction_id})` });
            continue;
          }
          const event = eventTowards(existing, r);
          if (event === 'impossible') {
            problems.push({ line: r.line, msg: `the dispute is ${existing.status} at ${existing.stage}: it cannot become ${r.status} at ${r.stage}` });
            continue;
          }
          if (event === null) {
            unchanged++;
            continue;
          }
          const extra: Partial<repo.DisputeRow> = event === 'ESCALATE' ? { evidence_due_at: r.due, amount: r.amount, reason_code: r.reasonCode } : event === 'SUBMIT' ? { submitted_at: now } : {};
          const next = await this.apply(trx, existing, event, now, actor, `line ${r.line} of ${body.filename}`.slice(0, 1000), extra, event === 'ESCALATE' ? r.stage : undefined);
          if (event === 'ESCALATE') await this.scheduleDeadline(trx, next, ctx.clock.offsetMs);
          updated++;
          continue;
        }
        const open = await repo.openDisputeOf(trx, r.transactionId);
        if (open && isOpen(r.status)) {
          problems.push({ line: r.line, msg: `the payment ${r.transactionId} already has an open dispute (${open.provider_id ?? open.id})` });
          continue;
        }
        const resolved = !isOpen(r.status);
        const row: repo.DisputeRow = {
          id: randomUUID(), merchant_id: ctx.merchant.id, env: ctx.env, order_id: pay.order_id, transaction_id: r.transactionId, service_id: pay.service_id, service_type: null, source: 'IMPORT',
          acquirer: r.acquirer, provider_id: r.providerId, reason_code: r.reasonCode, category: r.category, amount: r.amount, currency: r.currency,
          stage: r.stage, status: r.status, evidence_due_at: r.due, sandbox_outcome: null, submitted_at: r.status === 'UNDER_REVIEW' ? now : null,
          resolved_at: resolved ? now : null, created_at: now, updated_at: now,
        };
        await repo.insertDispute(trx, row);
        await repo.addHistory(trx, [{ dispute_id: row.id, at: now, actor, event: 'CREATE', from_status: null, to_status: row.status, stage: row.stage, detail: `line ${r.line} of ${body.filename}`.slice(0, 1000) }]);
        if (row.status === 'NEEDS_RESPONSE') await this.scheduleDeadline(trx, row, ctx.clock.offsetMs);
        await this.notify(trx, row, 'DISPUTE_CREATED', now);
        created++;
      }
      if (problems.length > 0) {
        problems.sort((a, b) => a.line - b.line);
        throw unprocessable(`${problems.length} problem${problems.length > 1 ? 's' : ''} in the file: nothing was imported`, { errors: problems.slice(0, 1000) });
      }
      return { lines: file.rows.length, created, updated, unchanged };
    });
    return { import: { filename: body.filename, ...result } };
  }

  // ---- risk: the dispute ratio against the schemes' programmes ------------------------------------------------

  /**
   * GET /disputes/ratios: per month (UTC) and card scheme, the disputes received (CHARGEBACK stage or later
   * at their creation or since: retrievals are not counted) against the sales (successful payments) of the
   * month the programme compares them with: Visa's VDMP the same month, Mastercard's ECM the month before.
   */
  async ratios(ctx: RequestContext, q: { months?: number }) {
    const months = q.months ?? 6;
    const now = ctx.clock.now();
    const first = new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth() - (months - 1), 1));
    // the month before the first, for Mastercard's ratio
    const since = new Date(Date.UTC(first.getUTCFullYear(), first.getUTCMonth() - 1, 1));
    const db = this.p.reads.db;
    const movements = moneyMovementsSql({ merchantId: ctx.merchant.id, env: ctx.env, since });
    const { rows: sales } = await sql<{ month: string; prefix: string | null; n: string | number }>`
      select to_char(m.created_at at time zone 'UTC', 'YYYY-MM') as month, left(m.card_bin, 4) as prefix, count(*) as n
      from (${movements}) m where m.type = 'PAYMENT' and m.status = 'SUCCESS' group by 1, 2`.execute(db);
    const { rows: disputes } = await sql<{ month: string; prefix: string | null; n: string | number }>`
      select to_char(d.created_at at time zone 'UTC', 'YYYY-MM') as month, left(m.card_bin, 4) as prefix, count(*) as n
      from disputes d join (${moneyMovementsSql({ merchantId: ctx.merchant.id, env: ctx.env })}) m on m.transaction_id = d.transaction_id
      where d.merchant_id = ${ctx.merchant.id} and d.env = ${ctx.env} and d.created_at >= ${first} and d.stage <> 'RETRIEVAL'
      group by 1, 2`.execute(db);
    const add = (into: Map<string, number>, rows: Array<{ month: string; prefix: string | null; n: string | number }>) => {
      for (const r of rows) {
        const key = `${r.month}|${schemeOfBin(r.prefix)}`;
        into.set(key, (into.get(key) ?? 0) + Number(r.n));
      }
    };
    const salesBy = new Map<string, number>();
    const disputesBy = new Map<string, number>();
    add(salesBy, sales);
    add(disputesBy, disputes);
    const out = [];
    for (let i = months - 1; i >= 0; i--) {
      const d = new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth() - i, 1));
      const month = d.toISOString().slice(0, 7);
      const previous = new Date(Date.UTC(d.getUTCFullYear(), d.getUTCMonth() - 1, 1)).toISOString().slice(0, 7);
      for (const scheme of SCHEMES) {
        const salesMonth = scheme === 'MASTERCARD' ? previous : month;
        out.push({ ...assessRatio({ month, scheme, disputes: disputesBy.get(`${month}|${scheme}`) ?? 0, sales: salesBy.get(`${salesMonth}|${scheme}`) ?? 0 }), sales_month: salesMonth });
      }
    }
    return { ratios: out };
  }

  // ---- background ----------------------------------------------------------------------------------------------

  registerJobs(): void {
    this.p.jobs.register<{ disputeId: string; due: string }>(DEADLINE_QUEUE, (job) => this.#deadline(job));
    this.p.jobs.register<{ disputeId: string; due: string }>(REMINDER_QUEUE, (job) => this.#reminder(job));
    this.p.jobs.register<{ disputeId: string }>(SANDBOX_DECISION_QUEUE, (job) => this.#sandboxDecision(job));
  }
  /** The deadline passed with no response: EXPIRED (the merchant's loss). */
  async #deadline(job: Job<{ disputeId: string; due: string }>): Promise<void> {
    await this.p.database.transaction(async (trx) => {
      const d = await repo.lockDisputeById(trx, job.payload.disputeId);
      // answered, or given a later deadline by a new stage (whose own job expires it then)
      if (!d || d.status !== 'NEEDS_RESPONSE' || d.evidence_due_at.toISOString() !== job.payload.due) return;
      const now = await this.merchantNow(trx, d.merchant_id);
      if (now.getTime() < d.evidence_due_at.getTime()) return;
      await this.apply(trx, d, 'EXPIRE', now, 'system', `no response by ${d.evidence_due_at.toISOString()}`, { resolved_at: now });
    });
  }

  /** The e-mail to the merchant's dashboard users a few days before the deadline. */
  async #reminder(job: Job<{ disputeId: string; due: string }>): Promise<void> {
    await this.p.database.transaction(async (trx) => {
      const d = await repo.lockDisputeById(trx, job.payload.disputeId);
      if (!d || d.status !== 'NEEDS_RESPONSE' || d.evidence_due_at.toISOString() !== job.payload.due) return;
      const users = (await this.deps.merchants.listDashboardUsers(trx, [d.merchant_id])).filter((u) => u.status === 'ACTIVE');
      const now = await this.merchantNow(trx, d.merchant_id);
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
      const now = await this.merchantNow(trx, d.merchant_id);
      const event: DisputeEvent = d.sandbox_outcome === 'LOST' ? 'LOSE' : 'WIN';
      await this.apply(trx, d, event, now, 'sandbox', `the sandbox decided the dispute ${d.sandbox_outcome}`, { resolved_at: now });
    });
  }
}


export { laterStage };
