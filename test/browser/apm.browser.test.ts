/**
 * APMs of each kind in a real browser (playwright-core driving Chromium against an in-process
 * gateway): the hosted page with `?apm=`, the sandbox bank page, the sandbox phone and the voucher,
 * each to url_ok and to url_ko. The shop's pages are a small server on another origin of this machine.
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
import { createOrder } from '../helpers/payments.js';

/** Chromium from PAYGATE_CHROMIUM_PATH, the system, or the one `npm install` brings (test/helpers/chromium.ts); none: skipped (CI: an error). */
const CHROMIUM = await chromiumForTests(import.meta.url);
const it = vitestIt.skipIf(!CHROMIUM);
const SHOTS = screenshotDir();
/** url_ok / url_ko: pages of the shop's server (a redirect to a URL answered by request routing is not intercepted by every Chromium build). */
const SHOP = { url_ok: '', url_ko: '', customer_ext_id: null };

let t: TestApp;
let a: TestMerchant;
let browser: Browser;
let context: BrowserContext;
/** The shop's own site on this machine (a navigation the page starts by itself lands here). */
let shopSite: http.Server;
let shopBase: string;

beforeAll(async () => {
  if (!CHROMIUM) return;
  const port = await freePort();
  t = await createTestApp({ PAYGATE_PUBLIC_URL: `http://127.0.0.1:${port}` });
  await t.app.listen({ port, host: '127.0.0.1' });
  a = await t.merchant({ name: 'Loja Azul' });
  await a.api.put(`/service/${a.service_uuid}/apms`, { apms: ['IDEAL', 'KLARNA', 'MBWAY', 'MULTIBANCO', 'PIX', 'TRANSFER'] });
  browser = await chromium.launch({ executablePath: CHROMIUM!.executablePath, args: CHROMIUM!.args });
  context = await browser.newContext({ viewport: { width: 480, height: 860 }, deviceScaleFactor: 1, locale: 'en-GB', timezoneId: 'Europe/Lisbon' });
  await context.route(/^https?:\/\/shop\.example\//, (route) => {
    const ok = new URL(route.request().url()).pathname === '/ok';
    return route.fulfill({ contentType: 'text/html', body: `<!doctype html><h1 id="shop">Shop: payment ${ok ? 'OK' : 'KO'}</h1>` });
  });
  shopSite = http.createServer((req, res) => {
    const p = new URL(req.url ?? '/', 'http://x').pathname;
    const label = p === '/ok' ? 'Shop: payment OK' : p === '/ko' ? 'Shop: payment KO' : `Shop: ${req.url}`;
    res.writeHead(200, { 'content-type': 'text/html' }).end(`<!doctype html><h1 id="shop">${label}</h1>`);
  });
  const shopPort = await freePort();
  await new Promise<void>((resolve) => shopSite.listen(shopPort, '127.0.0.1', resolve));
  shopBase = `http://localhost:${shopPort}`;
  SHOP.url_ok = `${shopBase}/ok`;
  SHOP.url_ko = `${shopBase}/ko`;
  fs.mkdirSync(SHOTS, { recursive: true });
}, 120_000);

afterAll(async () => {
  await browser?.close();
  await new Promise((resolve) => shopSite?.close(resolve));
  await t?.close();
});

async function openApm(apm: string, lang = 'en', body: Record<string, unknown> = {}): Promise<{ page: Page; order: any }> {
  const order = await createOrder(a, { ...SHOP, amount: 2590, description: 'Encomenda 2207', ...body });
  const page = await context.newPage();
  await page.goto(`${order.urls.payment_card}?apm=${apm}&lang=${lang}`);
  return { page, order };
}

const status = async (o: { uuid: string }) => (await a.api.get(`/order/${o.uuid}`)).body.order.status;

