/**
 * The customer pages in a real browser: playwright-core driving Chromium against an
 * in-process gateway listening on a port. The merchant's shop (url_ok, url_ko, and the page that embeds
 * the payment page in an iframe) is a small server on another origin of this machine; a logo CDN is
 * answered by the browser's request routing, so nothing leaves the machine.
 *
 * Screenshots for the README are written to a temporary folder (`npm run screenshots`: docs/screenshots/).
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
import { CATALOGUES, LANGUAGES } from '../../src/modules/pages/index.js';

/** Chromium from PAYGATE_CHROMIUM_PATH, the system, or the one `npm install` brings (test/helpers/chromium.ts); none: skipped (CI: an error). */
const CHROMIUM = await chromiumForTests(import.meta.url);
const it = vitestIt.skipIf(!CHROMIUM);
const SHOTS = screenshotDir();

let t: TestApp;
let a: TestMerchant;
let base: string;
let browser: Browser;
let context: BrowserContext;
/** The merchant's own site, on another origin of this machine: a page that embeds the payment page. */
let shopSite: http.Server;
let shopBase: string;

/** url_ok / url_ko: pages of the shop's server (a real one: a redirect to a URL answered by request routing is not intercepted by every Chromium build). */
const SHOP = { url_ok: '', url_ko: '' };

const LOGO_SVG = `<svg xmlns="http://www.w3.org/2000/svg" width="180" height="40" viewBox="0 0 180 40"><rect x="0" y="4" width="32" height="32" rx="8" fill="#0F766E"/><path d="M9 20l5 5 10-11" stroke="#fff" stroke-width="3.5" fill="none" stroke-linecap="round" stroke-linejoin="round"/><text x="42" y="27" font-family="Arial,sans-serif" font-size="19" font-weight="700" fill="#0F3D3A">Verde Market</text></svg>`;

/** The merchant's side, answered inside the browser. */
async function routeShop(ctx: BrowserContext) {
  await ctx.route(/^https?:\/\/shop\.example\//, async (route) => {
    const url = new URL(route.request().url());
    const label = url.pathname === '/ok' ? 'Shop: payment OK' : url.pathname === '/ko' ? 'Shop: payment KO' : 'Shop';
    return route.fulfill({ contentType: 'text/html', body: `<!doctype html><title>${label}</title><h1 id="shop">${label}</h1>` });
  });
  await ctx.route('https://cdn.shop.example/**', (route) => route.fulfill({ contentType: 'image/svg+xml', body: LOGO_SVG }));
}

beforeAll(async () => {
  if (!CHROMIUM) return;
  const port = await freePort();
  base = `http://127.0.0.1:${port}`;
  t = await createTestApp({ PAYGATE_PUBLIC_URL: base });
  await t.app.listen({ port, host: '127.0.0.1' });
  shopSite = http.createServer((req, res) => {
    const url = new URL(req.url ?? '/', 'http://x');
    res.setHeader('content-type', 'text/html');
    if (url.pathname === '/ok' || url.pathname === '/ko') {
      return void res.end(`<!doctype html><h1 id="shop">Shop: payment ${url.pathname === '/ok' ? 'OK' : 'KO'}</h1>`);
    }
    const src = url.searchParams.get('src') ?? '';
    if (url.pathname !== '/embed' || !src.startsWith(base)) return void res.writeHead(404).end();
    res.end(`<!doctype html><title>Shop checkout</title><h1>Shop checkout</h1><iframe id="pay" src="${src.replace(/"/g, '&quot;')}" width="480" height="820" style="border:0"></iframe>`);
  });
  const shopPort = await freePort();
  await new Promise<void>((resolve) => shopSite.listen(shopPort, '127.0.0.1', resolve));
  // another origin than the gateway's (the host name differs), like a merchant's site
  shopBase = `http://localhost:${shopPort}`;
  SHOP.url_ok = `${shopBase}/ok`;
  SHOP.url_ko = `${shopBase}/ko`;
  a = await t.merchant({ name: 'Verde Market' });
  await a.api.put(`/service/${a.service_uuid}`, { bizum_enabled: true });
  browser = await chromium.launch({ executablePath: CHROMIUM!.executablePath, args: CHROMIUM!.args });
  context = await browser.newContext({ viewport: { width: 480, height: 860 }, deviceScaleFactor: 1, locale: 'en-GB', timezoneId: 'Europe/Madrid' });
  await routeShop(context);
  fs.mkdirSync(SHOTS, { recursive: true });
}, 120_000);

