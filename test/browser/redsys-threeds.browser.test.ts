/**
 * EMV 3-D Secure 2 through Redsys in a real browser (Chromium), in production against the Redsys
 * simulator: the 3DS page runs the issuer's 3DS method in a hidden frame, reads the browser's data and
 * posts them; a frictionless card goes straight to url_ok, a challenge card goes through the simulated
 * issuer's ACS page, which posts the answer back to the gateway.
 */
import http from 'node:http';
import { afterAll, beforeAll, describe, expect, it as vitestIt } from 'vitest';
import { chromium, type Browser, type BrowserContext } from 'playwright-core';
import { chromiumForTests } from '../helpers/chromium.js';
import { createTestApp, type TestApp, type TestMerchant } from '../helpers/app.js';
import { freePort } from '../helpers/process.js';
import { redsysHarness } from '../helpers/connectors.js';
import { SIM_CARDS } from '../../src/processors/redsys/simulator/rules.js';

const CHROMIUM = await chromiumForTests(import.meta.url);
const it = vitestIt.skipIf(!CHROMIUM);

const h = redsysHarness();
let t: TestApp;
let m: TestMerchant;
let base: string;
let browser: Browser;
let context: BrowserContext;
let shop: http.Server;
let SHOP = '';

beforeAll(async () => {
  if (!CHROMIUM) return;
  await h.start();
  const port = await freePort();
  base = `http://127.0.0.1:${port}`;
  t = await createTestApp({ ...h.env(), PAYGATE_PUBLIC_URL: base });
  await t.app.listen({ port, host: '127.0.0.1' });
  m = await t.merchant({ env: 'production', isPci: true, serviceType: h.serviceType, terminal: h.terminal });
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
  await h.close();
});

async function securePayment(pan: string) {
  const r = await m.api.post('/payment/single-step', {
    amount: 3350, operative: 'AUTHORIZATION', secure: true, description: 'browser 3ds', service: m.service_uuid, customer_ext_id: `b-${pan.slice(-4)}`,
    url_ok: `${SHOP}/ok`, url_ko: `${SHOP}/ko`, card_holder: 'Ana', card_pan: pan, card_expiry_month: '12', card_expiry_year: '2030', card_cvv: '123',
  });
  expect(r.status, r.raw).toBe(303);
  return r.body as { url: string; order: { uuid: string } };
}

const lastEmv = () => JSON.parse(Buffer.from((h.sim.requests.filter((x) => x.endpoint === 'trataPeticion').at(-1)!.body as { Ds_MerchantParameters: string }).Ds_MerchantParameters, 'base64').toString()).DS_MERCHANT_EMV3DS;

describe('EMV 3-D Secure 2 through Redsys in Chromium', () => {
  it('frictionless: the 3DS method runs in a hidden frame, the browser data are sent, the customer lands on url_ok', async () => {
    const r = await securePayment(SIM_CARDS.APPROVED);
    const page = await context.newPage();
    await page.goto(r.url.replace(/^https?:\/\/[^/]+/, base));
    await page.waitForURL(`${SHOP}/ok`, { timeout: 30_000 }).catch(async (err) => {
      throw new Error(`${err.message}\nat ${page.url()}:\n${(await page.content()).slice(0, 3000)}`);
    });
    expect(await page.textContent('#shop')).toBe('Shop: payment OK');
    // the issuer's method ran and told the page; the real browser's data reached Redsys
    const emv = lastEmv();
    expect(emv).toMatchObject({ threeDSInfo: 'AuthenticationData', threeDSCompInd: 'Y', browserJavascriptEnabled: true, browserTZ: String(await page.evaluate(() => new Date().getTimezoneOffset())) });
    expect(Number(emv.browserScreenWidth)).toBeGreaterThan(0);
    const o = (await m.api.get(`/order/${r.order.uuid}`)).body.order;
    expect(o).toMatchObject({ status: 'SUCCESS', safe: true, threeds_data: { flow: 'FRICTIONLESS', status: 'Y' } });
    await page.close();
  });

  it('challenge: the page sends the customer to the ACS, who authenticates; the ACS posts the answer to the gateway', async () => {
    const r = await securePayment(SIM_CARDS.CHALLENGE);
    const page = await context.newPage();
    await page.goto(r.url.replace(/^https?:\/\/[^/]+/, base));
    await page.waitForSelector('#acs-authenticate', { timeout: 30_000 });
    expect(page.url()).toBe(`${h.sim.url}/sim/acs`);
    await page.click('#acs-authenticate');
    await page.waitForURL(`${SHOP}/ok`, { timeout: 30_000 }).catch(async (err) => {
      throw new Error(`${err.message}\nat ${page.url()}:\n${(await page.content()).slice(0, 3000)}`);
    });
    const o = (await m.api.get(`/order/${r.order.uuid}`)).body.order;
    expect(o).toMatchObject({ status: 'SUCCESS', paid: true, safe: true, threeds_data: { flow: 'CHALLENGE', status: 'Y' } });
    expect(lastEmv()).toMatchObject({ threeDSInfo: 'ChallengeResponse' });
    await page.close();
  });
});
