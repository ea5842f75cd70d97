/**
 * In a real browser (playwright-core driving Chromium), against an in-process gateway:
 * - the hosted page inside an iframe on another origin: after paying, the top window lands on url_ok
 *   (or the window the merchant chose with `?target=`), and the parent page receives the page's height
 *   and the outcome by postMessage; without JavaScript the last page links url_ok with target="_top";
 * - the card-brand logos: the recognised brand is shown in full and the others fade (computed style);
 * - the API reference at /docs renders from the gateway alone (no request to any other origin), targets
 *   the sandbox, and its example requests carry the key typed under Authentication and run as shown
 *   once the signature is pasted.
 */
import { execFile } from 'node:child_process';
import http from 'node:http';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it as vitestIt } from 'vitest';
import { chromium, type Browser, type BrowserContext, type Page } from 'playwright-core';
import { chromiumForTests } from '../helpers/chromium.js';
import { createTestApp, type TestApp, type TestMerchant } from '../helpers/app.js';
import { freePort } from '../helpers/process.js';
import { TEST_CARDS, createOrder } from '../helpers/payments.js';

const run = promisify(execFile);

/** Chromium from PAYGATE_CHROMIUM_PATH, the system, or the one `npm install` brings (test/helpers/chromium.ts); none: skipped (CI: an error). */
const CHROMIUM = await chromiumForTests(import.meta.url);
const it = vitestIt.skipIf(!CHROMIUM);

let t: TestApp;
let a: TestMerchant;
let base: string;
let browser: Browser;
let context: BrowserContext;
/** The merchant's site, on another origin: a checkout page that frames the payment page, and url_ok / url_ko. */
let shopSite: http.Server;
let shopBase: string;

/** The parent page of the docs: it listens to the frame as docs/pages.md shows. */
const EMBED = (src: string, gateway: string) => `<!doctype html><title>Shop checkout</title><h1>Shop checkout</h1>
<iframe id="pay" src="${src.replace(/"/g, '&quot;')}" width="480" height="300" style="border:0"></iframe>
<script>
window.addEventListener('message', function (event) {
  if (event.origin !== ${JSON.stringify(gateway)}) return;
  var m = event.data || {};
  if (m.type === 'paygate:height') document.getElementById('pay').style.height = m.height + 'px';
  // kept across the top window's move to url_ok (same origin as this page)
  if (m.type === 'paygate:outcome') sessionStorage.setItem('paygate-outcome', JSON.stringify(m));
  if (window.report) window.report(m);
});
</script>`;

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
      return void res.end(`<!doctype html><title>Shop</title><h1 id="shop">Shop: payment ${url.pathname === '/ok' ? 'OK' : 'KO'}</h1>`);
    }
    const src = url.searchParams.get('src') ?? '';
    if (url.pathname !== '/embed' || !src.startsWith(base)) return void res.writeHead(404).end();
    res.end(EMBED(src, base));
  });
  const shopPort = await freePort();
  await new Promise<void>((resolve) => shopSite.listen(shopPort, '127.0.0.1', resolve));
  // another origin than the gateway's (the host name differs), like a merchant's site
  shopBase = `http://localhost:${shopPort}`;
  a = await t.merchant({ name: 'Verde Market' });
  browser = await chromium.launch({ executablePath: CHROMIUM!.executablePath, args: CHROMIUM!.args });
  context = await browser.newContext({ viewport: { width: 900, height: 900 }, locale: 'en-GB' });
}, 120_000);

afterAll(async () => {
  await browser?.close();
  await new Promise((resolve) => shopSite?.close(resolve));
  await t?.close();
});

/** The shop's checkout page framing the payment page; the messages its listener receives are collected. */
async function embedded(paymentUrl: string, ctx: BrowserContext = context): Promise<{ page: Page; messages: any[] }> {
  const page = await ctx.newPage();
  const messages: any[] = [];
  await page.exposeFunction('report', (m: unknown) => void messages.push(m));
  await page.goto(`${shopBase}/embed?src=${encodeURIComponent(paymentUrl)}`);
  return { page, messages };
}

async function pay(page: Page, number: string) {
  const frame = page.frameLocator('#pay');
  await frame.locator('#f-holder').fill('Ana Pérez');
  await frame.locator('#f-number').pressSequentially(number);
  await frame.locator('#f-expiry').pressSequentially('1230');
  await frame.locator('#f-cvv').pressSequentially('123');
  await frame.locator('button[type=submit]').click();
}

