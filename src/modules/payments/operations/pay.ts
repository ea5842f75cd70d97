/**
 * Card payments: B10 (stored card), B11 (MoTo), B3 (single step), the hosted page (by token) and the
 * merchant-initiated payments other modules make (`pay`). Step 1 (`startPayment`) runs in the
 * transaction that locks the order: checks, the card, a PENDING transaction, the order's next status.
 */
import { randomUUID } from 'node:crypto';
import { IdempotencyStore } from '../../../platform/http/idempotency.js';
import type { Tx } from '../../../platform/db/database.js';
import { badRequest, conflict, notFound } from '../../../platform/errors/errors.js';
import type { RequestContext } from '../../../platform/http/types.js';
import type { Secret } from '../../../platform/security/secret.js';
import { presentSource } from '../../sources/index.js';
import * as repo from '../payments.repo.js';
import { guardPayment, planPayment, riskCheckOf, routingFactsOf, type PaymentCard } from '../money/plan-payment.js';
import { writePaymentLocked } from '../money/write-locked.js';
import type { NewOrder, OrderResult, PayInput, PaymentsCore, PresentedOrder, Started } from '../core.js';
import { assertProcessable, checkOutgoingUrls, insertOrder, resolveService } from './create-order.js';
import { checkOrderInput, externalThreeds, walletSource } from './input.js';
import { fastPay } from './fast.js';
import { dccOf } from './dcc.js';
import { finishStarted } from './finish.js';

export interface DirectInput {
  order_uuid: string;
  card_uuid?: string | null;
  source_uuid?: string | null;
  customer_ip?: string | null;
}

export interface MotoInput {
  order_uuid: string;
  method: 'MAIL' | 'PHONE';
  card_holder?: string;
  card_pan?: Secret<string>;
  card_expiry_month?: string | number;
  card_expiry_year?: string | number;
  card_cvv?: Secret<string> | null;
  card_additional?: string | null;
  source_uuid?: string | null;
  card_uuid?: string | null;
}

export type SingleStepInput = NewOrder & {
  card_holder: string;
  card_pan: Secret<string>;
  card_expiry_month: string | number;
  card_expiry_year: string | number;
  card_cvv?: Secret<string> | null;
  card_additional?: string | null;
  threeds_data?: { version?: number | string; trans_status?: string; eci?: number | string; cavv?: string; ds_trans_id?: string } | null;
  dpan_data?: { cryptogram: string; eci?: number | string | null } | null;
};

function requirePci(ctx: RequestContext, what: string): void {
  if (!ctx.merchant.isPci) throw badRequest(`${what} with card data is only available to PCI-compliant merchants (is_pci)`);
}

/** Pays an order of the caller with `build(order)` (B10, B11, and `pay` of the public interface). */
export async function payOwned(
  core: PaymentsCore,
  ctx: RequestContext,
  orderId: string,
  build: (o: repo.LockedOrder) => PayInput,
  opts: { fast?: boolean; card?: string | null } = {},
): Promise<OrderResult> {
  // `fast: false`: the caller knows the fast path cannot take it (card data in the request): no read for nothing.
  // `card`: the stored card the request names (the fast path reads it with the order), null: the order's own
  const quick = opts.fast === false ? null : await fastPay(core, ctx, orderId, build, opts.card ?? null);
  if (quick) return quick;
  const started = await core.db.transaction(async (trx) => {
    const o = await core.lockOwned(trx, ctx, orderId);
    const s = await startPayment(core, trx, o, build(o));
    // the request's key is never run again once this commits (its answer may be lost after the call)
    await IdempotencyStore.commit(trx, ctx, o.id);
    return s;
  });
  return finishStarted(core, started);
}

/** B10: WebService payment with a stored card (card_uuid, or the order's source_uuid). */
export function payDirect(core: PaymentsCore, ctx: RequestContext, input: DirectInput): Promise<OrderResult> {
  return payOwned(core, ctx, input.order_uuid, (o) => {
    const sourceUuid = input.card_uuid ?? input.source_uuid ?? o.source_id;
    if (!sourceUuid) throw badRequest('card_uuid is required (the order has no source_uuid)');
    return { channel: 'ECOMMERCE', card: { kind: 'source', sourceUuid }, customerIp: input.customer_ip ?? null };
  }, { card: input.card_uuid ?? input.source_uuid ?? null });
}

