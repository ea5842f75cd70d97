/**
 * The Checkout.com simulator held to the Payments API's recorded examples (the answers the official
 * checkout-sdk-node's tests replay: a card payment approved, a payment's actions newest first), and the
 * connector's mapping reading an answer of that recorded shape. Facts of the examples are restated here
 * (field names, types, id formats, values), not their code.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CheckoutSimulator } from '../../src/processors/checkout/simulator/server.js';
import { resultOfActions, resultOfPayment } from '../../src/processors/checkout/mapping.js';

const KEY = 'sk_sbox_examples000000000000000000';
const CHANNEL = 'pc_examples0000000000000000a';
const sim = new CheckoutSimulator({ accounts: { [KEY]: { processingChannelId: CHANNEL, webhookKey: 'examples-webhook-key-0000' } } });
let url = '';

beforeAll(async () => {
  url = await sim.listen();
});
afterAll(() => sim.close());

const call = async (method: string, path: string, body?: unknown) => {
  const res = await fetch(`${url}${path}`, { method, headers: { authorization: `Bearer ${KEY}`, 'content-type': 'application/json' }, body: body ? JSON.stringify(body) : undefined });
  return { status: res.status, body: (await res.json()) as any };
};

describe('Checkout.com simulator against the recorded examples', () => {
  it('a card payment: 201 with the recorded answer\'s fields, types and id formats', async () => {
    const r = await call('POST', '/payments', { source: { type: 'card', number: '4242424242424242', expiry_month: 6, expiry_year: 2039, cvv: '100' }, currency: 'USD', amount: 6540, reference: 'ORD-5023-4E89', processing_channel_id: CHANNEL, capture: false });
    expect(r.status).toBe(201);
    expect(r.body).toMatchObject({
      id: expect.stringMatching(/^pay_[a-z0-9]{26}$/), action_id: expect.stringMatching(/^act_[a-z0-9]{26}$/), amount: 6540, currency: 'USD', approved: true, status: 'Authorized',
      auth_code: expect.stringMatching(/^\d{6}$/), response_code: '10000', response_summary: 'Approved', risk: { flagged: false },
      source: { type: 'card', id: expect.stringMatching(/^src_/), expiry_month: 6, expiry_year: 2039, scheme: expect.any(String), last4: '4242', bin: '424242' },
      processed_on: expect.stringMatching(/^\d{4}-\d\d-\d\dT/), reference: 'ORD-5023-4E89', scheme_id: expect.stringMatching(/^\d{15}$/),
      _links: { self: { href: `${url}/payments/${r.body.id}` }, actions: { href: `${url}/payments/${r.body.id}/actions` } },
    });
    // never more of the card than BIN and last 4
    expect(JSON.stringify(r.body)).not.toContain('4242424242424242');
  });

  it('a payment\'s actions, newest first, each with its type, amount, approval and response code', async () => {
    const pay = await call('POST', '/payments', { source: { type: 'card', number: '4242424242424242', expiry_month: 6, expiry_year: 2039 }, currency: 'EUR', amount: 100, reference: 'r-actions', processing_channel_id: CHANNEL, capture: false });
    const cap = await call('POST', `/payments/${pay.body.id}/captures`, { amount: 100, reference: 'r-capture' });
    expect(cap.status).toBe(202);
    expect(cap.body.action_id).toMatch(/^act_[a-z0-9]{26}$/);
    const actions = await call('GET', `/payments/${pay.body.id}/actions`);
    expect(actions.body.map((a: any) => [a.type, a.amount, a.approved, a.response_code])).toEqual([['Capture', 100, true, '10000'], ['Authorization', 100, true, '10000']]);
    expect(actions.body[1].auth_code).toMatch(/^\d{6}$/);
    expect(resultOfActions(actions.body, { kind: 'capture', reference: 'r-capture', amount: 100, paymentId: pay.body.id })).toMatchObject({ outcome: 'APPROVED', amount: 100 });
  });

  it('the connector reads an answer of the recorded shape', () => {
    const recorded = {
      id: 'pay_gjulv7byhhwerb3jyx2547xlme', action_id: 'act_t4u4g5ovx5huhk4ljrtyoo7eji', amount: 6540, currency: 'USD', approved: true, status: 'Authorized', auth_code: '655071',
      response_code: '10000', response_summary: 'Approved', risk: { flagged: false }, reference: 'ORD-5023-4E89', scheme_id: '204565197912882',
      processing: { acquirer_transaction_id: '191020606571494805360', retrieval_reference_number: '938688307590' },
    };
    expect(resultOfPayment(recorded, { reference: 'ORD-5023-4E89', amount: 6540, currency: 'USD' }, 'preauth')).toMatchObject({
      paymentId: 'pay_gjulv7byhhwerb3jyx2547xlme', schemeId: '204565197912882', result: { outcome: 'APPROVED', authorization: '655071', processorId: 'pay_gjulv7byhhwerb3jyx2547xlme', amount: 6540 },
    });
  });
});
