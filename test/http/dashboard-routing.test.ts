/**
 * Routing from the dashboard (the Routing area's calls): its own list (`GET /routing/overview`: the
 * profiles in short with their entry service named and their rules counted, and the merchant's services of
 * the environment), and the merchant API's routing operations through the bridge. MANAGER creates,
 * replaces and deletes; USER reads and tries but may not change (403); VIEWER may not even read. A refused
 * profile names its field; a card number is refused by the bridge (the area sends a BIN); another
 * merchant's profiles and services never show.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp, type TestMerchant } from '../helpers/app.js';
import { createUser, signedIn, type DashClient } from '../helpers/dashboard.js';
import { TEST_CARDS } from '../helpers/payments.js';

let t: TestApp;
let m: TestMerchant;
let other: TestMerchant;
let manager: DashClient;
let user: DashClient;
let viewer: DashClient;
let second: string;

async function service(owner: TestMerchant, name: string): Promise<string> {
  const terminal = await owner.api.post('/terminal', { currency_code: 'EUR', type: 'REDSYSPSD2', description: name, code: '1', credentials: { key_secure: 'sq7HjrUOBfKmC576ILgskD5srU870gJ7', key_not_secure: 'sq7HjrUOBfKmC576ILgskD5srU870gJ7', terminal_secure: '1', terminal_not_secure: '2' } });
  expect(terminal.status, terminal.raw).toBe(200);
  const r = await owner.api.post('/service', { name, type: 'REDSYSPSD2', terminal_uuid: terminal.body.terminal.uuid });
  expect(r.status, r.raw).toBe(200);
  return r.body.service.uuid;
}

beforeAll(async () => {
  t = await createTestApp({ PAYGATE_DASHBOARD_LOCKOUT_FAILURES: '1000' });
  m = await t.merchant({ name: 'Routing Shop', isPci: true });
  other = await t.merchant({ name: 'Other Routing Shop', isPci: true });
  second = await service(m, 'acquirer two');
  manager = await signedIn(t.app, await createUser(m, 'MANAGER'));
  user = await signedIn(t.app, await createUser(m, 'USER'));
  viewer = await signedIn(t.app, await createUser(m, 'VIEWER'));
});
afterAll(async () => t?.close());

const profile = (name: string, rules: unknown[]) => ({ service_uuid: m.service_uuid, name, status: 'DRAFT', max_attempts: 2, rules });

describe('the Routing area\'s calls', () => {
  it('MANAGER: a profile created through the bridge is in the overview, named and counted; replaced, then deleted', async () => {
    const created = await manager.post('/v1/routing-profiles', profile('EU cards', [
      { name: 'visa', conditions: [{ type: 'brand', values: ['VISA'] }], action: { type: 'service', service_uuid: second, fallbacks: [m.service_uuid] } },
      { name: 'rest', conditions: [], action: { type: 'service', service_uuid: m.service_uuid } },
    ]));
    expect(created.status, created.raw).toBe(200);
    const uuid = created.body.routing_profile.uuid as string;
    await other.api.post('/routing-profiles', { service_uuid: other.service_uuid, name: 'not mine', rules: [] });

    const o = await manager.get('/routing/overview');
    expect(o.status, o.raw).toBe(200);
    expect(o.body.routing_profiles).toEqual([{
      uuid, name: 'EU cards', service_uuid: m.service_uuid, service_name: expect.any(String), status: 'DRAFT', version: 1, max_attempts: 2, rules: 2, updated_at: created.body.routing_profile.updated_at,
    }]);
    const names = new Map((o.body.services as Array<{ uuid: string; name: string }>).map((s) => [s.uuid, s.name]));
    expect(o.body.routing_profiles[0].service_name).toBe(names.get(m.service_uuid!));
    expect(names.get(second)).toBe('acquirer two');
    expect(names.has(other.service_uuid!)).toBe(false);

    const replaced = await manager.put(`/v1/routing-profiles/${uuid}`, profile('EU cards', [{ name: 'visa', conditions: [], action: { type: 'service', service_uuid: second } }]));
    expect(replaced.status, replaced.raw).toBe(200);
    expect((await manager.get('/routing/overview')).body.routing_profiles[0]).toMatchObject({ version: 2, rules: 1 });

    const gone = await manager.request('DELETE', `/v1/routing-profiles/${uuid}`, { body: {} });
    expect(gone.status, gone.raw).toBe(200);
    expect((await manager.get('/routing/overview')).body.routing_profiles).toEqual([]);
  });

  it('a refused profile names its field (the editor shows it beside the field)', async () => {
    const bad = await manager.post('/v1/routing-profiles', profile('bad', [{ name: 'x', conditions: [], action: { type: 'service', service_uuid: other.service_uuid } }]));
    expect(bad.status, bad.raw).toBe(400);
    expect(bad.body.details).toContain('rules[0].action.service_uuid');
    expect(bad.body.errors).toEqual([expect.objectContaining({ field: 'rules[0].action.service_uuid' })]);
  });

  it('USER reads, tries and sees the health, but may not change; VIEWER may not read', async () => {
    const created = await manager.post('/v1/routing-profiles', profile('tried', [{ name: 'visa', conditions: [{ type: 'brand', values: ['VISA'] }], action: { type: 'service', service_uuid: second } }]));
    const uuid = created.body.routing_profile.uuid as string;
    expect((await user.get('/routing/overview')).body.routing_profiles.map((p: { uuid: string }) => p.uuid)).toEqual([uuid]);
    const tried = await user.post(`/v1/routing-profiles/${uuid}/test`, { bin: '45488120', amount: 2500, currency: 'EUR' });
    expect(tried.status, tried.raw).toBe(200);
    expect(tried.body.routing_decision).toMatchObject({ rule: 'visa', attempts: [{ service_uuid: second, rule: 'visa' }] });
    const health = await user.get('/v1/routing/health');
    expect(health.status, health.raw).toBe(200);
    expect(health.body.routing_health.map((h: { service_uuid: string }) => h.service_uuid).sort()).toEqual([m.service_uuid, second].sort());
    const no = await user.put(`/v1/routing-profiles/${uuid}`, profile('mine now', []));
    expect(no.status, no.raw).toBe(403);
    expect((await user.post('/v1/routing-profiles', profile('new', []))).status).toBe(403);
    expect((await user.request('DELETE', `/v1/routing-profiles/${uuid}`, { body: {} })).status).toBe(403);
    for (const path of ['/routing/overview', '/v1/routing-profiles', `/v1/routing-profiles/${uuid}`, '/v1/routing/health']) {
      expect((await viewer.get(path)).status, path).toBe(403);
    }
    expect((await viewer.post(`/v1/routing-profiles/${uuid}/test`, { bin: '45488120', amount: 1, currency: 'EUR' })).status).toBe(403);
  });

  it('a card number through the bridge is refused and never echoed', async () => {
    const uuid = (await manager.get('/routing/overview')).body.routing_profiles[0].uuid as string;
    const res = await manager.post(`/v1/routing-profiles/${uuid}/test`, { card_pan: TEST_CARDS.APPROVED, amount: 100, currency: 'EUR' });
    expect(res.status).toBe(400);
    expect(res.raw).not.toContain(TEST_CARDS.APPROVED);
  });

  it('the area\'s pages are the dashboard app', async () => {
    for (const url of ['/dashboard/routing', '/dashboard/routing/new']) {
      const r = await t.app.inject({ method: 'GET', url });
      expect([200, 302, 303], url).toContain(r.statusCode);
    }
  });
});
