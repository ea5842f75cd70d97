/**
 * The optimistic path of a card payment with a stored card: the order read without a lock, step 1
 * written in one statement that locks the order and writes only if it is still the version that was
 * read (money/write-optimistic.ts, fast.repo.ts), the settle planned by money/plan-settle.ts and
 * written the same way (money/run.ts). A payment is then 3 round trips (read the order with its card,
 * start, settle), with or without a notification (written by the settling statement).
 *
 * Step 1 of a payment is not planned by a shared plan function yet: its checks here restate those of
 * pay.ts's startPayment for the cases this path takes. Whatever it does not cover goes the ordinary way,
 * with no write done: a step whose checks fail (the ordinary path gives the error), an expired order,
 * 3-D Secure, card data in the request, a risk evaluation that needs the database (security lists
 * linked or antifraud on), and any race (the order changed between the read and the write). It returns
 * null when the caller must take the ordinary path.
 */
import { randomUUID } from 'node:crypto';
import type { RequestContext } from '../../../platform/http/types.js';
import type { PaymentRequest } from '../../../processors/index.js';
import { presentSource, sourceFromJson } from '../../sources/index.js';
import { canOrder, orderTransition } from '../order-states.js';
import { NO_RETRY_STATE, paymentOperation, type Operative } from '../payments.domain.js';
import * as fast from '../fast.repo.js';
import type * as repo from '../payments.repo.js';
import type { Executor } from '../../../platform/db/database.js';
import type { OrderResult, PayInput, PaymentsCore, RiskCheck, RiskVerdict } from '../core.js';
import { exemptionRecord } from './input.js';
import { callAndSettleOptimistic } from '../money/run.js';
import { alone, startStep, type StartedStep } from '../money/write-optimistic.js';
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
  // the settle planned by plan-settle.ts from the order as step 1 left it (safe: no 3-D Secure here)
  const tx = { id: txId, status: 'PENDING' as const, awaiting_3ds: false, operative: txOperative, amount: Number(o.amount), source_id: loaded.sourceId };
  return callAndSettleOptimistic(core, afterStart, step1, tx, NO_RETRY_STATE, { op, connector, request }, { safe: false });
}