afterAll(async () => {
  await browser?.close();
  await new Promise((resolve) => shopSite?.close(resolve));
  await t?.close();
});

async function pageFor(order: { [k: string]: any }, lang = 'en', p?: Page): Promise<Page> {
  const page = p ?? (await context.newPage());
  await page.goto(`${order.urls.payment_card}?lang=${lang}`);
  return page;
}

async function typeCard(page: Page, card: { holder?: string; number: string; expiry?: string; cvv?: string }) {
  await page.fill('#f-holder', card.holder ?? 'Ana Pérez');
  await page.locator('#f-number').pressSequentially(card.number);
  await page.locator('#f-expiry').pressSequentially(card.expiry ?? '1230');
  await page.locator('#f-cvv').pressSequentially(card.cvv ?? '123');
}

async function shot(page: Page, name: string) {
  await page.screenshot({ path: path.join(SHOTS, name), fullPage: true, animations: 'disabled', caret: 'hide' });
}

describe('card payment in the browser', () => {
  it('opens the page, types a test card (formatted, brand shown), pays and lands on url_ok', async () => {
    const o = await createOrder(a, { ...SHOP, customer_ext_id: null, amount: 4990, description: 'Order #1042 · 2 items' });
    const page = await pageFor(o);
    expect(await page.title()).toBe('Pay by card · Secure payment');
    await shot(page, 'payment-page.png');
    await typeCard(page, { number: TEST_CARDS.APPROVED });
    expect(await page.inputValue('#f-number')).toBe('4548 8120 4940 0004');
    expect(await page.inputValue('#f-expiry')).toBe('12/30');
    expect(await page.getAttribute('#pg-brands', 'data-brand')).toBe('visa');
    await page.click('button[type=submit]');
    await page.waitForURL(SHOP.url_ok);
    expect(await page.textContent('#shop')).toBe('Shop: payment OK');
    expect((await a.api.get(`/order/${o.uuid}`)).body.order.status).toBe('SUCCESS');
    await page.close();
  });

  it('a refused card lands on url_ko', async () => {
    const o = await createOrder(a, { ...SHOP, customer_ext_id: null });
    const page = await pageFor(o);
    await typeCard(page, { number: TEST_CARDS.REFUSED });
    expect(await page.getAttribute('#pg-brands', 'data-brand')).toBe('mastercard');
    await page.click('button[type=submit]');
    await page.waitForURL(SHOP.url_ko);
    expect((await a.api.get(`/order/${o.uuid}`)).body.order.status).toBe('REFUSED');
    await page.close();
  });

  it('live validation: a bad card number and a past expiry are flagged before submit, and the form is not sent', async () => {
    const o = await createOrder(a, { ...SHOP, customer_ext_id: null, amount: 4990, description: 'Order #1042 · 2 items' });
    const page = await pageFor(o);
    await page.fill('#f-holder', 'Ana Pérez');
    await page.locator('#f-number').pressSequentially('4548 8120 4940 0005');
    await page.locator('#f-expiry').focus();
    expect(await page.textContent('#err-number')).toBe('The card number is not valid.');
    expect(await page.getAttribute('#f-number', 'aria-invalid')).toBe('true');
    await page.locator('#f-expiry').pressSequentially('0120');
    expect(await page.textContent('#err-expiry')).toBe('The card has expired.');
    await page.locator('#f-cvv').pressSequentially('12');
    await page.click('button[type=submit]');
    expect(await page.textContent('#err-form')).toBe('Please correct the highlighted fields.');
    expect(await page.textContent('#err-cvv')).toBe('The security code has 3 digits.');
    expect(page.url()).toContain(`/payment/process/${o.token}`);
    await shot(page, 'payment-page-errors.png');
    expect((await a.api.get(`/order/${o.uuid}`)).body.order.transactions).toHaveLength(0);
    // correcting the fields clears the messages and pays
    await page.fill('#f-number', '4548812049400004');
    await page.fill('#f-expiry', '12/30');
    await page.fill('#f-cvv', '123');
    await page.click('button[type=submit]');
    await page.waitForURL(SHOP.url_ok);
    await page.close();
  });

  it('an American Express card asks for a 4-digit code', async () => {
    const o = await createOrder(a, { ...SHOP, customer_ext_id: null });
    const page = await pageFor(o);
    await page.locator('#f-number').pressSequentially('378282246310005');
    expect(await page.inputValue('#f-number')).toBe('3782 822463 10005');
    expect(await page.textContent('#cvv-hint')).toBe('4 digits on the front of the card');
    expect(await page.getAttribute('#f-cvv', 'maxlength')).toBe('4');
    await page.close();
  });
});

