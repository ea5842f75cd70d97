/**
 * Clearhaus in production against its simulator, beyond the conformance scenarios: terminal credentials
 * checked and tested against Clearhaus (GET /account; HTTP 401 for a wrong API key) without moving
 * money; the test environment's cards that take a status code as their amount; MoTo refused before
 * anything is sent without a signing key, and a signature Clearhaus cannot verify refused; a stored
 * card's first payment starting a series and a subscription's charge following it (series[previous][id],
 * no CSC); an external 3-D Secure result sent as [3dsecure][v2][raw]; a soft decline without one refused
 * at the 3-D Secure page (Clearhaus authenticates nobody); a capture whose answer was lost left PENDING,
 * never retried (Clearhaus cannot be asked). PostgreSQL only (the conformance suite covers the
 * connector there).
 */
import { createHash, generateKeyPairSync, randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp, type TestMerchant } from '../helpers/app.js';
import { harnessOf, luhnCard } from '../helpers/connectors.js';
import { declarationNamed } from '../../src/processors/connectors.js';
import { ClearhausSimulator } from '../../src/processors/clearhaus/simulator/server.js';
import { CLEARHAUS_SIM_CARDS } from '../../src/processors/clearhaus/simulator/rules.js';
import { storeCard } from '../helpers/payments.js';
import { OutgoingClient, OutgoingPolicy } from '../../src/platform/net/outgoing.js';
import { secret } from '../../src/platform/security/secret.js';
import type { PaymentRequest } from '../../src/processors/connector.js';
import { ClearhausConnector } from '../../src/processors/clearhaus/clearhaus.connector.js';
import { clearhausTerminalOf } from '../../src/processors/clearhaus/credentials.js';

