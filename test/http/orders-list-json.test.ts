/**
 * GET /orders gets its entries built as JSON by the database (list.repo.ts `listTransactionsJson`).
 * They must be exactly the entries `presentListedTransaction` makes of the same rows: same keys, same
 * order, same values, on both engines, for awkward values (text that needs escaping, empty and nested
 * JSON, offsets with minutes on both sides of UTC, daylight-saving changes, currency conversions,
 * card-present `pos` and `payment_data` present or not) — byte for byte on the wire.
 */
import { randomUUID } from 'node:crypto';
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { presentListedTransaction, type ListedTxView } from '../../src/modules/payments/payments.domain.js';
import { toWireJson } from '../../src/platform/http/json.js';
import { createTestApp, type TestApp, type TestMerchant } from '../helpers/app.js';
import { paidOrder } from '../helpers/payments.js';

let t: TestApp;

beforeAll(async () => {
  t = await createTestApp();
});
afterAll(async () => t?.close());

const awkward = ['Ana Pérez / "quoted" \\ back', 'tab\there\nnew line\u0001', 'emoji 😀 and \u2028 separator', '', 'plain'];
const instants = [
  '2026-03-08T05:29:59.999Z', '2026-03-08T05:30:00.000Z', // America/St_Johns starts daylight saving
  '2026-03-29T00:59:59.000Z', '2026-03-29T01:00:00.000Z', // Europe/Madrid starts daylight saving
  '2026-10-25T00:30:00.123Z', '2026-10-25T01:30:00.456Z', // Europe/Madrid ends it (the repeated hour)
  '2026-11-01T03:29:00.000Z', '2026-11-01T03:31:00.000Z', // America/St_Johns ends it
  '1999-12-31T23:59:59.999Z', '2037-06-30T12:00:00.000Z',
];

async function merchantWithAwkwardTransactions(timezone: string): Promise<TestMerchant> {
  const m = await t.merchant({ timezone });
  const order = await paidOrder(t, m, { service: m.service_uuid, reference: `ref/${timezone}`, customer_ext_id: 'Cliente ñ' });
  const db = t.p.database.db;
  const { rows } = await sql<{ id: string; source_json: string }>`select id, source_json from transactions where order_id = ${order.uuid} limit 1`.execute(db);
  const card = JSON.parse(rows[0].source_json);
  const sources = [null, '{}', JSON.stringify({ ...card, holder: awkward[0], additional: awkward[1] })];
  const antifraud = [null, { evaluation: 'CHALLENGE', score: 55, risk_score: 40, fraud_score: 70, triggered_rules: ['IP_VELOCITY', 'AMOUNT "high"'] }, { evaluation: 'ACCEPT', score: 0, risk_score: 0, fraud_score: 0, triggered_rules: [] }];
  const device = [null, { fingerprint: 'fp/1', user_agent: awkward[2] }];
  const metadata = [null, {}, { erp: 'INV/1', note: awkward[1] }, { marketplace_refunds: [{ merchant_location_id: 1, amount: 100, description: 'd', net_amount: 90 }] }];
  const dcc = [null, { offered: true, accepted: true, cardholder_currency: '840', cardholder_amount: 1123, rate: '1.122975', markup: '3.50', source: 'SANDBOX', timestamp: '2026-01-02T03:04:05.678Z' },
    { offered: true, accepted: false, cardholder_currency: '392', cardholder_amount: 17500, rate: '175.0', markup: '3.50', source: 'SANDBOX', timestamp: '2026-01-02T03:04:05.678Z' }];
  const pos = [null, { device_id: '6f9c3d2e-8b1a-4c5d-9e2f-3a4b5c6d7e8f', tid: '10000001', mid: '123456789', stan: '000123', rrn: '123456789012', card_reading_method: 'NFC', entry_mode: '07' },
    { device_id: '6f9c3d2e-8b1a-4c5d-9e2f-3a4b5c6d7e8f', tid: '10000001', mid: '123456789', stan: null, rrn: null, card_reading_method: null, entry_mode: null }, {}];
  const paymentData = [null, null, { terminal_action: 'REQUEST_PIN' }, {}, { terminal_action: 'SWITCH_INTERFACE' }];
  for (let i = 0; i < instants.length; i++) {
    const at = new Date(instants[i]);
    const j = (v: unknown) => (v ? JSON.stringify(v) : null);
    await sql`insert into transactions (id, order_id, merchant_id, operative, processor_operation, amount, status, error, auth_code,
        processor_id, source_id, source_json, antifraud, device, error_details, customer_ip, awaiting_3ds, metadata, created_at, updated_at, started_at,
        dcc, pos, payment_data)
      select ${randomUUID()}::uuid, order_id, merchant_id, operative, processor_operation, ${1000 + i}, status, error, ${awkward[i % awkward.length]},
        ${i % 2 ? awkward[(i + 1) % awkward.length] : null}, source_id, ${sources[i % sources.length]},
        ${antifraud[i % antifraud.length] ? JSON.stringify(antifraud[i % antifraud.length]) : null}::jsonb,
        ${device[i % device.length] ? JSON.stringify(device[i % device.length]) : null}::jsonb,
        ${i % 3 ? awkward[i % awkward.length] : null}, customer_ip, awaiting_3ds,
        ${metadata[i % metadata.length] ? JSON.stringify(metadata[i % metadata.length]) : null}::jsonb, ${at}, ${new Date(at.getTime() + 1234)}, ${at},
        ${j(dcc[i % dcc.length])}::jsonb, ${j(pos[i % pos.length])}::jsonb, ${j(paymentData[i % paymentData.length])}::jsonb
      from transactions where id = ${rows[0].id}`.execute(db);
  }
  return m;
}

describe('GET /orders entries built by the database', () => {
  for (const timezone of ['America/St_Johns', 'Asia/Kolkata', 'Europe/Madrid', 'UTC']) {
    it(`are byte for byte what presentListedTransaction makes of the rows (merchant in ${timezone})`, async () => {
      const m = await merchantWithAwkwardTransactions(timezone);
      const r = await m.api.get('/orders', { start: '199001010000' });
      expect(r.status, r.raw).toBe(200);
      const { rows } = await sql<ListedTxView>`select t.*, o.currency_number as o_currency_number, o.service_id as o_service_id, o.service_type as o_service_type,
          o.reference as o_reference, o.customer_ext_id as o_customer_ext_id, o.status as o_status
        from transactions t join orders o on o.id = t.order_id where t.merchant_id = ${m.client_uuid} order by t.created_at, t.id`.execute(t.p.database.db);
      expect(rows.length).toBe(instants.length + 1);
      const zones = { server: t.p.config.timezone, merchant: timezone };
      const expected = rows.map((row) => presentListedTransaction({ ...row, amount: Number(row.amount) }, zones));
      expect(r.body.transactions).toEqual(expected);
      // and on the wire: the entries are the reference serialization of those objects, in that key order
      const wire = r.raw.slice(r.raw.indexOf('"transactions":[') + '"transactions":'.length, r.raw.indexOf(',"next_offset"'));
      expect(wire).toBe(toWireJson(expected));
    });
  }
});
