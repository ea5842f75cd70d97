/**
 * Alternative payment methods on the customer pages (Bizum, api.md B5): the processor asks the customer
 * (for Bizum, in their bank's app) and answers. The same three steps as a card payment; the
 * transaction's source is a small APM record (masked phone), not a card.
 */
import { randomUUID } from 'node:crypto';
import { badRequest, conflict, notFound } from '../../../platform/errors/errors.js';
import { IdempotencyStore } from '../../../platform/http/idempotency.js';
import type { RequestContext } from '../../../platform/http/types.js';
import type { Tx } from '../../../platform/db/database.js';
import type { Env } from '../../../platform/db/schema.js';
import { apmInfo, type ApmKind, type ApmMethod, type ApmStartRequest, type ApmVoucher } from '../../../processors/index.js';
import { canOrder } from '../order-states.js';
import { orderUrls } from '../payments.domain.js';
import * as repo from '../payments.repo.js';
import type { OrderResult, PaymentsCore, PresentedOrder, Started } from '../core.js';
import { settle } from './settle.js';
import { finishStarted } from './finish.js';

export async function payApmByToken(core: PaymentsCore, token: string, input: { apm: ApmMethod; phone: string; customerIp?: string | null }): Promise<OrderResult & { goto?: string | null }> {
  // a processor that takes the APM on its own page (Bizum through Redsys: a redirect, settled by its
  // notification) starts the payment there; the customer goes to the provider's page
  const found = await repo.findOrderByToken(core.db.db, token);
  if (found) {
    const c = core.deps.processors.forService(found.service_type, found.env);
    if (!c.apmPayment && c.apmStart) {
      const r = await startApm(core, (trx) => repo.lockOrderByToken(trx, token), { apm: input.apm, phone: input.phone, customerIp: input.customerIp ?? null });
      return { ...r, goto: r.apm?.redirect_url ?? null };
    }
  }
  const started = await core.db.transaction(async (trx): Promise<Started> => {
    const o = await repo.lockOrderByToken(trx, token);
    if (!o) throw notFound('The order was not found');
    const now = core.now(o);
    const expired = await core.expiredOnTheSpot(trx, o, now);
    if (expired) return expired;
    if (o.status === 'PENDING_PROCESSOR_RESPONSE') throw conflict('A payment of this order is in progress');
    if (!canOrder(o.status, 'PAYMENT_STARTED')) throw badRequest(`The order is ${o.status} and cannot be paid`);
    if (o.operative !== 'AUTHORIZATION') throw badRequest(`${input.apm} pays AUTHORIZATION orders only; this order is ${o.operative}`);
    const connector = core.deps.processors.forService(o.service_type, o.env);
    if (!connector.apmPayment) throw badRequest(`${input.apm} is not available on services of type ${o.service_type}`);
    const txId = randomUUID();
    await repo.insertTransaction(trx, {
      id: txId, order_id: o.id, merchant_id: o.merchant_id, operative: 'AUTHORIZATION', processor_operation: 'apmPayment',
      amount: Number(o.amount), status: 'PENDING', error: 'NONE', auth_code: '', processor_id: null,
      source_id: null, source_json: JSON.stringify({ object: input.apm, type: input.apm.toLowerCase(), phone: `******${input.phone.slice(-3)}` }),
      antifraud: null, device: null, error_details: null, customer_ip: input.customerIp ?? null, awaiting_3ds: false, metadata: null,
      created_at: now, updated_at: now, started_at: core.p.clock.now(),
    });
    await core.transition(trx, o, 'PAYMENT_STARTED', { ip: input.customerIp ?? o.ip }, now);
    return {
      kind: 'call', orderId: o.id, txId, op: 'apmPayment', connector, safe: false,
      request: { reference: txId, terminal: { serviceType: o.service_type, terminalId: null, serviceId: o.service_id }, now, amount: Number(o.amount), currency: o.currency, apm: input.apm, phone: input.phone },
    };
  });
  return finishStarted(core, started);
}

// ---- APMs of every kind (redirect, push, voucher): started now, completed when the customer acts ----------

