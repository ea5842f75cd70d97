/**
 * The optimistic path of a card payment with a stored card: the order read without a lock, step 1
 * planned by the same function as the ordinary path's (money/plan-payment.ts) and written in one
 * statement that locks the order and writes only if it is still the version that was read
 * (money/write-optimistic.ts, fast.repo.ts), the settle planned by money/plan-settle.ts and written the
 * same way (money/run.ts). A payment is then 3 round trips (read the order with its card, start,
 * settle), with or without a notification (written by the settling statement).
 *
 * Whatever the optimistic writer does not take goes the ordinary way, with no write done: a step whose
 * guards fail (the ordinary path gives the error), an expired order, card data in the request, a plan
 * other than a plain call (3-D Secure, a refusal by risk, a conversion, a claim, a wallet, a device),
 * and any race (the order changed between the read and the write). It returns null when the caller
 * must take the ordinary path.
 */
import { randomUUID } from 'node:crypto';
import type { RequestContext } from '../../../platform/http/types.js';
import { presentSource, sourceFromJson } from '../../sources/index.js';
import { NO_RETRY_STATE } from '../payments.domain.js';
import * as fast from '../fast.repo.js';
import type * as repo from '../payments.repo.js';
import type { OrderResult, PayInput, PaymentsCore, RiskVerdict } from '../core.js';
import { callAndSettleOptimistic } from '../money/run.js';
import { guardPayment, optimisticTakes, planPayment, riskCheckOf, routingFactsOf, type PaymentCard, type PaymentPlan } from '../money/plan-payment.js';
import { alone, writePaymentOptimistic, type StartedStep } from '../money/write-optimistic.js';
import { dccOf } from './dcc.js';
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
  // the order's expiry writes: the ordinary path expires it
  if (core.isDue(o, now)) return null;
  const input = attempt(() => build(o));
  // only a stored card (card data is checked and stored by the ordinary path), and no device
  if (!input || input.card.kind !== 'source' || input.channel === 'CARD_PRESENT') return null;
  const guard = guardPayment(o, input);
  if ('error' in guard || guard.waitsForDevice) return null;
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
  const dcc = attempt(() => dccOf(input, o));
  if (!dcc) return null;
  // a routed payment (its service has a routing profile) is written by the ordinary path
  if (core.deps.routing) {
    const route = await core.deps.routing.route(routingFactsOf(o, input, loaded.pan.reveal())).catch(() => 'not known' as const);
    if (route !== null) return null;
  }
  const paying: PaymentCard = {
    data: { pan: loaded.pan, expiryMonth: loaded.expMonth, expiryYear: loaded.expYear, cvv: input.cvv ?? null, holder: loaded.holder },
    sourceId: loaded.sourceId,
    sourceJson: JSON.stringify(presentSource(loaded.row)),
    saved: loaded.row.is_saved ? { firstPaidAt: loaded.row.first_paid_at } : null,
  };

  const check = riskCheckOf(o, input, { pan: loaded.pan.reveal(), fingerprint: loaded.fingerprint, country: loaded.row.country || null, sourceId: loaded.sourceId }, now);
  const txId = randomUUID();
  const realNow = core.p.clock.now();
  // the same plan as the ordinary path's (money/plan-payment.ts), when this writer takes it
  const planWith = (risk: RiskVerdict | null) => {
    const plan = planPayment({ o, input, guard, waitTx: null, card: paying, risk, dcc, txId, now, realNow, publicUrl: core.p.config.publicUrl });
    return !('error' in plan) && optimisticTakes(plan, o, input) ? plan : null;
  };
  const key = { idempotencyKey: ctx.idempotencyKey ?? null, idempotencyAttempt: ctx.idempotencyAttempt ?? null };
  let plan: Extract<PaymentPlan, { kind: 'call' }> | null;
  let step1: StartedStep | null;
  const quick = risk ? risk.quickVerdict!(check) : null;
  if (!risk || quick) {
    // one statement: the risk verdict needed no database
    if (quick && quick.action !== 'PROCEED') return null;
    plan = planWith(quick);
    if (!plan) return null;
    step1 = await writePaymentOptimistic(db, o, read.version, plan, key);
  } else {
    // risk reads and records (velocity, cards seen) in the transaction that starts the payment; a
    // verdict other than PROCEED, or a race, rolls it all back and the ordinary path decides again
    plan = null;
    step1 = await core.db
      .transaction(async (trx) => {
        const verdict = await risk.evaluate(trx, check);
        if (verdict.action !== 'PROCEED') throw FALLBACK;
        plan = planWith(verdict);
        const v = plan ? await writePaymentOptimistic(trx, o, read.version, plan, key) : null;
        if (v === null) throw FALLBACK;
        return v;
      })
      .catch((err) => {
        if (err === FALLBACK) return null;
        throw err;
      });
  }
  if (step1 === null || plan === null) return null;
  const p: Extract<PaymentPlan, { kind: 'call' }> = plan;
  // the settle planned by plan-settle.ts from the order as step 1 left it (safe: no 3-D Secure here)
  const tx = { id: p.txId, status: 'PENDING' as const, awaiting_3ds: false, operative: p.txOperative, amount: Number(o.amount), source_id: p.tx.source_id };
  return callAndSettleOptimistic(core, p.after, step1, tx, NO_RETRY_STATE, { op: p.op, connector, request: p.request }, { safe: false });
}
