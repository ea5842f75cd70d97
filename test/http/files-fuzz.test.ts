/**
 * Property: random files and payments on the file routes (G1, G2, H1, H2, the disputes import and a
 * dispute's evidence) never cause a 5xx, and a refused file is a 400 with `details` or a 422 listing
 * `{line, msg}` with nothing stored. Seeded:
 * FILES_SEED=<n> replays a run.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { sql } from 'kysely';
import { createTestApp, type TestApp, type TestMerchant } from '../helpers/app.js';
import { paidOrder, storeCard, TEST_CARDS } from '../helpers/payments.js';
import { useTestSeed } from '../helpers/seed.js';

const TEST_SEED = useTestSeed(import.meta.url);

let t: TestApp;
let a: TestMerchant;
let card: string;

const seed = TEST_SEED;

beforeAll(async () => {
  process.stdout.write(`files fuzz seed ${seed} (FILES_SEED=${seed} to replay)\n`);
  t = await createTestApp();
  a = await t.merchant();
  card = await storeCard(t, a, TEST_CARDS.APPROVED, 'cust-1');
});
afterAll(async () => t?.close());

const b64 = (s: string) => Buffer.from(s, 'utf8').toString('base64');
const inDays = (n: number) => new Date(Date.now() + n * 86400_000).toISOString().slice(0, 10);

/** A cell: often plausible, sometimes hostile. */
const cell = () =>
  fc.oneof(
    fc.constantFrom('', '100', '0', '-1', '1e3', '99999999999999999', 'true', 'maybe', 'AUTHORIZATION', 'DEFERRED', 'PAYOUT', 'a@example.com', '+34612345678', '912345678', 'https://x.example/ok', 'javascript:alert(1)', '00000000-0000-4000-8000-000000000000', '"quoted, comma"', '\u0000'),
    fc.string({ maxLength: 20 }),
  );

