/**
 * The merchant dashboard in a real browser (playwright-core driving Chromium against an in-process
 * gateway on a port): a D3 user's first sign-in with the password change; a payment made through the API
 * appearing in the list by itself; search by last 4; a filtered CSV export whose rows match GET /orders;
 * a partial refund from the detail (the merchant's url_post receives the notification); a VIEWER who
 * cannot refund; sandbox and production never mixed; ES/EN/PT; the 375 px layout; and axe-core on every
 * page with no serious violation.
 *
 * Screenshots of every page go to a temporary folder (printed), never over committed files;
 * `npm run screenshots` writes them to docs/screenshots (test/helpers/screenshots.ts).
 */
import fs from 'node:fs';
import path from 'node:path';
import { createRequire } from 'node:module';
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it as vitestIt } from 'vitest';
import { chromium, type Browser, type BrowserContext, type Page } from 'playwright-core';
import { generate } from 'otplib';
import { screenshotDir } from '../helpers/screenshots.js';
import { chromiumForTests } from '../helpers/chromium.js';
import { createTestApp, type TestApp, type TestMerchant } from '../helpers/app.js';
import { freePort } from '../helpers/process.js';
import { TEST_CARDS } from '../helpers/payments.js';
import { createUser, type DashUser } from '../helpers/dashboard.js';
import { startReceiver, type Receiver } from '../helpers/receiver.js';

const CHROMIUM = await chromiumForTests(import.meta.url);
const it = vitestIt.skipIf(!CHROMIUM);
const SHOTS = screenshotDir();
const AXE = fs.readFileSync(createRequire(import.meta.url).resolve('axe-core/axe.min.js'), 'utf8');

let t: TestApp;
let a: TestMerchant;
let prod: TestMerchant;
let base: string;
let browser: Browser;
let rx: Receiver;

beforeAll(async () => {
  if (!CHROMIUM) return;
  const port = await freePort();
  base = `http://127.0.0.1:${port}`;
  t = await createTestApp({ PAYGATE_PUBLIC_URL: base, PAYGATE_PRODUCTION_SIMULATOR: 'true', PAYGATE_EVENTS_STREAM_POLL_MS: '200' });
  await t.app.listen({ port, host: '127.0.0.1' });
  a = await t.merchant({ name: 'Verde Market', isPci: true });
  // the same merchant in production: its twin
  prod = await t.merchant({ name: 'Verde Market', env: 'production', isPci: true });
  await sql`update merchants set sandbox_twin_id = ${a.client_uuid} where id = ${prod.client_uuid}`.execute(t.p.database.db);
  rx = await startReceiver();
  browser = await chromium.launch({ executablePath: CHROMIUM!.executablePath, args: CHROMIUM!.args });
  process.stdout.write(`dashboard screenshots: ${SHOTS}\n`);
}, 120_000);

afterAll(async () => {
  await browser?.close();
  await rx?.close();
  await t?.close();
});

async function newPage(viewport = { width: 1280, height: 900 }): Promise<{ ctx: BrowserContext; page: Page }> {
  const ctx = await browser.newContext({ viewport, deviceScaleFactor: 1, locale: 'en-GB', timezoneId: 'Europe/Madrid', acceptDownloads: true });
  const page = await ctx.newPage();
  page.setDefaultTimeout(15_000);
  const errors: string[] = [];
  page.on('pageerror', (e) => errors.push(e.message));
  page.on('console', (m) => m.type() === 'error' && !/401|Failed to load resource/.test(m.text()) && errors.push(m.text()));
  (page as any).errors = errors;
  return { ctx, page };
}

async function shot(page: Page, name: string) {
  await page.screenshot({ path: path.join(SHOTS, name), fullPage: true, animations: 'disabled', caret: 'hide' });
}

/** axe-core in the page (run through the DevTools protocol, so the page's CSP stays as it is). */
async function axe(page: Page, what: string) {
  await page.evaluate(AXE);
  const result: any = await page.evaluate('axe.run(document, { resultTypes: ["violations"] })');
  const serious = result.violations.filter((v: any) => v.impact === 'serious' || v.impact === 'critical');
  expect(serious.map((v: any) => `${v.id}: ${v.help} (${v.nodes.map((n: any) => n.target.join(' ')).join('; ')})`), what).toEqual([]);
}

