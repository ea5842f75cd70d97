import { describe, expect, it } from 'vitest';
import {
  IllegalTransition,
  ORDER_EVENTS,
  ORDER_STATUSES,
  ORDER_TABLE,
  TX_EVENTS,
  TX_STATUSES,
  canOrder,
  declineEvent,
  fromStatuses,
  orderTransition,
  txTransition,
  type OrderEvent,
  type OrderStatus,
} from '../../src/modules/payments/order-states.js';

/** Every legal transition, written out independently of the table: [from, event, to, paid, notify]. */
const LEGAL: Array<[OrderStatus, OrderEvent, OrderStatus, boolean | undefined, boolean]> = [
  ['CREATED', 'PAYMENT_STARTED', 'PENDING_PROCESSOR_RESPONSE', undefined, false],
  ['REFUSED', 'PAYMENT_STARTED', 'PENDING_PROCESSOR_RESPONSE', undefined, false],
  ['ERROR', 'PAYMENT_STARTED', 'PENDING_PROCESSOR_RESPONSE', undefined, false],
  ['CREATED', 'DEVICE_PAYMENT_SENT', 'PENDING_PROCESSOR_RESPONSE', undefined, false],
  ['REFUSED', 'DEVICE_PAYMENT_SENT', 'PENDING_PROCESSOR_RESPONSE', undefined, false],
  ['ERROR', 'DEVICE_PAYMENT_SENT', 'PENDING_PROCESSOR_RESPONSE', undefined, false],
  ['CREATED', 'THREEDS_REQUIRED', 'PENDING_3DS_RESPONSE', undefined, false],
  ['REFUSED', 'THREEDS_REQUIRED', 'PENDING_3DS_RESPONSE', undefined, false],
  ['ERROR', 'THREEDS_REQUIRED', 'PENDING_3DS_RESPONSE', undefined, false],
  ['PENDING_PROCESSOR_RESPONSE', 'THREEDS_REQUIRED', 'PENDING_3DS_RESPONSE', undefined, false],
  ['PENDING_3DS_RESPONSE', 'THREEDS_COMPLETED', 'PENDING_PROCESSOR_RESPONSE', undefined, false],
  ['CREATED', 'SCA_REQUIRED', 'AUTHENTICATION_REQUIRED', undefined, false],
  ['REFUSED', 'SCA_REQUIRED', 'AUTHENTICATION_REQUIRED', undefined, false],
  ['ERROR', 'SCA_REQUIRED', 'AUTHENTICATION_REQUIRED', undefined, false],
  ['PENDING_PROCESSOR_RESPONSE', 'SCA_REQUIRED', 'AUTHENTICATION_REQUIRED', undefined, false],
  ['AUTHENTICATION_REQUIRED', 'SCA_RETRIED', 'PENDING_PROCESSOR_RESPONSE', undefined, false],
  ['PENDING_PROCESSOR_RESPONSE', 'DEVICE_PAYMENT_CANCELLED', 'CANCELLED', false, true],
  ['AUTHENTICATION_REQUIRED', 'DEVICE_PAYMENT_CANCELLED', 'CANCELLED', false, true],
  ['PENDING_PROCESSOR_RESPONSE', 'DEVICE_PAYMENT_ABANDONED', 'EXPIRED', false, true],
  ['AUTHENTICATION_REQUIRED', 'DEVICE_PAYMENT_ABANDONED', 'EXPIRED', false, true],
  ['PENDING_PROCESSOR_RESPONSE', 'PAYMENT_APPROVED', 'SUCCESS', true, true],
  ['PENDING_PROCESSOR_RESPONSE', 'DEFERRED_APPROVED', 'PENDING_CONFIRMATION', false, true],
  ['PENDING_PROCESSOR_RESPONSE', 'PAYMENT_DECLINED', 'REFUSED', false, true],
  ['PENDING_3DS_RESPONSE', 'PAYMENT_DECLINED', 'REFUSED', false, true],
  ['AUTHENTICATION_REQUIRED', 'PAYMENT_DECLINED', 'REFUSED', false, true],
  ['PENDING_PROCESSOR_RESPONSE', 'PAYMENT_FRAUD', 'FRAUD', false, true],
  ['PENDING_3DS_RESPONSE', 'PAYMENT_FRAUD', 'FRAUD', false, true],
  ['PENDING_PROCESSOR_RESPONSE', 'PAYMENT_BLACKLISTED', 'BLACKLISTED', false, true],
  ['PENDING_3DS_RESPONSE', 'PAYMENT_BLACKLISTED', 'BLACKLISTED', false, true],
  ['PENDING_PROCESSOR_RESPONSE', 'PAYMENT_FAILED', 'ERROR', false, true],
  ['PENDING_3DS_RESPONSE', 'PAYMENT_FAILED', 'ERROR', false, true],
  ['PENDING_CONFIRMATION', 'CONFIRMED', 'SUCCESS', true, true],
  ['PENDING_CONFIRMATION', 'CANCELLED', 'CANCELLED', false, true],
  ['SUCCESS', 'REFUNDED_PARTIALLY', 'PARTIALLY_REFUNDED', true, true],
  ['PARTIALLY_REFUNDED', 'REFUNDED_PARTIALLY', 'PARTIALLY_REFUNDED', true, true],
  ['SUCCESS', 'REFUNDED_FULLY', 'REFUNDED', undefined, true],
  ['PARTIALLY_REFUNDED', 'REFUNDED_FULLY', 'REFUNDED', undefined, true],
  ['CREATED', 'EXPIRED', 'EXPIRED', false, true],
  ['REFUSED', 'EXPIRED', 'EXPIRED', false, true],
  ['ERROR', 'EXPIRED', 'EXPIRED', false, true],
  ['PENDING_3DS_RESPONSE', 'EXPIRED', 'EXPIRED', false, true],
  ['AUTHENTICATION_REQUIRED', 'EXPIRED', 'EXPIRED', false, true],
];

