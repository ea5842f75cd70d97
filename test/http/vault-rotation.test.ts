/**
 * Key rotation over 10,000 stored cards: every sealed value of every registered column is re-wrapped
 * under the new key in batches; the old key then leaves the ring and every card still opens and pays.
 */
import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sql } from 'kysely';
import { Secret } from '../../src/platform/security/secret.js';
import { Vault } from '../../src/platform/security/vault.js';
import { dropCanary, keyUsage, rewrapAll, valuesUnderKey } from '../../src/platform/security/rotation.js';
import { sealedColumns } from '../../src/platform/security/sealed-columns.js';
import { SANDBOX_DCC_CARDS, TEST_CARDS } from '../../src/processors/index.js';
import type { NewCard, Owner } from '../../src/modules/sources/index.js';
import { verifyVault } from '../../src/platform/create.js';
import { createUser, signedIn } from '../helpers/dashboard.js';
import { createTestApp, type TestApp, type TestMerchant } from '../helpers/app.js';

const N = 10_000;
const k1 = { id: 'rot1', key: randomBytes(32) };
const k2 = { id: 'rot2', key: randomBytes(32) };
const k3 = { id: 'rot3', key: randomBytes(32) };
const fp = randomBytes(32);

let t: TestApp;
let a: TestMerchant;
let owner: Owner;
const pans: string[] = [];

/** A Luhn-valid 16-digit Visa number from a counter. */
function panOf(i: number): string {
  const body = `454881${String(i).padStart(9, '0')}`;
  let sum = 0;
  for (let j = 0; j < body.length; j++) {
    let d = Number(body[body.length - 1 - j]);
    if (j % 2 === 0) {
      d *= 2;
      if (d > 9) d -= 9;
    }
    sum += d;
  }
  return body + String((10 - (sum % 10)) % 10);
}

beforeAll(async () => {
  t = await createTestApp({}, { vault: new Vault([k1], fp) });
  a = await t.merchant();
  owner = { merchantId: a.client_uuid, env: 'sandbox' };
  await verifyVault(t.p); // writes the canary of the first key, as a gateway does at start
});
afterAll(async () => t?.close());

