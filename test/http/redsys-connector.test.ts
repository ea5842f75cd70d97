/**
 * The Redsys connector against the Redsys simulator, on a real database (its order numbers and COF ids):
 * every operation, the answer verified before it is read (a tampered or lost answer is UNKNOWN), the
 * query service for lookups, both signature versions, and the requests it sends checked by redsys-easy.
 */
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { serializeAndSignJSONRequest } from 'redsys-easy';
import { OutgoingClient, OutgoingPolicy } from '../../src/platform/net/outgoing.js';
import { secret } from '../../src/platform/security/secret.js';
import type { CardData, PaymentRequest } from '../../src/processors/connector.js';
import { RedsysConnector, redsysTerminalOf } from '../../src/processors/redsys/index.js';
import { decodeParameters } from '../../src/processors/redsys/signature.js';
import { Ledger } from '../../src/processors/kit/ledger.js';
import { REDSYS_LEDGER } from '../../src/processors/redsys/ledger.js';
import { RedsysSimulator } from '../../src/processors/redsys/simulator/server.js';
import { SIM_CARDS } from '../../src/processors/redsys/simulator/rules.js';
import { createTestDatabase, type TestDatabase } from '../helpers/db.js';

const KEY = 'sq7HjrUOBfKmC576ILgskD5srU870gJ7';
const KEY2 = 'Mk9m98IfEblmPfrpsawt7BmxObt98Jev';
const FUC = '999008881';
let db: TestDatabase;
/** The operation the connector recorded under our reference (its ledger). */
const findOperation = (reference: string) => new Ledger<{ terminal: string }>(REDSYS_LEDGER, () => db.database.db).find(reference);
let sim: RedsysSimulator;
let v1: RedsysConnector;
let v2: RedsysConnector;
const logged: Array<{ msg: string; obj: Record<string, unknown> }> = [];
const logger = {
  warn: (obj: Record<string, unknown>, msg: string) => logged.push({ obj, msg }),
  error: (obj: Record<string, unknown>, msg: string) => logged.push({ obj, msg }),
  info: () => {},
  child() {
    return this;
  },
} as never;

const NOW = new Date('2026-06-01T10:00:00Z');
const terminal = { serviceType: 'REDSYSPSD2', terminalId: 't', serviceId: null };
const card = (pan: string, cvv: string | null = '123'): CardData => ({ pan: secret(pan), expiryMonth: 12, expiryYear: 2030, cvv: cvv ? secret(cvv) : null, holder: 'Ana' });
const pay = (pan: string, o: Partial<PaymentRequest> = {}): PaymentRequest => ({ reference: randomUUID(), terminal, now: NOW, amount: 1000, currency: 'EUR', card: card(pan), channel: 'ECOMMERCE', ...o });

beforeAll(async () => {
  db = await createTestDatabase();
  sim = new RedsysSimulator({ merchants: { [FUC]: { '001': { key: KEY }, '002': { key: KEY2 } } }, clock: () => NOW });
  const url = await sim.listen();
  const http = new OutgoingClient({ policy: new OutgoingPolicy({ allow: ['127.0.0.1'], sandboxLoopback: false }) });
  const make = (version: string) =>
    new RedsysConnector({
      baseUrl: url,
      http,
      db: () => db.database.db,
      terminals: async () => redsysTerminalOf(FUC, { terminal_secure: '1', key_secure: KEY, terminal_not_secure: '2', key_not_secure: KEY2, signature_version: version }),
      timeoutMs: 5000,
      logger,
      fingerprint: (pan) => `fp-${pan.slice(-4)}-${pan.length}`,
    });
  v1 = make('HMAC_SHA256_V1');
  v2 = make('HMAC_SHA512_V2');
});

afterAll(async () => {
  await sim?.close();
  await db?.drop();
  // every request the connector sent and every answer the simulator gave followed Redsys's reference
  sim?.spec.assertClean();
});

