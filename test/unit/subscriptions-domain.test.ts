/** The subscription transition tables and the pure schedule rules (anchored months, retries, order ids). */
import { describe, expect, it } from 'vitest';
import {
  PAYMENT_STATUSES,
  SUBSCRIPTION_EVENTS,
  SUBSCRIPTION_STATUSES,
  afterCharge,
  canSubscription,
  isActive,
  paymentTransition,
  subscriptionTransition,
} from '../../src/modules/subscriptions/subscription-states.js';
import { addInterval, chargeDate, chargeOrderId, intervalType, parseInitialDate, retryDate, retryOffsetDays } from '../../src/modules/subscriptions/subscriptions.domain.js';

const TZ = 'Europe/Madrid';

describe('subscription transition table', () => {
  it('moves live subscriptions and refuses every event on ended ones', () => {
    expect(subscriptionTransition('CREATED', 'CHARGE_PAID')).toBe('PAID');
    expect(subscriptionTransition('PAID', 'CHARGE_FAILED')).toBe('UNPAID');
    expect(subscriptionTransition('UNPAID', 'CHARGE_PAID')).toBe('PAID');
    expect(subscriptionTransition('UNPAID', 'ATTEMPTS_EXHAUSTED')).toBe('CANCELLED');
    expect(subscriptionTransition('CREATED', 'ATTEMPTS_EXHAUSTED')).toBe('CANCELLED');
    expect(subscriptionTransition('PAID', 'LAST_CHARGE_PAID')).toBe('FINISHED');
    expect(subscriptionTransition('PAID', 'CANCEL')).toBe('CANCELLED');
    for (const ended of ['CANCELLED', 'FINISHED'] as const) {
      for (const e of SUBSCRIPTION_EVENTS) {
        expect(canSubscription(ended, e)).toBe(false);
        expect(() => subscriptionTransition(ended, e)).toThrow(/cannot take/);
      }
    }
    expect(SUBSCRIPTION_STATUSES.filter(isActive)).toEqual(['CREATED', 'PAID', 'UNPAID']);
  });

  it('settles a payment once: only CREATED moves', () => {
    expect(paymentTransition('CREATED', 'APPROVED')).toBe('PAID');
    expect(paymentTransition('CREATED', 'DECLINED')).toBe('FAILED');
    expect(paymentTransition('CREATED', 'NOT_CHARGEABLE')).toBe('FAILED_NOTIFICATION');
    for (const s of PAYMENT_STATUSES.filter((x) => x !== 'CREATED')) {
      expect(() => paymentTransition(s, 'APPROVED')).toThrow();
      expect(() => paymentTransition(s, 'DECLINED')).toThrow();
    }
  });

  it('decides the event after a charge from the payment number, the attempt and the limits', () => {
    const base = { paymentNumber: 3, attempt: 1, totalPaymentNumber: 12, attemptsLimit: 3 };
    expect(afterCharge('PAID', base)).toBe('CHARGE_PAID');
    expect(afterCharge('PAID', { ...base, paymentNumber: 12 })).toBe('LAST_CHARGE_PAID');
    expect(afterCharge('PAID', { ...base, totalPaymentNumber: null, paymentNumber: 999 })).toBe('CHARGE_PAID');
    expect(afterCharge('FAILED', base)).toBe('CHARGE_FAILED');
    expect(afterCharge('FAILED', { ...base, attempt: 2 })).toBe('CHARGE_FAILED');
    expect(afterCharge('FAILED', { ...base, attempt: 3 })).toBe('ATTEMPTS_EXHAUSTED');
    expect(afterCharge('FAILED_NOTIFICATION', { ...base, attemptsLimit: 1 })).toBe('ATTEMPTS_EXHAUSTED');
    // a paid retry resets the count: the next payment starts at attempt 1 again
    expect(afterCharge('PAID', { ...base, attempt: 2 })).toBe('CHARGE_PAID');
  });
});

