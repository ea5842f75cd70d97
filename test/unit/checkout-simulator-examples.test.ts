/**
 * The Checkout.com simulator held to the Payments API's recorded examples (the answers the official
 * checkout-sdk-node's tests replay: a card payment approved, a payment's actions newest first), and the
 * connector's mapping reading an answer of that recorded shape. Facts of the examples are restated here
 * (field names, types, id formats, values), not their code. Then the simulator as the reference
 * describes Checkout.com: payment details without a response code, captures, voids and refunds accepted
 * and decided later (or declined), and a request the reference does not allow answered 422 and recorded.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CheckoutSimulator } from '../../src/processors/checkout/simulator/server.js';
import { followUpInActions, resultOfPayment } from '../../src/processors/checkout/mapping.js';

const KEY = 'sk_sbox_examples000000000000000000';
const CHANNEL = 'pc_examples0000000000000000a';
const sim = new CheckoutSimulator({ accounts: { [KEY]: { processingChannelId: CHANNEL, webhookKey: 'examples-webhook-key-0000' } } });
let url = '';

beforeAll(async () => {
  url = await sim.listen();
});
afterAll(async () => {
  await sim.close();
  sim.spec.assertClean();
});

const call = async (method: string, path: string, body?: unknown) => {
  const res = await fetch(`${url}${path}`, { method, headers: { authorization: `Bearer ${KEY}`, 'content-type': 'application/json' }, body: body ? JSON.stringify(body) : undefined });
  const text = await res.text();
  return { status: res.status, body: (text === '' ? null : JSON.parse(text)) as any };
};
const card = { type: 'card', number: '4242424242424242', expiry_month: 6, expiry_year: 2039 };

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
    await sim.settled();
    const actions = await call('GET', `/payments/${pay.body.id}/actions`);
    expect(actions.body.map((a: any) => [a.type, a.amount, a.approved, a.response_code])).toEqual([['Capture', 100, true, '10000'], ['Authorization', 100, true, '10000']]);
    expect(actions.body[1].auth_code).toMatch(/^\d{6}$/);
    expect(followUpInActions(actions.body, { kind: 'capture', reference: 'r-capture', actionId: cap.body.action_id, amount: 100, paymentId: pay.body.id })).toMatchObject({ state: 'decided', result: { outcome: 'APPROVED', amount: 100 } });
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

describe('Checkout.com simulator as the reference describes Checkout.com', () => {
  it('payment details (by id, by reference) carry status and approval, no response code; by session id the summary of the actions', async () => {
    const declined = await call('POST', '/payments', { source: { ...card, number: '4000000000009995' }, currency: 'EUR', amount: 500, reference: 'r-details', processing_channel_id: CHANNEL });
    expect(declined.body).toMatchObject({ approved: false, status: 'Declined', response_code: '20051' });
    const details = await call('GET', `/payments/${declined.body.id}`);
    expect(details.body).toMatchObject({ id: declined.body.id, status: 'Declined', approved: false, reference: 'r-details' });
    expect(details.body).not.toHaveProperty('response_code');
    expect(details.body).not.toHaveProperty('actions');
    const listed = await call('GET', '/payments?reference=r-details');
    expect(listed.body).toMatchObject({ total_count: 1, data: [{ id: declined.body.id, status: 'Declined' }] });
    expect(listed.body.data[0]).not.toHaveProperty('response_code');
    const bySession = await call('GET', `/payments/sid_${declined.body.id.slice(4)}`);
    expect(bySession.body.actions).toEqual([{ id: declined.body.action_id, type: 'Authorization', response_code: '20051', response_summary: 'Insufficient funds' }]);
  });

  it('a capture, void or refund is accepted (202) and decided later: absent from the actions until then, declined when a test asks', async () => {
    const pay = await call('POST', '/payments', { source: card, currency: 'EUR', amount: 900, reference: 'r-async', processing_channel_id: CHANNEL });
    sim.holdDecisions = true;
    try {
      const refund = await call('POST', `/payments/${pay.body.id}/refunds`, { amount: 400, reference: 'r-refund' });
      expect(refund).toMatchObject({ status: 202, body: { action_id: expect.stringMatching(/^act_/), reference: 'r-refund', _links: { payment: { href: `${url}/payments/${pay.body.id}` } } } });
      expect(sim.undecided()).toBe(1);
      expect((await call('GET', `/payments/${pay.body.id}/actions`)).body.map((a: any) => a.type)).toEqual(['Capture', 'Authorization']);
      // what is held for it cannot be refunded twice
      expect((await call('POST', `/payments/${pay.body.id}/refunds`, { amount: 600, reference: 'r-too-much' })).status).toBe(403);
      sim.declineNextFollowUp({ kind: 'refund', code: '20057' });
      const second = await call('POST', `/payments/${pay.body.id}/refunds`, { amount: 500, reference: 'r-declined' });
      expect(second.status).toBe(202);
      await sim.decide();
    } finally {
      sim.holdDecisions = false;
    }
    const actions = (await call('GET', `/payments/${pay.body.id}/actions`)).body;
    expect(actions.map((a: any) => [a.type, a.reference, a.amount, a.approved, a.response_code])).toEqual([
      ['Refund', 'r-declined', 500, false, '20057'], ['Refund', 'r-refund', 400, true, '10000'], ['Capture', 'r-async', 900, true, '10000'], ['Authorization', 'r-async', 900, true, '10000'],
    ]);
    expect((await call('GET', `/payments/${pay.body.id}`)).body).toMatchObject({ status: 'Partially Refunded', balances: { total_refunded: 400, available_to_refund: 500 } });
  });

  it('a request the reference does not allow is answered 422 request_invalid and recorded', async () => {
    const r = await call('POST', '/payments', { source: { ...card, stored: 'yes' }, currency: 'EUR', amount: 100, reference: 'r-invalid', processing_channel_id: CHANNEL, payment_type: 'Subscription' });
    expect(r).toMatchObject({ status: 422, body: { error_type: 'request_invalid', error_codes: expect.arrayContaining(['payment_type_invalid', 'source_stored_invalid']) } });
    expect(sim.paymentByReference('r-invalid')).toBeUndefined();
    expect(() => sim.spec.assertClean()).toThrow(/requestAPaymentOrPayout request: .*\/payment_type must be equal to one of the allowed values/);
    // recorded once; the ledger is clean again for the file's end
    expect(sim.spec.violations).toEqual([]);
  });
});
