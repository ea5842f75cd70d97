/**
 * The hosted pages paid through the Checkout.com and PayPal connectors in a real browser (Chromium), in
 * production against their simulators: a 3-D Secure challenge on Checkout.com's authentication page
 * (the cardholder back with cko-session-id, then url_ok), a card PayPal asks 3-D Secure for (PayPal's
 * payer-action page, visited as its link is, and back), and a PayPal account approving on PayPal's page
 * (PayPal's webhook has the order captured; the order's page then says it is paid).
 */
import http from 'node:http';
import { afterAll, beforeAll, describe, expect, it as vitestIt } from 'vitest';
import { chromium, type Browser, type BrowserContext, type Page } from 'playwright-core';
import { chromiumForTests } from '../helpers/chromium.js';
import { createTestApp, type TestApp, type TestMerchant } from '../helpers/app.js';
import { freePort } from '../helpers/process.js';
import { checkoutHarness, paypalHarness, type WebhookSend } from '../helpers/connectors.js';
import { CHECKOUT_SIM_CARDS } from '../../src/processors/checkout/simulator/rules.js';
import { PAYPAL_SIM_CARDS } from '../../src/processors/paypal/simulator/rules.js';

const CHROMIUM = await chromiumForTests(import.meta.url);
const it = vitestIt.skipIf(!CHROMIUM);

const cko = checkoutHarness();
const pp = paypalHarness();
let t: TestApp;
let checkout: TestMerchant;
let paypal: TestMerchant;
let base: string;
let browser: Browser;
let context: BrowserContext;
let shop: http.Server;
let SHOP = '';

beforeAll(async () => {
  if (!CHROMIUM) return;
  await cko.start();
  await pp.start();
  const port = await freePort();
  base = `http://127.0.0.1:${port}`;
  t = await createTestApp({ ...cko.env(), ...pp.env(), PAYGATE_PUBLIC_URL: base });
  await t.app.listen({ port, host: '127.0.0.1' });
  checkout = await t.merchant({ env: 'production', isPci: true, serviceType: cko.serviceType, terminal: cko.terminal });
  paypal = await t.merchant({ env: 'production', isPci: true, serviceType: pp.serviceType, terminal: pp.terminal });
  // the processors' webhooks reach the gateway (in process)
  const send: WebhookSend = async (d) => {
    const r = await t.app.inject({ method: 'POST', url: d.path, headers: d.headers, payload: d.body });
    return { status: r.statusCode, body: r.body };
  };
  cko.webhooks!.deliverTo(send);
  pp.webhooks!.deliverTo(send);
  browser = await chromium.launch({ executablePath: CHROMIUM!.executablePath, args: CHROMIUM!.args });
  context = await browser.newContext({ viewport: { width: 480, height: 860 }, locale: 'en-GB', timezoneId: 'Europe/Madrid' });
  await context.setExtraHTTPHeaders({ 'x-forwarded-proto': 'https' });
  shop = http.createServer((req, res) => {
    res.setHeader('content-type', 'text/html');
    res.end(`<!doctype html><h1 id="shop">Shop: payment ${req.url === '/ok' ? 'OK' : 'KO'}</h1>`);
  });
  const shopPort = await freePort();
  await new Promise<void>((resolve) => shop.listen(shopPort, '127.0.0.1', resolve));
  SHOP = `http://localhost:${shopPort}`;
}, 120_000);

afterAll(async () => {
  await browser?.close();
  await new Promise((r) => shop?.close(r));
  await t?.close();
  await cko.close();
  await pp.close();
});

async function arrive(page: Page, url: string) {
  await page.waitForURL(url, { timeout: 30_000 }).catch(async (err) => {
    throw new Error(`${err.message}\nat ${page.url()}:\n${(await page.content()).slice(0, 3000)}`);
  });
}

