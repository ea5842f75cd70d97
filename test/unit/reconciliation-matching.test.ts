/**
 * The pure rules of matching: a row of the settlement CSV layout read and checked, the net of a line,
 * dates as reports write them, the sentences of each match kind; and the sandbox acquirer's settlement:
 * its fee model, its batches and each injectable mismatch. Seeded random rows: a row the layout accepts
 * is read back as written (amounts, fees, net).
 */
import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { lineNet, parseSettlementRow, settlementCsv } from '../../src/modules/reconciliation/index.js';
import { describe as sentence, readDate } from '../../src/modules/reconciliation/reconciliation.domain.js';
import { sandboxFees, sandboxReport, type LedgerEntry } from '../../src/processors/index.js';
import { useTestSeed } from '../helpers/seed.js';

const SEED = useTestSeed(import.meta.url);

const row = (v: Record<string, string>) => ({ TYPE: 'PAYMENT', REFERENCE: 'e8b3d5f1-9a2c-4e7b-b6d4-3f1a8c5e7b20', AMOUNT: '1050', CURRENCY: 'eur', TRANSACTION_DATE: '2026-03-14', SETTLEMENT_DATE: '2026-03-16', BATCH: 'PO-1', ...v });

describe('a row of the settlement layout', () => {
  it('is read with its fees and net; the currency and type in any case', () => {
    expect(parseSettlementRow(2, row({ type: undefined as never, TYPE: 'payment', FEE_INTERCHANGE: '3', FEE_SCHEME: '1', FEE_PROCESSING: '5' }))).toEqual({
      line: 2, type: 'PAYMENT', processorId: null, reference: 'e8b3d5f1-9a2c-4e7b-b6d4-3f1a8c5e7b20', amount: 1050, currency: 'EUR', transactionDate: '2026-03-14',
      settlementDate: '2026-03-16', batch: 'PO-1', feeInterchange: 3, feeScheme: 1, feeProcessing: 5, net: 1041,
    });
    // a refund is money out: its net is negative, and a rebate (negative fee) adds to it
    expect(parseSettlementRow(3, row({ TYPE: 'REFUND', AMOUNT: '500', FEE_PROCESSING: '5', FEE_INTERCHANGE: '-2' }))).toMatchObject({ net: -503 });
    // an adjustment carries its own sign
    expect(parseSettlementRow(4, row({ TYPE: 'ADJUSTMENT', AMOUNT: '-250', REFERENCE: '' }))).toMatchObject({ amount: -250, net: -250 });
    // dates and times: the day in UTC of an instant with an offset, the written day otherwise
    expect(parseSettlementRow(5, row({ TRANSACTION_DATE: '2026-03-14T23:30:00-02:00', SETTLEMENT_DATE: '2026-03-16 08:00' }))).toMatchObject({ transactionDate: '2026-03-15', settlementDate: '2026-03-16' });
  });

  it('names every problem with its column', () => {
    expect(parseSettlementRow(7, row({ TYPE: 'CHARGEBACK', AMOUNT: '0', CURRENCY: 'XYZ', TRANSACTION_DATE: '2026-02-30', SETTLEMENT_DATE: '', BATCH: 'x'.repeat(65), FEE_SCHEME: '1.5', NET: 'abc' }))).toEqual([
      { line: 7, msg: 'AMOUNT must be a whole number of minor units from 1 to 999999999999' },
      { line: 7, msg: 'CURRENCY must be an ISO 4217 code such as EUR' },
      { line: 7, msg: 'TRANSACTION_DATE must be a date YYYY-MM-DD (or an ISO 8601 date and time)' },
      { line: 7, msg: 'SETTLEMENT_DATE must be a date YYYY-MM-DD (or an ISO 8601 date and time)' },
      { line: 7, msg: 'BATCH must be the acquirer\'s payout or batch reference, 1 to 64 characters' },
      { line: 7, msg: 'FEE_SCHEME must be a whole number of minor units (negative for a rebate)' },
      { line: 7, msg: 'NET must be a whole number of minor units' },
    ]);
    // a chargeback needs no reference; a payout does
    expect(Array.isArray(parseSettlementRow(8, row({ TYPE: 'CHARGEBACK', REFERENCE: '' })))).toBe(false);
    expect(parseSettlementRow(9, row({ TYPE: 'PAYOUT', REFERENCE: ' ' }))).toEqual([{ line: 9, msg: 'a PAYOUT line needs its PROCESSOR_ID or its REFERENCE' }]);
    expect(parseSettlementRow(10, row({ NET: '1050', FEE_PROCESSING: '5' }))).toEqual([{ line: 10, msg: 'NET 1050 is not the line\'s AMOUNT less its fees (1045)' }]);
    expect(parseSettlementRow(11, row({ TYPE: 'REFUND', NET: '500' }))).toEqual([{ line: 11, msg: 'NET 500 is not the line\'s negative AMOUNT less its fees (-1050)' }]);
  });

  it('reads back what it is given (seeded)', () => {
    const types = ['PAYMENT', 'REFUND', 'PAYOUT', 'CHARGEBACK'] as const;
    fc.assert(
      fc.property(fc.constantFrom(...types), fc.integer({ min: 1, max: 999_999_999_999 }), fc.integer({ min: -5000, max: 5000 }), fc.integer({ min: 0, max: 5000 }), fc.integer({ min: 0, max: 30 }), (type, amount, interchange, processing, days) => {
        const settlement = new Date(Date.UTC(2026, 0, 1 + days)).toISOString().slice(0, 10);
        const fees = { interchange, scheme: 0, processing };
        const r = parseSettlementRow(2, { TYPE: type, PROCESSOR_ID: 'p', AMOUNT: String(amount), CURRENCY: 'EUR', TRANSACTION_DATE: '2026-01-01', SETTLEMENT_DATE: settlement, BATCH: 'B', FEE_INTERCHANGE: String(interchange), FEE_PROCESSING: String(processing), NET: String(lineNet(type, amount, fees)) });
        expect(r).toMatchObject({ type, amount, net: lineNet(type, amount, fees), settlementDate: settlement });
      }),
      { seed: SEED, numRuns: 300 },
    );
  });

  it('dates: calendar days that exist', () => {
    expect(readDate('2024-02-29')).toBe('2024-02-29');
    expect(readDate('2025-02-29')).toBeNull();
    expect(readDate('14/03/2026')).toBeNull();
    expect(readDate('2026-03-14T10:00:00Z')).toBe('2026-03-14');
  });

  it('says why each kind is an exception', () => {
    expect(sentence({ kind: 'SETTLED_LATE', type: 'PAYMENT', amount: 1, currency: 'EUR', settlement_date: '2026-03-20', paygate_date: '2026-03-14', settlement_days: 2 })).toBe('settled on 2026-03-20, 6 days after the transaction (2026-03-14); expected within 2');
    expect(sentence({ kind: 'ONLY_AT_ACQUIRER', type: 'REFUND', amount: 1, currency: 'EUR', transaction_found: false })).toMatch(/^the acquirer settled a refund paygate has no transaction for/);
    expect(sentence({ kind: 'ONLY_AT_ACQUIRER', type: 'PAYMENT', amount: 1, currency: 'EUR', transaction_found: true, paygate_status: 'ERROR' })).toMatch(/paygate has the transaction as ERROR/);
  });
});

