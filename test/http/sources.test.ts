/** Stored payment methods over HTTP: F1–F12 (api.md section F, decisions §6). */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { createHmac } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp, type TestMerchant } from '../helpers/app.js';
import { TEST_CARDS } from '../../src/processors/index.js';

let t: TestApp;
let a: TestMerchant;
let b: TestMerchant;

const APPROVED = '4548812049400004';
const NON3DS = '5590337536718399';
const REFUSED = '4111111111111111';

beforeAll(async () => {
  t = await createTestApp();
  a = await t.merchant();
  b = await t.merchant();
});
afterAll(async () => t?.close());

const card = (over: Record<string, unknown> = {}) => ({
  card_holder: 'Ana Pérez', card_pan: APPROVED, card_expiry_month: '12', card_expiry_year: '30', customer_ext_id: 'cust', ...over,
});

describe('F2 store card', () => {
  it('stores a card: Customer and the Source record of api.md, only BIN and last 4 of the number', async () => {
    const r = await a.api.post('/payment-method/card', card({ additional: 'main card' }));
    expect(r.status).toBe(200);
    expect(r.body.Customer).toMatchObject({ external_id: 'cust' });
    const s = r.body.Source;
    expect(Object.keys(s)).toEqual([
      'object', 'par', 'uuid', 'type', 'token', 'brand', 'country', 'holder', 'bin', 'last4', 'is_saved', 'expire_month',
      'expire_year', 'additional', 'bank', 'prepaid', 'validation_date', 'creation_date', 'brand_description', 'origin', 'cof',
    ]);
    expect(s).toMatchObject({
      object: 'CARD', bin: 454881, last4: '0004', brand: 'VISA', holder: 'Ana Pérez', is_saved: true, expire_month: '12',
      expire_year: '30', additional: 'main card', validation_date: null, origin: 'API', cof: { is_available: false },
    });
    expect(r.raw).not.toContain(APPROVED);
    expect(r.raw).not.toContain(APPROVED.slice(6, 12));
    const again = await a.api.post('/payment-method/card', card());
    expect(again.body.Source.uuid).not.toBe(s.uuid);
  });

  it('keeps a numeric customer_ext_id as a string', async () => {
    const r = await a.api.post('/payment-method/card', card({ customer_ext_id: 987 }));
    expect(r.status).toBe(200);
    expect(r.body.Customer.external_id).toBe('987');
  });

  it('refuses bad input with 400 naming the field', async () => {
    const cases: Array<[Record<string, unknown>, string]> = [
      [{ card_pan: '4548812049400005' }, 'card_pan'],
      [{ card_pan: 4548812049400004 }, 'card_pan'],
      [{ card_expiry_year: '20' }, 'expired'],
      [{ card_expiry_month: '13' }, 'card_expiry_month'],
      [{ card_holder: undefined }, 'card_holder'],
      [{ customer_ext_id: undefined }, 'customer_ext_id'],
      [{ validate: 'yes' }, 'validate'],
      [{ validate: true }, 'service'],
      [{ source_holder_verification: { name: 'Ana' } }, 'service'],
      [{ url_post: 'ftp://example.com/x' }, 'url_post'],
      [{ card_cvv: '12' }, 'card_cvv'],
      [{ service: 'not-a-uuid' }, 'service'],
    ];
    for (const [over, field] of cases) {
      const r = await a.api.post('/payment-method/card', card(over));
      expect(r.status, JSON.stringify(over)).toBe(400);
      expect(r.body.details.toLowerCase(), JSON.stringify(over)).toContain(field);
      expect(r.raw).not.toContain('4548812049400005');
    }
  });

  it('validate: checks the card with the service, sets validation_date; refused cards are 400 and not stored', async () => {
    const ok = await a.api.post('/payment-method/card', card({ validate: true, service: a.service_uuid, card_cvv: '123', customer_ext_id: 'val' }));
    expect(ok.status).toBe(200);
    expect(ok.body.Source.validation_date).toMatch(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/);
    expect(ok.body.Source.cof.is_available).toBe(true);
    const refused = await a.api.post('/payment-method/card', card({ card_pan: REFUSED, validate: true, service: a.service_uuid, customer_ext_id: 'val' }));
    expect(refused.status).toBe(400);
    const badCvv = await a.api.post('/payment-method/card', card({ card_pan: TEST_CARDS.CVV_FAIL, validate: true, service: a.service_uuid, card_cvv: '999', customer_ext_id: 'val' }));
    expect(badCvv.status).toBe(400);
    const list = await a.api.get('/customer/val/sources', { status: 'ALL' });
    expect(list.body.sources).toHaveLength(1);
    // another merchant's service is not found
    const other = await a.api.post('/payment-method/card', card({ validate: true, service: b.service_uuid }));
    expect(other.status).toBe(404);
  });

  it('a card under suspected fraud cannot be tokenized (400)', async () => {
    t.m.processors.simulator.injectFault({ operation: 'verifyCard', kind: 'decline', error: 'FRAUD_SUSPECTED' });
    const r = await a.api.post('/payment-method/card', card({ validate: true, service: a.service_uuid, customer_ext_id: 'fraud' }));
    expect(r.status).toBe(400);
    expect(r.body.details).toMatch(/fraud/i);
    expect((await a.api.get('/customer/fraud/sources', { status: 'ALL' })).status).toBe(404);
  });

  it('source_holder_verification returns the verification with the Source', async () => {
    const r = await a.api.post('/payment-method/card', card({ service: a.service_uuid, source_holder_verification: { name: 'Ana Perez' } }));
    expect(r.status).toBe(200);
    expect(r.body.verification).toMatchObject({ status: 'DONE', result: 'MATCH', source_uuid: r.body.Source.uuid });
  });
});

