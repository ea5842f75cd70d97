/**
 * The risk area in a real browser: a MANAGER creates a black list, links the merchant's service and
 * blacklists a customer's stored card from the customer's page (the dashboard never carries a card
 * number: the item is the stored card, CARD_UUID); a payment with that card number through the API is
 * then refused (BLACKLISTED); the list disabled from the page lets the same card pay; items imported
 * from a CSV file (rows with card numbers left out); the antifraud rules edited. A USER sees the lists
 * and the rules but no button that changes them. axe-core on every page; screenshots.
 */
import { afterAll, beforeAll, describe, expect, it as vitestIt } from 'vitest';
import { axe, chromiumOrNull, shot, startDashboardBrowser, type DashboardBrowser } from '../helpers/dashboard-browser.js';
import type { TestMerchant } from '../helpers/app.js';
import { freshCard, single } from '../helpers/risk.js';
import { useTestSeed } from '../helpers/seed.js';

useTestSeed(import.meta.url);
const CHROMIUM = await chromiumOrNull(import.meta.url);
const it = vitestIt.skipIf(!CHROMIUM);

let d: DashboardBrowser;
let m: TestMerchant;
let pan: string;
let listUuid: string;

beforeAll(async () => {
  if (!CHROMIUM) return;
  d = await startDashboardBrowser(CHROMIUM);
  m = await d.t.merchant({ name: 'Risk Shop', isPci: true });
  pan = freshCard();
  const r = await m.api.post('/payment-method/card', { card_holder: 'Ana Pérez', card_pan: pan, card_expiry_month: '12', card_expiry_year: '30', customer_ext_id: 'risk-ana' });
  expect(r.status, r.raw).toBe(200);
}, 120_000);
afterAll(async () => d?.close());

