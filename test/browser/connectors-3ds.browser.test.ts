/**
 * The hosted payment page through each connector's 3-D Secure challenge, in a real browser (Chromium),
 * in production against the connector's simulator: for every connector of the list
 * (src/processors/connectors.ts) whose simulator has a challenge card (its harness's, else
 * certification's), an order made with url_ok is paid on its hosted page with that card; the simulator's
 * challenge page (the kit's: its authenticate and fail buttons, found by `data-challenge`) is passed and the buyer lands on url_ok with the order
 * SUCCESS; failed, the order is refused (AUTHENTICATION_FAILED). One gateway, one browser for all. Each
 * simulator's ledger of requests and answers stays clean (what its provider's reference allows).
 */
import http from 'node:http';
import { afterAll, beforeAll, describe, expect, it as vitestIt } from 'vitest';
import { chromium, type Browser, type BrowserContext, type Page } from 'playwright-core';
import { chromiumForTests } from '../helpers/chromium.js';
import { createTestApp, type TestApp, type TestMerchant } from '../helpers/app.js';
import { freePort } from '../helpers/process.js';
import { harnessOf, type WebhookSend } from '../helpers/connectors.js';
import { CONNECTORS } from '../../src/processors/connectors.js';

const CHROMIUM = await chromiumForTests(import.meta.url);
const it = vitestIt.skipIf(!CHROMIUM);

const harnesses = CONNECTORS.map((d) => harnessOf(d)).filter((h) => h.cards.challenge);
const merchants = new Map<string, TestMerchant>();
let t: TestApp;
let base: string;
let browser: Browser;
let context: BrowserContext;
let shop: http.Server;
let SHOP = '';

beforeAll(async () => {
  if (!CHROMIUM) return;
  for (const h of harnesses) await h.start();
  const port = await freePort();
  base = `http://127.0.0.1:${port}`;
  t = await createTestApp(Object.assign({ PAYGATE_PUBLIC_URL: base }, ...harnesses.map((h) => h.env())));
  await t.app.listen({ port, host: '127.0.0.1' });
  // the processors' notifications and webhooks reach the gateway (in process)
  const send: WebhookSend = async (d) => {
    const r = await t.app.inject({ method: 'POST', url: d.path, headers: d.headers, payload: d.body });
    return { status: r.statusCode, body: r.body };
  };
  for (const h of harnesses) {
    h.webhooks?.deliverTo(send);
    merchants.set(h.name, await t.merchant({ env: 'production', isPci: true, serviceType: h.serviceType, terminal: h.terminal }));
  }
  browser = await chromium.launch({ executablePath: CHROMIUM!.executablePath, args: CHROMIUM!.args });
  context = await browser.newContext({ viewport: { width: 480, height: 860 }, locale: 'en-GB', timezoneId: 'Europe/Madrid' });
  // production pages are served over HTTPS behind a proxy: the proxy's header
  await context.setExtraHTTPHeaders({ 'x-forwarded-proto': 'https' });
  // the shop's url_ok / url_ko: a server on another origin of this machine
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
  // each simulator saw only what its provider's reference allows
  for (const h of harnesses) await h.close();
});

/** Waits for a URL; failing, says where the page is and what it shows. */
async function arrive(page: Page, url: string | RegExp, what: string) {
  await page.waitForURL(url, { timeout: 30_000 }).catch(async (err) => {
    throw new Error(`${what}: ${err.message}\nat ${page.url()}:\n${(await page.innerText('body').catch(() => '')).slice(0, 3000)}`);
  });
}

/** An order with url_ok, its hosted page opened and paid with the connector's challenge card, up to the simulator's challenge page. */
async function toChallenge(h: (typeof harnesses)[number], amount: number): Promise<{ page: Page; uuid: string; m: TestMerchant }> {
  const m = merchants.get(h.name)!;
  const r = await m.api.post('/payment', {
    amount, operative: 'AUTHORIZATION', secure: true, description: `browser 3ds ${h.name}`, service: m.service_uuid, customer_ext_id: `b3ds-${h.name}-${amount}`,
    url_ok: `${SHOP}/ok`, url_ko: `${SHOP}/ko`,
  });
  expect(r.status, r.raw).toBe(200);
  const order = r.body.order;
  const page = await context.newPage();
  await page.goto(`${String(order.urls.payment_card).replace(/^https?:\/\/[^/]+/, base)}?lang=en`);
  await page.fill('#f-holder', 'Ana Pérez');
  await page.locator('#f-number').pressSequentially(h.cards.challenge!);
  await page.locator('#f-expiry').pressSequentially('1230');
  await page.locator('#f-cvv').pressSequentially('123');
  await page.click('button[type=submit]');
  // the simulator's challenge page (kit/simulator.ts challengePage)
  await page.waitForSelector('[data-challenge=pass]', { timeout: 30_000 }).catch(async (err) => {
    throw new Error(`${h.name}: no challenge page: ${err.message}\nat ${page.url()}:\n${(await page.innerText('body').catch(() => '')).slice(0, 3000)}`);
  });
  expect(page.url().startsWith(h.sim.url), `${h.name}: the challenge is on its simulator, not at ${page.url()}`).toBe(true);
  return { page, uuid: order.uuid, m };
}

describe(`the hosted page through each connector's 3-D Secure challenge in Chromium (${harnesses.map((h) => h.name).join(', ')})`, () => {
  it('authenticated on the simulator\'s challenge page: url_ok, the order SUCCESS', { timeout: 180_000 }, async () => {
    expect(harnesses.length).toBeGreaterThan(0);
    for (const [i, h] of harnesses.entries()) {
      const amount = 4200 + i;
      const { page, uuid, m } = await toChallenge(h, amount);
      await page.click('[data-challenge=pass]');
      await arrive(page, `${SHOP}/ok`, h.name);
      const o = (await m.api.get(`/order/${uuid}`)).body.order;
      expect(o, h.name).toMatchObject({ status: 'SUCCESS', paid: true, amount });
      expect(o.transactions.at(-1), h.name).toMatchObject({ status: 'SUCCESS', amount });
      await page.close();
    }
  });

  it('failed on the simulator\'s challenge page: the order refused, AUTHENTICATION_FAILED', { timeout: 180_000 }, async () => {
    for (const [i, h] of harnesses.entries()) {
      const { page, uuid, m } = await toChallenge(h, 5200 + i);
      await page.click('[data-challenge=fail]');
      await arrive(page, `${SHOP}/ko`, h.name);
      const o = (await m.api.get(`/order/${uuid}`)).body.order;
      expect(o, h.name).toMatchObject({ status: 'REFUSED', paid: false });
      expect(o.transactions.at(-1), h.name).toMatchObject({ status: 'REFUSED', error: 'AUTHENTICATION_FAILED' });
      await page.close();
    }
  });
});
