/**
 * Routing's fee model and replay through the API, on both databases. A merchant's entry service routes
 * VISA cards to a second service (an ACTIVE profile); ten payments on the sandbox (approvals, an injected
 * decline, a card the simulator refuses) make a small history whose figures are computed by hand below;
 * replaying a draft of other rules gives the expected approvals (by BIN, brand, service or overall rate,
 * as each payment's history allows) and fees (each service's fee model, by card type and region from the
 * BIN table), beside what happened; replaying the profile that made the history gives back what happened.
 * The fee model API: set, read, replaced whole, another merchant's service 404, problems 400 by field.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp, type TestMerchant } from '../helpers/app.js';
import { advance, createOrder, storeCard, TEST_CARDS } from '../helpers/payments.js';
import { testDbKind } from '../helpers/db.js';

let t: TestApp;
let m: TestMerchant;
let other: TestMerchant;
/** the entry service (the one orders name), the service VISA cards go to, a service without history */
let E: string;
let S2: string;
let S3: string;
let profile: string;
/** stored cards: VISA 454881 (approved), VISA 411111 (refused by the simulator), MASTERCARD 559033 (approved) */
const card: Record<'a' | 'c' | 'b', string> = { a: '', c: '', b: '' };

async function service(mm: TestMerchant, name: string): Promise<string> {
  const terminal = await mm.api.post('/terminal', { currency_code: 'EUR', type: 'REDSYSPSD2', description: name, code: '1', credentials: { key_secure: 'sq7HjrUOBfKmC576ILgskD5srU870gJ7', key_not_secure: 'sq7HjrUOBfKmC576ILgskD5srU870gJ7', terminal_secure: '1', terminal_not_secure: '2' } });
  expect(terminal.status, terminal.raw).toBe(200);
  const r = await mm.api.post('/service', { name, type: 'REDSYSPSD2', terminal_uuid: terminal.body.terminal.uuid });
  expect(r.status, r.raw).toBe(200);
  return r.body.service.uuid;
}

/** One order paid with a stored card; `decline` injects an insufficient-funds refusal (never cascaded). */
async function pay(which: 'a' | 'b' | 'c', amount: number, decline = false): Promise<{ status: string; service: string }> {
  if (decline) t.m.processors.simulator.injectFault({ operation: 'authorize', kind: 'decline', error: 'INSUFFICIENT_FUNDS' });
  const order = await createOrder(m, { amount });
  const r = await m.api.post('/payment/direct', { order_uuid: order.uuid, card_uuid: card[which] });
  expect(r.status, r.raw).toBe(200);
  const o = await m.api.get(`/order/${order.uuid}`);
  const tx = o.body.order.transactions as Array<Record<string, any>>;
  expect(tx).toHaveLength(1);
  return { status: tx[0].status, service: tx[0].routing?.service_uuid ?? m.service_uuid };
}

