/**
 * Alternative payment methods on the customer pages (Bizum, api.md B5): the processor asks the customer
 * (for Bizum, in their bank's app) and answers. The same three steps as a card payment; the
 * transaction's source is a small APM record (masked phone), not a card.
 */
import { randomUUID } from 'node:crypto';
import { badRequest, conflict, notFound } from '../../../platform/errors/errors.js';
import type { ApmMethod } from '../../../processors/index.js';
import { canOrder } from '../order-states.js';
import * as repo from '../payments.repo.js';
import type { OrderResult, PaymentsCore, Started } from '../core.js';
import { finishStarted } from './settle.js';

export async function payApmByToken(core: PaymentsCore, token: string, input: { apm: ApmMethod; phone: string; customerIp?: string | null }): Promise<OrderResult> {
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
      request: { reference: txId, terminal: { serviceType: o.service_type, terminalId: null }, now, amount: Number(o.amount), currency: o.currency, apm: input.apm, phone: input.phone },
    };
  });
  return finishStarted(core, started);
}