/** B3: a card payment made through the API. */
async function pay(m: TestMerchant, body: Record<string, unknown> = {}, pan: string = TEST_CARDS.APPROVED) {
  const r = await m.api.post('/payment/single-step', {
    amount: 4990, operative: 'AUTHORIZATION', secure: false, customer_ext_id: 'cust-7', service: m.service_uuid, description: 'Order #1042',
    card_holder: 'Ana Pérez', card_pan: pan, card_expiry_month: '12', card_expiry_year: '30', ...body,
  });
  expect(r.status, r.raw).toBe(200);
  return r.body.order as { uuid: string; transactions: { uuid: string }[] };
}

/** The landing page is the overview: the payments list is one click away in the menu. */
async function openPayments(page: Page) {
  await page.locator('#main').waitFor();
  const link = page.locator('nav#nav').getByRole('link', { name: /^(Payments|Pagos|Pagamentos)$/ });
  // on a phone the menu is behind its button (following a link closes it again)
  if (!(await link.isVisible())) await page.locator('.menu-button').click();
  await link.click();
  await page.getByTestId('orders').waitFor();
}

async function signIn(page: Page, u: DashUser, opts: { changePassword?: boolean } = {}) {
  await page.goto(`${base}/dashboard`);
  await page.getByLabel(/Username or e-mail|Usuario o e-mail|Utilizador ou e-mail/).fill(u.username);
  await page.getByLabel(/^(Password|Contraseña|Palavra-passe)$/).fill(u.password);
  await page.getByRole('button', { name: /Sign in|Entrar/ }).click();
  if (opts.changePassword !== false) {
    await page.getByLabel(/Current password|Contraseña actual|Palavra-passe atual/).waitFor();
    const next = 'verde market staff 2026';
    await page.getByLabel(/^(Current password|Contraseña actual|Palavra-passe atual)$/).fill(u.password);
    await page.getByLabel(/^(New password|Nueva contraseña|Nova palavra-passe)$/).fill(next);
    await page.getByLabel(/^(Repeat the new password|Repite la nueva contraseña|Repita a nova palavra-passe)$/).fill(next);
    await page.getByRole('button', { name: /Save and continue|Guardar y seguir|Guardar e continuar/ }).click();
    u.password = next;
  }
  await openPayments(page);
  // the merchant has a production twin, where its users land: these tests work in the sandbox
  if ((await page.getByTestId('env-sandbox').getAttribute('aria-pressed')) !== 'true') {
    await page.getByTestId('env-sandbox').click();
    await expect.poll(() => page.getByTestId('env-sandbox').getAttribute('aria-pressed')).toBe('true');
  }
}

