/**
 * MoTo campaigns in a real browser: a CSV with a bad line shows the API's line error beside the line
 * (nothing created), the fixed file is sent, the campaign's page shows its payments; one link is
 * opened and paid on the hosted page and its state becomes PAID on the campaign's page (which refreshes
 * by itself); a receipt certificate downloads as a PDF. A VIEWER sees campaigns but cannot send one.
 */
import fs from 'node:fs';
import { afterAll, beforeAll, describe, expect, it as vitestIt } from 'vitest';
import { axe, chromiumOrNull, shot, startDashboardBrowser, type DashboardBrowser } from '../helpers/dashboard-browser.js';
import type { TestMerchant } from '../helpers/app.js';
import { TEST_CARDS } from '../helpers/payments.js';
import { startSmtp } from '../helpers/smtp.js';

const CHROMIUM = await chromiumOrNull(import.meta.url);
const it = vitestIt.skipIf(!CHROMIUM);

let d: DashboardBrowser;
let m: TestMerchant;
let smtp: Awaited<ReturnType<typeof startSmtp>>;

beforeAll(async () => {
  if (!CHROMIUM) return;
  smtp = await startSmtp();
  d = await startDashboardBrowser(CHROMIUM, { PAYGATE_SMTP_URL: smtp.url, PAYGATE_MAIL_FROM: 'Cobros <cobros@gateway.test>' });
  m = await d.t.merchant({ name: 'Campaign Shop' });
}, 120_000);
afterAll(async () => {
  await d?.close();
  await smtp?.close().catch(() => {});
});

const csv = (second: string) => Buffer.from(`AMOUNT,OPERATIVE,DESTINATION,CUSTOMER_EXT_ID\n2550,AUTHORIZATION,ana@example.com,c-1\n${second},AUTHORIZATION,luis@example.com,c-2\n`, 'utf8');