describe('the hosted pages through Checkout.com and PayPal in Chromium', () => {
  it('Checkout.com: the 3-D Secure challenge on Checkout.com\'s page, back with cko-session-id, then url_ok', async () => {
    const r = await checkout.api.post('/payment/single-step', {
      amount: 4200, operative: 'AUTHORIZATION', secure: true, description: 'browser cko', service: checkout.service_uuid, customer_ext_id: 'b-cko',
      url_ok: `${SHOP}/ok`, url_ko: `${SHOP}/ko`, card_holder: 'Ana', card_pan: CHECKOUT_SIM_CARDS.CHALLENGE, card_expiry_month: '12', card_expiry_year: '2030', card_cvv: '123',
    });
    expect(r.status, r.raw).toBe(303);
    const page = await context.newPage();
    await page.goto(String(r.body.url).replace(/^https?:\/\/[^/]+/, base));
    await page.waitForSelector('#pass', { timeout: 30_000 });
    expect(page.url()).toMatch(new RegExp(`^${cko.sim.url}/sim/3ds/pay_`));
    await page.click('#pass');
    await arrive(page, `${SHOP}/ok`);
    const o = (await checkout.api.get(`/order/${r.body.order.uuid}`)).body.order;
    expect(o).toMatchObject({ status: 'SUCCESS', paid: true, safe: true });
    expect(cko.sim.payment(o.transactions[0].processor_id)).toMatchObject({ approved: true, amount: 4200 });
    await page.close();
  });

  it('PayPal: a card whose issuer asks for 3-D Secure goes to PayPal\'s payer-action page, authenticates, comes back, then url_ok', async () => {
    const r = await paypal.api.post('/payment/single-step', {
      amount: 3100, operative: 'AUTHORIZATION', secure: false, description: 'browser pp 3ds', service: paypal.service_uuid, customer_ext_id: 'b-pp-3ds',
      url_ok: `${SHOP}/ok`, url_ko: `${SHOP}/ko`, card_holder: 'Ana', card_pan: PAYPAL_SIM_CARDS.SOFT_DECLINE, card_expiry_month: '12', card_expiry_year: '2030', card_cvv: '123',
    });
    expect(r.status, r.raw).toBe(303);
    const page = await context.newPage();
    await page.goto(String(r.body.url).replace(/^https?:\/\/[^/]+/, base));
    await page.waitForSelector('#pass', { timeout: 30_000 }).catch(async (err) => {
      throw new Error(`${err.message}\nat ${page.url()}:\n${(await page.innerText('body')).slice(0, 3000)}`);
    });
    // the link as PayPal gave it, with the way back appended
    expect(page.url()).toMatch(new RegExp(`^${pp.sim.url}/sim/3ds/[^?]+\\?.*redirect_uri=`));
    await page.click('#pass');
    await arrive(page, `${SHOP}/ok`);
    const o = (await paypal.api.get(`/order/${r.body.order.uuid}`)).body.order;
    expect(o).toMatchObject({ status: 'SUCCESS', paid: true, safe: true });
    await page.close();
  });

  it('PayPal: the buyer approves on PayPal\'s page; the webhook has the order captured; the order\'s page says it is paid', async () => {
    expect((await paypal.api.put(`/service/${paypal.service_uuid}/apms`, { apms: ['PAYPAL'] })).status).toBe(200);
    const created = (await paypal.api.post('/payment', { amount: 1999, operative: 'AUTHORIZATION', description: 'browser paypal', service: paypal.service_uuid, customer_ext_id: 'b-pp', url_ok: `${SHOP}/ok`, url_ko: `${SHOP}/ko` })).body.order;
    const page = await context.newPage();
    await page.goto(`${String(created.urls.payment_card).replace(/^https?:\/\/[^/]+/, base)}?apm=paypal`);
    // the order's page, then the PayPal page of the hosted pages, which sends the buyer to PayPal
    if (!/\/payment\/apm\//.test(page.url())) await page.click('button[type=submit]');
    await page.waitForURL(/\/payment\/apm\//);
    await page.click('button[type=submit]');
    await page.waitForSelector('#approve', { timeout: 30_000 }).catch(async (err) => {
      throw new Error(`${err.message}\nat ${page.url()}:\n${(await page.innerText('body')).slice(0, 3000)}`);
    });
    expect(page.url()).toMatch(new RegExp(`^${pp.sim.url}/sim/approve/`));
    await page.click('#approve');
    await expect.poll(async () => (await paypal.api.get(`/order/${created.uuid}`)).body.order.status, { timeout: 20_000 }).toBe('SUCCESS');
    // the order's page now says it is paid (no new charge)
    await page.goto(String(created.urls.payment_card).replace(/^https?:\/\/[^/]+/, base));
    expect(await page.innerText('body')).toContain('This payment has already been made');
    await page.close();
  });
});
