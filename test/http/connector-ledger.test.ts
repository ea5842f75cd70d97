/**
 * The connector kit's operation ledger (src/processors/kit/ledger.ts) on the database of the run (PGlite
 * and PostgreSQL): one implementation, on the shared tables of migration 1100 that new connectors use
 * and on the tables the first connectors keep (described column by column), recording an operation
 * before it is sent (idempotent by reference, a provider id drawn again on a clash), finding it by
 * reference and by the provider's ids, saving ids and a connector's own fields, the card-on-file store
 * (the first id kept) and events received once.
 */
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Ledger, sharedLedger } from '../../src/processors/kit/ledger.js';
import { CHECKOUT_LEDGER } from '../../src/processors/checkout/ledger.js';
import { PAYPAL_LEDGER } from '../../src/processors/paypal/ledger.js';
import { REDSYS_LEDGER } from '../../src/processors/redsys/ledger.js';
import { createTestDatabase, type TestDatabase } from '../helpers/db.js';

let db: TestDatabase;

beforeAll(async () => {
  db = await createTestDatabase();
});
afterAll(async () => {
  await db?.drop();
});

const terminalRef = { serviceType: 'NUVEI', serviceId: randomUUID(), terminalId: randomUUID() };

describe('the shared tables (a new connector: sharedLedger)', () => {
  const ledger = () => new Ledger<{ session: string; attempt: number }>(sharedLedger('nuvei'), () => db.database.db);
  const other = () => new Ledger(sharedLedger('sibs'), () => db.database.db);

  it('records an operation before it is sent, once by reference: a retried step keeps its row and what it drew', async () => {
    const reference = randomUUID();
    let draws = 0;
    const op = { reference, kind: 'payment', amount: 1250, currency: 'EUR', account: 'merchant-1', originalReference: null, terminalRef, data: { session: 's-1' } };
    const first = await ledger().record(op, () => `N${++draws}`);
    expect(first).toMatchObject({ reference, kind: 'payment', amount: 1250, currency: 'EUR', account: 'merchant-1', providerId: 'N1', actionId: null, originalReference: null, terminalRef, data: { session: 's-1' } });
    expect(first.createdAt).toBeInstanceOf(Date);
    const again = await ledger().record({ ...op, amount: 999, data: { session: 's-2' } }, () => `N${++draws}`);
    expect(again).toMatchObject({ providerId: 'N1', amount: 1250, data: { session: 's-1' } });
    // the same reference under another connector is another operation
    expect(await other().find(reference)).toBeNull();
    expect((await other().record({ ...op, data: {} })).providerId).toBeNull();
  });

  it('a drawn provider id another payment of the account holds is drawn again; a follow-up takes its payment\'s', async () => {
    const taken = `T-${randomUUID().slice(0, 8)}`;
    await ledger().record({ reference: randomUUID(), kind: 'payment', amount: 1, currency: 'EUR', account: 'acc-draw', originalReference: null, terminalRef: null }, () => taken);
    const draws = [taken, taken, `F-${randomUUID().slice(0, 8)}`];
    const second = await ledger().record({ reference: randomUUID(), kind: 'payment', amount: 1, currency: 'EUR', account: 'acc-draw', originalReference: null, terminalRef: null }, () => draws.shift()!);
    expect(second.providerId).toMatch(/^F-/);
    expect(draws).toEqual([]);
    const refund = await ledger().record({ reference: randomUUID(), kind: 'refund', amount: 1, currency: 'EUR', account: 'acc-draw', providerId: taken, originalReference: 'x', terminalRef: null });
    expect(refund.providerId).toBe(taken);
  });

  it('saves provider ids and merges the connector\'s fields; finds operations by the provider\'s ids, oldest first', async () => {
    const pay = randomUUID();
    const refund = randomUUID();
    const providerId = `P-${randomUUID()}`;
    await ledger().record({ reference: pay, kind: 'payment', amount: 500, currency: 'EUR', account: 'acc-ids', originalReference: null, terminalRef, data: { session: 'a' } });
    await ledger().save(pay, { providerId, data: { attempt: 2 } });
    expect(await ledger().find(pay)).toMatchObject({ providerId, data: { session: 'a', attempt: 2 } });
    await ledger().record({ reference: refund, kind: 'refund', amount: 200, currency: 'EUR', account: 'acc-ids', providerId, originalReference: pay, terminalRef });
    await ledger().save(refund, { actionId: 'ACT-1' });
    expect((await ledger().findByIds({ providerId })).map((o) => o.reference)).toEqual([pay, refund]);
    expect((await ledger().findByIds({ actionId: 'ACT-1' })).map((o) => o.kind)).toEqual(['refund']);
    expect((await ledger().findByIds({ data: { session: 'a' } })).map((o) => o.reference)).toEqual([pay]);
    expect(await ledger().findByIds({ providerId }, 'another-account')).toEqual([]);
    expect(await other().findByIds({ providerId })).toEqual([]);
    expect(await ledger().findByIds({})).toEqual([]);
  });

  it('card on file: the first network transaction id of a card is kept, with its network and date', async () => {
    await ledger().keepCof('acc-cof', 'fp-1', { id: '123456789012345', network: 'MASTERCARD', date: '0612' });
    await ledger().keepCof('acc-cof', 'fp-1', { id: '999999999999999' });
    expect(await ledger().findCof('acc-cof', 'fp-1')).toEqual({ id: '123456789012345', network: 'MASTERCARD', date: '0612' });
    expect(await ledger().findCof('acc-cof', 'fp-2')).toBeNull();
    expect(await other().findCof('acc-cof', 'fp-1')).toBeNull();
  });

  it('an event is recorded once: a replay is not fresh', async () => {
    const e = { eventId: `evt-${randomUUID()}`, type: 'payment.approved', resourceId: 'P-1', reference: null, outcome: 'APPROVED' };
    expect(await ledger().recordEvent(e)).toBe(true);
    expect(await ledger().recordEvent({ ...e, outcome: 'IGNORED' })).toBe(false);
    expect(await other().recordEvent(e)).toBe(true);
  });
});

