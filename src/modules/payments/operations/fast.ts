/**
 * The fast path of the money steps: the same decisions as the ordinary path (pay.ts, follow-up.ts,
 * settle.ts), taken on an order read without a lock, then written in one statement per step that locks
 * the order and writes only if it is still the version that was read (fast.repo.ts). A payment is then
 * 3 round trips (read the order with its card, start, settle), a refund 3, with or without a
 * notification (written by the settling statement).
 *
 * Whatever the fast path does not cover goes the ordinary way, with no write done: a step whose checks
 * fail (the ordinary path gives the error), an expired order, 3-D Secure, card data in the request, a
 * risk evaluation that needs the database (security lists linked or antifraud on), a declined or
 * failed processor answer (settled by the ordinary settle), and any race (the order changed between
 * the read and the write). The functions return null when the caller must take the ordinary path.
 */
import { randomUUID } from 'node:crypto';
import type { RequestContext } from '../../../platform/http/types.js';
import type { Connector, FollowUpRequest, PaymentRequest, ProcessorOperation, ProcessorResult } from '../../../processors/index.js';
import { presentSource, sourceFromJson } from '../../sources/index.js';
import { canOrder, orderTransition, txTransition, type OrderEvent } from '../order-states.js';
import { paymentOperation, refundEventFor, retryWaitSeconds, type Operative, type RetryOperation, type TxOperative } from '../payments.domain.js';
import * as fast from '../fast.repo.js';
import type * as repo from '../payments.repo.js';
import type { Executor } from '../../../platform/db/database.js';
import type { OrderResult, PayInput, PaymentsCore, PresentedOrder, RiskCheck, RiskVerdict } from '../core.js';
import { exemptionRecord } from './input.js';
import { settle } from './settle.js';
import { callProcessor } from '../money/run.js';
import { isUuid } from '../../../platform/ids.js';

/** Thrown inside a fast-path transaction to roll it back and take the ordinary path. */
const FALLBACK = Symbol('fallback');

function attempt<T>(fn: () => T): T | null {
  try {
    return fn();
  } catch {
    return null;
  }
}

async function attemptAsync<T>(fn: () => Promise<T>): Promise<T | null> {
  try {
    return await fn();
  } catch {
    return null;
  }
}

function withoutVersion<T extends { version: string }>(o: T): Omit<T, 'version'> {
  const { version: _v, ...rest } = o;
  return rest;
}

/** A card payment of an order of the caller with a stored card (B10, B11 with a source, MIT charges). */
/**
 * Orders with a fast step in flight in this process: a second step on the same order at the same time
 * would only lose the race for the order's version, so it takes the ordinary path (which waits for the
 * row lock) straight away.
 */
const inFlight = new Set<string>();

async function alone(orderId: string, fn: () => Promise<OrderResult | null>): Promise<OrderResult | null> {
  const key = String(orderId).toLowerCase();
  if (inFlight.has(key)) return null;
  inFlight.add(key);
  try {
    return await fn();
  } finally {
    inFlight.delete(key);
  }
}

/**
 * `card`: the stored card the request names (read with the order, in the same round trip), or null
 * when it names none (the order's own source is read instead).
 */
export function fastPay(
  core: PaymentsCore,
  ctx: RequestContext,
  orderId: string,
  build: (o: repo.LockedOrder) => PayInput,
  card: string | null = null,
): Promise<OrderResult | null> {
  return alone(orderId, () => payFast(core, ctx, orderId, build, card));
}

