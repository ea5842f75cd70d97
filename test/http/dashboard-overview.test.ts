/**
 * The dashboard's overview (GET /dashboard/api/overview): seeded random orders over about two weeks of the
 * merchant's test clock (paid with several card brands, declined for different reasons, with and without
 * 3-D Secure, deferred and confirmed, refunded days later, in EUR and USD) — the overview's figures of a
 * period and of the period before it equal those computed here from the API: C3 (GET /orders, every page,
 * the same range) for what transactions count, C2 (GET /order/{uuid}) for what orders count, and the
 * disputes API (GET /disputes) for the money lost to disputes (sandbox disputes raised on paid orders,
 * some accepted days later: money out on the day lost, in `net`). Groups without payments.read get 403.
 */
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp, type TestMerchant } from '../helpers/app.js';
import { DashClient, createUser, signedIn } from '../helpers/dashboard.js';
import { TEST_CARDS, advance, createOrder, paidOrder } from '../helpers/payments.js';
import { rng, useTestSeed } from '../helpers/seed.js';

useTestSeed(import.meta.url);
const random = rng();
const pick = <T>(xs: readonly T[]): T => xs[Math.floor(random() * xs.length)];

let t: TestApp;
let m: TestMerchant;
let manager: DashClient;
let usdService: string;
/** every order the test created (all of payment operatives) */
const created: string[] = [];

const CURRENCY: Record<string, string> = { '978': 'EUR', '840': 'USD' };

const card = (pan: string) => ({ card_holder: 'Ana Pérez', card_pan: pan, card_expiry_month: '12', card_expiry_year: '30', card_cvv: '123' });

async function single(body: Record<string, unknown>) {
  const r = await m.api.post('/payment/single-step', {
    operative: 'AUTHORIZATION', secure: false, customer_ext_id: 'cust-ov', description: 'overview', ...body,
  });
  expect(r.status, r.raw).toBe(200);
  created.push(r.body.order.uuid);
  return r.body.order as { uuid: string; status: string; paid: boolean };
}

/** One seeded order of a random kind, in a random currency. */
const KINDS = ['created', 'visa', 'mastercard', 'refused', 'refused_visa', 'cvv', 'tds_ok', 'tds_fail', 'deferred', 'visa', 'mastercard', 'partial'] as const;

async function randomOrder(paid: Array<{ uuid: string; amount: number }>, kind: (typeof KINDS)[number] = pick(KINDS)) {
  const amount = 100 + Math.floor(random() * 90) * 50;
  const service = random() < 0.3 ? usdService : m.service_uuid;
  switch (kind) {
    case 'created': {
      const o = await createOrder(m, { amount, service, customer_ext_id: 'cust-ov' });
      created.push(o.uuid);
      return;
    }
    case 'visa':
    case 'mastercard': {
      const o = await single({ amount, service, ...card(kind === 'visa' ? TEST_CARDS.APPROVED : TEST_CARDS.NON_3DS_OK) });
      if (o.paid) paid.push({ uuid: o.uuid, amount });
      return;
    }
    case 'refused':
      await single({ amount, service, ...card(TEST_CARDS.REFUSED) });
      return;
    case 'refused_visa':
      await single({ amount, service, ...card(TEST_CARDS.REFUSED_VISA) });
      return;
    case 'partial':
      await single({ amount, service, ...card(TEST_CARDS.PARTIAL) });
      return;
    case 'cvv':
      await single({ amount, service, ...card(TEST_CARDS.CVV_FAIL) });
      return;
    case 'tds_ok': {
      const o = await single({ amount, service, secure: true, ...card(TEST_CARDS.APPROVED), threeds_data: { version: 2, trans_status: 'Y', eci: 5, cavv: 'AAAB', ds_trans_id: 'ds-1' } });
      if (o.paid) paid.push({ uuid: o.uuid, amount });
      return;
    }
    case 'tds_fail':
      await single({ amount, service, secure: true, ...card(TEST_CARDS.APPROVED), threeds_data: { version: 2, trans_status: 'N' } });
      return;
    case 'deferred': {
      const o = await single({ amount, service, operative: 'DEFERRED', ...card(TEST_CARDS.APPROVED) });
      if (random() < 0.7) {
        const c = await m.api.post('/payment/confirmation', { order_uuid: o.uuid, amount: amount - 50 });
        expect(c.status, c.raw).toBe(200);
        paid.push({ uuid: o.uuid, amount: amount - 50 });
      }
      return;
    }
  }
}

