/**
 * camt.053 against the format's published example: the ISO 20022 business sample of the Bank-to-Customer
 * Cash Management message definitions (camt.053.001.04, "AAAASESS-FP-STAT001": FINPETROL's SEK account,
 * three booked entries, opening 500000 and closing 435678.50), re-typed in
 * test/fixtures/reconciliation/. The same message in the 001.02 and 001.08 namespaces; what is refused.
 */
import fs from 'node:fs';
import { describe, expect, it } from 'vitest';
import { parseCamt053, StatementProblems } from '../../src/modules/reconciliation/index.js';
import { ApiError } from '../../src/platform/errors/errors.js';

const SAMPLE = fs.readFileSync('test/fixtures/reconciliation/camt053-iso-business-sample.xml', 'utf8');
/** The lines of the sample's `<Ntry>` elements. */
const NTRY_LINES = SAMPLE.split('\n').flatMap((l, i) => (l.includes('<Ntry>') ? [i + 1] : []));

function problems(xml: string) {
  try {
    parseCamt053('data', xml);
  } catch (err) {
    if (err instanceof StatementProblems) return err.problems;
    throw err;
  }
  throw new Error('no problem found');
}

function refused(xml: string): string {
  try {
    parseCamt053('data', xml);
  } catch (err) {
    if (err instanceof ApiError && err.status === 400) return err.details;
    throw err;
  }
  throw new Error('not refused');
}

describe('camt.053: the ISO 20022 business sample', () => {
  it('reads its account, period, balances and three booked entries with their references', () => {
    const [s, ...more] = parseCamt053('data', SAMPLE);
    expect(more).toEqual([]);
    expect(s).toMatchObject({ account: '50000000054910000003', currency: 'SEK', periodFrom: '2010-10-18', periodTo: '2010-10-18', opening: 50_000_000, closing: 43_567_850 });
    expect(NTRY_LINES).toHaveLength(3);
    expect(s.entries.map(({ remittance: _r, ...e }) => e)).toEqual([
      { line: NTRY_LINES[0], bookingDate: '2010-10-18', valueDate: '2010-10-18', amount: 10_567_850, currency: 'SEK', reference: 'MUELL/FINP/RA12345' },
      { line: NTRY_LINES[1], bookingDate: '2010-10-18', valueDate: '2010-10-18', amount: -20_000_000, currency: 'SEK', reference: 'AAAASESS-FP-ACCR-01' },
      { line: NTRY_LINES[2], bookingDate: '2010-10-18', valueDate: '2010-10-18', amount: 3_000_000, currency: 'SEK', reference: 'AAAASS1085FINPSS' },
    ]);
    // where a payout's batch is looked for: every reference and text of the entry
    expect(s.entries[0].remittance).toBe('MUELL/FINP/RA12345 | MUELLER | AAAASESS-FP-CN_98765/01');
    expect(s.entries[1].remittance).toBe('FINP-0055 | FINP-0055/001 | AAAASESS-FP-ACCR-01');
    expect(s.entries[2].remittance).toContain('FP-004567-FX');
    // opening + entries = closing
    expect(s.opening + s.entries.reduce((t, e) => t + e.amount, 0)).toBe(s.closing);
  });

  it('reads the same message in the 001.02 namespace, and 001.08 with its status as <Sts><Cd>', () => {
    const v02 = SAMPLE.replace('camt.053.001.04', 'camt.053.001.02');
    expect(parseCamt053('data', v02)).toEqual(parseCamt053('data', SAMPLE));
    const v08 = SAMPLE.replace('camt.053.001.04', 'camt.053.001.08').replace(/<Sts>BOOK<\/Sts>/g, '<Sts><Cd>BOOK</Cd></Sts>');
    expect(parseCamt053('data', v08)).toEqual(parseCamt053('data', SAMPLE));
    // with a namespace prefix
    const prefixed = SAMPLE.replace('<Document xmlns="', '<c:Document xmlns:c="').replace('</Document>', '</c:Document>');
    expect(parseCamt053('data', prefixed)[0].entries).toHaveLength(3);
  });

  it('leaves out entries that are not booked and turns the sign of a reversal', () => {
    // the credit of 105678.50 pending: not booked, so the closing balance is what is left
    const pending = SAMPLE.replace('<Sts>BOOK</Sts>', '<Sts>PDNG</Sts>').replace('435678.50', '330000');
    const [s] = parseCamt053('data', pending);
    expect(s.entries.map((e) => e.amount)).toEqual([-20_000_000, 3_000_000]);
    // the debit of 200000 reversed is a credit
    const reversed = SAMPLE.replace('<CdtDbtInd>DBIT</CdtDbtInd>', '<CdtDbtInd>DBIT</CdtDbtInd><RvslInd>true</RvslInd>').replace('435678.50', '835678.50');
    expect(parseCamt053('data', reversed)[0].entries[1].amount).toBe(20_000_000);
  });

  it('an entry that breaks a rule is named by its line; the balances are checked', () => {
    expect(problems(SAMPLE.replace('105678.50', '105678.505'))).toEqual([{ line: NTRY_LINES[0], msg: 'Amt must be an amount in SEK with at most its decimals' }]);
    expect(problems(SAMPLE.replace('<CdtDbtInd>DBIT</CdtDbtInd>', '<CdtDbtInd>DEBIT</CdtDbtInd>'))).toEqual([{ line: NTRY_LINES[1], msg: 'CdtDbtInd must be CRDT or DBIT' }]);
    const closing = SAMPLE.split('\n').findIndex((l) => l.includes('<Cd>CLBD</Cd>'));
    const balLine = SAMPLE.split('\n').slice(0, closing).map((l, i) => (l.includes('<Bal>') ? i + 1 : 0)).filter(Boolean).pop();
    expect(problems(SAMPLE.replace('435678.50', '435678.51'))).toEqual([{ line: balLine, msg: 'the closing balance (CLBD 43567851) is not the opening balance (50000000) plus the booked entries (-6432150) in minor units' }]);
  });

  it('refuses what is not a camt.053 message, a DOCTYPE, broken XML, and a card number anywhere', () => {
    expect(refused(SAMPLE.replace('camt.053.001.04', 'camt.052.001.04'))).toMatch(/is not a camt\.053 message/);
    expect(refused(SAMPLE.replace('<?xml version="1.0" encoding="UTF-8"?>', '<?xml version="1.0"?><!DOCTYPE Document [<!ENTITY x "y">]>'))).toMatch(/must not have a DOCTYPE/);
    expect(refused(SAMPLE.replace('</GrpHdr>', ''))).toMatch(/^data is not well-formed XML \(line \d+\)/);
    const withPan = SAMPLE.replace('<Nm>MUELLER</Nm>', '<Nm>MUELLER 4548 8120 4940 0004</Nm>');
    const line = withPan.split('\n').findIndex((l) => l.includes('MUELLER')) + 1;
    expect(refused(withPan)).toBe(`data line ${line} must not contain a card number: a statement is stored and shown as it is`);
    // the account number (20 digits) and the dates are no card numbers
    expect(() => parseCamt053('data', SAMPLE)).not.toThrow();
  });
});
