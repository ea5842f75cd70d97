import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import {
  NO_RETRY_STATE,
  afterFailure,
  afterSuccess,
  checkCancellation,
  checkConfirmation,
  checkMarketplaceRefunds,
  checkRefund,
  hashedPart,
  presentOrder,
  refundEventFor,
  retryAllowedAt,
  retryWaitSeconds,
  validationHash,
  type OrderAmounts,
} from '../../src/modules/payments/payments.domain.js';
import { nextAttemptAt, notificationBody, signatureHeader } from '../../src/modules/events/events.domain.js';
import { toWireJson, toWireJsonWithRawArray } from '../../src/platform/http/json.js';
import { useTestSeed } from '../helpers/seed.js';

useTestSeed(import.meta.url);

const paid = (o: Partial<OrderAmounts> = {}): OrderAmounts => ({ status: 'SUCCESS', operative: 'AUTHORIZATION', amount: 1000, authorized: 1000, captured: 1000, refunded: 0, refund_reserved: 0, ...o });

describe('amount rules (decisions §4)', () => {
  it('refunds', () => {
    expect(checkRefund(paid(), undefined)).toEqual({ ok: 1000 });
    expect(checkRefund(paid(), null)).toEqual({ ok: 1000 });
    expect(checkRefund(paid({ refunded: 300, status: 'PARTIALLY_REFUNDED' }), undefined)).toEqual({ ok: 700 });
    expect(checkRefund(paid({ refunded: 300, refund_reserved: 200 }), 500)).toEqual({ ok: 500 });
    expect(checkRefund(paid({ refunded: 300, refund_reserved: 200 }), 501)).toHaveProperty('error');
    expect(checkRefund(paid(), -1)).toHaveProperty('error');
    expect(checkRefund(paid(), 0)).toHaveProperty('error');
    expect(checkRefund(paid(), 1.5)).toHaveProperty('error');
    expect(checkRefund(paid({ refunded: 1000, status: 'REFUNDED' }), 1)).toHaveProperty('error');
    expect(checkRefund(paid({ status: 'PENDING_CONFIRMATION', operative: 'DEFERRED', captured: 0 }), 1)).toEqual({ error: expect.stringMatching(/DEFERRED/) });
    expect(checkRefund(paid({ status: 'CREATED', captured: 0 }), 1)).toHaveProperty('error');
    expect(checkRefund(paid({ operative: 'PAYOUT' }), 1)).toHaveProperty('error');
    expect(refundEventFor({ captured: 1000 }, 999)).toBe('REFUNDED_PARTIALLY');
    expect(refundEventFor({ captured: 1000 }, 1000)).toBe('REFUNDED_FULLY');
  });

  it('a sequence of accepted refunds never exceeds the captured amount', () => {
    fc.assert(
      fc.property(fc.integer({ min: 1, max: 100_000 }), fc.array(fc.oneof(fc.integer({ min: -10, max: 100_000 }), fc.constant(null)), { maxLength: 30 }), (captured, asks) => {
        let o = paid({ amount: captured, authorized: captured, captured });
        for (const ask of asks) {
          const c = checkRefund(o, ask);
          if ('ok' in c) {
            const refunded = o.refunded + c.ok;
            o = { ...o, refunded, status: refunded >= captured ? 'REFUNDED' : 'PARTIALLY_REFUNDED' };
          }
          expect(o.refunded).toBeLessThanOrEqual(captured);
        }
      }),
    );
  });

  it('confirmation and cancellation', () => {
    const held = paid({ status: 'PENDING_CONFIRMATION', operative: 'DEFERRED', captured: 0 });
    expect(checkConfirmation(held, undefined, true)).toEqual({ ok: 1000 });
    expect(checkConfirmation(held, 400, true)).toEqual({ ok: 400 });
    expect(checkConfirmation(held, 400, false)).toHaveProperty('error');
    expect(checkConfirmation(held, 1000, false)).toEqual({ ok: 1000 });
    expect(checkConfirmation(held, 1001, true)).toHaveProperty('error');
    expect(checkConfirmation(held, -1, true)).toHaveProperty('error');
    expect(checkConfirmation(paid(), undefined, true)).toHaveProperty('error');
    expect(checkConfirmation({ ...held, status: 'SUCCESS' }, undefined, true)).toHaveProperty('error');
    expect(checkCancellation(held)).toEqual({ ok: 1000 });
    expect(checkCancellation({ ...held, status: 'CANCELLED' })).toHaveProperty('error');
    expect(checkCancellation(paid())).toHaveProperty('error');
  });

  it('marketplace refunds', () => {
    const e = (amount: number, net = amount) => ({ merchant_location_id: 1, amount, description: 'x', net_amount: net });
    expect(checkMarketplaceRefunds(undefined, 100)).toBeNull();
    expect(checkMarketplaceRefunds([e(100, 90), e(5)], 100)).toBeNull();
    expect(checkMarketplaceRefunds([e(99)], 100)).toMatch(/must equal/);
    expect(checkMarketplaceRefunds([], 100)).toMatch(/non-empty/);
    expect(checkMarketplaceRefunds([e(100, 101)], 100)).toMatch(/net_amount/);
    expect(checkMarketplaceRefunds([{ amount: 100 }], 100)).toMatch(/merchant_location_id/);
  });
});

