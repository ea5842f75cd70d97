/**
 * Norma 43 (AEB Cuaderno 43) against published examples, re-typed in test/fixtures/reconciliation/: the
 * example file of norma43.net's "La estructura de un fichero en norma 43" (an account with two credits,
 * complementary concepts, record 33 and 88 that add up), and example1 of the norma43_parser gem (its
 * record 33 disagrees with its movements and it has no record 88: refused, each problem on its line).
 * Positions as the Cuaderno gives them; dates AAMMDD.
 */
import fs from 'node:fs';
import { describe, expect, it } from 'vitest';
import { norma43Text, parseNorma43, StatementProblems } from '../../src/modules/reconciliation/index.js';
import { ApiError } from '../../src/platform/errors/errors.js';

const AEB = fs.readFileSync('test/fixtures/reconciliation/norma43-aeb-example.n43', 'latin1');
const GEM = fs.readFileSync('test/fixtures/reconciliation/norma43-gem-example1.n43', 'latin1');

function problems(text: string) {
  try {
    parseNorma43('data', text);
  } catch (err) {
    if (err instanceof StatementProblems) return err.problems;
    throw err;
  }
  throw new Error('no problem found');
}

const refusal = (text: string) => {
  try {
    parseNorma43('data', text);
  } catch (err) {
    if (err instanceof ApiError) return `${err.status} ${err.details}`;
    throw err;
  }
  return 'accepted';
};

describe('Norma 43', () => {
  it('reads the published example: the account, its balances, two credits and their concepts', () => {
    const [s, ...more] = parseNorma43('data', AEB);
    expect(more).toEqual([]);
    expect(s).toMatchObject({ account: '1234 2222 1234567890', currency: 'EUR', periodFrom: '2001-02-18', periodTo: '2002-02-18', opening: 200000, closing: 215075 });
    expect(s.entries).toEqual([
      { line: 2, bookingDate: '2001-02-18', valueDate: '2001-02-18', amount: 10050, currency: 'EUR', reference: 'ORDEN PAGO R', remittance: 'ORDEN PAGO R | ECIB' },
      {
        line: 3, bookingDate: '2001-02-18', valueDate: '2001-02-18', amount: 5025, currency: 'EUR', reference: 'ORDEN PAGO R',
        remittance: 'ORDEN PAGO R | ECIB | LIQ. OP. N 000000000000069 | AUTOMOCION LAGUNA SL 41001 SEVILLA ES',
      },
    ]);
  });

  it('refuses the gem\'s example1: its record 33 disagrees with its movements, and it has no record 88', () => {
    expect(problems(GEM)).toEqual([
      { line: 10, msg: 'the account\'s debits are 0 for 0; record 33 says 4 for 4936 (minor units)' },
      { line: 10, msg: 'the account\'s credits are 4 for 4936; record 33 says 2 for 999999 (minor units)' },
      { line: 10, msg: 'the final balance 78889999999999 is not the initial balance 123456 plus the movements (4936), in minor units' },
      { line: 10, msg: 'the file has no end-of-file record (88)' },
    ]);
  });

  it('a debit, CR LF lines, ISO-8859-1 text and a currency without decimals', () => {
    const lines = [
      '11' + '0081' + '0216' + '0123456789' + '260301' + '260301' + '2' + '00000000100000' + '978' + '3' + 'CAFÉ ÑANDÚ SL'.padEnd(26) + '   ',
      '22' + '    ' + '0216' + '260301' + '260302' + '12' + '001' + '1' + '00000000002500' + '0000000000' + 'REF000000001' + 'COMISIÓN'.padEnd(16),
      '33' + '0081' + '0216' + '0123456789' + '00001' + '00000000002500' + '00000' + '00000000000000' + '2' + '00000000097500' + '978' + '    ',
      '88' + '9'.repeat(18) + '000003' + ''.padEnd(54),
    ];
    const latin1 = Buffer.from(lines.join('\r\n') + '\r\n', 'latin1');
    const [s] = parseNorma43('data', norma43Text(latin1));
    expect(s.entries).toMatchObject([{ amount: -2500, bookingDate: '2026-03-01', valueDate: '2026-03-02', reference: 'REF000000001', remittance: 'REF000000001 | COMISIÓN' }]);
    expect(s.closing).toBe(97500);
    // JPY (no decimals): the file's 2 decimals are scaled to yen
    const yen = lines.map((l) => (l.startsWith('11') ? l.slice(0, 47) + '392' + l.slice(50) : l.startsWith('33') ? l.slice(0, 73) + '392' + l.slice(76) : l));
    expect(parseNorma43('data', yen.join('\n'))[0]).toMatchObject({ currency: 'JPY', opening: 1000, closing: 975, entries: [{ amount: -25 }] });
  });

  it('names the line of every broken record', () => {
    const bad = AEB.split('\n');
    bad[1] = bad[1].slice(0, 10) + '019918' + bad[1].slice(16); // month 99
    bad[3] = '2309' + bad[3].slice(4); // data code 09
    bad.splice(4, 0, '99 what is this');
    expect(problems(bad.join('\n'))).toEqual([
      { line: 2, msg: 'the operation date (columns 11-16) must be a date AAMMDD' },
      { line: 4, msg: 'the data code of a complementary concept (columns 3-4) must be 01 to 05' },
      { line: 5, msg: 'unknown record type "99": a Norma 43 record is 11, 22, 23, 24, 33 or 88' },
      { line: 7, msg: 'the account\'s credits are 1 for 5025; record 33 says 2 for 15075 (minor units)' },
      { line: 7, msg: 'the final balance 215075 is not the initial balance 200000 plus the movements (5025), in minor units' },
      { line: 8, msg: 'the end-of-file record counts 6 records; the file has 7 before it' },
    ]);
  });

  it('refuses a file that is not Norma 43, and a card number on any line', () => {
    expect(refusal('TYPE,AMOUNT\n')).toBe('400 data is not a Norma 43 file: its first record (line 1) must be an account header, 11');
    const withPan = AEB.replace('2302AUTOMOCION LAGUNA SL 41001 SEVILLA ES', '2302TARJETA 4548812049400004');
    expect(refusal(withPan)).toBe('400 data line 5 must not contain a card number: a statement is stored and shown as it is');
    expect(refusal('')).toBe('400 data is empty');
  });
});
