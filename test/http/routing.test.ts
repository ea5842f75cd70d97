/**
 * Routing profiles through the API on both databases: created, read, listed, replaced (the version
 * bumped), tried on hypothetical payments (card number or BIN; the card never echoed), deleted; another
 * merchant's profile and services invisible; bad input a 400 naming the field; one ACTIVE profile per
 * service; the active profile the payments module reads (cached, dropped on write); the BIN import; the
 * health read and the event of a breaker that opens.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { sql } from 'kysely';
import { createTestApp, type TestApp, type TestMerchant } from '../helpers/app.js';
import { TEST_CARDS } from '../helpers/payments.js';

let t: TestApp;
let a: TestMerchant;
let b: TestMerchant;
/** a's services besides its own: two more sandbox services */
let s2: string;
let s3: string;

async function service(m: TestMerchant, name: string): Promise<string> {
  const r = await m.api.post('/service', { name, type: 'PAYGATE' });
  expect(r.status, r.raw).toBe(200);
  return r.body.service.uuid;
}

beforeAll(async () => {
  t = await createTestApp();
  a = await t.merchant({ name: 'Routing Shop' });
  b = await t.merchant({ name: 'Other Shop' });
  s2 = await service(a, 'second');
  s3 = await service(a, 'third');
});
afterAll(async () => t?.close());

const profileBody = (over: Record<string, unknown> = {}) => ({
  service_uuid: a.service_uuid,
  name: 'EU cards',
  status: 'ACTIVE',
  max_attempts: 3,
  rules: [
    { name: 'es-debit', conditions: [{ type: 'issuer_country', values: ['ES'] }, { type: 'card_type', values: ['DEBIT'] }], action: { type: 'service', service_uuid: s2, fallbacks: [s3, s2, a.service_uuid] } },
    { name: 'big', conditions: [{ type: 'amount', min: 100000 }], action: { type: 'split', splits: [{ service_uuid: s2, weight: 1 }, { service_uuid: s3, weight: 1 }] } },
  ],
  ...over,
});

