/**
 * The Configuration area in a real browser: a MANAGER creates a terminal (the credentials typed are never
 * in the page again) and a service linked to it; edits a template's colour and sees the preview of the
 * hosted payment page change before saving, saves it as the default, and the hosted page of a new order
 * shows it; advances the sandbox test clock (the API agrees); creates a child merchant and promotes it.
 * A USER sees services and terminals but not templates, the clock or child merchants. axe on every page.
 */
import { afterAll, beforeAll, describe, expect, it as vitestIt } from 'vitest';
import { axe, chromiumOrNull, shot, startDashboardBrowser, type DashboardBrowser } from '../helpers/dashboard-browser.js';
import type { TestMerchant } from '../helpers/app.js';

const CHROMIUM = await chromiumOrNull(import.meta.url);
const it = vitestIt.skipIf(!CHROMIUM);

// credentials of a sandbox terminal (letters and digits, never card-number-like)
const KEY_SECURE = 'sq7yvkQ9ZtUxW3e2LmNpRr8sTt6uVv5w';
const KEY_NOT_SECURE = 'Hb4nMc8pXq2rLs6tWv9yZa3dEf7gJk1m';

let d: DashboardBrowser;
let m: TestMerchant;

beforeAll(async () => {
  if (!CHROMIUM) return;
  d = await startDashboardBrowser(CHROMIUM);
  m = await d.t.merchant({ name: 'Settings Shop' });
}, 120_000);
afterAll(async () => d?.close());

/** The background colour of the pay button of the hosted page in the preview frame. */
async function previewButton(page: import('playwright-core').Page): Promise<string> {
  return page.frameLocator('iframe[data-testid=preview]').locator('button[type=submit]').evaluate((b) => (globalThis as any).getComputedStyle(b).backgroundColor as string);
}

