/**
 * Batch files: H1 (payments with stored cards) and H2 (refunds).
 *
 * Accepting a file: it is read (400 when it cannot be), every row is checked, against the merchant's
 * data too (stored card, service, order and its refundable remainder); any problem makes the file 422
 * with every line's problems and nothing is stored. Otherwise the file and its lines are stored and one
 * durable job per line is queued for `execute_at`, all in one transaction.
 *
 * Working a line (a job, claimed with SKIP LOCKED by one worker at a time; a job whose worker died is
 * claimed again after its lease): the line's order uuid was chosen when the file was accepted, so a line
 * worked again finds its order and the transactions already made on it instead of charging twice. A
 * refund line records how many refunds its order had before it asks for its own, so a line worked again
 * sees whether its refund was made.
 */
import { randomUUID } from 'node:crypto';
import { decodeBase64File, readCsv, type CsvRow, type LineError } from '../../platform/csv/csv.js';
import { UUID_RE } from '../../platform/ids.js';
import { ApiError, badRequest, notFound, unprocessable } from '../../platform/errors/errors.js';
import { IdempotencyStore } from '../../platform/http/idempotency.js';
import type { RequestContext } from '../../platform/http/types.js';
import type { Platform } from '../../platform/index.js';
import type { Job, Reschedule } from '../../platform/jobs/queue.js';
import type { MerchantsService } from '../merchants/index.js';
import type { Payments, PresentedOrder } from '../payments/index.js';
import { findServiceWithTerminal } from '../services/index.js';
import { refusedUrlText } from '../../platform/net/outgoing.js';
import type { SourcesService } from '../sources/index.js';
import {
  AUTH_OPTIONAL,
  AUTH_REQUIRED,
  batchMoves,
  csvField,
  lineMoves,
  lineTransition,
  parseAuthRow,
  parseExecuteAt,
  parseRefundRow,
  REFUND_OPTIONAL,
  REFUND_REQUIRED,
  type AuthLine,
  type BatchKind,
  type LineStatus,
  type RefundLine,
} from './batch.domain.js';
import * as repo from './batch.repo.js';

export const BATCH_QUEUE = 'batch.line';
const MAX_ATTEMPTS = 10;
const REFUNDABLE = new Set(['SUCCESS', 'PARTIALLY_REFUNDED']);
const FAILED_ORDER = new Set(['REFUSED', 'ERROR', 'FRAUD', 'BLACKLISTED', 'CANCELLED', 'EXPIRED']);
const DONE_ORDER = new Set(['SUCCESS', 'PENDING_CONFIRMATION', 'PARTIALLY_REFUNDED', 'REFUNDED']);

export interface BatchFileInput {
  data: string;
  filename: string;
  execute_at?: string | null;
}

type Owner = { merchantId: string; env: RequestContext['env'] };
const ownerOf = (ctx: RequestContext): Owner => ({ merchantId: ctx.merchant.id, env: ctx.env });

export class BatchService {
  constructor(
    private readonly p: Platform,
    private readonly deps: { payments: Payments; merchants: MerchantsService; sources: SourcesService },
  ) {}

  // ---- H1, H2 ----------------------------------------------------------------------------------------------

