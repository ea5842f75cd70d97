/**
 * ISO 20022 camt.053 (BankToCustomerStatement), versions 001.02 to 001.13: the statements of a message,
 * each with its account, balances and booked entries, read with fast-xml-parser.
 *
 * What is read (element paths of the message definition):
 *  - `Stmt/Acct/Id/IBAN` (or `Othr/Id`), `Stmt/Acct/Ccy`;
 *  - `Stmt/FrToDt/FrDtTm|ToDtTm` (else the booking dates of the entries, else the closing balance's date);
 *  - `Stmt/Bal` with `Tp/CdOrPrtry/Cd` OPBD (opening booked; PRCD, the previous closing, when there is no
 *    OPBD) and CLBD (closing booked): `Amt` with its `Ccy`, `CdtDbtInd`, `Dt/Dt|DtTm`;
 *  - `Stmt/Ntry`: `Amt`, `CdtDbtInd`, `Sts` (`BOOK`, or `<Sts><Cd>BOOK</Cd></Sts>` from 001.08; other
 *    statuses are not booked and are left out), `BookgDt` and `ValDt` (`Dt` or `DtTm`: the date as the
 *    bank wrote it), `RvslInd` (a reversal turns the sign), `AcctSvcrRef`, `NtryRef`, `AddtlNtryInf`, and
 *    in `NtryDtls/TxDtls` and `NtryDtls/Btch` the references (`EndToEndId`, `InstrId`, `PmtInfId`,
 *    `MsgId`), the remittance information (`RmtInf/Ustrd`, `RmtInf/Strd/CdtrRefInf/Ref`), `AddtlTxInf`
 *    and the payer's name (`RltdPties/Dbtr/Nm` or `Dbtr/Pty/Nm`).
 *
 * Checks: well-formed XML without a DOCTYPE (no entity of the file is expanded), the camt.053 namespace,
 * amounts in the currency's minor units, and, when both balances are given, opening + entries = closing.
 * A problem of an entry or a balance is reported with the line of its element.
 */
import { XMLParser, XMLValidator } from 'fast-xml-parser';
import { badRequest } from '../../../platform/errors/errors.js';
import { currencyByCode } from '../../../platform/money/currency.js';
import { readDate } from '../reconciliation.domain.js';
import { clip, guardCardNumbers, minorUnits, StatementProblems, type BankEntry, type BankStatement } from './statement.js';

const ARRAYS = new Set(['Stmt', 'Bal', 'Ntry', 'TxDtls', 'Btch', 'Ustrd', 'Strd', 'AddtlTxInf', 'NtryDtls']);

type Node = Record<string, unknown>;

const parser = new XMLParser({
  ignoreAttributes: false,
  attributeNamePrefix: '@_',
  removeNSPrefix: true,
  parseTagValue: false,
  parseAttributeValue: false,
  trimValues: true,
  processEntities: true,
  isArray: (name) => ARRAYS.has(name),
});

const obj = (v: unknown): Node | undefined => (v && typeof v === 'object' && !Array.isArray(v) ? (v as Node) : undefined);
const arr = (v: unknown): Node[] => (Array.isArray(v) ? (v as unknown[]).map((x) => obj(x) ?? { '#text': String(x) }) : obj(v) ? [v as Node] : []);
/** The text of an element (a plain string, or `#text` of one with attributes). */
function str(v: unknown): string | null {
  if (typeof v === 'string') return v;
  if (typeof v === 'number') return String(v);
  const o = obj(v);
  return o && typeof o['#text'] === 'string' ? (o['#text'] as string) : null;
}
function path(v: unknown, ...keys: string[]): unknown {
  let at: unknown = v;
  for (const k of keys) {
    const o = Array.isArray(at) ? obj(at[0]) : obj(at);
    if (!o) return undefined;
    at = o[k];
  }
  return at;
}
const texts = (v: unknown): string[] => (Array.isArray(v) ? v.map(str) : [str(v)]).filter((x): x is string => !!x && x.trim() !== '');

/** The lines (from 1) where each `<name>` or `<prefix:name>` start tag of `xml` begins, in document order. */
function tagLines(xml: string, name: string): number[] {
  const out: number[] = [];
  const re = new RegExp(`<(?:[A-Za-z_][\\w.-]*:)?${name}[\\s>/]`, 'g');
  let line = 1;
  let last = 0;
  for (let m = re.exec(xml); m; m = re.exec(xml)) {
    for (let i = last; i < m.index; i++) if (xml.charCodeAt(i) === 10) line++;
    last = m.index;
    out.push(line);
  }
  return out;
}