beforeAll(async () => {
  t = await createTestApp();
  m = await t.merchant({ name: 'Tienda Overview', isPci: true });
  const terminal = await m.api.post('/terminal', {
    currency_code: 'USD', type: 'CREDORAX', description: 'US terminal', credentials: { merchant_id: 'CRX-000777', signing_api_key: 'abcdefghijklmnop' },
  });
  expect(terminal.status, terminal.raw).toBe(200);
  const service = await m.api.post('/service', { name: 'US shop', type: 'CREDORAX', terminal_uuid: terminal.body.terminal.uuid });
  expect(service.status, service.raw).toBe(200);
  usdService = service.body.service.uuid;
  manager = await signedIn(t.app, await createUser(m, 'MANAGER'));
  // another merchant's payment, on the same days, and its lost dispute: never in this merchant's figures
  // (check() compares them exactly)
  const other = await t.merchant({ name: 'Tienda Otra' });
  const otherOrder = await paidOrder(t, other, { amount: 777 });
  const otherDispute = await other.api.post('/disputes/simulate', { order_uuid: otherOrder.uuid });
  expect((await other.api.post(`/disputes/${otherDispute.body.dispute.uuid}/accept`, {})).status).toBe(200);

  // about two weeks of orders, some refunded days after they were paid
  const paid: Array<{ uuid: string; amount: number }> = [];
  const disputed: string[] = [];
  let lost = 0;
  const STEPS = 20;
  for (let step = 0; step < STEPS; step++) {
    const n = 1 + Math.floor(random() * 2);
    for (let i = 0; i < n; i++) await randomOrder(paid);
    // every kind at least once in the last week and a half
    if (step >= STEPS - KINDS.length) await randomOrder(paid, KINDS[step - (STEPS - KINDS.length)]);
    if (paid.length > 2 && random() < 0.4) {
      const p = paid.splice(Math.floor(random() * (paid.length - 1)), 1)[0];
      const r = await m.api.post('/payment/refund', { order_uuid: p.uuid, amount: random() < 0.5 ? p.amount : 50 });
      expect(r.status, r.raw).toBe(200);
    }
    // disputes: raised on a paid order (never refunded by this test), some accepted (lost) on a later day
    if (paid.length > 2 && (random() < 0.35 || (step === STEPS - 2 && disputed.length === 0))) {
      const p = paid.splice(Math.floor(random() * (paid.length - 1)), 1)[0];
      const r = await m.api.post('/disputes/simulate', { order_uuid: p.uuid, amount: random() < 0.5 ? p.amount : 60 });
      expect(r.status, r.raw).toBe(200);
      disputed.push(r.body.dispute.uuid);
    }
    // (and one lost in the last days whatever the seed)
    if (disputed.length > 0 && (random() < 0.4 || (step === STEPS - 2 && lost === 0))) {
      const r = await m.api.post(`/disputes/${disputed.shift()}/accept`, {});
      expect(r.status, r.raw).toBe(200);
      lost++;
    }
    await advance(m, 3600 * (12 + Math.floor(random() * 11)) + Math.floor(random() * 3600));
    // the changes of the first days are folded into day rows part-way (a batch smaller than what waits),
    // so the figures below add day rows and changes, and orders of folded days change after the fold
    if (step === 6) expect(await t.m.payments.foldOverview(5)).toBeGreaterThan(0);
    if (step === 10) while ((await t.m.payments.foldOverview(7)) > 0);
  }
}, 240_000);
afterAll(async () => {
  await t?.close();
});

// ---- the figures, computed from the API --------------------------------------------------------------

