/**
 * How long the dashboard web app takes to show itself on a slow link, from a cold browser (empty cache,
 * a new connection): the sign-in page until its form is there, and the overview of a signed-in user
 * until its figures are there. Chromium's own network emulation (the DevTools protocol through
 * playwright-core) holds every run to the link given: latency added to each request, and the bytes as
 * they travel on the wire (compressed or not) through the throughput. Each page is loaded `runs` times,
 * each in a new browser context; the median is reported with the bytes and requests of one load.
 *
 *   npm run bench:dashboard [-- runs=5 kbps=1600 latency=150]
 *
 * The gateway runs in process on the embedded database (in memory) with the dashboard built by
 * scripts/build-dashboard.mjs; Chromium is the one the browser tests use (test/helpers/chromium.ts).
 */
import { randomBytes } from 'node:crypto';
import { chromium, type BrowserContext } from 'playwright-core';
import { loadConfig } from '../src/config/config.js';
import { buildApp, buildModules } from '../src/app.js';
import { createMerchantWithService } from '../src/bootstrap.js';
import { createPlatform } from '../src/platform/create.js';
import { openDatabase } from '../src/platform/db/database.js';
import { migrate } from '../src/platform/db/migrate.js';
import { createLogger } from '../src/platform/logging.js';
import { Vault } from '../src/platform/security/vault.js';
import { chromiumForTests } from '../test/helpers/chromium.js';
// @ts-expect-error: a plain JavaScript build script without type declarations
import { buildDashboard } from '../scripts/build-dashboard.mjs';
import { median } from './kit.js';

const arg = (name: string, fallback: number) => Number(process.argv.find((a) => a.startsWith(`${name}=`))?.split('=')[1] ?? fallback);
const RUNS = arg('runs', 5);
const KBPS = arg('kbps', 1600);
const LATENCY = arg('latency', 150);

await buildDashboard({ quiet: true });
const chrome = await chromiumForTests(import.meta.url);
if (!chrome) throw new Error('no Chromium: set PAYGATE_CHROMIUM_PATH or install the devDependencies');

const port = 18000 + Math.floor(Math.random() * 1000);
const base = `http://127.0.0.1:${port}`;
const config = loadConfig({ PAYGATE_LOG_LEVEL: 'silent', PAYGATE_WORKERS: 'false', PORT: String(port), PAYGATE_PUBLIC_URL: base, PAYGATE_PASSWORD_SCRYPT_N: '16384' });
const database = await openDatabase({ databaseUrl: null, inMemory: true });
await migrate(database);
const p = await createPlatform(config, { database, logger: createLogger('silent'), vault: new Vault([{ id: 'bench', key: randomBytes(32) }], randomBytes(32)) });
const m = buildModules(p);
const app = await buildApp(p, m);
await app.listen({ port, host: '127.0.0.1' });

// a manager of a merchant with a few payments, signed in once (its session cookie is given to each run)
const merchant = await createMerchantWithService(p, m, { name: 'Bench Shop' });
const ctx = await m.merchants.contextForKey(merchant.key_id);
const created = await m.merchants.createUser(ctx, { email: 'staff@shop.example', username: 'bench.manager', language: 'EN', environment: 'SANDBOX', send_email_with_credentials: false, group: 'MANAGER' });
for (let i = 0; i < 20; i++) await m.payments.create(ctx, { amount: 1000 + i, currency: 'EUR', service: merchant.service_uuid, operative: 'AUTHORIZATION', secure: false, description: `Bench order ${i}` } as never);
const signIn = await app.inject({ method: 'POST', url: '/dashboard/api/session', payload: { login: 'bench.manager', password: created.password } });
let cookie = String([signIn.headers['set-cookie']].flat()[0]).split(';')[0];
const password = await app.inject({
  method: 'POST', url: '/dashboard/api/session/password', headers: { cookie, 'x-csrf-token': signIn.json().csrf_token },
  payload: { current_password: created.password, new_password: 'a bench passphrase of 2026' },
});
if (password.statusCode !== 200) throw new Error(`password change: ${password.statusCode} ${password.body}`);
cookie = String([password.headers['set-cookie']].flat()[0]).split(';')[0];
const [cookieName, cookieValue] = [cookie.slice(0, cookie.indexOf('=')), cookie.slice(cookie.indexOf('=') + 1)];

const browser = await chromium.launch({ executablePath: chrome.executablePath, args: chrome.args });

interface Load {
  ms: number;
  bytes: number;
  requests: number;
}

/** One cold load of `path` in a new context on the emulated link, until `ready` is in the page. */
async function load(path: string, ready: string, signedIn: boolean): Promise<Load> {
  const context: BrowserContext = await browser.newContext({ viewport: { width: 1280, height: 900 }, locale: 'en-GB', timezoneId: 'Europe/Madrid' });
  if (signedIn) await context.addCookies([{ name: cookieName, value: cookieValue, domain: '127.0.0.1', path: '/dashboard', httpOnly: true, sameSite: 'Strict' }]);
  const page = await context.newPage();
  const cdp = await context.newCDPSession(page);
  await cdp.send('Network.enable');
  await cdp.send('Network.setCacheDisabled', { cacheDisabled: true });
  await cdp.send('Network.emulateNetworkConditions', { offline: false, latency: LATENCY, downloadThroughput: (KBPS * 1000) / 8, uploadThroughput: (KBPS * 1000) / 8 });
  let bytes = 0;
  let requests = 0;
  cdp.on('Network.loadingFinished', (e: { encodedDataLength: number }) => {
    bytes += e.encodedDataLength;
    requests++;
  });
  const t0 = performance.now();
  await page.goto(`${base}${path}`, { waitUntil: 'commit', timeout: 120_000 });
  await page.locator(ready).first().waitFor({ state: 'visible', timeout: 120_000 });
  const ms = performance.now() - t0;
  await context.close();
  return { ms, bytes, requests };
}

process.stdout.write(`link: ${KBPS} kbit/s, ${LATENCY} ms latency; ${RUNS} cold loads each (medians)\n`);
for (const [label, path, ready, signedIn] of [
  ['sign-in page (form shown)', '/dashboard', 'input[name="password"]', false],
  ['overview (figures shown)', '/dashboard/overview', '[data-testid="kpi-volume-value"], [data-testid="overview-empty"]', true],
] as const) {
  const loads: Load[] = [];
  for (let i = 0; i < RUNS; i++) loads.push(await load(path, ready, signedIn));
  process.stdout.write(
    `${label}: median ${(median(loads.map((l) => l.ms)) / 1000).toFixed(2)} s (runs ${loads.map((l) => (l.ms / 1000).toFixed(2)).join(', ')}); ` +
      `${Math.round(median(loads.map((l) => l.bytes)) / 1024)} KiB in ${median(loads.map((l) => l.requests))} requests\n`,
  );
}

await browser.close();
await app.close();
await p.jobs.stop();
await database.close();