/** What a started APM payment records as its transaction's source (and shows the merchant and the pages). */
export interface ApmRecord {
  object: string;
  type: string;
  apm: string;
  kind: ApmKind;
  /** Push: the masked phone. */
  phone?: string;
  /** Redirect: where the customer approves. */
  redirect_url?: string;
  /** Voucher: the data to pay. */
  voucher?: ApmVoucher;
  /** Until when the customer can complete it (ISO 8601). */
  expires_at?: string;
}

export interface StartApmInput {
  apm: string;
  /** Push APMs: the phone, national digits. */
  phone?: string | null;
  customerIp?: string | null;
}

/** An APM payment as B13 and the pages answer it: the order, and the APM record while it waits. */
export interface ApmStarted extends OrderResult {
  apm: ApmRecord | null;
}

/** Where the sandbox provider's customer-facing pages of an order are (bank page, phone). */
export function sandboxApmUrl(publicUrl: string, env: Env, kind: 'bank' | 'phone', token: string): string {
  return `${publicUrl}/v1${env === 'sandbox' ? '/sandbox' : ''}/sandbox-apm/${kind}/${token}`;
}

/** The pending APM transaction of an order, with its record; null when none waits. */
export function pendingApmOf(txs: repo.TxRow[]): { tx: repo.TxRow; record: ApmRecord } | null {
  const tx = txs.find((t) => t.status === 'PENDING' && t.processor_operation === 'apmStart');
  if (!tx || !tx.source_json) return null;
  return { tx, record: JSON.parse(tx.source_json) as ApmRecord };
}

/**
 * Starts a payment with an APM of any kind on an order found by `lock` (the caller's order by uuid, or
 * the page's by token). Step 1 writes the PENDING transaction (order PENDING_PROCESSOR_RESPONSE); step
 * 2 asks the provider; step 3 records what it answered (the order keeps waiting) or settles a refusal.
 */
export async function startApm(core: PaymentsCore, lock: (trx: Tx) => Promise<repo.LockedOrder | undefined>, input: StartApmInput, ctx?: RequestContext): Promise<ApmStarted> {
  const info = apmInfo(input.apm);
  if (!info) throw badRequest(`apm: ${String(input.apm)} is not an APM`);
  const begun = await core.db.transaction(async (trx) => {
    const o = await lock(trx);
    if (!o) throw notFound('The order was not found');
    const now = core.now(o);
    const expired = await core.expiredOnTheSpot(trx, o, now);
    if (expired) return expired;
    if (o.status === 'PENDING_PROCESSOR_RESPONSE') throw conflict('A payment of this order is in progress');
    if (!canOrder(o.status, 'PAYMENT_STARTED')) throw badRequest(`The order is ${o.status} and cannot be paid`);
    const operative = o.operative === 'TRANSFER' && info.apm === 'TRANSFER' ? 'TRANSFER' : 'AUTHORIZATION';
    if (o.operative !== operative) throw badRequest(`${info.apm} pays ${info.apm === 'TRANSFER' ? 'AUTHORIZATION and TRANSFER' : 'AUTHORIZATION'} orders only; this order is ${o.operative}`);
    const connector = core.deps.processors.forService(o.service_type, o.env);
    if (!connector.apmStart) throw badRequest(`${info.apm} is not available on services of type ${o.service_type}`);
    const txId = randomUUID();
    const record: ApmRecord = { object: info.apm, type: info.apm.toLowerCase(), apm: info.apm, kind: info.kind, ...(input.phone ? { phone: `******${input.phone.slice(-3)}` } : {}) };
    await repo.insertTransaction(trx, {
      id: txId, order_id: o.id, merchant_id: o.merchant_id, operative, processor_operation: 'apmStart',
      amount: Number(o.amount), status: 'PENDING', error: 'NONE', auth_code: '', processor_id: null,
      source_id: null, source_json: JSON.stringify(record),
      antifraud: null, device: null, error_details: null, customer_ip: input.customerIp ?? null, awaiting_3ds: false, metadata: null,
      created_at: now, updated_at: now, started_at: core.p.clock.now(),
    });
    await core.transition(trx, o, 'PAYMENT_STARTED', { ip: input.customerIp ?? o.ip }, now, { present: false });
    if (ctx) await IdempotencyStore.commit(trx, ctx, o.id);
    return {
      kind: 'apm' as const, o, txId, record, connector,
      request: {
        reference: txId, terminal: { serviceType: o.service_type, terminalId: null, serviceId: o.service_id }, now, amount: Number(o.amount), currency: o.currency,
        apm: info.apm, kind: info.kind, phone: input.phone ?? null, description: o.description, returnUrl: orderUrls(core.p.config.publicUrl, o.env, o.token).payment_card,
      } satisfies ApmStartRequest,
    };
  });
  if (begun.kind !== 'apm') {
    const done = (begun as Extract<Started, { kind: 'done' }>).result;
    if (done.failed) throw badRequest(done.failed);
    return { ...done, apm: null };
  }
  const { o, txId, connector, request } = begun;
  const answer = await connector.apmStart!(request);
  if (answer.outcome !== 'PENDING') {
    // refused at once (or no answer: the reconciler settles it)
    return { ...(await settle(core, o.id, txId, answer)), apm: null };
  }
  const record: ApmRecord = {
    ...begun.record,
    ...(info.kind === 'redirect' || answer.redirectUrl ? { redirect_url: answer.redirectUrl ?? sandboxApmUrl(core.p.config.publicUrl, o.env, 'bank', o.token) } : {}),
    ...(answer.voucher ? { voucher: answer.voucher } : {}),
    expires_at: answer.expiresAt.toISOString(),
  };
  return core.db.transaction(async (trx) => {
    const locked = await repo.lockOrderWithTx(trx, o.id, txId);
    if (!locked) throw new Error(`startApm: order ${o.id} or transaction ${txId} is missing`);
    if (locked.tx.status === 'PENDING') {
      await repo.updatePendingApm(trx, txId, { processor_id: answer.processorId, source_json: JSON.stringify(record), updated_at: core.now(locked.order) });
    }
    const txs = await repo.transactionsOf(trx, o.id);
    return { order: core.present(locked.order, txs), merchantId: o.merchant_id, redirect: null, failed: null, apm: locked.tx.status === 'PENDING' ? record : null };
  });
}