describe('3D Secure challenge in the browser', () => {
  it('approve: the sandbox ACS page, then url_ok', async () => {
    const o = await createOrder(a, { ...SHOP, customer_ext_id: null, secure: true, amount: 12900, description: 'Order #1043' });
    const page = await pageFor(o);
    await typeCard(page, { number: TEST_CARDS.THREEDS_OK });
    await page.click('button[type=submit]');
    await page.waitForURL(/\/payment\/tokenized\//);
    expect(await page.textContent('h1')).toBe('3-D Secure authentication');
    expect(await page.textContent('.acs dl')).toContain('•••• 1011');
    await shot(page, 'threeds-challenge.png');
    await page.click('button[value=approve]');
    await page.waitForURL(SHOP.url_ok);
    const order = (await a.api.get(`/order/${o.uuid}`)).body.order;
    expect(order).toMatchObject({ status: 'SUCCESS', safe: true, threeds_data: { flow: 'CHALLENGE', status: 'Y' } });
    await page.close();
  });

  it('fail: url_ko', async () => {
    const o = await createOrder(a, { ...SHOP, customer_ext_id: null, secure: true });
    const page = await pageFor(o);
    await typeCard(page, { number: TEST_CARDS.THREEDS_OK });
    await page.click('button[type=submit]');
    await page.waitForURL(/\/payment\/tokenized\//);
    await page.click('button[value=fail]');
    await page.waitForURL(SHOP.url_ko);
    expect((await a.api.get(`/order/${o.uuid}`)).body.order.transactions[0].error).toBe('AUTHENTICATION_FAILED');
    await page.close();
  });
});

describe('languages, frames, no JavaScript', () => {
  it('each of the 14 languages renders with no untranslated key, including the live messages', async () => {
    const o = await createOrder(a, { ...SHOP, customer_ext_id: null });
    const page = await context.newPage();
    const keyLike = /\b(?:lang|page|order|card|err|result|action|error|acs|bizum|checkout|method|link)\.[a-z_0-9]+(?:\.[a-z_0-9]+)?\b/;
    for (const lang of LANGUAGES) {
      await page.goto(`${o.urls.payment_card}?lang=${lang}`);
      const c = CATALOGUES[lang];
      expect(await page.getAttribute('html', 'lang'), lang).toBe(lang);
      expect(await page.textContent('h1'), lang).toBe(c['card.title']);
      expect(await page.textContent('label[for=f-number]'), lang).toBe(c['card.number']);
      await page.locator('#f-number').pressSequentially('4548812049400005');
      await page.locator('#f-holder').focus();
      expect(await page.textContent('#err-number'), lang).toBe(c['err.number.invalid']);
      const text = await page.evaluate(() => {
        const d = (globalThis as any).document;
        const attrs = [...d.querySelectorAll('[placeholder],[aria-label],[alt],[title]')].map((e: any) => ['placeholder', 'aria-label', 'alt', 'title'].map((n) => e.getAttribute(n) ?? '').join(' '));
        return `${d.body.innerText} ${d.title} ${attrs.join(' ')}`;
      });
      expect(text, lang).not.toMatch(keyLike);
      expect(text, lang).toContain(c['page.secure_note']);
    }
    await page.close();
  });

  // inside an iframe on the merchant's page: test/browser/frame.browser.test.ts

  it('with JavaScript disabled the form still pays', async () => {
    const noJs = await browser.newContext({ javaScriptEnabled: false, viewport: { width: 480, height: 860 }, locale: 'en-GB' });
    try {
      await routeShop(noJs);
      const o = await createOrder(a, { ...SHOP, customer_ext_id: null });
      const page = await noJs.newPage();
      await page.goto(`${o.urls.payment_card}?lang=en`);
      await page.fill('#f-holder', 'Ana Pérez');
      await page.fill('#f-number', '4548 8120 4940 0004');
      await page.fill('#f-expiry', '12/30');
      await page.fill('#f-cvv', '123');
      expect(await page.getAttribute('#pg-brands', 'data-brand')).toBe(''); // no script ran
      await page.click('button[type=submit]');
      await page.waitForURL(SHOP.url_ok);
      expect((await a.api.get(`/order/${o.uuid}`)).body.order.status).toBe('SUCCESS');
      // and without JavaScript the server shows the errors
      const bad = await createOrder(a, { ...SHOP, customer_ext_id: null });
      await page.goto(`${bad.urls.payment_card}?lang=en`);
      await page.fill('#f-holder', 'Ana');
      await page.fill('#f-number', '4548 8120 4940 0005');
      await page.fill('#f-expiry', '01/20');
      await page.fill('#f-cvv', '123');
      await page.click('button[type=submit]');
      await page.waitForLoadState();
      expect(await page.textContent('#err-number')).toBe('The card number is not valid.');
      expect(await page.textContent('#err-expiry')).toBe('The card has expired.');
    } finally {
      await noJs.close();
    }
  });
});

describe('screenshots of the other pages', () => {
  it('a custom template, the checkout, Bizum and an expired link', async () => {
    const tpl = (await a.api.post('/template', { name: 'Verde', type: 'PAYMENT_CARD', logo_url: 'https://cdn.shop.example/logo.svg', button_color: '#0F766E', background_color: '#E3F1EE' })).body.template;
    const o = await createOrder(a, { ...SHOP, customer_ext_id: null, amount: 2450, template_uuid: tpl.uuid, description: 'Fresh box · weekly' });
    const page = await pageFor(o);
    await expect.poll(() => page.evaluate(() => (globalThis as any).document.querySelector('.merchant img')?.naturalWidth ?? 0)).toBeGreaterThan(0);
    await shot(page, 'payment-page-template.png');

    const co = await createOrder(a, {
      ...SHOP, customer_ext_id: null, amount: 2450,
      extra_data: { checkout: { payment_methods: ['CARD', 'BIZUM'], default_payment_method: 'CARD', customization: { theme_type: 'dark', description: 'Fresh box · weekly', payment_details: { order_number: 'VM-2031' } } } },
    });
    await page.goto(`${co.urls.payment_card}?lang=en`);
    await page.waitForURL(/\/payment\/checkout\//);
    await shot(page, 'checkout.png');
    await page.click('[data-method=BIZUM]');
    await page.waitForURL(/\/payment\/bizum\//);
    await shot(page, 'bizum.png');
    await page.fill('#f-phone', '700000000');
    await page.click('button[type=submit]');
    await page.waitForURL(SHOP.url_ok);

    const expired = await createOrder(a, { ...SHOP, customer_ext_id: null });
    await a.api.post(`/order/${expired.uuid}/expire`, {});
    const r = await page.goto(`${expired.urls.payment_card}?lang=en`);
    expect(r?.status()).toBe(410);
    expect(await page.textContent('h1')).toBe('This payment link has expired');
    await shot(page, 'link-expired.png');
    await page.close();
    for (const f of ['payment-page.png', 'payment-page-errors.png', 'payment-page-template.png', 'threeds-challenge.png', 'checkout.png', 'bizum.png', 'link-expired.png']) {
      expect(fs.statSync(path.join(SHOTS, f)).size, f).toBeGreaterThan(5000);
    }
  });
});