  async submit(ctx: RequestContext, kind: BatchKind, input: BatchFileInput) {
    const now = ctx.clock.now();
    let executeAt = now;
    if (input.execute_at !== undefined && input.execute_at !== null && input.execute_at.trim() !== '') {
      const at = parseExecuteAt(input.execute_at, ctx.merchant.timezone);
      if (!at) throw badRequest('execute_at must be YYYY-MM-DD HH:mm:ss (merchant timezone) or ISO 8601');
      if (at.getTime() > now.getTime() + 366 * 86400_000) throw badRequest('execute_at is more than a year away');
      if (at > now) executeAt = at;
    }
    const filename = input.filename.trim();
    if (filename === '') throw badRequest('filename must not be empty');
    const bytes = decodeBase64File('data', input.data, 'optional');
    const spec = kind === 'AUTHORIZATION' ? { required: AUTH_REQUIRED, optional: AUTH_OPTIONAL } : { required: REFUND_REQUIRED, optional: REFUND_OPTIONAL };
    const csv = await readCsv('data', bytes, spec);

    const errors: LineError[] = [];
    const lines = kind === 'AUTHORIZATION' ? await this.#checkAuthorizations(ctx, csv.rows, errors) : await this.#checkRefunds(ctx, csv.rows, errors);
    if (errors.length > 0) {
      errors.sort((a, b) => a.line - b.line);
      throw unprocessable(`${errors.length} problem${errors.length > 1 ? 's' : ''} in the file: nothing was queued`, { errors: errors.slice(0, 1000) });
    }

    const batch: repo.BatchRow = {
      id: randomUUID(),
      merchant_id: ctx.merchant.id,
      env: ctx.env,
      key_id: ctx.keyId,
      kind,
      filename: filename.slice(0, 255),
      status: 'SCHEDULED',
      execute_at: executeAt,
      line_count: lines.length,
      created_at: now,
      finished_at: null,
    };
    const rows = lines.map((l) => ({
      id: randomUUID(),
      batch_id: batch.id,
      line: l.line,
      data: l.data as unknown as Record<string, unknown>,
      order_id: 'order' in l.data ? l.data.order : randomUUID(),
      status: 'PENDING' as LineStatus,
      outcome: null,
      error: null,
      refunds_before: null,
      updated_at: now,
    }));
    // jobs run on the platform clock; a sandbox merchant's clock may be ahead of it
    const runAt = new Date(this.p.clock.now().getTime() + (executeAt.getTime() - now.getTime()));
    await this.p.database.transaction(async (trx) => {
      await repo.insertBatch(trx, batch);
      await repo.insertLines(trx, rows);
      // a retry of the upload whose answer was lost never charges (or refunds) the lines twice
      await IdempotencyStore.commit(trx, ctx);
      const jobs = rows.map((r) => ({ queue: BATCH_QUEUE, payload: { id: r.id }, runAt, merchantId: ctx.env === 'sandbox' ? ctx.merchant.id : null, maxAttempts: MAX_ATTEMPTS }));
      for (let i = 0; i < jobs.length; i += 1000) await this.p.jobs.enqueueMany(trx, jobs.slice(i, i + 1000));
    });
    return { batch: presentBatch(batch, { PENDING: rows.length, RUNNING: 0, SUCCEEDED: 0, FAILED: 0 }), errors: [] as LineError[] };
  }