describe('retry rules calculator', () => {
  const tz = 'Europe/Madrid';
  const t0 = new Date('2026-03-10T09:00:00Z');
  const plus = (s: number) => new Date(t0.getTime() + s * 1000);

  it('no failure: allowed; one failure: one minute', () => {
    expect(retryAllowedAt(NO_RETRY_STATE, tz)).toBeNull();
    const s1 = afterFailure(NO_RETRY_STATE, t0);
    expect(retryAllowedAt(s1, tz)).toEqual(plus(60));
    expect(retryWaitSeconds(s1, plus(1), tz)).toBe(59);
    expect(retryWaitSeconds(s1, plus(60), tz)).toBe(0);
  });

  it('a success clears the wait', () => {
    const s = afterSuccess(afterFailure(NO_RETRY_STATE, t0), plus(61));
    expect(retryWaitSeconds(s, plus(62), tz)).toBe(0);
    // and a later failure starts a new wait, counting every failure in total
    const s2 = afterFailure(s, plus(100));
    expect(s2.failures).toBe(2);
    expect(retryAllowedAt(s2, tz)).toEqual(plus(160));
  });

  it('three failures: until 00:00 of the next day in the merchant timezone; then one failure per day', () => {
    let s = afterFailure(afterFailure(afterFailure(NO_RETRY_STATE, t0), plus(60)), plus(120));
    expect(retryAllowedAt(s, tz)?.toISOString()).toBe('2026-03-10T23:00:00.000Z');
    expect(retryAllowedAt(s, 'America/New_York')?.toISOString()).toBe('2026-03-11T04:00:00.000Z');
    s = afterFailure(s, new Date('2026-03-11T08:00:00Z'));
    expect(retryAllowedAt(s, tz)?.toISOString()).toBe('2026-03-11T23:00:00.000Z');
  });
});

describe('validation_hash (spec vectors)', () => {
  // a copy of the contract's vectors file, kept with the tests
  const vectorsText = fs.readFileSync(path.resolve(__dirname, '../fixtures/validation-hash-vectors.txt'), 'utf8');

  const A = { order: { uuid: 'D16004FF-3421-409C-ADFC-DA2618D36135', amount: 1050, currency: '978', paid: true, status: 'SUCCESS', token: null }, client: { uuid: 'B1F13B01-BA97-491C-BBDE-1C18988BD229' } };
  const B = { order: { uuid: 'D16004FF-3421-409C-ADFC-DA2618D36135', amount: 1050, currency: '978', paid: true, status: 'SUCCESS', additional: 'José/ref-1' }, client: { uuid: 'B1F13B01-BA97-491C-BBDE-1C18988BD229' } };
  const sig = 'test_signature_0123456789';

  it('case A and case B', () => {
    expect(hashedPart(A)).toBe('{"order":{"uuid":"D16004FF-3421-409C-ADFC-DA2618D36135","amount":1050,"currency":"978","paid":true,"status":"SUCCESS","token":null},"client":{"uuid":"B1F13B01-BA97-491C-BBDE-1C18988BD229"}}');
    expect(validationHash(hashedPart(A), sig)).toBe('e8d486afdefee90880f4ab08c56c297ac7e66513adbaf8d58ea47dba9f8fff55');
    expect(hashedPart(B)).toContain('"additional":"Jos\\u00e9\\/ref-1"');
    expect(validationHash(hashedPart(B), sig)).toBe('d4fb81612ac0463013e936a8938cd27defae72a8e8e3c60740771d1db648113c');
  });

  it('matches the vectors file', () => {
    const hashes = [...vectorsText.matchAll(/^hash:\s+([0-9a-f]{64})/gm)].map((m) => m[1]);
    expect(hashes).toEqual([validationHash(hashedPart(A), sig), validationHash(hashedPart(B), sig)]);
  });

  it('extra_data is hashed only when carried', () => {
    expect(hashedPart({ ...A, extra_data: null })).toMatch(/,"extra_data":null}$/);
    expect(hashedPart(A)).not.toContain('extra_data');
  });
});

