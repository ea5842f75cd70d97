/** Helpers of the risk tests: seeded random cards, security lists, payments through B3, B10 and the page. */
import { expect } from 'vitest';
import type { TestApp, TestMerchant } from './app.js';
import { recordKnownPans } from './capture.js';
import { FORM, nonceOf, pagePath } from './pages.js';
import { storeCard } from './payments.js';
import { rng } from './seed.js';

/** mulberry32 (test/helpers/seed.ts): a small seeded generator; the run's seed is printed. */
export { rng };

/** The default source of random digits: seeded with the run's seed. */
const seededRandom = rng();

/** A Luhn-valid 16-digit card number starting with `prefix`, recorded for the card-data scan. */
export function cardNumber(prefix: string, rand: () => number = seededRandom): string {
  let d = prefix;
  while (d.length < 15) d += String(Math.floor(rand() * 10));
  let sum = 0;
  for (let i = 0; i < 15; i++) {
    let x = Number(d[14 - i]);
    if (i % 2 === 0) {
      x *= 2;
      if (x > 9) x -= 9;
    }
    sum += x;
  }
  const pan = d + String((10 - (sum % 10)) % 10);
  recordKnownPans([pan]);
  return pan;
}

let n = 0;
/** A fresh Visa number (no country: its BIN is not a sandbox country BIN). */
export const freshCard = () => cardNumber(`4916${String(100 + (n++ % 900))}`);

export async function newList(m: TestMerchant, type: 'WHITELIST' | 'BLACKLIST' | 'GREYLIST', items: Array<{ type: string; value: unknown; description?: string | null }>, services: string[] = [m.service_uuid!]): Promise<string> {
  const l = await m.api.post('/security-list', { type, enabled: true, description: `${type} for a test` });
  expect(l.status, l.raw).toBe(200);
  const id = l.body.colorlists.uuid as string;
  if (items.length > 0) {
    const r = await m.api.post(`/security-list/${id}/items`, { items });
    expect(r.status, r.raw).toBe(200);
  }
  for (const s of services) {
    const r = await m.api.post(`/security-list/${id}/service`, { service_uuid: s });
    expect(r.status, r.raw).toBe(200);
  }
  return id;
}

export async function newService(m: TestMerchant): Promise<string> {
  const term = await m.api.post('/terminal', { currency_code: 'EUR', type: 'PAYGATE', description: 'second' });
  expect(term.status, term.raw).toBe(200);
  const svc = await m.api.post('/service', { name: 'second', type: 'PAYGATE', terminal_uuid: term.body.terminal.uuid });
  expect(svc.status, svc.raw).toBe(200);
  return svc.body.service.uuid;
}

export interface Pay {
  pan?: string;
  customer?: string;
  ip?: string | null;
  amount?: number;
  secure?: boolean;
  service?: string;
}

/** B3: single-step payment. */
export function single(m: TestMerchant, p: Pay = {}) {
  return m.api.post('/payment/single-step', {
    amount: p.amount ?? 1500, operative: 'AUTHORIZATION', secure: p.secure ?? false, customer_ext_id: p.customer ?? 'risk-cust', service: p.service ?? m.service_uuid,
    description: 'risk test', card_holder: 'Ana Pérez', card_pan: p.pan ?? freshCard(), card_expiry_month: '12', card_expiry_year: '2030', card_cvv: '123',
    ...(p.ip ? { customer_ip: p.ip } : {}),
  });
}

/** B1 then B10 with a card stored for the customer. */
export async function direct(t: TestApp, m: TestMerchant, p: Pay = {}) {
  const customer = p.customer ?? 'risk-cust';
  const pan = p.pan ?? freshCard();
  recordKnownPans([pan]);
  const o = await m.api.post('/payment', { amount: p.amount ?? 1500, operative: 'AUTHORIZATION', secure: p.secure ?? false, description: 'risk test', service: p.service ?? m.service_uuid, customer_ext_id: customer });
  expect(o.status, o.raw).toBe(200);
  const card = await storeCard(t, m, pan, customer);
  const r = await m.api.post('/payment/direct', { order_uuid: o.body.order.uuid, card_uuid: card, ...(p.ip ? { customer_ip: p.ip } : {}) });
  return Object.assign(r, { card });
}

/** B1 (no customer) then the hosted page's card form, from `p.ip`. Returns the order as it is after. */
export async function onPage(t: TestApp, m: TestMerchant, p: Pay = {}) {
  const pan = p.pan ?? freshCard();
  recordKnownPans([pan]);
  const o = await m.api.post('/payment', { amount: p.amount ?? 1500, operative: 'AUTHORIZATION', secure: p.secure ?? false, description: 'risk test', service: p.service ?? m.service_uuid });
  expect(o.status, o.raw).toBe(200);
  const url = pagePath(o.body.order);
  const headers = p.ip ? { 'x-forwarded-for': p.ip } : {};
  const page = await t.app.inject({ method: 'GET', url, headers });
  expect(page.statusCode).toBe(200);
  const res = await t.app.inject({ method: 'POST', url, headers: { ...FORM, ...headers }, payload: new URLSearchParams({ nonce: nonceOf(page.body), holder: 'Ana Pérez', number: pan, expiry: '12/30', cvv: '123' }).toString() });
  expect(res.statusCode, res.body.slice(0, 300)).toBe(303);
  const after = await m.api.get(`/order/${o.body.order.uuid}`);
  return { location: String(res.headers.location), order: after.body.order };
}

export const tx = (order: { transactions: Array<Record<string, any>> }) => order.transactions[order.transactions.length - 1];
