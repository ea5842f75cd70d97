/**
 * The retry table, code by code: which failed attempts may go on to the next service (cascading) and
 * which never may; an outcome where money may have moved never cascades. Also the BIN facts' pure
 * parts: a line of the import, overlaps, the index's lookups and the sandbox cards built in.
 */
import { describe, expect, it } from 'vitest';
import { TX_ERRORS } from '../../src/processors/connector-requests.js';
import { CASCADE_TABLE, cascadeAllowed, type FailureCode } from '../../src/modules/routing/routing.retry.js';
import { BinIndex, overlaps, parseBinRow, sandboxBinFacts, type BinRow } from '../../src/modules/routing/routing.bins.js';
import { TEST_CARDS } from '../../src/processors/index.js';

describe('the retry table', () => {
  const expected: Record<FailureCode, boolean> = {
    DENIED: true,
    PROCESSOR_ERROR: true,
    TIMEOUT: true,
    INSUFFICIENT_FUNDS: false,
    EXPIRED_CARD: false,
    INVALID_CARD: false,
    AUTHENTICATION_FAILED: false,
    FRAUD_SUSPECTED: false,
    BLACKLISTED: false,
  };

  it('covers every error code of the contract, each with its reason', () => {
    expect(Object.keys(CASCADE_TABLE).sort()).toEqual(TX_ERRORS.filter((e) => e !== 'NONE').sort());
    for (const row of Object.values(CASCADE_TABLE)) expect(row.why.length).toBeGreaterThan(10);
  });

  it('code by code, when the processor answered (no money moved)', () => {
    for (const code of Object.keys(expected) as FailureCode[]) {
      const v = cascadeAllowed({ error: code, moneyMayHaveMoved: false });
      expect(v.allowed, code).toBe(expected[code]);
      expect(v.reason, code).toBe(CASCADE_TABLE[code].why);
    }
  });

  it('never when money may have moved (an UNKNOWN or PENDING outcome), whatever the code', () => {
    for (const code of TX_ERRORS) {
      const v = cascadeAllowed({ error: code, moneyMayHaveMoved: true });
      expect(v.allowed, code).toBe(false);
      expect(v.reason).toMatch(/money may have moved/);
    }
  });

  it('never after a "do not retry" refusal, nor after a success', () => {
    expect(cascadeAllowed({ error: 'DENIED', moneyMayHaveMoved: false, doNotRetry: true })).toMatchObject({ allowed: false, reason: expect.stringContaining('not to retry') });
    expect(cascadeAllowed({ error: 'NONE', moneyMayHaveMoved: false }).allowed).toBe(false);
    expect(cascadeAllowed({ error: 'BOGUS' as never, moneyMayHaveMoved: false }).allowed).toBe(false);
  });
});

describe('BIN facts', () => {
  it('a line of the import: read, or what is wrong with it', () => {
    expect(parseBinRow({ BIN_FROM: '45488100', BIN_TO: '45488199', BRAND: 'visa', CARD_TYPE: 'credit', ISSUER_COUNTRY: 'es' })).toEqual({ row: { bin_from: '45488100', bin_to: '45488199', brand: 'VISA', card_type: 'CREDIT', issuer_country: 'ES' } });
    expect(parseBinRow({ BIN_FROM: '520000', BIN_TO: '529999' })).toEqual({ row: { bin_from: '520000', bin_to: '529999', brand: null, card_type: null, issuer_country: null } });
    expect(parseBinRow({ BIN_FROM: '52000', BIN_TO: '529999' })).toEqual({ error: 'BIN_FROM must be 6 to 8 digits' });
    expect(parseBinRow({ BIN_FROM: '520000', BIN_TO: '5299999' })).toEqual({ error: 'BIN_FROM and BIN_TO must have the same number of digits' });
    expect(parseBinRow({ BIN_FROM: '530000', BIN_TO: '529999' })).toMatchObject({ error: expect.stringContaining('must not be above') });
    expect(parseBinRow({ BIN_FROM: '520000', BIN_TO: '529999', CARD_TYPE: 'GOLD' })).toMatchObject({ error: expect.stringContaining('CARD_TYPE') });
    expect(parseBinRow({ BIN_FROM: '520000', BIN_TO: '529999', ISSUER_COUNTRY: 'ESP' })).toMatchObject({ error: expect.stringContaining('ISSUER_COUNTRY') });
  });

  const row = (from: string, to: string, issuer_country: string): BinRow => ({ bin_from: from, bin_to: to, brand: null, card_type: null, issuer_country });

  it('overlapping ranges are named by their lines, whatever their lengths', () => {
    expect(overlaps([{ line: 2, row: row('400000', '400099', 'ES') }, { line: 3, row: row('40010000', '40019999', 'FR') }])).toEqual([]);
    expect(overlaps([{ line: 2, row: row('400000', '400099', 'ES') }, { line: 3, row: row('40009900', '40010100', 'FR') }])).toEqual([{ line: 3, msg: 'the range 40009900-40010100 overlaps the range of line 2' }]);
    expect(overlaps([{ line: 5, row: row('400000', '499999', 'ES') }, { line: 2, row: row('45000000', '45000000', 'FR') }])).toEqual([{ line: 5, msg: 'the range 45000000-45000000 overlaps the range of line 2' }]);
  });

  it('the index finds the range holding every card of a BIN, by halves', () => {
    const idx = new BinIndex([row('520000', '529999', 'IT'), row('45488100', '45488149', 'PT'), row('400000', '400000', 'ES')]);
    expect(idx.size).toBe(3);
    expect(idx.find('45488120')?.issuer_country).toBe('PT');
    expect(idx.find('45488149')?.issuer_country).toBe('PT');
    expect(idx.find('45488150')).toBeNull();
    expect(idx.find('454881')).toBeNull();
    expect(idx.find('5200')).toBeNull();
    expect(idx.find('52000000')?.issuer_country).toBe('IT');
    expect(idx.find('529999')?.issuer_country).toBe('IT');
    expect(idx.find('53000000')).toBeNull();
    expect(idx.find('400000')?.issuer_country).toBe('ES');
    expect(idx.find('39999999')).toBeNull();
  });

  it('the sandbox test cards are built in; 40000ccc cards carry their country; others are unknown', () => {
    expect(sandboxBinFacts(TEST_CARDS.APPROVED.slice(0, 8))).toEqual({ bin: '45488120', brand: 'VISA', card_type: 'DEBIT', issuer_country: 'ES', source: 'SANDBOX' });
    expect(sandboxBinFacts(TEST_CARDS.NON_3DS_OK.slice(0, 8))).toMatchObject({ brand: 'MASTERCARD', card_type: 'CREDIT', issuer_country: 'FR' });
    expect(sandboxBinFacts('40000724')).toMatchObject({ issuer_country: 'ES', card_type: 'CREDIT' });
    expect(sandboxBinFacts('40000000')).toBeNull();
    expect(sandboxBinFacts('60110000')).toBeNull();
  });
});
