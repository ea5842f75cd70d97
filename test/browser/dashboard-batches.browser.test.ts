/**
 * Batch files in a real browser: a BATCH user uploads a payments file with a bad line and sees the
 * problem next to its line number (nothing queued); then a good file to be processed tomorrow, which
 * shows as scheduled. The merchant's test clock moves past execute_at and the jobs run: the file's page
 * reaches COMPLETED by itself (it polls), and the results CSV it downloads has the lines the API reports.
 * A VIEWER has no batch files menu. axe-core on the list and the file's page; screenshots.
 */
import fs from 'node:fs';
import { parse } from 'csv-parse/sync';
import { afterAll, beforeAll, describe, expect, it as vitestIt } from 'vitest';
import { axe, chromiumOrNull, shot, startDashboardBrowser, type DashboardBrowser } from '../helpers/dashboard-browser.js';
import type { TestMerchant } from '../helpers/app.js';
import { TEST_CARDS, advance, merchantDay, storeCard } from '../helpers/payments.js';

const CHROMIUM = await chromiumOrNull(import.meta.url);
const it = vitestIt.skipIf(!CHROMIUM);

let d: DashboardBrowser;
let m: TestMerchant;

beforeAll(async () => {
  if (!CHROMIUM) return;
  d = await startDashboardBrowser(CHROMIUM);
  m = await d.t.merchant({ name: 'Batch Browser Shop', isPci: true });
}, 120_000);
afterAll(async () => d?.close());

const csv = (text: string) => ({ name: 'fees.csv', mimeType: 'text/csv', buffer: Buffer.from(text, 'utf8') });

describe('batch files', () => {
  it('BATCH: a bad line is shown by its number; a scheduled file runs on the test clock, its page follows it, the results download', async () => {
    const ok = await storeCard(d.t, m, TEST_CARDS.APPROVED, 'batch-ok');
    const refused = await storeCard(d.t, m, TEST_CARDS.REFUSED, 'batch-ko');
    const { ctx, page, errors } = await d.newPage();
    page.setDefaultTimeout(30_000); // the first sign-in hashes passwords: slow on a busy machine
    await d.signIn(page, m, 'BATCH');
    await page.getByTestId('nav-batches').click();
    await page.getByRole('heading', { name: 'Upload a file' }).waitFor();
    await axe(page, 'batch files list');

    // a file with a bad amount on line 3: refused whole, the problem by its line
    await page.getByTestId('batch-file').setInputFiles(csv(`AMOUNT,CARD,SERVICE\n1500,${ok},${m.service_uuid}\nabc,${ok},${m.service_uuid}\n`));
    await page.getByRole('button', { name: 'Upload', exact: true }).click();
    const problem = page.getByTestId('batch-problems').locator('tr[data-line="3"]');
    await problem.waitFor();
    expect(await problem.locator('td').nth(1).textContent()).toMatch(/amount/i);
    expect(await page.getByTestId('batch-problems').locator('tbody tr').count()).toBe(1);
    await axe(page, 'batch file refused');
    expect((await d.t.p.database.db.selectFrom('batch_files').select('id').where('merchant_id', '=', m.client_uuid).execute()).length).toBe(0);

    // a good file for tomorrow 09:30 (merchant's timezone)
    const tomorrow = await merchantDay(m, 1);
    await page.getByTestId('batch-file').setInputFiles(csv(`AMOUNT,CARD,SERVICE,CUSTOMER_EXTERNAL_ID\n1500,${ok},${m.service_uuid},batch-ok\n2500,${refused},${m.service_uuid},batch-ko\n700,${ok},${m.service_uuid},batch-ok\n`));
    await page.getByTestId('batch-execute-at').fill(`${tomorrow}T09:30`);
    await page.getByRole('button', { name: 'Upload', exact: true }).click();
    await page.getByRole('heading', { name: 'fees.csv' }).waitFor();
    const uuid = page.url().split('/').pop()!;
    expect(uuid).toMatch(/^[0-9a-f-]{36}$/);
    await expect.poll(() => page.locator('.batch-progress .badge').textContent()).toBe('SCHEDULED');
    expect(await page.getByTestId('batch-percent').textContent()).toBe('0%');
    const api0 = await m.api.get(`/batch/${uuid}?limit=0`);
    expect(api0.body.batch).toMatchObject({ status: 'SCHEDULED', total: 3 });
    expect(new Date(api0.body.batch.execute_at).getTime()).toBeGreaterThan(Date.now());
    await axe(page, 'batch file page');
    await shot(page, d.shots, 'dashboard-batch.png');

    // nothing runs before execute_at; after it (test clock two days on) every line runs
    await d.t.m.batch.drain();
    expect((await m.api.get(`/batch/${uuid}?limit=0`)).body.batch.status).toBe('SCHEDULED');
    await advance(m, 2 * 86400);
    await d.t.m.batch.drain();
    // the page follows by itself (no reload)
    await expect.poll(() => page.locator('.batch-progress .badge').textContent(), { timeout: 15_000 }).toBe('COMPLETED');
    expect(await page.getByTestId('batch-percent').textContent()).toBe('100%');
    expect(await page.getByTestId('batch-succeeded').textContent()).toBe('2');
    expect(await page.getByTestId('batch-failed').textContent()).toBe('1');
    expect(await page.getByTestId('batch-lines').locator('tbody tr').count()).toBe(3);
    expect(await page.getByTestId('batch-lines').locator('tr[data-line="3"] .badge').textContent()).toBe('FAILED');

    // the results CSV: one row per line, as the API reports them
    const [dl] = await Promise.all([page.waitForEvent('download'), page.getByTestId('batch-download').click()]);
    const records = parse(fs.readFileSync((await dl.path())!, 'utf8'), { columns: true }) as Array<Record<string, string>>;
    const api = await m.api.get(`/batch/${uuid}`);
    expect(records).toEqual(api.body.lines.map((l: any) => ({ LINE: String(l.line), STATUS: l.status, ORDER_UUID: l.order_uuid, AMOUNT: String(l.amount), OUTCOME: l.outcome, ERROR: l.error ?? '' })));
    expect(records.map((r) => r.STATUS)).toEqual(['SUCCEEDED', 'FAILED', 'SUCCEEDED']);

    // the list shows it completed
    await page.getByRole('link', { name: '← Batch files' }).click();
    const row = page.locator(`[data-testid="batches"] tr[data-uuid="${uuid}"]`);
    await expect.poll(() => row.locator('.badge').textContent()).toBe('COMPLETED');

    // the phone layout
    await page.setViewportSize({ width: 375, height: 800 });
    await axe(page, 'batch files list (375 px)');
    await shot(page, d.shots, 'dashboard-batch-phone.png');
    expect(errors).toEqual([]);
    await ctx.close();
  }, 90_000);

  it('VIEWER: no batch files in the menu', async () => {
    const { ctx, page } = await d.newPage();
    page.setDefaultTimeout(30_000); // the first sign-in hashes passwords: slow on a busy machine
    await d.signIn(page, m, 'VIEWER');
    await page.getByTestId('nav-payments').or(page.getByTestId('nav-overview')).first().waitFor();
    expect(await page.getByTestId('nav-batches').count()).toBe(0);
    await ctx.close();
  }, 60_000);
});