describe('F1 store several cards', () => {
  it('stores every card, each a new source; within one request the later entry is the newer (listed later)', async () => {
    const r = await a.api.post('/payment-method/cards', {
      cards: [card({ customer_ext_id: 'many', card_holder: 'First' }), card({ customer_ext_id: 'many', card_pan: NON3DS }), card({ customer_ext_id: 'many-2' }), card({ customer_ext_id: 'many', card_holder: 'Last' })],
    });
    expect(r.status).toBe(200);
    expect(r.body.cards).toHaveLength(4);
    expect(r.body.cards.map((c: any) => c.Source.last4)).toEqual(['0004', '8399', '0004', '0004']);
    expect(r.body.cards[2].Customer.external_id).toBe('many-2');
    const all = (await a.api.get('/customer/many/sources', { status: 'ALL' })).body.sources;
    expect(all.map((s: any) => s.uuid)).toEqual([r.body.cards[0].Source.uuid, r.body.cards[1].Source.uuid, r.body.cards[3].Source.uuid]);
    const unique = (await a.api.get('/customer/many/sources', { status: 'ALL', unique: 'true' })).body.sources;
    expect(unique.map((s: any) => s.holder)).toEqual(['Ana Pérez', 'Last']);
  });
  it('all or nothing: one bad card is 400 naming its index, and nothing is stored', async () => {
    const r = await a.api.post('/payment-method/cards', { cards: [card({ customer_ext_id: 'aon' }), card({ customer_ext_id: 'aon', card_pan: '5590337536718398' })] });
    expect(r.status).toBe(400);
    expect(r.body.details).toContain('cards[1]');
    expect((await a.api.get('/customer/aon/sources', { status: 'ALL' })).status).toBe(404);
    expect((await a.api.post('/payment-method/cards', { cards: [] })).status).toBe(400);
    expect((await a.api.post('/payment-method/cards', { cards: 'x' })).status).toBe(400);
  });
});

