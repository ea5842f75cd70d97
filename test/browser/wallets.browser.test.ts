/**
 * The sandbox wallet buttons in a real browser (playwright-core driving Chromium against an in-process
 * gateway): Google Pay on the hosted card page pays the order through B14 and lands on url_ok; the
 * checkout lists Google Pay and Apple Pay and its Apple Pay page pays too. No network: the wallet's
 * test mode is the gateway's sandbox token.
 */
import fs from 'node:fs';
import http from 'node:http';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it as vitestIt } from 'vitest';
import { chromium, type Browser, type BrowserContext } from 'playwright-core';
import { chromiumForTests } from '../helpers/chromium.js';
import { screenshotDir } from '../helpers/screenshots.js';
import { createTestApp, type TestApp, type TestMerchant } from '../helpers/app.js';
import { freePort } from '../helpers/process.js';
import { createOrder } from '../helpers/payments.js';
import { CATALOGUES, LANGUAGES } from '../../src/modules/pages/index.js';

const CHROMIUM = await chromiumForTests(import.meta.url);
const it = vitestIt.skipIf(!CHROMIUM);
const SHOTS = screenshotDir();
const SHOP = { url_ok: '', url_ko: '', customer_ext_id: null };

let t: TestApp;
let a: TestMerchant;
let browser: Browser;
let context: BrowserContext;
let shopSite: http.Server;

beforeAll(async () => {
  if (!CHROMIUM) return;
  const port = await freePort();
  t = await createTestApp({ PAYGATE_PUBLIC_URL: `http://127.0.0.1:${port}` });
  await t.app.listen({ port, host: '127.0.0.1' });
  a = await t.merchant({ name: 'Tienda Sol' });
  await a.api.put(`/service/${a.service_uuid}/wallets`, { wallets: ['GOOGLE_PAY', 'APPLE_PAY'] });
  browser = await chromium.launch({ executablePath: CHROMIUM!.executablePath, args: CHROMIUM!.args });
  context = await browser.newContext({ viewport: { width: 480, height: 900 }, deviceScaleFactor: 1, locale: 'en-GB' });
  shopSite = http.createServer((req, res) => {
    const p = new URL(req.url ?? '/', 'http://x').pathname;
    res.writeHead(200, { 'content-type': 'text/html' }).end(`<!doctype html><h1 id="shop">${p === '/ok' ? 'Shop: payment OK' : 'Shop: payment KO'}</h1>`);
  });
  const shopPort = await freePort();
  await new Promise<void>((resolve) => shopSite.listen(shopPort, '127.0.0.1', resolve));
  SHOP.url_ok = `http://localhost:${shopPort}/ok`;
  SHOP.url_ko = `http://localhost:${shopPort}/ko`;
  fs.mkdirSync(SHOTS, { recursive: true });
}, 120_000);

afterAll(async () => {
  await browser?.close();
  await new Promise((resolve) => shopSite?.close(resolve));
  await t?.close();
});

const orderOf = async (o: { uuid: string }) => (await a.api.get(`/order/${o.uuid}`)).body.order;

describe('sandbox wallet buttons', () => {
  it('Google Pay on the hosted card page pays the order (authenticated, the wallet as source) and goes to url_ok', async () => {
    const order = await createOrder(a, { ...SHOP, amount: 3490, description: 'Pedido 1182' });
    const page = await context.newPage();
    await page.goto(`${order.urls.payment_card}?lang=en`);
    expect(await page.textContent('.wallets .note')).toBe(CATALOGUES.en['wallet.sandbox']);
    expect(await page.isVisible('#pg-wallet-google-pay')).toBe(true);
    expect(await page.isVisible('#pg-wallet-apple-pay')).toBe(true);
    // the card form is still there, below
    expect(await page.isVisible('#f-number')).toBe(true);
    await page.screenshot({ path: path.join(SHOTS, 'wallet-buttons.png') });
    await page.click('#pg-wallet-google-pay');
    await page.waitForURL(SHOP.url_ok);
    expect(await page.textContent('#shop')).toBe('Shop: payment OK');
    const o = await orderOf(order);
    expect(o).toMatchObject({ status: 'SUCCESS', safe: true, threeds_data: { flow: 'WALLET' } });
    expect(o.transactions[0].source).toMatchObject({ object: 'GOOGLE_PAY', type: 'wallet', flow: 'WEB' });
    // the page of a paid order says so; its button cannot pay again
    await page.goto(`${order.urls.payment_card}?lang=en`);
    expect(await page.isVisible('#pg-wallet-google-pay')).toBe(false);
    await page.close();
  });

  it('the checkout lists the wallets; its Apple Pay page pays', async () => {
    const order = await createOrder(a, { ...SHOP, amount: 1250, extra_data: { checkout: { payment_methods: ['PAYMENT_CARD', 'GOOGLE_PAY', 'APPLE_PAY'] } } });
    const page = await context.newPage();
    await page.goto(`${order.urls.payment_card}?lang=en`);
    await page.waitForURL(/\/payment\/checkout\//);
    const methods = await page.$$eval('[data-method]', (els) => els.map((e) => e.getAttribute('data-method')));
    expect(methods).toEqual(['CARD', 'GOOGLE_PAY', 'APPLE_PAY']);
    await page.click('[data-method=APPLE_PAY]');
    await page.waitForURL(/\/payment\/wallet\/.*wallet=APPLE_PAY/);
    expect(await page.textContent('h1')).toBe('Pay with Apple Pay');
    await page.click('#pg-wallet-apple-pay');
    await page.waitForURL(SHOP.url_ok);
    const o = await orderOf(order);
    expect(o.status).toBe('SUCCESS');
    expect(o.transactions[0].source.object).toBe('APPLE_PAY');
    await page.close();
  });

  it('the wallet section is translated in the 14 languages', async () => {
    const order = await createOrder(a, { ...SHOP });
    const page = await context.newPage();
    for (const lang of LANGUAGES) {
      await page.goto(`${order.urls.payment_card}?lang=${lang}`);
      const c = CATALOGUES[lang];
      expect(await page.textContent('.wallets .or'), lang).toBe(c['wallet.or']);
      expect(await page.textContent('.wallets .note'), lang).toBe(c['wallet.sandbox']);
      const text = await page.evaluate(() => (globalThis as any).document.body.innerText as string);
      expect(text, lang).not.toMatch(/\bwallet\.[a-z]+\b/);
    }
    await page.close();
  });
});