/** The started APM payment of an order, with the order; null when none waits. */
export async function pendingApm(core: PaymentsCore, o: repo.LockedOrder): Promise<{ order: PresentedOrder; record: ApmRecord } | null> {
  const txs = await repo.transactionsOf(core.db.db, o.id);
  const p = pendingApmOf(txs);
  return p ? { order: core.present(o, txs), record: p.record } : null;
}

/**
 * The customer acted on a started APM payment (approved or refused on the bank page or the phone, paid
 * the voucher), as the provider reports it: asks the connector for the final result and settles the
 * transaction and the order (the notification goes out). After the APM's expiry the payment is refused.
 */
export async function completeApm(core: PaymentsCore, o: repo.LockedOrder, action: 'PAID' | 'REFUSED'): Promise<OrderResult> {
  const txs = await repo.transactionsOf(core.db.db, o.id);
  const p = pendingApmOf(txs);
  if (!p) throw conflict(`The order ${o.id} has no APM payment waiting (it is ${o.status})`);
  const now = core.now(o);
  if (p.record.expires_at && Date.parse(p.record.expires_at) <= now.getTime()) {
    return settle(core, o.id, p.tx.id, { outcome: 'DECLINED', error: 'DENIED', details: `The ${p.record.apm} payment expired before it was completed`, processorId: p.tx.processor_id });
  }
  const connector = core.deps.processors.forService(o.service_type, o.env);
  if (!connector.apmComplete) throw badRequest(`${p.record.apm} is not available on services of type ${o.service_type}`);
  const result = await connector.apmComplete({
    reference: p.tx.id, terminal: { serviceType: o.service_type, terminalId: null, serviceId: o.service_id }, now,
    amount: Number(p.tx.amount), currency: o.currency, apm: p.record.apm, processorId: p.tx.processor_id, action,
  });
  return settle(core, o.id, p.tx.id, result);
}