describe('the sandbox acquirer', () => {
  const at = (iso: string) => new Date(iso);
  const entries: LedgerEntry[] = [
    { reference: 'r1', processorId: 'P1', type: 'PAYMENT', amount: 1050, currency: 'EUR', at: at('2026-03-14T08:00:00Z'), terminal: 'svc-aaaaaaaa-1' },
    { reference: 'r2', processorId: 'P2', type: 'PAYMENT', amount: 2000, currency: 'EUR', at: at('2026-03-14T09:00:00Z'), terminal: 'svc-aaaaaaaa-1' },
    { reference: 'r3', processorId: 'P3', type: 'REFUND', amount: 300, currency: 'EUR', at: at('2026-03-14T23:59:59Z'), terminal: 'svc-aaaaaaaa-1' },
    { reference: 'r4', processorId: 'P4', type: 'PAYMENT', amount: 999, currency: 'EUR', at: at('2026-03-15T00:00:00Z'), terminal: 'svc-aaaaaaaa-1' },
    { reference: 'r5', processorId: 'P5', type: 'PAYMENT', amount: 500, currency: 'EUR', at: at('2026-03-14T10:00:00Z'), terminal: 'other' },
  ];

  it('fees: interchange 0.30 % and scheme 0.05 % of a payment, rounded half up, and 5 of processing; refunds and payouts pay processing only', () => {
    expect(sandboxFees('PAYMENT', 1050)).toEqual({ interchange: 3, scheme: 1, processing: 5 });
    expect(sandboxFees('PAYMENT', 500)).toEqual({ interchange: 2, scheme: 0, processing: 5 }); // 1.5 up, 0.25 down
    expect(sandboxFees('REFUND', 100_000)).toEqual({ interchange: 0, scheme: 0, processing: 5 });
    expect(sandboxFees('PAYOUT', 100_000)).toEqual({ interchange: 0, scheme: 0, processing: 5 });
  });

  it('a day\'s report: the terminal\'s operations of that UTC day, settled the next day in one batch', () => {
    const lines = sandboxReport(entries, '2026-03-14', 'svc-aaaaaaaa-1');
    expect(lines.map((l) => [l.reference, l.type, l.amount, l.net, l.settlementDate, l.batch])).toEqual([
      ['r1', 'PAYMENT', 1050, 1041, '2026-03-15', 'SANDBOX-SVC-AAAA-20260315'],
      ['r2', 'PAYMENT', 2000, 2000 - 6 - 1 - 5, '2026-03-15', 'SANDBOX-SVC-AAAA-20260315'],
      ['r3', 'REFUND', 300, -305, '2026-03-15', 'SANDBOX-SVC-AAAA-20260315'],
    ]);
    // every line reads back through the CSV layout as the same line
    const csv = settlementCsv(lines).trim().split('\n');
    const header = csv[0].split(',');
    csv.slice(1).forEach((text, i) => {
      const values = Object.fromEntries(text.split(',').map((v, j) => [header[j], v]));
      expect(parseSettlementRow(i + 2, values)).toMatchObject({ amount: lines[i].amount, net: lines[i].net, reference: lines[i].reference, processorId: lines[i].processorId });
    });
  });

  it('each mismatch changes the line it names, or the first payment not changed yet', () => {
    const day = '2026-03-14';
    const t = 'svc-aaaaaaaa-1';
    expect(sandboxReport(entries, day, t, [{ kind: 'AMOUNT_DIFFERS' }]).map((l) => l.amount)).toEqual([1049, 2000, 300]);
    expect(sandboxReport(entries, day, t, [{ kind: 'AMOUNT_DIFFERS' }, { kind: 'AMOUNT_DIFFERS' }]).map((l) => l.amount)).toEqual([1049, 1999, 300]);
    expect(sandboxReport(entries, day, t, [{ kind: 'ONLY_AT_PAYGATE', reference: 'r2' }]).map((l) => l.reference)).toEqual(['r1', 'r3']);
    expect(sandboxReport(entries, day, t, [{ kind: 'DUPLICATE', reference: 'r3' }]).map((l) => l.reference)).toEqual(['r1', 'r2', 'r3', 'r3']);
    const late = sandboxReport(entries, day, t, [{ kind: 'SETTLED_LATE', reference: 'r1' }])[0];
    expect(late).toMatchObject({ settlementDate: '2026-03-19', batch: 'SANDBOX-SVC-AAAA-20260319-LATE', net: 1041 });
    const extra = sandboxReport(entries, day, t, [{ kind: 'ONLY_AT_ACQUIRER' }]);
    expect(extra).toHaveLength(4);
    expect(extra[3]).toMatchObject({ type: 'PAYMENT', amount: 1234, currency: 'EUR' });
    expect(entries.map((e) => e.reference)).not.toContain(extra[3].reference);
    // a reference the day does not have changes nothing
    expect(sandboxReport(entries, day, t, [{ kind: 'AMOUNT_DIFFERS', reference: 'r9' }])).toEqual(sandboxReport(entries, day, t));
  });
});
