/**
 * Reconciliation and Payouts in a real browser. A USER fetches the sandbox's settlement report of the day
 * (with a mismatch of three kinds injected in the simulator) from the Reconciliation page: the exceptions
 * are listed first, each with its kind, paygate's transaction and the report's line; filtered by kind;
 * exported as CSV equal to the API's. A settlement file with a bad line is refused, the problem shown by
 * its line. On Payouts the expected payout shows EXPECTED; a camt.053 statement with its credit makes it
 * RECEIVED on the page. A VIEWER sees both areas without the imports; a BATCH user sees neither. axe-core
 * on each page; screenshots.
 */
import fs from 'node:fs';
import { parse } from 'csv-parse/sync';
import { afterAll, beforeAll, describe, expect, it as vitestIt } from 'vitest';
import { axe, chromiumOrNull, shot, startDashboardBrowser, type DashboardBrowser } from '../helpers/dashboard-browser.js';
import type { TestMerchant } from '../helpers/app.js';
import { paidOrder } from '../helpers/payments.js';

const CHROMIUM = await chromiumOrNull(import.meta.url);
const it = vitestIt.skipIf(!CHROMIUM);

let d: DashboardBrowser;
let m: TestMerchant;

beforeAll(async () => {
  if (!CHROMIUM) return;
  d = await startDashboardBrowser(CHROMIUM);
  m = await d.t.merchant({ name: 'Recon Browser Shop', isPci: true });
}, 120_000);
afterAll(async () => d?.close());

const today = () => new Date().toISOString().slice(0, 10);
const money = (v: number) => `${Math.floor(v / 100)}.${String(v % 100).padStart(2, '0')}`;