describe('the dashboard in a browser', () => {
  let manager: DashUser;
  let page: Page;
  let ctx: BrowserContext;

  beforeAll(async () => {
    if (!CHROMIUM) return;
    manager = await createUser(a, 'MANAGER', { language: 'EN' });
    ({ ctx, page } = await newPage());
  });
  afterAll(async () => {
    await ctx?.close();
  });

  it('first sign-in: the generated password, then the user\'s own', async () => {
    await page.goto(`${base}/dashboard`);
    await axe(page, 'sign-in');
    await shot(page, 'dashboard-signin.png');
    await page.getByLabel('Username or e-mail').fill(manager.username);
    await page.getByLabel('Password').fill('not the password');
    await page.getByRole('button', { name: 'Sign in' }).click();
    await expect.poll(() => page.getByRole('alert').textContent()).toMatch(/not right/);
    await page.getByLabel('Password').fill(manager.password);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.getByRole('heading', { name: 'Choose your password' }).waitFor();
    await axe(page, 'password change');
    await shot(page, 'dashboard-password.png');
    await page.getByLabel('Current password').fill(manager.password);
    // the two new passwords must match (and the server holds its own rules: test/http/dashboard-auth.test.ts)
    await page.getByLabel('New password', { exact: true }).fill('verde market staff 2026');
    await page.getByLabel('Repeat the new password').fill('verde market staff 2025');
    await page.getByRole('button', { name: 'Save and continue' }).click();
    await expect.poll(() => page.getByRole('alert').textContent()).toMatch(/differ/);
    const next = 'verde market staff 2026';
    await page.getByLabel('New password', { exact: true }).fill(next);
    await page.getByLabel('Repeat the new password').fill(next);
    await page.getByRole('button', { name: 'Save and continue' }).click();
    manager.password = next;
    await openPayments(page);
    // a user with a production twin lands in production
    expect(await page.getByTestId('env-production').getAttribute('aria-pressed')).toBe('true');
    // the session cookie is out of the page's reach (HttpOnly)
    expect(await page.evaluate('document.cookie')).toBe('');
  });

  it('a payment made through the API appears in the list by itself; search by last 4', async () => {
    await page.getByTestId('env-sandbox').click();
    await expect.poll(() => page.getByTestId('env-sandbox').getAttribute('aria-pressed')).toBe('true');
    await page.getByTestId('live').filter({ hasText: 'Live' }).waitFor();
    const paid = await pay(a, { reference: 'LIVE-1' });
    await page.locator(`tr[data-uuid="${paid.uuid}"]`).waitFor({ timeout: 15_000 });
    const other = await pay(a, { reference: 'MC-1' }, '5555555555554444');
    await page.locator(`tr[data-uuid="${other.uuid}"]`).waitFor({ timeout: 15_000 });
    await axe(page, 'payments list');
    await shot(page, 'dashboard-payments.png');
    await page.getByRole('searchbox').fill('4444');
    await page.getByRole('button', { name: 'Apply' }).click();
    await expect.poll(() => page.locator('tbody tr').count()).toBe(1);
    expect(await page.locator('tbody tr').first().getAttribute('data-uuid')).toBe(other.uuid);
    expect(await page.locator('tbody tr').first().textContent()).toContain('•••• 4444');
  });

  it('exports the filtered list: the CSV rows are the orders GET /orders lists for that filter', async () => {
    await pay(a, { reference: 'CSV-1', customer_ext_id: 'csv-customer', amount: 1234 });
    await pay(a, { reference: 'CSV-2', customer_ext_id: 'csv-customer', amount: 4321 });
    await pay(a, { reference: 'CSV-3', customer_ext_id: 'csv-customer', amount: 999 }, TEST_CARDS.REFUSED).catch(() => undefined);
    await page.getByRole('searchbox').fill('');
    await page.getByText('Filters').click();
    await page.getByLabel('Customer', { exact: true }).fill('csv-customer');
    await page.locator('select[name=status]').selectOption('SUCCESS');
    await page.getByRole('button', { name: 'Apply' }).click();
    await expect.poll(() => page.locator('tbody tr').count()).toBe(2);
    const [download] = await Promise.all([page.waitForEvent('download'), page.getByTestId('export').click()]);
    const csv = fs.readFileSync((await download.path())!, 'utf8').trim().split('\r\n');
    const cols = csv[0].split(',');
    const rows = csv.slice(1).map((l) => Object.fromEntries(l.split(',').map((v, i) => [cols[i], v])));
    // GET /orders (C3): the merchant's transactions; the successful payments of that customer
    const listed = (await a.api.get('/orders')).body.transactions.filter((x: any) => x.customer === 'csv-customer' && x.order_status === 'SUCCESS' && x.operative === 'AUTHORIZATION');
    expect(rows.map((r) => r.uuid).sort()).toEqual(listed.map((x: any) => x.order_uuid).sort());
    for (const r of rows) {
      const x = listed.find((l: any) => l.order_uuid === r.uuid);
      expect(Number(r.amount)).toBe(x.amount);
      expect(r.reference).toBe(x.reference);
      expect(r.authorization).toBe(x.authorization);
      expect(r.card_last4).toBe(x.source.last4);
    }

    // the address names the filters: a reload shows the same list, with the filters in their fields
    await expect.poll(() => new URL(page.url()).search).toBe('?status=SUCCESS&customer=csv-customer');
    await page.reload();
    await expect.poll(() => page.locator('tbody tr').count()).toBe(2);
    expect(await page.getByLabel('Customer', { exact: true }).inputValue()).toBe('csv-customer');
    expect(await page.locator('select[name=status]').inputValue()).toBe('SUCCESS');
    // a link with an amount (minor units) shows it in units; the menu's link is the whole list again
    await page.goto(`${base}/dashboard/payments?customer=csv-customer&status=SUCCESS&amount_min=2000`);
    await expect.poll(() => page.locator('tbody tr').count()).toBe(1);
    expect(await page.locator('tbody tr td').nth(2).textContent()).toMatch(/43\.21/);
    expect(await page.getByLabel('Minimum amount').inputValue()).toBe('20');
    await page.getByTestId('menu-payments').click(); // not nav-: the areas' menu test counts those
    await expect.poll(() => page.url()).toBe(`${base}/dashboard/payments`);
    await expect.poll(() => page.getByLabel('Customer', { exact: true }).inputValue()).toBe('');
    await expect.poll(() => page.locator('tbody tr').count()).toBeGreaterThan(2);
    await page.getByRole('button', { name: 'Clear' }).click();
  });

  it('a partial refund from the order page: confirmed, done, and notified to the merchant\'s url_post', async () => {
    const order = await pay(a, { reference: 'REFUND-1', amount: 5000, url_post: `${rx.url}/notify` });
    await t.p.jobs.drain();
    await page.goto(`${base}/dashboard/payments/${order.uuid}`);
    await page.getByTestId('refund').waitFor();
    expect(await page.getByTestId('card').textContent()).toMatch(/454881 •••• 0004/);
    await axe(page, 'order detail');
    await shot(page, 'dashboard-order.png');
    const before = rx.received.length;
    await page.getByTestId('refund').click();
    const dialog = page.getByRole('dialog');
    // a text that is no amount is never sent (as "no amount" it would refund everything)
    for (const typed of ['abc', '12.5.0', '1e3', '12.505']) {
      await dialog.getByLabel(/Amount to refund/).fill(typed);
      await dialog.getByTestId('refund-invalid').waitFor();
      expect(await dialog.getByRole('button', { name: 'Yes, do it' }).isDisabled(), typed).toBe(true);
    }
    // more than is left: said in the order's currency, never sent (the API's refusal speaks minor units)
    await dialog.getByLabel(/Amount to refund/).fill('99999');
    expect(await dialog.getByTestId('refund-over').textContent()).toBe('At most €50.00 can be refunded.');
    expect(await dialog.getByRole('button', { name: 'Yes, do it' }).isDisabled()).toBe(true);
    await axe(page, 'refund dialog');
    await dialog.getByLabel(/Amount to refund/).fill('12.50');
    await dialog.getByRole('button', { name: 'Yes, do it' }).click();
    await expect.poll(() => page.getByTestId('refunded').textContent()).toMatch(/12\.50/);
    await t.p.jobs.drain();
    const notified = rx.received.slice(before).map((x) => JSON.parse(x.body));
    expect(notified.map((n) => [n.order.uuid, n.order.refunded, n.order.status])).toEqual([[order.uuid, 1250, 'PARTIALLY_REFUNDED']]);
    expect((await a.api.get(`/order/${order.uuid}`)).body.order.refunded).toBe(1250);
    expect((page as any).errors).toEqual([]);
  });

  it('the request log shows an API refund and the card payment before it, card data redacted, found by request id', async () => {
    const paid = await a.api.post('/payment/single-step', {
      amount: 3000, operative: 'AUTHORIZATION', secure: false, customer_ext_id: 'cust-7', service: a.service_uuid, description: 'API refund',
      card_holder: 'Ana Pérez', card_pan: TEST_CARDS.APPROVED, card_expiry_month: '12', card_expiry_year: '30', card_cvv: '321',
    });
    expect(paid.status, paid.raw).toBe(200);
    const order = paid.body.order as { uuid: string };
    const payId = String(paid.headers['x-request-id']);
    const refund = await a.api.post('/payment/refund', { order_uuid: order.uuid, amount: 700 }, { 'idempotency-key': 'browser-refund-1' });
    expect(refund.status, refund.raw).toBe(200);
    const refundId = String(refund.headers['x-request-id']);
    await page.goto(`${base}/dashboard/developers/requests`);
    await page.getByLabel('Request id').fill(refundId);
    await page.getByRole('button', { name: 'Apply' }).click();
    await expect.poll(() => page.locator('[data-testid=requests] tbody tr').count()).toBe(1);
    await page.locator('[data-testid=requests] tbody tr button').click();
    const body = await page.getByTestId('request-body').textContent();
    expect(body).toContain('"amount": 700');
    expect(body).toContain('"signature": "[REDACTED]"');
    expect(await page.getByTestId('request-detail').textContent()).toContain('browser-refund-1');
    await axe(page, 'request log');
    await shot(page, 'dashboard-request-log.png');
    // the payment's own request: its card number and CVV are not there
    await page.getByLabel('Request id').fill(payId);
    await page.getByRole('button', { name: 'Apply' }).click();
    await expect.poll(() => page.locator('[data-testid=requests] tbody tr td:last-child').first().textContent()).toBe(payId);
    await page.locator('[data-testid=requests] tbody tr button').click();
    await expect.poll(() => page.getByTestId('request-body').textContent()).toContain('"card_pan": "[REDACTED]"');
    const text = (await page.content());
    expect(text).not.toContain(TEST_CARDS.APPROVED);
    expect(text).toContain('"card_cvv": "[REDACTED]"');
    // the API keys page: the merchant's key by its prefix, never the dashboard's own
    await page.goto(`${base}/dashboard/developers/keys`);
    await page.getByText(`${a.api_key.slice(0, 6)}…`).waitFor();
    await axe(page, 'API keys');
    await page.goto(`${base}/dashboard/developers/deliveries`);
    await page.getByRole('heading', { name: 'Developers' }).waitFor();
    await axe(page, 'deliveries');
  });

  it('sandbox and production are never mixed', async () => {
    const sb = await pay(a, { reference: 'ONLY-SANDBOX' });
    const pr = await pay(prod, { reference: 'ONLY-PRODUCTION' });
    await page.goto(`${base}/dashboard/payments`);
    await page.locator(`tr[data-uuid="${sb.uuid}"]`).waitFor();
    expect(await page.locator(`tr[data-uuid="${pr.uuid}"]`).count()).toBe(0);
    await page.getByTestId('env-production').click();
    await page.locator(`tr[data-uuid="${pr.uuid}"]`).waitFor();
    expect(await page.locator(`tr[data-uuid="${sb.uuid}"]`).count()).toBe(0);
    expect(await page.locator('.sandbox-banner').count()).toBe(0);
    await shot(page, 'dashboard-production.png');
    // a sandbox order's page is not found from production
    await page.goto(`${base}/dashboard/payments/${sb.uuid}`);
    await expect.poll(() => page.getByRole('alert').textContent()).toMatch(/not found/);
    await page.getByTestId('env-sandbox').click();
  });

  it('users and audit: a manager invites a user and sees it, and every sign-in and action in the audit log', async () => {
    await page.goto(`${base}/dashboard/users`);
    await page.getByRole('heading', { name: 'Users' }).waitFor();
    await page.getByLabel('User', { exact: true }).fill('browser.invited');
    await page.getByLabel('E-mail', { exact: true }).fill('invited@verde.example');
    await page.locator('label', { hasText: 'Group' }).locator('select').first().selectOption('VIEWER');
    await page.getByRole('button', { name: 'Invite a user' }).click();
    await page.getByRole('dialog').getByRole('button', { name: 'Yes, do it' }).click();
    await page.locator('[data-testid=users] tr', { hasText: 'browser.invited' }).waitFor();
    await axe(page, 'users');
    await shot(page, 'dashboard-users.png');
    await page.goto(`${base}/dashboard/audit`);
    await page.locator('[data-testid=audit] tr', { hasText: 'user.invite' }).first().waitFor();
    expect(await page.locator('[data-testid=audit]').textContent()).toContain('order.refund');
    await axe(page, 'audit');
    await shot(page, 'dashboard-audit.png');
  });

  it('speaks ES, EN and PT', async () => {
    await page.goto(`${base}/dashboard/payments`);
    for (const [lang, heading, exp] of [['ES', 'Pagos', 'Exportar CSV'], ['PT', 'Pagamentos', 'Exportar CSV'], ['EN', 'Payments', 'Export CSV']] as const) {
      await page.getByLabel(/^(Language|Idioma)$/).first().selectOption(lang);
      await page.getByRole('heading', { level: 1, name: heading }).waitFor();
      expect(await page.getByTestId('export').textContent()).toBe(exp);
      expect(await page.evaluate('document.documentElement.lang')).toBe(lang.toLowerCase());
      if (lang !== 'EN') await shot(page, `dashboard-payments-${lang.toLowerCase()}.png`);
    }
    // the choice is the user's: kept for the next sign-in
    const row = await t.p.database.db.selectFrom('dashboard_users').select('language').where('username', '=', manager.username).executeTakeFirstOrThrow();
    expect(row.language).toBe('EN');
  });
});

