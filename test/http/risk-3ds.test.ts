/**
 * 3-D Secure paths and their `threeds_data`: the frictionless sandbox card, the challenge, the
 * exemptions (low value, white-listed, merchant-initiated), and an issuer that refuses an exemption.
 * Then a stream of 1,000 ordinary sandbox payments, all accepted by the default rules.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp, type TestMerchant } from '../helpers/app.js';
import { FORM, nonceOf, open, pagePath } from '../helpers/pages.js';
import { TEST_CARDS, advance } from '../helpers/payments.js';
import { cardNumber, direct, newList, onPage, rng, single, tx } from '../helpers/risk.js';
import { useTestSeed } from '../helpers/seed.js';

const TEST_SEED = useTestSeed(import.meta.url);

let t: TestApp;
let m: TestMerchant;

beforeAll(async () => {
  t = await createTestApp();
  m = await t.merchant({ isPci: true });
});
afterAll(async () => t?.close());

const order = async (uuid: string) => (await m.api.get(`/order/${uuid}`)).body.order;

/** Answers the sandbox ACS challenge of an order waiting for 3DS. */
async function challenge(o: { token: string }, result: 'approve' | 'fail') {
  const url = pagePath(o, 'tokenized');
  const page = await open(t, url);
  expect(page.statusCode).toBe(200);
  const r = await t.app.inject({ method: 'POST', url, headers: FORM, payload: new URLSearchParams({ nonce: nonceOf(page.body), result }).toString() });
  expect(r.statusCode).toBe(303);
}

describe('3-D Secure', () => {
  it('frictionless: the sandbox card 4000000000003055 pays at once on B3, B10 and the page', async () => {
    const b3 = await single(m, { secure: true, pan: TEST_CARDS.FRICTIONLESS });
    expect(b3.status, b3.raw).toBe(200);
    expect(b3.body.order).toMatchObject({ status: 'SUCCESS', safe: true });
    expect(b3.body.order.threeds_data).toEqual({ version: '2.2.0', flow: 'FRICTIONLESS', sca_requested: true, status: 'Y', eci: '05', exemption: null });
    const b10 = await direct(t, m, { secure: true, pan: TEST_CARDS.FRICTIONLESS });
    expect(b10.status).toBe(200);
    expect(b10.body.order.threeds_data).toMatchObject({ flow: 'FRICTIONLESS', status: 'Y' });
    const page = await onPage(t, m, { secure: true, pan: TEST_CARDS.FRICTIONLESS });
    expect(page.location).toContain('result=ok');
    expect(page.order.threeds_data).toMatchObject({ version: '2.2.0', flow: 'FRICTIONLESS' });
  });

  it('challenge: every other card goes through the ACS as before', async () => {
    const r = await single(m, { secure: true, pan: TEST_CARDS.THREEDS_OK });
    expect(r.status).toBe(303);
    await challenge(r.body.order, 'approve');
    const done = await order(r.body.order.uuid);
    expect(done).toMatchObject({ status: 'SUCCESS', safe: true });
    expect(done.threeds_data).toEqual({ version: '2.2.0', flow: 'CHALLENGE', sca_requested: true, status: 'Y', eci: '05', exemption: null });
    const failed = await single(m, { secure: true, pan: TEST_CARDS.THREEDS_OK });
    await challenge(failed.body.order, 'fail');
    expect((await order(failed.body.order.uuid)).threeds_data).toMatchObject({ version: '2.2.0', flow: 'CHALLENGE', status: 'N' });
  });

  it('low-value exemption (when the merchant turns it on): no challenge up to 30 EUR, acknowledged by the issuer', async () => {
    const n = await t.merchant({ isPci: true });
    // off by default: a secure order is challenged whatever its amount
    expect((await single(n, { secure: true, amount: 2000 })).status).toBe(303);
    await n.api.put('/antifraud/rules', { low_value_exemption: { enabled: true } });
    const low = await single(n, { secure: true, amount: 3000 });
    expect(low.status, low.raw).toBe(200);
    expect(low.body.order).toMatchObject({ status: 'SUCCESS', safe: false });
    expect(low.body.order.threeds_data).toEqual({ version: '2.2.0', flow: 'FRICTIONLESS', sca_requested: false, status: 'I', eci: '07', exemption: 'LOW_VALUE' });
    expect((await single(n, { secure: true, amount: 3001 })).status).toBe(303);
    // the issuer of the soft-decline card wants a challenge instead
    const refused = await single(n, { secure: true, amount: 1000, pan: TEST_CARDS.SOFT_DECLINE });
    expect(refused.status).toBe(303);
    await challenge(refused.body.order, 'approve');
    expect((await n.api.get(`/order/${refused.body.order.uuid}`)).body.order.threeds_data).toMatchObject({ flow: 'CHALLENGE', exemption: null, status: 'Y' });
    // a risk challenge is never exempted
    expect((await single(n, { secure: true, amount: 1000, ip: '203.0.113.66' })).status).toBe(303);
  });

  it('white-listed exemption: a trusted customer of a secure order is not challenged', async () => {
    const n = await t.merchant({ isPci: true });
    await newList(n, 'WHITELIST', [{ type: 'CUSTOMER', value: 'trusted' }], [n.service_uuid!]);
    const r = await single(n, { secure: true, customer: 'trusted', amount: 90_000 });
    expect(r.status, r.raw).toBe(200);
    expect(r.body.order.threeds_data).toMatchObject({ version: '2.2.0', flow: 'FRICTIONLESS', sca_requested: false, status: 'I', exemption: 'WHITELISTED' });
    expect(tx(r.body.order).antifraud).toMatchObject({ evaluation: 'ACCEPT', triggered_rules: ['WHITELIST'] });
    expect((await single(n, { secure: true, customer: 'someone', amount: 90_000 })).status).toBe(303);
  });

  it('merchant-initiated payments are recorded as exempted, even on a secure order', async () => {
    const ctx = await t.m.merchants.contextForKey(m.key_id);
    const first = await single(m, { customer: 'mit-1' });
    const created = await t.m.payments.create(ctx, { amount: 999, operative: 'AUTHORIZATION', secure: true, description: 'renewal', service: m.service_uuid, customer_ext_id: 'mit-1' });
    const r = await t.m.payments.pay(ctx, created.order.uuid, { channel: 'MIT', card: { kind: 'source', sourceUuid: tx(first.body.order).source.uuid } });
    expect(r.order.status).toBe('SUCCESS');
    expect(r.order.threeds_data).toMatchObject({ version: '2.2.0', exemption: 'MERCHANT_INITIATED', sca_requested: false });
  });
});

