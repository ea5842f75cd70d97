/**
 * Subscriptions in a real browser: a MANAGER creates a product and a plan, subscribes a customer whose
 * card was stored through the API (F2), choosing it among the customer's cards; the test clock moves past
 * the first charge and the jobs run: the subscription's page shows the charge PAID with its order, by
 * itself; the manager cancels it from the page (confirmation dialog) and the API says CANCELLED. A
 * subscription charged with a declining card shows in the failed-charge view with its reason and retry.
 * A VIEWER sees the subscriptions but none of the changes. axe-core on every page; screenshots.
 */
import { afterAll, beforeAll, describe, expect, it as vitestIt } from 'vitest';
import { CHARGE_QUEUE } from '../../src/modules/subscriptions/index.js';
import { DELIVER_QUEUE } from '../../src/modules/events/index.js';
import { axe, chromiumOrNull, shot, startDashboardBrowser, type DashboardBrowser } from '../helpers/dashboard-browser.js';
import type { TestMerchant } from '../helpers/app.js';
import { TEST_CARDS, advance, merchantDay } from '../helpers/payments.js';

const CHROMIUM = await chromiumOrNull(import.meta.url);
const it = vitestIt.skipIf(!CHROMIUM);

let d: DashboardBrowser;
let m: TestMerchant;

beforeAll(async () => {
  if (!CHROMIUM) return;
  d = await startDashboardBrowser(CHROMIUM);
  m = await d.t.merchant({ name: 'Gym Browser Shop', isPci: true });
}, 120_000);
afterAll(async () => d?.close());

const drain = () => d.t.p.jobs.drain({ queues: [CHARGE_QUEUE, DELIVER_QUEUE] });

/** F2: a card stored for a customer through the API; its source uuid. */
async function storeCardApi(customer: string, pan: string): Promise<string> {
  const r = await m.api.post('/payment-method/card', { customer_ext_id: customer, card_holder: 'Ana Pérez', card_pan: pan, card_expiry_month: '12', card_expiry_year: '30', validate: false });
  expect(r.status, r.raw).toBe(200);
  return r.body.Source.uuid;
}

