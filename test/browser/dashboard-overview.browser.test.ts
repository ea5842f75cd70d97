/**
 * The Overview in a real browser: it is the landing page after sign-in; its volume KPI equals the sum of
 * the successful charges the API lists (C3); the period picker switches the figures (today, 7 days, a
 * custom range); each chart's figures open as a table; axe on the page at 1280 px and on a phone; a
 * group without payments.read (BATCH) has no Overview in its menu.
 */
import { afterAll, beforeAll, describe, expect, it as vitestIt } from 'vitest';
import { axe, chromiumOrNull, openArea, shot, startDashboardBrowser, type DashboardBrowser } from '../helpers/dashboard-browser.js';
import type { TestMerchant } from '../helpers/app.js';
import { TEST_CARDS, advance, merchantDay } from '../helpers/payments.js';

const CHROMIUM = await chromiumOrNull(import.meta.url);
const it = vitestIt.skipIf(!CHROMIUM);

let d: DashboardBrowser;
let m: TestMerchant;

async function pay(pan: string, amount: number, body: Record<string, unknown> = {}) {
  const r = await m.api.post('/payment/single-step', {
    amount, operative: 'AUTHORIZATION', secure: false, customer_ext_id: 'cust-ov', service: m.service_uuid, description: 'overview',
    card_holder: 'Ana Pérez', card_pan: pan, card_expiry_month: '12', card_expiry_year: '30', card_cvv: '123', ...body,
  });
  expect(r.status, r.raw).toBe(200);
  return r.body.order as { uuid: string };
}

beforeAll(async () => {
  if (!CHROMIUM) return;
  d = await startDashboardBrowser(CHROMIUM);
  m = await d.t.merchant({ name: 'Overview Shop', isPci: true });
  // three days ago: two paid, one declined; today: one paid, one refunded in part, one declined
  await pay(TEST_CARDS.APPROVED, 2500);
  await pay(TEST_CARDS.NON_3DS_OK, 1200);
  await pay(TEST_CARDS.REFUSED, 900);
  await advance(m, 3 * 86_400);
  const refunded = await pay(TEST_CARDS.APPROVED, 4000, { secure: true, threeds_data: { version: 2, trans_status: 'Y', eci: 5, cavv: 'AAAB', ds_trans_id: 'ds-1' } });
  expect((await m.api.post('/payment/refund', { order_uuid: refunded.uuid, amount: 1000 })).status).toBe(200);
  await pay(TEST_CARDS.APPROVED, 700, { secure: true, threeds_data: { version: 2, trans_status: 'N' } });
}, 120_000);
afterAll(async () => d?.close());

/** The volume the API's list gives for the last `days` days: successful AUTHORIZATION and CONFIRMATION amounts (C3). */
async function listedVolume(days: number): Promise<number> {
  const from = (await merchantDay(m, -(days - 1))).replace(/-/g, '');
  const end = (await merchantDay(m, 1)).replace(/-/g, '');
  const r = await m.api.get('/orders', { start: `${from}0000`, end: `${end}0000` });
  expect(r.status, r.raw).toBe(200);
  return r.body.transactions
    .filter((tx: any) => tx.status === 'SUCCESS' && (tx.operative === 'AUTHORIZATION' || tx.operative === 'CONFIRMATION'))
    .reduce((s: number, tx: any) => s + tx.amount, 0);
}

const euros = (minor: number) => new Intl.NumberFormat('en-GB', { style: 'currency', currency: 'EUR' }).format(minor / 100);

