/**
 * Property: random settlement files and random damage to published statement examples never cause a
 * 5xx on the import routes; a refused file is a 400 with `details` or a 422 listing `{line, msg}`, and
 * nothing of it is kept. Seeded (PAYGATE_TEST_SEED replays a run).
 */
import fs from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { sql } from 'kysely';
import { createTestApp, type TestApp, type TestMerchant } from '../helpers/app.js';
import { useTestSeed } from '../helpers/seed.js';

const SEED = useTestSeed(import.meta.url);

let t: TestApp;
let a: TestMerchant;

beforeAll(async () => {
  t = await createTestApp();
  a = await t.merchant();
});
afterAll(async () => t?.close());

const b64 = (s: string | Buffer) => Buffer.from(s).toString('base64');
const HEADER = ['TYPE', 'PROCESSOR_ID', 'REFERENCE', 'AMOUNT', 'CURRENCY', 'TRANSACTION_DATE', 'SETTLEMENT_DATE', 'BATCH', 'FEE_INTERCHANGE', 'FEE_SCHEME', 'FEE_PROCESSING', 'NET'];

async function rows(): Promise<{ reports: number; lines: number; statements: number; bank: number }> {
  const { rows: r } = await sql<{ reports: number; lines: number; statements: number; bank: number }>`select
    (select count(*)::int from recon_reports) as reports, (select count(*)::int from recon_lines) as lines,
    (select count(*)::int from recon_statements) as statements, (select count(*)::int from recon_bank_lines) as bank`.execute(t.p.database.db);
  return r[0];
}

function check(status: number, body: any, label: string) {
  expect(status, `${label} (seed ${SEED}): ${JSON.stringify(body).slice(0, 300)}`).toBeLessThan(500);
  if (status === 422) {
    expect(Array.isArray(body.errors), label).toBe(true);
    for (const e of body.errors) {
      expect(Number.isInteger(e.line)).toBe(true);
      expect(typeof e.msg).toBe('string');
    }
  } else if (status !== 200) {
    expect(typeof body.details).toBe('string');
  }
}

const cell = () =>
  fc.oneof(
    fc.constantFrom('', 'PAYMENT', 'REFUND', 'PAYOUT', 'CHARGEBACK', 'ADJUSTMENT', 'payment', 'SALE', '100', '0', '-5', '1e3', '10.50', '99999999999999999',
      'EUR', 'eur', 'JPY', 'XYZ', '2026-03-14', '2026-02-30', '2026-03-14T23:00:00+02:00', '14/03/2026', 'B-1', '"quoted, comma"', '\u0000', 'e8b3d5f1-9a2c-4e7b-b6d4-3f1a8c5e7b20'),
    fc.string({ maxLength: 20 }),
  );
const csvRow = (cells: string[]) => cells.map((c) => (/[",\n\r]/.test(c) ? `"${c.replace(/"/g, '""')}"` : c)).join(',');

describe('random input on the import routes', () => {
  it('settlement files of random rows: never a 5xx; a refused file leaves nothing', async () => {
    let n = 0;
    await fc.assert(
      fc.asyncProperty(
        fc.shuffledSubarray(HEADER, { minLength: 1 }),
        fc.array(fc.array(cell(), { minLength: 0, maxLength: 13 }), { minLength: 0, maxLength: 6 }),
        fc.record({ service: fc.constantFrom(undefined, '', 'nope', a.service_uuid), settlement_days: fc.constantFrom(undefined, 0, 5, 61, -1), acquirer: fc.constantFrom('X', '', ' ', 'CHECKOUT', 'ä') }),
        async (header, body, opts) => {
          const before = await rows();
          const text = [header.join(','), ...body.map(csvRow)].join('\n');
          const r = await a.api.post('/reconciliation/settlements', { data: b64(`${text}\n${n++}`), filename: 'fuzz.csv', ...opts });
          check(r.status, r.body, `settlement ${JSON.stringify(text).slice(0, 200)}`);
          if (r.status !== 200) expect(await rows()).toEqual(before);
        },
      ),
      { seed: SEED, numRuns: 60 },
    );
  });

  it('the published statement examples damaged at random: never a 5xx; a refused file leaves nothing', async () => {
    const camt = fs.readFileSync('test/fixtures/reconciliation/camt053-iso-business-sample.xml');
    const n43 = fs.readFileSync('test/fixtures/reconciliation/norma43-aeb-example.n43');
    await fc.assert(
      fc.asyncProperty(
        fc.constantFrom(camt, n43),
        fc.array(fc.tuple(fc.nat(), fc.integer({ min: 0, max: 255 })), { minLength: 1, maxLength: 4 }),
        fc.option(fc.nat(), { nil: undefined }),
        async (file, flips, cut) => {
          const bytes = Buffer.from(file);
          for (const [at, v] of flips) bytes[at % bytes.length] = v;
          const damaged = cut === undefined ? bytes : bytes.subarray(0, cut % bytes.length);
          const before = await rows();
          const r = await a.api.post('/reconciliation/bank-statements', { data: b64(damaged), filename: 'fuzz.stmt' });
          check(r.status, r.body, 'statement');
          if (r.status !== 200) expect(await rows()).toEqual(before);
        },
      ),
      { seed: SEED, numRuns: 60 },
    );
  });
});
