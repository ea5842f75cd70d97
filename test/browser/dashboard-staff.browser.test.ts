/**
 * The dashboard as a new merchant's staff use it (issue 42): the order page shows the description and
 * the additional text apart, each transaction's metadata, edits it from the keys it has, refuses a refund
 * over what is left in euros, and shows a VIEWER no empty Actions card; Spanish pages say the states,
 * the decline reasons and "Skip to content" in Spanish and the payments page fits a 375 px phone; dates
 * of the request log are the merchant's; the 2FA card says On once turned on; a manager without e-mail
 * configured is shown a new user's one-time password, and sees and lifts a user's sign-in lock.
 */
import { generate } from 'otplib';
import { afterAll, beforeAll, describe, expect, it as vitestIt } from 'vitest';
import { axe, chromiumOrNull, openArea, startDashboardBrowser, type DashboardBrowser } from '../helpers/dashboard-browser.js';
import type { TestMerchant } from '../helpers/app.js';
import { TEST_CARDS } from '../helpers/payments.js';
import { DashClient, createUser } from '../helpers/dashboard.js';

const CHROMIUM = await chromiumOrNull(import.meta.url);
const it = vitestIt.skipIf(!CHROMIUM);

let d: DashboardBrowser;
let m: TestMerchant;

beforeAll(async () => {
  if (!CHROMIUM) return;
  d = await startDashboardBrowser(CHROMIUM);
  m = await d.t.merchant({ name: 'Staff Shop', isPci: true });
}, 120_000);
afterAll(async () => {
  await d?.close();
});

async function pay(body: Record<string, unknown> = {}, pan: string = TEST_CARDS.APPROVED) {
  const r = await m.api.post('/payment/single-step', {
    amount: 9900, operative: 'AUTHORIZATION', secure: false, customer_ext_id: 'cust-9', service: m.service_uuid, description: 'Order #1042',
    card_holder: 'Ana Pérez', card_pan: pan, card_expiry_month: '12', card_expiry_year: '30', ...body,
  });
  return r.body.order as { uuid: string; transactions: { uuid: string }[] };
}

describe('the order page', () => {
  it('shows the description, the additional text and the metadata; edits the metadata from its keys; a refund over what is left is refused in euros', async () => {
    const order = await pay({ additional: 'gift wrap' });
    const tx = order.transactions[0].uuid;
    expect((await m.api.post(`/transaction/${tx}/metadata`, { metadata: { crm: 'A-1', team: 'north' } })).status).toBe(200);
    const { ctx, page, errors } = await d.newPage();
    await d.signIn(page, m, 'MANAGER');
    await openArea(page, d.base, `/payments/${order.uuid}`);
    expect(await page.getByTestId('order-description').textContent()).toBe('Order #1042');
    expect(await page.getByTestId('order-additional').textContent()).toBe('gift wrap');
    const shown = page.getByTestId('metadata');
    expect(await shown.textContent()).toContain('crm');
    expect(await shown.textContent()).toContain('A-1');
    expect(await shown.textContent()).toContain('north');
    // the editor starts from the keys the transaction has: one changed, one added, none lost
    await page.getByRole('button', { name: 'Edit metadata' }).click();
    const dialog = page.getByTestId('metadata-dialog');
    expect(await dialog.getByLabel('Key').nth(0).inputValue()).toBe('crm');
    expect(await dialog.getByLabel('Value').nth(1).inputValue()).toBe('north');
    await dialog.getByLabel('Value').nth(1).fill('south');
    await dialog.getByRole('button', { name: 'Add a key' }).click();
    await dialog.getByLabel('Key').nth(2).fill('vip');
    await dialog.getByLabel('Value').nth(2).fill('yes');
    await dialog.getByRole('button', { name: 'Yes, do it' }).click();
    await expect.poll(async () => (await d.t.p.database.db.selectFrom('transactions').select('metadata').where('id', '=', tx).executeTakeFirstOrThrow()).metadata).toEqual({ crm: 'A-1', team: 'south', vip: 'yes' });
    // a refund of more than is left: said in euros on the page, nothing sent
    await page.getByTestId('refund').click();
    const refund = page.getByTestId('refund-dialog');
    await refund.getByLabel(/Amount to refund/).fill('200');
    expect(await refund.getByTestId('refund-over').textContent()).toBe('At most €99.00 can be refunded.');
    expect(await refund.getByRole('button', { name: 'Yes, do it' }).isDisabled()).toBe(true);
    expect(await refund.textContent()).not.toMatch(/20000|9900/);
    await axe(page, 'order page with its metadata');
    expect(errors).toEqual([]);
    await ctx.close();
  }, 90_000);

  it('shows a VIEWER no empty Actions card', async () => {
    const order = await pay({ description: 'Viewed order' });
    const { ctx, page } = await d.newPage();
    await d.signIn(page, m, 'VIEWER');
    await openArea(page, d.base, `/payments/${order.uuid}`);
    await page.getByTestId('order-description').waitFor();
    expect(await page.getByRole('heading', { name: 'Actions' }).count()).toBe(0);
    await ctx.close();
  }, 60_000);
});