describe('F3 revalidate, F5 description, F6 owner, F7/F8 view, F9 delete', () => {
  it('revalidates a stored card with the service', async () => {
    const s = (await a.api.post('/payment-method/card', card({ customer_ext_id: 'rv' }))).body.Source;
    const r = await a.api.post('/payment-method/card/revalidate', { source_uuid: s.uuid, customer_ext_id: 'rv', service: a.service_uuid, card_cvv: '123' });
    expect(r.status).toBe(200);
    expect(r.body.Source.validation_date).not.toBeNull();
    expect((await a.api.post('/payment-method/card/revalidate', { source_uuid: s.uuid, customer_ext_id: 'other', service: a.service_uuid })).status).toBe(404);
    expect((await a.api.post('/payment-method/card/revalidate', { source_uuid: s.uuid, customer_ext_id: 'rv' })).status).toBe(400);
    expect((await b.api.post('/payment-method/card/revalidate', { source_uuid: s.uuid, customer_ext_id: 'rv', service: b.service_uuid })).status).toBe(404);
    const refused = (await a.api.post('/payment-method/card', card({ customer_ext_id: 'rv', card_pan: REFUSED }))).body.Source;
    expect((await a.api.post('/payment-method/card/revalidate', { card_uuid: refused.uuid, customer_ext_id: 'rv', service: a.service_uuid })).status).toBe(400);
  });

  it('sets the description, changes the owner, views and deletes', async () => {
    const s = (await a.api.post('/payment-method/card', card({ customer_ext_id: 'own1' }))).body.Source;
    const add = await a.api.put('/payment-method/card/additional', { source_uuid: s.uuid, additional: 'travel' });
    expect(add.status).toBe(200);
    expect(add.body.Source.additional).toBe('travel');
    expect((await a.api.put('/payment-method/bank/additional', { source_uuid: s.uuid, additional: 'x' })).status).toBe(404);
    expect((await a.api.put('/payment-method/gold/additional', { source_uuid: s.uuid })).status).toBe(400);
    expect((await b.api.put('/payment-method/card/additional', { source_uuid: s.uuid, additional: 'x' })).status).toBe(404);

    expect((await a.api.put(`/payment-method/${s.uuid}/owner`, { old_external_id: 'nobody', new_external_id: 'own2' })).status).toBe(404);
    const own = await a.api.put(`/payment-method/${s.uuid}/owner`, { old_external_id: 'own1', new_external_id: 'own2' });
    expect(own.status).toBe(200);
    expect((await a.api.get('/customer/own2/sources', { status: 'ALL' })).body.sources.map((x: any) => x.uuid)).toEqual([s.uuid]);
    expect((await a.api.get('/customer/own1/sources', { status: 'ALL' })).body.sources).toEqual([]);

    const f8 = await a.api.get(`/payment-method/${s.uuid}`);
    expect(f8.status).toBe(200);
    expect(f8.body.source).toMatchObject({ uuid: s.uuid, additional: 'travel', last4: '0004' });
    const f7 = await a.api.get(`/payment-method/card/${s.uuid.toUpperCase()}`);
    expect(f7.body.card.uuid).toBe(s.uuid);
    expect((await a.api.get(`/payment-method/bank/${s.uuid}`)).status).toBe(404);
    expect((await b.api.get(`/payment-method/${s.uuid}`)).status).toBe(404);
    expect((await a.api.get('/payment-method/00000000-0000-4000-8000-000000000000')).status).toBe(404);

    expect((await b.api.delete('/payment-method/card', { source_uuid: s.uuid, customer_external_id: 'own2' })).status).toBe(404);
    expect((await a.api.delete('/payment-method/card', { source_uuid: s.uuid, customer_external_id: 'own1' })).status).toBe(404);
    expect((await a.api.delete('/payment-method/card', { customer_external_id: 'own2' })).status).toBe(400);
    const del = await a.api.delete('/payment-method/card', { card_uuid: s.uuid, customer_external_id: 'own2' });
    expect(del.status).toBe(200);
    expect((await a.api.get(`/payment-method/${s.uuid}`)).status).toBe(404);
    await expect(t.m.sources.loadCardForPayment(t.p.database.db, { merchantId: a.client_uuid, env: 'sandbox' }, s.uuid)).rejects.toMatchObject({ status: 404 });
  });
});

describe('F4 bank accounts', () => {
  it('stores an IBAN (validated, sealed) and refuses bad ones', async () => {
    const r = await a.api.post('/payment-method/bank', { customer_ext_id: 'bank', account_holder: 'Ana Pérez', iban: 'ES91 2100 0418 4502 0005 1332' });
    expect(r.status).toBe(200);
    expect(r.body.Source).toMatchObject({ object: 'BANK_ACCOUNT', last4: '1332', country: 'ES', bin: null, holder: 'Ana Pérez' });
    expect(r.raw).not.toContain('ES9121000418450200051332');
    const row = await t.p.database.db.selectFrom('sources').select('number_sealed').where('id', '=', r.body.Source.uuid).executeTakeFirstOrThrow();
    expect(row.number_sealed).not.toContain('2100041845');
    for (const iban of ['ES9121000418450200051333', 'XX00', '1234567890']) {
      const bad = await a.api.post('/payment-method/bank', { customer_ext_id: 'bank', account_holder: 'Ana', iban });
      expect(bad.status).toBe(400);
      expect(bad.body.details).toContain('iban');
    }
    expect((await a.api.post('/payment-method/bank', { customer_ext_id: 'bank', iban: 'ES9121000418450200051332' })).body.details).toContain('account_holder');
    const banks = await a.api.get('/customer/bank/banks', { status: 'ALL' });
    expect(banks.body.banks.map((x: any) => x.uuid)).toEqual([r.body.Source.uuid]);
    const verify = await a.api.post('/payment-method/bank/verify-holder', { source_uuid: r.body.Source.uuid, service: a.service_uuid, holder: { name: 'Luis Gómez' } });
    expect(verify.body.verification.result).toBe('NO_MATCH');
  });
});