describe('two-factor sign-in', () => {
  it('enrols with the QR code and a first code, gets recovery codes once, then signs in with a code', async () => {
    const u = await createUser(a, 'USER', { language: 'EN' });
    const { ctx, page } = await newPage();
    await signIn(page, u);
    await page.goto(`${base}/dashboard/account`);
    await page.getByRole('button', { name: 'Turn on two-factor sign-in' }).click();
    const secret = (await page.getByTestId('totp-secret').textContent())!.trim();
    expect(await page.getByRole('img', { name: /QR code/ }).getAttribute('src')).toMatch(/^data:image\/png;base64,/);
    await axe(page, 'two-factor enrolment');
    await shot(page, 'dashboard-2fa-enrol.png');
    await page.getByLabel('Code of the app').fill(await generate({ secret }));
    await page.getByRole('button', { name: 'Turn on', exact: true }).click();
    await page.getByTestId('recovery-codes').waitFor();
    expect(await page.locator('[data-testid=recovery-codes] li').count()).toBe(10);
    await page.getByRole('button', { name: 'I have kept them' }).click();
    await page.getByText('On: signing in asks for a code').waitFor();
    await page.getByRole('button', { name: 'Sign out', exact: true }).click();
    // the next sign-in asks for a code after the password
    await page.getByLabel('Username or e-mail').fill(u.username);
    await page.getByLabel('Password').fill(u.password);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.getByRole('heading', { name: 'Enter your code' }).waitFor();
    await axe(page, 'two-factor step');
    await shot(page, 'dashboard-2fa-signin.png');
    await page.getByLabel('Code of the app').fill('000000');
    await page.getByRole('button', { name: 'Continue' }).click();
    await expect.poll(() => page.getByRole('alert').textContent()).toMatch(/not right/);
    // the next time step's code (the current one was used to turn it on)
    await page.getByLabel('Code of the app').fill(await generate({ secret, epoch: Math.floor(Date.now() / 1000) + 30 }));
    await page.getByRole('button', { name: 'Continue' }).click();
    await openPayments(page);
    await ctx.close();
  });
});