describe('redirect APM: the sandbox bank page', () => {
  it('iDEAL: continue to the bank, approve, url_ok', async () => {
    const { page, order } = await openApm('ideal');
    expect(await page.textContent('h1')).toBe('Pay with iDEAL');
    await page.click('button[type=submit]');
    await page.waitForURL(/\/sandbox-apm\/bank\//);
    expect(await page.textContent('.bank')).toContain('Sandbox iDEAL');
    await page.click('button[value=approve]');
    await page.waitForURL(SHOP.url_ok);
    expect(await status(order)).toBe('SUCCESS');
    await page.close();
  });

  it('Klarna: the customer rejects at the provider, url_ko', async () => {
    const { page, order } = await openApm('KLARNA');
    await page.click('button[type=submit]');
    await page.waitForURL(/\/sandbox-apm\/bank\//);
    await page.click('button[value=fail]');
    await page.waitForURL(SHOP.url_ko);
    expect(await status(order)).toBe('REFUSED');
    await page.close();
  });
});

describe('push APM: the phone and the sandbox phone', () => {
  it('MB WAY: the phone, the waiting page, approve on the sandbox phone, url_ok', async () => {
    const { page, order } = await openApm('MBWAY', 'pt');
    await page.fill('#f-phone', '912 000 000');
    await page.click('button[type=submit]');
    await page.waitForSelector('#pg-sandbox-phone');
    expect(await page.textContent('main')).toContain('Aprove o pagamento');
    expect(await status(order)).toBe('PENDING_PROCESSOR_RESPONSE');
    await page.click('#pg-sandbox-phone');
    await page.waitForURL(/\/sandbox-apm\/phone\//);
    await page.click('button[value=approve]');
    await page.waitForURL(SHOP.url_ok);
    expect(await status(order)).toBe('SUCCESS');
    await page.close();
  });

  it('MB WAY: the customer rejects the request on the sandbox phone, url_ko', async () => {
    const { page, order } = await openApm('MBWAY');
    await page.fill('#f-phone', '912000000');
    await page.click('button[type=submit]');
    await page.waitForSelector('#pg-sandbox-phone');
    await page.click('#pg-sandbox-phone');
    await page.waitForURL(/\/sandbox-apm\/phone\//);
    await page.click('button[value=fail]');
    await page.waitForURL(SHOP.url_ko);
    expect(await status(order)).toBe('REFUSED');
    expect((await a.api.get(`/order/${order.uuid}`)).body.order.transactions[0]).toMatchObject({ status: 'REFUSED', error: 'DENIED' });
    await page.close();
  });

  it('MB WAY: a phone the provider refuses goes to url_ko', async () => {
    const { page, order } = await openApm('MBWAY');
    await page.fill('#f-phone', '912000001');
    await page.click('button[type=submit]');
    await page.waitForURL(SHOP.url_ko);
    expect(await status(order)).toBe('REFUSED');
    await page.close();
  });
});

describe('voucher APM: the data to pay', () => {
  it('Multibanco: entity and reference shown, paid in the sandbox, url_ok', async () => {
    const { page, order } = await openApm('MULTIBANCO', 'pt');
    await page.click('button[type=submit]');
    await page.waitForSelector('dl.voucher');
    const v = (await a.api.get(`/order/${order.uuid}`)).body.order.transactions[0].source.voucher;
    expect(await page.textContent('dl.voucher')).toContain(v.reference);
    await page.screenshot({ path: path.join(SHOTS, 'apm-voucher.png'), fullPage: true, animations: 'disabled', caret: 'hide' });
    await page.click('form[data-form=sandbox-voucher] button');
    await page.waitForURL(SHOP.url_ok);
    expect(await status(order)).toBe('SUCCESS');
    await page.close();
  });

  it('Multibanco not paid before its expiry (the merchant clock moves past it): refused by the reconciler, the page goes on to url_ko', async () => {
    // a merchant of its own: its test clock moves three days
    const m = await t.merchant({ name: 'Loja Norte' });
    await m.api.put(`/service/${m.service_uuid}/apms`, { apms: ['MULTIBANCO'] });
    const order = await createOrder(m, { ...SHOP, amount: 990, expires_in: 14 * 86_400 });
    const page = await context.newPage();
    await page.goto(`${order.urls.payment_card}?apm=MULTIBANCO&lang=en`);
    await page.click('button[type=submit]');
    await page.waitForSelector('dl.voucher');
    const v = (await m.api.get(`/order/${order.uuid}`)).body.order.transactions[0].source.voucher;
    expect((await m.api.post('/test-clock', { advance_to: new Date(Date.parse(v.expires_at) + 60_000).toISOString() })).status).toBe(200);
    await t.m.payments.reconcile({ olderThanMs: 0 });
    expect((await m.api.get(`/order/${order.uuid}`)).body.order.transactions[0]).toMatchObject({ status: 'REFUSED', error: 'DENIED' });
    // the waiting page refreshes itself; its next load goes on to url_ko
    await page.reload();
    await page.waitForURL(SHOP.url_ko);
    expect((await m.api.get(`/order/${order.uuid}`)).body.order.status).toBe('REFUSED');
    await page.close();
  });

  it('a TRANSFER order: the IBAN and the concept to quote, the transfer arrives in the sandbox, url_ok', async () => {
    const { page, order } = await openApm('TRANSFER', 'en', { operative: 'TRANSFER', description: 'Invoice 2026-207' });
    await page.click('button[type=submit]');
    await page.waitForSelector('dl.voucher');
    const text = await page.textContent('dl.voucher');
    expect(text).toContain('ES7921000813610123456789');
    expect(text).toContain('Invoice 2026-207');
    await page.click('form[data-form=sandbox-voucher] button');
    await page.waitForURL(SHOP.url_ok);
    expect((await a.api.get(`/order/${order.uuid}`)).body.order).toMatchObject({ status: 'SUCCESS', paid: true, transactions: [{ operative: 'TRANSFER', status: 'SUCCESS' }] });
    await page.close();
  });

  it('PIX: the QR code is drawn; refused by the provider, the page goes on to url_ko', async () => {
    const { page, order } = await openApm('PIX', 'en', { url_ko: `${shopBase}/ko` });
    await page.click('button[type=submit]');
    await page.waitForSelector('svg.qr');
    const box = await page.locator('svg.qr').boundingBox();
    expect(box!.width).toBeGreaterThan(150);
    expect((await a.api.post(`/sandbox-apm/${order.uuid}/pay`, { result: 'REFUSED' })).status).toBe(200);
    // the page refreshes itself while it waits; the next load goes on to url_ko
    await page.reload();
    await page.waitForURL(`${shopBase}/ko`);
    expect(await status(order)).toBe('REFUSED');
    await page.close();
  });
});