describe('F10/F11 listing semantics (decisions §6)', () => {
  it('same validated card twice with two holders plus one unvalidated card: the four combinations', async () => {
    const v = { validate: true, service: a.service_uuid, customer_ext_id: 'lister' };
    const one = await a.api.post('/payment-method/card', card({ ...v, card_holder: 'Ana Pérez' }));
    const two = await a.api.post('/payment-method/card', card({ ...v, card_holder: 'Ana P. Gómez' }));
    const three = await a.api.post('/payment-method/card', card({ customer_ext_id: 'lister', card_pan: NON3DS }));
    expect([one.status, two.status, three.status]).toEqual([200, 200, 200]);
    const uuids = async (query: Record<string, string>) => (await a.api.get('/customer/lister/sources', query)).body.sources.map((s: any) => s.uuid);
    expect(await uuids({})).toEqual([one.body.Source.uuid, two.body.Source.uuid]);
    expect(await uuids({ status: 'VALIDATED', unique: 'false' })).toHaveLength(2);
    expect(await uuids({ status: 'VALIDATED', unique: 'true' })).toEqual([two.body.Source.uuid]);
    expect(await uuids({ status: 'ALL', unique: 'false' })).toHaveLength(3);
    expect(await uuids({ status: 'ALL', unique: 'true' })).toEqual([two.body.Source.uuid, three.body.Source.uuid]);
    // the deprecated list by type answers the same under its own key
    const cards = await a.api.get('/customer/lister/cards', { status: 'ALL', unique: 'true' });
    expect(cards.body.cards).toHaveLength(2);
    expect((await a.api.get('/customer/lister/banks', { status: 'ALL' })).body.banks).toEqual([]);
    expect(await uuids({ status: 'ALL', sourceType: 'bank' })).toEqual([]);
    expect(await uuids({ status: 'ALL', sourceType: 'card,bank' })).toHaveLength(3);
    // a successful payment makes the unvalidated source valid (markValidated)
    await t.p.database.transaction((trx) => t.m.sources.markValidated(trx, three.body.Source.uuid, new Date()));
    expect(await uuids({ status: 'VALIDATED', unique: 'true' })).toEqual([two.body.Source.uuid, three.body.Source.uuid]);
  });

  it('bad filters are 400; unknown customers and other merchants\' customers are 404', async () => {
    expect((await a.api.get('/customer/lister/sources', { status: 'SOME' })).status).toBe(400);
    expect((await a.api.get('/customer/lister/sources', { sourceType: 'card,gold' })).status).toBe(400);
    expect((await a.api.get('/customer/lister/sources', { unique: 'maybe' })).status).toBe(400);
    expect((await a.api.get('/customer/ghost/sources')).status).toBe(404);
    expect((await b.api.get('/customer/lister/sources')).status).toBe(404);
  });
});

describe('F12 verify holder', () => {
  it('MATCH, PARTIAL_MATCH and NO_MATCH through the simulator', async () => {
    const s = (await a.api.post('/payment-method/card', card({ customer_ext_id: 'vh', card_holder: 'Ana Pérez García' }))).body.Source;
    const verify = (holder: Record<string, unknown>) => a.api.post('/payment-method/card/verify-holder', { source_uuid: s.uuid, service: a.service_uuid, holder });
    expect((await verify({ name: 'ANA PEREZ GARCIA' })).body.verification).toMatchObject({ status: 'DONE', result: 'MATCH' });
    expect((await verify({ first_name: 'Ana', last_name: 'López' })).body.verification.result).toBe('PARTIAL_MATCH');
    expect((await verify({ name: 'John Smith' })).body.verification.result).toBe('NO_MATCH');
    expect((await a.api.post('/payment-method/card/verify-holder', { source_uuid: s.uuid, holder: { name: 'x' } })).status).toBe(400);
    expect((await a.api.post('/payment-method/card/verify-holder', { source_uuid: s.uuid, service: a.service_uuid })).status).toBe(400);
    expect((await a.api.post('/payment-method/paypal/verify-holder', { source_uuid: s.uuid, service: a.service_uuid, holder: {} })).status).toBe(400);
    expect((await b.api.post('/payment-method/card/verify-holder', { source_uuid: s.uuid, service: b.service_uuid, holder: { name: 'x' } })).status).toBe(404);
  });
});