async function payFast(
  core: PaymentsCore,
  ctx: RequestContext,
  orderId: string,
  build: (o: repo.LockedOrder) => PayInput,
  card: string | null,
): Promise<OrderResult | null> {
  const risk = core.deps.risk;
  if (risk && !risk.quickVerdict) return null;
  const db = core.db.db;
  const hint = card !== null && isUuid(String(card)) ? String(card).toLowerCase() : null;
  const read = await attemptAsync(() => fast.readOrder(db, orderId, ctx.merchant.id, hint));
  if (!read || read.env !== ctx.env) return null;
  const { card: cardJson, ...orderRead } = read;
  const o = withoutVersion(orderRead) as repo.LockedOrder;
  const now = core.now(o);
  if (core.isDue(o, now) || o.status === 'PENDING_PROCESSOR_RESPONSE' || !canOrder(o.status, 'PAYMENT_STARTED')) return null;
  if (o.operative === 'PAYOUT' || o.operative === 'TRANSFER') return null;
  const input = attempt(() => build(o));
  if (!input || input.card.kind !== 'source' || input.threeds || input.dpan || input.force3ds) return null;
  if (input.channel === 'ECOMMERCE' && o.secure) return null;
  const connector = attempt(() => core.deps.processors.forService(o.service_type, o.env));
  if (!connector) return null;
  const owner = { merchantId: o.merchant_id, env: o.env };
  const sourceUuid = input.card.sourceUuid;
  // the card read with the order when it is the one the payment uses, else read now
  const prefetched = cardJson && String(sourceUuid).toLowerCase() === cardJson.id ? sourceFromJson(cardJson, owner) : undefined;
  const loaded = prefetched
    ? attempt(() => core.deps.sources.openCard(prefetched))
    : await attemptAsync(() => core.deps.sources.loadCardForPayment(db, owner, sourceUuid));
  if (!loaded || (o.customer_ext_id !== null && loaded.customerExtId !== o.customer_ext_id)) return null;

  const pan = loaded.pan.reveal();
  const check: RiskCheck = {
    merchantId: o.merchant_id, env: o.env, serviceId: o.service_id, orderId: o.id, amount: Number(o.amount), currency: o.currency,
    channel: input.channel,
    card: { fingerprint: loaded.fingerprint, iin: pan.slice(0, 8), last4: pan.slice(-4), country: loaded.row.country || null, sourceId: loaded.sourceId },
    customerExtId: o.customer_ext_id, customerIp: input.customerIp ?? null, now,
  };
  const quickVerdict: RiskVerdict | null = risk ? risk.quickVerdict!(check) : { action: 'PROCEED', antifraud: null, exemption: null };
  if (quickVerdict && quickVerdict.action !== 'PROCEED') return null;

  const started = orderTransition(o.status, 'PAYMENT_STARTED');
  if (started.notify && o.url_post) return null;
  const { txOperative, op } = paymentOperation(o.operative as Operative);
  const txId = randomUUID();
  const threedsRecord = input.channel === 'MIT' ? exemptionRecord('MERCHANT_INITIATED') : undefined;
  const afterStart: repo.LockedOrder = {
    ...o,
    status: started.to,
    paid: started.paid ?? o.paid,
    source_id: loaded.sourceId,
    ip: input.customerIp ?? o.ip,
    ...(threedsRecord ? { threeds_data: threedsRecord } : {}),
    updated_at: now,
  };
  const start = (db: Executor, antifraud: unknown) =>
    startStep(
      db,
      o,
      read.version,
      {
        id: txId, merchantId: o.merchant_id, operative: txOperative, processorOperation: op, amount: Number(o.amount), sourceId: loaded.sourceId,
        sourceJson: JSON.stringify(presentSource(loaded.row)), customerIp: input.customerIp ?? null, antifraud, metadata: null, now,
        realNow: core.p.clock.now(), idempotencyKey: ctx.idempotencyKey ?? null, idempotencyAttempt: ctx.idempotencyAttempt ?? null,
      },
      { status: afterStart.status, paid: afterStart.paid, sourceId: afterStart.source_id, ip: afterStart.ip, threedsData: threedsRecord, reserve: 0, busy: false },
    );
  let step1: StartedStep | null;
  if (quickVerdict) {
    // one statement: the risk verdict needed no database
    step1 = await start(db, quickVerdict.antifraud);
  } else {
    // risk reads and records (velocity, cards seen) in the transaction that starts the payment; a
    // verdict other than PROCEED, or a race, rolls it all back and the ordinary path decides again
    step1 = await core.db
      .transaction(async (trx) => {
        const verdict = await risk!.evaluate(trx, check);
        if (verdict.action !== 'PROCEED') throw FALLBACK;
        const v = await start(trx, verdict.antifraud);
        if (v === null) throw FALLBACK;
        return v;
      })
      .catch((err) => {
        if (err === FALLBACK) return null;
        throw err;
      });
  }
  if (step1 === null) return null;

  const request: PaymentRequest = {
    reference: txId,
    terminal: { serviceType: o.service_type, terminalId: null, serviceId: o.service_id },
    now,
    amount: Number(o.amount),
    currency: o.currency,
    card: { pan: loaded.pan, expiryMonth: loaded.expMonth, expiryYear: loaded.expYear, cvv: input.cvv ?? null, holder: loaded.holder },
    threeds: null,
    dpan: null,
    channel: input.channel,
    customerIp: input.customerIp ?? null,
    cofTxnid: o.cof_txnid,
    dynamicDescriptor: o.dynamic_descriptor,
    // stored credentials (the fast path pays stored cards only): the first payment with a card kept with
    // the customer's consent is the credential's first use, later ones use it
    storeCredential: loaded.row.is_saved && loaded.row.first_paid_at === null,
    storedCard: loaded.row.is_saved && loaded.row.first_paid_at !== null,
    ...(input.channel === 'MIT' ? { mit: input.mit ?? 'UNSCHEDULED' } : {}),
  };
  const result = await callProcessor(connector, op, request);
  if (result.outcome !== 'APPROVED') return settle(core, o.id, txId, result, { safe: false });
  const deferred = txOperative === 'DEFERRED';
  return settleFast(core, afterStart, step1, txId, result, deferred ? 'DEFERRED_APPROVED' : 'PAYMENT_APPROVED', {
    txAmount: result.amount,
    authorized: result.amount,
    captured: deferred ? 0 : result.amount,
    safe: false,
    refunded: null,
    release: 0,
    clearBusy: false,
    sourceId: loaded.sourceId,
    serviceId: o.service_id,
    cofTxnid: result.cofTxnid ?? null,
  });
}

