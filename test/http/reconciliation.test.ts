/**
 * Reconciliation end to end in the sandbox: the simulator's settlement report of a day, consistent with
 * its own operations (the sandbox fee model), with a mismatch of every kind injected, is fetched through
 * the service's connector and matched; each mismatch is found and named on the transaction it was put
 * on, everything else MATCHED. The same through the CSV layout uploaded as a file; payouts against
 * camt.053 and Norma 43 statements (RECEIVED, DIFFERENT, MISSING); refused files (400/422 naming the
 * line, nothing kept); another merchant sees nothing.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sql } from 'kysely';
import { parse } from 'csv-parse/sync';
import { createTestApp, type TestApp, type TestMerchant } from '../helpers/app.js';
import { createOrder, paidOrder, storeCard, TEST_CARDS } from '../helpers/payments.js';
import { sandboxFees } from '../../src/processors/index.js';

let t: TestApp;
let a: TestMerchant;
let b: TestMerchant;

beforeAll(async () => {
  t = await createTestApp();
  a = await t.merchant({ name: 'Recon Shop' });
  b = await t.merchant({ name: 'Other Shop' });
});
afterAll(async () => t?.close());

const b64 = (s: string) => Buffer.from(s, 'utf8').toString('base64');
const today = () => new Date().toISOString().slice(0, 10);
const addDays = (d: string, n: number) => new Date(Date.parse(`${d}T00:00:00Z`) + n * 86400_000).toISOString().slice(0, 10);

async function count(table: string): Promise<number> {
  const { rows } = await sql<{ n: number }>`select count(*)::int as n from ${sql.table(table)}`.execute(t.p.database.db);
  return Number(rows[0].n);
}

async function allItems(m: TestMerchant, query: Record<string, string> = {}) {
  const out: any[] = [];
  let cursor: string | null = null;
  do {
    const r = await m.api.get('/reconciliation/items', { ...query, limit: '3', ...(cursor ? { cursor } : {}) });
    expect(r.status, r.raw).toBe(200);
    out.push(...r.body.items);
    cursor = r.body.next_cursor;
  } while (cursor);
  return out;
}

/** A paid order: its payment transaction. */
async function payment(m: TestMerchant, amount: number) {
  const o = await paidOrder(t, m, { amount });
  expect(o.status).toBe('SUCCESS');
  return { order: o.uuid as string, tx: o.transactions[0].uuid as string, processorId: o.transactions[0].processor_id as string, amount };
}