/** B11: MoTo payment (PCI merchants), with card data or a stored card; exempt from SCA. */
export function payMoto(core: PaymentsCore, ctx: RequestContext, input: MotoInput): Promise<OrderResult> {
  requirePci(ctx, 'MoTo payment');
  const sourceUuid = input.source_uuid ?? input.card_uuid ?? null;
  const hasCard = input.card_pan !== undefined;
  if (!hasCard && !sourceUuid) throw badRequest('either the card fields (card_holder, card_pan, card_expiry_month, card_expiry_year) or source_uuid is required');
  if (hasCard && sourceUuid) throw badRequest('give either the card fields or source_uuid, not both');
  if (hasCard) {
    for (const f of ['card_holder', 'card_expiry_month', 'card_expiry_year'] as const) {
      if (input[f] === undefined || input[f] === null) throw badRequest(`${f} is required with card_pan`);
    }
  }
  return payOwned(core, ctx, input.order_uuid, (o) => ({
    channel: 'MOTO',
    card: hasCard
      ? {
          kind: 'card',
          holder: input.card_holder!,
          pan: input.card_pan!,
          expMonth: input.card_expiry_month!,
          expYear: input.card_expiry_year!,
          additional: input.card_additional ?? null,
          origin: 'MOTO',
          store: o.customer_ext_id !== null,
        }
      : { kind: 'source', sourceUuid: sourceUuid! },
    cvv: input.card_cvv ?? null,
  }), { fast: !hasCard, card: sourceUuid });
}

/** B3: creates the order, stores the card and pays, in one request (PCI merchants). */
export async function paySingleStep(core: PaymentsCore, ctx: RequestContext, input: SingleStepInput): Promise<OrderResult> {
  requirePci(ctx, 'Single-step payment');
  checkOrderInput(input);
  if (input.customer_ext_id === undefined || input.customer_ext_id === null || input.customer_ext_id === '') throw badRequest('customer_ext_id is required');
  await checkOutgoingUrls(core, ctx.env, input);
  const service = await resolveService(core, ctx, input);
  assertProcessable(core, ctx.env, service.type);
  const threeds = input.threeds_data ? externalThreeds(input.threeds_data) : null;
  const dpan = input.dpan_data ? { cryptogram: input.dpan_data.cryptogram, eci: input.dpan_data.eci == null ? null : String(input.dpan_data.eci) } : null;
  const pay: PayInput = {
    channel: 'ECOMMERCE',
    card: {
      kind: 'card',
      holder: input.card_holder,
      pan: input.card_pan,
      expMonth: input.card_expiry_month,
      expYear: input.card_expiry_year,
      additional: input.card_additional ?? null,
      origin: 'SINGLE_STEP',
      store: true,
    },
    cvv: input.card_cvv ?? null,
    customerIp: input.customer_ip ?? null,
    threeds,
    dpan,
  };
  const started = await core.db.transaction(async (trx) => {
    const inserted = await insertOrder(core, trx, ctx, input, service, null);
    const merchant = await core.deps.merchants.findMerchant(trx, ctx.merchant.id);
    const o: repo.LockedOrder = { ...inserted, m_resend: merchant?.resend_failed_notifications ?? false, m_autorecover: merchant?.autorecover_transactions ?? false };
    const s = await startPayment(core, trx, o, pay);
    // the order, its PENDING transaction and the key commit together: a retry whose answer was lost
    // after the processor was called is never charged again (it meets 409 and reads the order)
    await IdempotencyStore.commit(trx, ctx, o.id);
    return s;
  });
  return finishStarted(core, started);
}

/**
 * Pays an order by its token (the hosted payment page): with card data the customer typed, or a
 * stored card. Secure orders answer with the 3DS URL (`redirect`); the page then calls
 * `completeAfter3ds`.
 */
export async function payByToken(core: PaymentsCore, token: string, input: PayInput): Promise<OrderResult> {
  const started = await core.db.transaction(async (trx) => {
    const o = await repo.lockOrderByToken(trx, token);
    if (!o) throw notFound('The order was not found');
    return startPayment(core, trx, o, input);
  });
  return finishStarted(core, started);
}

/** The order behind a payment-page token (for the pages), presented. */
export async function orderByToken(core: PaymentsCore, token: string): Promise<{ order: PresentedOrder; row: repo.LockedOrder } | null> {
  const db = core.db.db;
  const o = await repo.findOrderByToken(db, token);
  if (!o) return null;
  return { order: core.present(o, await repo.transactionsOf(db, o.id)), row: o };
}