describe(`key rotation over ${N} stored cards`, () => {
  it('stores the cards and a sealed value in every other registered column', async () => {
    const started = Date.now();
    for (let from = 0; from < N; from += 2000) {
      const batch: NewCard[] = [];
      for (let i = from; i < Math.min(N, from + 2000); i++) {
        const pan = i < 8 ? Object.values(TEST_CARDS)[i] : panOf(i);
        pans.push(pan);
        batch.push({ customerExtId: `rot-${i % 200}`, holder: `Holder ${i}`, pan: new Secret(pan), expMonth: 12, expYear: 2031 });
      }
      await t.p.database.transaction((trx) => t.m.sources.storeCards(trx, owner, batch));
    }
    const stored = Date.now() - started;
    // the other sealed columns: an account, a profile with a social security number, a mail, a bank source
    expect((await a.api.post('/customer/account', { external_id: 'rot-1', account_type: 'CARD_NUMBER', account_number: TEST_CARDS.APPROVED })).status).toBe(200);
    expect((await a.api.post('/customer/profile', { external_id: 'rot-1', first_name: 'A', last_name: 'B', social_security_number: '123-45-6789' })).status).toBe(200);
    expect((await a.api.post('/payment-method/bank', { customer_ext_id: 'rot-1', account_holder: 'A B', iban: 'ES9121000418450200051332' })).status).toBe(200);
    await t.p.database.transaction((trx) => t.p.mailer.queue(trx, { merchantId: a.client_uuid, to: 'x@example.com', subject: 's', text: 'secret body' }));
    // a card the hosted page keeps for a 3DS challenge (secure order without a customer)
    const secure = await a.api.post('/payment', { amount: 100, operative: 'AUTHORIZATION', secure: true, description: 'kept for 3DS', service: a.service_uuid });
    const kept = await t.m.payments.payByToken(secure.body.order.token, {
      channel: 'ECOMMERCE',
      card: { kind: 'card', holder: 'A B', pan: new Secret(TEST_CARDS.THREEDS_OK), expMonth: 12, expYear: 2031, origin: 'PAYMENT_PAGE', store: false },
      keepCardFor3ds: true,
    });
    expect(kept.order.status).toBe('PENDING_3DS_RESPONSE');
    // wallets: the sandbox roots and the merchant's wallet keys, made on first use
    expect((await a.api.get('/wallets')).status).toBe(200);
    // a DCC offer waiting for the cardholder's choice keeps the card sealed
    expect((await a.api.put(`/service/${a.service_uuid}`, { is_dcc_allowed: true })).status).toBe(200);
    const dccOrder = await a.api.post('/payment', { amount: 1000, operative: 'AUTHORIZATION', secure: false, description: 'dcc offer', service: a.service_uuid });
    const offer = await t.m.dcc.offer(
      { id: dccOrder.body.order.uuid, merchantId: a.client_uuid, env: 'sandbox', serviceId: a.service_uuid!, operative: 'AUTHORIZATION', amount: 1000, currency: 'EUR' },
      { pan: new Secret(SANDBOX_DCC_CARDS.USD), expMonth: 12, expYear: 2031, holder: 'A B' },
      null,
      new Date(),
    );
    expect(offer).not.toBeNull();
    // a dashboard user's two-factor secret, from its enrolment
    const staff = await signedIn(t.app, await createUser(a, 'VIEWER'));
    expect((await staff.post('/account/totp/setup')).status).toBe(200);
    const usage = await keyUsage(t.p.database);
    for (const c of sealedColumns()) {
      expect(usage.some((u) => u.table === c.table && u.column === c.column && u.keyId === 'rot1'), `${c.table}.${c.column}`).toBe(true);
    }
    process.stdout.write(`vault rotation: stored ${N} cards in ${stored} ms\n`);
  });

  it('re-wraps everything under the new key in batches; then the old key can go and every card opens and pays', async () => {
    const before = await t.p.database.db.selectFrom('sources').select(['id', 'number_sealed']).execute();
    t.p.vault.setKeys([k2, k1]);
    const started = Date.now();
    const report = await rewrapAll(t.p.database, t.p.vault, { batchSize: 1000 });
    const took = Date.now() - started;
    expect(report.rewrapped['sources.number_sealed']).toBe(N + 1);
    expect(report.failed).toEqual({});
    expect(await valuesUnderKey(t.p.database, 'rot1')).toBe(0);
    // a second pass has nothing left to do
    expect((await rewrapAll(t.p.database, t.p.vault)).total).toBe(0);
    // payloads were not re-encrypted: only the wrapped data key changed
    const after = new Map((await t.p.database.db.selectFrom('sources').select(['id', 'number_sealed']).execute()).map((r) => [r.id, r.number_sealed]));
    for (const r of before.slice(0, 50)) {
      expect(after.get(r.id)!.split('.').slice(4)).toEqual(r.number_sealed.split('.').slice(4));
      expect(after.get(r.id)!.split('.')[1]).toBe('rot2');
    }
    process.stdout.write(`vault rotation: re-wrapped ${report.total} sealed values in ${took} ms\n`);

    // retire the old key: its canary goes, and a vault with the new key alone passes the boot check
    t.p.vault.setKeys([k2]);
    await dropCanary(t.p.database, 'rot1');
    await verifyVault(t.p);
    expect((await keyUsage(t.p.database)).filter((u) => u.keyId === 'rot1')).toEqual([]);
    const rows = await t.p.database.db
      .selectFrom('sources')
      .select(['id', 'number_sealed'])
      .where('type', '=', 'card')
      .where('merchant_id', '=', a.client_uuid)
      .orderBy('created_at')
      .orderBy(sql`seq`)
      .execute();
    expect(rows).toHaveLength(N);
    const opened = new Set(rows.map((r) => t.p.vault.open(r.number_sealed, `source:${r.id}`).reveal()));
    expect(opened.size).toBe(N);
    for (const p of pans) expect(opened.has(p)).toBe(true);

    // every card still pays: all 10,000 opened numbers are charged through the simulator...
    const connector = t.m.processors.forService('REDSYSPSD2', 'sandbox');
    const declines: string[] = [TEST_CARDS.REFUSED, TEST_CARDS.REFUSED_VISA, TEST_CARDS.PARTIAL];
    const paidStarted = Date.now();
    let paid = 0;
    for (const r of rows) {
      const pan = t.p.vault.open(r.number_sealed, `source:${r.id}`);
      const res = await connector.authorize({
        reference: `all-${r.id}`, terminal: { serviceType: 'REDSYSPSD2', terminalId: a.terminal_uuid }, now: new Date(), amount: 100, currency: 'EUR',
        card: { pan, expiryMonth: 12, expiryYear: 2031, cvv: null }, channel: 'MIT',
      });
      if (res.outcome === 'APPROVED') paid++;
      else expect(declines).toContain(pan.reveal());
    }
    expect(paid).toBe(N - 3);
    process.stdout.write(`vault rotation: ${paid} of ${N} cards paid after the rotation in ${Date.now() - paidStarted} ms\n`);
    // ...and a sample also through the path payments use (loadCardForPayment: 404 rules, holder, expiry)
    const sample = [...rows.slice(0, 8), ...rows.filter((_, i) => i % 50 === 7)];
    let approved = 0;
    for (const r of sample) {
      const card = await t.m.sources.loadCardForPayment(t.p.database.db, owner, r.id);
      const res = await connector.authorize({
        reference: r.id, terminal: { serviceType: 'REDSYSPSD2', terminalId: a.terminal_uuid }, now: new Date(), amount: 1000, currency: 'EUR',
        card: { pan: card.pan, expiryMonth: card.expMonth, expiryYear: card.expYear, cvv: null, holder: card.holder }, channel: 'MIT',
      });
      const expected = declines.includes(card.pan.reveal()) ? 'DECLINED' : 'APPROVED';
      expect(res.outcome, card.last4).toBe(expected);
      if (res.outcome === 'APPROVED') approved++;
    }
    expect(approved).toBeGreaterThan(200);
    // ...and through the API as a merchant pays: B1 for the card's customer, then B10 with card_uuid
    const plain = rows.filter((r) => !(Object.values(TEST_CARDS) as string[]).includes(t.p.vault.open(r.number_sealed, `source:${r.id}`).reveal()));
    for (const r of plain.filter((_, i) => i % 500 === 9)) {
      const src = await t.m.sources.loadSource(t.p.database.db, owner, r.id);
      const o = await a.api.post('/payment', { amount: 990, operative: 'AUTHORIZATION', secure: false, description: 'after rotation', service: a.service_uuid, customer_ext_id: src.customer_ext_id });
      expect(o.status, o.raw).toBe(200);
      const paidOrder = await a.api.post('/payment/direct', { order_uuid: o.body.order.uuid, card_uuid: r.id });
      expect(paidOrder.status, paidOrder.raw).toBe(200);
      expect(paidOrder.body.order.status).toBe('SUCCESS');
      expect(paidOrder.body.order.transactions[0].source).toMatchObject({ uuid: r.id, last4: src.last4 });
    }

    // the other sealed values open too: API key signatures (auth and signed writes), terminal
    // credentials, accounts, bank sources, mail; and the API keeps working
    expect((await a.api.get('/auth/check')).status).toBe(200);
    const terminal = await t.p.database.db.selectFrom('terminals').selectAll().where('id', '=', a.terminal_uuid!).executeTakeFirstOrThrow();
    expect(t.m.services.openCredentials(terminal as any)).toMatchObject({ terminal_secure: '1' });
    const mail = await t.p.database.db.selectFrom('mail_outbox').selectAll().executeTakeFirstOrThrow();
    expect(t.p.vault.open(mail.body_sealed, `mail:${mail.id}`).reveal()).toContain('secret body');
    // (a card that approves: rows stored in one millisecond tie on created_at, so rows[0] may be a declining test card)
    const first = await t.m.sources.loadSource(t.p.database.db, owner, plain[0].id);
    const reval = await a.api.post('/payment-method/card/revalidate', { source_uuid: first.id, customer_ext_id: first.customer_ext_id, service: a.service_uuid, card_cvv: '123' });
    expect(reval.status, reval.raw).toBe(200);
    const listed = await a.api.get('/customer/rot-1/sources', { status: 'ALL', sourceType: 'bank' });
    expect(listed.body.sources).toHaveLength(1);
  });
});