type Approved = Extract<ProcessorResult, { outcome: 'APPROVED' }>;

/**
 * Step 3 of an approved step in one statement (with the notification, when the transition sends one,
 * in the same transaction). Falls back to the ordinary settle when the order moved meanwhile.
 */
async function settleFast(
  core: PaymentsCore,
  o: repo.LockedOrder,
  started: StartedStep,
  txId: string,
  r: Approved,
  event: OrderEvent,
  set: Omit<fast.ApprovedSettle, 'txStatus' | 'authCode' | 'processorId' | 'orderStatus' | 'paid' | 'now'>,
): Promise<OrderResult> {
  const now = core.now(o);
  const t = orderTransition(o.status, event);
  const settled: fast.ApprovedSettle = {
    ...set,
    txStatus: txTransition('PENDING', 'APPROVED'),
    authCode: r.authorization,
    processorId: r.processorId,
    orderStatus: t.to,
    paid: t.paid ?? o.paid,
    now,
  };
  const next: repo.LockedOrder = {
    ...o,
    status: t.to,
    paid: settled.paid,
    ...(set.authorized !== null ? { authorized: set.authorized } : {}),
    ...(set.captured !== null ? { captured: set.captured } : {}),
    ...(set.safe !== null ? { safe: set.safe } : {}),
    ...(set.refunded !== null ? { refunded: set.refunded } : {}),
    refund_reserved: Number(o.refund_reserved) - set.release,
    ...(set.clearBusy ? { busy_tx_id: null } : {}),
    ...(set.cofTxnid ? { cof_txnid: set.cofTxnid } : {}),
    updated_at: now,
  };
  const notify = t.notify && !!o.url_post;
  let done: PresentedOrder | null = null;
  if (!notify) {
    const txs = await fast.settleApproved(core.db.db, o.id, started.version, txId, settled);
    done = txs ? core.present(next, txs) : null;
  } else if (started.txs) {
    // the answer (and the notification's order) from step 1's transactions with this one settled: the
    // statement writes only if the others are still as step 1 read them
    const presented = core.present(next, fast.predictSettled(started.txs, txId, settled));
    const written = await fast.settleApprovedNotifying(core.db.db, o.id, started.version, txId, started.others, settled, (when) =>
      core.notificationSql(next, presented, now, when),
    );
    if (written) {
      core.p.jobs.poke();
      done = presented;
    }
  }
  if (!done) return settle(core, o.id, txId, r, { safe: set.safe ?? undefined });
  return { order: done, merchantId: o.merchant_id, redirect: null, failed: null };
}

/** Step 1's result: the order's new version, and for an order with url_post what a notifying settle needs. */
type StartedStep = { version: string; txs: null; others: null } | fast.Started;