  async #checkAuthorizations(ctx: RequestContext, rows: CsvRow[], errors: LineError[]) {
    const owner = ownerOf(ctx);
    const db = this.p.database.db;
    const services = new Map<string, string | null>();
    const cards = new Map<string, { error: string } | { customer: string | null }>();
    // a production URL_POST is judged now with the rules of delivery, as an order's url_post is
    const urls = new Map<string, string | null>();
    const out: Array<{ line: number; data: AuthLine }> = [];
    for (const r of rows) {
      const parsed = parseAuthRow(r.line, r.values);
      if (Array.isArray(parsed)) {
        errors.push(...parsed);
        continue;
      }
      const problems: string[] = [];
      if (!services.has(parsed.service)) {
        const s = await findServiceWithTerminal(db, parsed.service);
        services.set(parsed.service, !s || s.merchant_id !== owner.merchantId || s.env !== owner.env ? `SERVICE ${parsed.service} was not found` : !s.enabled || !s.currency_code ? `SERVICE ${parsed.service} is not enabled (it has no terminal)` : null);
      }
      const sErr = services.get(parsed.service);
      if (sErr) problems.push(sErr);
      if (!cards.has(parsed.card)) {
        try {
          const src = await this.deps.sources.loadSource(db, owner, parsed.card);
          cards.set(parsed.card, src.type !== 'card' ? { error: `CARD ${parsed.card} is not a card` } : { customer: src.customer_ext_id });
        } catch (err) {
          if (!(err instanceof ApiError)) throw err;
          cards.set(parsed.card, { error: `CARD ${parsed.card} is not a stored card of this merchant` });
        }
      }
      const c = cards.get(parsed.card)!;
      if ('error' in c) problems.push(c.error);
      else if (parsed.customer && c.customer !== null && String(c.customer) !== parsed.customer) problems.push(`CARD ${parsed.card} does not belong to the customer ${parsed.customer}`);
      else if (!parsed.customer) parsed.customer = c.customer === null ? null : String(c.customer);
      if (parsed.url_post && ctx.env === 'production') {
        if (!urls.has(parsed.url_post)) urls.set(parsed.url_post, await this.p.outgoing.refusalOf(parsed.url_post, ctx.env));
        const refused = urls.get(parsed.url_post);
        if (refused) problems.push(refusedUrlText('URL_POST', refused));
      }
      if (problems.length > 0) errors.push(...problems.map((msg) => ({ line: r.line, msg })));
      else out.push({ line: r.line, data: parsed });
    }
    return out;
  }

  async #checkRefunds(ctx: RequestContext, rows: CsvRow[], errors: LineError[]) {
    const parsed: Array<{ line: number; data: RefundLine }> = [];
    const seen = new Map<string, number>();
    for (const r of rows) {
      const p = parseRefundRow(r.line, r.values);
      if (Array.isArray(p)) {
        errors.push(...p);
        continue;
      }
      const first = seen.get(p.order);
      if (first !== undefined) {
        errors.push({ line: r.line, msg: `ORDER_UUID ${p.order} is already on line ${first}: one refund per order and file` });
        continue;
      }
      seen.set(p.order, r.line);
      parsed.push({ line: r.line, data: p });
    }
    const out: Array<{ line: number; data: RefundLine }> = [];
    // orders are read a few at a time
    for (let i = 0; i < parsed.length; i += 16) {
      const chunk = parsed.slice(i, i + 16);
      const orders = await Promise.all(chunk.map((l) => this.deps.payments.getOrder(ctx, l.data.order).then((r) => r.order, (err) => {
        if (err instanceof ApiError && err.status < 500) return null;
        throw err;
      })));
      chunk.forEach((l, j) => {
        const o = orders[j];
        if (!o) return errors.push({ line: l.line, msg: `ORDER_UUID ${l.data.order} was not found` });
        if (!REFUNDABLE.has(o.status)) return errors.push({ line: l.line, msg: `the order is ${o.status}: only paid orders are refunded` });
        const rest = o.amount - o.refunded;
        if (l.data.amount !== null && l.data.amount > rest) return errors.push({ line: l.line, msg: `AMOUNT ${l.data.amount} is more than the refundable remainder ${rest}` });
        if (rest <= 0) return errors.push({ line: l.line, msg: 'the order is already fully refunded' });
        out.push(l);
      });
    }
    return out;
  }

  // ---- reads -------------------------------------------------------------------------------------------------

  async #batch(ctx: RequestContext, id: string): Promise<repo.BatchRow> {
    const b = UUID_RE.test(id) ? await repo.findBatch(this.p.database.db, ownerOf(ctx), id.toLowerCase()) : undefined;
    if (!b) throw notFound(`The batch ${String(id).slice(0, 64)} was not found`);
    return b;
  }

  async get(ctx: RequestContext, id: string, page: { limit?: number; offset?: number } = {}) {
    const b = await this.#batch(ctx, id);
    const db = this.p.database.db;
    if (page.limit === undefined) {
      const lines = await repo.linesOf(db, b.id);
      const counts: Record<LineStatus, number> = { PENDING: 0, RUNNING: 0, SUCCEEDED: 0, FAILED: 0 };
      for (const l of lines) counts[l.status]++;
      return { batch: presentBatch(b, counts), lines: lines.map(presentLine) };
    }
    const offset = page.offset ?? 0;
    const [counts, lines] = await Promise.all([repo.counts(db, b.id), page.limit > 0 ? repo.linesOf(db, b.id, { limit: page.limit, offset }) : Promise.resolve([])]);
    const next = page.limit > 0 && offset + lines.length < b.line_count ? offset + lines.length : null;
    return { batch: presentBatch(b, counts), lines: lines.map(presentLine), next_offset: next };
  }

  /** The merchant's files in the caller's environment, newest first, with their counts (a page). */
  async list(ctx: RequestContext, page: { limit?: number; offset?: number } = {}) {
    const limit = page.limit ?? 50;
    const offset = page.offset ?? 0;
    const rows = await repo.listBatches(this.p.database.db, ownerOf(ctx), { limit: limit + 1, offset });
    return { batches: rows.slice(0, limit).map((r) => presentBatch(r, r.counts)), next_offset: rows.length > limit ? offset + limit : null };
  }

  async resultsCsv(ctx: RequestContext, id: string): Promise<{ filename: string; body: string }> {
    const b = await this.#batch(ctx, id);
    const lines = await repo.linesOf(this.p.database.db, b.id);
    const out = ['LINE,STATUS,ORDER_UUID,AMOUNT,OUTCOME,ERROR'];
    for (const l of lines) {
      const p = presentLine(l);
      out.push([p.line, p.status, p.order_uuid, p.amount, p.outcome, p.error].map(csvField).join(','));
    }
    return { filename: `${b.filename.replace(/\.csv$/i, '').replace(/[^A-Za-z0-9._-]/g, '_')}-results.csv`, body: `${out.join('\r\n')}\r\n` };
  }

  // ---- working the lines -------------------------------------------------------------------------------

  registerJobs(): void {
    this.p.jobs.register<{ id: string }>(BATCH_QUEUE, (job) => this.#work(job), { backoffMs: (n) => Math.min(600_000, 5000 * 2 ** n) });
  }

  /** For tests and the CLI: works every due line now. */
  drain(): Promise<number> {
    return this.p.jobs.drain({ queues: [BATCH_QUEUE] });
  }

  /**
   * Works one line: claims it (one statement), makes its payment or refund through the payments module,
   * records the outcome (one statement; a line worked again finds the same order, so it records the
   * same outcome) and, when no line is left open, completes the file (one guarded statement; the last
   * line to finish sees all of them finished).
   */
  async #work(job: Job<{ id: string }>): Promise<void | Reschedule> {
    const db = this.p.database.db;
    const claimed = await repo.claimLine(db, job.payload.id, lineMoves('CLAIM'), this.p.clock.now());
    if (!claimed) return;
    if (claimed.batch_status === 'SCHEDULED') {
      const start = batchMoves('START');
      await repo.moveBatch(db, claimed.batch_id, start.from, start.to);
    }
    const ctx = await this.deps.merchants.contextForKey(claimed.key_id);
    let result: { outcome: 'SUCCEEDED' | 'FAILED'; text: string; error: string | null } | { retryAt: Date };
    try {
      result = claimed.kind === 'AUTHORIZATION' ? await this.#charge(ctx, claimed) : await this.#refund(ctx, claimed);
    } catch (err) {
      if (job.attempts < job.maxAttempts) throw err;
      result = { outcome: 'FAILED', text: 'ERROR', error: String((err as ApiError).details ?? (err as Error).message).slice(0, 500) };
    }
    if ('retryAt' in result) return result;
    const event = result.outcome === 'SUCCEEDED' ? 'SUCCEED' : 'FAIL';
    const next = lineTransition(claimed.status, event)!;
    await repo.updateLine(db, claimed.id, { status: next, outcome: result.text, error: result.error, updated_at: ctx.clock.now() });
    const done = batchMoves('ALL_DONE');
    // finished on the merchant's clock, as the file's other times
    await repo.completeIfDone(db, claimed.batch_id, done.from, done.to, ctx.clock.now());
  }

  /** H1 line: its order (created once, by its uuid) paid once with the stored card, merchant-initiated. */
  async #charge(ctx: RequestContext, l: repo.LineRow) {
    const d = l.data as unknown as AuthLine;
    const created = await this.deps.payments.create(
      ctx,
      {
        amount: d.amount,
        operative: d.operative,
        secure: false,
        description: d.description ?? `Batch payment, line ${l.line}`,
        customer_ext_id: d.customer,
        service: d.service,
        additional: d.additional,
        url_post: d.url_post,
      },
      { orderId: l.order_id },
    );
    let order = created.order;
    // a line worked again finds the transaction it made: the card is never charged twice. A payment that
    // failed on our side (ERROR: the processor was not reached, or a crash cut it short and the processor
    // has no record of it) did not charge the card: the line pays the same order again, a few times.
    if (order.transactions.length === 0 || retryable(order)) {
      order = (await this.deps.payments.pay(ctx, l.order_id, { channel: 'MIT', mit: 'UNSCHEDULED', card: { kind: 'source', sourceUuid: d.card } })).order;
    }
    return outcomeOf(order, this.p.clock.now(), this.#pendingRetryMs());
  }

  /** A payment PENDING at the processor is looked at again once the reconciler has had time to settle it. */
  #pendingRetryMs(): number {
    return Math.min(60_000, this.p.config.reconcileAfterMs + this.p.config.sweepEveryMs);
  }

  /** H2 line: one refund, even when the line is worked again after a crash. */
  async #refund(ctx: RequestContext, l: repo.LineRow) {
    const d = l.data as unknown as RefundLine;
    const before = await this.deps.payments.getOrder(ctx, d.order);
    const refunds = refundTxs(before.order);
    if (l.refunds_before === null) {
      await repo.updateLine(this.p.database.db, l.id, { refunds_before: refunds.length, updated_at: ctx.clock.now() });
    } else if (refunds.length > l.refunds_before) {
      // the refund was asked for before the crash: its transaction says how it went
      const tx = refunds[refunds.length - 1];
      if (tx.status === 'PENDING') return { retryAt: new Date(this.p.clock.now().getTime() + this.#pendingRetryMs()) };
      return tx.status === 'SUCCESS' ? { outcome: 'SUCCEEDED' as const, text: `REFUNDED ${tx.amount}`, error: null } : { outcome: 'FAILED' as const, text: tx.status, error: tx.error };
    }
    try {
      const r = await this.deps.payments.refund(ctx, { order_uuid: d.order, amount: d.amount });
      if (r.failed) return { outcome: 'FAILED' as const, text: 'REFUSED', error: r.failed };
      const tx = refundTxs(r.order).at(-1);
      return { outcome: 'SUCCEEDED' as const, text: `REFUNDED ${tx?.amount ?? d.amount ?? ''}`.trim(), error: null };
    } catch (err) {
      if (err instanceof ApiError && err.status === 429) return { retryAt: new Date(this.p.clock.now().getTime() + (err.retryAfter ?? 60) * 1000) };
      // the order changed since the file was checked (refunded meanwhile, over the remainder, ...)
      if (err instanceof ApiError && err.status < 500) return { outcome: 'FAILED' as const, text: `REJECTED ${err.status}`, error: err.details };
      throw err;
    }
  }
}

