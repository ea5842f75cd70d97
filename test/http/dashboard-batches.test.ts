/**
 * The dashboard's batch files: the list of the merchant's files (newest first, state, counts,
 * execute_at, in pages) next to the API's own upload through the bridge (a file with problems is 422
 * with every line, and nothing is listed); only groups with batch.read (BATCH, PAYMENTS, MANAGER) read the list, never another
 * merchant's files.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp, type TestMerchant } from '../helpers/app.js';
import { createUser, signedIn, type DashClient } from '../helpers/dashboard.js';
import { TEST_CARDS, storeCard } from '../helpers/payments.js';

let t: TestApp;
let a: TestMerchant;
let b: TestMerchant;
let batchUser: DashClient;
let other: DashClient;

const b64 = (text: string) => Buffer.from(text, 'utf8').toString('base64');

beforeAll(async () => {
  t = await createTestApp();
  a = await t.merchant({ name: 'Batch Area Shop' });
  b = await t.merchant({ name: 'Batch Area Other' });
  batchUser = await signedIn(t.app, await createUser(a, 'BATCH'));
  other = await signedIn(t.app, await createUser(b, 'MANAGER'));
}, 180_000);
afterAll(async () => t?.close());

describe('GET /batches', () => {
  it('lists the files uploaded through the bridge, newest first, with their counts; a refused file is not there', async () => {
    const card = await storeCard(t, a, TEST_CARDS.APPROVED, 'batch-area-1');
    const bad = await batchUser.post('/v1/batch/authorizations', { data: b64(`AMOUNT,CARD,SERVICE\n500,${card},${a.service_uuid}\nabc,${card},${a.service_uuid}\n`), filename: 'bad.csv' });
    expect(bad.status, bad.raw).toBe(422);
    expect(bad.body.errors.map((e: { line: number }) => e.line)).toEqual([3]);
    expect((await batchUser.get('/batches')).body.batches).toEqual([]);

    const first = await batchUser.post('/v1/batch/authorizations', { data: b64(`AMOUNT,CARD,SERVICE\n500,${card},${a.service_uuid}\n600,${card},${a.service_uuid}\n`), filename: 'now.csv' });
    expect(first.status, first.raw).toBe(200);
    await t.m.batch.drain();
    const later = new Date(Date.now() + 5 * 86400_000).toISOString();
    const second = await batchUser.post('/v1/batch/authorizations', { data: b64(`AMOUNT,CARD,SERVICE\n700,${card},${a.service_uuid}\n`), filename: 'later.csv', execute_at: later });
    expect(second.status, second.raw).toBe(200);

    const r = await batchUser.get('/batches');
    expect(r.status, r.raw).toBe(200);
    expect(r.body.next_offset).toBeNull();
    expect(r.body.batches.map((x: { uuid: string }) => x.uuid)).toEqual([second.body.batch.uuid, first.body.batch.uuid]);
    expect(r.body.batches[0]).toMatchObject({ filename: 'later.csv', type: 'AUTHORIZATION', status: 'SCHEDULED', total: 1, pending: 1, progress: 0, execute_at: new Date(later).toISOString() });
    expect(r.body.batches[1]).toMatchObject({ filename: 'now.csv', status: 'COMPLETED', total: 2, pending: 0, succeeded: 2, failed: 0, progress: 100 });
    // the same as the API's own reading of each file
    for (const x of r.body.batches) expect((await a.api.get(`/batch/${x.uuid}?limit=0`)).body.batch).toEqual(x);

    const page = await batchUser.get('/batches', { limit: '1' });
    expect(page.body.batches.map((x: { uuid: string }) => x.uuid)).toEqual([second.body.batch.uuid]);
    expect(page.body.next_offset).toBe(1);
    const next = await batchUser.get('/batches', { limit: '1', offset: '1' });
    expect(next.body.batches.map((x: { uuid: string }) => x.uuid)).toEqual([first.body.batch.uuid]);
    expect(next.body.next_offset).toBeNull();
    expect((await batchUser.get('/batches', { limit: '0' })).status).toBe(400);

    // another merchant's staff sees none of them
    const o = await other.get('/batches');
    expect(o.status, o.raw).toBe(200);
    expect(o.body.batches).toEqual([]);
  });

  it('a group without batch.read (VIEWER) is refused: 403', async () => {
    const viewer = await signedIn(t.app, await createUser(a, 'VIEWER'));
    const r = await viewer.get('/batches');
    expect(r.status, r.raw).toBe(403);
    expect(r.body.batches).toBeUndefined();
  });
});