describe('order transition table', () => {
  it('has exactly the legal transitions listed', () => {
    const table: string[] = [];
    for (const e of ORDER_EVENTS) for (const [from, t] of Object.entries(ORDER_TABLE[e])) table.push(`${from} ${e} ${t!.to}`);
    expect(table.sort()).toEqual(LEGAL.map(([f, e, to]) => `${f} ${e} ${to}`).sort());
  });

  it.each(LEGAL)('%s --%s--> %s', (from, event, to, paid, notify) => {
    expect(orderTransition(from, event)).toEqual({ to, paid, notify });
    expect(canOrder(from, event)).toBe(true);
  });

  const illegal: Array<[OrderStatus, OrderEvent]> = [];
  for (const s of ORDER_STATUSES) for (const e of ORDER_EVENTS) if (!LEGAL.some(([f, ev]) => f === s && ev === e)) illegal.push([s, e]);

  it(`refuses every illegal transition (${illegal.length} pairs)`, () => {
    expect(illegal.length).toBe(ORDER_STATUSES.length * ORDER_EVENTS.length - LEGAL.length);
    for (const [s, e] of illegal) {
      expect(canOrder(s, e), `${s} ${e}`).toBe(false);
      expect(() => orderTransition(s, e), `${s} ${e}`).toThrow(IllegalTransition);
    }
  });

  it('final states accept nothing but refunds of paid orders', () => {
    for (const s of ['REFUNDED', 'CANCELLED', 'FRAUD', 'BLACKLISTED', 'EXPIRED'] as const) {
      expect(ORDER_EVENTS.filter((e) => canOrder(s, e)), s).toEqual([]);
    }
  });

  it('expiry applies to open orders only', () => {
    expect(fromStatuses('EXPIRED').sort()).toEqual(['AUTHENTICATION_REQUIRED', 'CREATED', 'ERROR', 'PENDING_3DS_RESPONSE', 'REFUSED']);
  });

  it('declines map to REFUSED, FRAUD or BLACKLISTED', () => {
    expect(declineEvent('DENIED')).toBe('PAYMENT_DECLINED');
    expect(declineEvent('INSUFFICIENT_FUNDS')).toBe('PAYMENT_DECLINED');
    expect(declineEvent('FRAUD_SUSPECTED')).toBe('PAYMENT_FRAUD');
    expect(declineEvent('BLACKLISTED')).toBe('PAYMENT_BLACKLISTED');
  });
});

describe('transaction transition table', () => {
  it('a PENDING transaction settles once; every other pair is illegal', () => {
    expect(txTransition('PENDING', 'APPROVED')).toBe('SUCCESS');
    expect(txTransition('PENDING', 'DECLINED')).toBe('REFUSED');
    expect(txTransition('PENDING', 'FAILED')).toBe('ERROR');
    expect(txTransition('PENDING', 'VOIDED')).toBe('CANCELLED');
    for (const s of TX_STATUSES.filter((x) => x !== 'PENDING')) {
      for (const e of TX_EVENTS) expect(() => txTransition(s, e), `${s} ${e}`).toThrow(IllegalTransition);
    }
  });
});
