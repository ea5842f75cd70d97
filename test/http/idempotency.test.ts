import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp, type TestMerchant } from '../helpers/app.js';

let t: TestApp;
let a: TestMerchant;
let b: TestMerchant;

beforeAll(async () => {
  t = await createTestApp();
  a = await t.merchant();
  b = await t.merchant();
});
afterAll(async () => t?.close());

const body = (name: string) => ({ name, email: `${name}@example.com`, timezone: 'Europe/Madrid' });
const countMerchants = async (name: string) =>
  (await t.p.database.db.selectFrom('merchants').select('id').where('name', '=', name).execute()).length;

describe('Idempotency-Key (decisions §9)', () => {
  it('replays the first response for the same key and body, without doing the work twice', async () => {
    const first = await a.api.post('/client', body('idem-one'), { 'idempotency-key': 'k-1' });
    expect(first.status).toBe(200);
    const again = await a.api.post('/client', body('idem-one'), { 'idempotency-key': 'k-1' });
    expect(again.status).toBe(200);
    expect(again.raw).toBe(first.raw);
    expect(again.headers['idempotent-replayed']).toBe('true');
    expect(await countMerchants('idem-one')).toBe(1);
    // without the header, the same body creates another one
    await a.api.post('/client', body('idem-one'));
    expect(await countMerchants('idem-one')).toBe(2);
  });

  it('the same key with another body is 422 and changes nothing', async () => {
    await a.api.post('/client', body('idem-two'), { 'idempotency-key': 'k-2' });
    const other = await a.api.post('/client', body('idem-other'), { 'idempotency-key': 'k-2' });
    expect(other.status).toBe(422);
    expect(other.body).toMatchObject({ code: 422, message: 'Unprocessable Entity' });
    expect(await countMerchants('idem-other')).toBe(0);
  });

  it('while the first request is in flight, 409; once its lock expires it can run', async () => {
    const fp = t.p.vault.fingerprint('idempotency', `POST /v1/sandbox/client\n${JSON.stringify({ signature: a.signature, ...body('idem-three') })}`);
    await t.m.idempotency.begin(a.client_uuid, 'k-3', fp);
    const busy = await a.api.post('/client', body('idem-three'), { 'idempotency-key': 'k-3' });
    expect(busy.status).toBe(409);
    expect(await countMerchants('idem-three')).toBe(0);
    // a request that died mid-flight frees its key after the lock (60 s)
    await t.p.database.db.updateTable('idempotency_keys').set({ locked_until: new Date(Date.now() - 1000) }).where('key', '=', 'k-3').execute();
    const retried = await a.api.post('/client', body('idem-three'), { 'idempotency-key': 'k-3' });
    expect(retried.status).toBe(200);
    expect(await countMerchants('idem-three')).toBe(1);
  });

  it('keys are per merchant; errors other than 5xx are replayed too', async () => {
    const r1 = await a.api.post('/client', body('idem-four'), { 'idempotency-key': 'shared' });
    const r2 = await b.api.post('/client', body('idem-four'), { 'idempotency-key': 'shared' });
    expect(r1.status).toBe(200);
    expect(r2.status).toBe(200);
    expect(r2.body.client.uuid).not.toBe(r1.body.client.uuid);
    const bad = await a.api.post('/client', { ...body('idem-five'), mcc: '123' }, { 'idempotency-key': 'k-5' });
    expect(bad.status).toBe(400);
    const badAgain = await a.api.post('/client', { ...body('idem-five'), mcc: '123' }, { 'idempotency-key': 'k-5' });
    expect(badAgain.status).toBe(400);
  });

  it('a key longer than 255 characters is refused', async () => {
    const r = await a.api.post('/client', body('idem-six'), { 'idempotency-key': 'x'.repeat(256) });
    expect(r.status).toBe(400);
  });
});
