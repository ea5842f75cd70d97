/**
 * AEB Norma 43 (Cuaderno 43, "Información normalizada de cuenta corriente", of the Asociación Española de
 * Banca): fixed-width records of 80 characters, one per line, ISO-8859-1 or UTF-8. Positions below are
 * 1-based as the Cuaderno writes them; amounts have 12 integer digits and 2 decimals; dates are AAMMDD
 * (YYMMDD, years 2000-2099 for 00-79, 1900s otherwise).
 *
 *  11 account header: 3-6 entity, 7-10 office, 11-20 account number, 21-26 initial date, 27-32 final
 *     date, 33 sign of the initial balance (1 debit, 2 credit), 34-47 initial balance, 48-50 currency
 *     (ISO 4217 numeric), 51 information mode, 52-77 abbreviated name;
 *  22 movement: 7-10 origin office, 11-16 operation date, 17-22 value date, 23-24 common concept, 25-27
 *     own concept, 28 sign (1 debit, 2 credit), 29-42 amount, 43-52 document number, 53-64 reference 1,
 *     65-80 reference 2;
 *  23 complementary concept (at most five per movement): 3-4 data code 01-05, 5-42 and 43-80 concepts;
 *  24 currency equivalence (read and left: the movement's amount is in the account's currency);
 *  33 account end: 3-20 the account, 21-25 number of debits, 26-39 their total, 40-44 number of credits,
 *     45-58 their total, 59 sign of the final balance, 60-73 final balance, 74-76 currency;
 *  88 end of file: 3-20 nines, 21-26 number of records before it.
 *
 * Checks: record order (11, then 22 with its 23/24, then 33; 88 last), every field of the kind its
 * position holds, record 33 against the movements (counts, totals, and initial balance + movements =
 * final balance) and record 88's count. A problem is reported with the line of its record.
 */
import { badRequest } from '../../../platform/errors/errors.js';
import { currencyByNumber } from '../../../platform/money/currency.js';
import { isoDate } from '../reconciliation.domain.js';
import { clip, guardCardNumbers, StatementProblems, type BankEntry, type BankStatement } from './statement.js';

/** The text of `field`'s 1-based columns `from`..`to`. */
const cols = (rec: string, from: number, to: number) => rec.slice(from - 1, to);

function date(v: string): string | null {
  if (!/^\d{6}$/.test(v)) return null;
  const yy = Number(v.slice(0, 2));
  return isoDate(yy < 80 ? 2000 + yy : 1900 + yy, Number(v.slice(2, 4)), Number(v.slice(4, 6)));
}

const digits = (v: string) => (/^\d+$/.test(v) ? Number(v) : null);

/** The text of a Norma 43 file: UTF-8 when it is valid UTF-8, else ISO-8859-1 (what Spanish banks send). */
export function norma43Text(bytes: Uint8Array): string {
  try {
    return new TextDecoder('utf-8', { fatal: true }).decode(bytes);
  } catch {
    return new TextDecoder('latin1').decode(bytes);
  }
}

