/**
 * B15 payouts: credit funds to a stored card (source_uuid, or the customer's last card with a successful
 * payment), or with an APM that supports payouts (`apm`). Push APMs pay out to a phone (`phone`), a bank
 * transfer to a stored bank account of the customer (`source_uuid`, F4). Same three steps as every money
 * operation: a PENDING transaction, the processor's or provider's answer outside any transaction, the
 * settlement.
 */
import { randomUUID } from 'node:crypto';
import type { Tx } from '../../../platform/db/database.js';
import { badRequest, conflict, notFound } from '../../../platform/errors/errors.js';
import { IdempotencyStore } from '../../../platform/http/idempotency.js';
import type { RequestContext } from '../../../platform/http/types.js';
import { apmInfo, parsePushPhone, type ApmInfo, type ApmPayoutRequest } from '../../../processors/index.js';
import { presentSource, sourceAad } from '../../sources/index.js';
import { canOrder } from '../order-states.js';
import { paymentOperation } from '../payments.domain.js';
import * as repo from '../payments.repo.js';
import type { OrderResult, PaymentsCore, Started } from '../core.js';
import { finishStarted } from './finish.js';

export interface PayoutInput {
  order_uuid: string;
  source_uuid?: string | null;
  card_uuid?: string | null;
  customer_ip?: string | null;
  /** An APM that supports payouts (below); required when the service has more than one way. */
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

// ---- payouts with an APM ------------------------------------------------------------------------------

/** How a payout goes: to a card (the existing way), or with an APM that supports payouts. */
export type PayoutWay = { kind: 'card' } | { kind: 'apm'; apm: ApmInfo };

/**
 * The way of a B15 request (api.md: `apm` is mandatory when the service has more than one way to
 * transfer funds; not every APM supports payouts):
 *  - `apm` given: that APM, which the order's service must offer and which must support payouts;
 *  - otherwise a stored source names the way (`source_uuid`, or the order's): a card is paid out to, a
 *    bank account is credited by bank transfer (TRANSFER, when the service offers it);
 *  - otherwise cards, when the service has no APM that pays out; with one or more, `apm` is required.
 */
export async function payoutWay(core: PaymentsCore, ctx: RequestContext, input: PayoutInput): Promise<PayoutWay> {
  const db = core.db.db;
  const o = await repo.findOrder(db, input.order_uuid);
  if (!o || o.merchant_id !== ctx.merchant.id || o.env !== ctx.env) throw notFound(`The order ${input.order_uuid} was not found`);
  const offered = core.deps.apms ? await core.deps.apms.offered(o.service_id) : [];
  const payoutApms = offered.filter((a) => a.payout);
  if (input.apm !== undefined && input.apm !== null && input.apm !== '') {
    const info = apmInfo(input.apm);
    if (!info) throw badRequest(`apm: ${String(input.apm).slice(0, 40)} is not an APM`);
    if (!info.payout) throw badRequest(`apm: ${info.apm} does not support payouts (APMs that do: BIZUM, MBWAY, TRANSFER)`);
    if (!offered.some((a) => a.apm === info.apm)) throw badRequest(`apm: the order's service does not offer ${info.apm}`);
    return { kind: 'apm', apm: info };
  }
  const sourceUuid = input.source_uuid ?? input.card_uuid ?? o.source_id;
  if (sourceUuid) {
    const row = await core.deps.sources.loadSource(db, { merchantId: o.merchant_id, env: o.env }, sourceUuid);
    if (row.type === 'bank') {
      const transfer = payoutApms.find((a) => a.payout === 'BANK_ACCOUNT');
      if (!transfer) throw badRequest('The source is a bank account: bank accounts are paid out by bank transfer (apm TRANSFER), which the order\'s service does not offer');
      return { kind: 'apm', apm: transfer };
    }
    return { kind: 'card' };
  }
  if (payoutApms.length > 0) {
    throw badRequest(`apm is required: the order's service transfers funds to cards and with ${payoutApms.map((a) => a.apm).join(', ')}`);
  }
  return { kind: 'card' };
}

/** A B15 payout with an APM that supports payouts. */
export async function payoutApm(core: PaymentsCore, ctx: RequestContext, input: PayoutInput, info: ApmInfo): Promise<OrderResult> {
  let phone: string | null = null;
  if (info.payout === 'PHONE') {
    if (input.phone === undefined || input.phone === null || input.phone === '') throw badRequest(`phone: required for a payout with ${info.apm} (the phone number of the receiving account)`);
    phone = parsePushPhone(info.apm, input.phone);
    if (!phone) throw badRequest(`phone: not a valid ${info.label} phone number`);
  }
  const started = await core.db.transaction(async (trx): Promise<Started> => {
    const locked = await lockForPayout(core, trx, ctx, input.order_uuid);
    if ('kind' in locked) return locked;
    const { o, now } = locked;
    const connector = core.deps.processors.forService(o.service_type, o.env);
    if (!connector.apmPayout) throw badRequest(`Payouts with ${info.apm} are not available on services of type ${o.service_type}`);
    const owner = { merchantId: o.merchant_id, env: o.env };
    let sourceId: string | null = null;
    let sourceJson: string;
    let holder: string | null = null;
    let iban = null;
    if (info.payout === 'BANK_ACCOUNT') {
      const sourceUuid = input.source_uuid ?? input.card_uuid ?? o.source_id;
      if (!sourceUuid) throw badRequest(`source_uuid is required for a payout with ${info.apm}: a bank account of the customer (POST /payment-method/bank)`);
      const row = await core.deps.sources.loadSource(trx, owner, sourceUuid);
      if (row.type !== 'bank') throw badRequest(`The source ${row.id} is not a bank account: ${info.apm} pays out to bank accounts`);
      if (o.customer_ext_id !== null && row.customer_ext_id !== o.customer_ext_id) throw badRequest("The bank account does not belong to the order's customer");
      iban = core.p.vault.open(row.number_sealed, sourceAad(row.id));
      sourceId = row.id;
      sourceJson = JSON.stringify(presentSource(row));
      holder = row.holder;
    } else {
      sourceJson = JSON.stringify({ object: info.apm, type: info.apm.toLowerCase(), apm: info.apm, kind: info.kind, phone: `******${phone!.slice(-3)}` });
    }
    const txId = randomUUID();
    const { txOperative } = paymentOperation(o.operative);
    await repo.insertTransaction(trx, {
      id: txId, order_id: o.id, merchant_id: o.merchant_id, operative: txOperative, processor_operation: 'apmPayout',
      amount: Number(o.amount), status: 'PENDING', error: 'NONE', auth_code: '', processor_id: null,
      source_id: sourceId, source_json: sourceJson, antifraud: null, device: null,
      error_details: null, customer_ip: input.customer_ip ?? null, awaiting_3ds: false, metadata: null,
      created_at: now, updated_at: now, started_at: core.p.clock.now(),
    });
    await core.transition(trx, o, 'PAYMENT_STARTED', sourceId ? { source_id: sourceId } : {}, now, { present: false });
    await IdempotencyStore.commit(trx, ctx, o.id);
    const request: ApmPayoutRequest = {
      reference: txId, terminal: { serviceType: o.service_type, terminalId: null, serviceId: o.service_id }, now, amount: Number(o.amount), currency: o.currency,
      apm: info.apm, kind: info.kind, phone, iban, holder, description: o.description,
    };
    return { kind: 'call', orderId: o.id, txId, op: 'apmPayout', connector, safe: false, request };
  });
  return finishStarted(core, started);
}