beforeAll(async () => {
  t = await createTestApp();
  m = await t.merchant({ name: 'Replay Shop', isPci: true });
  other = await t.merchant({ name: 'Other Shop' });
  E = m.service_uuid!;
  S2 = await service(m, 'visa acquirer');
  S3 = await service(m, 'new acquirer');
  await t.m.routing.importBins(Buffer.from(['BIN_FROM,BIN_TO,BRAND,CARD_TYPE,ISSUER_COUNTRY', '454881,454881,VISA,DEBIT,ES', '411111,411111,VISA,CREDIT,US', '559033,559033,MASTERCARD,CREDIT,ES'].join('\n')));
  card.a = await storeCard(t, m, TEST_CARDS.APPROVED);
  card.c = await storeCard(t, m, TEST_CARDS.REFUSED_VISA);
  card.b = await storeCard(t, m, TEST_CARDS.NON_3DS_OK);
  const p = await m.api.post('/routing-profiles', {
    service_uuid: E, name: 'visa to two', status: 'ACTIVE', max_attempts: 1,
    rules: [{ name: 'visa', conditions: [{ type: 'brand', values: ['VISA'] }], action: { type: 'service', service_uuid: S2 } }],
  });
  expect(p.status, p.raw).toBe(200);
  profile = p.body.routing_profile.uuid;

  // an approved payment three days ago: outside a 2-day replay
  expect(await pay('a', 1000)).toEqual({ status: 'SUCCESS', service: S2 });
  await advance(m, 3 * 86_400);
  // the history: a (VISA 454881, 1000) x4 on S2, one declined; c (VISA 411111, 2000) x2 on S2, refused;
  // b (MASTERCARD 559033, 3000) x4 on E, one declined
  const made = [
    await pay('a', 1000), await pay('a', 1000, true), await pay('a', 1000), await pay('a', 1000),
    await pay('c', 2000), await pay('c', 2000),
    await pay('b', 3000), await pay('b', 3000), await pay('b', 3000, true), await pay('b', 3000),
  ];
  expect(made.map((x) => `${x.status}@${x.service === S2 ? 'S2' : x.service === E ? 'E' : '?'}`)).toEqual([
    'SUCCESS@S2', 'REFUSED@S2', 'SUCCESS@S2', 'SUCCESS@S2', 'REFUSED@S2', 'REFUSED@S2', 'SUCCESS@E', 'SUCCESS@E', 'REFUSED@E', 'SUCCESS@E',
  ]);
});
afterAll(async () => t?.close());

const feesOf = async (s: string) => (await m.api.get(`/routing/fees/${s}`)).body.routing_fees;

describe(`routing fees (${testDbKind()})`, () => {
  it('a service without a model has no lines; set, read, replaced whole', async () => {
    expect(await feesOf(S3)).toEqual({ service_uuid: S3, merchant_country: null, fees: [], updated_at: null });
    const first = await m.api.put(`/routing/fees/${S2}`, { merchant_country: 'es', fees: [{ card_type: 'ANY', region: 'ANY', percent_bp: 1, fixed: 1 }] });
    expect(first.status, first.raw).toBe(200);
    expect(first.body.routing_fees).toMatchObject({ service_uuid: S2, merchant_country: 'ES', fees: [{ card_type: 'ANY', region: 'ANY', percent_bp: 1, fixed: 1 }] });
    // the models the replay tests below price with (they run after these, in this file's order): S2 by card type and region, E one line, S3 none
    const lines = [
      { card_type: 'ANY', region: 'ANY', percent_bp: 200, fixed: 0 },
      { card_type: 'ANY', region: 'INTERNATIONAL', percent_bp: 300, fixed: 5 },
      { card_type: 'DEBIT', region: 'DOMESTIC', percent_bp: 50, fixed: 0 },
    ];
    const r = await m.api.put(`/routing/fees/${S2}`, { merchant_country: 'ES', fees: lines });
    expect(r.status, r.raw).toBe(200);
    // listed card type first, then region
    expect(r.body.routing_fees.fees).toEqual([lines[2], lines[1], lines[0]]);
    expect(r.body.routing_fees.updated_at).toMatch(/Z$/);
    expect(await feesOf(S2)).toEqual(r.body.routing_fees);
    const e = await m.api.put(`/routing/fees/${E}`, { merchant_country: 'ES', fees: [{ card_type: 'ANY', region: 'ANY', percent_bp: 100, fixed: 10 }] });
    expect(e.status, e.raw).toBe(200);
  });

  it('another merchant\'s service is 404; problems are 400 naming the field; nothing changes', async () => {
    expect((await other.api.get(`/routing/fees/${S2}`)).status).toBe(404);
    expect((await other.api.put(`/routing/fees/${S2}`, { fees: [] })).status).toBe(404);
    const before = await feesOf(S2);
    const dup = await m.api.put(`/routing/fees/${S2}`, { fees: [{ card_type: 'CREDIT', region: 'ANY', percent_bp: 1, fixed: 0 }, { card_type: 'CREDIT', region: 'ANY', percent_bp: 2, fixed: 0 }] });
    expect(dup.status, dup.raw).toBe(400);
    expect(dup.body.errors).toEqual([{ field: 'fees[1]', problem: 'repeats card_type CREDIT and region ANY of fees[0]' }]);
    const big = await m.api.put(`/routing/fees/${S2}`, { fees: [{ card_type: 'ANY', region: 'ANY', percent_bp: 10_001, fixed: 0 }] });
    expect(big.status, big.raw).toBe(400);
    expect(big.body.details).toContain('percent_bp');
    const region = await m.api.put(`/routing/fees/${S2}`, { fees: [{ card_type: 'ANY', region: 'EUROPE', percent_bp: 1, fixed: 0 }] });
    expect(region.status, region.raw).toBe(400);
    expect(region.body.details).toContain('region');
    const country = await m.api.put(`/routing/fees/${S2}`, { merchant_country: 'ESP', fees: [] });
    expect(country.status, country.raw).toBe(400);
    expect(country.body.details).toContain('merchant_country');
    expect(await feesOf(S2)).toEqual(before);
  });
});