describe('the tables the first connectors keep (described column by column)', () => {
  it('Redsys: the order number drawn, the terminal and the EMV 3DS session in columns of their own; the card-on-file id without network', async () => {
    const ledger = new Ledger<{ terminal: string; emv3ds: { transId: string; protocolVersion: string } }>(REDSYS_LEDGER, () => db.database.db);
    const reference = randomUUID();
    const order = `1234${randomUUID().replace(/-/g, '').slice(0, 8)}`;
    const op = await ledger.record({ reference, kind: '0', amount: 100, currency: 'EUR', account: '999008881', originalReference: null, terminalRef, data: { terminal: '001' } }, () => order);
    expect(op).toMatchObject({ providerId: order, account: '999008881', kind: '0', data: { terminal: '001' } });
    await ledger.save(reference, { data: { emv3ds: { transId: 't-1', protocolVersion: '2.2.0' } } });
    const row = await db.database.db.selectFrom('redsys_operations').selectAll().where('reference', '=', reference).executeTakeFirstOrThrow();
    expect(row).toMatchObject({ order_number: order, merchant_code: '999008881', terminal: '001', transaction_type: '0', emv3ds: { transId: 't-1', protocolVersion: '2.2.0' } });
    expect((await ledger.findByIds({ providerId: order }, '999008881')).map((o) => o.reference)).toEqual([reference]);
    await ledger.keepCof('999008881', 'fp', { id: '111111111111111', network: 'VISA' });
    expect(await ledger.findCof('999008881', 'fp')).toEqual({ id: '111111111111111', network: null, date: null });
  });

  it('Checkout.com and PayPal: payment and action ids, PayPal\'s order id, webhook events in their own tables', async () => {
    const cko = new Ledger(CHECKOUT_LEDGER, () => db.database.db);
    const reference = randomUUID();
    await cko.record({ reference, kind: 'payment', amount: 100, currency: 'EUR', account: 'pc_x', originalReference: null, terminalRef });
    await cko.save(reference, { providerId: 'pay_1' });
    expect(await db.database.db.selectFrom('checkout_operations').select(['payment_id', 'processing_channel_id']).where('reference', '=', reference).executeTakeFirstOrThrow()).toEqual({ payment_id: 'pay_1', processing_channel_id: 'pc_x' });
    const event = { eventId: `evt_${randomUUID()}`, type: 'payment_approved', resourceId: 'pay_1', reference, outcome: 'APPROVED' };
    expect(await cko.recordEvent(event)).toBe(true);
    expect(await cko.recordEvent(event)).toBe(false);

    const pp = new Ledger<{ orderId: string }>(PAYPAL_LEDGER, () => db.database.db);
    const ppRef = randomUUID();
    await pp.record({ reference: ppRef, kind: 'payment', amount: 100, currency: 'EUR', account: 'client', originalReference: null, terminalRef, data: {} });
    await pp.save(ppRef, { data: { orderId: 'ORDER123456' }, providerId: 'CAPTURE1' });
    expect(await pp.findByIds({ data: { orderId: 'ORDER123456' } })).toMatchObject([{ reference: ppRef, providerId: 'CAPTURE1', data: { orderId: 'ORDER123456' } }]);
    // PayPal's network column takes '' for none
    await pp.keepCof('client', 'fp', { id: '222222222222222' });
    expect(await pp.findCof('client', 'fp')).toEqual({ id: '222222222222222', network: null, date: null });
    expect(await db.database.db.selectFrom('paypal_cof').select('network').where('card_fingerprint', '=', 'fp').executeTakeFirstOrThrow()).toEqual({ network: '' });
  });
});