describe('a sandbox day reconciled: every kind of mismatch found and named', () => {
  let pays: Array<Awaited<ReturnType<typeof payment>>>;
  let refundTx: string;
  let pendingTx: string;
  let reportId: string;

  it('the simulator settles what it did, with the injected mismatches; each is named on its transaction', async () => {
    pays = [];
    for (const amount of [1000, 1250, 1499, 2000, 2500, 3333]) pays.push(await payment(a, amount));
    const refund = await a.api.post('/payment/refund', { order_uuid: pays[0].order, amount: 400 });
    expect(refund.status, refund.raw).toBe(200);
    refundTx = refund.body.order.transactions.find((x: any) => x.operative === 'REFUND').uuid;
    // a payment the acquirer made whose answer paygate never got: PENDING at paygate, settled at the acquirer
    const o = await createOrder(a, { amount: 777 });
    const card = await storeCard(t, a, TEST_CARDS.APPROVED, 'cust-pending');
    t.m.processors.simulator.injectFault({ operation: 'authorize', kind: 'timeout' });
    const lost = await a.api.post('/payment/direct', { order_uuid: o.uuid, card_uuid: card });
    expect(lost.status, lost.raw).toBeLessThan(500);
    pendingTx = (await t.p.database.db.selectFrom('transactions').select(['id', 'status']).where('order_id', '=', o.uuid).executeTakeFirstOrThrow()).id;

    const sim = t.m.processors.simulator;
    sim.injectSettlementMismatch({ kind: 'AMOUNT_DIFFERS', reference: pays[1].tx });
    sim.injectSettlementMismatch({ kind: 'ONLY_AT_PAYGATE', reference: pays[2].tx });
    sim.injectSettlementMismatch({ kind: 'SETTLED_LATE', reference: pays[3].tx });
    sim.injectSettlementMismatch({ kind: 'DUPLICATE', reference: pays[4].tx });
    sim.injectSettlementMismatch({ kind: 'ONLY_AT_ACQUIRER' });
    const r = await a.api.post('/reconciliation/settlements/fetch', { service: a.service_uuid, date: today(), settlement_days: 1 });
    expect(r.status, r.raw).toBe(200);
    reportId = r.body.report.uuid;
    // 6 payments + 1 refund + the pending one, less the one left out, plus a duplicate and an unknown one
    expect(r.body.report).toMatchObject({ acquirer: 'SANDBOX', source: 'CONNECTOR', service: a.service_uuid, period_from: today(), period_to: today(), lines: 9, settlement_days: 1 });
    expect(r.body.report.counts).toEqual({ MATCHED: 4, AMOUNT_DIFFERS: 1, ONLY_AT_ACQUIRER: 2, ONLY_AT_PAYGATE: 1, SETTLED_LATE: 1, DUPLICATE: 1 });
    expect(r.body.report.exceptions).toBe(6);

    const items = await allItems(a);
    expect(items).toHaveLength(6);
    const byTx = (tx: string) => items.filter((i) => i.transaction?.uuid === tx);
    expect(byTx(pays[1].tx)).toMatchObject([{ kind: 'AMOUNT_DIFFERS', line: { amount: 1249 }, transaction: { amount: 1250, status: 'SUCCESS' } }]);
    expect(byTx(pays[1].tx)[0].detail).toBe('the acquirer settled 1249 EUR; paygate recorded 1250 EUR');
    expect(byTx(pays[2].tx)).toMatchObject([{ kind: 'ONLY_AT_PAYGATE', line: null, report: { uuid: reportId, line: null }, transaction: { amount: 1499, order_uuid: pays[2].order } }]);
    expect(byTx(pays[3].tx)).toMatchObject([{ kind: 'SETTLED_LATE', line: { settlement_date: addDays(today(), 5) } }]);
    expect(byTx(pays[4].tx)).toMatchObject([{ kind: 'DUPLICATE' }]);
    expect(byTx(pendingTx)).toMatchObject([{ kind: 'ONLY_AT_ACQUIRER', transaction: { status: 'PENDING', amount: 777 } }]);
    expect(byTx(pendingTx)[0].detail).toMatch(/PENDING, not successful/);
    const unknown = items.filter((i) => i.kind === 'ONLY_AT_ACQUIRER' && i.transaction === null);
    expect(unknown).toHaveLength(1);
    expect(unknown[0].line).toMatchObject({ amount: 1234, currency: 'EUR' });
    // newest first, every page read by keyset gives the whole list once
    expect(items.map((i) => Number(i.id))).toEqual([...items.map((i) => Number(i.id))].sort((x, y) => y - x));

    // the report's lines in file order with the matches: the refund, the untouched payments and the first of the duplicated MATCHED
    const detail = await a.api.get(`/reconciliation/settlements/${reportId}`, { limit: '100' });
    expect(detail.status, detail.raw).toBe(200);
    expect(detail.body.lines).toHaveLength(9);
    const matched = detail.body.lines.filter((l: any) => l.kind === 'MATCHED').map((l: any) => l.transaction.uuid).sort();
    expect(matched).toEqual([pays[0].tx, pays[4].tx, pays[5].tx, refundTx].sort());
    // fees by the sandbox fee model, per line
    const first = detail.body.lines.find((l: any) => l.transaction?.uuid === pays[5].tx);
    expect(first.line.fees).toEqual(sandboxFees('PAYMENT', 3333));
    expect(first.line.net).toBe(3333 - 10 - 2 - 5);
    const refundLine = detail.body.lines.find((l: any) => l.transaction?.uuid === refundTx);
    expect(refundLine).toMatchObject({ kind: 'MATCHED', type: 'REFUND', line: { amount: 400, net: -405, fees: { interchange: 0, scheme: 0, processing: 5 } } });
  });

  it('the payouts sum their lines: gross, fees per kind and net per batch and day', async () => {
    const r = await a.api.get('/reconciliation/payouts');
    expect(r.status, r.raw).toBe(200);
    expect(r.body.payouts).toHaveLength(2);
    const detail = await a.api.get(`/reconciliation/settlements/${reportId}`, { limit: '100' });
    for (const p of r.body.payouts) {
      const lines = detail.body.lines.filter((l: any) => l.line?.batch === p.batch).map((l: any) => l.line);
      expect(p).toMatchObject({ status: 'EXPECTED', currency: 'EUR', acquirer: 'SANDBOX', lines: lines.length, received: null, difference: null });
      expect(p.expected).toBe(lines.reduce((s: number, l: any) => s + l.net, 0));
      expect(p.fees.interchange).toBe(lines.reduce((s: number, l: any) => s + l.fees.interchange, 0));
      expect(p.fees.total).toBe(p.fees.interchange + p.fees.scheme + p.fees.processing);
      expect(p.gross - p.fees.total).toBe(p.expected);
    }
    const late = r.body.payouts.find((p: any) => p.batch.endsWith('-LATE'));
    expect(late).toMatchObject({ settlement_date: addDays(today(), 5), lines: 1 });
  });

  it('a later report that settles the missing transaction clears ONLY_AT_PAYGATE (settled late)', async () => {
    const line = `PAYMENT,${pays[2].processorId},${pays[2].tx},1499,EUR,${today()},${addDays(today(), 4)},LATE-BATCH-1,4,1,5,1489`;
    const r = await a.api.post('/reconciliation/settlements', {
      data: b64(`TYPE,PROCESSOR_ID,REFERENCE,AMOUNT,CURRENCY,TRANSACTION_DATE,SETTLEMENT_DATE,BATCH,FEE_INTERCHANGE,FEE_SCHEME,FEE_PROCESSING,NET\n${line}\n`),
      filename: 'late.csv', acquirer: 'sandbox', settlement_days: 1,
    });
    expect(r.status, r.raw).toBe(200);
    expect(r.body.report.counts).toEqual({ MATCHED: 0, AMOUNT_DIFFERS: 0, ONLY_AT_ACQUIRER: 0, ONLY_AT_PAYGATE: 0, SETTLED_LATE: 1, DUPLICATE: 0 });
    const items = await allItems(a);
    expect(items.filter((i) => i.kind === 'ONLY_AT_PAYGATE')).toEqual([]);
    expect(items.filter((i) => i.transaction?.uuid === pays[2].tx)).toMatchObject([{ kind: 'SETTLED_LATE' }]);
    const s = await a.api.get('/reconciliation/summary');
    expect(s.body).toMatchObject({ kinds: { MATCHED: 4, AMOUNT_DIFFERS: 1, ONLY_AT_ACQUIRER: 2, ONLY_AT_PAYGATE: 0, SETTLED_LATE: 2, DUPLICATE: 1 }, exceptions: 6 });
  });

  it('exports the exceptions and filters them by kind; another merchant sees none of it', async () => {
    const csv = await t.app.inject({ method: 'GET', url: '/v1/sandbox/reconciliation/items.csv?kind=DUPLICATE&kind=AMOUNT_DIFFERS', headers: { authorization: `Bearer ${a.api_key}` } });
    expect(csv.statusCode).toBe(200);
    expect(csv.headers['content-type']).toMatch(/text\/csv/);
    const rows = parse(csv.body, { columns: true }) as Array<Record<string, string>>;
    expect(rows.map((x) => x.KIND).sort()).toEqual(['AMOUNT_DIFFERS', 'DUPLICATE']);
    expect(rows.find((x) => x.KIND === 'AMOUNT_DIFFERS')).toMatchObject({ TRANSACTION_UUID: pays[1].tx, AMOUNT: '1249', PAYGATE_AMOUNT: '1250' });
    const dup = await a.api.get('/reconciliation/items', { kind: 'DUPLICATE' });
    expect(dup.body.items.map((i: any) => i.kind)).toEqual(['DUPLICATE']);
    expect((await b.api.get(`/reconciliation/settlements/${reportId}`)).status).toBe(404);
    expect((await b.api.get('/reconciliation/items')).body.items).toEqual([]);
    expect((await b.api.get('/reconciliation/payouts')).body.payouts).toEqual([]);
    expect((await b.api.get('/reconciliation/settlements')).body.reports).toEqual([]);
    // the report from another merchant's service is refused
    expect((await b.api.post('/reconciliation/settlements/fetch', { service: a.service_uuid, date: today() })).status).toBe(404);
  });

  it('the same day twice is refused (409); a day to come is 400', async () => {
    const again = await a.api.post('/reconciliation/settlements/fetch', { service: a.service_uuid, date: today(), settlement_days: 1 });
    expect(again.status, again.raw).toBe(409);
    expect((await a.api.post('/reconciliation/settlements/fetch', { service: a.service_uuid, date: addDays(today(), 2) })).status).toBe(400);
  });
});