describe('MoTo campaigns', () => {
  it('a CSV with a bad line, fixed and sent; one link paid on the hosted page; a certificate downloads', async () => {
    const { ctx, page, errors } = await d.newPage();
    page.setDefaultTimeout(30_000);
    await d.signIn(page, m, 'MANUAL PAYMENT');
    await page.getByTestId('nav-campaigns').click();
    await page.getByRole('heading', { name: 'MoTo campaigns' }).waitFor();
    await page.getByText('No campaigns yet.').waitFor();
    await axe(page, 'campaigns list');
    await page.getByRole('link', { name: 'New campaign' }).click();
    await page.getByLabel('Description', { exact: true }).fill('November balances');
    await page.getByLabel(/^Subject/).fill('Your balance');
    await page.getByLabel('CSV file', { exact: true }).setInputFiles({ name: 'balances.csv', mimeType: 'text/csv', buffer: csv('abc') });
    await page.getByText('Preview: 2 payments').waitFor();
    await page.getByRole('button', { name: 'Send the campaign' }).click();
    const lineError = page.getByTestId('line-error-3');
    await lineError.waitFor();
    expect(await lineError.textContent()).toMatch(/AMOUNT/i);
    expect(await page.getByTestId('line-error-2').count()).toBe(0);
    await axe(page, 'new campaign with a line error');
    // nothing was created
    expect(await d.t.p.database.db.selectFrom('moto_campaigns').selectAll().where('merchant_id', '=', m.client_uuid).execute()).toHaveLength(0);

    await page.getByLabel('CSV file', { exact: true }).setInputFiles({ name: 'balances.csv', mimeType: 'text/csv', buffer: csv('1200') });
    await expect.poll(() => page.getByTestId('line-error-3').count()).toBe(0);
    await page.getByRole('button', { name: 'Send the campaign' }).click();
    await page.getByRole('heading', { name: 'November balances' }).waitFor();
    const uuid = /\/campaigns\/([0-9a-f-]{36})/.exec(page.url())![1];
    await expect.poll(() => page.locator('[data-testid="campaign-payments"] tbody tr').count()).toBe(2);

    // the queue sends the e-mails; the page follows by itself
    await d.t.m.campaigns.drain();
    await expect.poll(() => smtp.mails.length).toBe(2);
    const row3 = page.locator('tr[data-line="3"]');
    await expect.poll(() => row3.getByTestId('payment-status').textContent(), { timeout: 20_000 }).toBe('SENT');

    // the customer of line 3 opens the link and pays on the hosted page
    const state = await m.api.get(`/moto/campaign/${uuid}`);
    const payment = state.body.payments.find((p: any) => p.line === 3);
    const customer = await ctx.newPage();
    await customer.goto(payment.link);
    await customer.fill('#f-holder', 'Luis Gómez');
    await customer.locator('#f-number').pressSequentially(TEST_CARDS.APPROVED);
    await customer.locator('#f-expiry').pressSequentially('1234');
    await customer.locator('#f-cvv').pressSequentially('123');
    await customer.locator('form button[type="submit"]').first().click();
    await expect.poll(async () => (await m.api.get(`/order/${payment.orderUUID}`)).body.order.paid).toBe(true);
    await customer.close();
    await expect.poll(() => row3.getByTestId('payment-status').textContent(), { timeout: 20_000 }).toBe('PAID');
    expect(await page.locator('tr[data-line="2"]').getByTestId('payment-status').textContent()).toBe('SENT');
    await axe(page, 'a campaign');
    await shot(page, d.shots, 'dashboard-campaign.png');

    // the receipt certificate of line 3: a PDF
    const download = page.waitForEvent('download');
    await page.getByRole('button', { name: 'Receipt certificate of line 3' }).click();
    const file = await download;
    expect(file.suggestedFilename()).toMatch(/^receipt-certificate-.*\.pdf$/);
    const bytes = fs.readFileSync((await file.path())!);
    expect(bytes.subarray(0, 5).toString('latin1')).toBe('%PDF-');
    // on a phone
    await page.setViewportSize({ width: 375, height: 800 });
    await axe(page, 'a campaign on a phone');
    await shot(page, d.shots, 'dashboard-campaign-phone.png');
    expect(errors).toEqual([]);
    await ctx.close();
  }, 150_000);

  it('typed amounts are in the currency of the service: 1000 on a yen service is ¥1,000 (JPY has no decimals), 10.5 is no yen amount', async () => {
    const yen = await d.t.merchant({ name: 'Yen Shop', currency: 'JPY' });
    const { ctx, page, errors } = await d.newPage();
    page.setDefaultTimeout(30_000);
    await d.signIn(page, yen, 'MANUAL PAYMENT');
    await page.goto(`${d.base}/dashboard/campaigns/new`);
    await page.getByLabel('Description', { exact: true }).fill('Yen balances');
    await page.getByLabel('Type the payments').check();
    await page.getByRole('columnheader', { name: 'Amount (JPY)' }).waitFor();
    await page.getByLabel('Destination 1').fill('kenji@example.com');
    const send = page.getByRole('button', { name: 'Send the campaign' });
    await page.getByLabel('Amount 1').fill('10.5');
    expect(await page.getByLabel('Amount 1').getAttribute('aria-invalid')).toBe('true');
    expect(await send.isDisabled()).toBe(true);
    await page.getByLabel('Amount 1').fill('1000');
    await send.click();
    await page.getByRole('heading', { name: 'Yen balances' }).waitFor();
    const uuid = /\/campaigns\/([0-9a-f-]{36})/.exec(page.url())![1];
    const state = await yen.api.get(`/moto/campaign/${uuid}`);
    expect(state.body.payments.map((p: any) => p.amount)).toEqual([1000]);
    // the campaign's page shows the amount in yen
    await expect.poll(() => page.locator('[data-testid="campaign-payments"] tbody tr td[data-label="Amount"]').first().textContent()).toMatch(/¥\s?1,000$/);
    expect(errors).toEqual([]);
    await ctx.close();
  }, 90_000);

  it('a VIEWER sees the campaigns but no way to send one', async () => {
    const { ctx, page } = await d.newPage({ width: 375, height: 800 });
    page.setDefaultTimeout(30_000);
    await d.signIn(page, m, 'VIEWER');
    await page.goto(`${d.base}/dashboard/campaigns`);
    await page.getByRole('link', { name: 'November balances' }).waitFor();
    expect(await page.getByRole('link', { name: 'New campaign' }).count()).toBe(0);
    await ctx.close();
  }, 90_000);
});