const by = (services: Array<Record<string, any>>, s: string) => services.find((x) => x.service_uuid === s);

describe(`routing replay (${testDbKind()})`, () => {
  it('a draft of other rules over the last 2 days: the figures computed by hand', async () => {
    const r = await m.api.post(`/routing-profiles/${profile}/replay`, {
      days: 2,
      min_observations: 3,
      rules: [
        { name: 'mastercard-to-three', conditions: [{ type: 'brand', values: ['MASTERCARD'] }], action: { type: 'service', service_uuid: S3 } },
        { name: '411111-stays', conditions: [{ type: 'bin', ranges: [{ from: '411111', to: '411111' }] }], action: { type: 'service', service_uuid: S2 } },
        { name: 'rest-to-entry', conditions: [], action: { type: 'service', service_uuid: E } },
      ],
    });
    expect(r.status, r.raw).toBe(200);
    const x = r.body.routing_replay;
    expect(x).toMatchObject({ profile_uuid: profile, profile_version: 1, draft: true, days: 2, currency: 'EUR', min_observations: 3, payments: 10, other_currencies: 0, capped: false, cap: 200000 });
    // observed: (454881, S2) 3 of 4; (411111, S2) 0 of 2; VISA on S2 3 of 6; (559033, E) 3 of 4; E 3 of 4; overall 6 of 10
    // b x4 -> S3: no history there -> overall 0.6: 2.4 approvals; S3 has no fee model: unpriced
    expect(by(x.services, S3)).toMatchObject({
      service_name: 'new acquirer',
      replayed: { payments: 4, amount: 12000, expected_approvals: 2.4, expected_approval_rate: 0.6, expected_fees: 0, unpriced: 4, rate_sources: { bin: 0, brand: 0, service: 0, overall: 4 } },
      actual: { payments: 0, amount: 0, approvals: 0, approval_rate: null, fees: 0, unpriced: 0 },
    });
    // c x2 -> S2: its BIN has 2 payments there (< 3) -> VISA on S2, 0.5: 1 approval; fee 2000 CREDIT US = INTERNATIONAL: 3 % + 5 = 65, x2 x0.5 = 65
    // actual on S2: a x4 (DEBIT ES, DOMESTIC: 0.5 % = 5; 3 approved: 15) and c x2 (refused)
    expect(by(x.services, S2)).toMatchObject({
      replayed: { payments: 2, amount: 4000, expected_approvals: 1, expected_approval_rate: 0.5, expected_fees: 65, unpriced: 0, rate_sources: { bin: 0, brand: 2, service: 0, overall: 0 } },
      actual: { payments: 6, amount: 8000, approvals: 3, approval_rate: 0.5, fees: 15, unpriced: 0 },
    });
    // a x4 -> E: no 454881 nor VISA there -> E's rate 0.75: 3 approvals; fee 1 % + 10 = 20, x4 x0.75 = 60
    // actual on E: b x4 (3000: 1 % + 10 = 40; 3 approved: 120)
    expect(by(x.services, E)).toMatchObject({
      replayed: { payments: 4, amount: 4000, expected_approvals: 3, expected_approval_rate: 0.75, expected_fees: 60, unpriced: 0, rate_sources: { bin: 0, brand: 0, service: 4, overall: 0 } },
      actual: { payments: 4, amount: 12000, approvals: 3, approval_rate: 0.75, fees: 120, unpriced: 0 },
    });
    expect(x.services).toHaveLength(3);
    expect(x.totals).toEqual({
      replayed: { payments: 10, amount: 20000, expected_approvals: 6.4, expected_approval_rate: 0.64, expected_fees: 125, unpriced: 4, rate_sources: { bin: 0, brand: 2, service: 4, overall: 4 } },
      actual: { payments: 10, amount: 20000, approvals: 6, approval_rate: 0.6, fees: 135, unpriced: 0 },
      difference: { approvals: 0.4, approval_rate: 0.04, fees: -10 },
    });
  });

  it('the profile that made the history, every rate by BIN: what happened; a longer window takes the older payment', async () => {
    const r = await m.api.post(`/routing-profiles/${profile}/replay`, { days: 2, min_observations: 1 });
    expect(r.status, r.raw).toBe(200);
    const x = r.body.routing_replay;
    expect(x.draft).toBe(false);
    expect(x.totals.replayed).toMatchObject({ payments: 10, expected_approvals: 6, expected_fees: 135, rate_sources: { bin: 10, brand: 0, service: 0, overall: 0 } });
    expect(x.totals.difference).toEqual({ approvals: 0, approval_rate: 0, fees: 0 });
    const longer = await m.api.post(`/routing-profiles/${profile}/replay`, { days: 4, min_observations: 1 });
    expect(longer.body.routing_replay.totals.actual).toMatchObject({ payments: 11, approvals: 7, fees: 140 });
    // another currency: nothing of this history
    const usd = await m.api.post(`/routing-profiles/${profile}/replay`, { days: 4, currency: 'USD' });
    expect(usd.status, usd.raw).toBe(200);
    expect(usd.body.routing_replay).toMatchObject({ payments: 0, other_currencies: 11, services: [] });
  });

  it('another merchant\'s profile is 404; bad days and a draft naming a service not yours are 400 by field', async () => {
    expect((await other.api.post(`/routing-profiles/${profile}/replay`, { days: 1 })).status).toBe(404);
    for (const days of [0, 91]) {
      const bad = await m.api.post(`/routing-profiles/${profile}/replay`, { days });
      expect(bad.status, bad.raw).toBe(400);
      expect(bad.body.details).toContain('days');
    }
    const foreign = await m.api.post(`/routing-profiles/${profile}/replay`, { days: 1, rules: [{ name: 'x', conditions: [], action: { type: 'service', service_uuid: other.service_uuid } }] });
    expect(foreign.status, foreign.raw).toBe(400);
    expect(foreign.body.errors).toEqual([expect.objectContaining({ field: 'rules[0].action.service_uuid' })]);
  });
});

