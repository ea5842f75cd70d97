/**
 * The plan of a payment's first step with routing (money/plan-payment.ts): the first attempt takes the
 * payment on its service (the order moves there, the named service kept), and the fallbacks it keeps
 * are all the decision's, except for a payment that carries authentication, is merchant-initiated or
 * has a currency conversion: those keep only fallbacks of the first attempt's service type.
 */
import { describe, expect, it } from 'vitest';
import { Secret } from '../../src/platform/security/secret.js';
import { planPayment, readRoutingNext, type PaymentFacts } from '../../src/modules/payments/money/plan-payment.js';

const now = new Date('2026-12-07T10:00:00Z');
const order = {
  id: '00000000-0000-4000-8000-000000000001', merchant_id: 'm', env: 'sandbox', service_id: 'entry', service_type: 'REDSYSPSD2',
  entry_service_id: null, entry_service_type: null, operative: 'AUTHORIZATION', amount: 1000, currency: 'EUR', secure: false,
  status: 'CREATED', paid: false, source_id: null, ip: null, token: 't', cof_txnid: null, dynamic_descriptor: null,
};
const attempts = [
  { serviceId: 'a', serviceType: 'CHECKOUT', rule: 'r', reason: 'rule r' },
  { serviceId: 'b', serviceType: 'REDSYSPSD2', rule: 'r', reason: 'fallback' },
  { serviceId: 'c', serviceType: 'CHECKOUT', rule: 'r', reason: 'fallback' },
];
const facts = (over: Partial<PaymentFacts> = {}, input: Record<string, unknown> = {}): PaymentFacts => ({
  o: order as never,
  input: { channel: 'ECOMMERCE', card: { kind: 'source', sourceUuid: 's' }, ...input } as never,
  guard: { event: 'PAYMENT_STARTED', waitsForDevice: false },
  waitTx: null,
  card: { data: { pan: new Secret('4548812049400004'), expiryMonth: 12, expiryYear: 2030, cvv: null, holder: 'A' }, sourceId: 's', sourceJson: '{}', saved: null },
  risk: null,
  dcc: { record: null, data: null },
  txId: '00000000-0000-4000-8000-000000000002',
  now,
  realNow: now,
  publicUrl: 'https://pay.example',
  route: { attempts, rule: 'r' },
  ...over,
});
const fallbacksOf = (f: PaymentFacts) => {
  const plan = planPayment(f);
  if ('error' in plan) throw plan.error;
  return readRoutingNext(plan.tx.routing_next)?.next.map((a) => a.serviceId) ?? [];
};

describe('plan-payment with routing', () => {
  it('the first attempt takes the payment on its service; the order moves there and keeps the one it named', () => {
    const plan = planPayment(facts());
    if ('error' in plan || plan.kind !== 'call') throw new Error('not a call');
    expect(plan.request.terminal).toEqual({ serviceType: 'CHECKOUT', terminalId: null, serviceId: 'a' });
    expect(plan.tx).toMatchObject({ service_id: 'a', routing: { service_uuid: 'a', service: 'CHECKOUT', rule: 'r', attempt: 1 } });
    expect(plan.order!.set).toMatchObject({ service_id: 'a', service_type: 'CHECKOUT', entry_service_id: 'entry', entry_service_type: 'REDSYSPSD2' });
    expect(fallbacksOf(facts())).toEqual(['b', 'c']);
  });

  it('authentication, merchant-initiated payments and conversions keep only fallbacks of the first attempt\'s type', () => {
    expect(fallbacksOf(facts({}, { channel: 'MIT' }))).toEqual(['c']);
    expect(fallbacksOf(facts({}, { threeds: { version: '2.2.0', transStatus: 'Y', eci: '05', cavv: 'x', dsTransId: 'y' } }))).toEqual(['c']);
    expect(fallbacksOf(facts({ dcc: { record: { offered: true } as never, data: null } }))).toEqual(['c']);
  });

  it('no route: the order\'s own service, nothing recorded', () => {
    const plan = planPayment(facts({ route: null }));
    if ('error' in plan || plan.kind !== 'call') throw new Error('not a call');
    expect(plan.request.terminal.serviceId).toBe('entry');
    expect(plan.tx.routing).toBeUndefined();
    expect(plan.order!.set).not.toHaveProperty('service_id');
  });
});
