/**
 * Merchant URLs (url_ok, url_ko, url_post) are validated and normalised when the order is created, so
 * the redirect after the hosted page can never fail: `€`, CJK and spaces are percent-encoded, CR/LF
 * is refused with 400, and an order stored before the rule with such characters still redirects (303,
 * never 500).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp, type TestMerchant } from '../helpers/app.js';
import { TEST_CARDS, createOrder } from '../helpers/payments.js';
import { CARD, nonceOf, open, pagePath, post } from '../helpers/pages.js';

let t: TestApp;
let a: TestMerchant;

beforeAll(async () => {
  t = await createTestApp();
  a = await t.merchant();
});
afterAll(async () => t?.close());

const stored = (id: string) => t.p.database.db.selectFrom('orders').select(['url_ok', 'url_ko', 'url_post']).where('id', '=', id).executeTakeFirstOrThrow();

async function pay(url: string, card: string) {
  const page = await open(t, url, {});
  expect(page.statusCode).toBe(200);
  return post(t, url, { nonce: nonceOf(page.body), ...CARD, number: card }, {});
}

describe('merchant URLs', () => {
  it('are stored percent-encoded; the hosted page redirects to them after paying and after a refusal', async () => {
    const o = await createOrder(a, { url_ok: 'https://shop.example/ok/€?name=José 東京', url_ko: 'https://tienda.example/ko#café', url_post: 'https://hooks.example/n?x=ü', customer_ext_id: null });
    expect(await stored(o.uuid)).toEqual({
      url_ok: 'https://shop.example/ok/%E2%82%AC?name=Jos%C3%A9%20%E6%9D%B1%E4%BA%AC',
      url_ko: 'https://tienda.example/ko#caf%C3%A9',
      url_post: 'https://hooks.example/n?x=%C3%BC',
    });
    const paid = await pay(`${pagePath(o)}?lang=en`, TEST_CARDS.APPROVED);
    expect(paid.statusCode).toBe(303);
    expect(paid.headers.location).toBe('https://shop.example/ok/%E2%82%AC?name=Jos%C3%A9%20%E6%9D%B1%E4%BA%AC');

    const k = await createOrder(a, { url_ok: 'https://shop.example/ok', url_ko: 'https://xn--fsq.example/ko?q=東', customer_ext_id: null });
    const refused = await pay(`${pagePath(k)}?lang=en`, TEST_CARDS.REFUSED);
    expect(refused.statusCode).toBe(303);
    expect(refused.headers.location).toBe('https://xn--fsq.example/ko?q=%E6%9D%B1');
  });

  it('an international host name is stored in punycode', async () => {
    const o = await createOrder(a, { url_ok: 'https://tiénda.example/ok', customer_ext_id: null });
    expect((await stored(o.uuid)).url_ok).toBe('https://xn--tinda-csa.example/ok');
  });

  it('CR, LF and other control characters are refused with 400 (never a split header)', async () => {
    for (const url_ok of ['https://shop.example/ok\r\nSet-Cookie: x=1', 'https://shop.example/\nok', 'https://shop.example/\tok', 'https://shop.example/\u007fok']) {
      const r = await a.api.post('/payment', { amount: 1000, operative: 'AUTHORIZATION', secure: false, description: 'urls', service: a.service_uuid, customer_ext_id: 'c', url_ok });
      expect(r.status, JSON.stringify(url_ok)).toBe(400);
      expect(r.body.details).toMatch(/control characters/);
    }
  });

  it('an order stored before the rule with characters a header cannot carry still redirects', async () => {
    const o = await createOrder(a, { url_ok: 'https://shop.example/ok', customer_ext_id: null });
    await t.p.database.db.updateTable('orders').set({ url_ok: 'https://shop.example/ok/€\r\nX: y' }).where('id', '=', o.uuid).execute();
    const paid = await pay(`${pagePath(o)}?lang=en`, TEST_CARDS.APPROVED);
    expect(paid.statusCode).toBe(303);
    expect(paid.headers.location).toBe('https://shop.example/ok/%E2%82%ACX:%20y');
  });
});
