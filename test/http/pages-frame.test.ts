/**
 * The end of the flow in a frame, over HTTP: a post from a frame (Sec-Fetch-Dest: iframe) goes to the
 * leave page, which carries the outcome for the parent and links url_ok / url_ko for the target window;
 * outside a frame, or with target=self, the post answers 303 to url_ok / url_ko as before. The browser
 * side (top window, postMessage) is in test/browser/frame.browser.test.ts.
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

const FRAME = { 'sec-fetch-dest': 'iframe' };
const URLS = { url_ok: 'https://shop.example/ok?cart=42', url_ko: 'https://shop.example/ko', customer_ext_id: null };

async function payFramed(url: string, card: string, headers: Record<string, string> = FRAME) {
  const page = await open(t, url, headers);
  expect(page.statusCode).toBe(200);
  return post(t, url, { nonce: nonceOf(page.body), ...CARD, number: card }, headers);
}

function outcomeOf(body: string): any {
  const m = /<script type="application\/json" id="pg-outcome">([^<]*)<\/script>/.exec(body);
  return m ? JSON.parse(m[1]) : null;
}

describe('the end of the flow in a frame', () => {
  it('approved: the post goes to the leave page, which carries the outcome and links url_ok for the top window', async () => {
    const o = await createOrder(a, { ...URLS, amount: 2500 });
    const url = `${pagePath(o)}?lang=en`;
    const res = await payFramed(url, TEST_CARDS.APPROVED);
    expect(res.statusCode).toBe(303);
    expect(res.headers.location).toBe(`${pagePath(o)}?lang=en&leave=1`);
    const leave = await open(t, String(res.headers.location), FRAME);
    expect(leave.statusCode).toBe(200);
    expect(outcomeOf(leave.body)).toEqual({ type: 'paygate:outcome', status: 'SUCCESS', result: 'ok', order_uuid: o.uuid, amount: 2500, currency: 'EUR' });
    expect(leave.body).toMatch(/<a class="button" id="pg-leave" href="https:\/\/shop\.example\/ok\?cart=42" target="_top" data-target="top">/);
    expect(leave.body).toContain(`data-order="${o.uuid}"`);
  });

  it('refused: the leave page says so and links url_ko', async () => {
    const o = await createOrder(a, URLS);
    const url = `${pagePath(o)}?lang=en&target=parent`;
    const res = await payFramed(url, TEST_CARDS.REFUSED);
    expect(res.headers.location).toBe(`${pagePath(o)}?lang=en&target=parent&leave=1`);
    const leave = await open(t, String(res.headers.location), FRAME);
    expect(outcomeOf(leave.body)).toMatchObject({ status: 'REFUSED', result: 'ko', order_uuid: o.uuid });
    expect(leave.body).toContain('href="https://shop.example/ko" target="_parent" data-target="parent"');
  });

  it('outside a frame, and with target=self, the post answers 303 to url_ok as before', async () => {
    const top = await createOrder(a, URLS);
    const direct = await payFramed(`${pagePath(top)}?lang=en`, TEST_CARDS.APPROVED, {});
    expect(direct.headers.location).toBe(URLS.url_ok);
    const self = await createOrder(a, URLS);
    const stay = await payFramed(`${pagePath(self)}?lang=en&target=self`, TEST_CARDS.APPROVED);
    expect(stay.headers.location).toBe(URLS.url_ok);
  });

  it('the leave page of an order that has not been paid or refused is the usual page, without an outcome', async () => {
    const o = await createOrder(a, URLS);
    const page = await open(t, `${pagePath(o)}?lang=en&leave=1`, FRAME);
    expect(page.statusCode).toBe(200);
    expect(outcomeOf(page.body)).toBeNull();
    expect(page.body).toContain('name="nonce"');
  });
});