describe('routing profiles', () => {
  let id: string;

  it('created, read, listed; the active profile is what payments get', async () => {
    const r = await a.api.post('/routing-profiles', profileBody());
    expect(r.status, r.raw).toBe(200);
    const p = r.body.routing_profile;
    id = p.uuid;
    expect(p).toMatchObject({ service_uuid: a.service_uuid, name: 'EU cards', status: 'ACTIVE', max_attempts: 3, version: 1 });
    expect(p.rules[0]).toEqual({ name: 'es-debit', conditions: [{ type: 'issuer_country', values: ['ES'] }, { type: 'card_type', values: ['DEBIT'] }], action: { type: 'service', service_uuid: s2, fallbacks: [s3, s2, a.service_uuid] } });
    expect((await a.api.get(`/routing-profiles/${id}`)).body.routing_profile).toEqual(p);
    const list = await a.api.get('/routing-profiles', { service_uuid: a.service_uuid! });
    expect(list.body.routing_profiles.map((x: any) => x.uuid)).toEqual([id]);
    expect((await a.api.get('/routing-profiles', { status: 'DRAFT' })).body.routing_profiles).toEqual([]);
    const active = await t.m.routing.activeProfileFor(a.client_uuid, a.service_uuid!);
    expect(active?.profile).toMatchObject({ id, version: 1, max_attempts: 3 });
    expect(await t.m.routing.activeProfileFor(a.client_uuid, s2)).toBeNull();
  });

  it('another merchant sees none of it (404), nor may it name the services of a', async () => {
    expect((await b.api.get(`/routing-profiles/${id}`)).status).toBe(404);
    expect((await b.api.put(`/routing-profiles/${id}`, profileBody({ service_uuid: b.service_uuid, rules: [] }))).status).toBe(404);
    expect((await b.api.delete(`/routing-profiles/${id}`, {})).status).toBe(404);
    expect((await b.api.post(`/routing-profiles/${id}/test`, { bin: '45488120', amount: 100, currency: 'EUR' })).status).toBe(404);
    expect((await b.api.get('/routing-profiles')).body.routing_profiles).toEqual([]);
    const r = await b.api.post('/routing-profiles', { service_uuid: b.service_uuid, name: 'x', rules: [{ name: 'r', conditions: [], action: { type: 'service', service_uuid: s2 } }] });
    expect(r.status, r.raw).toBe(400);
    expect(r.body.errors).toEqual([{ field: 'rules[0].action.service_uuid', problem: expect.stringContaining('not a service of yours') }]);
    expect((await b.api.post('/routing-profiles', { service_uuid: a.service_uuid, name: 'x', rules: [] })).body.errors[0].field).toBe('service_uuid');
  });

  it('bad input is a 400 naming the field; nothing is stored', async () => {
    const before = (await a.api.get('/routing-profiles')).body.routing_profiles.length;
    const cases: Array<[Record<string, unknown>, string]> = [
      [profileBody({ max_attempts: 6 }), 'max_attempts'],
      [profileBody({ status: 'DRAFT', rules: [{ name: 'r', conditions: [{ type: 'amount', min: 500, max: 100 }], action: { type: 'service', service_uuid: s2 } }] }), 'rules[0].conditions[0].max'],
      [profileBody({ status: 'DRAFT', rules: [{ name: 'r', conditions: [{ type: 'bin', ranges: [{ from: '455000', to: '454000' }] }], action: { type: 'service', service_uuid: s2 } }] }), 'rules[0].conditions[0].ranges[0]'],
      [profileBody({ status: 'DRAFT', rules: [{ name: 'r', conditions: [], action: { type: 'split', splits: [{ service_uuid: s2, weight: 0 }, { service_uuid: s3, weight: 1 }] } }] }), 'rules[0].action.splits[0].weight'],
      [profileBody({ status: 'DRAFT', rules: [{ name: 'r', conditions: [], action: { type: 'service', service_uuid: s2 } }, { name: 'r', conditions: [], action: { type: 'service', service_uuid: s3 } }] }), 'rules[1].name'],
      [profileBody({ status: 'DRAFT', rules: [{ name: 'r', conditions: [{ type: 'issuer_country', values: ['Spain'] }], action: { type: 'service', service_uuid: s2 } }] }), 'rules[0].conditions[0].values[0]'],
      [profileBody({ status: 'DRAFT', rules: [{ name: 'r', conditions: [{ type: 'brand', ranges: [{ from: '400000', to: '499999' }] }], action: { type: 'service', service_uuid: s2 } }] }), 'rules[0].conditions[0].ranges'],
      [profileBody({ status: 'DRAFT', rules: Array.from({ length: 101 }, (_, i) => ({ name: `r${i}`, conditions: [], action: { type: 'service', service_uuid: s2 } })) }), 'rules'],
    ];
    for (const [body, field] of cases) {
      const r = await a.api.post('/routing-profiles', body);
      expect(r.status, `${field}: ${r.raw}`).toBe(400);
      expect(r.body.errors.map((e: any) => e.field), r.raw).toContain(field);
    }
    expect((await a.api.get('/routing-profiles')).body.routing_profiles.length).toBe(before);
  });

  it('one ACTIVE profile per service (409); a DRAFT beside it is fine', async () => {
    const second = await a.api.post('/routing-profiles', profileBody({ name: 'another' }));
    expect(second.status, second.raw).toBe(409);
    const draft = await a.api.post('/routing-profiles', profileBody({ name: 'draft', status: 'DRAFT' }));
    expect(draft.status, draft.raw).toBe(200);
    expect(draft.body.routing_profile.status).toBe('DRAFT');
    expect((await a.api.delete(`/routing-profiles/${draft.body.routing_profile.uuid}`, {})).status).toBe(200);
  });

  it('tried with a card number: the decision, the card never echoed beyond BIN and last 4', async () => {
    const r = await a.api.post(`/routing-profiles/${id}/test`, { card_pan: TEST_CARDS.APPROVED, amount: 2500, currency: 'EUR' });
    expect(r.status, r.raw).toBe(200);
    expect(r.raw).not.toContain(TEST_CARDS.APPROVED);
    const d = r.body.routing_decision;
    expect(d.facts).toMatchObject({ bin: TEST_CARDS.APPROVED.slice(0, 8), last4: TEST_CARDS.APPROVED.slice(-4), brand: 'VISA', issuer_country: 'ES', card_type: 'DEBIT', bin_source: 'SANDBOX', channel: 'ECOMMERCE' });
    expect(d.rule).toBe('es-debit');
    // fallbacks in order, the duplicate of s2 dropped, capped at 3
    expect(d.attempts.map((x: any) => x.service_uuid)).toEqual([s2, s3, a.service_uuid]);
    expect(d.attempts[0].reason).toContain('es-debit');
    // a French credit card matches no rule: the entry service alone
    const fr = await a.api.post(`/routing-profiles/${id}/test`, { card_pan: TEST_CARDS.NON_3DS_OK, amount: 2500, currency: 978 });
    expect(fr.body.routing_decision).toMatchObject({ rule: null, attempts: [{ service_uuid: a.service_uuid, rule: null }] });
    expect(fr.body.routing_decision.facts.currency).toBe('EUR');
  });

  it('tried with a BIN and an order: a split is the same for the same order', async () => {
    const body = { bin: '411111', amount: 150000, currency: 'EUR', order_uuid: '3c9a7e52-1b4d-4f0e-8a6b-9d2f5c1e7a34' };
    const one = await a.api.post(`/routing-profiles/${id}/test`, body);
    expect(one.status, one.raw).toBe(200);
    expect(one.body.routing_decision.rule).toBe('big');
    const two = await a.api.post(`/routing-profiles/${id}/test`, body);
    expect(two.body.routing_decision.attempts).toEqual(one.body.routing_decision.attempts);
    expect([s2, s3]).toContain(one.body.routing_decision.attempts[0].service_uuid);
    expect((await a.api.post(`/routing-profiles/${id}/test`, { amount: 100, currency: 'EUR' })).status).toBe(400);
    const bad = await a.api.post(`/routing-profiles/${id}/test`, { card_pan: '4548812049400005', amount: 100, currency: 'EUR' });
    expect(bad.status).toBe(400);
    expect(bad.raw).not.toContain('4548812049400005');
  });

  it('replaced: the version bumps and payments read the new one at once', async () => {
    await t.m.routing.activeProfileFor(a.client_uuid, a.service_uuid!);
    const r = await a.api.put(`/routing-profiles/${id}`, profileBody({ max_attempts: 1 }));
    expect(r.status, r.raw).toBe(200);
    expect(r.body.routing_profile).toMatchObject({ version: 2, max_attempts: 1 });
    expect((await t.m.routing.activeProfileFor(a.client_uuid, a.service_uuid!))?.profile.version).toBe(2);
    const d = await a.api.post(`/routing-profiles/${id}/test`, { card_pan: TEST_CARDS.APPROVED, amount: 2500, currency: 'EUR' });
    expect(d.body.routing_decision.attempts.map((x: any) => x.service_uuid)).toEqual([s2]);
    expect((await a.api.put(`/routing-profiles/${id}`, profileBody({ name: '' }))).status).toBe(400);
  });

  it('an open circuit is skipped, named in the reason; GET /routing/health shows it; its event reaches the merchant', async () => {
    for (let i = 0; i < 10; i++) t.m.routing.record(s2, 'TIMEOUT', 5000);
    expect(t.m.routing.isOpen(s2)).toBe(true);
    await t.m.routing.settled();
    const d = (await a.api.post(`/routing-profiles/${id}/test`, { card_pan: TEST_CARDS.APPROVED, amount: 2500, currency: 'EUR' })).body.routing_decision;
    expect(d.skipped.map((x: any) => x.service_uuid)).toEqual([s2]);
    // max_attempts 1: the next candidate replaces it
    expect(d.attempts.map((x: any) => x.service_uuid)).toEqual([s3]);
    expect(d.attempts[0].reason).toContain('circuit open');
    const h = await a.api.get('/routing/health');
    expect(h.status, h.raw).toBe(200);
    const mine = h.body.routing_health.find((x: any) => x.service_uuid === s2);
    expect(mine).toMatchObject({ state: 'OPEN', service_name: 'second', timeout_rate: 1, latency_p50_ms: 5000 });
    expect(h.body.routing_health.map((x: any) => x.service_uuid).sort()).toEqual([a.service_uuid, s2, s3].sort());
    expect((await b.api.get('/routing/health')).body.routing_health.map((x: any) => x.service_uuid)).toEqual([b.service_uuid]);
    const events = await a.api.get('/events');
    const opened = events.body.events.filter((e: any) => e.type === 'ROUTING_CIRCUIT_OPENED');
    expect(opened).toHaveLength(1);
    expect(opened[0]).toMatchObject({ status: 'NOT_SENT', order_uuid: null, payload: { routing_health: { service_uuid: s2, state: 'OPEN' } } });
    const metrics = await t.app.inject({ method: 'GET', url: '/metrics' });
    expect(metrics.body).toMatch(new RegExp(`paygate_routing_circuit_state\\{service="${s2}"\\} 2`));
  });

  it('deleted: gone, and payments go to the entry service again', async () => {
    const r = await a.api.delete(`/routing-profiles/${id}`, {});
    expect(r.status, r.raw).toBe(200);
    expect(r.body.routing_profile.uuid).toBe(id);
    expect((await a.api.get(`/routing-profiles/${id}`)).status).toBe(404);
    expect(await t.m.routing.activeProfileFor(a.client_uuid, a.service_uuid!)).toBeNull();
  });
});

