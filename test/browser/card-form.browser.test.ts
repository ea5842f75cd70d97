/**
 * The embedded card form in a real browser (decisions §10): a merchant page served on another origin
 * (another local port and host name) loads /js/v1-iframe.js from the gateway, initializes it with the
 * token of POST /customer, the customer types a card into the gateway's iframe, the page validates and
 * stores it through `paylands` and receives `savedCard`; the stored card then pays an order. The
 * merchant page cannot read the card fields: the frame is cross-origin to it.
 */
import fs from 'node:fs';
import http from 'node:http';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it as vitestIt } from 'vitest';
import { chromium, type Browser, type BrowserContext, type Page } from 'playwright-core';
import { chromiumForTests } from '../helpers/chromium.js';
import { screenshotDir } from '../helpers/screenshots.js';
import { createTestApp, type TestApp, type TestMerchant } from '../helpers/app.js';
import { freePort } from '../helpers/process.js';
import { TEST_CARDS, createOrder } from '../helpers/payments.js';

/** Chromium from PAYGATE_CHROMIUM_PATH, the system, or the one `npm install` brings (test/helpers/chromium.ts); none: skipped (CI: an error). */
const CHROMIUM = await chromiumForTests(import.meta.url);
const it = vitestIt.skipIf(!CHROMIUM);
const SHOTS = screenshotDir();

let t: TestApp;
let a: TestMerchant;
let base: string;
let browser: Browser;
let context: BrowserContext;
let shopSite: http.Server;
let shopBase: string;

/** The merchant's checkout page: loads the gateway's script and collects every message it receives. */
function shopPage(token: string, lang = 'en'): string {
  return `<!doctype html>
<html lang="${lang}"><head><meta charset="utf-8"><title>Shop: save your card</title></head>
<body>
<h1>Save your card</h1>
<div id="card-container"></div>
<script src="${base}/js/v1-iframe.js"></script>
<script>
  window.received = [];
  window.addEventListener('message', function (e) {
    if (typeof e.data === 'string') window.received.push({ origin: e.origin, data: e.data });
  });
  paylands.setMode('sandbox');
  paylands.initializate(${JSON.stringify(token)}, 'card-container');
</script>
</body></html>`;
}

beforeAll(async () => {
  if (!CHROMIUM) return;
  const port = await freePort();
  base = `http://127.0.0.1:${port}`;
  t = await createTestApp({ PAYGATE_PUBLIC_URL: base });
  await t.app.listen({ port, host: '127.0.0.1' });
  shopSite = http.createServer((req, res) => {
    const url = new URL(req.url ?? '/', 'http://x');
    if (url.pathname !== '/checkout') return void res.writeHead(404).end();
    res.setHeader('content-type', 'text/html; charset=utf-8');
    res.end(shopPage(url.searchParams.get('token') ?? '', url.searchParams.get('lang') ?? 'en'));
  });
  const shopPort = await freePort();
  await new Promise<void>((resolve) => shopSite.listen(shopPort, '127.0.0.1', resolve));
  // another origin than the gateway's (host name and port differ), like a merchant's site
  shopBase = `http://localhost:${shopPort}`;
  a = await t.merchant({ name: 'Widget shop' });
  browser = await chromium.launch({ executablePath: CHROMIUM!.executablePath, args: CHROMIUM!.args });
  context = await browser.newContext({ viewport: { width: 560, height: 640 }, deviceScaleFactor: 1, locale: 'en-GB', timezoneId: 'Europe/Madrid' });
  fs.mkdirSync(SHOTS, { recursive: true });
}, 120_000);

afterAll(async () => {
  await browser?.close();
  await new Promise((resolve) => shopSite?.close(resolve));
  await t?.close();
});

async function customerToken(customer: string): Promise<string> {
  const r = await a.api.post('/customer', { customer_ext_id: customer });
  expect(r.status, r.raw).toBe(200);
  return r.body.Customer.token;
}

type Received = { origin: string; data: string };

async function messages(page: Page): Promise<Received[]> {
  return page.evaluate(() => (globalThis as any).received as Received[]);
}