describe('schedule arithmetic', () => {
  const madrid = (s: string) => new Date(s);
  it('keeps the anchor day of months (31 Jan → 28/29 Feb → 31 Mar) and the time of day across DST', () => {
    const first = madrid('2027-01-31T10:00:00+01:00');
    const dates = Array.from({ length: 12 }, (_, i) => chargeDate(first, i + 1, 1, 'MONTHLY', TZ).toISOString());
    expect(dates).toEqual([
      '2027-01-31T09:00:00.000Z',
      '2027-02-28T09:00:00.000Z',
      '2027-03-31T08:00:00.000Z', // summer time: still 10:00 in Madrid
      '2027-04-30T08:00:00.000Z',
      '2027-05-31T08:00:00.000Z',
      '2027-06-30T08:00:00.000Z',
      '2027-07-31T08:00:00.000Z',
      '2027-08-31T08:00:00.000Z',
      '2027-09-30T08:00:00.000Z',
      '2027-10-31T09:00:00.000Z',
      '2027-11-30T09:00:00.000Z',
      '2027-12-31T09:00:00.000Z',
    ]);
    expect(addInterval(madrid('2028-01-31T10:00:00+01:00'), 1, 'MONTHLY', TZ).toISOString()).toBe('2028-02-29T09:00:00.000Z');
    expect(addInterval(madrid('2028-02-29T10:00:00+01:00'), 1, 'ANNUAL', TZ).toISOString()).toBe('2029-02-28T09:00:00.000Z');
    expect(chargeDate(madrid('2027-01-31T10:00:00+01:00'), 3, 2, 'MONTHLY', TZ).toISOString()).toBe('2027-05-31T08:00:00.000Z');
    expect(chargeDate(madrid('2027-12-30T10:00:00+01:00'), 2, 1, 'WEEKLY', TZ).toISOString()).toBe('2028-01-06T09:00:00.000Z');
    expect(chargeDate(madrid('2027-12-31T10:00:00+01:00'), 2, 3, 'DAILY', TZ).toISOString()).toBe('2028-01-03T09:00:00.000Z');
  });

  it('retries 1, 3 and 5 days after the due date, then every 7 days', () => {
    expect([1, 2, 3, 4, 5].map(retryOffsetDays)).toEqual([1, 3, 5, 12, 19]);
    const due = madrid('2027-03-01T10:00:00+01:00');
    expect(retryDate(due, 2, TZ).toISOString()).toBe('2027-03-02T09:00:00.000Z');
    expect(retryDate(due, 4, TZ).toISOString()).toBe('2027-03-06T09:00:00.000Z');
  });

  it('derives one order id per (subscription, payment number, attempt)', () => {
    const s = '7f3d2c1b-6a5e-4d9c-8b7a-1e2f3a4b5c6d';
    const id = chargeOrderId(s, 1, 1);
    expect(id).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-5[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    expect(chargeOrderId(s.toUpperCase(), 1, 1)).toBe(id);
    expect(new Set([id, chargeOrderId(s, 1, 2), chargeOrderId(s, 2, 1), chargeOrderId('00000000-0000-4000-8000-000000000000', 1, 1)]).size).toBe(4);
  });

  it('reads interval names and initial dates', () => {
    expect(intervalType('yearly')).toBe('ANNUAL');
    expect(intervalType('Monthly')).toBe('MONTHLY');
    expect(intervalType('HOURLY')).toBeNull();
    expect(parseInitialDate('2027-02-29', TZ)).toBeNull();
    expect(parseInitialDate('2027-02-28', TZ)).toEqual({ at: new Date('2027-02-27T23:00:00.000Z'), day: '2027-02-28' });
    expect(parseInitialDate('2027-02-28T23:30:00Z', TZ)?.day).toBe('2027-03-01');
    expect(parseInitialDate('tomorrow', TZ)).toBeNull();
  });
});
