/**
 * The one CSV reader of the gateway (MoTo campaigns G1 and batch files H1, H2): files sent in a JSON body
 * as base64, decoded, checked against the limits (10 MiB, 10,000 rows) and streamed through csv-parse,
 * each record with the line it starts on. UTF-8, a header row, comma separated, header names
 * case-insensitive, quoted fields allowed.
 *
 * A file that cannot be read (not base64, not UTF-8 text, not CSV, too large, wrong header) is a 400
 * naming the problem; problems of single rows are the caller's to collect (422 with every line).
 */
import { parse } from 'csv-parse';
import { Readable } from 'node:stream';
import { badRequest } from '../errors/errors.js';
import { containsCardNumber, redactCardNumbers } from '../security/card-numbers.js';

/** Largest CSV file accepted, decoded. */
export const CSV_MAX_BYTES = 10 * 1024 * 1024;
/** Most data rows in one file. */
export const CSV_MAX_ROWS = 10_000;
/** A body that carries the largest legal file in base64, with room for the other fields. */
export const CSV_BODY_LIMIT = Math.ceil((CSV_MAX_BYTES * 4) / 3) + 1024 * 1024;

export interface CsvRow {
  /** The line of the file the row starts on (the header is line 1). */
  line: number;
  /** Values by upper-case column name; columns absent from the file are absent here. */
  values: Record<string, string>;
  /** Number of fields the row had (differs from the header's on a ragged row). */
  width: number;
}

export interface CsvFile {
  columns: string[];
  rows: CsvRow[];
}

export interface CsvSpec {
  /** Columns that must be in the header (upper case). */
  required: readonly string[];
  /** Columns that may be in the header (upper case). Anything else is refused. */
  optional: readonly string[];
}

const BASE64 = /^[A-Za-z0-9+/]*={0,2}$/;

/**
 * The bytes of a base64 field. `prefix`: the data-URL prefix that must (`'required'`) or may
 * (`'optional'`) precede the base64 text.
 */
export function decodeBase64File(field: string, value: string, prefix: 'required' | 'optional'): Buffer {
  let text = value.trim();
  const m = /^data:([^;,]*)(;[^,]*)?,/i.exec(text);
  if (m) {
    if (!/^text\/csv$/i.test(m[1]) || !/;base64$/i.test(m[2] ?? '')) throw badRequest(`${field} must start with data:text/csv;base64, (found "${m[0].slice(0, 60)}")`);
    text = text.slice(m[0].length);
  } else if (prefix === 'required') {
    throw badRequest(`${field} must be a CSV file in base64 with the prefix data:text/csv;base64,`);
  }
  text = text.replace(/\s+/g, '');
  if (text.length === 0) throw badRequest(`${field} is empty`);
  if (text.length % 4 !== 0 || !BASE64.test(text)) throw badRequest(`${field} is not valid base64`);
  const maxEncoded = Math.ceil(CSV_MAX_BYTES / 3) * 4;
  if (text.length > maxEncoded) throw badRequest(`${field} is larger than ${CSV_MAX_BYTES} bytes (10 MiB), the largest file accepted`);
  const bytes = Buffer.from(text, 'base64');
  if (bytes.length > CSV_MAX_BYTES) throw badRequest(`${field} is larger than ${CSV_MAX_BYTES} bytes (10 MiB), the largest file accepted`);
  return bytes;
}

/** Bytes of the file handed to the parser at a time. */
const CHUNK_BYTES = 64 * 1024;

/**
 * The decoded text of `bytes`, chunk by chunk: UTF-8 (a byte order mark is dropped), no binary control
 * characters. Throws a 400 at the first chunk that breaks a rule.
 */
function* decodedChunks(field: string, bytes: Buffer): Generator<string> {
  const decoder = new TextDecoder('utf-8', { fatal: true });
  for (let at = 0; at < bytes.length; at += CHUNK_BYTES) {
    const last = at + CHUNK_BYTES >= bytes.length;
    let text: string;
    try {
      text = decoder.decode(bytes.subarray(at, at + CHUNK_BYTES), { stream: !last });
    } catch {
      throw badRequest(`${field} is not UTF-8 text (a CSV file is expected)`);
    }
    // eslint-disable-next-line no-control-regex
    if (/[\u0000-\u0008\u000b\u000c\u000e-\u001f]/.test(text)) throw badRequest(`${field} is not a CSV file (it contains binary data)`);
    if (text.length > 0) yield text;
  }
}

/**
 * Reads a CSV file (see the module comment): the decoded bytes stream through csv-parse, each record
 * with the line it starts on; reading stops as soon as the file breaks a limit (more than
 * CSV_MAX_ROWS rows), so nothing past it is parsed, and nothing is stored by a caller before the whole
 * file was read. Throws 400 when it cannot be read or its header is wrong.
 */