describe(`the history read in pages (${testDbKind()})`, () => {
  it('the replay walks pages of 3 to the same figures, and stops at a cap of 4 saying so', async () => {
    const body = { days: 2, min_observations: 1 };
    // the period moves with the clock between two calls: compare the rest
    const figures = ({ from: _f, to: _t, cap: _c, ...rest }: Record<string, unknown>) => rest;
    const whole = (await m.api.post(`/routing-profiles/${profile}/replay`, body)).body.routing_replay;
    const economics = t.m.routing.economics;
    const saved = { ...economics.limits };
    try {
      economics.limits = { page: 3, cap: 1000 };
      const paged = await m.api.post(`/routing-profiles/${profile}/replay`, body);
      expect(paged.status, paged.raw).toBe(200);
      expect(figures(paged.body.routing_replay)).toEqual(figures(whole));
      expect(paged.body.routing_replay.cap).toBe(1000);
      economics.limits = { page: 3, cap: 4 };
      const capped = (await m.api.post(`/routing-profiles/${profile}/replay`, body)).body.routing_replay;
      // the oldest 4: a x4 on S2, 3 approved
      expect(capped).toMatchObject({ payments: 4, capped: true, cap: 4 });
      expect(capped.totals.actual).toMatchObject({ payments: 4, amount: 4000, approvals: 3 });
      economics.limits = { page: 3, cap: 10 };
      expect((await m.api.post(`/routing-profiles/${profile}/replay`, body)).body.routing_replay).toMatchObject({ payments: 10, capped: false });
    } finally {
      economics.limits = saved;
    }
  });

  it('paymentHistory: one row per order (a cascade\'s fallback is not one), the card\'s BIN and brand, the channel', async () => {
    const { paymentHistory } = await import('../../src/modules/payments/index.js');
    const window = async () => {
      const now = new Date((await m.api.get('/test-clock')).body.current_time);
      return { merchantId: m.client_uuid, env: m.env, entryServiceId: E, from: new Date(now.getTime() - 2 * 86_400_000), to: new Date(now.getTime() + 60_000) };
    };
    // VISA now falls back to E: a soft decline on S2 is approved on E, one order, two attempts
    const p = await m.api.put(`/routing-profiles/${profile}`, {
      service_uuid: E, name: 'visa to two, then entry', status: 'ACTIVE', max_attempts: 2,
      rules: [{ name: 'visa', conditions: [{ type: 'brand', values: ['VISA'] }], action: { type: 'service', service_uuid: S2, fallbacks: [E] } }],
    });
    expect(p.status, p.raw).toBe(200);
    t.m.processors.simulator.injectFault({ operation: 'authorize', kind: 'decline', error: 'DENIED' });
    const cascaded = await createOrder(m, { amount: 4000 });
    await m.api.post('/payment/direct', { order_uuid: cascaded.uuid, card_uuid: card.a });
    const o = (await m.api.get(`/order/${cascaded.uuid}`)).body.order;
    expect(o.transactions.map((x: any) => [x.status, x.routing.service_uuid])).toEqual([['REFUSED', S2], ['SUCCESS', E]]);
    // a MoTo payment with the card keyed (kept for the order's customer: its source says MOTO)
    const moto = await createOrder(m, { amount: 5000 });
    const keyed = await m.api.post('/payment/moto', { order_uuid: moto.uuid, method: 'PHONE', card_pan: TEST_CARDS.NON_3DS_OK, card_holder: 'Ana Pérez', card_expiry_month: '12', card_expiry_year: '30', card_cvv: '123' });
    expect(keyed.status, keyed.raw).toBe(200);

    const f = await window();
    const all = await paymentHistory(t.p.database.db, { ...f, limit: 100 });
    const pages: typeof all = [];
    for (let after: { created_at: Date; id: string } | null = null; ;) {
      const page = await paymentHistory(t.p.database.db, { ...f, after, limit: 3 });
      pages.push(...page);
      if (page.length < 3) break;
      after = { created_at: page[2].created_at, id: page[2].id };
    }
    expect(pages.map((r) => r.id)).toEqual(all.map((r) => r.id));
    expect(all).toHaveLength(12);
    expect(new Set(all.map((r) => r.order_id)).size).toBe(12);
    expect(all[0]).toMatchObject({ amount: 1000, currency: 'EUR', service_id: S2, status: 'SUCCESS', bin: '454881', brand: 'VISA', channel: 'ECOMMERCE' });
    expect(all.find((r) => r.order_id === cascaded.uuid)).toMatchObject({ service_id: S2, status: 'REFUSED', error: 'DENIED', amount: 4000 });
    expect(all.find((r) => r.order_id === moto.uuid)).toMatchObject({ service_id: E, status: 'SUCCESS', bin: '559033', brand: 'MASTERCARD', channel: 'MOTO' });
    // another merchant, or another entry service: nothing
    expect(await paymentHistory(t.p.database.db, { ...f, merchantId: other.client_uuid })).toEqual([]);
    expect(await paymentHistory(t.p.database.db, { ...f, entryServiceId: S2 })).toEqual([]);
  });
});