describe('the BIN table', () => {
  const csv = (lines: string[]) => Buffer.from(lines.join('\n'));

  it('an import replaces the table; its facts win over the sandbox cards; unknown BINs have none', async () => {
    const r = await t.m.routing.importBins(csv(['BIN_FROM,BIN_TO,BRAND,CARD_TYPE,ISSUER_COUNTRY', '45488100,45488149,VISA,CREDIT,PT', '520000,529999,MASTERCARD,,IT', '222100,222199,,PREPAID,']));
    expect(r).toEqual({ ranges: 3 });
    expect(await t.m.routing.binFacts('45488120')).toEqual({ bin: '45488120', brand: 'VISA', card_type: 'CREDIT', issuer_country: 'PT', source: 'TABLE' });
    expect(await t.m.routing.binFacts('52237981')).toMatchObject({ brand: 'MASTERCARD', card_type: null, issuer_country: 'IT', source: 'TABLE' });
    expect(await t.m.routing.binFacts('41111111')).toMatchObject({ issuer_country: 'US', source: 'SANDBOX' });
    expect(await t.m.routing.binFacts('60110000')).toBeNull();
    // a 6-digit BIN only when its whole span is in one range
    expect(await t.m.routing.binFacts('454881')).toBeNull();
    expect(await t.m.routing.binFacts('521000')).toMatchObject({ issuer_country: 'IT' });
  });

  it('a file with problems is refused whole (422 listing the lines); the table stays', async () => {
    await expect(t.m.routing.importBins(csv(['BIN_FROM,BIN_TO,CARD_TYPE', '400000,400099,CREDIT', '4000,400199,DEBIT', '400050,400150,GOLD']))).rejects.toMatchObject({
      status: 422,
      extra: { errors: [{ line: 3, msg: 'BIN_FROM must be 6 to 8 digits' }, { line: 4, msg: expect.stringContaining('CARD_TYPE') }] },
    });
    await expect(t.m.routing.importBins(csv(['BIN_FROM,BIN_TO', '400000,400099', '400050,400150']))).rejects.toMatchObject({ status: 422, extra: { errors: [{ line: 3, msg: expect.stringContaining('overlaps the range of line 2') }] } });
    await expect(t.m.routing.importBins(csv(['BIN,TO', '400000,400099']))).rejects.toMatchObject({ status: 400 });
    const { rows } = await sql<{ n: string }>`select count(*) as n from routing_bins`.execute(t.p.database.db);
    expect(Number(rows[0].n)).toBe(3);
  });

  it('read from a file as a stream (what `paygate routing import-bins <file>` does)', async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'routing-bins-'));
    const file = path.join(dir, 'bins.csv');
    fs.writeFileSync(file, ['bin_from,bin_to,issuer_country', ...Array.from({ length: 3000 }, (_, i) => `${String(10000000 + i * 10)},${String(10000000 + i * 10 + 9)},ES`)].join('\r\n'));
    try {
      expect(await t.m.routing.importBins(fs.createReadStream(file), file)).toEqual({ ranges: 3000 });
      expect(await t.m.routing.binFacts('10029995')).toMatchObject({ issuer_country: 'ES', card_type: null, source: 'TABLE' });
      expect(await t.m.routing.binFacts('45488120')).toMatchObject({ source: 'SANDBOX' });
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });
});