function dateOf(v: unknown): string | null {
  const d = str(path(v, 'Dt')) ?? str(path(v, 'DtTm'));
  if (!d) return null;
  // a date and time is taken as the bank wrote it (its own day), not moved to UTC
  return readDate(d.trim().slice(0, 10));
}

export function parseCamt053(field: string, xml: string): BankStatement[] {
  if (/<!DOCTYPE/i.test(xml)) throw badRequest(`${field} must not have a DOCTYPE: a camt.053 file is plain XML`);
  guardCardNumbers(field, xml, (l) => l.replace(/<\/?[A-Za-z_][\w:.-]*/g, ' '));
  const valid = XMLValidator.validate(xml);
  if (valid !== true) throw badRequest(`${field} is not well-formed XML (line ${valid.err.line}): ${valid.err.msg.slice(0, 200)}`);
  let doc: Node;
  try {
    doc = parser.parse(xml) as Node;
  } catch (err) {
    throw badRequest(`${field} is not readable XML: ${String((err as Error).message).slice(0, 200)}`);
  }
  const document = obj(doc.Document);
  // the namespace of the Document element (fast-xml-parser drops namespace declarations with their prefixes)
  const ns = /<(?:[A-Za-z_][\w.-]*:)?Document\b[^>]*?\sxmlns(?::[A-Za-z_][\w.-]*)?\s*=\s*["']([^"']+)["']/.exec(xml)?.[1] ?? '';
  const stmts = arr(path(document, 'BkToCstmrStmt', 'Stmt'));
  if (!document || !/^urn:iso:std:iso:20022:tech:xsd:camt\.053\.001\.\d{2}$/.test(ns) || !path(document, 'BkToCstmrStmt')) {
    throw badRequest(`${field} is not a camt.053 message: a Document in the namespace urn:iso:std:iso:20022:tech:xsd:camt.053.001.xx with BkToCstmrStmt is expected`);
  }
  if (stmts.length === 0) throw badRequest(`${field} has no statement (Stmt)`);
  const ntryLines = tagLines(xml, 'Ntry');
  const balLines = tagLines(xml, 'Bal');
  const stmtLines = tagLines(xml, 'Stmt');
  let ntryAt = 0;
  let balAt = 0;
  const problems: Array<{ line: number; msg: string }> = [];
  const out: BankStatement[] = [];
  stmts.forEach((s, si) => {
    const stmtLine = stmtLines[si] ?? 1;
    const account = clip(str(path(s, 'Acct', 'Id', 'IBAN')) ?? str(path(s, 'Acct', 'Id', 'Othr', 'Id')), 60);
    const bals = arr(s.Bal).map((b) => ({ b, line: balLines[balAt++] ?? stmtLine }));
    const ntries = arr(s.Ntry).map((n) => ({ n, line: ntryLines[ntryAt++] ?? stmtLine }));
    let currency = clip(str(path(s, 'Acct', 'Ccy')), 3) ?? clip(str(path(bals[0]?.b, 'Amt', '@_Ccy')), 3) ?? clip(str(path(ntries[0]?.n, 'Amt', '@_Ccy')), 3);
    if (!account) problems.push({ line: stmtLine, msg: 'the statement has no account (Acct/Id/IBAN or Acct/Id/Othr/Id)' });
    if (!currency || !currencyByCode(currency)) {
      problems.push({ line: stmtLine, msg: 'the statement has no currency (Acct/Ccy, or the currency of its balances)' });
      currency = null;
    }
    const balance = (codes: string[]) => {
      for (const code of codes) {
        const hit = bals.find(({ b }) => str(path(b, 'Tp', 'CdOrPrtry', 'Cd')) === code);
        if (!hit) continue;
        const ccy = str(path(hit.b, 'Amt', '@_Ccy')) ?? currency ?? '';
        const amount = minorUnits(str(path(hit.b, 'Amt')) ?? '', ccy);
        const sign = str(path(hit.b, 'CdtDbtInd'));
        if (amount === null || (sign !== 'CRDT' && sign !== 'DBIT') || (currency && ccy !== currency)) {
          problems.push({ line: hit.line, msg: `the ${code} balance must have an amount in ${currency ?? 'the statement currency'} and CdtDbtInd CRDT or DBIT` });
          return null;
        }
        return { amount: sign === 'DBIT' ? -amount : amount, date: dateOf(path(hit.b, 'Dt')), line: hit.line };
      }
      return null;
    };
    const opening = balance(['OPBD', 'PRCD']);
    const closing = balance(['CLBD']);
    const entries: BankEntry[] = [];
    const problemsBefore = problems.length;
    for (const { n, line } of ntries) {
      const status = str(n.Sts) ?? str(path(n, 'Sts', 'Cd'));
      if (status !== null && status.trim().toUpperCase() !== 'BOOK') continue;
      const ccy = str(path(n, 'Amt', '@_Ccy')) ?? currency ?? '';
      const amount = minorUnits(str(path(n, 'Amt')) ?? '', ccy);
      const sign = str(n.CdtDbtInd);
      const booking = dateOf(n.BookgDt) ?? dateOf(n.ValDt);
      const lineProblems: string[] = [];
      if (amount === null) lineProblems.push(`Amt must be an amount in ${ccy || 'its currency'} with at most its decimals`);
      if (currency && ccy !== currency) lineProblems.push(`Amt is in ${ccy}; the statement is in ${currency}`);
      if (sign !== 'CRDT' && sign !== 'DBIT') lineProblems.push('CdtDbtInd must be CRDT or DBIT');
      if (!booking) lineProblems.push('the entry has no booking date (BookgDt/Dt or BookgDt/DtTm)');
      if (lineProblems.length > 0) {
        problems.push(...lineProblems.map((msg) => ({ line, msg })));
        continue;
      }
      const reversal = String(str(n.RvslInd) ?? '').toLowerCase() === 'true';
      const signed = (sign === 'DBIT') !== reversal ? -amount! : amount!;
      const details = arr(n.NtryDtls).flatMap((d) => [...arr(d.TxDtls), ...arr(d.Btch)]);
      const e2e = details.flatMap((d) => texts(path(d, 'Refs', 'EndToEndId'))).find((x) => x.toUpperCase() !== 'NOTPROVIDED') ?? null;
      const refs = [
        ...details.flatMap((d) => [...texts(path(d, 'Refs', 'EndToEndId')), ...texts(path(d, 'Refs', 'InstrId')), ...texts(path(d, 'Refs', 'PmtInfId')), ...texts(d.MsgId), ...texts(d.PmtInfId)]),
        ...details.flatMap((d) => [...texts(path(d, 'RmtInf', 'Ustrd')), ...arr(path(d, 'RmtInf', 'Strd')).flatMap((x) => texts(path(x, 'CdtrRefInf', 'Ref'))), ...texts(d.AddtlTxInf)]),
        ...details.flatMap((d) => [...texts(path(d, 'RltdPties', 'Dbtr', 'Nm')), ...texts(path(d, 'RltdPties', 'Dbtr', 'Pty', 'Nm'))]),
        ...texts(n.NtryRef),
        ...texts(n.AcctSvcrRef),
        ...texts(n.AddtlNtryInf),
      ];
      entries.push({
        line,
        bookingDate: booking!,
        valueDate: dateOf(n.ValDt),
        amount: signed,
        currency: ccy,
        reference: clip(e2e ?? str(n.AcctSvcrRef), 140),
        remittance: clip([...new Set(refs.map((x) => x.trim()))].join(' | '), 1000),
      });
    }
    const sum = entries.reduce((t, e) => t + e.amount, 0);
    // the balances are checked when every entry could be read (a broken entry is its own problem)
    if (opening && closing && problems.length === problemsBefore && opening.amount + sum !== closing.amount) {
      problems.push({ line: closing.line, msg: `the closing balance (CLBD ${closing.amount}) is not the opening balance (${opening.amount}) plus the booked entries (${sum}) in minor units` });
    }
    const from = readDate((str(path(s, 'FrToDt', 'FrDtTm')) ?? '').slice(0, 10)) ?? entries.reduce<string | null>((m, e) => (m === null || e.bookingDate < m ? e.bookingDate : m), null) ?? closing?.date ?? opening?.date;
    const to = readDate((str(path(s, 'FrToDt', 'ToDtTm')) ?? '').slice(0, 10)) ?? entries.reduce<string | null>((m, e) => (m === null || e.bookingDate > m ? e.bookingDate : m), null) ?? closing?.date ?? from;
    if (!from || !to) problems.push({ line: stmtLine, msg: 'the statement says no period (FrToDt), has no booked entry and no dated balance' });
    if (account && currency && from && to) {
      out.push({ account, currency, periodFrom: from <= to ? from : to, periodTo: from <= to ? to : from, opening: opening?.amount ?? closing?.amount ?? 0, closing: closing?.amount ?? (opening?.amount ?? 0) + sum, entries });
    }
  });
  if (problems.length > 0) throw new StatementProblems(problems.sort((x, y) => x.line - y.line));
  return out;
}