export async function readCsv(field: string, bytes: Buffer, spec: CsvSpec): Promise<CsvFile> {
  if (bytes.length > CSV_MAX_BYTES) throw badRequest(`${field} is larger than ${CSV_MAX_BYTES} bytes (10 MiB), the largest file accepted`);
  const records: Array<{ line: number; fields: string[] }> = [];
  const source = Readable.from(decodedChunks(field, bytes));
  // `to`: the parser stops after the header, the most rows and one more (the sign of too many)
  const parser = parse({ info: true, relax_column_count: true, skip_empty_lines: true, trim: true, max_record_size: 64 * 1024, to: CSV_MAX_ROWS + 2 });
  source.once('error', (err) => parser.destroy(err));
  source.pipe(parser);
  // csv-parse's `info.lines` is the line a record ends on, counting every CR and LF inside quoted fields
  // as a line of its own: a CR LF there counts twice, for that record and every later one
  let pairsBefore = 0;
  try {
    for await (const item of parser as AsyncIterable<{ record: string[]; info: { lines: number } }>) {
      let chars = 0;
      let pairs = 0;
      for (const f of item.record) {
        chars += f.match(/[\r\n]/g)?.length ?? 0;
        pairs += f.match(/\r\n/g)?.length ?? 0;
      }
      records.push({ line: item.info.lines - chars - pairsBefore, fields: item.record });
      pairsBefore += pairs;
      if (records.length > CSV_MAX_ROWS + 1) throw badRequest(`${field} has more than ${CSV_MAX_ROWS} rows, the most accepted in one file`);
    }
  } catch (err) {
    if ((err as { status?: number }).status === 400) throw err;
    const e = err as { message?: string; lines?: number };
    throw badRequest(`${field} is not a readable CSV file${e.lines ? ` (line ${e.lines})` : ''}: ${redactCardNumbers(String(e.message ?? err)).slice(0, 200)}`);
  } finally {
    source.destroy();
    parser.destroy();
  }
  if (records.length === 0) throw badRequest(`${field} is empty: a header row is expected`);
  // no cell of any column carries a card number (the same rule as every other merchant-supplied string,
  // http/pan-guard.ts): the file has no card column, and its cells are stored and shown as they are
  for (const r of records) guardCardNumbers(field, r, records[0].fields, r === records[0]);
  const header = checkHeader(field, records[0].fields, spec);
  const rows = records.slice(1).map((r) => {
    const values: Record<string, string> = {};
    header.forEach((h, i) => {
      if (i < r.fields.length) values[h] = r.fields[i];
    });
    return { line: r.line, values, width: r.fields.length };
  });
  if (rows.length === 0) throw badRequest(`${field} has a header and no rows`);
  return { columns: header, rows };
}

/** Throws the 400 of a record that carries a card number in any cell, naming its line and column. */
function guardCardNumbers(field: string, r: { line: number; fields: string[] }, header: string[], isHeader: boolean): void {
  const at = r.fields.findIndex((f) => containsCardNumber(f));
  if (at < 0) return;
  const column = isHeader ? 'the header row' : `column ${containsCardNumber(header[at] ?? '') ? at + 1 : (header[at] ?? String(at + 1)).trim().toUpperCase().slice(0, 40)}`;
  throw badRequest(`${field} line ${r.line}, ${column}, must not contain a card number: card numbers go only in the card fields`);
}

/** The header's column names (upper case), checked against `spec`; a 400 naming the problem otherwise. */
function checkHeader(field: string, fields: string[], spec: CsvSpec): string[] {
  const header = fields.map((h) => h.trim().toUpperCase());
  const known = new Set([...spec.required, ...spec.optional]);
  const seen = new Set<string>();
  for (const h of header) {
    if (h === '') throw badRequest(`${field}: the header row has an empty column name`);
    if (!known.has(h)) throw badRequest(`${field}: unknown column "${h.slice(0, 40)}" in the header; the columns are ${[...spec.required, ...spec.optional].join(', ')}`);
    if (seen.has(h)) throw badRequest(`${field}: column ${h} appears twice in the header`);
    seen.add(h);
  }
  const missing = spec.required.filter((c) => !seen.has(c));
  if (missing.length > 0) throw badRequest(`${field}: the header lacks the column${missing.length > 1 ? 's' : ''} ${missing.join(', ')}`);
  return header;
}

/** The limits of a streamed file (streamCsv). */
export interface CsvLimits {
  /** Largest file, in bytes. */
  maxBytes: number;
  /** Most data rows. */
  maxRows: number;
}

/**
 * The text of a stream of bytes, chunk by chunk, with the rules of `decodedChunks` (UTF-8, no binary
 * control characters) and at most `maxBytes` bytes: a 400 at the first chunk that breaks one.
 */