describe('payouts against the bank statements', () => {
  const camt = (entries: Array<{ amount: number; ref: string; date: string }>, period: { from: string; to: string }) => {
    const open = 100000;
    const close = open + entries.reduce((s, e) => s + e.amount, 0);
    const money = (v: number) => `${Math.floor(Math.abs(v) / 100)}.${String(Math.abs(v) % 100).padStart(2, '0')}`;
    return `<?xml version="1.0" encoding="UTF-8"?>
<Document xmlns="urn:iso:std:iso:20022:tech:xsd:camt.053.001.08"><BkToCstmrStmt><GrpHdr><MsgId>M1</MsgId><CreDtTm>${period.to}T18:00:00Z</CreDtTm></GrpHdr>
<Stmt><Id>S1</Id><FrToDt><FrDtTm>${period.from}T00:00:00Z</FrDtTm><ToDtTm>${period.to}T23:59:59Z</ToDtTm></FrToDt><Acct><Id><IBAN>ES9121000418450200051332</IBAN></Id><Ccy>EUR</Ccy></Acct>
<Bal><Tp><CdOrPrtry><Cd>OPBD</Cd></CdOrPrtry></Tp><Amt Ccy="EUR">${money(open)}</Amt><CdtDbtInd>CRDT</CdtDbtInd><Dt><Dt>${period.from}</Dt></Dt></Bal>
<Bal><Tp><CdOrPrtry><Cd>CLBD</Cd></CdOrPrtry></Tp><Amt Ccy="EUR">${money(close)}</Amt><CdtDbtInd>CRDT</CdtDbtInd><Dt><Dt>${period.to}</Dt></Dt></Bal>
${entries.map((e) => `<Ntry><Amt Ccy="EUR">${money(e.amount)}</Amt><CdtDbtInd>${e.amount < 0 ? 'DBIT' : 'CRDT'}</CdtDbtInd><Sts><Cd>BOOK</Cd></Sts><BookgDt><Dt>${e.date}</Dt></BookgDt>
<NtryDtls><TxDtls><RmtInf><Ustrd>${e.ref}</Ustrd></RmtInf></TxDtls></NtryDtls></Ntry>`).join('\n')}
</Stmt></BkToCstmrStmt></Document>`;
  };

  it('camt.053: a payout found by its batch (RECEIVED), one of another amount (DIFFERENT), one absent past its grace (MISSING)', async () => {
    const c = await t.merchant({ name: 'Payout Shop' });
    const day = '2026-02-02';
    const header = 'TYPE,REFERENCE,AMOUNT,CURRENCY,TRANSACTION_DATE,SETTLEMENT_DATE,BATCH,FEE_PROCESSING';
    const rows = [
      `PAYMENT,r-1,10000,EUR,${day},2026-02-03,BATCH-A,100`,
      `PAYMENT,r-2,5000,EUR,${day},2026-02-03,BATCH-A,50`,
      `PAYMENT,r-3,2000,EUR,${day},2026-02-04,BATCH-B,0`,
      `REFUND,r-4,500,EUR,${day},2026-02-04,BATCH-B,0`,
      `PAYMENT,r-5,7000,EUR,${day},2026-02-03,BATCH-C,0`,
      `CHARGEBACK,r-6,1000,EUR,${day},2026-02-03,BATCH-C,1500`,
    ];
    const up = await c.api.post('/reconciliation/settlements', { data: b64(`${header}\n${rows.join('\n')}\n`), filename: 'feb.csv', acquirer: 'REDSYS' });
    expect(up.status, up.raw).toBe(200);
    // references no transaction of paygate has: ONLY_AT_ACQUIRER, the chargeback only counts in its payout
    expect(up.body.report.counts).toMatchObject({ ONLY_AT_ACQUIRER: 5, MATCHED: 0 });
    const before = await c.api.get('/reconciliation/payouts');
    expect(before.body.payouts.map((p: any) => [p.batch, p.expected, p.status]).sort()).toEqual([['BATCH-A', 14850, 'EXPECTED'], ['BATCH-B', 1500, 'EXPECTED'], ['BATCH-C', 4500, 'EXPECTED']]);

    const st = await c.api.post('/reconciliation/bank-statements', {
      data: b64(camt([{ amount: 14850, ref: 'REDSYS LIQUIDACION BATCH-A', date: '2026-02-03' }, { amount: 1400, ref: 'batch-b', date: '2026-02-05' }, { amount: -2500, ref: 'RENT', date: '2026-02-05' }], { from: '2026-02-03', to: '2026-02-10' })),
      filename: 'feb.xml',
    });
    expect(st.status, st.raw).toBe(200);
    expect(st.body.statements).toMatchObject([{ format: 'CAMT053', account: 'ES9121000418450200051332', currency: 'EUR', entries: 3, credits: 2, debits: 1, payouts_found: 2, period_from: '2026-02-03', period_to: '2026-02-10' }]);
    expect(st.body.payouts).toEqual({ EXPECTED: 0, RECEIVED: 1, DIFFERENT: 1, MISSING: 1 });
    const after = await c.api.get('/reconciliation/payouts');
    const by = Object.fromEntries(after.body.payouts.map((p: any) => [p.batch, p]));
    expect(by['BATCH-A']).toMatchObject({ status: 'RECEIVED', expected: 14850, received: { amount: 14850, date: '2026-02-03', statement_filename: 'feb.xml' }, difference: 0 });
    expect(by['BATCH-B']).toMatchObject({ status: 'DIFFERENT', expected: 1500, received: { amount: 1400 }, difference: -100 });
    expect(by['BATCH-C']).toMatchObject({ status: 'MISSING', received: null, gross: 6000, fees: { processing: 1500 } });
    const missing = await c.api.get('/reconciliation/payouts', { status: 'MISSING' });
    expect(missing.body.payouts.map((p: any) => p.batch)).toEqual(['BATCH-C']);
    const csv = await t.app.inject({ method: 'GET', url: '/v1/sandbox/reconciliation/payouts.csv', headers: { authorization: `Bearer ${c.api_key}` } });
    const recs = parse(csv.body, { columns: true }) as Array<Record<string, string>>;
    expect(recs.map((x) => `${x.BATCH}:${x.STATUS}:${x.EXPECTED}:${x.RECEIVED}`).sort()).toEqual(['BATCH-A:RECEIVED:14850:14850', 'BATCH-B:DIFFERENT:1500:1400', 'BATCH-C:MISSING:4500:']);
    // the same statement twice: 409, nothing more kept
    const n = await count('recon_bank_lines');
    expect((await c.api.post('/reconciliation/bank-statements', { data: st.body && b64(camt([{ amount: 14850, ref: 'REDSYS LIQUIDACION BATCH-A', date: '2026-02-03' }, { amount: 1400, ref: 'batch-b', date: '2026-02-05' }, { amount: -2500, ref: 'RENT', date: '2026-02-05' }], { from: '2026-02-03', to: '2026-02-10' })), filename: 'again.xml' })).status).toBe(409);
    expect(await count('recon_bank_lines')).toBe(n);

    // the missing payout arrives in a later Norma 43 statement, without a reference: found by its amount
    const n43 = [
      '11' + '0081' + '0216' + '0123456789' + '260205' + '260207' + '2' + '00000000100000' + '978' + '3' + 'PAYOUT SHOP'.padEnd(26) + '   ',
      '22' + '    ' + '0216' + '260205' + '260205' + '02' + '000' + '2' + '00000000004500' + '0000000000' + '000000000000' + 'TRANSFERENCIA'.padEnd(16),
      '2301' + 'ABONO LIQUIDACION'.padEnd(38) + ''.padEnd(38),
      '33' + '0081' + '0216' + '0123456789' + '00000' + '00000000000000' + '00001' + '00000000004500' + '2' + '00000000104500' + '978' + '    ',
      '88' + '999999999999999999' + '000004' + ''.padEnd(54),
    ].join('\r\n');
    const nr = await c.api.post('/reconciliation/bank-statements', { data: b64(n43), filename: 'feb.n43' });
    expect(nr.status, nr.raw).toBe(200);
    expect(nr.body.statements).toMatchObject([{ format: 'NORMA43', account: '0081 0216 0123456789', entries: 1, payouts_found: 1 }]);
    expect((await c.api.get('/reconciliation/payouts', { status: 'RECEIVED' })).body.payouts.map((p: any) => p.batch).sort()).toEqual(['BATCH-A', 'BATCH-C']);
    const statements = await c.api.get('/reconciliation/bank-statements');
    expect(statements.body.statements.map((s: any) => s.filename)).toEqual(['feb.n43', 'feb.xml']);
  });
});

