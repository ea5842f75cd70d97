/**
 * The Routing area in a real browser. A MANAGER creates a profile with two rules in the editor (a save
 * that leaves a rule's service out is refused, the problem shown beside the field), sees it in the list,
 * tries a payment with a card number (the chosen services and the rule shown, the card as BIN and last 4
 * only), edits a rule, and deletes the profile; the health panel highlights an OPEN circuit. A USER reads
 * and tries but finds no way to change; a VIEWER has no Routing area at all. The order page of a cascaded
 * payment shows both attempts' routing (the services by name for a MANAGER, by uuid for a VIEWER).
 * axe-core on each page.
 */
import { afterAll, beforeAll, describe, expect, it as vitestIt } from 'vitest';
import type { Page } from 'playwright-core';
import { axe, chromiumOrNull, startDashboardBrowser, type DashboardBrowser } from '../helpers/dashboard-browser.js';
import type { TestMerchant } from '../helpers/app.js';
import { createOrder, storeCard } from '../helpers/payments.js';

const CHROMIUM = await chromiumOrNull(import.meta.url);
const it = vitestIt.skipIf(!CHROMIUM);

let d: DashboardBrowser;
let m: TestMerchant;
let s2: string;
let s3: string;

/** Another sandbox service of the merchant, with its own terminal (the sandbox simulator processes every one). */
async function service(owner: TestMerchant, name: string): Promise<string> {
  const terminal = await owner.api.post('/terminal', { currency_code: 'EUR', type: 'REDSYSPSD2', description: name, code: '1', credentials: { key_secure: 'sq7HjrUOBfKmC576ILgskD5srU870gJ7', key_not_secure: 'sq7HjrUOBfKmC576ILgskD5srU870gJ7', terminal_secure: '1', terminal_not_secure: '2' } });
  expect(terminal.status, terminal.raw).toBe(200);
  const r = await owner.api.post('/service', { name, type: 'REDSYSPSD2', terminal_uuid: terminal.body.terminal.uuid });
  expect(r.status, r.raw).toBe(200);
  return r.body.service.uuid;
}

beforeAll(async () => {
  if (!CHROMIUM) return;
  d = await startDashboardBrowser(CHROMIUM);
  m = await d.t.merchant({ name: 'Routing Browser Shop', isPci: true });
  s2 = await service(m, 'acquirer two');
  s3 = await service(m, 'acquirer three');
}, 120_000);
afterAll(async () => d?.close());

const rule = (page: Page, i: number) => page.getByTestId('routing-rule').nth(i);

