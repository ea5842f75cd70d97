/**
 * Payments sent to a physical device (J3, J4) and card-present SCA. An order sent to a device answers at
 * once in PENDING_PROCESSOR_RESPONSE with a PENDING transaction (authorization empty) that waits for the
 * device to read a card. Then one of:
 *  - the device reads a card: `pay` (channel CARD_PRESENT) charges that same transaction (pay.ts);
 *  - the issuer asks for SCA on the terminal: the transaction is refused with `payment_data.terminal_action`
 *    and the order is AUTHENTICATION_REQUIRED (settle.ts); the device reads the card again and `pay` with
 *    `scaRetry` adds a second transaction to the same order;
 *  - nobody charges a card (the customer or the merchant cancelled, the device was offline, the card could
 *    not be used): `abandonDeviceWait` voids the waiting transaction and closes the order (CANCELLED or
 *    EXPIRED, notified).
 * While it waits no processor has the transaction, so the reconciler leaves it to the devices module's
 * deadline, and closes it itself only when that has not happened well after the deadline.
 */
import { randomUUID } from 'node:crypto';
import type { Tx } from '../../../platform/db/database.js';
import { badRequest } from '../../../platform/errors/errors.js';
import type { RequestContext } from '../../../platform/http/types.js';
import { canOrder } from '../order-states.js';
import { paymentOperation, type Operative } from '../payments.domain.js';
import * as repo from '../payments.repo.js';
import type { OrderResult, PaymentsCore } from '../core.js';

export interface DeviceWaitInput {
  /** The transaction's `pos` while it waits (the device; the card's reading method comes with the card). */
  pos: Record<string, string | null>;
  /** Until when the device may read a card (the operation's deadline, merchant clock). */
  waitUntil: Date;
  /** Runs in the same database transaction (the devices module records its operation and schedules). */
  within: (trx: Tx) => Promise<void>;
}

/** How a payment that waited for a device ends without a card charged. */
export interface AbandonInput {
  /** CANCELLED: on the terminal or by the merchant (order CANCELLED); ABANDONED: no usable card in time (order EXPIRED). */
  outcome: 'CANCELLED' | 'ABANDONED';
  details: string;
}

/** The order of the caller waits for a device: PENDING_PROCESSOR_RESPONSE with a PENDING transaction. */
export async function startDeviceWait(core: PaymentsCore, ctx: RequestContext, orderId: string, input: DeviceWaitInput): Promise<OrderResult> {
  return core.db.transaction(async (trx) => {
    const o = await core.lockOwned(trx, ctx, orderId);
    const now = core.now(o);
    if (core.isDue(o, now)) throw badRequest('The order has expired');
    if (!canOrder(o.status, 'DEVICE_PAYMENT_SENT')) throw badRequest(`The order is ${o.status} and cannot be sent to a device`);
    if (o.operative !== 'AUTHORIZATION' && o.operative !== 'DEFERRED') throw badRequest(`A ${o.operative} order cannot be paid on a device`);
    const { txOperative, op } = paymentOperation(o.operative as Operative);
    await repo.insertTransaction(trx, {
      id: randomUUID(), order_id: o.id, merchant_id: o.merchant_id, operative: txOperative, processor_operation: op,
      amount: Number(o.amount), status: 'PENDING', error: 'NONE', auth_code: '', processor_id: null, source_id: null, source_json: null,
      antifraud: null, device: null, error_details: null, customer_ip: null, awaiting_3ds: false, metadata: null,
      created_at: now, updated_at: now, started_at: core.p.clock.now(), pos: input.pos, device_wait_until: input.waitUntil,
    });
    const { presented } = await core.transition(trx, o, 'DEVICE_PAYMENT_SENT', {}, now);
    await input.within(trx);
    return { order: presented, merchantId: o.merchant_id, redirect: null, failed: null };
  });
}

/**
 * No card is charged for an order that waited for a device: the waiting transaction is voided (CANCELLED)
 * and the order closed, CANCELLED or EXPIRED, and notified. An order in AUTHENTICATION_REQUIRED (the
 * device never sent the card again) closes the same way. Any other order (its card being charged, or
 * settled) is answered as it is: nothing is undone.
 */
export async function abandonDeviceWait(core: PaymentsCore, ctx: RequestContext, orderId: string, input: AbandonInput): Promise<OrderResult> {
  return core.db.transaction(async (trx) => abandonLocked(core, trx, await core.lockOwned(trx, ctx, orderId), input));
}

export async function abandonLocked(core: PaymentsCore, trx: Tx, o: repo.LockedOrder, input: AbandonInput): Promise<OrderResult> {
  const now = core.now(o);
  const base = { merchantId: o.merchant_id, redirect: null, failed: null };
  const waiting = o.status === 'PENDING_PROCESSOR_RESPONSE' ? await repo.deviceWaitTransaction(trx, o.id) : undefined;
  if (!waiting && o.status !== 'AUTHENTICATION_REQUIRED') return { ...base, order: core.present(o, await repo.transactionsOf(trx, o.id)) };
  if (waiting) await core.settleTx(trx, waiting, 'VOIDED', { error_details: input.details.slice(0, 500), device_wait_until: null }, now);
  const event = input.outcome === 'CANCELLED' ? 'DEVICE_PAYMENT_CANCELLED' : 'DEVICE_PAYMENT_ABANDONED';
  return { ...base, order: (await core.transition(trx, o, event, {}, now)).presented };
}