export function parseNorma43(field: string, text: string): BankStatement[] {
  // eslint-disable-next-line no-control-regex
  if (/[\u0000-\u0008\u000b\u000c\u000e-\u001f]/.test(text)) throw badRequest(`${field} is not a Norma 43 file (it contains binary data)`);
  guardCardNumbers(field, text);
  const lines = text.replace(/\r\n?/g, '\n').split('\n');
  while (lines.length > 0 && lines[lines.length - 1].trim() === '') lines.pop();
  if (lines.length === 0) throw badRequest(`${field} is empty`);
  if (!/^11/.test(lines[0])) throw badRequest(`${field} is not a Norma 43 file: its first record (line 1) must be an account header, 11`);

  const problems: Array<{ line: number; msg: string }> = [];
  const out: BankStatement[] = [];
  let account: { line: number; id: string; currency: string; digits: number; from: string; to: string; opening: number; entries: BankEntry[]; concepts: string[][] } | null = null;
  let current: BankEntry | null = null;
  let ended = false;
  let records = 0;

  const finishEntry = () => {
    if (current && account) {
      const concepts = account.concepts.pop() ?? [];
      current.remittance = clip([current.remittance, ...concepts].filter(Boolean).join(' | '), 1000);
      account.entries.push(current);
    }
    current = null;
  };

  lines.forEach((raw, i) => {
    const n = i + 1;
    const rec = raw.replace(/\s+$/, '').padEnd(80, ' ');
    const code = rec.slice(0, 2);
    if (rec.length > 80) return problems.push({ line: n, msg: `a record has 80 characters; this one has ${raw.replace(/\s+$/, '').length}` });
    if (ended) return problems.push({ line: n, msg: 'nothing may follow the end-of-file record 88' });
    if (code !== '88') records++;
    switch (code) {
      case '11': {
        if (account) problems.push({ line: n, msg: 'an account header (11) before the previous account ended (33)' });
        finishEntry();
        const from = date(cols(rec, 21, 26));
        const to = date(cols(rec, 27, 32));
        const sign = cols(rec, 33, 33);
        const opening = digits(cols(rec, 34, 47));
        const currency = currencyByNumber(cols(rec, 48, 50));
        const p: string[] = [];
        if (!/^\d{18}$/.test(cols(rec, 3, 20))) p.push('the entity, office and account number (columns 3-20) must be digits');
        if (!from) p.push('the initial date (columns 21-26) must be a date AAMMDD');
        if (!to) p.push('the final date (columns 27-32) must be a date AAMMDD');
        if (sign !== '1' && sign !== '2') p.push('the sign of the initial balance (column 33) must be 1 (debit) or 2 (credit)');
        if (opening === null) p.push('the initial balance (columns 34-47) must be 14 digits');
        if (!currency) p.push('the currency (columns 48-50) must be an ISO 4217 numeric code such as 978');
        problems.push(...p.map((msg) => ({ line: n, msg })));
        account = {
          line: n,
          id: `${cols(rec, 3, 6)} ${cols(rec, 7, 10)} ${cols(rec, 11, 20)}`,
          currency: currency?.code ?? 'EUR',
          digits: currency?.digits ?? 2,
          from: from ?? '1970-01-01',
          to: to ?? from ?? '1970-01-01',
          // the file's amounts have 2 decimals: a currency with none (or three) is scaled to its minor units
          opening: Math.round((opening ?? 0) * 10 ** ((currency?.digits ?? 2) - 2)) * (sign === '1' ? -1 : 1),
          entries: [],
          concepts: [],
        };
        return;
      }
      case '22': {
        if (!account) return problems.push({ line: n, msg: 'a movement (22) outside an account (11 ... 33)' });
        finishEntry();
        const operation = date(cols(rec, 11, 16));
        const value = date(cols(rec, 17, 22));
        const sign = cols(rec, 28, 28);
        const amount = digits(cols(rec, 29, 42));
        const p: string[] = [];
        if (!operation) p.push('the operation date (columns 11-16) must be a date AAMMDD');
        if (!value) p.push('the value date (columns 17-22) must be a date AAMMDD');
        if (sign !== '1' && sign !== '2') p.push('the sign (column 28) must be 1 (debit) or 2 (credit)');
        if (amount === null) p.push('the amount (columns 29-42) must be 14 digits');
        if (p.length > 0) {
          problems.push(...p.map((msg) => ({ line: n, msg })));
          return;
        }
        const minor = account.digits === 2 ? amount! : Math.round(amount! * 10 ** (account.digits - 2));
        current = {
          line: n,
          bookingDate: operation!,
          valueDate: value,
          amount: sign === '1' ? -minor : minor,
          currency: account.currency,
          reference: clip(cols(rec, 53, 64), 140) && !/^0+$/.test(cols(rec, 53, 64)) ? clip(cols(rec, 53, 64), 140) : clip(cols(rec, 65, 80), 140),
          remittance: clip([cols(rec, 43, 52), cols(rec, 53, 64), cols(rec, 65, 80)].filter((x) => x.trim() !== '' && !/^0+$/.test(x)).join(' | '), 1000),
        };
        account.concepts.push([]);
        return;
      }
      case '23': {
        if (!current || !account) return problems.push({ line: n, msg: 'a complementary concept (23) must follow a movement (22)' });
        const dataCode = cols(rec, 3, 4);
        if (!/^0[1-5]$/.test(dataCode)) return problems.push({ line: n, msg: 'the data code of a complementary concept (columns 3-4) must be 01 to 05' });
        const list = account.concepts[account.concepts.length - 1];
        if (list.length >= 5) return problems.push({ line: n, msg: 'a movement has at most five complementary concepts (23)' });
        list.push(...[cols(rec, 5, 42), cols(rec, 43, 80)].map((x) => x.trim()).filter(Boolean));
        return;
      }
      case '24': {
        if (!current) return problems.push({ line: n, msg: 'a currency equivalence (24) must follow a movement (22)' });
        return;
      }
      case '33': {
        if (!account) return problems.push({ line: n, msg: 'an account end (33) without its header (11)' });
        finishEntry();
        const a = account;
        const debits = a.entries.filter((e) => e.amount < 0);
        const credits = a.entries.filter((e) => e.amount >= 0);
        const scale = (v: number) => (a.digits === 2 ? v : Math.round(v * 10 ** (a.digits - 2)));
        const nDebits = digits(cols(rec, 21, 25));
        const tDebits = digits(cols(rec, 26, 39));
        const nCredits = digits(cols(rec, 40, 44));
        const tCredits = digits(cols(rec, 45, 58));
        const sign = cols(rec, 59, 59);
        const final = digits(cols(rec, 60, 73));
        const p: string[] = [];
        if (cols(rec, 3, 20) !== a.id.replace(/ /g, '')) p.push(`the account (columns 3-20) is not the one of its header on line ${a.line}`);
        if (nDebits === null || tDebits === null || nCredits === null || tCredits === null || final === null || (sign !== '1' && sign !== '2')) {
          p.push('the counts (columns 21-25, 40-44), totals (26-39, 45-58), sign (59) and final balance (60-73) must be digits');
        } else {
          const sumDebits = -debits.reduce((t, e) => t + e.amount, 0);
          const sumCredits = credits.reduce((t, e) => t + e.amount, 0);
          if (nDebits !== debits.length || scale(tDebits) !== sumDebits) p.push(`the account's debits are ${debits.length} for ${sumDebits}; record 33 says ${nDebits} for ${scale(tDebits)} (minor units)`);
          if (nCredits !== credits.length || scale(tCredits) !== sumCredits) p.push(`the account's credits are ${credits.length} for ${sumCredits}; record 33 says ${nCredits} for ${scale(tCredits)} (minor units)`);
          const closing = scale(final) * (sign === '1' ? -1 : 1);
          if (a.opening + sumCredits - sumDebits !== closing) p.push(`the final balance ${closing} is not the initial balance ${a.opening} plus the movements (${sumCredits - sumDebits}), in minor units`);
          else out.push({ account: a.id, currency: a.currency, periodFrom: a.from <= a.to ? a.from : a.to, periodTo: a.from <= a.to ? a.to : a.from, opening: a.opening, closing, entries: a.entries });
        }
        problems.push(...p.map((msg) => ({ line: n, msg })));
        account = null;
        return;
      }
      case '88': {
        if (account) problems.push({ line: n, msg: `the account of line ${account.line} has no end record (33)` });
        if (!/^9{18}$/.test(cols(rec, 3, 20))) problems.push({ line: n, msg: 'the end-of-file record has nines in columns 3-20' });
        const count = digits(cols(rec, 21, 26));
        if (count !== records) problems.push({ line: n, msg: `the end-of-file record counts ${count ?? 'no'} records; the file has ${records} before it` });
        ended = true;
        account = null;
        return;
      }
      default:
        problems.push({ line: n, msg: `unknown record type "${code.replace(/[^\x20-\x7e]/g, '?')}": a Norma 43 record is 11, 22, 23, 24, 33 or 88` });
    }
  });
  if (account) problems.push({ line: (account as { line: number }).line, msg: 'the account has no end record (33)' });
  if (!ended) problems.push({ line: lines.length, msg: 'the file has no end-of-file record (88)' });
  if (problems.length > 0) throw new StatementProblems(problems.sort((x, y) => x.line - y.line));
  if (out.length === 0) throw badRequest(`${field} has no account`);
  return out;
}