describe('the hosted page in an iframe on the merchant\'s page', () => {
  it('after paying, the top window lands on url_ok; the parent got the height and the outcome', async () => {
    const o = await createOrder(a, { url_ok: `${shopBase}/ok`, url_ko: `${shopBase}/ko`, customer_ext_id: null, amount: 4990 });
    const { page, messages } = await embedded(`${o.urls.payment_card}?lang=en`);
    // the page tells its height at once; the parent's listener sizes the frame with it
    await expect.poll(() => messages.find((m) => m.type === 'paygate:height')).toBeTruthy();
    const first = messages.find((m) => m.type === 'paygate:height');
    expect(first.order_uuid).toBe(o.uuid);
    expect(first.height).toBeGreaterThan(300);
    await expect.poll(() => page.locator('#pay').evaluate((el) => el.getBoundingClientRect().height)).toBe(first.height);

    await pay(page, TEST_CARDS.APPROVED);
    await page.waitForURL(`${shopBase}/ok`);
    expect(await page.textContent('#shop')).toBe('Shop: payment OK');
    // the parent handled the outcome before the top window moved on (its listener kept it)
    expect(JSON.parse((await page.evaluate(() => (globalThis as any).sessionStorage.getItem('paygate-outcome') as string | null)) ?? 'null')).toEqual({
      type: 'paygate:outcome', status: 'SUCCESS', result: 'ok', order_uuid: o.uuid, amount: 4990, currency: 'EUR',
    });
    expect((await a.api.get(`/order/${o.uuid}`)).body.order.status).toBe('SUCCESS');
    await page.close();
  });

  it('a refused card: the outcome says so and the top window lands on url_ko', async () => {
    const o = await createOrder(a, { url_ok: `${shopBase}/ok`, url_ko: `${shopBase}/ko`, customer_ext_id: null });
    const { page, messages } = await embedded(`${o.urls.payment_card}?lang=en`);
    await pay(page, TEST_CARDS.REFUSED);
    await page.waitForURL(`${shopBase}/ko`);
    expect(JSON.parse((await page.evaluate(() => (globalThis as any).sessionStorage.getItem('paygate-outcome') as string | null)) ?? 'null')).toMatchObject({ type: 'paygate:outcome', status: 'REFUSED', result: 'ko', order_uuid: o.uuid });
    expect(messages.some((m) => m.type === 'paygate:height')).toBe(true);
    await page.close();
  });

  it('target=self keeps the whole flow in the frame, as before', async () => {
    const o = await createOrder(a, { url_ok: `${shopBase}/ok`, url_ko: `${shopBase}/ko`, customer_ext_id: null });
    const { page } = await embedded(`${o.urls.payment_card}?lang=en&target=self`);
    await pay(page, TEST_CARDS.APPROVED);
    await expect.poll(() => page.frames().map((f) => f.url())).toContain(`${shopBase}/ok`);
    expect(page.url()).toContain(`${shopBase}/embed`);
    await page.close();
  });

  it('without JavaScript the frame pays and the last page links url_ok in the top window', async () => {
    const noJs = await browser.newContext({ javaScriptEnabled: false, viewport: { width: 900, height: 900 }, locale: 'en-GB' });
    try {
      const o = await createOrder(a, { url_ok: `${shopBase}/ok`, url_ko: `${shopBase}/ko`, customer_ext_id: null });
      const page = await noJs.newPage();
      await page.goto(`${shopBase}/embed?src=${encodeURIComponent(`${o.urls.payment_card}?lang=en`)}`);
      const frame = page.frameLocator('#pay');
      await frame.locator('#f-holder').fill('Ana Pérez');
      await frame.locator('#f-number').fill('4548 8120 4940 0004');
      await frame.locator('#f-expiry').fill('12/30');
      await frame.locator('#f-cvv').fill('123');
      await frame.locator('button[type=submit]').click();
      const link = frame.locator('#pg-leave');
      expect(await link.getAttribute('target')).toBe('_top');
      expect(await link.getAttribute('href')).toBe(`${shopBase}/ok`);
      await link.click();
      await page.waitForURL(`${shopBase}/ok`);
      expect((await a.api.get(`/order/${o.uuid}`)).body.order.status).toBe('SUCCESS');
    } finally {
      await noJs.close();
    }
  });
});

