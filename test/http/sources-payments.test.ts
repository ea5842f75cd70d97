/**
 * The vault wired into the payments core (issue item 4): stored cards pay through B1/B10, B11 and
 * B15; a successful payment makes the source valid; payouts without a source use the customer's last
 * paid card; deleted and other merchants' sources are not found; single-step stores the card.
 */
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TEST_CARDS } from '../../src/processors/index.js';
import { createTestApp, type TestApp, type TestMerchant } from '../helpers/app.js';

let t: TestApp;
let a: TestMerchant;
let b: TestMerchant;

beforeAll(async () => {
  t = await createTestApp();
  a = await t.merchant({ isPci: true });
  b = await t.merchant({ isPci: true });
});
afterAll(async () => t?.close());

const store = async (m: TestMerchant, customer: string, pan: string = TEST_CARDS.APPROVED) => {
  const r = await m.api.post('/payment-method/card', { card_holder: 'Ana Pérez', card_pan: pan, card_expiry_month: 12, card_expiry_year: 30, customer_ext_id: customer });
  expect(r.status, r.raw).toBe(200);
  return r.body.Source as { uuid: string; validation_date: string | null };
};

const order = async (m: TestMerchant, body: Record<string, unknown> = {}) => {
  const r = await m.api.post('/payment', { amount: 1000, operative: 'AUTHORIZATION', secure: false, description: 'vault', service: m.service_uuid, customer_ext_id: 'payer', ...body });
  expect(r.status, r.raw).toBe(200);
  return r.body.order as { uuid: string };
};

const validUuids = async (m: TestMerchant, customer: string) =>
  (await m.api.get(`/customer/${customer}/sources`)).body.sources?.map((s: any) => s.uuid) ?? [];

