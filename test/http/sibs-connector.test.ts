/**
 * The SIBS connector against its simulator (the SPG v2 protocol over HTTP, its SpecLedger clean) on the
 * database of the run: a card payment is a checkout and the purchase on its transaction (Success,
 * Declined with SIBS's words); a pre-authorization captured in part, another cancelled; refunds SIBS
 * answers Pending, settled by its encrypted notification (Success, or Declined: a later failure); MB
 * WAY started as a push APM waits PENDING until the customer's phone decides (notification: Success,
 * Declined, Expired); a lost answer found again by the status query by our merchantTransactionId; a
 * tampered or foreign notification refused, a replay ignored; what the connector does not offer
 * refused before anything is sent.
 */
import { createHash, randomBytes, randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { OutgoingClient, OutgoingPolicy } from '../../src/platform/net/outgoing.js';
import { secret } from '../../src/platform/security/secret.js';
import type { FollowUpRequest, NotificationResult, PaymentRequest } from '../../src/processors/connector.js';
import { sibsTerminalOf } from '../../src/processors/sibs/credentials.js';
import { SibsConnector } from '../../src/processors/sibs/sibs.connector.js';
import { SibsSimulator } from '../../src/processors/sibs/simulator/server.js';
import { simulator as sibsModule } from '../../src/processors/sibs/simulator/index.js';
import { SIBS_SIM_CARDS, SIBS_SIM_FAILED_REFUND_AMOUNT } from '../../src/processors/sibs/simulator/rules.js';
import { decryptNotification, encryptNotification, merchantTransactionIdOf } from '../../src/processors/sibs/mapping.js';
import { createTestDatabase, type TestDatabase } from '../helpers/db.js';
import { Ledger, sharedLedger } from '../../src/processors/kit/ledger.js';

const creds = sibsModule.harness.terminal.credentials;
const terminal = { serviceType: 'SIBS', serviceId: randomUUID(), terminalId: randomUUID() };
const NOW = new Date('2026-12-07T08:00:00.000Z');

let db: TestDatabase;
let sim: SibsSimulator;
let c: SibsConnector;
/** Notifications the simulator sent, kept for the test to deliver. */
const inbox: Array<{ headers: Record<string, string>; body: string }> = [];

beforeAll(async () => {
  db = await createTestDatabase();
  sim = sibsModule.create({ terminal: sibsModule.harness.terminal, webhookUrl: 'http://127.0.0.1:9/v1/processor/sibs/webhook' }) as SibsSimulator;
  sim.transport = async (n) => {
    inbox.push({ headers: n.headers, body: n.body });
    return 200;
  };
  const url = await sim.listen();
  c = new SibsConnector({
    baseUrl: `${url}/api/v2`, http: new OutgoingClient({ policy: new OutgoingPolicy({ allow: ['127.0.0.1'], sandboxLoopback: false }) }), db: () => db.database.db, timeoutMs: 2000,
    terminals: async () => sibsTerminalOf(creds), fingerprint: (pan) => createHash('sha256').update(pan).digest('hex'),
  });
});
afterAll(async () => {
  sim?.spec.assertClean();
  await sim?.close();
  await db?.drop();
});

let n = 0;
const pay = (pan: string, o: Partial<PaymentRequest> = {}): PaymentRequest => ({
  reference: randomUUID(), terminal, now: NOW, amount: 1000, currency: 'EUR', channel: 'ECOMMERCE',
  card: { pan: secret(pan), expiryMonth: 12, expiryYear: 2030, cvv: secret('123'), holder: `Ana ${++n}` }, ...o,
} as PaymentRequest);
const follow = (original: string, amount: number): FollowUpRequest => ({ reference: randomUUID(), terminal, now: NOW, amount, currency: 'EUR', original: { reference: original, processorId: null, authorization: '' } } as FollowUpRequest);
/**
 * Delivers the notifications sent since `from` (as the gateway's webhook route hands them over); each
 * one, authenticated, carries the acknowledgement SIBS expects: {statusCode: "200", statusMsg:
 * "Success", notificationID} of that notification (returned without it).
 */
const deliver = async (from: number): Promise<NotificationResult[]> => {
  await sim.settled();
  const out: NotificationResult[] = [];
  for (const w of inbox.slice(from)) {
    const { acknowledgement, ...r } = await c.notification({ body: w.body, 'x-initialization-vector': w.headers['x-initialization-vector'], 'x-authentication-tag': w.headers['x-authentication-tag'] });
    const clear = JSON.parse(decryptNotification(w.body, w.headers['x-initialization-vector'], w.headers['x-authentication-tag'], sibsTerminalOf(creds).webhookKey)!) as { notificationID: string };
    expect(acknowledgement).toEqual({ statusCode: '200', statusMsg: 'Success', notificationID: clear.notificationID });
    expect(sim.spec.response('notification', 'acknowledgement', acknowledgement)).toEqual([]);
    out.push(r as NotificationResult);
  }
  return out;
};

describe('SIBS connector', () => {
  it('a card payment: checkout, then the purchase on the transaction with its signature', async () => {
    const req = pay(SIBS_SIM_CARDS.APPROVED);
    const r = await c.authorize(req);
    expect(r).toMatchObject({ outcome: 'APPROVED', amount: 1000 });
    const tx = sim.byMerchantTransactionId(merchantTransactionIdOf(req.reference))!;
    expect(r).toMatchObject({ processorId: tx.id, authorization: tx.id });
    expect(tx).toMatchObject({ status: 'Success', paymentType: 'PURS', method: 'CARD', amount: 1000 });
  });

  it('declines carry SIBS\'s words; an expired card is declined', async () => {
    expect(await c.authorize(pay(SIBS_SIM_CARDS.DECLINED))).toMatchObject({ outcome: 'DECLINED', error: 'DENIED', details: 'SIBS 000: Transaction declined by the issuer' });
    expect(await c.authorize(pay(SIBS_SIM_CARDS.APPROVED, { card: { pan: secret(SIBS_SIM_CARDS.APPROVED), expiryMonth: 1, expiryYear: 2020, cvv: null, holder: null } }))).toMatchObject({ outcome: 'DECLINED', details: 'SIBS 000: Expired card' });
  });

  it('the test environment\'s 3-D Secure cards answer Partial: refused with the reason, nothing charged, and so says the status', async () => {
    for (const [pan, type] of [[SIBS_SIM_CARDS.CHALLENGE, 'THREEDS_CHALLENGE'], [SIBS_SIM_CARDS.CHALLENGE_MASTERCARD, 'THREEDS_CHALLENGE'], [SIBS_SIM_CARDS.FRICTIONLESS, 'THREEDS_METHOD']] as const) {
      const p = pay(pan);
      const from = inbox.length;
      expect(await c.authorize(p)).toMatchObject({ outcome: 'DECLINED', error: 'AUTHENTICATION_FAILED', details: expect.stringContaining(`SIBS asks for 3-D Secure (${type})`) });
      expect(sim.byMerchantTransactionId(merchantTransactionIdOf(p.reference))).toMatchObject({ status: 'Partial', captured: 0 });
      // a Partial purchase is not notified; its status, the action never performed, is a refusal too
      await sim.settled();
      expect(inbox.length).toBe(from);
      expect(await c.lookup({ reference: p.reference, terminal } as never)).toMatchObject({ found: true, result: { outcome: 'DECLINED' } });
    }
    expect(await c.authorize(pay(SIBS_SIM_CARDS.APPROVED_MASTERCARD))).toMatchObject({ outcome: 'APPROVED' });
  });

  it('a pre-authorization (AUTH) captured in part; another cancelled; a capture of nothing refused', async () => {
    const pre = pay(SIBS_SIM_CARDS.APPROVED);
    expect(await c.preauthorize(pre)).toMatchObject({ outcome: 'APPROVED' });
    expect(sim.byMerchantTransactionId(merchantTransactionIdOf(pre.reference))!.paymentType).toBe('AUTH');
    expect(await c.capture(follow(pre.reference, 600))).toMatchObject({ outcome: 'APPROVED', amount: 600 });
    expect(await c.capture(follow(pre.reference, 100))).toMatchObject({ outcome: 'DECLINED', error: 'PROCESSOR_ERROR', details: 'SIBS refused the capture: E0005: Nothing to capture' });
    const other = pay(SIBS_SIM_CARDS.APPROVED);
    await c.preauthorize(other);
    expect(await c.cancel(follow(other.reference, 1000))).toMatchObject({ outcome: 'APPROVED' });
  });

  it('refunds are PENDING when SIBS takes them; its notification settles each (a later failure declines it)', async () => {
    const p = pay(SIBS_SIM_CARDS.APPROVED);
    await c.authorize(p);
    const from = inbox.length;
    const part = follow(p.reference, 300);
    expect(await c.refund(part)).toMatchObject({ outcome: 'PENDING' });
    const failing = follow(p.reference, SIBS_SIM_FAILED_REFUND_AMOUNT);
    expect(await c.refund(failing)).toMatchObject({ outcome: 'PENDING' });
    const results = await deliver(from);
    expect(results).toContainEqual({ outcome: 'SETTLE', reference: part.reference, result: expect.objectContaining({ outcome: 'APPROVED', amount: 300 }) });
    expect(results).toContainEqual({ outcome: 'SETTLE', reference: failing.reference, result: expect.objectContaining({ outcome: 'DECLINED', details: 'SIBS 000: Refund declined' }) });
    // without the notification, the status query says the same
    expect(await c.lookup({ reference: part.reference, terminal } as never)).toMatchObject({ found: true, result: { outcome: 'APPROVED' } });
  });

  it('MB WAY: PENDING while the phone decides; the notification settles it (approved, refused on the phone, expired, declined at once)', async () => {
    const start = (phone: string) => {
      const reference = randomUUID();
      return c.apmStart({ reference, terminal, now: NOW, amount: 1250, currency: 'EUR', apm: 'MBWAY', kind: 'push', phone, description: 'order' }).then((r) => ({ reference, r }));
    };
    const a = await start('912 345 678');
    expect(a.r).toMatchObject({ outcome: 'PENDING', redirectUrl: null, voucher: null, expiresAt: new Date(NOW.getTime() + 5 * 60_000) });
    const tx = (a.r as { processorId: string }).processorId;
    expect(sim.byMerchantTransactionId(merchantTransactionIdOf(a.reference))).toMatchObject({ id: tx, method: 'MBWAY', phone: '912345678', status: 'Pending' });
    expect(await c.lookup({ reference: a.reference, terminal } as never)).toMatchObject({ found: 'unknown' });
    let from = inbox.length;
    await sim.approve(tx);
    expect(await deliver(from)).toEqual([{ outcome: 'SETTLE', reference: a.reference, result: { outcome: 'APPROVED', authorization: tx, processorId: tx, amount: 1250 } }]);

    // the customer refuses on the phone
    const r = await start('912345670');
    const rtx = (r.r as { processorId: string }).processorId;
    from = inbox.length;
    await sim.approve(rtx, false);
    expect(await deliver(from)).toEqual([{ outcome: 'SETTLE', reference: r.reference, result: { outcome: 'DECLINED', error: 'DENIED', details: 'SIBS 000: Payment refused by the customer', processorId: rtx } }]);

    const b = await start('912345679');
    from = inbox.length;
    await sim.expire((b.r as { processorId: string }).processorId);
    expect(await deliver(from)).toEqual([{ outcome: 'SETTLE', reference: b.reference, result: expect.objectContaining({ outcome: 'DECLINED', error: 'DENIED', details: 'SIBS 000: MB WAY request expired' }) }]);

    expect((await start('912000001')).r).toMatchObject({ outcome: 'DECLINED', details: 'SIBS 000: MB WAY payment declined' });
    expect((await start('212000000')).r).toMatchObject({ outcome: 'DECLINED', error: 'INVALID_CARD' });
    expect(await c.apmStart({ reference: randomUUID(), terminal, now: NOW, amount: 1, currency: 'EUR', apm: 'BIZUM', kind: 'push', phone: '700000000', description: 'x' })).toMatchObject({ outcome: 'DECLINED' });
  });

  it('Multibanco: a reference of the terminal\'s entity (a voucher) waits until SIBS notifies it paid', async () => {
    const reference = randomUUID();
    const r = await c.apmStart({ reference, terminal, now: NOW, amount: 2500, currency: 'EUR', apm: 'MULTIBANCO', kind: 'voucher', phone: null, description: 'order' });
    const until = new Date(NOW.getTime() + 3 * 86_400_000);
    expect(r).toMatchObject({ outcome: 'PENDING', redirectUrl: null, expiresAt: until, voucher: { format: 'ENTITY_REFERENCE', entity: '21234', reference: expect.stringMatching(/^\d{9}$/), amount: 2500, currency: 'EUR', expires_at: until.toISOString() } });
    const tx = (r as { processorId: string }).processorId;
    expect(sim.byMerchantTransactionId(merchantTransactionIdOf(reference))).toMatchObject({ id: tx, method: 'REFERENCE', entity: '21234', status: 'Pending' });
    const from = inbox.length;
    await sim.approve(tx);
    expect(await deliver(from)).toEqual([{ outcome: 'SETTLE', reference, result: { outcome: 'APPROVED', authorization: tx, processorId: tx, amount: 2500 } }]);
  });

  it('a notification is believed only when a terminal\'s key authenticates it; a replay is ignored', async () => {
    const p = pay(SIBS_SIM_CARDS.APPROVED);
    const from = inbox.length;
    await c.authorize(p);
    await sim.settled();
    const hook = inbox[from];
    const fields = { body: hook.body, 'x-initialization-vector': hook.headers['x-initialization-vector'], 'x-authentication-tag': hook.headers['x-authentication-tag'] };
    const tampered = sibsModule.harness.tamper({ path: '', headers: {}, body: hook.body }).body;
    expect(await c.notification({ ...fields, body: tampered })).toEqual({ outcome: 'IGNORED', reason: 'not authenticated by any SIBS terminal\'s key' });
    const forged = encryptNotification(Buffer.from(hook.body, 'base64').toString('latin1'), randomBytes(32), randomBytes(12));
    expect(await c.notification({ body: forged.body, 'x-initialization-vector': forged.iv, 'x-authentication-tag': forged.tag })).toMatchObject({ outcome: 'IGNORED' });
    expect(await c.notification({ body: hook.body })).toEqual({ outcome: 'IGNORED', reason: 'not a SIBS notification' });
    expect(await c.notification(fields)).toMatchObject({ outcome: 'SETTLE', reference: p.reference, result: { outcome: 'APPROVED' } });
    // a replay is acknowledged too (SIBS sends a notification again until it is), and nothing else is
    const id = (JSON.parse(decryptNotification(hook.body, fields['x-initialization-vector'], fields['x-authentication-tag'], sibsTerminalOf(creds).webhookKey)!) as { notificationID: string }).notificationID;
    expect(await c.notification(fields)).toEqual({ outcome: 'IGNORED', reason: expect.stringMatching(/received before/), acknowledgement: { statusCode: '200', statusMsg: 'Success', notificationID: id } });
    expect(await c.notification({ ...fields, body: tampered })).not.toHaveProperty('acknowledgement');
  });

  it('a lost answer is UNKNOWN; the status query by our merchantTransactionId finds it; a checkout never received is not found', async () => {
    const p = pay(SIBS_SIM_CARDS.APPROVED);
    sim.injectFault('drop');
    expect(await c.authorize(p)).toMatchObject({ outcome: 'UNKNOWN' });
    expect(await c.lookup({ reference: p.reference, terminal } as never)).toMatchObject({ found: true, result: { outcome: 'APPROVED', amount: 1000 } });
    const tampered = pay(SIBS_SIM_CARDS.DECLINED);
    sim.injectFault('tamper');
    expect(await c.authorize(tampered)).toMatchObject({ outcome: 'UNKNOWN' });
    expect(await c.lookup({ reference: tampered.reference, terminal } as never)).toMatchObject({ found: true, result: { outcome: 'DECLINED', error: 'DENIED' } });
    expect(await c.lookup({ reference: randomUUID(), terminal } as never)).toEqual({ found: false });
  });

  it('the terminals a notification is tried with: those of the latest operations, each once', async () => {
    const ledger = new Ledger(sharedLedger('sibs-terminals'), () => db.database.db);
    const a = { serviceType: 'SIBS', serviceId: randomUUID(), terminalId: randomUUID() };
    const b = { serviceType: 'SIBS', serviceId: randomUUID(), terminalId: randomUUID() };
    for (const t of [a, b, a]) await ledger.record({ reference: randomUUID(), kind: 'payment', amount: 1, currency: 'EUR', account: '1', originalReference: null, terminalRef: t });
    await ledger.record({ reference: randomUUID(), kind: 'payment', amount: 1, currency: 'EUR', account: '1', originalReference: null, terminalRef: null });
    const all = await ledger.recentTerminals();
    expect(all).toHaveLength(2);
    expect(all).toEqual(expect.arrayContaining([a, b]));
    expect(await ledger.recentTerminals(1)).toHaveLength(1);
    expect(await new Ledger(sharedLedger('sibs-none'), () => db.database.db).recentTerminals()).toEqual([]);
  });

  it('what SIBS is not asked for: payouts, card-present; credentials tested without moving money', async () => {
    expect(await c.payout({} as never)).toMatchObject({ outcome: 'DECLINED', error: 'PROCESSOR_ERROR' });
    expect(await c.authorize(pay(SIBS_SIM_CARDS.APPROVED, { channel: 'CARD_PRESENT' }))).toMatchObject({ outcome: 'DECLINED' });
    expect(await c.testCredentials(sibsTerminalOf(creds))).toEqual([]);
    expect(await c.testCredentials({ ...sibsTerminalOf(creds), bearerToken: 'wrong-token-0123456789' })).toEqual(['credentials.bearer_token and credentials.client_id were refused by SIBS']);
  });
});
