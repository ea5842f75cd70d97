/**
 * Dynamic currency conversion in a real browser (playwright-core driving Chromium against an
 * in-process gateway): a card in US dollars on a euro order gets the offer screen; accepted with
 * JavaScript, declined without it; the screen in the 14 languages with no untranslated text. The shop's
 * pages are a small server on another origin of this machine. Writes dcc-offer.png (test/helpers/screenshots.ts: docs/screenshots with `npm run screenshots`).
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
import { recordKnownPans } from '../helpers/capture.js';
import { CATALOGUES, LANGUAGES } from '../../src/modules/pages/index.js';
import { SANDBOX_DCC_CARDS } from '../../src/processors/index.js';

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
  a = await t.merchant({ name: 'Casa Lisboa' });
  expect((await a.api.put(`/service/${a.service_uuid}`, { is_dcc_allowed: true })).status).toBe(200);
  recordKnownPans(Object.values(SANDBOX_DCC_CARDS));
  shopSite = http.createServer((req, res) => {
    const p = new URL(req.url ?? '/', 'http://x').pathname;
    res.writeHead(200, { 'content-type': 'text/html' }).end(`<!doctype html><h1 id="shop">Shop: payment ${p === '/ok' ? 'OK' : 'KO'}</h1>`);
  });
  const shopPort = await freePort();
  await new Promise<void>((resolve) => shopSite.listen(shopPort, '127.0.0.1', resolve));
  SHOP.url_ok = `http://localhost:${shopPort}/ok`;
  SHOP.url_ko = `http://localhost:${shopPort}/ko`;
  browser = await chromium.launch({ executablePath: CHROMIUM!.executablePath, args: CHROMIUM!.args });
  context = await browser.newContext({ viewport: { width: 480, height: 860 }, deviceScaleFactor: 1, locale: 'en-GB', timezoneId: 'Europe/Lisbon' });
  fs.mkdirSync(SHOTS, { recursive: true });
}, 120_000);

afterAll(async () => {
  await browser?.close();
  await new Promise((resolve) => shopSite?.close(resolve));
  await t?.close();
});

async function typeCard(page: Page, number: string) {
  await page.fill('#f-holder', 'Ana Pérez');
  await page.fill('#f-number', number.replace(/(\d{4})(?=\d)/g, '$1 '));
  await page.fill('#f-expiry', '12/30');
  await page.fill('#f-cvv', '123');
}

const orderOf = async (o: { uuid: string }) => (await a.api.get(`/order/${o.uuid}`)).body.order;

describe('the DCC offer in the browser', () => {
  it('with JavaScript: the offer screen, accepted, charged in euros with the conversion recorded, url_ok', async () => {
    const o = await createOrder(a, { ...SHOP, amount: 4590, description: 'Reserva 118' });
    const page = await context.newPage();
    await page.goto(`${o.urls.payment_card}?lang=en`);
    await typeCard(page, SANDBOX_DCC_CARDS.USD);
    await page.click('button[type=submit]');
    await page.waitForURL(/\/payment\/dcc\//);
    expect(await page.textContent('h1')).toBe('Choose the currency to pay in');
    const options = await page.locator('button.dcc-option').allTextContents();
    expect(options).toEqual(['Pay €45.90In the shop’s currency (Euro): your bank converts it at its own rate and may charge a fee.', 'Pay US$51.54In your card’s currency (US Dollar) at the rate below: this is the amount you will be charged.']);
    expect(await page.textContent('#dcc-rate')).toBe('1 EUR = 1.122975 USD');
    expect(await page.textContent('#dcc-markup')).toBe('3.50%');
    // the offer's time of validity changes with every run: masked, so the screenshot is the same every time
    await page.screenshot({ path: path.join(SHOTS, 'dcc-offer.png'), fullPage: true, animations: 'disabled', caret: 'hide', mask: [page.locator('#dcc-until')] });
    await page.click('button[value=accept]');
    await page.waitForURL(SHOP.url_ok);
    expect(await orderOf(o)).toMatchObject({ status: 'SUCCESS', amount: 4590, currency: '978', dcc: { accepted: true, cardholder_currency: '840', cardholder_amount: 5154 } });
    await page.close();
  });

  it('without JavaScript: the same screen, declined, charged in euros, url_ok', async () => {
    const noJs = await browser.newContext({ javaScriptEnabled: false, viewport: { width: 480, height: 860 }, locale: 'en-GB' });
    try {
      const o = await createOrder(a, { ...SHOP, amount: 1200 });
      const page = await noJs.newPage();
      await page.goto(`${o.urls.payment_card}?lang=pt`);
      await typeCard(page, SANDBOX_DCC_CARDS.GBP);
      await page.click('button[type=submit]');
      await page.waitForURL(/\/payment\/dcc\//);
      expect(await page.textContent('h1')).toBe(CATALOGUES.pt['dcc.title']);
      expect(await page.evaluate(() => (globalThis as any).document.documentElement.classList.contains('js'))).toBe(false);
      await page.click('button[value=decline]');
      await page.waitForURL(SHOP.url_ok);
      expect(await orderOf(o)).toMatchObject({ status: 'SUCCESS', amount: 1200, dcc: { accepted: false, cardholder_currency: '826' } });
      await page.close();
    } finally {
      await noJs.close();
    }
  });

  it('the offer screen in each of the 14 languages, with no untranslated key', async () => {
    const o = await createOrder(a, { ...SHOP });
    const page = await context.newPage();
    await page.goto(`${o.urls.payment_card}?lang=en`);
    await typeCard(page, SANDBOX_DCC_CARDS.CHF);
    await page.click('button[type=submit]');
    await page.waitForURL(/\/payment\/dcc\//);
    const url = new URL(page.url());
    const keyLike = /\b(?:lang|page|order|card|err|result|action|error|acs|bizum|checkout|method|link|apm|dcc)\.[a-z_0-9]+(?:\.[a-z_0-9]+)?\b/;
    for (const lang of LANGUAGES) {
      url.searchParams.set('lang', lang);
      await page.goto(url.toString());
      const c = CATALOGUES[lang];
      expect(await page.getAttribute('html', 'lang'), lang).toBe(lang);
      expect(await page.textContent('h1'), lang).toBe(c['dcc.title']);
      const text = await page.evaluate(() => `${(globalThis as any).document.body.innerText} ${(globalThis as any).document.title}`);
      expect(text, lang).not.toMatch(keyLike);
      expect(text, lang).toContain(c['dcc.notice']);
      expect(await page.locator('button.dcc-option').count(), lang).toBe(2);
    }
    // the offer is still there to choose: nothing was charged
    expect(await orderOf(o)).toMatchObject({ status: 'CREATED', transactions: [] });
    await page.close();
  });
});