describe('the overview', () => {
  it('is the landing page; its figures are the API\'s; the period switches; axe; screenshots', async () => {
    const { ctx, page, errors } = await d.newPage();
    page.setDefaultTimeout(30_000);
    await d.signIn(page, m, 'MANAGER');
    await page.getByTestId('overview').waitFor();
    expect(new URL(page.url()).pathname).toBe('/dashboard/overview');
    expect(await page.getByTestId('nav-overview').getAttribute('aria-current')).toBe('page');
    // the default period: 30 days, every payment of the seed
    const volume30 = await listedVolume(30);
    expect(volume30).toBe(2500 + 1200 + 4000);
    await expect.poll(() => page.getByTestId('kpi-volume-value').textContent()).toBe(euros(volume30));
    expect(await page.getByTestId('kpi-paid-value').textContent()).toBe('3');
    expect(await page.getByTestId('kpi-orders-value').textContent()).toBe('5');
    expect(await page.getByTestId('kpi-declines-value').textContent()).toBe('2');
    expect(await page.getByTestId('kpi-refunds-value').textContent()).toBe(euros(1000));
    // every chart drew, and its figures open as a table
    for (const id of ['volume', 'orders', 'declines', 'threeds', 'methods']) await page.getByTestId(`chart-${id}`).locator('svg').first().waitFor();
    await page.getByTestId('chart-declines').locator('summary').click();
    expect(await page.getByTestId('figures-declines').locator('tbody tr').count()).toBe(2);
    await page.getByTestId('chart-methods').locator('summary').click();
    await expect.poll(() => page.getByTestId('figures-methods').textContent()).toMatch(/VISA card.*MASTERCARD card|MASTERCARD card.*VISA card/);
    await axe(page, 'overview');
    await shot(page, d.shots, 'dashboard-overview.png');

    // today: only today's payments (the charge of 40.00), compared with yesterday (nothing)
    await page.getByTestId('period-today').click();
    await expect.poll(() => page.getByTestId('kpi-volume-value').textContent()).toBe(euros(await listedVolume(1)));
    expect(await page.getByTestId('kpi-volume-value').textContent()).toBe(euros(4000));
    expect(await page.getByTestId('kpi-volume').textContent()).toContain('new');
    expect(new URL(page.url()).search).toBe('?period=today');

    // a custom range of the three days before today: the first payments only
    await page.getByTestId('period-custom').click();
    await page.getByLabel('From').fill(await merchantDay(m, -3));
    await page.getByLabel('To').fill(await merchantDay(m, -1));
    await page.getByRole('button', { name: 'Show', exact: true }).click();
    await expect.poll(() => page.getByTestId('kpi-volume-value').textContent()).toBe(euros(3700));
    expect(await page.getByTestId('kpi-paid-value').textContent()).toBe('2');
    await axe(page, 'overview, custom range');

    // 7 days, in Spanish
    await page.getByTestId('period-7d').click();
    await page.getByLabel('Language').selectOption('ES');
    await page.getByRole('heading', { name: 'Resumen', level: 1 }).waitFor();
    await expect.poll(() => page.getByTestId('kpi-volume-value').textContent()).toBe(new Intl.NumberFormat('es-ES', { style: 'currency', currency: 'EUR' }).format(77));
    expect(errors).toEqual([]);
    await ctx.close();
  }, 90_000);

  it('on a phone, for a VIEWER; a BATCH user has no overview', async () => {
    const { ctx, page, errors } = await d.newPage({ width: 375, height: 812 });
    page.setDefaultTimeout(30_000);
    await d.signIn(page, m, 'VIEWER', { language: 'PT' });
    await page.getByTestId('overview').waitFor();
    await page.getByRole('heading', { name: 'Visão geral', level: 1 }).waitFor();
    await expect.poll(() => page.getByTestId('kpi-paid-value').textContent()).toBe('3');
    await axe(page, 'overview on a phone');
    await shot(page, d.shots, 'dashboard-overview-phone.png');
    expect(errors).toEqual([]);
    await ctx.close();

    const b = await d.newPage();
    b.page.setDefaultTimeout(30_000);
    await d.signIn(b.page, m, 'BATCH');
    expect(await b.page.getByTestId('nav-overview').count()).toBe(0);
    await openArea(b.page, d.base, '/overview?period=7d');
    await b.page.locator('#main').waitFor();
    expect(await b.page.getByTestId('overview').count()).toBe(0);
    const status = await b.page.evaluate(async () => (await fetch('/dashboard/api/overview?period=7d')).status);
    expect(status).toBe(403);
    await b.ctx.close();
  }, 90_000);
});