describe('card-brand logos', () => {
  it('the recognised brand is shown in full and the others fade (computed opacity)', async () => {
    const o = await createOrder(a, { customer_ext_id: null });
    const page = await context.newPage();
    await page.goto(`${o.urls.payment_card}?lang=en`);
    const opacity = (cls: string) => page.locator(`#pg-brands svg.${cls}`).first().evaluate((el) => (globalThis as any).getComputedStyle(el).opacity as string);
    // nothing typed: every logo in full
    expect(await opacity('b-visa')).toBe('1');
    expect(await opacity('b-mastercard')).toBe('1');
    await page.locator('#f-number').pressSequentially('4548 81');
    await expect.poll(() => opacity('b-visa')).toBe('1');
    await expect.poll(() => opacity('b-mastercard')).toBe('0.25');
    await page.locator('#f-number').fill('');
    await page.locator('#f-number').pressSequentially('5590 33');
    await expect.poll(() => opacity('b-mastercard')).toBe('1');
    await expect.poll(() => opacity('b-visa')).toBe('0.25');
    await page.close();
  });
});

describe('the API reference at /docs', () => {
  it('renders from the gateway alone, and a request from it reaches the sandbox', async () => {
    const page = await context.newPage();
    await page.setViewportSize({ width: 1400, height: 900 });
    const origins = new Set<string>();
    page.on('request', (req) => {
      const url = req.url();
      if (!url.startsWith('data:') && !url.startsWith('blob:')) origins.add(new URL(url).origin);
    });
    const violations: string[] = [];
    page.on('console', (msg) => {
      if (/Content Security Policy|Content-Security-Policy/i.test(msg.text())) violations.push(msg.text());
    });
    const res = await page.goto(`${base}/docs`);
    expect(res!.headers()['content-security-policy']).toContain("frame-ancestors 'none'");
    await page.getByText('A1 Check authentication').first().waitFor({ timeout: 30_000 });
    await page.waitForLoadState('networkidle');
    expect([...origins]).toEqual([base]);
    // the page works under its Content-Security-Policy: nothing it needs was blocked
    expect(violations).toEqual([]);
    // "try it" sends requests from this page to the first server, the sandbox: same origin, so the
    // browser lets it through, and a pasted key authenticates
    const answer = await page.evaluate(async (key) => {
      const res = await fetch('/v1/sandbox/auth/check', { headers: { authorization: `Basic ${btoa(`${key}:`)}` } });
      return { status: res.status, body: await res.json() };
    }, a.api_key);
    expect(answer).toMatchObject({ status: 200, body: { message: 'OK' } });
    await page.close();
  });

  it('targets the sandbox: with the key typed under Authentication, an example request runs as shown once the signature is pasted', async () => {
    const page = await context.newPage();
    await page.setViewportSize({ width: 1400, height: 900 });
    await page.goto(`${base}/docs`);
    await page.getByText('A1 Check authentication').first().waitFor({ timeout: 30_000 });
    // the first server, selected by default, is the sandbox
    await page.getByText(`${base}/v1/sandbox`).first().waitFor();
    // the API key as the Basic user name (the field is an editor, not an <input>)
    // (Scalar 1.46, the last release that runs on Node 20, draws the placeholder as a child element)
    await page.locator('[contenteditable="true"]:has([aria-label="placeholder janedoe"])').first().click();
    await page.keyboard.type(a.api_key);
    await page.getByText('sandbox', { exact: true }).first().click();
    await page.getByText('Move the sandbox clock forward').first().click();
    const examples = async () => page.locator('pre, code').evaluateAll((els) => els.map((e) => (e as unknown as { innerText: string }).innerText).filter((x) => x.includes('--request POST') && /\/test-clock \\/.test(x)));
    await expect.poll(async () => (await examples()).length).toBeGreaterThan(0);
    const curl = (await examples())[0];
    expect(curl).toContain(`curl ${base}/v1/sandbox/test-clock`);
    expect(curl).toContain(`Authorization: Basic ${Buffer.from(`${a.api_key}:`).toString('base64')}`);
    const example = /"signature": "([0-9a-f]{32})"/.exec(curl)?.[1];
    expect(example).toBeDefined();
    await page.close();
    // as shown: refused, the example's signature is not the merchant's; with the signature pasted: runs
    const shell = async (cmd: string) => JSON.parse((await run('bash', ['-c', cmd])).stdout);
    expect(await shell(curl)).toMatchObject({ code: 403 });
    const before = (await a.api.get('/test-clock')).body.test_clock.offset_seconds;
    expect(await shell(curl.replace(example!, a.signature))).toMatchObject({ code: 200, test_clock: { offset_seconds: before + 86400 } });
    expect((await a.api.post('/test-clock/reset', {})).status).toBe(200);
  });
});
