/**
 * The virtual terminal in a real browser: a MANUAL PAYMENT user takes a MoTo payment with a test card
 * typed into the gateway's card form framed by the dashboard (the order is PAID in the API and the
 * dashboard shows it from the frame's message), then creates a payment link and sends it by e-mail
 * (a real SMTP server receives it); a VIEWER has no virtual terminal.
 */
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
  d = await startDashboardBrowser(CHROMIUM, { PAYGATE_SMTP_URL: smtp.url, PAYGATE_MAIL_FROM: 'Pagos <pagos@gateway.test>' });
  m = await d.t.merchant({ name: 'Phone Orders Shop', isPci: true });
}, 120_000);
afterAll(async () => {
  await d?.close();
  await smtp?.close().catch(() => {});
});

describe('the virtual terminal', () => {
  it('MANUAL PAYMENT: a card taken by phone is paid in the gateway\'s framed form; a payment link goes by e-mail', async () => {
    const { ctx, page, errors } = await d.newPage();
    page.setDefaultTimeout(30_000);
    await d.signIn(page, m, 'MANUAL PAYMENT');
    await page.getByTestId('nav-terminal').click();
    await page.getByRole('heading', { name: 'Virtual terminal' }).waitFor();
    await page.getByLabel('Amount', { exact: true }).fill('42.50');
    await page.getByLabel('Description', { exact: true }).fill('Phone order 1042');
    await page.getByLabel('Your reference (optional)').fill('call-1042');
    await expect.poll(() => page.getByText('€42.50').count()).toBe(1);
    await axe(page, 'virtual terminal');

    await page.getByRole('button', { name: 'Enter the card' }).click();
    const form = page.frameLocator('iframe[title="Card form of the gateway"]');
    await form.getByLabel('Cardholder name').fill('Lucía Pérez');
    await form.getByLabel('Card number').fill(TEST_CARDS.APPROVED);
    await form.getByLabel(/Expiry date/).fill('12/34');
    await form.getByLabel('Security code').fill('123');
    await form.getByRole('button', { name: /Charge/ }).click();
    const outcome = page.getByTestId('terminal-outcome');
    await expect.poll(() => outcome.textContent()).toMatch(/: SUCCESS/);
    const uuid = /Order ([0-9a-f-]{36})/.exec((await outcome.textContent()) ?? '')![1];
    const order = await m.api.get(`/order/${uuid}`);
    expect(order.body.order).toMatchObject({ status: 'SUCCESS', paid: true, amount: 4250, reference: 'call-1042' });
    // the card never reached the dashboard page: only the frame had it
    expect(await page.content()).not.toContain(TEST_CARDS.APPROVED);
    await shot(page, d.shots, 'dashboard-terminal.png');

    // a payment link by e-mail
    await page.getByLabel('Description', { exact: true }).fill('Balance of order 1042');
    // the reference is held by the paid order (a second order with it would be 409)
    await page.getByLabel('Your reference (optional)').fill('');
    await page.getByLabel('E-mail address or mobile number').fill('lucia@example.com');
    await page.getByLabel('Subject (e-mail title or SMS sender)').fill('Your order 1042');
    // the link works for days unless chosen otherwise (the API's default is 10 minutes)
    expect(await page.getByLabel('How long').inputValue()).toBe('7');
    expect(await page.getByLabel('Unit').inputValue()).toBe('days');
    await page.getByLabel('How long').fill('5');
    await page.getByLabel('Unit').selectOption('minutes');
    await page.getByTestId('expiry-invalid').waitFor();
    expect(await page.getByRole('button', { name: 'Create and send the link' }).isDisabled()).toBe(true);
    await page.getByLabel('How long').fill('3');
    await page.getByLabel('Unit').selectOption('days');
    const send = page.getByRole('button', { name: 'Create and send the link' });
    // pressed twice: one order, one message
    await send.dblclick();
    await page.getByText('Sent to lucia@example.com.').waitFor();
    const link = await page.getByLabel('Link to pay').inputValue();
    expect(link).toMatch(/\/v1\/sandbox\/payment\/process\/[0-9a-f]+/);
    await expect.poll(() => smtp.mails.length).toBe(1);
    expect(await send.count()).toBe(0);
    const made = await d.t.p.database.db.selectFrom('orders').select(['id', 'expires_at', 'created_at']).where('description', '=', 'Balance of order 1042').execute();
    expect(made).toHaveLength(1);
    const lasts = made[0].expires_at.getTime() - made[0].created_at.getTime();
    expect(Math.abs(lasts - 3 * 86400_000)).toBeLessThan(5_000);
    // and it says until when
    expect(await page.getByTestId('link-expires').textContent()).toMatch(/The link works until .*2\d{3}/);
    expect(smtp.mails[0].to).toEqual(['lucia@example.com']);
    expect(smtp.mails[0].raw).toContain('Your order 1042');
    await axe(page, 'virtual terminal with a link sent');
    // another link is asked for, not made by pressing again
    await page.getByRole('button', { name: 'Send another link' }).click();
    await send.waitFor();
    // on a phone
    await page.setViewportSize({ width: 375, height: 800 });
    await axe(page, 'virtual terminal on a phone');
    await shot(page, d.shots, 'dashboard-terminal-phone.png');
    expect(errors).toEqual([]);
    await ctx.close();
  }, 90_000);

  it('a VIEWER has no virtual terminal', async () => {
    const { ctx, page } = await d.newPage({ width: 375, height: 800 });
    page.setDefaultTimeout(30_000);
    await d.signIn(page, m, 'VIEWER');
    expect(await page.getByTestId('nav-terminal').count()).toBe(0);
    await ctx.close();
  }, 60_000);
});