describe('in Spanish and on a phone', () => {
  it('says states, decline reasons and "skip to content" in Spanish; one refund; the payments page fits 375 px; the request log\'s dates are the merchant\'s', async () => {
    const paid = await pay({ description: 'Pedido pagado' });
    const declined = await pay({ description: 'Pedido rechazado' }, TEST_CARDS.REFUSED);
    expect((await m.api.post('/payment/refund', { order_uuid: paid.uuid, amount: 100 })).status).toBe(200);
    const { ctx, page, errors } = await d.newPage({ width: 375, height: 800 });
    await d.signIn(page, m, 'MANAGER', { language: 'ES' });
    // the overview: one refund, a decline's reason in Spanish
    await openArea(page, d.base, '/overview?period=today');
    await expect.poll(() => page.getByTestId('kpi-refunds').textContent()).toContain('1 devolución');
    expect(await page.getByTestId('figures-declines').textContent()).toContain('Denegada');
    expect(await page.locator('a.skip').textContent()).toBe('Saltar al contenido');
    // the payments list: states in Spanish, and nothing wider than the phone
    await openArea(page, d.base, '/payments');
    await page.locator(`tr[data-uuid="${declined.uuid}"]`).waitFor();
    expect(await page.locator(`tr[data-uuid="${declined.uuid}"] [data-status]`).textContent()).toBe('Rechazado');
    expect(await page.locator(`tr[data-uuid="${paid.uuid}"] [data-status]`).textContent()).toBe('Devuelto en parte');
    expect(await page.evaluate(() => (globalThis as unknown as { document: { documentElement: { scrollWidth: number } } }).document.documentElement.scrollWidth)).toBeLessThanOrEqual(375);
    // the declined payment's timeline: the reason in Spanish
    await openArea(page, d.base, `/payments/${declined.uuid}`);
    await expect.poll(() => page.locator('.timeline').textContent()).toContain('Denegada');
    // the request log: the merchant's date and time, as the payments list shows them
    await openArea(page, d.base, '/developers/requests');
    const first = page.locator('table tbody tr td').first();
    await first.waitFor();
    const expected = new Intl.DateTimeFormat('es-ES', { dateStyle: 'medium', timeZone: 'Europe/Madrid' }).format(new Date());
    expect(await first.textContent()).toContain(expected);
    expect(errors).toEqual([]);
    await ctx.close();
  }, 90_000);
});

describe('my account and users', () => {
  it('says two-factor sign-in is on as soon as it is', async () => {
    const { ctx, page } = await d.newPage();
    await d.signIn(page, m, 'VIEWER');
    await openArea(page, d.base, '/account');
    await page.getByRole('button', { name: 'Turn on two-factor sign-in' }).click();
    const secret = await page.getByTestId('totp-secret').textContent();
    await page.getByLabel('Code of the app').fill(await generate({ secret: secret! }));
    await page.getByRole('button', { name: 'Turn on', exact: true }).click();
    await page.getByTestId('recovery-codes').waitFor();
    await expect.poll(() => page.getByTestId('totp-state').textContent()).toMatch(/^On/);
    await ctx.close();
  }, 60_000);

  it('without e-mail, shows the manager a new user\'s one-time password once; shows a locked user and lifts the lock', async () => {
    const { ctx, page, errors } = await d.newPage();
    await d.signIn(page, m, 'MANAGER');
    await openArea(page, d.base, '/users');
    await page.getByLabel('User', { exact: true }).fill('nueva.cajera');
    await page.getByLabel('E-mail', { exact: true }).fill('nueva.cajera@shop.example');
    await page.getByRole('button', { name: 'Invite a user' }).click();
    await page.getByRole('button', { name: 'Yes, do it' }).click();
    const once = page.getByTestId('one-time-password');
    await once.waitFor();
    const password = (await once.locator('code').textContent())!;
    expect(password).toMatch(/^[A-Za-z0-9]{16}$/);
    const row = page.locator('tr', { hasText: 'nueva.cajera' });
    expect(await row.getByTestId('user-invitation').textContent()).toBe('Password shown to the inviting manager');
    expect((await new DashClient(d.t.app).signIn('nueva.cajera', password)).status).toBe(200);
    await page.getByRole('button', { name: 'I have noted it' }).click();
    expect(await page.getByTestId('one-time-password').count()).toBe(0);
    // a user locked at an address by wrong passwords (the lockout of this gateway is 1000 failures:
    // the lock is written as five failures would write it)
    const u = await createUser(m, 'USER', { username: 'locked.user' });
    const attacker = new DashClient(d.t.app);
    attacker.extra['x-forwarded-for'] = '203.0.113.80';
    expect((await attacker.signIn(u.username, 'wrong')).status).toBe(401);
    await d.t.p.database.db.updateTable('dashboard_signin_failures').set({ locked_until: new Date(Date.now() + 15 * 60_000), failures: 5 }).where('key', '=', `pair:user:${u.uuid}@203.0.113.80`).execute();
    expect((await attacker.signIn(u.username, u.password)).status).toBe(429);
    await page.reload();
    const locked = page.locator('tr', { hasText: 'locked.user' });
    await locked.getByTestId('user-locked').waitFor();
    expect(await locked.textContent()).toMatch(/Locked at 203\.0\.113\.80 until .*\(5 failed, 1 tried during the lock\)/);
    await axe(page, 'users with a lock');
    await locked.getByRole('button', { name: 'Unlock' }).click();
    await page.getByRole('button', { name: 'Yes, do it' }).click();
    await expect.poll(() => locked.getByTestId('user-locked').count()).toBe(0);
    expect((await attacker.signIn(u.username, u.password)).status).toBe(200);
    expect(errors).toEqual([]);
    await ctx.close();
  }, 90_000);
});