async function* decodedStream(field: string, source: AsyncIterable<Uint8Array>, maxBytes: number): AsyncGenerator<string> {
  const decoder = new TextDecoder('utf-8', { fatal: true });
  let total = 0;
  for await (const chunk of source) {
    total += chunk.length;
    if (total > maxBytes) throw badRequest(`${field} is larger than ${maxBytes} bytes, the largest file accepted`);
    let text: string;
    try {
      text = decoder.decode(chunk, { stream: true });
    } catch {
      throw badRequest(`${field} is not UTF-8 text (a CSV file is expected)`);
    }
    // eslint-disable-next-line no-control-regex
    if (/[\u0000-\u0008\u000b\u000c\u000e-\u001f]/.test(text)) throw badRequest(`${field} is not a CSV file (it contains binary data)`);
    if (text.length > 0) yield text;
  }
  let rest: string;
  try {
    rest = decoder.decode();
  } catch {
    throw badRequest(`${field} is not UTF-8 text (a CSV file is expected)`);
  }
  if (rest.length > 0) yield rest;
}

/**
 * Reads a CSV file as a stream, for files too large to hold (settlement reports): the same rules as
 * `readCsv` (UTF-8, a header row checked against `spec`, no card number in any cell, each row with the
 * line it starts on), the limits given, and rows yielded one at a time as they are parsed, so memory
 * stays flat whatever the size. A problem of the file as a whole (not readable, too large, too many
 * rows, a card number) is thrown as a 400 when the reader reaches it: a caller that stores rows as they
 * come must do so in a transaction it can roll back.
 */
export async function* streamCsv(field: string, source: AsyncIterable<Uint8Array> | Uint8Array, spec: CsvSpec, limits: CsvLimits): AsyncGenerator<CsvRow> {
  const bytes = source instanceof Uint8Array ? (async function* () { for (let at = 0; at < source.length; at += CHUNK_BYTES) yield source.subarray(at, at + CHUNK_BYTES); })() : source;
  const text = Readable.from(decodedStream(field, bytes, limits.maxBytes));
  const parser = parse({ info: true, relax_column_count: true, skip_empty_lines: true, trim: true, max_record_size: 64 * 1024 });
  text.once('error', (err) => parser.destroy(err));
  text.pipe(parser);
  let header: string[] | null = null;
  let rows = 0;
  let pairsBefore = 0;
  try {
    for await (const item of parser as AsyncIterable<{ record: string[]; info: { lines: number } }>) {
      let chars = 0;
      let pairs = 0;
      for (const f of item.record) {
        if (f.length === 0) continue;
        chars += f.match(/[\r\n]/g)?.length ?? 0;
        pairs += f.match(/\r\n/g)?.length ?? 0;
      }
      const r = { line: item.info.lines - chars - pairsBefore, fields: item.record };
      pairsBefore += pairs;
      guardCardNumbers(field, r, header ?? r.fields, header === null);
      if (header === null) {
        header = checkHeader(field, r.fields, spec);
        continue;
      }
      if (++rows > limits.maxRows) throw badRequest(`${field} has more than ${limits.maxRows} rows, the most accepted in one file`);
      const values: Record<string, string> = {};
      for (let i = 0; i < header.length && i < r.fields.length; i++) values[header[i]] = r.fields[i];
      yield { line: r.line, values, width: r.fields.length };
    }
  } catch (err) {
    if ((err as { status?: number }).status === 400) throw err;
    const e = err as { message?: string; lines?: number };
    throw badRequest(`${field} is not a readable CSV file${e.lines ? ` (line ${e.lines})` : ''}: ${redactCardNumbers(String(e.message ?? err)).slice(0, 200)}`);
  } finally {
    text.destroy();
    parser.destroy();
  }
  if (header === null) throw badRequest(`${field} is empty: a header row is expected`);
  if (rows === 0) throw badRequest(`${field} has a header and no rows`);
}

/** One problem of one row (422 `errors`). */
export interface LineError {
  line: number;
  msg: string;
}

/** Parses an integer amount in minor units (digits only); null when absent or invalid. */
export function csvAmount(v: string | undefined, max: number): number | 'invalid' | null {
  if (v === undefined || v.trim() === '') return null;
  const t = v.trim();
  if (!/^[0-9]{1,15}$/.test(t)) return 'invalid';
  const n = Number(t);
  if (n <= 0 || n > max) return 'invalid';
  return n;
}

/** `true`/`false`/`1`/`0`/`yes`/`no` (any case); empty is `fallback`. */
export function csvBool(v: string | undefined, fallback: boolean): boolean | 'invalid' {
  if (v === undefined || v.trim() === '') return fallback;
  const t = v.trim().toLowerCase();
  if (['true', '1', 'yes', 'y'].includes(t)) return true;
  if (['false', '0', 'no', 'n'].includes(t)) return false;
  return 'invalid';
}

/** An absolute http(s) URL of at most 500 characters, or null when empty; 'invalid' otherwise. */
export function csvUrl(v: string | undefined): string | null | 'invalid' {
  if (v === undefined || v.trim() === '') return null;
  const t = v.trim();
  if (t.length > 500) return 'invalid';
  try {
    const u = new URL(t);
    return u.protocol === 'https:' || u.protocol === 'http:' ? t : 'invalid';
  } catch {
    return 'invalid';
  }
}

