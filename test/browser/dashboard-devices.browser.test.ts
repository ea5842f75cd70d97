/**
 * The devices area in a real browser: a MANAGER registers a payment terminal (its token shown once), a
 * terminal connects to the gateway with that token over the device socket (the reference device, as a
 * real one does) and shows online; a MANUAL PAYMENT user sends it a payment from the device's page and
 * the page follows it by itself as the terminal works (on the device, then approved once the terminal
 * reports the card), then refunds it on the device; a VIEWER sees the device and what it did but no send,
 * refund or management action (in Spanish), and the card-present operation the terminal made itself with its STAN
 * and RRN. axe-core on every page, 1280 px and 375 px.
 */
import { afterAll, beforeAll, describe, expect, it as vitestIt } from 'vitest';
import type { Page } from 'playwright-core';
import { ReferenceDevice } from '../../scripts/reference-device.js';
import { axe, chromiumOrNull, shot, startDashboardBrowser, type DashboardBrowser } from '../helpers/dashboard-browser.js';
import type { TestMerchant } from '../helpers/app.js';
import { TEST_CARDS } from '../helpers/payments.js';

const CHROMIUM = await chromiumOrNull(import.meta.url);
const it = vitestIt.skipIf(!CHROMIUM);

let d: DashboardBrowser;
let m: TestMerchant;
let terminal: ReferenceDevice | null = null;

beforeAll(async () => {
  if (!CHROMIUM) return;
  d = await startDashboardBrowser(CHROMIUM);
  m = await d.t.merchant({ name: 'Corner Café' });
}, 120_000);
afterAll(async () => {
  await terminal?.close();
  await d?.close();
});

const IDENTIFIER = 'PAX-A920-0001';
const followState = (page: Page) => page.getByTestId('follow-state').getAttribute('data-state');
const orderStatus = (page: Page) => page.getByTestId('follow-state').getAttribute('data-order-status');

async function openDevice(page: Page) {
  await page.getByTestId('nav-devices').click();
  await page.getByRole('link', { name: IDENTIFIER }).click();
  await page.getByRole('heading', { level: 1, name: IDENTIFIER }).waitFor();
}