describe('reconciliation and payouts', () => {
  it('USER: the day fetched from the connector, exceptions first with their transactions, filtered and exported; a bad file by its line; a payout received from a camt.053 statement', async () => {
    const paid = [];
    for (const amount of [1500, 2600, 3700, 4800]) paid.push(await paidOrder(d.t, m, { amount }));
    const tx = paid.map((o) => o.transactions[0].uuid as string);
    const sim = d.t.m.processors.simulator;
    sim.injectSettlementMismatch({ kind: 'AMOUNT_DIFFERS', reference: tx[1] });
    sim.injectSettlementMismatch({ kind: 'ONLY_AT_PAYGATE', reference: tx[2] });
    sim.injectSettlementMismatch({ kind: 'DUPLICATE', reference: tx[3] });

    const { ctx, page, errors } = await d.newPage();
    page.setDefaultTimeout(30_000); // the first sign-in hashes passwords: slow on a busy machine
    await d.signIn(page, m, 'USER');
    await page.getByTestId('nav-reconciliation').click();
    await page.getByRole('heading', { name: 'Import settlement data' }).waitFor();
    expect(await page.getByTestId('recon-items').locator('tbody tr').count()).toBe(0);
    await axe(page, 'reconciliation, empty');

    // the sandbox's report of today, from the service's connector
    await page.getByTestId('recon-fetch-date').fill(today());
    await page.getByTestId('recon-fetch').click();
    await expect.poll(() => page.getByTestId('recon-done').textContent()).toBe('Imported: 4 lines, 3 exceptions.');
    const rows = page.getByTestId('recon-items').locator('tbody tr');
    await expect.poll(() => rows.count()).toBe(3);
    const row = (uuid: string) => page.locator(`[data-testid="recon-items"] tr[data-transaction="${uuid}"]`);
    expect(await row(tx[1]).getAttribute('data-kind')).toBe('AMOUNT_DIFFERS');
    expect(await row(tx[1]).textContent()).toContain('the acquirer settled 2599 EUR; paygate recorded 2600 EUR');
    expect(await row(tx[2]).getAttribute('data-kind')).toBe('ONLY_AT_PAYGATE');
    expect(await row(tx[3]).getAttribute('data-kind')).toBe('DUPLICATE');
    // the transaction opens its order
    expect(await row(tx[1]).locator('a').getAttribute('href')).toBe(`/dashboard/payments/${paid[1].uuid}`);
    expect(await page.getByTestId('recon-exceptions').textContent()).toBe('3');
    expect(await page.getByTestId('recon-count-MATCHED').textContent()).toBe('2');
    await axe(page, 'reconciliation with exceptions');
    await shot(page, d.shots, 'dashboard-reconciliation.png');

    // by kind, and the export is the API's
    await page.getByTestId('recon-kind-filter').selectOption('DUPLICATE');
    await expect.poll(() => rows.count()).toBe(1);
    await page.getByTestId('recon-kind-filter').selectOption('');
    await expect.poll(() => rows.count()).toBe(3);
    const [dl] = await Promise.all([page.waitForEvent('download'), page.getByTestId('recon-export').click()]);
    const records = parse(fs.readFileSync((await dl.path())!, 'utf8'), { columns: true }) as Array<Record<string, string>>;
    const api = await m.api.get('/reconciliation/items');
    expect(records.map((r) => [r.KIND, r.TRANSACTION_UUID])).toEqual(api.body.items.map((i: any) => [i.kind, i.transaction.uuid]));

    // a settlement file with a bad line: refused whole, the problem next to its line
    await page.getByTestId('recon-acquirer').fill('CHECKOUT');
    await page.getByTestId('recon-file').setInputFiles({ name: 'checkout.csv', mimeType: 'text/csv', buffer: Buffer.from(`TYPE,REFERENCE,AMOUNT,CURRENCY,TRANSACTION_DATE,SETTLEMENT_DATE,BATCH\nPAYMENT,${tx[0]},1500,EUR,${today()},${today()},CKO-1\nPAYMENT,${tx[1]},12.50,EUR,${today()},${today()},CKO-1\n`) });
    await page.getByTestId('recon-upload').click();
    const problem = page.getByTestId('recon-problems').locator('tr[data-line="3"]');
    await problem.waitFor();
    expect(await problem.locator('td').nth(1).textContent()).toBe('AMOUNT must be a whole number of minor units from 1 to 999999999999');
    await axe(page, 'reconciliation, a file refused');
    expect((await m.api.get('/reconciliation/settlements')).body.reports).toHaveLength(1);

    // payouts: expected, then received once the statement with its credit is imported
    await page.getByTestId('nav-payouts').click();
    const payout = page.getByTestId('payouts').locator('tbody tr').first();
    await expect.poll(() => payout.getAttribute('data-status')).toBe('EXPECTED');
    const p = (await m.api.get('/reconciliation/payouts')).body.payouts[0];
    await axe(page, 'payouts, expected');
    const xml = `<?xml version="1.0" encoding="UTF-8"?>
<Document xmlns="urn:iso:std:iso:20022:tech:xsd:camt.053.001.02"><BkToCstmrStmt><GrpHdr><MsgId>B1</MsgId><CreDtTm>${p.settlement_date}T18:00:00Z</CreDtTm></GrpHdr>
<Stmt><Id>B1</Id><Acct><Id><IBAN>ES9121000418450200051332</IBAN></Id><Ccy>EUR</Ccy></Acct>
<Bal><Tp><CdOrPrtry><Cd>OPBD</Cd></CdOrPrtry></Tp><Amt Ccy="EUR">0.00</Amt><CdtDbtInd>CRDT</CdtDbtInd><Dt><Dt>${p.settlement_date}</Dt></Dt></Bal>
<Bal><Tp><CdOrPrtry><Cd>CLBD</Cd></CdOrPrtry></Tp><Amt Ccy="EUR">${money(p.expected)}</Amt><CdtDbtInd>CRDT</CdtDbtInd><Dt><Dt>${p.settlement_date}</Dt></Dt></Bal>
<Ntry><Amt Ccy="EUR">${money(p.expected)}</Amt><CdtDbtInd>CRDT</CdtDbtInd><Sts>BOOK</Sts><BookgDt><Dt>${p.settlement_date}</Dt></BookgDt>
<NtryDtls><TxDtls><RmtInf><Ustrd>SETTLEMENT ${p.batch}</Ustrd></RmtInf></TxDtls></NtryDtls></Ntry></Stmt></BkToCstmrStmt></Document>`;
    await page.getByTestId('payouts-file').setInputFiles({ name: 'bank.xml', mimeType: 'application/xml', buffer: Buffer.from(xml) });
    await page.getByTestId('payouts-upload').click();
    await expect.poll(() => page.getByTestId('payouts-done').textContent()).toBe('Imported: 1 payouts found in it.');
    await expect.poll(() => payout.getAttribute('data-status')).toBe('RECEIVED');
    expect(await page.getByTestId('statements').locator('tbody tr').count()).toBe(1);
    await axe(page, 'payouts, received');
    await shot(page, d.shots, 'dashboard-payouts.png');

    await page.setViewportSize({ width: 375, height: 800 });
    await axe(page, 'payouts (375 px)');
    expect(errors).toEqual([]);
    await ctx.close();
  }, 120_000);

  it('VIEWER reads both areas without the imports; BATCH sees neither', async () => {
    const viewer = await d.newPage();
    viewer.page.setDefaultTimeout(30_000);
    await d.signIn(viewer.page, m, 'VIEWER');
    await viewer.page.getByTestId('nav-reconciliation').click();
    await viewer.page.getByTestId('recon-items').waitFor();
    expect(await viewer.page.getByRole('heading', { name: 'Import settlement data' }).count()).toBe(0);
    await viewer.page.getByTestId('nav-payouts').click();
    await viewer.page.getByTestId('payouts').waitFor();
    expect(await viewer.page.getByTestId('payouts-upload').count()).toBe(0);
    await viewer.ctx.close();
    const batch = await d.newPage();
    batch.page.setDefaultTimeout(30_000);
    await d.signIn(batch.page, m, 'BATCH');
    await batch.page.getByTestId('nav-batches').waitFor();
    expect(await batch.page.getByTestId('nav-reconciliation').count()).toBe(0);
    expect(await batch.page.getByTestId('nav-payouts').count()).toBe(0);
    await batch.ctx.close();
  }, 60_000);
});