describe('password reset', () => {
  it('asks for a link from the sign-in page, and sets a new password from the link', async () => {
    const u = await createUser(a, 'VIEWER', { language: 'ES' });
    const { ctx, page } = await newPage();
    await page.goto(`${base}/dashboard`);
    await page.getByRole('button', { name: 'Forgot your password?' }).click();
    await page.locator('.forgot input').fill(u.username);
    await page.getByRole('button', { name: 'Send the link' }).click();
    await page.getByText('If that user exists').waitFor();
    await axe(page, 'forgot password');
    const mail = await t.p.database.db.selectFrom('mail_outbox').select(['id', 'body_sealed']).where('recipient', '=', u.email).executeTakeFirstOrThrow();
    const body = JSON.parse(t.p.vault.open(mail.body_sealed, `mail:${mail.id}`).reveal()).text as string;
    const link = /(http\S+\/dashboard\/reset\?token=\S+)/.exec(body)![1];
    expect(body).toContain('Para elegir una contraseña nueva');
    await page.goto(link);
    await page.getByRole('heading', { name: 'Reset your password' }).waitFor();
    await axe(page, 'reset password');
    await page.getByLabel('New password', { exact: true }).fill('a reset passphrase 2026');
    await page.getByLabel('Repeat the new password').fill('a reset passphrase 2026');
    await page.getByRole('button', { name: 'Save the new password' }).click();
    await page.getByText('Your password is changed').waitFor();
    u.password = 'a reset passphrase 2026';
    await signIn(page, u, { changePassword: false });
    await ctx.close();
  });
});