describe('ordinary traffic', () => {
  it('1,000 ordinary sandbox payments (seeded random amounts, cards, customers, addresses) are all ACCEPT', async () => {
    const n = await t.merchant({ isPci: true });
    const seed = TEST_SEED;
    const rand = rng(seed);
    const pick = <T>(xs: readonly T[]) => xs[Math.floor(rand() * xs.length)];
    const customers = Array.from({ length: 600 }, (_, i) => ({
      id: `shopper-${i}`,
      // a Spanish shopper on a Spanish address, or anyone anywhere with a card of no known country
      spanish: rand() < 0.3,
      cards: [] as string[],
    }));
    const counts: Record<string, number> = {};
    // when each card paid (seconds on the test clock): ordinary shoppers stay within the default card
    // velocity (5 payments an hour); one who would pay a 6th time within the hour uses another card
    const paidAt = new Map<string, number[]>();
    const busy = (pan: string, now: number) => (paidAt.get(pan) ?? []).filter((at) => at > now - 3600).length >= 5;
    for (let i = 0; i < 1000; i++) {
      // about 400 payments an hour: the shop's day, not a burst
      if (i > 0 && i % 100 === 0) await advance(n, 900);
      const now = Math.floor(i / 100) * 900;
      const c = pick(customers);
      if (c.cards.length === 0 || rand() < 0.3) c.cards.push(c.spanish ? cardNumber('40000724', rand) : cardNumber(pick(['4916', '5425', '4539', '5188']), rand));
      let pan = pick(c.cards);
      if (busy(pan, now)) c.cards.push((pan = c.spanish ? cardNumber('40000724', rand) : cardNumber(pick(['4916', '5425', '4539', '5188']), rand)));
      paidAt.set(pan, [...(paidAt.get(pan) ?? []), now]);
      const ip = c.spanish ? `192.0.2.${Math.floor(rand() * 256)}` : rand() < 0.2 ? null : pick([`198.51.100.${Math.floor(rand() * 256)}`, `2001:db8:${Math.floor(rand() * 65535).toString(16)}::${Math.floor(rand() * 65535).toString(16)}`]);
      const amount = 100 + Math.floor(rand() ** 2 * 40_000);
      const r = await single(n, { pan, customer: c.id, ip, amount });
      expect(r.status, `payment ${i} (seed ${seed}): ${r.raw.slice(0, 300)}`).toBe(200);
      const af = tx(r.body.order).antifraud;
      counts[af.evaluation] = (counts[af.evaluation] ?? 0) + 1;
      expect(af, `payment ${i} (seed ${seed})`).toMatchObject({ evaluation: 'ACCEPT', triggered_rules: [] });
    }
    expect(counts).toEqual({ ACCEPT: 1000 });
  }, 600_000);
});