describe('stored cards in payments', () => {
  it('B1 source_uuid then B10: the payment succeeds and the source becomes valid', async () => {
    const card = await store(a, 'payer');
    expect(await validUuids(a, 'payer')).toEqual([]);
    const o = await order(a, { source_uuid: card.uuid });
    const paid = await a.api.post('/payment/direct', { order_uuid: o.uuid });
    expect(paid.status, paid.raw).toBe(200);
    expect(paid.body.order.status).toBe('SUCCESS');
    const source = paid.body.order.transactions[0].source;
    expect(source).toMatchObject({ object: 'CARD', uuid: card.uuid, bin: 454881, last4: '0004' });
    expect(paid.raw).not.toContain(TEST_CARDS.APPROVED);
    expect(await validUuids(a, 'payer')).toEqual([card.uuid]);
    const view = (await a.api.get(`/payment-method/${card.uuid}`)).body.source;
    expect(view.validation_date).not.toBeNull();
    expect(view.cof.is_available).toBe(true);
  });

  it('B10 card_uuid with a refused card: no success, the source stays unvalidated', async () => {
    const card = await store(a, 'refused', TEST_CARDS.REFUSED);
    const o = await order(a, { customer_ext_id: 'refused' });
    const r = await a.api.post('/payment/direct', { order_uuid: o.uuid, card_uuid: card.uuid });
    expect(r.status).toBe(200);
    expect(r.body.order.paid).toBe(false);
    expect(await validUuids(a, 'refused')).toEqual([]);
  });

  it('B11 MoTo with source_uuid pays with the stored card', async () => {
    const card = await store(a, 'moto', TEST_CARDS.NON_3DS_OK);
    const o = await order(a, { customer_ext_id: 'moto' });
    const r = await a.api.post('/payment/moto', { order_uuid: o.uuid, method: 'PHONE', source_uuid: card.uuid });
    expect(r.status, r.raw).toBe(200);
    expect(r.body.order.status).toBe('SUCCESS');
    expect(await validUuids(a, 'moto')).toEqual([card.uuid]);
  });

  it('B15 payout without source_uuid uses the customer\'s card with the newest successful payment', async () => {
    const first = await store(a, 'payee', TEST_CARDS.APPROVED);
    const second = await store(a, 'payee', TEST_CARDS.NON_3DS_OK);
    const paidWith: Record<string, string> = {};
    for (const card of [second, first]) {
      const o = await order(a, { customer_ext_id: 'payee' });
      expect((await a.api.post('/payment/direct', { order_uuid: o.uuid, card_uuid: card.uuid })).body.order.status).toBe('SUCCESS');
      paidWith[card.uuid] = o.uuid;
    }
    const p = await order(a, { customer_ext_id: 'payee', operative: 'PAYOUT' });
    const r = await a.api.post('/payment/payout', { order_uuid: p.uuid });
    expect(r.status, r.raw).toBe(200);
    expect(r.body.order.transactions.at(-1).source.uuid).toBe(first.uuid);
    // paying with the second card again makes it the newest paid one
    const again = await order(a, { customer_ext_id: 'payee' });
    expect((await a.api.post('/payment/direct', { order_uuid: again.uuid, card_uuid: second.uuid })).body.order.status).toBe('SUCCESS');
    const p2 = await order(a, { customer_ext_id: 'payee', operative: 'PAYOUT' });
    const r2 = await a.api.post('/payment/payout', { order_uuid: p2.uuid });
    expect(r2.status, r2.raw).toBe(200);
    expect(r2.body.order.transactions.at(-1).source.uuid).toBe(second.uuid);
    // a refund of the first card's payment and a payout named to the first card are not payments with
    // it (both successful transactions carry the card): the newest paid card is still the second
    const refund = await a.api.post('/payment/refund', { order_uuid: paidWith[first.uuid], amount: 100 });
    expect(refund.status, refund.raw).toBe(200);
    const named = await order(a, { customer_ext_id: 'payee', operative: 'PAYOUT' });
    const toFirst = await a.api.post('/payment/payout', { order_uuid: named.uuid, source_uuid: first.uuid });
    expect(toFirst.body.order?.status, toFirst.raw).toBe('SUCCESS');
    const p3 = await order(a, { customer_ext_id: 'payee', operative: 'PAYOUT' });
    const r3 = await a.api.post('/payment/payout', { order_uuid: p3.uuid });
    expect(r3.status, r3.raw).toBe(200);
    expect(r3.body.order.transactions.at(-1).source.uuid).toBe(second.uuid);
    // a customer without a paid card has nothing to pay out to
    const none = await order(a, { customer_ext_id: 'nobody-paid', operative: 'PAYOUT' });
    expect((await a.api.post('/payment/payout', { order_uuid: none.uuid })).status).toBeGreaterThanOrEqual(400);
  });

  it('only a card\'s first successful payment writes its row: payments sharing a card never wait on it', async () => {
    const card = await store(a, 'shared');
    const version = async () => (await sql<{ v: string }>`select xmin::text as v from sources where id = ${card.uuid}`.execute(t.p.database.db)).rows[0].v;
    const pay = async () => {
      const o = await order(a, { customer_ext_id: 'shared' });
      const r = await a.api.post('/payment/direct', { order_uuid: o.uuid, card_uuid: card.uuid });
      expect(r.body.order.status, r.raw).toBe('SUCCESS');
    };
    const stored = await version();
    await pay();
    const afterFirst = await version();
    expect(afterFirst).not.toBe(stored); // valid from now on
    await pay();
    await pay();
    expect(await version()).toBe(afterFirst);
  });

  it('deleted and other merchants\' sources are not found', async () => {
    const card = await store(a, 'gone');
    const other = await store(b, 'theirs');
    expect((await a.api.post('/payment', { amount: 100, operative: 'AUTHORIZATION', secure: false, description: 'x', service: a.service_uuid, source_uuid: other.uuid })).status).toBe(404);
    const o = await order(a, { customer_ext_id: 'gone' });
    expect((await a.api.post('/payment/direct', { order_uuid: o.uuid, card_uuid: other.uuid })).status).toBe(404);
    // an order with no customer: only the card's owner stops it (the fast path reads the card with the order)
    const open = await order(a, { customer_ext_id: undefined });
    const foreign = await a.api.post('/payment/direct', { order_uuid: open.uuid, card_uuid: other.uuid.toUpperCase() });
    expect(foreign.status, foreign.raw).toBe(404);
    expect((await a.api.get(`/order/${open.uuid}`)).body.order.transactions).toEqual([]);
    expect((await a.api.delete('/payment-method/card', { source_uuid: card.uuid, customer_external_id: 'gone' })).status).toBe(200);
    expect((await a.api.post('/payment/direct', { order_uuid: o.uuid, card_uuid: card.uuid })).status).toBe(404);
  });

  it('B3 single-step stores the card (BIN and last 4 only in the answer) and lists it as valid once paid', async () => {
    const r = await a.api.post('/payment/single-step', {
      amount: 500, operative: 'AUTHORIZATION', secure: false, customer_ext_id: 'single', service: a.service_uuid, description: 'x',
      card_holder: 'Ana Pérez', card_pan: TEST_CARDS.APPROVED, card_expiry_month: '12', card_expiry_year: '30', card_cvv: '123',
    });
    expect(r.status, r.raw).toBe(200);
    expect(r.raw).not.toContain(TEST_CARDS.APPROVED);
    const listed = (await a.api.get('/customer/single/sources', { status: 'ALL' })).body.sources;
    expect(listed).toHaveLength(1);
    expect(listed[0]).toMatchObject({ last4: '0004', bin: 454881 });
  });
});