describe('the first answer', () => {
  it('shows a new browser the sign-in form before GET /session answers, and a signed-in one its pages without the form', async () => {
    const u = await createUser(a, 'VIEWER', { language: 'EN' });
    const { ctx, page } = await newPage();
    // GET /session held until the test lets it go
    let release!: () => void;
    let held = new Promise<void>((r) => (release = r));
    let asked = 0;
    await page.route(/\/dashboard\/api\/session$/, async (route) => {
      if (route.request().method() !== 'GET') return route.continue();
      asked++;
      await held;
      await route.continue();
    });
    await page.goto(`${base}/dashboard`);
    // the form is there while the session's answer is still held (the app used to wait for it)
    await page.getByLabel('Username or e-mail').waitFor();
    expect(asked).toBe(1);
    // signing in before that first answer comes: its late 401 does not sign the user out again
    await page.getByLabel('Username or e-mail').fill(u.username);
    await page.getByLabel('Password').fill(u.password);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.getByRole('heading', { name: 'Choose your password' }).waitFor();
    release();
    await page.waitForLoadState('networkidle');
    expect(await page.getByRole('heading', { name: 'Choose your password' }).isVisible()).toBe(true);
    const next = 'a first answer passphrase 2026';
    await page.getByLabel('Current password').fill(u.password);
    await page.getByLabel('New password', { exact: true }).fill(next);
    await page.getByLabel('Repeat the new password').fill(next);
    await page.getByRole('button', { name: 'Save and continue' }).click();
    await page.locator('#main').waitFor();
    // signed in: a reload waits for the answer instead of flashing the sign-in form
    held = new Promise<void>((r) => (release = r));
    await page.reload();
    await page.getByText('Loading').first().waitFor();
    expect(await page.getByLabel('Username or e-mail').count()).toBe(0);
    release();
    await page.locator('#main').waitFor();
    expect(await page.getByLabel('Username or e-mail').count()).toBe(0);
    await ctx.close();
  });
});

