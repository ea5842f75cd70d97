/**
 * The customers area in a real browser: a customer with two cards stored through the API is found by
 * the search, its page shows each card as brand, BIN and last 4 (the full number is nowhere in the
 * page), a card deleted from the page is gone for the API too, an address is added from the page, and a
 * VIEWER has no customers menu. axe-core on the list, the customer's page and its dialogs; screenshots
 * at 1280 px and 375 px.
 */
import { afterAll, beforeAll, describe, expect, it as vitestIt } from 'vitest';
import { axe, chromiumOrNull, shot, startDashboardBrowser, type DashboardBrowser } from '../helpers/dashboard-browser.js';
import type { TestMerchant } from '../helpers/app.js';
import { TEST_CARDS } from '../helpers/payments.js';

const CHROMIUM = await chromiumOrNull(import.meta.url);
const it = vitestIt.skipIf(!CHROMIUM);

let d: DashboardBrowser;
let m: TestMerchant;
const CARDS = [TEST_CARDS.APPROVED, TEST_CARDS.NON_3DS_OK];
const uuids: string[] = [];

beforeAll(async () => {
  if (!CHROMIUM) return;
  d = await startDashboardBrowser(CHROMIUM);
  m = await d.t.merchant({ name: 'Customers Shop', isPci: true });
  for (const pan of CARDS) {
    const r = await m.api.post('/payment-method/card', { card_holder: 'Ana Pérez', card_pan: pan, card_expiry_month: '12', card_expiry_year: '30', customer_ext_id: 'cust-ana-7' });
    expect(r.status, r.raw).toBe(200);
    uuids.push(r.body.Source.uuid);
  }
  const p = await m.api.post('/customer/profile', { external_id: 'cust-ana-7', first_name: 'Ana', last_name: 'Pérez', email: 'ana.perez@example.com' });
  expect(p.status, p.raw).toBe(200);
  const a = await m.api.post('/customer/address', { external_id: 'cust-ana-7', address1: 'Rua Augusta 10', city: 'Lisboa', country: 'PRT', default: true, state_code: 'LX', type: 'SHIPPING', zip_code: '1100-053' });
  expect(a.status, a.raw).toBe(200);
  expect((await m.api.post('/customer', { customer_ext_id: 'cust-bruno-8' })).status).toBe(200);
}, 120_000);
afterAll(async () => d?.close());

describe('customers', () => {
  it('a MANAGER finds the customer, sees its cards as BIN and last 4 only, and deletes one', async () => {
    const { ctx, page, errors } = await d.newPage();
    await d.signIn(page, m, 'MANAGER');
    await page.getByTestId('nav-customers').click();
    const rows = page.getByTestId('customers').locator('tbody tr');
    await expect.poll(() => rows.count()).toBe(2);
    await axe(page, 'customers list');

    // search by the profile's e-mail: only Ana
    await page.getByTestId('customer-search').fill('ANA.PEREZ@');
    await page.getByRole('button', { name: 'Search', exact: true }).click();
    await expect.poll(() => rows.count()).toBe(1);
    await expect.poll(() => rows.first().textContent()).toContain('Ana Pérez');
    await rows.first().getByRole('link', { name: 'cust-ana-7' }).click();

    const sources = page.getByTestId('sources').locator('tbody tr');
    await expect.poll(() => sources.count()).toBe(2);
    await page.getByText('Rua Augusta 10').waitFor();
    for (const [i, pan] of CARDS.entries()) {
      const row = page.locator(`tr[data-uuid="${uuids[i]}"]`);
      await expect.poll(() => row.textContent()).toContain(`${pan.slice(0, 6)} •• ${pan.slice(-4)}`);
    }
    const html = await page.content();
    for (const pan of CARDS) {
      expect(html).not.toContain(pan);
      // nor the middle digits, in any grouping
      expect(html.replace(/\s/g, '')).not.toContain(pan.slice(6, 12));
    }
    await axe(page, 'customer page');
    await shot(page, d.shots, 'dashboard-customer.png');

    // delete the first card, confirmed in the dialog
    await page.locator(`tr[data-uuid="${uuids[0]}"]`).getByRole('button', { name: 'Delete' }).click();
    const dialog = page.getByTestId('delete-source-dialog');
    await expect.poll(() => dialog.textContent()).toContain(CARDS[0]!.slice(-4));
    await axe(page, 'delete dialog');
    await dialog.getByRole('button', { name: 'Yes, do it' }).click();
    await expect.poll(() => sources.count()).toBe(1);
    const left = await m.api.get('/customer/cust-ana-7/sources', { status: 'ALL' });
    expect(left.body.sources.map((s: { uuid: string }) => s.uuid)).toEqual([uuids[1]]);
    expect((await m.api.get(`/payment-method/${uuids[0]}`)).status).toBe(404);

    // a second address, added from the page (E6)
    await page.getByRole('button', { name: 'Add an address' }).click();
    const form = page.getByTestId('address-dialog');
    await form.getByLabel('Address', { exact: true }).fill('Avenida da Liberdade 5');
    await form.getByLabel('Postcode').fill('1250-096');
    await form.getByLabel('City').fill('Lisboa');
    await form.getByLabel('State or region code').fill('LX');
    await form.getByLabel('Country (ISO alpha-3)').fill('prt');
    await axe(page, 'address dialog');
    await form.getByRole('button', { name: 'Yes, do it' }).click();
    await page.getByText('Avenida da Liberdade 5').waitFor();
    // read back from the server: a BILLING address besides the SHIPPING one
    await expect.poll(() => page.getByRole('button', { name: /^Remove: / }).count()).toBe(2);
    expect(await page.getByRole('button', { name: 'Remove: BILLING · Avenida da Liberdade 5' }).count()).toBe(1);

    // on a phone: the same page, no horizontal scrolling
    await page.setViewportSize({ width: 375, height: 800 });
    await expect.poll(() => page.evaluate('document.documentElement.scrollWidth')).toBeLessThanOrEqual(375);
    await axe(page, 'customer page on a phone');
    await shot(page, d.shots, 'dashboard-customer-phone.png');
    expect(errors).toEqual([]);
    await ctx.close();
  }, 90_000);

  it('a VIEWER has no customers menu', async () => {
    const v = await d.newPage();
    await d.signIn(v.page, m, 'VIEWER');
    await v.page.getByTestId('nav-overview').waitFor();
    expect(await v.page.getByTestId('nav-customers').count()).toBe(0);
    expect(v.errors).toEqual([]);
    await v.ctx.close();
  }, 60_000);
});