describe('Configuration', () => {
  it('MANAGER: terminal and service, template with live preview, test clock, child merchant', async () => {
    const { ctx, page, errors } = await d.newPage();
    await d.signIn(page, m, 'MANAGER');
    await page.goto(`${d.base}/dashboard/settings/services`);
    await page.getByRole('heading', { name: 'New terminal' }).waitFor();
    await axe(page, 'services');

    // a terminal: the credentials are typed once and never come back
    await page.getByLabel('Description').fill('Browser terminal');
    await page.getByLabel('Code (merchant code)').fill('999008881');
    await page.locator('[data-credential=key_secure]').fill(KEY_SECURE);
    await page.locator('[data-credential=terminal_secure]').fill('1');
    await page.locator('[data-credential=key_not_secure]').fill(KEY_NOT_SECURE);
    await page.locator('[data-credential=terminal_not_secure]').fill('2');
    await page.getByRole('button', { name: 'Create terminal' }).click();
    await page.getByText('Terminal created.').waitFor();
    const row = page.getByTestId('terminals').locator('tr', { hasText: 'Browser terminal' });
    await row.getByText('key_secure: set').waitFor();
    expect(await page.locator('[data-credential=key_secure]').inputValue()).toBe('');
    const html = await page.content();
    expect(html).not.toContain(KEY_SECURE);
    expect(html).not.toContain(KEY_NOT_SECURE);
    await shot(page, d.shots, 'dashboard-settings.png');

    // a service linked to it: enabled at once
    await page.getByLabel('Name', { exact: true }).fill('Browser service');
    await page.locator('select[name=service-terminal]').selectOption({ label: 'Browser terminal (EUR · 999008881)' });
    await page.getByRole('button', { name: 'Create service' }).click();
    await page.getByTestId('service-page').waitFor();
    await expect.poll(() => page.getByTestId('service-state').textContent()).toBe('Enabled');
    const apms = page.getByRole('group', { name: 'Alternative payment methods offered' });
    await apms.waitFor();
    await axe(page, 'service page');
    expect(await page.content()).not.toContain(KEY_SECURE);

    // an APM offered on the service, ticked on the page: saved, and ticked when the page is opened again
    const serviceUuid = /\/settings\/services\/([0-9a-f-]{36})$/.exec(page.url())![1]!;
    const apm = apms.getByRole('checkbox').first();
    await apm.click(); // the box shows the service's saved state: it is ticked once the change is saved
    await expect.poll(async () => (await m.api.get(`/service/${serviceUuid}/apms`)).body.service.apms.length).toBe(1);
    await page.reload();
    await expect.poll(() => apm.isChecked()).toBe(true);

    // a template: the preview follows the colour typed, before anything is saved
    await page.getByRole('link', { name: 'Templates' }).click();
    await page.getByRole('button', { name: 'New template' }).click();
    await expect.poll(() => previewButton(page)).toBe('rgb(31, 95, 191)'); // the built-in default
    await page.getByLabel('Name', { exact: true }).fill('Spring');
    await page.locator('input[name=button-color]').fill('#AB1234');
    await expect.poll(() => previewButton(page)).toBe('rgb(171, 18, 52)');
    expect((await m.api.get('/templates')).body.templates).toEqual([]); // nothing saved by the preview
    await axe(page, 'template editor');
    await shot(page, d.shots, 'dashboard-preview.png');
    await page.getByLabel('Use it for orders that name no template').check();
    await page.getByTestId('save-template').click();
    await page.getByTestId('templates').getByText('Spring').waitFor();
    const saved = (await m.api.get('/templates')).body.templates;
    expect(saved).toMatchObject([{ name: 'Spring', button_color: '#AB1234', default: true }]);

    // the hosted page of a new order shows it
    const order = await m.api.post('/payment', { amount: 1250, operative: 'AUTHORIZATION', secure: false, service: m.service_uuid, description: 'After the template' });
    expect(order.status, order.raw).toBe(200);
    const hosted = await ctx.newPage();
    await hosted.goto(`${d.base}/v1/sandbox/payment/process/${order.body.order.token}`);
    expect(await hosted.locator('button[type=submit]').evaluate((b) => (globalThis as any).getComputedStyle(b).backgroundColor as string)).toBe('rgb(171, 18, 52)');
    await hosted.close();

    // checkouts, notifications, wallets: they open and pass axe
    for (const [tab, heading] of [['Checkouts', 'Checkout configurations'], ['Notifications', 'Notifications'], ['Wallets and DCC', 'Google Pay']] as const) {
      await page.getByRole('link', { name: tab, exact: true }).click();
      await page.getByRole('heading', { name: heading, exact: true }).waitFor();
      await axe(page, tab);
    }

    // the test clock, advanced from the page: the API agrees
    await page.getByRole('link', { name: 'Test clock' }).click();
    await expect.poll(() => page.getByTestId('clock-offset').getAttribute('data-seconds')).toBe('0');
    await axe(page, 'test clock');
    await page.getByLabel('Advance by').fill('2');
    await page.getByLabel('Unit').selectOption('days');
    await page.getByRole('button', { name: 'Advance the clock' }).click();
    await expect.poll(() => page.getByTestId('clock-offset').getAttribute('data-seconds')).toBe('172800');
    expect((await m.api.get('/test-clock')).body.test_clock.offset_seconds).toBe(172800);

    // a child merchant, then its promotion to production (confirmed first)
    await page.getByRole('link', { name: 'Child merchants' }).click();
    await page.getByRole('heading', { name: 'New child merchant' }).waitFor();
    await page.getByLabel('Name', { exact: true }).fill('Browser Child');
    await page.getByLabel('E-mail').fill('child@shop.example');
    await page.getByRole('button', { name: 'Create merchant' }).click();
    await page.getByTestId('issued-credentials').waitFor();
    const childRow = page.getByTestId('children').locator('tr', { hasText: 'Browser Child' });
    await childRow.waitFor();
    await axe(page, 'child merchants');
    await childRow.getByRole('button', { name: 'Promote to production' }).click();
    await page.getByTestId('promote-dialog').getByRole('button', { name: 'Yes, do it' }).click();
    await childRow.getByText('in production').waitFor();
    expect(errors).toEqual([]);
    await ctx.close();
  }, 120_000);

  it('USER: services and terminals only; the rest is not shown', async () => {
    const { ctx, page, errors } = await d.newPage({ width: 375, height: 800 });
    await d.signIn(page, m, 'USER');
    await page.goto(`${d.base}/dashboard/settings`);
    await page.getByTestId('services').waitFor();
    const tabs = await page.locator('.settings .tabs a').allTextContents();
    expect(tabs).toEqual(['Services and terminals']);
    await page.goto(`${d.base}/dashboard/settings/templates`);
    await page.getByTestId('services').waitFor();
    expect(await page.getByRole('button', { name: 'New template' }).count()).toBe(0);
    await axe(page, 'services (USER, phone)');
    await shot(page, d.shots, 'dashboard-settings-phone.png');
    expect(errors).toEqual([]);
    await ctx.close();
  }, 60_000);
});