describe.skipIf(process.env.PAYGATE_TEST_DB !== 'postgres')('Clearhaus connector', () => {
  const h = harnessOf<ClearhausSimulator>(declarationNamed('clearhaus')!);
  let t: TestApp;
  let m: TestMerchant;
  let n = 0;

  beforeAll(async () => {
    await h.start();
    t = await createTestApp(h.env());
    m = await t.merchant({ env: 'production', isPci: true, serviceType: h.serviceType, terminal: h.terminal });
    await t.p.database.db.updateTable('merchants').set({ autorecover_transactions: true }).where('id', '=', m.client_uuid).execute();
  });
  afterAll(async () => {
    await t?.close();
    await h.close();
  });

  const order = async (api: TestMerchant, uuid: string) => (await api.api.get(`/order/${uuid}`)).body.order;
  const card = (pan: string) => ({ card_holder: 'Ana Pérez', card_pan: pan, card_expiry_month: '12', card_expiry_year: '2030', card_cvv: '123' });
  const single = (fields: Record<string, unknown>, who: TestMerchant = m) => who.api.post('/payment/single-step', {
    amount: 1000, operative: 'AUTHORIZATION', secure: false, description: 'clearhaus', service: who.service_uuid, customer_ext_id: `ch-${++n}`, ...card(luhnCard('41111112', n)), ...fields,
  });
  const simRequest = (processorId: string) => h.sim.authorization(processorId)!.request;

  it('production CLEARHAUS terminals need the API key (400 naming what is wrong); test_credentials asks Clearhaus for the account without moving money', async () => {
    const bad = await m.api.post('/terminal', { currency_code: 'EUR', type: 'CLEARHAUS', description: 'ch', credentials: { signing_api_key: 'abc' } });
    expect(bad.status).toBe(400);
    expect(bad.body.details).toMatch(/missing: api_key/);
    expect(bad.body.details).toMatch(/go together/);
    const calls = h.paymentCalls();
    const requests = h.sim.httpRequests;
    expect((await m.api.post('/terminal', { currency_code: 'EUR', type: 'CLEARHAUS', description: 'ch', credentials: h.terminal.credentials, test_credentials: true })).status).toBe(200);
    expect(h.sim.httpRequests).toBe(requests + 1);
    const wrong = await m.api.post('/terminal', { currency_code: 'EUR', type: 'CLEARHAUS', description: 'ch', credentials: { api_key: '11111111-2222-4333-8444-555555555555' }, test_credentials: true });
    expect(wrong.status).toBe(400);
    expect(wrong.body.details).toMatch(/api_key was refused by Clearhaus \(HTTP 401\)/);
    expect(h.paymentCalls()).toBe(calls);
  });

  it('the test environment\'s cards: a PAN 420000…0000 answers the status code given as its amount, any other amount 40110', async () => {
    const poor = (await single({ amount: 40413, ...card(CLEARHAUS_SIM_CARDS.TRIGGER) })).body.order;
    expect(poor.transactions[0]).toMatchObject({ status: 'REFUSED', error: 'INSUFFICIENT_FUNDS' });
    expect(poor.transactions[0].error_details).toBe('Clearhaus: Insufficient funds (status 40413)');
    const other = (await single({ amount: 1000, ...card(CLEARHAUS_SIM_CARDS.TRIGGER) })).body.order;
    expect(other.transactions[0]).toMatchObject({ status: 'REFUSED', error: 'INVALID_CARD' });
    expect(other.transactions[0].error_details).toMatch(/Invalid card number \(status 40110\)/);
    // 50000 Clearhaus error: declined, and the authorization voided (Clearhaus takes voids of those)
    const failed = (await single({ amount: 50000, ...card(CLEARHAUS_SIM_CARDS.TRIGGER) })).body.order;
    expect(failed.transactions[0]).toMatchObject({ status: 'REFUSED', error: 'PROCESSOR_ERROR' });
    expect(h.sim.authorization(failed.transactions[0].processor_id)).toMatchObject({ code: 50000, voided: true });
    const approved = (await single({ amount: 20000, ...card(CLEARHAUS_SIM_CARDS.TRIGGER_MASTERCARD) })).body.order;
    expect(approved).toMatchObject({ status: 'SUCCESS', paid: true });
    // a payment is an authorization captured in whole
    expect(h.sim.authorization(approved.transactions[0].processor_id)).toMatchObject({ amount: 20000, captured: 20000 });
  });

  it('MoTo needs signed requests: refused before anything is sent without a signing key; a signature Clearhaus cannot verify is refused', async () => {
    const unsigned = await t.merchant({ env: 'production', isPci: true, serviceType: h.serviceType, terminal: { code: null, credentials: { api_key: h.terminal.credentials.api_key } } });
    const calls = h.paymentCalls();
    const created = (await unsigned.api.post('/payment', { amount: 700, operative: 'AUTHORIZATION', secure: false, description: 'moto', service: unsigned.service_uuid, customer_ext_id: `ch-${++n}` })).body.order;
    const moto = (await unsigned.api.post('/payment/moto', { order_uuid: created.uuid, method: 'PHONE', ...card(luhnCard('41111113', n)) })).body.order;
    expect(moto.transactions[0]).toMatchObject({ status: 'REFUSED', error: 'PROCESSOR_ERROR' });
    expect(moto.transactions[0].error_details).toMatch(/MoTo payments only in signed requests/);
    expect(h.paymentCalls()).toBe(calls);
    // an unsigned e-commerce payment goes through
    expect((await single({}, unsigned)).body.order).toMatchObject({ status: 'SUCCESS' });

    const otherKey = generateKeyPairSync('rsa', { modulusLength: 1024 }).privateKey.export({ type: 'pkcs1', format: 'pem' }).toString();
    const forged = await t.merchant({ env: 'production', isPci: true, serviceType: h.serviceType, terminal: { code: null, credentials: { ...h.terminal.credentials, signing_private_key: otherKey } } });
    const refused = (await single({}, forged)).body.order;
    expect(refused.transactions[0]).toMatchObject({ status: 'REFUSED', error: 'PROCESSOR_ERROR' });
    expect(refused.transactions[0].error_details).toMatch(/signature is invalid \(status 40000\)/);
  });

  it('stored credentials: the first payment of a saved card starts a series; a subscription\'s charge follows it (series[previous][id], no CSC); a card stored without starting one is charged as merchant-initiated', async () => {
    const c = `chcof-${++n}`;
    const first = (await single({ customer_ext_id: c, save_card: true })).body.order;
    expect(first.status).toBe('SUCCESS');
    const id = first.transactions[0].processor_id;
    expect(simRequest(id)).toMatchObject({ 'series[type]': 'unscheduled', credential_on_file: 'store' });
    expect(first.cof_txnid).toBe(id);
    await m.api.post('/subscriptions/product', { name: `P ${c}`, external_id: `prod-${c}` });
    await m.api.post('/subscriptions/plan', { name: `Plan ${c}`, external_id: `plan-${c}`, product: `prod-${c}`, amount: 990, interval: 1, interval_type: 'MONTHLY' });
    const sub = await m.api.post('/subscriptions/subscription', { plan: `plan-${c}`, customer: c, payment_attempts_limit: 1, additional_data: { source_uuid: first.transactions[0].source.uuid } });
    expect(sub.status, sub.raw).toBe(200);
    const charge = (await t.p.database.db.selectFrom('transactions').select('processor_id').where('amount', '=', 990).orderBy('created_at', 'desc').executeTakeFirstOrThrow()).processor_id!;
    const mit = simRequest(charge);
    expect(mit['series[previous][id]']).toBe(id);
    expect(Object.keys(mit).filter((k) => /csc|initiator|credential_on_file|series\[type\]/.test(k))).toEqual([]);

    // not saved: its first payment starts no series; a batch line on it is merchant-initiated with the stored credential used
    const d = `chnocof-${++n}`;
    const plain = (await single({ customer_ext_id: d, save_card: false })).body.order;
    expect(simRequest(plain.transactions[0].processor_id)['series[type]']).toBeUndefined();
    const file = Buffer.from(`amount,card,customer_external_id,service,additional,url_post\n450,${plain.transactions[0].source.uuid},${d},${m.service_uuid},batch line,\n`).toString('base64');
    const batch = (await m.api.post('/batch/authorizations', { data: file, filename: 'lines.csv' })).body.batch;
    await t.m.batch.drain();
    const line = (await m.api.get(`/batch/${batch.uuid}`)).body.lines[0];
    expect(line).toMatchObject({ outcome: 'SUCCESS' });
    const lineTx = (await order(m, line.order_uuid)).transactions[0].processor_id;
    expect(simRequest(lineTx)).toMatchObject({ initiator: 'merchant', credential_on_file: 'use' });
    expect(simRequest(lineTx)['series[previous][id]']).toBeUndefined();
  });

  it('an external 3-D Secure result (threeds_data) goes to Clearhaus as [3dsecure][v2][raw]: the soft-decline card is approved with it', async () => {
    const o = (await single({ ...card(CLEARHAUS_SIM_CARDS.SOFT_DECLINE), threeds_data: { version: '2.2.0', trans_status: 'Y', eci: '05', cavv: 'AAABBEg0VhI0VniQEjRWAAAAAAA=', ds_trans_id: 'f25084f0-5b16-4c0a-ae5d-b24808a95e4b' } })).body.order;
    expect(o).toMatchObject({ status: 'SUCCESS', paid: true });
    expect(simRequest(o.transactions[0].processor_id)).toMatchObject({
      'card[3dsecure][v2][raw][trans_status]': 'Y', 'card[3dsecure][v2][raw][eci]': '05', 'card[3dsecure][v2][raw][av]': 'AAABBEg0VhI0VniQEjRWAAAAAAA=',
      'card[3dsecure][v2][raw][message_version]': '2.2.0', 'card[3dsecure][v2][raw][ds_trans_id]': 'f25084f0-5b16-4c0a-ae5d-b24808a95e4b',
    });
  });

  it('a soft decline (40416) goes to the 3-D Secure page, where Clearhaus cannot authenticate: the payment is refused with that reason', async () => {
    const c = `chsoft-${++n}`;
    const soft = await storeCard(t, m, CLEARHAUS_SIM_CARDS.SOFT_DECLINE, c);
    const created = (await m.api.post('/payment', { amount: 1500, operative: 'AUTHORIZATION', secure: false, description: 'soft', service: m.service_uuid, customer_ext_id: c, url_ok: 'https://shop.example/ok', url_ko: 'https://shop.example/ko' })).body.order;
    const r = await m.api.post('/payment/direct', { order_uuid: created.uuid, card_uuid: soft });
    expect(r.status, r.raw).toBe(303);
    const tokenized = `/v1/payment/tokenized/${created.token}`;
    const page = await t.app.inject({ method: 'GET', url: tokenized, headers: { 'x-forwarded-proto': 'https' } });
    expect(page.statusCode).toBe(200);
    const nonce = /name="nonce" value="([^"]+)"/.exec(page.body)?.[1];
    expect(nonce).toBeDefined();
    const auth = await t.app.inject({ method: 'POST', url: tokenized, headers: { 'x-forwarded-proto': 'https', 'content-type': 'application/x-www-form-urlencoded' }, payload: new URLSearchParams({ nonce: nonce!, result: 'approve' }).toString() });
    expect(auth.statusCode, auth.body.slice(0, 300)).toBe(303);
    expect(auth.headers.location).toBe('https://shop.example/ko');
    const after = await order(m, created.uuid);
    expect(after.status).toBe('REFUSED');
    expect(after.transactions.at(-1)).toMatchObject({ status: 'REFUSED', error: 'AUTHENTICATION_FAILED' });
    expect(after.transactions.at(-1).error_details).toMatch(/Clearhaus does not authenticate cardholders/);
  });

  it('a confirmation whose answer was lost stays PENDING: Clearhaus cannot be asked, and the capture is never sent again', async () => {
    const pre = (await single({ operative: 'DEFERRED', amount: 1200 })).body.order;
    expect(pre.status).toBe('PENDING_CONFIRMATION');
    h.fault('answer-lost');
    const confirm = await m.api.post('/payment/confirmation', { order_uuid: pre.uuid, amount: 600 });
    expect(confirm.status, confirm.raw).toBe(200);
    expect(confirm.body.order.transactions.at(-1).status).toBe('PENDING');
    expect(h.sim.authorization(pre.transactions[0].processor_id)!.captured).toBe(600);
    const calls = h.paymentCalls();
    expect(await t.m.payments.reconcile({ olderThanMs: 0 })).toBe(0);
    expect((await order(m, pre.uuid)).transactions.at(-1).status).toBe('PENDING');
    expect(h.paymentCalls()).toBe(calls);
  });

  it('the reconciler\'s lookup answers from the ledger (Clearhaus cannot be asked): a result read is found without a call; an authorization approved and never captured is voided and not found; a capture sent without its answer cannot be settled', async () => {
    const terminal = { serviceType: 'CLEARHAUS', terminalId: null, serviceId: null };
    const c = new ClearhausConnector({
      baseUrl: h.env().PAYGATE_CLEARHAUS_URL, http: new OutgoingClient({ policy: new OutgoingPolicy({ allow: ['127.0.0.1'], sandboxLoopback: false }) }), db: () => t.p.database.db, timeoutMs: 5000,
      terminals: async () => clearhausTerminalOf(h.terminal.credentials), fingerprint: (pan) => createHash('sha256').update(pan).digest('hex'),
    });
    const pay = (amount: number): PaymentRequest => ({
      reference: randomUUID(), terminal, now: new Date(), amount, currency: 'EUR', channel: 'ECOMMERCE', card: { pan: secret(luhnCard('41111114', ++n)), expiryMonth: 12, expiryYear: 2030, cvv: secret('123') },
    });
    const held = pay(800);
    const approved = await c.preauthorize(held);
    expect(approved.outcome).toBe('APPROVED');
    const requests = h.sim.httpRequests;
    expect(await c.lookup({ reference: held.reference, operation: 'preauthorize', terminal })).toEqual({ found: true, result: { outcome: 'APPROVED', authorization: (approved as any).processorId, processorId: (approved as any).processorId, amount: 800 } });
    expect(h.sim.httpRequests).toBe(requests);
    // a payment stopped between its authorization's answer and its capture (as after a crash)
    const stopped = randomUUID();
    await c.ledger.record({ reference: stopped, kind: 'payment', amount: 800, currency: 'EUR', account: 'key-test', originalReference: null, terminalRef: terminal });
    await c.ledger.save(stopped, { providerId: (approved as any).processorId, data: { authCode: 20000, authMessage: null } });
    expect(await c.lookup({ reference: stopped, operation: 'authorize', terminal })).toEqual({ found: false });
    expect(h.sim.authorization((approved as any).processorId)).toMatchObject({ voided: true, captured: 0 });
    // its capture sent, the answer lost
    const sent = randomUUID();
    await c.ledger.record({ reference: sent, kind: 'payment', amount: 800, currency: 'EUR', account: 'key-test-2', originalReference: null, terminalRef: terminal });
    await c.ledger.save(sent, { providerId: (approved as any).processorId, data: { authCode: 20000, authMessage: null, captureSent: true } });
    const calls = h.paymentCalls();
    expect(await c.lookup({ reference: sent, operation: 'authorize', terminal })).toEqual({ found: 'unknown', details: expect.stringMatching(/Clearhaus offers no way to read it: check the authorization in the Clearhaus Dashboard/) });
    expect(h.paymentCalls()).toBe(calls);
    // declined, as read: found as declined; never recorded: not found
    const refused = pay(900);
    refused.card = { ...refused.card, pan: secret(CLEARHAUS_SIM_CARDS.DECLINED) };
    expect(await c.authorize(refused)).toMatchObject({ outcome: 'DECLINED', error: 'DENIED' });
    expect(await c.lookup({ reference: refused.reference, operation: 'authorize', terminal })).toMatchObject({ found: true, result: { outcome: 'DECLINED', error: 'DENIED' } });
    expect(await c.lookup({ reference: randomUUID(), operation: 'authorize', terminal })).toEqual({ found: false });
  });

  it('a capture Clearhaus refuses after approving the authorization (an account rule refusing captures whose CSC did not match) voids the authorization: the payment is declined, nothing reserved', async () => {
    const creds = h.terminal.credentials;
    const strict = new ClearhausSimulator({ accounts: { [creds.api_key]: { merchantId: '000000003000002', signingApiKey: creds.signing_api_key, signingPrivateKey: creds.signing_private_key, captureNeedsCscMatch: true } } });
    const url = await strict.listen();
    try {
      const terminal = { serviceType: 'CLEARHAUS', terminalId: null, serviceId: null };
      const c = new ClearhausConnector({
        baseUrl: url, http: new OutgoingClient({ policy: new OutgoingPolicy({ allow: ['127.0.0.1'], sandboxLoopback: false }) }), db: () => t.p.database.db, timeoutMs: 5000,
        terminals: async () => clearhausTerminalOf(creds), fingerprint: (pan) => createHash('sha256').update(pan).digest('hex'),
      });
      const pay = (cvv: string): PaymentRequest => ({
        reference: randomUUID(), terminal, now: new Date(), amount: 1250, currency: 'EUR', channel: 'ECOMMERCE', card: { pan: secret(luhnCard('41111115', ++n)), expiryMonth: 12, expiryYear: 2030, cvv: secret(cvv) },
      });
      const refused = pay('123');
      const r = await c.authorize(refused);
      expect(r).toMatchObject({ outcome: 'DECLINED', error: 'DENIED', details: expect.stringMatching(/approved the authorization but refused its capture: Clearhaus: Clearhaus rule violation: capture of an authorization whose CSC did not match \(status 40200\); the authorization was voided/) });
      const id = (r as { processorId: string }).processorId;
      expect(strict.authorization(id)).toMatchObject({ code: 20000, captured: 0, voided: true });
      // the ledger keeps what was read: the reconciler would find the payment declined
      expect(await c.lookup({ reference: refused.reference, operation: 'authorize', terminal })).toMatchObject({ found: true, result: { outcome: 'DECLINED', error: 'DENIED' } });
      // the test environment's matching CSC (987) is captured
      expect(await c.authorize(pay('987'))).toMatchObject({ outcome: 'APPROVED', amount: 1250 });
      strict.spec.assertClean();
    } finally {
      await strict.close();
    }
  });
});