describe('payments and follow-ups', () => {
  it('authorizes on the secure terminal under a new order number; redsys-easy signs the same request identically', async () => {
    const req = pay(SIM_CARDS.APPROVED, { storeCredential: true });
    const r = await v1.authorize(req);
    expect(r).toMatchObject({ outcome: 'APPROVED', amount: 1000, authorization: expect.stringMatching(/^\d{6}$/), cofTxnid: expect.stringMatching(/^\d{15}$/) });
    const recorded = (await findOperation(req.reference))!;
    expect(recorded).toMatchObject({ account: FUC, data: { terminal: '001' }, kind: '0', amount: 1000 });
    const op = { order: recorded.providerId! };
    expect(op.order).toMatch(/^\d{4}[0-9A-Za-z]{8}$/);
    expect(r.outcome === 'APPROVED' && r.processorId).toBe(op.order);
    const sent = sim.requests.at(-1)!.body as { Ds_MerchantParameters: string; Ds_Signature: string };
    const params = decodeParameters(sent.Ds_MerchantParameters);
    expect(params).toMatchObject({ DS_MERCHANT_ORDER: op.order, DS_MERCHANT_TERMINAL: '001', DS_MERCHANT_COF_INI: 'S' });
    expect(serializeAndSignJSONRequest(KEY, params as never)).toEqual(sent);
    expect(sim.order(FUC, '001', op.order)).toMatchObject({ approved: true, amount: 1000 });
  });

  it('pre-authorizes, confirms part, refunds part then the rest, all under the payment\'s number', async () => {
    const p = pay(SIM_CARDS.APPROVED);
    expect(await v1.preauthorize(p)).toMatchObject({ outcome: 'APPROVED' });
    const original = { reference: p.reference, processorId: null, authorization: '' };
    const follow = (amount: number) => ({ reference: randomUUID(), terminal, now: NOW, amount, currency: 'EUR', original });
    expect(await v1.capture(follow(1200))).toMatchObject({ outcome: 'DECLINED', error: 'PROCESSOR_ERROR', details: expect.stringContaining('SIS0062') });
    expect(await v1.capture(follow(600))).toMatchObject({ outcome: 'APPROVED', amount: 600 });
    expect(await v1.refund(follow(250))).toMatchObject({ outcome: 'APPROVED', amount: 250 });
    expect(await v1.refund(follow(350))).toMatchObject({ outcome: 'APPROVED' });
    expect(await v1.refund(follow(1))).toMatchObject({ outcome: 'DECLINED', details: expect.stringContaining('SIS0057') });
    const order = (await findOperation(p.reference))!.providerId!;
    expect(sim.order(FUC, '001', order)).toMatchObject({ confirmed: 600, refunded: 600 });
    // a cancellation of another pre-authorization
    const q = pay(SIM_CARDS.APPROVED);
    await v1.preauthorize(q);
    expect(await v1.cancel({ reference: randomUUID(), terminal, now: NOW, amount: 1000, currency: 'EUR', original: { reference: q.reference, processorId: null, authorization: '' } })).toMatchObject({ outcome: 'APPROVED' });
    // a follow-up of a payment Redsys never saw from us is refused without a call
    const calls = sim.calls.trataPeticion;
    expect(await v1.refund({ reference: randomUUID(), terminal, now: NOW, amount: 1, currency: 'EUR', original: { reference: randomUUID(), processorId: null, authorization: '' } })).toMatchObject({ outcome: 'DECLINED' });
    expect(sim.calls.trataPeticion).toBe(calls);
  });

  it('declines with their errors; 0195 is a challenge; MoTo and MIT go through the non-secure terminal', async () => {
    expect(await v1.authorize(pay(SIM_CARDS.REFUSED))).toMatchObject({ outcome: 'DECLINED', error: 'DENIED', details: 'Redsys 0190: declined by the issuer without a reason' });
    expect(await v1.authorize(pay(SIM_CARDS.INSUFFICIENT_FUNDS))).toMatchObject({ outcome: 'DECLINED', error: 'INSUFFICIENT_FUNDS' });
    expect(await v1.authorize(pay(SIM_CARDS.APPROVED, { card: { ...card(SIM_CARDS.APPROVED), expiryYear: 2025 } }))).toMatchObject({ outcome: 'DECLINED', error: 'EXPIRED_CARD' });
    expect(await v1.authorize(pay(SIM_CARDS.SOFT_DECLINE))).toMatchObject({ outcome: 'CHALLENGE' });
    const moto = pay(SIM_CARDS.SOFT_DECLINE, { channel: 'MOTO' });
    expect(await v1.authorize(moto)).toMatchObject({ outcome: 'APPROVED' });
    expect(decodeParameters((sim.requests.at(-1)!.body as { Ds_MerchantParameters: string }).Ds_MerchantParameters)).toMatchObject({ DS_MERCHANT_TERMINAL: '002', DS_MERCHANT_DIRECTPAYMENT: 'moto' });
  });

  it('a merchant-initiated payment quotes the network transaction id of the card\'s first payment, with its kind', async () => {
    const sent = () => decodeParameters((sim.requests.at(-1)!.body as { Ds_MerchantParameters: string }).Ds_MerchantParameters);
    // a one-off customer payment (the card is not stored) is no first use: no id
    expect(await v1.authorize(pay(SIM_CARDS.FRICTIONLESS_NO_METHOD))).not.toHaveProperty('cofTxnid');
    expect(sent()).not.toHaveProperty('DS_MERCHANT_COF_INI');
    const first = await v1.authorize(pay(SIM_CARDS.FRICTIONLESS_NO_METHOD, { storeCredential: true }));
    const cof = first.outcome === 'APPROVED' ? first.cofTxnid : null;
    expect(cof).toMatch(/^\d{15}$/);
    expect(sent()).toMatchObject({ DS_MERCHANT_COF_INI: 'S', DS_MERCHANT_COF_TYPE: 'C' });
    // the stored card paid again by its customer: a later use of the stored credential
    expect(await v1.authorize(pay(SIM_CARDS.FRICTIONLESS_NO_METHOD, { storeCredential: true }))).toMatchObject({ outcome: 'APPROVED', cofTxnid: cof });
    expect(sent()).toMatchObject({ DS_MERCHANT_TERMINAL: '001', DS_MERCHANT_COF_INI: 'N', DS_MERCHANT_COF_TYPE: 'C', DS_MERCHANT_COF_TXNID: cof });
    const mit = await v1.authorize(pay(SIM_CARDS.FRICTIONLESS_NO_METHOD, { channel: 'MIT', mit: 'RECURRING', card: card(SIM_CARDS.FRICTIONLESS_NO_METHOD, null) }));
    expect(mit).toMatchObject({ outcome: 'APPROVED', cofTxnid: cof });
    expect(sent()).toMatchObject({
      DS_MERCHANT_TERMINAL: '002', DS_MERCHANT_COF_INI: 'N', DS_MERCHANT_COF_TYPE: 'R', DS_MERCHANT_COF_TXNID: cof, DS_MERCHANT_EXCEP_SCA: 'MIT', DS_MERCHANT_DIRECTPAYMENT: 'true',
    });
    await v1.authorize(pay(SIM_CARDS.FRICTIONLESS_NO_METHOD, { channel: 'MIT', mit: 'INSTALMENT', card: card(SIM_CARDS.FRICTIONLESS_NO_METHOD, null) }));
    expect(sent()).toMatchObject({ DS_MERCHANT_COF_TYPE: 'I' });
    // a card never paid by its customer has no id: Redsys refuses the MIT (SIS0617)
    expect(await v1.authorize(pay(SIM_CARDS.CVV_FAIL, { channel: 'MIT', card: card(SIM_CARDS.CVV_FAIL, null) }))).toMatchObject({ outcome: 'DECLINED', details: expect.stringContaining('SIS0617') });
  });

  it('HMAC_SHA512_V2 terminals sign and verify V2', async () => {
    const r = await v2.authorize(pay(SIM_CARDS.APPROVED));
    expect(r.outcome).toBe('APPROVED');
    expect((sim.requests.at(-1)!.body as { Ds_SignatureVersion: string }).Ds_SignatureVersion).toBe('HMAC_SHA512_V2');
  });

  it('card verification and the operations Redsys does not offer', async () => {
    expect(await v1.verifyCard({ reference: randomUUID(), terminal, now: NOW, currency: 'EUR', card: card(SIM_CARDS.APPROVED) })).toMatchObject({ outcome: 'VERIFIED' });
    expect(await v1.verifyCard({ reference: randomUUID(), terminal, now: NOW, currency: 'EUR', card: card(SIM_CARDS.REFUSED) })).toMatchObject({ outcome: 'DECLINED', error: 'DENIED' });
    const calls = sim.calls.trataPeticion;
    expect(await v1.payout({ reference: randomUUID(), terminal, now: NOW, amount: 1, currency: 'EUR', card: card(SIM_CARDS.APPROVED) })).toMatchObject({ outcome: 'DECLINED', details: expect.stringContaining('Payouts to cards are not offered') });
    expect(sim.calls.trataPeticion).toBe(calls);
  });
});