describe('devices', () => {
  it('a device payment followed to its end: registered, connected, sent from the page, approved on the terminal, refunded; a VIEWER only looks', async () => {
    // ---- a MANAGER registers the terminal; the token is shown once
    const manager = await d.newPage();
    await d.signIn(manager.page, m, 'MANAGER');
    let page = manager.page;
    await page.getByTestId('nav-devices').click();
    await page.getByRole('heading', { level: 1, name: 'Devices' }).waitFor();
    const form = page.getByTestId('register-device');
    await form.getByLabel('Identifier').fill(IDENTIFIER);
    await form.getByLabel('Name').fill('Front counter');
    await form.getByLabel('Model').fill('A920');
    await form.getByRole('button', { name: 'Register' }).click();
    const token = (await page.getByTestId('device-token-value').textContent())!.trim();
    expect(token).toMatch(/^pgd_/);
    const row = page.locator('tr', { hasText: IDENTIFIER });
    await expect.poll(() => row.getByTestId('connection').getAttribute('data-status')).toBe('OFFLINE');
    await axe(page, 'devices: list and register (MANAGER)');

    // ---- the terminal connects with it (the device socket, as a real terminal does) and shows online by itself
    terminal = new ReferenceDevice(`${d.base.replace(/^http/, 'ws')}/v1/sandbox/device/socket`, token);
    const hello = await terminal.connect();
    expect(hello.device.identifier).toBe(IDENTIFIER);
    await terminal.status({ battery_level: 87, connection_type: 'WIFI', connection_quality: 'GOOD', charging: false, build_version: 'ref-1' });
    await expect.poll(() => row.getByTestId('connection').getAttribute('data-status'), { timeout: 15_000 }).toBe('ONLINE');
    await expect.poll(() => row.textContent()).toContain('87%');
    // the list's filters are the API's (J1): a disabled-only list does not hold it
    const filters = page.getByTestId('device-filters');
    await filters.getByLabel('Status').selectOption('false');
    await filters.getByRole('button', { name: 'Apply' }).click();
    await page.getByText('No device matches these filters.').waitFor();
    await filters.getByLabel('Status').selectOption('true');
    await filters.getByRole('button', { name: 'Apply' }).click();
    await row.waitFor();
    await page.getByRole('button', { name: 'I have saved it' }).click();
    await expect.poll(() => page.getByTestId('device-token').count()).toBe(0);
    await manager.ctx.close();

    // ---- a MANUAL PAYMENT user sends a payment to it from the device's page
    const cashier = await d.newPage();
    await d.signIn(cashier.page, m, 'MANUAL PAYMENT');
    page = cashier.page;
    await page.getByTestId('nav-devices').click();
    await page.getByRole('link', { name: IDENTIFIER }).waitFor();
    expect(await page.getByTestId('register-device').count()).toBe(0);
    await openDevice(page);
    expect(await page.getByRole('button', { name: 'Disable' }).count()).toBe(0);
    const send = page.getByTestId('send-to-device');
    await send.getByLabel(/^Amount/).fill('12.34');
    await send.getByLabel('Description').fill('Coffee and cake');
    await send.getByRole('button', { name: 'Send', exact: true }).click();

    // the terminal gets it; the page shows it on the device, waiting for the card
    const { operation } = await terminal.nextOperation();
    expect(operation).toMatchObject({ kind: 'PAYMENT', amount: 1234, currency: 'EUR', description: 'Coffee and cake' });
    await expect.poll(() => followState(page)).toBe('SENT');
    await expect.poll(() => orderStatus(page)).toBe('PENDING_PROCESSOR_RESPONSE');
    const orderUuid = new URL(page.url()).searchParams.get('follow')!;
    expect(orderUuid).toBe(operation.order_uuid);
    await axe(page, 'devices: an operation followed on the device page');

    // the customer taps the card: the page follows to the end by itself (no click, no reload)
    const result = await terminal.card(operation.uuid, { track2: `${TEST_CARDS.APPROVED}=4912201000000000` }, { method: 'ICC', pin: { block: '041234FFFFFFFFFF', format: 0 } });
    expect(result.operation.status).toBe('APPROVED');
    await expect.poll(() => followState(page), { timeout: 15_000 }).toBe('APPROVED');
    await expect.poll(() => orderStatus(page)).toBe('SUCCESS');
    await expect.poll(() => page.getByTestId('follow').locator('.live').count()).toBe(0);
    const opRow = page.getByTestId('device-operations').locator(`tr[data-order="${orderUuid}"]`);
    await expect.poll(() => opRow.textContent(), { timeout: 15_000 }).toContain(`•••• ${TEST_CARDS.APPROVED.slice(-4)}`);
    expect(await opRow.textContent()).toContain('APPROVED');
    expect(await page.content()).not.toContain(TEST_CARDS.APPROVED);
    await shot(page, d.shots, 'dashboard-devices.png');

    // refund on the device from the page
    await page.getByRole('button', { name: 'Refund on the device' }).click();
    await page.getByTestId('device-refund').getByRole('button', { name: 'Yes, do it' }).click();
    await expect.poll(() => orderStatus(page), { timeout: 15_000 }).toBe('REFUNDED');
    expect((await m.api.get(`/order/${orderUuid}`)).body.order.status).toBe('REFUNDED');
    expect(await page.getByRole('button', { name: 'Refund on the device' }).count()).toBe(0);

    // the same page on a phone
    await page.setViewportSize({ width: 375, height: 812 });
    expect(Number(await page.evaluate('document.documentElement.scrollWidth - document.documentElement.clientWidth'))).toBeLessThanOrEqual(0);
    await axe(page, 'devices: the device page at 375 px');
    await shot(page, d.shots, 'dashboard-devices-phone.png');
    expect(cashier.errors).toEqual([]);
    await cashier.ctx.close();

    // the terminal also takes a card itself (card-present, with its STAN): the device's page lists it with the RRN the gateway gave
    const k1 = await fetch(`${d.base}/v1/sandbox/card-present/payment`, {
      method: 'POST',
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
      body: JSON.stringify({
        card: { track2: `${TEST_CARDS.APPROVED}=4912201000000000` }, amount: 500, currency: 'EUR', mid: hello.device.mid, stan: '000777', card_reading_method: 'NFC',
        pin: { block: null, format: null }, device: { serial_number: IDENTIFIER, model: 'A920' }, sca: null,
      }),
    });
    const present = (await k1.json()) as { order: { uuid: string }; pos: { rrn: string } };
    expect(k1.status, JSON.stringify(present)).toBe(200);

    // ---- a VIEWER (in Spanish) sees the device and what it did, and no action
    const viewer = await d.newPage();
    await d.signIn(viewer.page, m, 'VIEWER', { language: 'ES' });
    page = viewer.page;
    await openDevice(page);
    await page.getByRole('heading', { level: 2, name: 'Operaciones' }).waitFor();
    expect(await page.getByTestId('connection').first().getAttribute('data-status')).toBe('ONLINE');
    const seen = page.getByTestId('device-operations').locator(`tr[data-order="${orderUuid}"]`);
    await expect.poll(() => seen.textContent()).toContain('APPROVED');
    const cp = page.getByTestId('device-operations').locator(`tr[data-order="${present.order.uuid}"]`);
    await expect.poll(() => cp.textContent()).toContain('000777');
    expect(await cp.textContent()).toContain(present.pos.rrn);
    expect(await page.getByTestId('send-to-device').count()).toBe(0);
    expect(await page.getByRole('button', { name: /Desactivar|Nuevo token/ }).count()).toBe(0);
    await seen.getByRole('button', { name: /^Seguir/ }).click();
    await expect.poll(() => orderStatus(page)).toBe('REFUNDED');
    await expect.poll(() => page.getByTestId('follow').textContent()).toContain('Aprobada');
    expect(await page.getByRole('button', { name: /Devolver en el dispositivo|Cancelar en el dispositivo|Capturar/ }).count()).toBe(0);
    await axe(page, 'devices: the device page (VIEWER, ES)');
    expect(viewer.errors).toEqual([]);
    expect(manager.errors).toEqual([]);
    await viewer.ctx.close();
  }, 180_000);
});