/**
 * Step 1 of a card payment, in the transaction that locks the order: the guards, the order's expiry,
 * the card (read, or checked and stored), the risk verdict, then the plan (money/plan-payment.ts)
 * written by the locked writer.
 */
export async function startPayment(core: PaymentsCore, trx: Tx, o: repo.LockedOrder, input: PayInput): Promise<Started> {
  const now = core.now(o);
  const expired = await core.expiredOnTheSpot(trx, o, now);
  if (expired) return expired;
  const guard = guardPayment(o, input);
  if ('error' in guard) throw guard.error;
  const waitTx = guard.waitsForDevice ? await repo.deviceWaitTransaction(trx, o.id) : null;
  if (guard.waitsForDevice && !waitTx) throw conflict('A payment of this order is in progress');
  if (input.claim) await input.claim(trx, { id: o.id, merchantId: o.merchant_id, env: o.env });
  const owner = { merchantId: o.merchant_id, env: o.env };
  const dcc = dccOf(input, o);

  let card: PaymentCard;
  let fingerprint: string;
  let cardCountry: string | null = null;
  const spec = input.card;
  if (spec.kind === 'source') {
    // any stored card of the merchant pays (another merchant's is not found): one-click plugins list a
    // shop user's cards and name the customer of the order differently (decisions "Existing clients")
    const loaded = await core.deps.sources.loadCardForPayment(trx, owner, spec.sourceUuid);
    card = {
      data: { pan: loaded.pan, expiryMonth: loaded.expMonth, expiryYear: loaded.expYear, cvv: input.cvv ?? null, holder: loaded.holder },
      sourceId: loaded.sourceId,
      sourceJson: JSON.stringify(presentSource(loaded.row)),
      saved: loaded.row.is_saved ? { firstPaidAt: loaded.row.first_paid_at } : null,
    };
    fingerprint = loaded.fingerprint;
    cardCountry = loaded.row.country || null;
  } else {
    const checked = core.deps.sources.checkCard({ holder: spec.holder, pan: spec.pan, expMonth: spec.expMonth, expYear: spec.expYear, at: now });
    card = {
      data: { pan: checked.card.pan, expiryMonth: checked.expMonth, expiryYear: checked.expYear, cvv: input.cvv ?? null, holder: checked.holder },
      sourceId: null,
      sourceJson: null,
      saved: null,
    };
    fingerprint = core.p.vault.fingerprint('pan', checked.card.pan.reveal());
    if (spec.store && o.customer_ext_id !== null) {
      const row = await core.deps.sources.storeCard(trx, owner, {
        customerExtId: o.customer_ext_id,
        holder: spec.holder,
        pan: spec.pan,
        expMonth: spec.expMonth,
        expYear: spec.expYear,
        additional: spec.additional ?? null,
        origin: spec.origin,
        isSaved: o.save_card,
        at: now,
      });
      card.sourceId = row.id;
      card.sourceJson = JSON.stringify(presentSource(row));
      if (row.is_saved) card.saved = { firstPaidAt: row.first_paid_at };
    }
    if (input.wallet) card.sourceJson = JSON.stringify(walletSource(input.wallet));
  }

  // security lists and antifraud, before anything is decided (deps.risk: see RiskEvaluator in core.ts)
  const risk = core.deps.risk
    ? await core.deps.risk.evaluate(trx, riskCheckOf(o, input, { pan: card.data.pan.reveal(), fingerprint, country: cardCountry, sourceId: card.sourceId }, now))
    : null;
  // routing (the service's profile): which services try the payment, in order; a device's card is read
  // for its own terminal
  const route = core.deps.routing && input.channel !== 'CARD_PRESENT' && !waitTx
    ? await core.deps.routing.route(routingFactsOf(o, input, card.data.pan.reveal()), trx)
    : null;
  const plan = planPayment({ o, input, guard, waitTx: waitTx ?? null, card, risk, dcc, txId: randomUUID(), now, realNow: core.p.clock.now(), publicUrl: core.p.config.publicUrl, route });
  if ('error' in plan) throw plan.error;
  const connector = core.deps.processors.forService(route?.attempts[0]?.serviceType ?? o.service_type, o.env);
  return writePaymentLocked(core, trx, o, plan, connector);
}