describe('refused files', () => {
  const H = 'TYPE,PROCESSOR_ID,REFERENCE,AMOUNT,CURRENCY,TRANSACTION_DATE,SETTLEMENT_DATE,BATCH';

  it('lines with problems: 422 naming each line and what is wrong, nothing imported', async () => {
    const n = await count('recon_reports');
    const lines = [await count('recon_lines')];
    const r = await a.api.post('/reconciliation/settlements', {
      data: b64(`${H}\nPAYMENT,p1,,100,EUR,2026-01-01,2026-01-02,B\nSALE,p2,,100,EUR,2026-01-01,2026-01-02,B\nPAYMENT,,,100,EUR,2026-01-01,2026-01-02,B\nREFUND,p4,,10.5,EURO,2026-13-01,2026-01-02,B\nPAYMENT,p5,,100,EUR,2026-01-05,2026-01-02,\n`),
      filename: 'bad.csv', acquirer: 'X',
    });
    expect(r.status, r.raw).toBe(422);
    expect(r.body.errors).toEqual([
      { line: 3, msg: 'TYPE must be one of PAYMENT, REFUND, PAYOUT, CHARGEBACK, ADJUSTMENT' },
      { line: 4, msg: 'a PAYMENT line needs its PROCESSOR_ID or its REFERENCE' },
      { line: 5, msg: 'AMOUNT must be a whole number of minor units from 1 to 999999999999' },
      { line: 5, msg: 'CURRENCY must be an ISO 4217 code such as EUR' },
      { line: 5, msg: 'TRANSACTION_DATE must be a date YYYY-MM-DD (or an ISO 8601 date and time)' },
      { line: 6, msg: 'SETTLEMENT_DATE 2026-01-02 is before TRANSACTION_DATE 2026-01-05' },
      { line: 6, msg: 'BATCH must be the acquirer\'s payout or batch reference, 1 to 64 characters' },
    ]);
    expect(r.body.details).toBe('7 problems in the file: nothing was imported');
    expect(await count('recon_reports')).toBe(n);
    expect(await count('recon_lines')).toBe(lines[0]);
    // a NET that is not the amount less the fees
    const net = await a.api.post('/reconciliation/settlements', { data: b64(`${H},FEE_PROCESSING,NET\nPAYMENT,p1,,100,EUR,2026-01-01,2026-01-02,B,5,100\n`), filename: 'net.csv', acquirer: 'X' });
    expect(net.status).toBe(422);
    expect(net.body.errors).toEqual([{ line: 2, msg: 'NET 100 is not the line\'s AMOUNT less its fees (95)' }]);
  });

  it('a file that cannot be read, or carries a card number, is 400 naming it; nothing imported', async () => {
    const n = await count('recon_reports');
    const post = (data: string, extra: Record<string, unknown> = {}) => a.api.post('/reconciliation/settlements', { data, filename: 'x.csv', acquirer: 'X', ...extra });
    const card = await post(b64(`${H}\nPAYMENT,p1,card 4548812049400004,100,EUR,2026-01-01,2026-01-02,B\n`));
    expect(card.status).toBe(400);
    expect(card.body.details).toBe('data line 2, column REFERENCE, must not contain a card number: card numbers go only in the card fields');
    expect(card.raw).not.toContain('4548812049400004');
    expect((await post('not base64!')).body.details).toBe('data is not valid base64');
    expect((await post(b64('TYPE,AMOUNT\nPAYMENT,1\n'))).body.details).toMatch(/the header lacks the columns CURRENCY, TRANSACTION_DATE, SETTLEMENT_DATE, BATCH/);
    expect((await post(b64(`${H},COLOUR\n`))).body.details).toMatch(/unknown column "COLOUR"/);
    expect((await post(b64(`${H}\n`))).body.details).toBe('data has a header and no rows');
    expect((await post(b64('\u0000\u0001binary'))).status).toBe(400);
    expect((await post(b64(`${H}\nPAYMENT,p,,1,EUR,2026-01-01,2026-01-01,B\n`), { service: b.service_uuid })).status).toBe(404);
    expect((await post(b64(`${H}\nPAYMENT,p,,1,EUR,2026-01-01,2026-01-01,B\n`), { period_from: '2026-01-01' })).body.details).toMatch(/go together/);
    expect(await count('recon_reports')).toBe(n);
  });

  it('bank statements: a card number, a DOCTYPE, broken XML and unbalanced totals are refused naming the line', async () => {
    const post = (text: string) => a.api.post('/reconciliation/bank-statements', { data: b64(text), filename: 's.xml' });
    const n = await count('recon_statements');
    const doc = (body: string) => `<?xml version="1.0"?>\n<Document xmlns="urn:iso:std:iso:20022:tech:xsd:camt.053.001.02"><BkToCstmrStmt>\n${body}\n</BkToCstmrStmt></Document>`;
    const stmt = (ntry: string, close = '10.00') => `<Stmt><Acct><Id><IBAN>ES9121000418450200051332</IBAN></Id><Ccy>EUR</Ccy></Acct>
<Bal><Tp><CdOrPrtry><Cd>OPBD</Cd></CdOrPrtry></Tp><Amt Ccy="EUR">0.00</Amt><CdtDbtInd>CRDT</CdtDbtInd><Dt><Dt>2026-02-01</Dt></Dt></Bal>
<Bal><Tp><CdOrPrtry><Cd>CLBD</Cd></CdOrPrtry></Tp><Amt Ccy="EUR">${close}</Amt><CdtDbtInd>CRDT</CdtDbtInd><Dt><Dt>2026-02-01</Dt></Dt></Bal>
${ntry}</Stmt>`;
    const ntry = (ref: string, amt = '10.00') => `<Ntry><Amt Ccy="EUR">${amt}</Amt><CdtDbtInd>CRDT</CdtDbtInd><Sts>BOOK</Sts><BookgDt><Dt>2026-02-01</Dt></BookgDt><AddtlNtryInf>${ref}</AddtlNtryInf></Ntry>`;
    const pan = await post(doc(stmt(ntry('CARD 4548812049400004'))));
    expect(pan.status).toBe(400);
    expect(pan.body.details).toBe('data line 6 must not contain a card number: a statement is stored and shown as it is');
    expect((await post(`<?xml version="1.0"?><!DOCTYPE x [<!ENTITY a "b">]><Document/>`)).body.details).toMatch(/DOCTYPE/);
    const broken = await post(doc('<Stmt><Acct></Stmt>'));
    expect(broken.status).toBe(400);
    expect(broken.body.details).toMatch(/not well-formed XML \(line 3\)/);
    const unbalanced = await post(doc(stmt(ntry('X', '9.99'))));
    expect(unbalanced.status, unbalanced.raw).toBe(422);
    expect(unbalanced.body.errors).toEqual([{ line: 5, msg: 'the closing balance (CLBD 1000) is not the opening balance (0) plus the booked entries (999) in minor units' }]);
    const decimals = await post(doc(stmt(ntry('X', '10.001'))));
    expect(decimals.body.errors).toEqual([{ line: 6, msg: 'Amt must be an amount in EUR with at most its decimals' }]);
    expect((await post('hello')).status).toBe(400);
    expect(await count('recon_statements')).toBe(n);
  });
});
