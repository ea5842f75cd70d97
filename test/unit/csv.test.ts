/**
 * The one CSV reader (campaign files, batch files): line numbers as a person counts them, decoding in
 * chunks (a character split between chunks, invalid UTF-8 past the first chunk), and the limits: reading
 * stops at the row limit, so what follows it is never parsed.
 */
import { describe, expect, it } from 'vitest';
import { CSV_MAX_BYTES, CSV_MAX_ROWS, decodeBase64File, readCsv } from '../../src/platform/csv/csv.js';

const spec = { required: ['A'], optional: ['B'] } as const;
const read = (text: string | Buffer) => readCsv('file', Buffer.isBuffer(text) ? text : Buffer.from(text, 'utf8'), spec);
const failure = async (p: Promise<unknown>) => {
  try {
    await p;
  } catch (err) {
    return err as { status: number; details: string };
  }
  throw new Error('expected a 400');
};

describe('CSV reader', () => {
  it('gives each row the line it starts on: blank lines, CR LF, quoted line breaks, a byte order mark', async () => {
    const crlf = await read('\ufeffa,B\r\n1,x\r\n\r\n2,"two\r\nlines"\r\n3,"three\r\n\r\nlines"\r\n\r\n\r\n4,y\r\n5');
    expect(crlf.columns).toEqual(['A', 'B']);
    expect(crlf.rows.map((r) => [r.line, r.values.A])).toEqual([[2, '1'], [4, '2'], [6, '3'], [11, '4'], [12, '5']]);
    expect(crlf.rows[1].values.B).toBe('two\r\nlines');
    const lf = await read('A,B\n1,x\n\n2,"two\nlines"\n3,"three\n\nlines"\n\n\n4,y\n5\n');
    expect(lf.rows.map((r) => [r.line, r.values.A])).toEqual([[2, '1'], [4, '2'], [6, '3'], [11, '4'], [12, '5']]);
    expect(lf.rows[2].values.B).toBe('three\n\nlines');
  });

  it('decodes in chunks: a character split between two chunks is read whole; bad UTF-8 far into the file is a 400', async () => {
    // '€' is 3 bytes; place it across the 64 KiB boundary
    const head = 'A,B\n';
    const pad = 'x'.repeat(64 * 1024 - head.length - 1 - 2);
    const good = Buffer.from(`${head}1,${pad}€\n`, 'utf8');
    expect(good.indexOf(Buffer.from('€')) < 64 * 1024 && good.indexOf(Buffer.from('€')) + 3 > 64 * 1024).toBe(true);
    const f = await read(good);
    expect(f.rows[0].values.B.endsWith('€')).toBe(true);

    const long = `1,${'x'.repeat(10_000)}\n`.repeat(30); // 300 KB: several chunks, few rows
    const bad = Buffer.concat([Buffer.from(`A,B\n${long}`), Buffer.from([0xc3, 0x28]), Buffer.from('\n')]);
    const err = await failure(read(bad));
    expect(err.status).toBe(400);
    expect(err.details).toMatch(/not UTF-8/);
    const binary = await failure(read(Buffer.concat([Buffer.from(`A,B\n${long}`), Buffer.from([0x00, 0x01])])));
    expect(binary.details).toMatch(/binary/);
  });

  it('accepts exactly the row limit and stops reading past it: what follows is never parsed', async () => {
    const rows = '1,x\n'.repeat(CSV_MAX_ROWS);
    const f = await read(`A,B\n${rows}`);
    expect(f.rows).toHaveLength(CSV_MAX_ROWS);
    expect(f.rows.at(-1)!.line).toBe(CSV_MAX_ROWS + 1);
    // one more row, then an unterminated quote that would be a parse error if it were read
    const err = await failure(read(`A,B\n${rows}2,y\n3,z\n4,"never closed\n${'5,w\n'.repeat(100)}`));
    expect(err.details).toMatch(new RegExp(`more than ${CSV_MAX_ROWS} rows`));
    // the same unterminated quote within the limit is what the parser reports
    const broken = await failure(read('A,B\n1,x\n4,"never closed\n5,w\n'));
    expect(broken.details).toMatch(/not a readable CSV/);
  });

  it('the byte limit holds before anything is parsed, in base64 and decoded', async () => {
    const big = Buffer.alloc(CSV_MAX_BYTES + 1, 0x61);
    expect((await failure(read(big))).details).toMatch(/larger than 10485760 bytes/);
    expect(() => decodeBase64File('file', `data:text/csv;base64,${big.toString('base64')}`, 'required')).toThrow(/larger than 10485760 bytes/);
    // the largest legal file decodes
    const legal = Buffer.alloc(CSV_MAX_BYTES, 0x61);
    expect(decodeBase64File('file', `data:text/csv;base64,${legal.toString('base64')}`, 'required').length).toBe(CSV_MAX_BYTES);
  });

  it('a header that is not the spec is a 400 naming the column', async () => {
    expect((await failure(read('A,C\n1,2\n'))).details).toMatch(/unknown column "C"/);
    expect((await failure(read('B\n1\n'))).details).toMatch(/lacks the column A/);
    expect((await failure(read('A,a\n1,2\n'))).details).toMatch(/appears twice/);
    expect((await failure(read(''))).details).toMatch(/empty/);
  });
});