describe('rotation while the gateway writes', () => {
  it('a value changed during the re-wrap is never overwritten with its old content (compare-and-set)', async () => {
    // (same app: on the embedded database a second test app in one file would switch the shared schema)
    const m = await t.merchant();
    await m.api.post('/customer', { customer_ext_id: 'live' });
    const accounts: string[] = [];
    for (let i = 0; i < 30; i++) {
      const r = await m.api.post('/customer/account', { external_id: 'live', account_type: 'PERSONAL', account_number: `ACC${i}` });
      accounts.push(r.body.customer_account.uuid);
    }
    t.p.vault.setKeys([k3, k2]);
    // every account is updated after the re-wrap read its batch and before it writes it
    let raced = false;
    const report = await rewrapAll(t.p.database, t.p.vault, {
      batchSize: 1000,
      afterRead: async (column) => {
        if (column !== 'customer_accounts.account_number_sealed' || raced) return;
        raced = true;
        for (const [i, uuid] of accounts.entries()) {
          expect((await m.api.put('/customer/account', { uuid, external_id: 'live', account_type: 'PERSONAL', account_number: `NEW${i}` })).status).toBe(200);
        }
      },
    });
    expect(raced).toBe(true);
    expect(report.failed).toEqual({});
    await rewrapAll(t.p.database, t.p.vault);
    expect(await valuesUnderKey(t.p.database, 'rot2')).toBe(0);
    t.p.vault.setKeys([k3]);
    const rows = await t.p.database.db.selectFrom('customer_accounts').select(['id', 'account_number_sealed']).where('id', 'in', accounts).execute();
    const byId = new Map(rows.map((r) => [r.id, t.p.vault.open(r.account_number_sealed, `account:${r.id}`).reveal()]));
    accounts.forEach((uuid, i) => expect(byId.get(uuid)).toBe(`NEW${i}`));
  });
});

describe('rotation in a running gateway', () => {
  it('a new active key (the key file changed) queues a background re-wrap of everything', async () => {
    const k4 = { id: 'rot4', key: randomBytes(32) };
    expect(t.p.vault.activeKeyId).toBe('rot3');
    t.p.vault.setKeys([k4, k3]);
    const queued = await t.p.database.db.selectFrom('jobs').select(['queue', 'status']).where('queue', '=', 'vault.rewrap').where('status', '=', 'pending').execute();
    expect(queued.length).toBeGreaterThan(0);
    await t.p.jobs.drain({ queues: ['vault.rewrap'] });
    expect(await valuesUnderKey(t.p.database, 'rot3')).toBe(0);
    t.p.vault.setKeys([k4]);
    const card = (await t.p.database.db.selectFrom('sources').select('id').where('merchant_id', '=', a.client_uuid).limit(1).executeTakeFirstOrThrow()).id;
    expect((await t.m.sources.loadCardForPayment(t.p.database.db, owner, card)).pan.reveal()).toMatch(/^[0-9]{16}$/);
  });
});