describe('answers that cannot be trusted, and lookups', () => {
  it('a tampered answer is UNKNOWN and logged without secrets; the query service then tells what happened', async () => {
    sim.injectFault({ kind: 'tamper' });
    const req = pay(SIM_CARDS.REFUSED);
    const r = await v1.authorize(req);
    expect(r).toMatchObject({ outcome: 'UNKNOWN', details: expect.stringContaining('signature mismatch') });
    const entry = logged.find((l) => l.msg.includes('answer refused'))!;
    expect(entry.obj).toMatchObject({ reason: 'signature mismatch' });
    expect(JSON.stringify(logged)).not.toContain(KEY);
    expect(JSON.stringify(logged)).not.toContain(SIM_CARDS.REFUSED);
    expect(await v1.lookup({ reference: req.reference, operation: 'authorize', terminal })).toMatchObject({ found: true, result: { outcome: 'DECLINED', error: 'DENIED' } });
  });

  it('an answer lost after the payment was made: UNKNOWN, then found APPROVED; a request that never arrived: not found', async () => {
    sim.injectFault({ kind: 'drop' });
    const req = pay(SIM_CARDS.APPROVED);
    expect((await v1.authorize(req)).outcome).toBe('UNKNOWN');
    expect(await v1.lookup({ reference: req.reference, operation: 'authorize', terminal })).toMatchObject({ found: true, result: { outcome: 'APPROVED', amount: 1000 } });
    sim.injectFault({ kind: 'lost' });
    const lost = pay(SIM_CARDS.APPROVED);
    expect((await v1.authorize(lost)).outcome).toBe('UNKNOWN');
    expect(await v1.lookup({ reference: lost.reference, operation: 'authorize', terminal })).toEqual({ found: false });
    // never recorded: never sent
    expect(await v1.lookup({ reference: randomUUID(), operation: 'authorize', terminal })).toEqual({ found: false });
    // the query service not answering is unknown
    sim.injectFault({ kind: 'drop', endpoint: 'query' });
    expect((await v1.lookup({ reference: req.reference, operation: 'authorize', terminal })).found).toBe('unknown');
  });

  it('a protocol error (wrong key) is a refusal naming the code', async () => {
    const bad = new RedsysConnector({
      baseUrl: sim.url, http: new OutgoingClient({ policy: new OutgoingPolicy({ allow: ['127.0.0.1'], sandboxLoopback: false }) }), db: () => db.database.db,
      terminals: async () => redsysTerminalOf(FUC, { terminal_secure: '1', key_secure: KEY2, terminal_not_secure: '2', key_not_secure: KEY2 }), timeoutMs: 5000, fingerprint: (p) => p.slice(-4),
    });
    expect(await bad.authorize(pay(SIM_CARDS.APPROVED))).toEqual({ outcome: 'DECLINED', error: 'PROCESSOR_ERROR', details: 'Redsys SIS0042: signature error: check the terminal key and the signature version', processorId: null });
  });

  it('only the configured host is reached', async () => {
    const closed = new RedsysConnector({
      baseUrl: sim.url, http: new OutgoingClient({ policy: new OutgoingPolicy({ allow: [], sandboxLoopback: false }) }), db: () => db.database.db,
      terminals: async () => redsysTerminalOf(FUC, { terminal_secure: '1', key_secure: KEY, terminal_not_secure: '2', key_not_secure: KEY2 }), timeoutMs: 5000, fingerprint: (p) => p.slice(-4),
    });
    const calls = sim.calls.trataPeticion;
    expect(await closed.authorize(pay(SIM_CARDS.APPROVED))).toMatchObject({ outcome: 'UNKNOWN', details: expect.stringContaining('not allowed') });
    expect(sim.calls.trataPeticion).toBe(calls);
  });
});