describe('routing', () => {
  it('MANAGER: creates a profile of two rules, sees it listed, tries a payment, edits a rule, deletes it; an open circuit stands out', async () => {
    const { ctx, page, errors } = await d.newPage();
    page.setDefaultTimeout(30_000);
    await d.signIn(page, m, 'MANAGER');
    await page.getByTestId('nav-routing').click();
    await page.getByTestId('routing-list').waitFor();
    await page.getByTestId('routing-new').click();
    await page.getByTestId('routing-editor').waitFor();
    await page.getByTestId('routing-name').fill('EU cards');
    await page.getByTestId('routing-entry').selectOption(m.service_uuid);
    await page.getByTestId('routing-max-attempts').fill('3');

    // rule 1: VISA cards to acquirer two, then three
    await page.getByTestId('routing-add-rule').click();
    await rule(page, 0).getByTestId('rule-name').fill('visa-first');
    await rule(page, 0).getByTestId('rule-add-condition').click();
    await rule(page, 0).getByTestId('condition-type').selectOption('brand');
    await rule(page, 0).getByTestId('condition-values').fill('VISA');
    await rule(page, 0).getByTestId('action-service').selectOption(s2);
    await rule(page, 0).getByTestId('action-add-fallback').click();
    await rule(page, 0).getByTestId('fallback-service').selectOption(s3);
    // rule 2: EUR from 1.00, its service forgotten at first
    await page.getByTestId('routing-add-rule').click();
    await rule(page, 1).getByTestId('rule-name').fill('eur');
    await rule(page, 1).getByTestId('rule-add-condition').click();
    await rule(page, 1).getByTestId('condition-type').selectOption('currency');
    await rule(page, 1).getByTestId('condition-values').fill('EUR');
    await rule(page, 1).getByTestId('rule-add-condition').click();
    await rule(page, 1).getByTestId('condition-type').nth(1).selectOption('amount');
    await rule(page, 1).getByTestId('condition-min').fill('100');
    await axe(page, 'routing editor');
    await page.getByTestId('routing-save').click();
    await expect.poll(() => page.getByTestId('routing-error').textContent()).toContain('rules[1].action.service_uuid');
    expect(await rule(page, 1).locator('[data-problem="rules[1].action.service_uuid"]').textContent()).toContain('is required');
    expect(await rule(page, 0).locator('[data-problem]').count()).toBe(0);

    await rule(page, 1).getByTestId('action-service').selectOption(s3);
    await page.getByTestId('routing-save').click();
    await page.getByTestId('routing-profile').waitFor();
    expect(await page.getByTestId('profile-rules').locator('[data-testid="profile-rule"]').evaluateAll((els) => els.map((e) => e.getAttribute('data-name')))).toEqual(['visa-first', 'eur']);
    expect(await page.getByTestId('profile-entry').textContent()).not.toBe(m.service_uuid);

    // the list: the profile with its two rules, as a DRAFT at version 1
    await page.getByRole('link', { name: 'All profiles' }).click();
    const row = page.locator('[data-testid="routing-list"] tbody tr', { hasText: 'EU cards' });
    await row.waitFor();
    expect(await row.getAttribute('data-status')).toBe('DRAFT');
    expect(await row.locator('[data-testid="routing-rules-count"]').textContent()).toBe('2');
    const uuid = (await row.getAttribute('data-uuid'))!;
    await axe(page, 'routing list');

    // try it with a card number: the VISA rule, two then three; the card as BIN and last 4 only
    await row.locator('a').click();
    await page.getByTestId('routing-try').waitFor();
    await page.getByTestId('try-card').fill('4548 8120 4940 0004');
    await page.getByTestId('try-amount').fill('25.00');
    await page.getByTestId('try-submit').click();
    await page.getByTestId('try-result').waitFor();
    expect(await page.getByTestId('try-rule').textContent()).toBe('visa-first');
    expect(await page.getByTestId('try-attempts').locator('tbody tr').evaluateAll((els) => els.map((e) => e.getAttribute('data-service')))).toEqual([s2, s3]);
    expect(await page.getByTestId('try-attempts').textContent()).toContain('acquirer two');
    expect(await page.getByTestId('try-card-shown').textContent()).toBe('45488120 •••• 0004');
    expect(await page.getByTestId('try-result').textContent()).not.toContain('4548812049400004');
    await axe(page, 'routing profile with a decision');

    // edit rule 1: Mastercard now, moved below the EUR rule
    await page.getByTestId('routing-edit').click();
    await page.getByTestId('routing-editor').waitFor();
    await rule(page, 0).getByTestId('rule-name').fill('mastercard-first');
    await rule(page, 0).getByTestId('condition-values').fill('MASTERCARD');
    await rule(page, 0).getByTestId('rule-down').click();
    expect(await rule(page, 1).getByTestId('rule-name').inputValue()).toBe('mastercard-first');
    await page.getByTestId('routing-save').click();
    await expect.poll(() => page.getByTestId('routing-profile').getAttribute('data-version')).toBe('2');
    expect(await page.getByTestId('profile-rules').locator('[data-testid="profile-rule"]').evaluateAll((els) => els.map((e) => e.getAttribute('data-name')))).toEqual(['eur', 'mastercard-first']);
    const stored = (await m.api.get(`/routing-profiles/${uuid}`)).body.routing_profile;
    expect(stored.rules[1]).toMatchObject({ name: 'mastercard-first', conditions: [{ type: 'brand', values: ['MASTERCARD'] }], action: { type: 'service', service_uuid: s2, fallbacks: [s3] } });
    // the same VISA payment now falls to the EUR rule
    await page.getByTestId('try-card').fill('45488120');
    await page.getByTestId('try-submit').click();
    await expect.poll(() => page.getByTestId('try-rule').textContent()).toBe('eur');

    // the health panel: an OPEN circuit stands out (a service of its own: the breaker is the process's)
    const s4 = await service(m, 'acquirer four');
    for (let i = 0; i < 10; i++) d.t.m.routing.record(s4, 'ERROR', 20);
    await page.getByRole('link', { name: 'All profiles' }).click();
    const open = page.locator(`[data-testid="routing-health"] tr[data-service="${s4}"]`);
    await expect.poll(() => open.getAttribute('data-state')).toBe('OPEN');
    expect(await open.getAttribute('class')).toContain('routing-open');
    expect(await page.locator(`[data-testid="routing-health"] tr[data-service="${s2}"]`).getAttribute('data-state')).toBe('CLOSED');
    await axe(page, 'routing list with an open circuit');

    // delete
    await page.locator(`[data-testid="routing-list"] tr[data-uuid="${uuid}"] a`).click();
    await page.getByTestId('routing-delete').click();
    await page.getByTestId('routing-delete-dialog').getByRole('button', { name: 'Yes, do it' }).click();
    await page.getByTestId('routing-list').waitFor();
    await expect.poll(() => page.locator(`[data-testid="routing-list"] tr[data-uuid="${uuid}"]`).count()).toBe(0);
    expect((await m.api.get(`/routing-profiles/${uuid}`)).status).toBe(404);
    expect(errors).toEqual([]);
    await ctx.close();
  }, 240_000);

  it('USER reads and tries but cannot change; VIEWER has no Routing area', async () => {
    const created = await m.api.post('/routing-profiles', { service_uuid: m.service_uuid, name: 'read only', rules: [{ name: 'all', conditions: [], action: { type: 'service', service_uuid: s2 } }] });
    expect(created.status, created.raw).toBe(200);
    const uuid = created.body.routing_profile.uuid as string;
    const { ctx, page, errors } = await d.newPage();
    page.setDefaultTimeout(30_000);
    await d.signIn(page, m, 'USER');
    await page.getByTestId('nav-routing').click();
    await page.locator(`[data-testid="routing-list"] tr[data-uuid="${uuid}"] a`).click();
    await page.getByTestId('routing-profile').waitFor();
    expect(await page.getByTestId('routing-edit').count()).toBe(0);
    expect(await page.getByTestId('routing-delete').count()).toBe(0);
    await page.getByTestId('try-card').fill('45488120');
    await page.getByTestId('try-submit').click();
    await expect.poll(() => page.getByTestId('try-rule').textContent()).toBe('all');
    await page.getByRole('link', { name: 'All profiles' }).click();
    await page.getByTestId('routing-list').waitFor();
    expect(await page.getByTestId('routing-new').count()).toBe(0);
    await page.goto(`${d.base}/dashboard/routing/${uuid}/edit`);
    await page.getByTestId('routing-forbidden').waitFor();
    expect(await page.getByTestId('routing-editor').count()).toBe(0);
    expect(errors).toEqual([]);
    await ctx.close();

    const v = await d.newPage();
    await d.signIn(v.page, m, 'VIEWER');
    expect(await v.page.getByTestId('nav-routing').count()).toBe(0);
    await v.page.goto(`${d.base}/dashboard/routing/${uuid}/edit`);
    await v.page.locator('#main').waitFor();
    expect(await v.page.getByTestId('routing-editor').count()).toBe(0);
    await v.ctx.close();
    expect((await m.api.delete(`/routing-profiles/${uuid}`, {})).status).toBe(200);
  }, 120_000);

  it('the order page of a cascaded payment shows both attempts\' routing', async () => {
    const profile = await m.api.post('/routing-profiles', { service_uuid: m.service_uuid, name: 'two then three', status: 'ACTIVE', max_attempts: 3, rules: [{ name: 'everything', conditions: [{ type: 'amount', min: 1 }], action: { type: 'service', service_uuid: s2, fallbacks: [s3] } }] });
    expect(profile.status, profile.raw).toBe(200);
    const card = await storeCard(d.t, m);
    d.t.m.processors.simulator.injectFault({ operation: 'authorize', kind: 'decline', error: 'DENIED' });
    const order = await createOrder(m, { amount: 2500 });
    const paid = await m.api.post('/payment/direct', { order_uuid: order.uuid, card_uuid: card });
    expect(paid.status, paid.raw).toBe(200);

    const { ctx, page, errors } = await d.newPage();
    page.setDefaultTimeout(30_000);
    await d.signIn(page, m, 'MANAGER');
    await page.goto(`${d.base}/dashboard/payments/${order.uuid}`);
    const attempts = page.getByTestId('tx-routing');
    await expect.poll(() => attempts.count()).toBe(2);
    expect(await attempts.evaluateAll((els) => els.map((e) => [e.getAttribute('data-attempt'), e.getAttribute('data-service')]))).toEqual([['1', s2], ['2', s3]]);
    await expect.poll(() => attempts.nth(0).textContent()).toContain('acquirer two');
    expect(await attempts.nth(0).textContent()).toMatch(/Attempt 1 on acquirer two .*rule everything/);
    expect(await attempts.nth(1).textContent()).toMatch(/Attempt 2 on acquirer three .*rule everything.*fallback 1/);
    await axe(page, 'order with routed attempts');
    expect(errors).toEqual([]);
    await ctx.close();

    // a VIEWER (who may not read routing) sees the services by uuid
    const v = await d.newPage();
    await d.signIn(v.page, m, 'VIEWER');
    await v.page.goto(`${d.base}/dashboard/payments/${order.uuid}`);
    await expect.poll(() => v.page.getByTestId('tx-routing').count()).toBe(2);
    expect(await v.page.getByTestId('tx-routing').nth(1).textContent()).toContain(`Attempt 2 on ${s3}`);
    expect(v.errors).toEqual([]);
    await v.ctx.close();
  }, 180_000);
});
