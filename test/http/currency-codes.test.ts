/**
 * Requests accept a currency as ISO 4217 alpha-3 (any case) or numeric (string or number), wherever a
 * currency is taken: creating an order and creating a terminal. A code that names no currency is a 400
 * that says which forms are accepted.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp, type TestMerchant } from '../helpers/app.js';

let t: TestApp;
let a: TestMerchant;

beforeAll(async () => {
  t = await createTestApp();
  a = await t.merchant({ name: 'Currency shop' });
});
afterAll(async () => t?.close());

const order = (currency: unknown) =>
  a.api.post('/payment', { amount: 1000, operative: 'AUTHORIZATION', description: 'numeric currency', customer_ext_id: 'c1', currency });

describe('numeric ISO 4217 codes', () => {
  it('an order in "978", 978 or "eur" is an EUR order on the merchant\'s EUR service', async () => {
    for (const c of ['978', 978, 'eur', 'EUR']) {
      const r = await order(c);
      expect(r.status, `${JSON.stringify(c)}: ${r.raw}`).toBe(200);
      // records show the numeric code
      expect(r.body.order.currency, JSON.stringify(c)).toBe('978');
      expect(r.body.order.service_uuid ?? r.body.order.service).toBeTruthy();
    }
  });

  it('a code that names no currency is a 400 naming both accepted forms', async () => {
    for (const c of ['999', 1, 'ZZZ']) {
      const r = await order(c);
      expect(r.status, `${JSON.stringify(c)}: ${r.raw}`).toBe(400);
      expect(r.body.details).toContain('alpha-3 like EUR, or numeric like 978');
    }
    for (const c of ['97', '9780', 'EU', 1000]) expect((await order(c)).status, JSON.stringify(c)).toBe(400);
  });

  it('a numeric code for a currency the merchant has no service in is refused as for alpha-3', async () => {
    const r = await order(840);
    expect(r.status, r.raw).toBe(400);
  });

  it('a terminal created with currency_code 840 is a USD terminal', async () => {
    const r = await a.api.post('/terminal', {
      currency_code: 840, type: 'CREDORAX', description: 'US terminal',
      credentials: { merchant_id: 'CRX-000123', signing_api_key: 'abcdefghijklmnop' },
    });
    expect(r.status, r.raw).toBe(200);
    expect(r.body.terminal.currency_code).toBe('USD');
    const s = await a.api.post('/terminal', { currency_code: '036', type: 'CREDORAX', description: 'AU', credentials: { merchant_id: 'CRX-000124', signing_api_key: 'abcdefghijklmnop' } });
    expect(s.status, s.raw).toBe(200);
    expect(s.body.terminal.currency_code).toBe('AUD');
  });
});