describe('records and notifications', () => {
  it('the order record never carries {} and keeps the key order', () => {
    const o = presentOrder(
      { id: 'o', created_at: new Date('2026-01-15T10:00:00Z'), amount: 1, currency_number: '978', paid: false, status: 'CREATED', safe: false, refunded: 0, additional: null, service_type: 'X', service_id: 's', customer_ext_id: null, cof_txnid: null, token: 't', ip: null, reference: null, dynamic_descriptor: null, threeds_data: null, env: 'sandbox' },
      [],
      { server: 'Europe/Madrid', merchant: 'America/Mexico_City' },
      'https://pay.example',
    );
    expect(o.created).toBe('2026-01-15T11:00:00+0100');
    expect(o.created_from_client_timezone).toBe('2026-01-15T04:00:00-0600');
    expect(o.urls.payment_card).toBe('https://pay.example/v1/sandbox/payment/process/t');
    expect(JSON.stringify(o)).not.toContain('{}');
    // never disputed: no `disputes`, the record as the contract has it
    expect(o).not.toHaveProperty('disputes');
    expect(Object.keys(o).at(-1)).toBe('dcc');
  });

  it('an order that has had a dispute carries `disputes` last, its amounts as numbers (bigint columns come as text)', () => {
    const base = { id: 'o', created_at: new Date('2026-01-15T10:00:00Z'), amount: 1000, currency_number: '978', paid: true, status: 'SUCCESS', safe: false, refunded: 0, additional: null, service_type: 'X', service_id: 's', customer_ext_id: null, cof_txnid: null, token: 't', ip: null, reference: null, dynamic_descriptor: null, threeds_data: null, env: 'sandbox' as const };
    const o = presentOrder({ ...base, dispute_disputed: '0', dispute_lost: '600', dispute_won: 0 }, [], { server: 'UTC', merchant: 'UTC' }, 'https://pay.example');
    expect(o.disputes).toEqual({ disputed: 0, lost: 600, won: 0 });
    expect(Object.keys(o).at(-1)).toBe('disputes');
    expect(presentOrder({ ...base, dispute_disputed: null, dispute_lost: null, dispute_won: null }, [], { server: 'UTC', merchant: 'UTC' }, 'https://pay.example')).not.toHaveProperty('disputes');
  });

  it('notification schedule: 1 min … 72 h after the first try, then none; none without retries', () => {
    const first = new Date('2026-01-01T00:00:00Z');
    const mins = [1, 5, 15, 60, 180, 360, 720, 1440, 2880, 4320];
    mins.forEach((m, i) => expect(nextAttemptAt(first, i + 1, true)?.getTime()).toBe(first.getTime() + m * 60_000));
    expect(nextAttemptAt(first, 11, true)).toBeNull();
    expect(nextAttemptAt(first, 1, false)).toBeNull();
  });

  it('body and signature header', () => {
    const body = notificationBody('{"order":{"a":1},"client":{"uuid":"c"}}', '2026-01-01T00:00:00+0100', 'h');
    expect(JSON.parse(body)).toEqual({ message: 'OK', code: 200, current_time: '2026-01-01T00:00:00+0100', order: { a: 1 }, client: { uuid: 'c' }, validation_hash: 'h' });
    expect(signatureHeader('{}', 'sig', 1700000000)).toMatch(/^t=1700000000,v1=[0-9a-f]{64}$/);
    expect(signatureHeader('{}', 'sig', 1700000000)).not.toBe(signatureHeader('{ }', 'sig', 1700000000));
  });
});

describe('a long list spliced into its envelope as text', () => {
  it('is byte for byte the wire JSON of the same envelope with the items in place', () => {
    const text = fc.oneof(fc.string(), fc.string({ unit: 'grapheme' }), fc.constantFrom('a/b', 'Ana Pérez', '"quoted"', 'tab\there', '😀', '\u2028'));
    const item = fc.oneof(text, fc.integer(), fc.constant(null), fc.dictionary(text, fc.oneof(text, fc.integer(), fc.boolean(), fc.constant(null))));
    fc.assert(
      fc.property(fc.array(item, { maxLength: 6 }), text, (items, other) => {
        const envelope = { message: 'OK', code: 200, other, transactions: [] as unknown[], next_cursor: other };
        const spliced = toWireJsonWithRawArray(envelope, 'transactions', items.map((x) => JSON.stringify(x)).join(','));
        expect(spliced).toBe(toWireJson({ ...envelope, transactions: items }));
      }),
      { numRuns: 300 },
    );
  });

  it('the placeholder must be an empty array', () => {
    expect(() => toWireJsonWithRawArray({ transactions: [1] }, 'transactions', '')).toThrow();
    expect(() => toWireJsonWithRawArray({ other: [] }, 'transactions', '')).toThrow();
  });
});