describe('risk', () => {
  it('a MANAGER blacklists a stored card, the card is refused, the list disabled lets it pay; a CSV import; the rules edited', async () => {
    const { ctx, page, errors } = await d.newPage();
    await d.signIn(page, m, 'MANAGER');
    await page.getByTestId('nav-risk').click();
    await page.getByTestId('security-lists').waitFor();
    await axe(page, 'security lists');

    // a black list, linked to the merchant's service
    await page.getByLabel('Description').fill('Chargebacks');
    await page.getByRole('button', { name: 'New list' }).click();
    await page.getByRole('dialog').getByRole('button', { name: 'Yes, do it' }).click();
    await page.getByTestId('list-page').waitFor();
    listUuid = /\/risk\/l\/([0-9a-f-]{36})$/.exec(page.url())![1]!;
    await page.getByRole('combobox', { name: 'Service' }).selectOption(m.service_uuid!);
    await page.getByRole('button', { name: 'Link service' }).click();
    await page.getByRole('dialog').getByRole('button', { name: 'Yes, do it' }).click();
    await expect.poll(() => page.getByTestId('list-services').locator('li').count()).toBe(1);

    // the customer's card into the list, from the customer's page
    await page.goto(`${d.base}/dashboard/customers/c/risk-ana`);
    await page.getByRole('button', { name: 'Blacklist' }).click();
    const dialog = page.getByTestId('blacklist-dialog');
    await expect.poll(() => dialog.getByLabel('Black list').inputValue()).toBe(listUuid);
    await dialog.getByRole('button', { name: 'Yes, do it' }).click();
    await page.getByRole('status').filter({ hasText: 'Chargebacks' }).waitFor();
    const items = await m.api.get(`/security-list/${listUuid}/items`);
    expect(items.body.items).toEqual([expect.objectContaining({ type: 'CARD_UUID' })]);
    expect(items.raw).not.toContain(pan);

    // the card number paying through the API: refused by the list
    const refused = await single(m, { pan, customer: 'someone-else' });
    expect(refused.status, refused.raw).toBe(200);
    expect(refused.body.order.status).toBe('BLACKLISTED');

    // disabled from the page: the same card pays
    await page.goto(`${d.base}/dashboard/risk/l/${listUuid}`);
    await expect.poll(() => page.getByTestId('list-items').locator('tbody tr').count()).toBe(1);
    await page.getByRole('button', { name: 'Disable' }).click();
    await page.getByRole('dialog').getByRole('button', { name: 'Yes, do it' }).click();
    await expect.poll(() => page.getByTestId('list-state').textContent()).toBe('Disabled');
    const paid = await single(m, { pan, customer: 'someone-else' });
    expect(paid.status, paid.raw).toBe(200);
    expect(paid.body.order.status).toBe('SUCCESS');

    // a CSV file: three items, and a row with a card number left out
    const csv = `Type,Value,Description\nEMAIL,fraud@example.com,chargeback\nIP,198.51.100.0/24,proxy network\nCOUNTRY,KP,\nCARD,${pan},never sent\n`;
    await page.getByTestId('import-file').setInputFiles({ name: 'items.csv', mimeType: 'text/csv', buffer: Buffer.from(csv) });
    await page.getByRole('button', { name: 'Import', exact: true }).click();
    await expect.poll(() => page.getByTestId('import-result').textContent()).toContain('3 of 3 items added');
    expect(await page.getByTestId('import-result').textContent()).toContain('lines 5');
    await expect.poll(() => page.getByTestId('list-items').locator('tbody tr').count()).toBe(4);
    const after = await m.api.get(`/security-list/${listUuid}/items`);
    const kinds = after.body.items.map((i: { type: string; value: string }) => (i.type === 'CARD_UUID' ? i.type : `${i.type} ${i.value}`)).sort();
    expect(kinds).toEqual(['CARD_UUID', 'COUNTRY KP', 'EMAIL fraud@example.com', 'IP 198.51.100.0/24']);
    expect(await page.content()).not.toContain(pan);
    await axe(page, 'a security list');
    await shot(page, d.shots, 'dashboard-risk.png');

    // the antifraud rules: the challenge threshold changed and saved
    await page.getByRole('link', { name: 'Antifraud rules' }).click();
    await page.getByTestId('rules').waitFor();
    await axe(page, 'antifraud rules');
    await page.getByLabel('Challenge threshold').fill('45');
    await page.getByRole('button', { name: 'Save rules' }).click();
    await page.getByRole('dialog').getByRole('button', { name: 'Yes, do it' }).click();
    await page.getByText('The rules are saved and in force.').waitFor();
    expect((await m.api.get('/antifraud/rules')).body.antifraud.challenge_threshold).toBe(45);

    // the refused payment among the refusals
    await page.getByRole('link', { name: 'Refused payments' }).click();
    await expect.poll(() => page.getByTestId('refusals').locator('tbody tr').count()).toBe(1);
    await axe(page, 'refused payments');
    expect(errors).toEqual([]);
    await ctx.close();
  }, 90_000);

  it('a USER sees the lists and the rules but no button that changes them', async () => {
    const { ctx, page, errors } = await d.newPage();
    await d.signIn(page, m, 'USER');
    await page.getByTestId('nav-risk').click();
    await expect.poll(() => page.getByTestId('security-lists').locator('tbody tr').count()).toBe(1);
    expect(await page.getByRole('button', { name: 'New list' }).count()).toBe(0);
    await page.getByRole('link', { name: 'Chargebacks' }).click();
    await expect.poll(() => page.getByTestId('list-items').locator('tbody tr').count()).toBe(4);
    for (const name of ['Enable', 'Disable', 'Delete list', 'Link service', 'Unlink', 'Add', 'Import']) expect(await page.getByRole('button', { name, exact: true }).count(), name).toBe(0);
    expect(await page.getByRole('button', { name: /^Remove/ }).count()).toBe(0);
    // the list on a phone: no horizontal scrolling
    await page.setViewportSize({ width: 375, height: 800 });
    await expect.poll(() => page.evaluate('document.documentElement.scrollWidth')).toBeLessThanOrEqual(375);
    await axe(page, 'a security list on a phone');
    await shot(page, d.shots, 'dashboard-risk-phone.png');
    await page.setViewportSize({ width: 1280, height: 900 });
    await page.getByRole('link', { name: 'Antifraud rules' }).click();
    await page.getByTestId('rules').waitFor();
    expect(await page.getByLabel('Challenge threshold').isDisabled()).toBe(true);
    expect(await page.getByRole('button', { name: 'Save rules' }).count()).toBe(0);
    // the server's refusal of the same changes: test/http/dashboard-bridge.test.ts (every operation, every group)
    expect(errors).toEqual([]);
    await ctx.close();
  }, 60_000);
});