describe('subscriptions', () => {
  it('MANAGER: product, plan, a customer subscribed with a stored card, charged on the test clock, cancelled; a declined charge in the failed view', async () => {
    const card = await storeCardApi('member-1', TEST_CARDS.APPROVED);
    const { ctx, page, errors } = await d.newPage();
    page.setDefaultTimeout(30_000); // the first sign-in hashes passwords: slow on a busy machine
    await d.signIn(page, m, 'MANAGER');
    await page.getByTestId('nav-subscriptions').click();
    await page.getByRole('heading', { name: 'Subscribe a customer' }).waitFor();
    await axe(page, 'subscriptions');

    // a product (its company is made with it) and a plan
    await page.getByTestId('subs-tab-products').click();
    await page.getByTestId('product-name').fill('Gym membership');
    await page.getByTestId('product-id').fill('gym');
    await page.getByRole('button', { name: 'Create product' }).click();
    await page.locator('[data-testid="products"] tr[data-id="gym"]').waitFor();
    await axe(page, 'products');
    await page.getByTestId('subs-tab-plans').click();
    await page.getByTestId('plan-name').fill('Monthly');
    await page.getByTestId('plan-id').fill('gym-monthly');
    await expect.poll(() => page.getByTestId('plan-product').inputValue()).toBe('gym');
    await page.getByTestId('plan-amount').fill('2990');
    await page.getByRole('button', { name: 'Create plan' }).click();
    await page.locator('[data-testid="plans"] tr[data-id="gym-monthly"]').waitFor();
    await axe(page, 'plans');

    // the customer subscribed from tomorrow with the card chosen among theirs (brand, BIN, last 4)
    await page.getByTestId('subs-tab-subscriptions').click();
    await expect.poll(() => page.getByTestId('sub-plan').inputValue()).toBe('gym-monthly');
    await page.getByTestId('sub-customer').fill('member-1');
    await page.getByTestId('sub-find-cards').click();
    const option = page.locator(`[data-testid="sub-card"] option[value="${card}"]`);
    await option.waitFor({ state: 'attached' });
    expect(await option.textContent()).toMatch(/^VISA 454881… 0004/);
    await page.getByTestId('sub-card').selectOption(card);
    await page.getByTestId('sub-initial').fill(await merchantDay(m, 1));
    await page.getByTestId('sub-submit').click();
    await page.getByRole('heading', { name: /^Subscription / }).waitFor();
    const id = page.url().split('/').pop()!;
    await expect.poll(() => page.getByTestId('sub-status').textContent()).toBe('CREATED');
    await expect.poll(() => page.getByTestId('sub-card-shown').textContent()).toBe('VISA 454881… 0004');
    const api0 = await m.api.get(`/subscriptions/subscription/${id}`);
    expect(api0.body.subscription).toMatchObject({ status: 'CREATED', customer: 'member-1', amount: 2990 });
    expect(JSON.parse(api0.body.subscription.additional_data).source_uuid).toBe(card);

    // the test clock past the first charge: the page shows it PAID with its order, by itself
    await advance(m, 2 * 86400);
    await drain();
    const charge = page.locator('[data-testid="sub-charges"] tr[data-number="1"][data-attempt="1"]');
    await expect.poll(() => charge.locator('.badge').textContent(), { timeout: 15_000 }).toBe('PAID');
    await expect.poll(() => page.getByTestId('sub-status').textContent()).toBe('PAID');
    const api1 = await m.api.get(`/subscriptions/subscription/${id}`);
    const order = JSON.parse(api1.body.subscription.payments[0].payment_details).order_uuid;
    expect(await charge.locator('a').getAttribute('href')).toBe(`/dashboard/payments/${order}`);
    expect((await d.t.p.database.db.selectFrom('orders').select(['status', 'amount']).where('id', '=', order).executeTakeFirstOrThrow())).toMatchObject({ status: 'SUCCESS' });
    await axe(page, 'subscription page');
    await shot(page, d.shots, 'dashboard-subscriptions.png');

    // cancelled from the page, after the confirmation
    await page.getByTestId('sub-cancel').click();
    await page.getByTestId('sub-cancel-dialog').getByRole('button', { name: 'Yes, do it' }).click();
    await expect.poll(() => page.getByTestId('sub-status').textContent()).toBe('CANCELLED');
    expect(await page.getByTestId('sub-cancel').count()).toBe(0);
    expect((await m.api.get(`/subscriptions/subscription/${id}`)).body.subscription).toMatchObject({ status: 'CANCELLED', active: false, next_charge_date: null });

    // a declining card: charged at once, FAILED, in the failed-charge view with its retry
    const refused = await storeCardApi('member-2', TEST_CARDS.REFUSED);
    const s2 = await m.api.post('/subscriptions/subscription', { plan: 'gym-monthly', customer: 'member-2', payment_attempts_limit: 3, additional_data: { source_uuid: refused } });
    expect(s2.status, s2.raw).toBe(200);
    await drain();
    expect((await m.api.get(`/subscriptions/subscription/${s2.body.subscription}`)).body.subscription.status).toBe('UNPAID');
    await page.getByRole('link', { name: '← Subscriptions' }).click();
    await page.getByTestId('subs-tab-failed').click();
    const failed = page.locator(`[data-testid="sub-failed"] tr[data-subscription="${s2.body.subscription}"]`);
    await failed.waitFor();
    expect(await failed.locator('.badge').textContent()).toBe('FAILED');
    expect(await failed.getByTestId('failed-reason').textContent()).toMatch(/declined/i);
    expect(await failed.getByTestId('failed-retry').textContent()).toMatch(/^Retry on /);
    expect(await page.locator('[data-testid="sub-failed"] tbody tr').count()).toBe(1);
    await axe(page, 'failed charges');
    await page.getByTestId('subs-tab-payments').click();
    await page.locator('[data-testid="sub-payments"] tbody tr').nth(1).waitFor();
    await axe(page, 'charges');
    await page.setViewportSize({ width: 375, height: 800 });
    await axe(page, 'charges (375 px)');
    await shot(page, d.shots, 'dashboard-subscriptions-phone.png');
    expect(errors).toEqual([]);
    await ctx.close();
  }, 120_000);

  it('VIEWER: reads subscriptions, no action to change them', async () => {
    const { ctx, page } = await d.newPage();
    page.setDefaultTimeout(30_000); // the first sign-in hashes passwords: slow on a busy machine
    await d.signIn(page, m, 'VIEWER');
    await page.getByTestId('nav-subscriptions').click();
    await page.locator('[data-testid="subscriptions"] tbody tr').first().waitFor();
    expect(await page.getByRole('heading', { name: 'Subscribe a customer' }).count()).toBe(0);
    await page.locator('[data-testid="subscriptions"] tbody tr a').first().click();
    await page.getByTestId('sub-status').waitFor();
    expect(await page.getByTestId('sub-cancel').count()).toBe(0);
    await page.getByRole('link', { name: '← Subscriptions' }).click();
    await page.getByTestId('subs-tab-products').click();
    await page.locator('[data-testid="products"] tr[data-id="gym"]').waitFor();
    expect(await page.getByRole('button', { name: 'Create product' }).count()).toBe(0);
    expect(await page.getByRole('button', { name: /^Remove/ }).count()).toBe(0);
    await ctx.close();
  }, 60_000);
});