interface Expected {
  orders: number;
  paid: number;
  volume: number;
  charges: number;
  refunds: { count: number; amount: number };
  disputes_lost: { orders: number; amount: number };
  net: number;
  declines: Record<string, number>;
  threeds: Record<string, number>;
  methods: Record<string, { count: number; amount: number }>;
  series: Record<string, { orders: number; paid: number; volume: number; refunds: number; disputes_lost: number; net: number; declines: number }>;
}

const empty = (from: string, to: string): Expected => {
  const series: Expected['series'] = {};
  for (let d = from; d <= to; d = nextDay(d)) series[d] = { orders: 0, paid: 0, volume: 0, refunds: 0, disputes_lost: 0, net: 0, declines: 0 };
  return { orders: 0, paid: 0, volume: 0, charges: 0, refunds: { count: 0, amount: 0 }, disputes_lost: { orders: 0, amount: 0 }, net: 0, declines: {}, threeds: {}, methods: {}, series };
};

function nextDay(d: string): string {
  return new Date(Date.parse(`${d}T00:00:00Z`) + 86_400_000).toISOString().slice(0, 10);
}

/** C3: every transaction created in [from, to] (days in the merchant's timezone), all pages. */
async function listed(from: string, to: string) {
  const out: any[] = [];
  const fmt = (d: string) => `${d.replace(/-/g, '')}0000`;
  for (let offset = 0; ; ) {
    const r = await m.api.get('/orders', { start: fmt(from), end: fmt(nextDay(to)), limit: '7', offset: String(offset) });
    expect(r.status, r.raw).toBe(200);
    out.push(...r.body.transactions);
    if (r.body.next_offset === null || r.body.next_offset === undefined) break;
    offset = r.body.next_offset;
  }
  return out;
}

/** C2 of every order the test created: its day, currency, paid and 3-D Secure record. */
async function orders() {
  const out: Array<{ day: string; currency: string; paid: boolean; threeds: any }> = [];
  for (const uuid of created) {
    const r = await m.api.get(`/order/${uuid}`);
    expect(r.status, r.raw).toBe(200);
    const o = r.body.order;
    out.push({ day: o.created_from_client_timezone.slice(0, 10), currency: CURRENCY[o.currency], paid: o.paid, threeds: o.threeds_data });
  }
  return out;
}

function outcome(o: { paid: boolean; threeds: any }): string | null {
  const tds = o.threeds;
  if (!tds || typeof tds !== 'object') return o.paid ? 'NOT_ATTEMPTED' : null;
  if (tds.flow === 'EXEMPTED') return 'EXEMPTED';
  if (tds.status === 'PENDING') return 'PENDING';
  if (['Y', 'A', 'I'].includes(tds.status)) return tds.flow;
  return 'FAILED';
}

/** The disputes API: every dispute of the merchant, all pages. */
async function disputes() {
  const out: any[] = [];
  for (let cursor: string | null = null; ; ) {
    const r = await m.api.get('/disputes', { limit: '7', ...(cursor ? { cursor } : {}) });
    expect(r.status, r.raw).toBe(200);
    out.push(...r.body.disputes);
    cursor = r.body.next_cursor;
    if (!cursor) return out;
  }
}

