/**
 * The Disputes area in a real browser. A USER finds the sandbox's dispute in the list (needs response,
 * with its deadline), opens it, adds a text field and a PNG document, submits it (under review); moving
 * the test clock lets the sandbox decide it: won, and the order's totals say so. A VIEWER sees the list and
 * a dispute without the evidence form. axe-core on each page.
 */
import { afterAll, beforeAll, describe, expect, it as vitestIt } from 'vitest';
import { axe, chromiumOrNull, startDashboardBrowser, type DashboardBrowser } from '../helpers/dashboard-browser.js';
import type { TestMerchant } from '../helpers/app.js';
import { paidOrder } from '../helpers/payments.js';

const CHROMIUM = await chromiumOrNull(import.meta.url);
const it = vitestIt.skipIf(!CHROMIUM);

let d: DashboardBrowser;
let m: TestMerchant;

beforeAll(async () => {
  if (!CHROMIUM) return;
  d = await startDashboardBrowser(CHROMIUM);
  m = await d.t.merchant({ name: 'Disputes Browser Shop', isPci: true });
}, 120_000);
afterAll(async () => d?.close());

const PNG = Buffer.from('89504e470d0a1a0a0000000d4948445200000001000000010806000000', 'hex');

describe('disputes', () => {
  it('USER: the dispute listed with its deadline, evidence added and submitted, then won on the test clock', async () => {
    const o = await paidOrder(d.t, m, { amount: 2750 });
    const raised = await m.api.post('/disputes/simulate', { order_uuid: o.uuid, category: 'PRODUCT_NOT_RECEIVED', outcome: 'WON' });
    expect(raised.status, raised.raw).toBe(200);
    const uuid = raised.body.dispute.uuid as string;

    const { ctx, page, errors } = await d.newPage();
    page.setDefaultTimeout(30_000);
    await d.signIn(page, m, 'USER');
    await page.getByTestId('nav-disputes').click();
    const row = page.locator(`[data-testid="disputes-list"] tr[data-uuid="${uuid}"]`);
    await row.waitFor();
    expect(await row.getAttribute('data-status')).toBe('NEEDS_RESPONSE');
    expect(await row.textContent()).toContain('Needs response');
    await page.getByTestId('dispute-ratios').waitFor();
    await axe(page, 'disputes list');

    await row.locator('a').click();
    await page.getByTestId('dispute-detail').waitFor();
    expect(await page.getByTestId('dispute-order-totals').textContent()).toMatch(/disputed .*27\.50/);
    await page.locator('[data-testid="dispute-evidence-form"] select').selectOption('proof_of_delivery');
    await page.locator('[data-testid="dispute-evidence-form"] textarea').fill('Signed for by the cardholder on 3 March');
    await page.locator('[data-testid="dispute-evidence-form"] input[type="file"]').setInputFiles({ name: 'receipt.png', mimeType: 'image/png', buffer: PNG });
    await page.locator('[data-testid="dispute-evidence-form"] button[type="submit"]').click();
    await expect.poll(() => page.getByTestId('dispute-evidence').locator('li').count()).toBe(2);
    await axe(page, 'dispute, needs response');
    await page.getByTestId('dispute-submit').click();
    await expect.poll(() => page.getByTestId('dispute-detail').getAttribute('data-status')).toBe('UNDER_REVIEW');
    expect(await page.getByTestId('dispute-evidence-form').count()).toBe(0);

    // the sandbox decides it 2 days later on the test clock
    expect((await m.api.post('/test-clock', { advance_seconds: 2 * 86400 + 60 })).status).toBe(200);
    await d.t.p.jobs.drain();
    await page.reload();
    await expect.poll(() => page.getByTestId('dispute-detail').getAttribute('data-status')).toBe('WON');
    expect(await page.getByTestId('dispute-order-totals').textContent()).toMatch(/won back .*27\.50/);
    expect(await page.getByTestId('dispute-history').locator('tbody tr').count()).toBe(4);
    // the order's page shows it too: nothing disputed or lost, 27.50 won back
    await page.goto(`${d.base}/dashboard/payments/${o.uuid}`);
    await page.getByTestId('order-dispute-won').waitFor();
    expect(await page.getByTestId('order-dispute-won').textContent()).toMatch(/27\.50/);
    expect(await page.getByTestId('order-dispute-lost').textContent()).toMatch(/0\.00/);
    expect(await page.getByTestId('order-disputed').textContent()).toMatch(/0\.00/);
    await axe(page, 'order with a dispute');
    expect(errors).toEqual([]);
    await ctx.close();
  }, 180_000);

  it('VIEWER: reads disputes, no evidence form or actions', async () => {
    const o = await paidOrder(d.t, m, { amount: 990 });
    const uuid = (await m.api.post('/disputes/simulate', { order_uuid: o.uuid })).body.dispute.uuid as string;
    const { ctx, page, errors } = await d.newPage();
    page.setDefaultTimeout(30_000);
    await d.signIn(page, m, 'VIEWER');
    await page.getByTestId('nav-disputes').click();
    await page.locator(`[data-testid="disputes-list"] tr[data-uuid="${uuid}"] a`).click();
    await page.getByTestId('dispute-detail').waitFor();
    expect(await page.getByTestId('dispute-evidence-form').count()).toBe(0);
    expect(await page.getByTestId('dispute-submit').count()).toBe(0);
    expect(errors).toEqual([]);
    await ctx.close();
  }, 120_000);
});