function row(cells: string[]): string {
  return cells.map((c) => (/[",\n]/.test(c) ? `"${c.replace(/"/g, '""')}"` : c)).join(',');
}

async function stored(): Promise<number> {
  const { rows } = await sql<{ n: string }>`select (select count(*) from moto_campaigns) + (select count(*) from batch_files) as n`.execute(t.p.database.db);
  return Number(rows[0].n);
}

function checkAnswer(status: number, body: any, label: string) {
  expect(status, `${label} (seed ${seed}): ${JSON.stringify(body).slice(0, 300)}`).toBeLessThan(500);
  if (status === 422) {
    expect(Array.isArray(body.errors)).toBe(true);
    for (const e of body.errors) {
      expect(Number.isInteger(e.line)).toBe(true);
      expect(typeof e.msg).toBe('string');
    }
  } else if (status !== 200) {
    expect(typeof body.details).toBe('string');
  }
}

describe('random files', () => {
  it('G1: random rows under the campaign header', async () => {
    const header = ['AMOUNT', 'OPERATIVE', 'DESTINATION', 'SECURE', 'URL_OK', 'CARD_TEMPLATE', 'ADDITIONAL'];
    await fc.assert(
      fc.asyncProperty(fc.array(fc.array(cell(), { minLength: 0, maxLength: 9 }), { minLength: 0, maxLength: 6 }), fc.constantFrom('PHONE', 'MAIL', 'CUSTOM_DELIVERY'), async (rows, type) => {
        const before = await stored();
        const file = `data:text/csv;base64,${b64([header.join(','), ...rows.map(row)].join('\n'))}`;
        const r = await a.api.post('/moto/campaign/file', { description: 'fuzz', expires_at: inDays(3), service_uuid: a.service_uuid, subject: 'S', type, file });
        checkAnswer(r.status, r.body, 'G1');
        if (r.status !== 200) expect(await stored()).toBe(before);
      }),
      { seed, numRuns: 60 },
    );
  });

  it('G2: random payments', async () => {
    const payment = fc.dictionary(fc.constantFrom('amount', 'operative', 'secure', 'destination', 'url_post', 'language', 'card_template'), fc.oneof(cell(), fc.integer(), fc.boolean(), fc.constant(null)), { maxKeys: 6 });
    await fc.assert(
      fc.asyncProperty(fc.array(payment, { maxLength: 5 }), fc.oneof(fc.constant(inDays(2)), fc.string({ maxLength: 12 })), async (payments, expires) => {
        const r = await a.api.post('/moto/campaign', { description: 'fuzz', expires_at: expires, service_uuid: a.service_uuid, type: 'CUSTOM_DELIVERY', payments });
        checkAnswer(r.status, r.body, 'G2');
      }),
      { seed, numRuns: 60 },
    );
  });

  it('H1 and H2: random rows, random execute_at', async () => {
    const cardCell = fc.oneof(cell(), fc.constant(card));
    const svcCell = fc.oneof(cell(), fc.constant(a.service_uuid!));
    await fc.assert(
      fc.asyncProperty(
        fc.array(fc.tuple(cell(), cardCell, cell(), svcCell), { maxLength: 5 }),
        fc.array(fc.tuple(cell(), cell()), { maxLength: 5 }),
        fc.oneof(fc.constant(null), fc.constant(''), fc.string({ maxLength: 25 }), fc.constant('2026-02-30 10:00:00'), fc.constant('2030-01-01T00:00:00+01:00')),
        async (auths, refunds, executeAt) => {
          const before = await stored();
          const h1 = await a.api.post('/batch/authorizations', { data: b64(['AMOUNT,CARD,CUSTOMER_EXTERNAL_ID,SERVICE', ...auths.map(row)].join('\n')), filename: 'f.csv', execute_at: executeAt });
          checkAnswer(h1.status, h1.body, 'H1');
          const h2 = await a.api.post('/batch/refunds', { data: b64(['ORDER_UUID,AMOUNT', ...refunds.map(row)].join('\n')), filename: 'r.csv', execute_at: executeAt });
          checkAnswer(h2.status, h2.body, 'H2');
          if (h1.status !== 200 && h2.status !== 200) expect(await stored()).toBe(before);
        },
      ),
      { seed, numRuns: 60 },
    );
  });

  it('disputes: random rows under the import header, random evidence', async () => {
    const paid = await paidOrder(t, a, { amount: 5000 });
    const tx = paid.transactions[0].uuid as string;
    const dispute = (await a.api.post('/disputes/simulate', { order_uuid: paid.uuid })).body.dispute.uuid as string;
    const disputes = async () => Number((await sql<{ n: string }>`select (select count(*) from disputes) + (select count(*) from dispute_evidence) + (select count(*) from dispute_history) as n`.execute(t.p.database.db)).rows[0].n);
    const pick = (...xs: string[]) => fc.oneof(cell(), fc.constantFrom(...xs));
    const header = 'DISPUTE_ID,TRANSACTION,REASON_CODE,CATEGORY,AMOUNT,CURRENCY,STAGE,STATUS,EVIDENCE_DUE';
    await fc.assert(
      fc.asyncProperty(
        fc.array(fc.tuple(pick('CB-1', 'CB-2'), pick(tx), pick('10.4', '4837'), pick('FRAUD', 'fraud', 'GENERAL'), pick('5000', '100', '5001'), pick('EUR', 'USD'), pick('CHARGEBACK', 'RETRIEVAL', 'ARBITRATION'), pick('NEEDS_RESPONSE', 'WON', 'LOST', 'UNDER_REVIEW'), pick(inDays(10), '2030-01-01T00:00:00+01:00')), { maxLength: 5 }),
        fc.dictionary(fc.constantFrom('additional_information', 'customer_name', 'shipping_carrier', 'bogus', ''), fc.oneof(fc.string({ maxLength: 30 }), fc.constant('4111 1111 1111 1111'))),
        fc.array(fc.record({ filename: fc.oneof(fc.string({ maxLength: 12 }), fc.constant('a.pdf')), data: fc.oneof(fc.base64String({ maxLength: 40 }), fc.string({ maxLength: 10 }), fc.constant(b64('%PDF-1.4 (4111111111111111) Tj'))) }), { maxLength: 3 }),
        async (rows, fields, documents) => {
          const before = await disputes();
          const r = await a.api.post('/disputes/import', { data: b64([header, ...rows.map(row)].join('\n')), filename: 'disputes.csv', acquirer: 'FUZZ' });
          checkAnswer(r.status, r.body, 'disputes import');
          if (r.status !== 200) expect(await disputes()).toBe(before);
          const before2 = await disputes();
          const e = await a.api.post(`/disputes/${dispute}/evidence`, { fields, documents });
          checkAnswer(e.status, e.body, 'dispute evidence');
          if (e.status !== 200) expect(await disputes()).toBe(before2);
        },
      ),
      { seed, numRuns: 40 },
    );
  });
});