async function expected(from: string, to: string, prevFrom: string, prevTo: string, timezone: string) {
  const all = new Map<string, { current: Expected; previous: Expected }>();
  const of = (currency: string, day: string) => {
    if (!all.has(currency)) all.set(currency, { current: empty(from, to), previous: empty(prevFrom, prevTo) });
    return day >= from ? all.get(currency)!.current : all.get(currency)!.previous;
  };
  for (const o of await orders()) {
    if (o.day < prevFrom || o.day > to) continue;
    const e = of(o.currency, o.day);
    e.orders++;
    e.series[o.day].orders++;
    if (o.paid) {
      e.paid++;
      e.series[o.day].paid++;
    }
    const out = outcome(o);
    if (out) e.threeds[out] = (e.threeds[out] ?? 0) + 1;
  }
  for (const tx of await listed(prevFrom, to)) {
    const day = tx.created_from_client_timezone.slice(0, 10);
    const e = of(CURRENCY[tx.currency], day);
    if (tx.status === 'SUCCESS' && (tx.operative === 'AUTHORIZATION' || tx.operative === 'CONFIRMATION')) {
      e.volume += tx.amount;
      e.charges++;
      e.series[day].volume += tx.amount;
    }
    if (tx.status === 'SUCCESS' && tx.operative === 'REFUND') {
      e.refunds.count++;
      e.refunds.amount += tx.amount;
      e.series[day].refunds += tx.amount;
    }
    if (tx.status === 'SUCCESS' && (tx.operative === 'AUTHORIZATION' || tx.operative === 'DEFERRED')) {
      const method = tx.source.object === 'CARD' ? `CARD:${tx.source.brand.toUpperCase()}` : tx.source.object;
      e.methods[method] ??= { count: 0, amount: 0 };
      e.methods[method].count++;
      e.methods[method].amount += tx.amount;
    }
    if ((tx.status === 'REFUSED' || tx.status === 'ERROR') && (tx.operative === 'AUTHORIZATION' || tx.operative === 'DEFERRED')) {
      e.declines[tx.error] = (e.declines[tx.error] ?? 0) + 1;
      e.series[day].declines++;
    }
  }
  // a lost dispute is money out on the day it was lost (each seeded order has one dispute at most)
  const dayOf = new Intl.DateTimeFormat('en-CA', { timeZone: timezone, year: 'numeric', month: '2-digit', day: '2-digit' });
  for (const d of await disputes()) {
    if (d.money.lost === 0) continue;
    const day = dayOf.format(new Date(d.resolved_at));
    if (day < prevFrom || day > to) continue;
    const e = of(d.currency, day);
    e.disputes_lost.orders++;
    e.disputes_lost.amount += d.money.lost;
    e.series[day].disputes_lost += d.money.lost;
  }
  for (const c of all.values()) {
    for (const e of [c.current, c.previous]) {
      e.net = e.volume - e.refunds.amount - e.disputes_lost.amount;
      for (const p of Object.values(e.series)) p.net = p.volume - p.refunds - p.disputes_lost;
    }
  }
  return all;
}

function shaped(f: any): Expected {
  return {
    orders: f.orders,
    paid: f.paid,
    volume: f.volume,
    charges: f.charges,
    refunds: f.refunds,
    disputes_lost: f.disputes_lost,
    net: f.net,
    declines: Object.fromEntries(f.declines.map((d: any) => [d.reason, d.count])),
    threeds: Object.fromEntries(f.threeds.map((d: any) => [d.outcome, d.count])),
    methods: Object.fromEntries(f.methods.map((d: any) => [d.method, { count: d.count, amount: d.amount }])),
    series: Object.fromEntries(f.series.map(({ date, ...rest }: any) => [date, rest])),
  };
}

async function check(query: Record<string, string>) {
  const r = await manager.get('/overview', query);
  expect(r.status, r.raw).toBe(200);
  const ov = r.body.overview;
  const want = await expected(ov.from, ov.to, ov.previous.from, ov.previous.to, ov.timezone);
  const got = new Map<string, any>(ov.currencies.map((c: any) => [c.currency, c]));
  expect([...got.keys()].sort()).toEqual([...want.keys()].sort());
  for (const [currency, w] of want) {
    const g = got.get(currency);
    expect(shaped(g.current), `${currency} ${ov.from}..${ov.to}`).toEqual(w.current);
    expect(shaped(g.previous), `${currency} previous ${ov.previous.from}..${ov.previous.to}`).toEqual(w.previous);
    expect(g.current.conversion).toBe(w.current.orders === 0 ? null : w.current.paid / w.current.orders);
  }
  return ov;
}