function refundTxs(o: PresentedOrder) {
  return o.transactions.filter((t) => t.operative === 'REFUND');
}

/** Payments of a line that failed on our side are made again on the same order up to this many times. */
const ERROR_RETRIES = 3;

function retryable(order: PresentedOrder): boolean {
  const txs = order.transactions.filter((t) => t.operative !== 'REFUND');
  return !order.paid && order.status === 'ERROR' && txs.at(-1)?.status === 'ERROR' && txs.length < ERROR_RETRIES;
}

function outcomeOf(order: PresentedOrder, now: Date, pendingRetryMs: number): { outcome: 'SUCCEEDED' | 'FAILED'; text: string; error: string | null } | { retryAt: Date } {
  const tx = order.transactions.filter((t) => t.operative !== 'REFUND').at(-1) ?? null;
  if (DONE_ORDER.has(order.status)) return { outcome: 'SUCCEEDED', text: order.status, error: null };
  if (FAILED_ORDER.has(order.status)) return { outcome: 'FAILED', text: order.status, error: tx?.error ?? null };
  // not settled yet (the processor's answer is pending): the line is looked at again later
  return { retryAt: new Date(now.getTime() + pendingRetryMs) };
}

export function presentBatch(b: repo.BatchRow, counts: Record<LineStatus, number>) {
  const total = b.line_count;
  const done = counts.SUCCEEDED + counts.FAILED;
  return {
    uuid: b.id,
    type: b.kind,
    filename: b.filename,
    status: b.status,
    execute_at: new Date(b.execute_at).toISOString(),
    created_at: new Date(b.created_at).toISOString(),
    finished_at: b.finished_at ? new Date(b.finished_at).toISOString() : null,
    total,
    pending: counts.PENDING + counts.RUNNING,
    succeeded: counts.SUCCEEDED,
    failed: counts.FAILED,
    progress: total === 0 ? 100 : Math.floor((done * 100) / total),
  };
}

export function presentLine(l: repo.LineRow) {
  const d = l.data as { amount?: number | null };
  return {
    line: l.line,
    status: l.status,
    order_uuid: l.order_id,
    amount: d.amount ?? null,
    outcome: l.outcome,
    error: l.error,
  };
}
