/**
 * A full card number never lands outside the vault: free-text fields (description, additional, names,
 * addresses, metadata) carrying a Luhn-valid 13–19 digit number are refused with 400 naming the field,
 * nothing is stored and the number is not echoed. Card fields and other numbers are unaffected.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp, type TestMerchant } from '../helpers/app.js';
import { TEST_CARDS, paidOrder } from '../helpers/payments.js';
import { containsCardNumber, findCardNumberInText } from '../../src/platform/http/pan-guard.js';

let t: TestApp;
let a: TestMerchant;

beforeAll(async () => {
  t = await createTestApp();
  a = await t.merchant();
});
afterAll(async () => t?.close());

const order = (extra: Record<string, unknown>) => ({ amount: 1000, operative: 'AUTHORIZATION', secure: false, description: 'free text', service: a.service_uuid, customer_ext_id: 'c-1', ...extra });
const PAN = TEST_CARDS.APPROVED;
const spaced = PAN.replace(/(\d{4})(?=\d)/g, '$1 ');

describe('card numbers in free text', () => {
  it('finds Luhn-valid 13–19 digit numbers, with spaces or dashes, and nothing else', () => {
    expect(containsCardNumber(`card ${PAN} thanks`)).toBe(true);
    expect(containsCardNumber(`card ${spaced}`)).toBe(true);
    expect(containsCardNumber(PAN.replace(/(\d{4})(?=\d)/g, '$1-'))).toBe(true);
    expect(containsCardNumber('4111111111111112')).toBe(false); // fails Luhn
    expect(containsCardNumber('order 123456789012')).toBe(false); // 12 digits, no brand's range
    expect(containsCardNumber('+34 600 000 000')).toBe(false);
    // outside a route's card fields every field is checked, the first one found is named
    expect(findCardNumberInText({ card_pan: 'x', reference: 'r', metadata: { note: `x ${PAN}` } })).toBe('metadata.note');
    expect(findCardNumberInText({ reference: PAN })).toBe('reference');
  });

  it.each([
    ['description', { description: `Order for card ${PAN}` }],
    ['additional', { additional: `pan ${spaced}` }],
  ])('%s carrying a card number is 400 and nothing is stored', async (field, extra) => {
    const before = await t.p.database.db.selectFrom('orders').select(t.p.database.db.fn.countAll<number>().as('n')).executeTakeFirstOrThrow();
    const r = await a.api.post('/payment', order(extra));
    expect(r.status, r.raw).toBe(400);
    expect(r.body.details).toContain(`${field} must not contain a card number`);
    expect(r.raw).not.toContain(PAN);
    expect(r.raw).not.toContain(spaced);
    const after = await t.p.database.db.selectFrom('orders').select(t.p.database.db.fn.countAll<number>().as('n')).executeTakeFirstOrThrow();
    expect(Number(after.n)).toBe(Number(before.n));
  });

  it('metadata values are checked too, strings and numbers', async () => {
    const o = await paidOrder(t, a);
    const tx = o.transactions[0].uuid;
    const meta = await a.api.post(`/transaction/${tx}/metadata`, { metadata: { note: `refund to ${PAN}` } });
    expect(meta.status, meta.raw).toBe(400);
    expect(meta.body.details).toContain('metadata.note must not contain a card number');
    const asNumber = await a.api.post(`/transaction/${tx}/metadata`, { metadata: { card: 4111111111111111 } });
    expect(asNumber.status, asNumber.raw).toBe(400);
    expect(asNumber.body.details).toContain('metadata.card must not contain a card number');
    const fine = await a.api.post(`/transaction/${tx}/metadata`, { metadata: { note: 'order 42', count: 1234567890123456 } }); // 16 digits, not Luhn-valid
    expect(fine.status, fine.raw).toBe(200);
  });

  it('card fields and ordinary numbers in text are not affected', async () => {
    const r = await a.api.post('/payment', order({ description: 'Order 2024-000123, call +34 600 000 000', additional: 'ref 123456789012' }));
    expect(r.status, r.raw).toBe(200);
  });
});