/** Step 1 (fast.startStep), reading back the order's transactions when its settle may notify (url_post). */
async function startStep(db: Executor, o: repo.LockedOrder, version: string, tx: fast.StartTx, set: fast.StartOrder): Promise<StartedStep | null> {
  if (o.url_post) return fast.startStepWithTxs(db, o.id, version, tx, set);
  const v = await fast.startStep(db, o.id, version, tx, set);
  return v === null ? null : { version: v, txs: null, others: null };
}

/** B8, B9, B12 on the fast path. `decide` gives the amount or throws (then the ordinary path answers). */
export function fastFollowUp(
  core: PaymentsCore,
  ctx: RequestContext,
  orderId: string,
  op: RetryOperation,
  decide: (o: repo.LockedOrder) => number,
  extra?: { extraData?: unknown },
): Promise<OrderResult | null> {
  return alone(orderId, () => followUpFast(core, ctx, orderId, op, decide, extra));
}

async function followUpFast(
  core: PaymentsCore,
  ctx: RequestContext,
  orderId: string,
  op: RetryOperation,
  decide: (o: repo.LockedOrder) => number,
  extra?: { extraData?: unknown },
): Promise<OrderResult | null> {
  const db = core.db.db;
  const read = await attemptAsync(() => fast.readOrderForFollowUp(db, orderId, ctx.merchant.id, op));
  if (!read || read.env !== ctx.env) return null;
  const { retry, payment: original, version, ...rest } = read;
  const o = rest as repo.LockedOrder;
  const now = core.now(o);
  const amount = attempt(() => decide({ ...o, retry, payment: original } as repo.FollowUpOrder));
  if (amount === null) return null;
  if (op !== 'REFUND' && o.busy_tx_id) return null;
  if (retryWaitSeconds(retry, now, o.m_timezone) > 0 || retry.failures > 0 || !original) return null;
  const connector: Connector | null = attempt(() => core.deps.processors.forService(o.service_type, o.env));
  if (!connector) return null;
  const txId = randomUUID();
  const processorOp: ProcessorOperation = op === 'REFUND' ? 'refund' : op === 'CONFIRMATION' ? 'capture' : 'cancel';
  const refund = op === 'REFUND';
  const step1 = await startStep(
    db,
    o,
    version,
    {
      id: txId, merchantId: o.merchant_id, operative: op as TxOperative, processorOperation: processorOp, amount, sourceId: original.source_id,
      sourceJson: original.source_json, customerIp: null, antifraud: null, metadata: extra?.extraData ? { extra_data: extra.extraData } : null, now,
      realNow: core.p.clock.now(), idempotencyKey: ctx.idempotencyKey ?? null, idempotencyAttempt: ctx.idempotencyAttempt ?? null,
    },
    { status: o.status, paid: o.paid, sourceId: o.source_id, ip: o.ip, reserve: refund ? amount : 0, busy: !refund },
  );
  if (step1 === null) return null;
  const afterStart: repo.LockedOrder = refund
    ? { ...o, refund_reserved: Number(o.refund_reserved) + amount, updated_at: now }
    : { ...o, busy_tx_id: txId, updated_at: now };
  const request: FollowUpRequest = {
    reference: txId, terminal: { serviceType: o.service_type, terminalId: null, serviceId: o.service_id }, now, amount, currency: o.currency,
    original: { reference: original.id, processorId: original.processor_id, authorization: original.auth_code },
  };
  const result = await callProcessor(connector, processorOp, request);
  if (result.outcome !== 'APPROVED') return settle(core, o.id, txId, result);
  const base = { txAmount: null, authorized: null, safe: null, sourceId: null, serviceId: null } as const;
  if (refund) {
    const refunded = Number(o.refunded) + amount;
    return settleFast(core, afterStart, step1, txId, result, refundEventFor({ captured: Number(o.captured) }, refunded), {
      ...base, captured: null, refunded, release: amount, clearBusy: false,
    });
  }
  return settleFast(core, afterStart, step1, txId, result, op === 'CONFIRMATION' ? 'CONFIRMED' : 'CANCELLED', {
    ...base, captured: op === 'CONFIRMATION' ? amount : null, refunded: null, release: 0, clearBusy: true,
  });
}