describe('the overview', () => {
  it('of the last 7 days and the 7 before: the figures computed from C3 and C2', async () => {
    const ov = await check({ period: '7d' });
    const clock = await m.api.get('/test-clock');
    expect(ov.to).toBe(String(clock.body.test_clock.current_time).slice(0, 10));
    expect(ov.days).toBe(7);
    expect(ov.currencies.length).toBe(2);
    // the seeded data has something of each kind in these two weeks
    const all = ov.currencies.flatMap((c: any) => [c.current, c.previous]);
    const seen = JSON.stringify(all.map((f: any) => ({ refunds: f.refunds, declines: f.declines, methods: f.methods, threeds: f.threeds })));
    expect(all.some((f: any) => f.refunds.count > 0), seen).toBe(true);
    expect(all.some((f: any) => f.disputes_lost.amount > 0 && f.net === f.volume - f.refunds.amount - f.disputes_lost.amount), seen).toBe(true);
    expect(all.some((f: any) => f.declines.length > 1), seen).toBe(true);
    expect(all.some((f: any) => f.methods.length > 1), seen).toBe(true);
    expect(new Set(all.flatMap((f: any) => f.threeds.map((x: any) => x.outcome)))).toEqual(new Set(['NOT_ATTEMPTED', 'EXTERNAL', 'FAILED']));
  });

  it('of today, 30 and 90 days, and custom ranges cutting the days of the orders', async () => {
    const today = await check({ period: 'today' });
    expect(today.days).toBe(1);
    const to = today.to;
    const back = (n: number) => new Date(Date.parse(`${to}T00:00:00Z`) - n * 86_400_000).toISOString().slice(0, 10);
    expect((await check({ period: '30d' })).days).toBe(30);
    expect((await check({ period: '90d' })).previous.from).toBe(back(179));
    for (const [a, b] of [[back(12), back(9)], [back(5), back(5)], [back(20), back(1)]]) {
      const ov = await check({ period: 'custom', from: a, to: b });
      expect([ov.from, ov.to]).toEqual([a, b]);
    }
  });

  it('is the same once every change is folded into the day rows, by folds running at once', async () => {
    const before = (await manager.get('/overview', { period: '30d' })).body.overview;
    const folds = await Promise.all([t.m.payments.foldOverview(3), t.m.payments.foldOverview(3), t.m.payments.foldOverview(1_000)]);
    expect(folds.reduce((a, b) => a + b, 0)).toBeGreaterThan(0);
    while ((await t.m.payments.foldOverview(1_000)) > 0);
    const left = await sql<{ n: number }>`select (select count(*) from overview_order_changes) + (select count(*) from overview_tx_changes) as n`.execute(t.db.database.db);
    expect(Number(left.rows[0].n)).toBe(0);
    expect((await manager.get('/overview', { period: '30d' })).body.overview).toEqual(before);
    await check({ period: '30d' });
    await check({ period: 'today' });
  });

  it('of a database upgraded with orders already in it: the migration\'s backfill counts what the triggers counted', async () => {
    const before = (await manager.get('/overview', { period: '30d' })).body.overview;
    const db = t.db.database.db;
    await sql`truncate overview_order_changes, overview_tx_changes, overview_order_days, overview_tx_days`.execute(db);
    expect((await manager.get('/overview', { period: '30d' })).body.overview.currencies).toEqual([]);
    await sql`select paygate_overview_backfill()`.execute(db);
    expect((await manager.get('/overview', { period: '30d' })).body.overview).toEqual(before);
    while ((await t.m.payments.foldOverview(1_000)) > 0);
    expect((await manager.get('/overview', { period: '30d' })).body.overview).toEqual(before);
  });

  it('refuses a custom range that is not one', async () => {
    for (const q of [{ period: 'custom' }, { period: 'custom', from: '2026-02-30', to: '2026-03-01' }, { period: 'custom', from: '2026-03-02', to: '2026-03-01' }, { period: 'custom', from: '2024-01-01', to: '2026-01-01' }, { period: 'year' }]) {
      const r = await manager.get('/overview', q as Record<string, string>);
      expect(r.status, JSON.stringify(q)).toBe(400);
    }
  });

  it('is for groups with payments.read only: BATCH gets 403', async () => {
    const batch = await signedIn(t.app, await createUser(m, 'BATCH'));
    expect((await batch.get('/overview', { period: '7d' })).status).toBe(403);
  });
});