describe('roles and the phone layout', () => {
  it('a VIEWER sees the payment but no refund button, and the API refuses the refund', async () => {
    const viewer = await createUser(a, 'VIEWER', { language: 'ES' });
    const order = await pay(a, { reference: 'VIEWER-1' });
    const { ctx, page } = await newPage();
    await signIn(page, viewer);
    await page.goto(`${base}/dashboard/payments/${order.uuid}`);
    await page.getByTestId('card').waitFor();
    expect(await page.getByTestId('refund').count()).toBe(0);
    // the same refund, asked of the server with this session and its CSRF token: 403
    const res = await page.evaluate(async (uuid) => {
      const me: any = await (await fetch('/dashboard/api/session')).json();
      const r = await fetch(`/dashboard/api/orders/${uuid}/refund`, { method: 'POST', headers: { 'content-type': 'application/json', 'x-csrf-token': me.csrf_token }, body: JSON.stringify({ amount: 100 }) });
      return { status: r.status, body: (await r.json()) as any };
    }, order.uuid);
    expect(res.status).toBe(403);
    expect(res.body.details).toMatch(/VIEWER/);
    expect((await a.api.get(`/order/${order.uuid}`)).body.order.refunded).toBe(0);
    await ctx.close();
  });

  it('works at 375 px: no sideways scrolling, the menu behind a button, rows as cards', async () => {
    const u = await createUser(a, 'USER', { language: 'PT' });
    const order = await pay(a, { reference: 'PHONE-1' });
    const { ctx, page } = await newPage({ width: 375, height: 812 });
    await signIn(page, u);
    await page.locator(`tr[data-uuid="${order.uuid}"]`).waitFor();
    const overflow = Number(await page.evaluate('document.documentElement.scrollWidth - document.documentElement.clientWidth'));
    expect(overflow).toBeLessThanOrEqual(0);
    expect(await page.locator('#nav').isVisible()).toBe(false);
    await page.getByRole('button', { name: 'Menu' }).click();
    expect(await page.locator('#nav').isVisible()).toBe(true);
    await axe(page, 'payments at 375 px');
    await shot(page, 'dashboard-phone.png');
    await page.goto(`${base}/dashboard/payments/${order.uuid}`);
    await page.getByTestId('card').waitFor();
    expect(Number(await page.evaluate('document.documentElement.scrollWidth - document.documentElement.clientWidth'))).toBeLessThanOrEqual(0);
    await axe(page, 'order at 375 px');
    await shot(page, 'dashboard-order-phone.png');
    await ctx.close();
  });
});
