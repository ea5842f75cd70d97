/**
 * Batch files (H1 payments with stored cards, H2 refunds): every row becomes exactly one order and
 * payment (or one refund) through the payments module, even when a line is worked again after a crash
 * or by two workers at once; files with problems are refused whole; progress and results CSV.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sql } from 'kysely';
import { createTestApp, type TestApp, type TestMerchant } from '../helpers/app.js';
import { advance, paidOrder, storeCard, TEST_CARDS } from '../helpers/payments.js';
import { parse } from 'csv-parse/sync';

let t: TestApp;
let a: TestMerchant;
let b: TestMerchant;

beforeAll(async () => {
  t = await createTestApp();
  a = await t.merchant({ name: 'Batch Shop' });
  b = await t.merchant({ name: 'Other' });
});
afterAll(async () => t?.close());

const b64 = (text: string) => Buffer.from(text, 'utf8').toString('base64');
const drain = () => t.m.batch.drain();

async function txCount(orderId: string, operative?: string) {
  let q = t.p.database.db.selectFrom('transactions').select((eb) => eb.fn.countAll<string>().as('n')).where('order_id', '=', orderId);
  if (operative) q = q.where('operative', '=', operative as any);
  return Number((await q.executeTakeFirstOrThrow()).n);
}

describe('H1 payments file', () => {
  it('each row is one order paid once with its stored card; progress, outcomes and the results CSV agree with the database', async () => {
    const ok = await storeCard(t, a, TEST_CARDS.APPROVED, 'cust-ok');
    const refused = await storeCard(t, a, TEST_CARDS.REFUSED, 'cust-ko');
    const rows: string[] = [];
    for (let i = 0; i < 40; i++) {
      const card = i % 10 === 3 ? refused : ok;
      rows.push(`${100 + i},${card},${i % 10 === 3 ? 'cust-ko' : ''},${a.service_uuid},"fee, ${i}",`);
    }
    const r = await a.api.post('/batch/authorizations', { data: b64(`amount,card,customer_external_id,service,additional,url_post\n${rows.join('\n')}\n`), filename: 'fees.csv' });
    expect(r.status, r.raw).toBe(200);
    expect(r.body.errors).toEqual([]);
    expect(r.body.batch).toMatchObject({ type: 'AUTHORIZATION', status: 'SCHEDULED', total: 40, pending: 40, progress: 0 });
    const id = r.body.batch.uuid;

    // two workers at once
    await Promise.all([drain(), drain()]);
    const s = await a.api.get(`/batch/${id}`);
    expect(s.status, s.raw).toBe(200);
    expect(s.body.batch).toMatchObject({ status: 'COMPLETED', total: 40, pending: 0, succeeded: 36, failed: 4, progress: 100 });
    expect(s.body.batch.finished_at).not.toBeNull();
    // the counts alone, and pages of the lines
    const counts = await a.api.get(`/batch/${id}?limit=0`);
    expect(counts.status, counts.raw).toBe(200);
    expect(counts.body).toMatchObject({ batch: s.body.batch, lines: [], next_offset: null });
    const page1 = await a.api.get(`/batch/${id}?limit=15`);
    expect(page1.body.lines).toEqual(s.body.lines.slice(0, 15));
    expect(page1.body.next_offset).toBe(15);
    const last = await a.api.get(`/batch/${id}?limit=15&offset=30`);
    expect(last.body.lines).toEqual(s.body.lines.slice(30));
    expect(last.body.next_offset).toBeNull();
    expect((await a.api.get(`/batch/${id}?limit=-1`)).status).toBe(400);
    for (const l of s.body.lines) {
      const order = await t.p.database.db.selectFrom('orders').select(['amount', 'status', 'customer_ext_id', 'additional']).where('id', '=', l.order_uuid).executeTakeFirstOrThrow();
      expect(await txCount(l.order_uuid)).toBe(1);
      expect(Number(order.amount)).toBe(l.amount);
      expect(order.status).toBe(l.outcome);
      const i = l.line - 2;
      expect(order.additional).toBe(`fee, ${i}`);
      expect(l.status).toBe(i % 10 === 3 ? 'FAILED' : 'SUCCEEDED');
      if (i % 10 === 3) expect(l.error).toBeTruthy();
      else expect(order.customer_ext_id).toBe('cust-ok');
    }

    const csv = await t.app.inject({ method: 'GET', url: `/v1/sandbox/batch/${id}/results.csv`, headers: { authorization: `Bearer ${a.api_key}` } });
    expect(csv.statusCode).toBe(200);
    expect(csv.headers['content-type']).toMatch(/text\/csv/);
    const records = parse(csv.body, { columns: true }) as Array<Record<string, string>>;
    expect(records).toHaveLength(40);
    for (const rec of records) {
      const line = s.body.lines.find((l: any) => l.line === Number(rec.LINE));
      expect(rec).toEqual({ LINE: String(line.line), STATUS: line.status, ORDER_UUID: line.order_uuid, AMOUNT: String(line.amount), OUTCOME: line.outcome, ERROR: line.error ?? '' });
    }
    // another merchant sees nothing
    expect((await b.api.get(`/batch/${id}`)).status).toBe(404);
  });

  it('a line worked again (as after a crash between charging and recording) charges once', async () => {
    const card = await storeCard(t, a, TEST_CARDS.APPROVED, 'cust-2');
    const r = await a.api.post('/batch/authorizations', { data: b64(`AMOUNT,CARD,SERVICE\n700,${card},${a.service_uuid}\n`), filename: 'one.csv' });
    expect(r.status, r.raw).toBe(200);
    await drain();
    const line = await t.p.database.db.selectFrom('batch_lines').selectAll().where('batch_id', '=', r.body.batch.uuid).executeTakeFirstOrThrow();
    expect(line.status).toBe('SUCCEEDED');
    // the worker "died" before recording the outcome: the line is RUNNING and its job runs again
    await t.p.database.db.updateTable('batch_lines').set({ status: 'RUNNING', outcome: null }).where('id', '=', line.id).execute();
    await t.p.jobs.enqueue(t.p.database.db, { queue: 'batch.line', payload: { id: line.id } });
    await drain();
    // and a job for a finished line does nothing
    await t.p.jobs.enqueue(t.p.database.db, { queue: 'batch.line', payload: { id: line.id } });
    await drain();
    expect(await txCount(line.order_id)).toBe(1);
    const again = await t.p.database.db.selectFrom('batch_lines').selectAll().where('id', '=', line.id).executeTakeFirstOrThrow();
    expect(again).toMatchObject({ status: 'SUCCEEDED', outcome: 'SUCCESS', attempts: 2 });
  });

  it('execute_at: nothing happens before it (merchant timezone), everything after', async () => {
    const card = await storeCard(t, a, TEST_CARDS.APPROVED, 'cust-3');
    const local = new Date(Date.now() + 3 * 86400_000).toISOString().slice(0, 10);
    const r = await a.api.post('/batch/authorizations', { data: b64(`AMOUNT,CARD,SERVICE\n900,${card},${a.service_uuid}\n`), filename: 'later.csv', execute_at: `${local} 09:30:00` });
    expect(r.status, r.raw).toBe(200);
    const at = new Date(r.body.batch.execute_at);
    expect([7, 8]).toContain(at.getUTCHours()); // 09:30 in Europe/Madrid
    await drain();
    expect((await a.api.get(`/batch/${r.body.batch.uuid}`)).body.batch).toMatchObject({ status: 'SCHEDULED', pending: 1 });
    await advance(a, 4 * 86400);
    await drain();
    expect((await a.api.get(`/batch/${r.body.batch.uuid}`)).body.batch).toMatchObject({ status: 'COMPLETED', succeeded: 1 });
  });
});

describe('H2 refunds file', () => {
  it('valid and (after the check) over-the-remainder rows: each outcome recorded, nothing refunded twice', async () => {
    const o1 = await paidOrder(t, a, { amount: 1000 });
    const o2 = await paidOrder(t, a, { amount: 2000 });
    const o3 = await paidOrder(t, a, { amount: 3000 });
    const r = await a.api.post('/batch/refunds', { data: b64(`ORDER_UUID,AMOUNT\n${o1.uuid},\n${o2.uuid},500\n${o3.uuid},3000\n`), filename: 'returns.csv' });
    expect(r.status, r.raw).toBe(200);
    // the state changes after the file was checked: o3 is partly refunded through the API
    const direct = await a.api.post('/payment/refund', { order_uuid: o3.uuid, amount: 100 });
    expect(direct.status, direct.raw).toBe(200);
    await drain();
    const s = await a.api.get(`/batch/${r.body.batch.uuid}`);
    expect(s.body.batch).toMatchObject({ status: 'COMPLETED', succeeded: 2, failed: 1 });
    const [l1, l2, l3] = s.body.lines;
    expect(l1).toMatchObject({ status: 'SUCCEEDED', outcome: 'REFUNDED 1000', order_uuid: o1.uuid });
    expect(l2).toMatchObject({ status: 'SUCCEEDED', outcome: 'REFUNDED 500' });
    expect(l3).toMatchObject({ status: 'FAILED', outcome: 'REJECTED 400' });
    expect(l3.error).toMatch(/remainder|refund/i);

    // line 2 worked again after a "crash": no second refund
    const line2 = await t.p.database.db.selectFrom('batch_lines').selectAll().where('batch_id', '=', r.body.batch.uuid).where('line', '=', 3).executeTakeFirstOrThrow();
    await t.p.database.db.updateTable('batch_lines').set({ status: 'RUNNING', outcome: null }).where('id', '=', line2.id).execute();
    await t.p.jobs.enqueue(t.p.database.db, { queue: 'batch.line', payload: { id: line2.id } });
    await drain();
    expect(await txCount(o2.uuid, 'REFUND')).toBe(1);
    expect(await txCount(o1.uuid, 'REFUND')).toBe(1);
    expect(await txCount(o3.uuid, 'REFUND')).toBe(1);
    const order2 = await a.api.get(`/order/${o2.uuid}`);
    expect(order2.body.order).toMatchObject({ refunded: 500, status: 'PARTIALLY_REFUNDED' });
  });
});

describe('bad input', () => {
  const count = async () => Number((await sql<{ n: string }>`select count(*) as n from batch_files`.execute(t.p.database.db)).rows[0].n);

  it('rows with problems: 422 listing each line, nothing queued', async () => {
    const card = await storeCard(t, a, TEST_CARDS.APPROVED, 'cust-4');
    const foreign = await storeCard(t, b, TEST_CARDS.APPROVED, 'cust-b');
    const before = await count();
    const file = [
      'AMOUNT,CARD,CUSTOMER_EXTERNAL_ID,SERVICE',
      `100,${card},,${a.service_uuid}`,
      `abc,${card},,${a.service_uuid}`,
      `100,${foreign},,${a.service_uuid}`,
      `100,${card},someone-else,${a.service_uuid}`,
      `100,${card},,${b.service_uuid}`,
      `100,not-a-uuid,,`,
    ].join('\n');
    const r = await a.api.post('/batch/authorizations', { data: b64(file), filename: 'bad.csv' });
    expect(r.status, r.raw).toBe(422);
    expect(r.body.errors).toEqual([
      { line: 3, msg: expect.stringContaining('AMOUNT') },
      { line: 4, msg: expect.stringContaining('not a stored card') },
      { line: 5, msg: expect.stringContaining('does not belong') },
      { line: 6, msg: expect.stringContaining('was not found') },
      { line: 7, msg: expect.stringContaining('CARD must be') },
      { line: 7, msg: expect.stringContaining('SERVICE') },
    ]);
    expect(await count()).toBe(before);

    const paid = await paidOrder(t, a, { amount: 1000 });
    const unpaid = (await a.api.post('/payment', { amount: 500, operative: 'AUTHORIZATION', secure: false, description: 'x', service: a.service_uuid })).body.order;
    const refunds = await a.api.post('/batch/refunds', { data: b64(`ORDER_UUID,AMOUNT\n${paid.uuid},2000\n${unpaid.uuid},\n${paid.uuid},1\n00000000-0000-4000-8000-000000000000,\n`), filename: 'r.csv' });
    expect(refunds.status, refunds.raw).toBe(422);
    expect(refunds.body.errors).toEqual([
      { line: 2, msg: expect.stringContaining('remainder') },
      { line: 3, msg: expect.stringContaining('only paid orders') },
      { line: 4, msg: expect.stringContaining('already on line 2') },
      { line: 5, msg: expect.stringContaining('not found') },
    ]);
    expect(await count()).toBe(before);
  });

  it('limits: the largest legal file is read whole (10 MiB, 10,000 rows); a byte or a row more is 400; nothing is stored', async () => {
    const before = await count();
    const header = 'AMOUNT,CARD,SERVICE,ADDITIONAL\n';
    // 10,000 rows with a problem each, padded to just under 10 MiB
    const pad = Math.floor((10 * 1024 * 1024 - header.length) / 10_000) - '0,x,y,\n'.length;
    const row = `0,x,y,${'a'.repeat(pad)}\n`;
    const legal = header + row.repeat(10_000);
    expect(Buffer.byteLength(legal)).toBeLessThanOrEqual(10 * 1024 * 1024);
    expect(Buffer.byteLength(legal)).toBeGreaterThan(10 * 1024 * 1024 - 10_000);
    const big = await a.api.post('/batch/authorizations', { data: b64(legal), filename: 'big.csv' });
    expect(big.status, big.raw.slice(0, 300)).toBe(422);
    expect(big.body.errors.length).toBeGreaterThan(0);
    expect(big.body.errors[0]).toMatchObject({ line: 2 });
    // every row was read: four problems in each (AMOUNT, CARD, SERVICE, ADDITIONAL longer than 500)
    expect(big.body.details).toMatch(/^40000 problems in the file/);
    // one byte more
    const over = await a.api.post('/batch/authorizations', { data: b64(legal + 'a'.repeat(10 * 1024 * 1024 - Buffer.byteLength(legal) + 1)), filename: 'over.csv' });
    expect(over.status, over.raw.slice(0, 300)).toBe(400);
    expect(over.body.details).toMatch(/larger than 10485760 bytes/);
    // one row more (small rows)
    const rows = await a.api.post('/batch/refunds', { data: b64(`ORDER_UUID,AMOUNT\n${'00000000-0000-4000-8000-000000000000,1\n'.repeat(10_001)}`), filename: 'rows.csv' });
    expect(rows.status, rows.raw.slice(0, 300)).toBe(400);
    expect(rows.body.details).toMatch(/more than 10000 rows/);
    expect(await count()).toBe(before);
  }, 120_000);

  it('unreadable files and bad fields: 400 with a clear details', async () => {
    const cases: Array<[Record<string, unknown>, RegExp]> = [
      [{ data: '%%%', filename: 'x.csv' }, /not valid base64/],
      [{ data: `data:text/plain;base64,${b64('ORDER_UUID\n')}`, filename: 'x.csv' }, /data:text\/csv;base64/],
      [{ data: b64('ORDER,AMOUNT\nx,1\n'), filename: 'x.csv' }, /unknown column "ORDER"/],
      [{ data: b64('AMOUNT\n1\n'), filename: 'x.csv' }, /lacks the column ORDER_UUID/],
      [{ data: Buffer.from([0xff, 0xfe, 0x00, 0x41]).toString('base64'), filename: 'x.csv' }, /UTF-8|binary/],
      [{ data: b64('ORDER_UUID\n'), filename: 'x.csv' }, /no rows/],
      [{ data: b64('ORDER_UUID\nx\n'), filename: 'x.csv', execute_at: 'tomorrow' }, /execute_at/],
      [{ data: b64('ORDER_UUID\nx\n') }, /filename/],
    ];
    for (const [body, re] of cases) {
      const r = await a.api.post('/batch/refunds', body);
      expect(r.status, JSON.stringify(body).slice(0, 100)).toBe(400);
      expect(r.body.details).toMatch(re);
    }
    expect((await a.api.get('/batch/nope')).status).toBe(404);
    expect((await a.api.get('/batch/00000000-0000-4000-8000-000000000000/results.csv')).status).toBe(404);
  });
});