describe('card storage notification', () => {
  it('posts Customer and Source to url_post (signed), never the card number', async () => {
    const received: Array<{ body: string; sig: string | undefined }> = [];
    const server = http.createServer((req, res) => {
      let body = '';
      req.on('data', (c) => (body += c));
      req.on('end', () => {
        received.push({ body, sig: req.headers['paygate-signature'] as string | undefined });
        res.writeHead(200).end('ok');
      });
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    try {
      const port = (server.address() as AddressInfo).port;
      const r = await a.api.post('/payment-method/card', card({ customer_ext_id: 'notify', url_post: `http://127.0.0.1:${port}/hook`, card_cvv: '123' }));
      expect(r.status).toBe(200);
      const jobs = await t.p.database.db.selectFrom('jobs').select(['payload']).where('queue', '=', 'sources.card_stored').execute();
      expect(JSON.stringify(jobs)).not.toContain(APPROVED);
      expect(JSON.stringify(jobs)).not.toContain('"123"');
      await t.p.jobs.drain({ queues: ['sources.card_stored'] });
      expect(received).toHaveLength(1);
      const note = JSON.parse(received[0].body);
      expect(note).toMatchObject({ message: 'OK', code: 200, Customer: { external_id: 'notify' }, Source: { uuid: r.body.Source.uuid, last4: '0004', bin: 454881 } });
      expect(received[0].body).not.toContain(APPROVED);
      const [, ts, hex] = /^t=(\d+),v1=([0-9a-f]{64})$/.exec(received[0].sig ?? '') ?? [];
      expect(hex).toBe(createHmac('sha256', a.signature).update(`${ts}.${received[0].body}`).digest('hex'));
    } finally {
      server.close();
    }
  });
});

describe('card storage notification retries (decisions §7)', () => {
  it('retried on the schedule when the merchant resends failed notifications; tried once otherwise', async () => {
    const answers = [500, 200];
    let calls = 0;
    const server = http.createServer((req, res) => {
      req.resume();
      req.on('end', () => res.writeHead(answers[Math.min(calls++, answers.length - 1)]).end());
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    try {
      const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/hook`;
      const m = await t.merchant();
      await t.p.database.db.updateTable('merchants').set({ resend_failed_notifications: true }).where('id', '=', m.client_uuid).execute();
      expect((await m.api.post('/payment-method/card', card({ customer_ext_id: 'retry', url_post: url }))).status).toBe(200);
      const before = Date.now();
      await t.p.jobs.drain({ queues: ['sources.card_stored'] });
      expect(calls).toBe(1);
      const job = await t.p.database.db.selectFrom('jobs').selectAll().where('queue', '=', 'sources.card_stored').where('merchant_id', '=', m.client_uuid).executeTakeFirstOrThrow();
      expect(job.status).toBe('pending');
      expect(job.run_at.getTime() - before).toBeGreaterThan(50_000);
      expect(job.run_at.getTime() - before).toBeLessThan(70_000);
      await t.p.database.db.updateTable('jobs').set({ run_at: new Date(Date.now() - 1000) }).where('id', '=', job.id).execute();
      await t.p.jobs.drain({ queues: ['sources.card_stored'] });
      expect(calls).toBe(2);
      expect((await t.p.database.db.selectFrom('jobs').select('status').where('id', '=', job.id).executeTakeFirstOrThrow()).status).toBe('done');

      // without resend_failed_notifications: one try, then failed
      calls = 0;
      answers.splice(0, 2, 503, 503);
      const n = await t.merchant();
      expect((await n.api.post('/payment-method/card', card({ customer_ext_id: 'once', url_post: url }))).status).toBe(200);
      await t.p.jobs.drain({ queues: ['sources.card_stored'] });
      expect(calls).toBe(1);
      const once = await t.p.database.db.selectFrom('jobs').select(['status', 'last_error']).where('queue', '=', 'sources.card_stored').where('merchant_id', '=', n.client_uuid).executeTakeFirstOrThrow();
      expect(once.status).toBe('failed');
      expect(once.last_error).toContain('503');
    } finally {
      server.close();
    }
  });
});

describe('profiles (decisions §2)', () => {
  it('tokenize stores cards (F1, F2, F4) but cannot delete; readonly lists but cannot store', async () => {
    const issue = (profiles: any[]) => t.p.database.transaction((trx) => t.m.merchants.issueKey(trx, a.client_uuid, 'sandbox', profiles));
    const tk = await issue(['tokenize']);
    const tok = a.api.withCreds({ api_key: tk.apiKey, signature: tk.signature });
    const s = await tok.post('/payment-method/card', card({ customer_ext_id: 'prof' }));
    expect(s.status).toBe(200);
    expect((await tok.post('/payment-method/bank', { customer_ext_id: 'prof', account_holder: 'A', iban: 'ES9121000418450200051332' })).status).toBe(200);
    const del = await tok.delete('/payment-method/card', { source_uuid: s.body.Source.uuid, customer_external_id: 'prof' });
    expect(del.status).toBe(403);
    expect(del.body.details).toContain('card');
    const rk = await issue(['readonly']);
    const ro = a.api.withCreds({ api_key: rk.apiKey, signature: rk.signature });
    expect((await ro.get('/customer/prof/sources', { status: 'ALL' })).status).toBe(200);
    expect((await ro.post('/payment-method/card', card())).status).toBe(403);
    const ck = await issue(['card']);
    expect((await a.api.withCreds({ api_key: ck.apiKey, signature: ck.signature }).delete('/payment-method/card', { source_uuid: s.body.Source.uuid, customer_external_id: 'prof' })).status).toBe(200);
  });
});

describe('robustness', () => {
  it('parallel stores for a new customer create it once', async () => {
    const results = await Promise.all(Array.from({ length: 20 }, () => a.api.post('/payment-method/card', card({ customer_ext_id: 'parallel' }))));
    expect(results.map((r) => r.status)).toEqual(Array(20).fill(200));
    expect(new Set(results.map((r) => r.body.Customer.token)).size).toBe(1);
    expect((await a.api.get('/customer/parallel/sources', { status: 'ALL' })).body.sources).toHaveLength(20);
    expect((await a.api.get('/customer/parallel/sources', { status: 'ALL', unique: 'true' })).body.sources).toHaveLength(1);
  });

  it('a NUL character anywhere is 400 naming the field, never a 500', async () => {
    const r1 = await a.api.post('/customer', { customer_ext_id: 'a\u0000b' });
    expect(r1.status).toBe(400);
    expect(r1.body.details).toContain('customer_ext_id');
    expect((await a.api.get('/customer/a%00b/sources')).status).toBe(400);
    const r3 = await a.api.post('/payment-method/card', card({ card_holder: 'A\u0000B' }));
    expect(r3.status).toBe(400);
    expect(r3.body.details).toContain('card_holder');
    expect((await a.api.post('/customer/address', { external_id: 'x', address1: 'a', city: 'b\u0000', country: 'ESP', default: false, state_code: 'M', type: 'OTHER', zip_code: '1' })).status).toBe(400);
  });

  it('accepts lang and a trailing slash everywhere (decisions §1)', async () => {
    await a.api.post('/payment-method/card', card({ customer_ext_id: 'lang' }));
    expect((await a.api.get('/customer/lang/sources/', { status: 'ALL', lang: 'es' })).body.sources).toHaveLength(1);
    expect((await a.api.get('/customer/profile/lang/', { lang: 'en' })).status).toBe(404);
  });

  it('the OpenAPI document lists the customer and source operations', async () => {
    const res = await t.app.inject({ method: 'GET', url: '/openapi.json' });
    expect(res.statusCode).toBe(200);
    const doc = JSON.parse(res.body);
    for (const p of ['/customer', '/customer/address', '/customer/profile/{external_id}', '/payment-method/card', '/payment-method/cards', '/customer/{ext_id}/sources', '/payment-method/{type}/verify-holder']) {
      expect(Object.keys(doc.paths), p).toContain(p);
    }
  });
});
