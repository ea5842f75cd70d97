/**
 * Disputes from the dashboard (through the bridge, as the Disputes area calls them): a VIEWER reads the
 * list, a dispute and the ratio but cannot answer it (403); a USER adds text and a document and submits
 * it, each change audited; the area's page is served.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sql } from 'kysely';
import { createTestApp, type TestApp, type TestMerchant } from '../helpers/app.js';
import { createUser, signedIn, type DashClient } from '../helpers/dashboard.js';
import { paidOrder } from '../helpers/payments.js';

let t: TestApp;
let m: TestMerchant;
let viewer: DashClient;
let user: DashClient;
let dispute: string;

beforeAll(async () => {
  t = await createTestApp({ PAYGATE_DASHBOARD_LOCKOUT_FAILURES: '1000' });
  m = await t.merchant({ name: 'Disputed Shop', isPci: true });
  viewer = await signedIn(t.app, await createUser(m, 'VIEWER'));
  user = await signedIn(t.app, await createUser(m, 'USER'));
  const o = await paidOrder(t, m, { amount: 4200 });
  dispute = (await m.api.post('/disputes/simulate', { order_uuid: o.uuid, category: 'PRODUCT_NOT_RECEIVED' })).body.dispute.uuid;
});
afterAll(async () => t?.close());

const PNG = Buffer.from('89504e470d0a1a0a0000000d4948445200000001000000010806000000', 'hex');

describe('the Disputes area\'s calls', () => {
  it('a VIEWER reads disputes and the ratio, and may not answer one', async () => {
    const list = await viewer.request('GET', '/v1/disputes');
    expect(list.status, list.raw).toBe(200);
    expect(list.body.disputes.map((d: any) => d.uuid)).toEqual([dispute]);
    expect((await viewer.request('GET', `/v1/disputes/${dispute}`)).body.dispute.status).toBe('NEEDS_RESPONSE');
    expect((await viewer.request('GET', '/v1/disputes/ratios?months=1')).status).toBe(200);
    const no = await viewer.request('POST', `/v1/disputes/${dispute}/evidence`, { body: { fields: { proof_of_delivery: 'signed' } } });
    expect(no.status, no.raw).toBe(403);
    expect((await viewer.request('POST', `/v1/disputes/${dispute}/accept`, { body: {} })).status).toBe(403);
  });

  it('a USER adds evidence and submits it; each change is audited', async () => {
    const ev = await user.request('POST', `/v1/disputes/${dispute}/evidence`, { body: { fields: { proof_of_delivery: 'signed by the cardholder' }, documents: [{ filename: 'photo.png', data: PNG.toString('base64') }] } });
    expect(ev.status, ev.raw).toBe(200);
    expect(ev.body.dispute.evidence).toHaveLength(2);
    const s = await user.request('POST', `/v1/disputes/${dispute}/submit`, { body: {} });
    expect(s.status, s.raw).toBe(200);
    expect(s.body.dispute.status).toBe('UNDER_REVIEW');
    const { rows } = await sql<{ n: number }>`select count(*)::int as n from dashboard_audit where merchant_id = ${m.client_uuid} and action like '%isput%'`.execute(t.p.database.db);
    expect(Number(rows[0].n)).toBeGreaterThanOrEqual(2);
  });

  it('the area\'s page is the dashboard app', async () => {
    const r = await t.app.inject({ method: 'GET', url: '/dashboard/disputes' });
    expect([200, 302, 303]).toContain(r.statusCode);
  });
});
