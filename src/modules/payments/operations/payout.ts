/**
 * B15: credit funds to a stored card (source_uuid, or the customer's last card with a successful payment),
 * or with an APM that supports payouts (payout-apm.ts).
 */
import { randomUUID } from 'node:crypto';
import type { Tx } from '../../../platform/db/database.js';
import { badRequest, conflict } from '../../../platform/errors/errors.js';
import { IdempotencyStore } from '../../../platform/http/idempotency.js';
import type { RequestContext } from '../../../platform/http/types.js';
import { presentSource } from '../../sources/index.js';
import { canOrder } from '../order-states.js';
import { paymentOperation } from '../payments.domain.js';
import * as repo from '../payments.repo.js';
import type { OrderResult, PaymentsCore, Started } from '../core.js';
import { finishStarted } from './settle.js';
import { payoutApm, payoutWay } from './payout-apm.js';

export interface PayoutInput {
  order_uuid: string;
  source_uuid?: string | null;
  card_uuid?: string | null;
  customer_ip?: string | null;
  /** An APM that supports payouts (payout-apm.ts); required when the service has more than one way. */
  apm?: string | null;
  /** Payouts with a push APM (BIZUM, MBWAY): the phone of the receiving account. */
  phone?: string | null;
}

/**
 * Step 1 of every payout (to a card or with an APM): the caller's order, locked, expired on the spot
 * when its time has come (the Started to answer with), else checked to be a PAYOUT or TRANSFER order
 * that can be paid out now.
 */
export async function lockForPayout(core: PaymentsCore, trx: Tx, ctx: RequestContext, orderUuid: string): Promise<Started | { o: repo.LockedOrder; now: Date }> {
  const o = await core.lockOwned(trx, ctx, orderUuid);
  const now = core.now(o);
  const expired = await core.expiredOnTheSpot(trx, o, now);
  if (expired) return expired;
  if (o.operative !== 'PAYOUT' && o.operative !== 'TRANSFER') throw badRequest(`Only PAYOUT and TRANSFER orders are paid out; this order is ${o.operative}`);
  if (o.status === 'PENDING_PROCESSOR_RESPONSE') throw conflict('A payout of this order is in progress');
  if (!canOrder(o.status, 'PAYMENT_STARTED')) throw badRequest(`The order is ${o.status} and cannot be paid out`);
  return { o, now };
}

export async function payout(core: PaymentsCore, ctx: RequestContext, input: PayoutInput): Promise<OrderResult> {
  const way = await payoutWay(core, ctx, input);
  if (way.kind === 'apm') return payoutApm(core, ctx, input, way.apm);
  const started = await core.db.transaction(async (trx): Promise<Started> => {
    const locked = await lockForPayout(core, trx, ctx, input.order_uuid);
    if ('kind' in locked) return locked;
    const { o, now } = locked;
    const connector = core.deps.processors.forService(o.service_type, o.env);
    const owner = { merchantId: o.merchant_id, env: o.env };
    const sourceUuid = input.source_uuid ?? input.card_uuid ?? o.source_id;
    let card;
    if (sourceUuid) {
      card = await core.deps.sources.loadCardForPayment(trx, owner, sourceUuid);
      if (card.row.first_paid_at === null) throw badRequest('A payout needs a card with at least one earlier successful payment');
    } else {
      if (!o.customer_ext_id) throw badRequest('source_uuid is required (the order has no customer)');
      card = await core.deps.sources.lastSuccessfullyUsedCard(trx, owner, o.customer_ext_id);
      if (!card) throw badRequest(`The customer ${o.customer_ext_id} has no card with a successful payment`);
    }
    const txId = randomUUID();
    const { txOperative, op } = paymentOperation(o.operative);
    await repo.insertTransaction(trx, {
      id: txId, order_id: o.id, merchant_id: o.merchant_id, operative: txOperative, processor_operation: op,
      amount: Number(o.amount), status: 'PENDING', error: 'NONE', auth_code: '', processor_id: null,
      source_id: card.sourceId, source_json: JSON.stringify(presentSource(card.row)), antifraud: null, device: null,
      error_details: null, customer_ip: input.customer_ip ?? null, awaiting_3ds: false, metadata: null,
      created_at: now, updated_at: now, started_at: core.p.clock.now(),
    });
    await core.transition(trx, o, 'PAYMENT_STARTED', { source_id: card.sourceId }, now, { present: false });
    await IdempotencyStore.commit(trx, ctx, o.id);
    return {
      kind: 'call', orderId: o.id, txId, op, connector, safe: false,
      request: {
        reference: txId, terminal: { serviceType: o.service_type, terminalId: null, serviceId: o.service_id }, now, amount: Number(o.amount), currency: o.currency,
        card: { pan: card.pan, expiryMonth: card.expMonth, expiryYear: card.expYear, cvv: null, holder: card.holder }, channel: 'MIT',
      },
    };
  });
  return finishStarted(core, started);
}