/** Waits for the next message starting with `prefix` after the first `after` messages; returns its JSON. */
async function nextMessage(page: Page, prefix: string, after: number): Promise<{ origin: string; json: any; raw: string }> {
  await expect.poll(async () => (await messages(page)).slice(after).some((m) => m.data.startsWith(prefix)), { timeout: 15_000 }).toBe(true);
  const m = (await messages(page)).slice(after).find((x) => x.data.startsWith(prefix))!;
  return { origin: m.origin, raw: m.data, json: m.data === prefix ? null : JSON.parse(m.data.slice(prefix.length)) };
}

async function openShop(customer: string, lang = 'en') {
  const token = await customerToken(customer);
  const page = await context.newPage();
  await page.goto(`${shopBase}/checkout?token=${token}&lang=${lang}`);
  const loaded = await nextMessage(page, 'paylandsLoaded', 0);
  expect(loaded.raw).toBe('paylandsLoaded');
  expect(loaded.origin).toBe(base);
  return { page, frame: page.frameLocator('#card-container iframe'), token };
}

describe('embedded card form', () => {
  it('validates (invalid number, expiry and CVV), stores the card, reports savedCard, and the card pays an order', async () => {
    const { page, frame } = await openShop('widget-1');
    await frame.locator('#f-holder').fill('Ana Pérez');
    await frame.locator('#f-number').pressSequentially('4548 8120 4940 0005');
    await frame.locator('#f-expiry').pressSequentially('0120');
    await frame.locator('#f-cvv').pressSequentially('12');

    let seen = (await messages(page)).length;
    await page.evaluate(() => (globalThis as any).paylands.validate());
    const invalid = await nextMessage(page, 'validation: ', seen);
    expect(invalid.origin).toBe(base);
    expect(invalid.json).toEqual({ cardPan: { valid: false }, cardExpiryDate: { valid: false }, cardCVV: { valid: false } });
    // the frame shows the problems next to the fields
    expect(await frame.locator('#err-number').textContent()).toBe('The card number is not valid.');
    expect(await frame.locator('#err-expiry').textContent()).toBe('The card has expired.');
    expect(await frame.locator('#err-cvv').textContent()).toBe('The security code has 3 digits.');
    await page.screenshot({ path: path.join(SHOTS, 'card-form-errors.png'), animations: 'disabled', caret: 'hide' });

    // storing an invalid card is an error, and nothing is stored
    seen = (await messages(page)).length;
    await page.evaluate(() => (globalThis as any).paylands.storeSourceCard());
    const refused = await nextMessage(page, 'error: ', seen);
    expect(refused.json).toEqual({ message: 'Please correct the highlighted fields.' });
    expect((await a.api.get('/customer/widget-1/cards', { status: 'ALL' })).body.cards).toEqual([]);

    // correct the fields: live formatting as on the hosted page, then valid
    await frame.locator('#f-number').fill('');
    await frame.locator('#f-number').pressSequentially(TEST_CARDS.APPROVED);
    expect(await frame.locator('#f-number').inputValue()).toBe('4548 8120 4940 0004');
    expect(await frame.locator('#pg-brands').getAttribute('data-brand')).toBe('visa');
    await frame.locator('#f-expiry').fill('');
    await frame.locator('#f-expiry').pressSequentially('1230');
    await frame.locator('#f-cvv').fill('');
    await frame.locator('#f-cvv').pressSequentially('987');
    seen = (await messages(page)).length;
    await page.evaluate(() => (globalThis as any).paylands.validate());
    expect((await nextMessage(page, 'validation: ', seen)).json).toEqual({ cardPan: { valid: true }, cardExpiryDate: { valid: true }, cardCVV: { valid: true } });
    await page.screenshot({ path: path.join(SHOTS, 'card-form.png'), animations: 'disabled', caret: 'hide' });

    seen = (await messages(page)).length;
    await page.evaluate(() => (globalThis as any).paylands.storeSourceCard());
    const saved = await nextMessage(page, 'savedCard: ', seen);
    expect(saved.origin).toBe(base);
    expect(saved.json).toMatchObject({
      code: 200,
      current_time: expect.stringMatching(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}[+-]\d{4}$/),
      source: { type: '', brand: 'VISA', holder: 'Ana Pérez', bin: 454881, last4: '0004', expire_month: '12', expire_year: '30', additional: null },
      customer: { external_id: 'widget-1' },
    });
    expect(saved.json.source.validation_date).not.toBeNull();
    // the number and CVV are cleared in the frame once stored
    expect(await frame.locator('#f-number').inputValue()).toBe('');
    expect(await frame.locator('#f-cvv').inputValue()).toBe('');

    // the stored source is the customer's, and it pays an order through POST /payment/direct
    const cards = (await a.api.get('/customer/widget-1/cards')).body.cards;
    expect(cards.map((c: any) => c.uuid)).toEqual([saved.json.source.uuid]);
    const order = await createOrder(a, { customer_ext_id: 'widget-1', amount: 2599 });
    const paid = await a.api.post('/payment/direct', { order_uuid: order.uuid, card_uuid: saved.json.source.uuid });
    expect(paid.status, paid.raw).toBe(200);
    expect(paid.body.order).toMatchObject({ status: 'SUCCESS', paid: true, amount: 2599 });

    // nothing the merchant page received carries the card number or the CVV
    const all = (await messages(page)).map((m) => m.data).join('\n');
    expect(all).not.toContain('4548812049400004');
    expect(all).not.toContain('4548 8120 4940 0004');
    // the CVV as a value of its own (not digits inside a random uuid or a timestamp)
    const values = all.replace(/[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/gi, '').replace(/\d{4}-\d\d-\d\dT[\d:.]+(Z|[+-]\d{2}:?\d{2})?/g, '');
    expect(values).not.toMatch(/(^|\D)987(\D|$)/);
    await page.close();
  });

  it('the merchant page cannot read the card fields: the frame is cross-origin', async () => {
    const { page, frame } = await openShop('widget-2');
    await frame.locator('#f-holder').fill('Ana Pérez');
    await frame.locator('#f-number').pressSequentially(TEST_CARDS.APPROVED);
    await frame.locator('#f-cvv').pressSequentially('123');
    const attempt = await page.evaluate(() => {
      const g = globalThis as any;
      const iframe = g.document.querySelector('#card-container iframe');
      const out: Record<string, string> = { src: new URL(iframe.src).origin, contentDocument: String(iframe.contentDocument) };
      try {
        out.document = String(iframe.contentWindow.document.querySelector('#f-number'));
      } catch (e) {
        out.document = (e as Error).name;
      }
      try {
        out.frames = String(g.frames[0].document.body.innerHTML);
      } catch (e) {
        out.frames = (e as Error).name;
      }
      return out;
    });
    expect(attempt.src).not.toBe(new URL(shopBase).origin);
    expect(attempt.contentDocument).toBe('null');
    expect(attempt.document).toBe('SecurityError');
    expect(attempt.frames).toBe('SecurityError');
    // the frame refuses commands from anything but its parent page
    const frameHandle = page.frames().find((f) => f.url().startsWith(`${base}/v1/sandbox/card-form/`))!;
    expect(frameHandle).toBeDefined();
    const seen = (await messages(page)).length;
    await frameHandle.evaluate(() => (globalThis as any).postMessage(JSON.stringify({ paylands: 'store' }), '*'));
    await page.waitForTimeout(300); // nothing must come: give a wrongly accepted command the time to answer
    expect((await messages(page)).slice(seen).filter((m) => m.data.startsWith('savedCard'))).toEqual([]);
    expect((await a.api.get('/customer/widget-2/cards', { status: 'ALL' })).body.cards).toEqual([]);
    await page.close();
  });

  it('a revoked token: the frame reports an error to the page', async () => {
    const token = await customerToken('widget-3');
    await a.api.delete('/customer/token', { customer_ext_id: 'widget-3' });
    const page = await context.newPage();
    await page.goto(`${shopBase}/checkout?token=${token}&lang=es`);
    const err = await nextMessage(page, 'error: ', 0);
    expect(err.origin).toBe(base);
    expect(err.json).toEqual({ message: 'Este formulario ha caducado. Recarga la página para introducir la tarjeta de nuevo.' });
    expect((await messages(page)).some((m) => m.data === 'paylandsLoaded')).toBe(false);
    await page.close();
  });
});
