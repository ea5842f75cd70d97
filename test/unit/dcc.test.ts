/**
 * Dynamic currency conversion, pure parts: the rate arithmetic (integers, half-up), the sandbox's
 * quotes by the card's issuing country, when an offer is made, and the record a payment keeps.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  SANDBOX_DCC_CARDS, SANDBOX_DCC_MARKUP_BPS, SANDBOX_DCC_RATES, convertAmount, crossRate, formatPercent, formatRate, luhnValid, parseRate,
  sandboxCardCurrency, sandboxQuote, withMarkup,
} from '../../src/processors/index.js';
import { choiceOf, firstChoice, offerExpiry, offerable, parseChoice } from '../../src/modules/dcc/dcc.domain.js';
import { dccDataOf, dccOf } from '../../src/modules/payments/operations/dcc.js';
import { presentOrder } from '../../src/modules/payments/payments.domain.js';
import { useTestSeed } from '../helpers/seed.js';

useTestSeed(import.meta.url);

const NOW = new Date('2026-05-04T10:00:00Z');

describe('rate arithmetic', () => {
  it('parses and formats rates with 4 to 8 decimals', () => {
    expect(parseRate('1.085')).toBe(108_500_000n);
    expect(formatRate(108_500_000n)).toBe('1.0850');
    expect(formatRate(112_297_500n)).toBe('1.122975');
    expect(formatRate(615_385n)).toBe('0.00615385');
    for (const bad of ['1,08', '-1.0', '1.123456789', '', 'abc']) expect(() => parseRate(bad), bad).toThrow();
    expect(formatPercent(350)).toBe('3.50');
    expect(formatPercent(5)).toBe('0.05');
  });

  it('cross rates and margins round half up', () => {
    // 1 EUR = 1.0850 USD, 1 EUR = 0.8450 GBP: 1 GBP = 1.28402367... USD
    expect(formatRate(crossRate(parseRate('0.8450'), parseRate('1.0850')))).toBe('1.28402367');
    expect(formatRate(withMarkup(parseRate('1.0850'), 350))).toBe('1.122975');
    expect(withMarkup(parseRate('1.0'), 0)).toBe(parseRate('1.0'));
  });

  it('converts minor units between currencies of 0, 2 and 3 decimals', () => {
    const rate = parseRate('1.122975');
    expect(convertAmount(1050, 2, 2, rate)).toBe(1179); // 11.7912375
    expect(convertAmount(1, 2, 2, rate)).toBe(1);
    expect(convertAmount(0, 2, 2, rate)).toBe(0);
    expect(convertAmount(1050, 2, 0, parseRate('168.1875'))).toBe(1766); // 1765.96875 yen
    expect(convertAmount(1050, 2, 3, parseRate('0.344655'))).toBe(3619); // 3.61887750 dinars
    expect(convertAmount(5, 2, 2, parseRate('0.5'))).toBe(3); // 2.5: half up
    expect(() => convertAmount(1.5, 2, 2, rate)).toThrow();
  });

  it('a conversion is the exact product rounded half up, for any amount and rate (run seed)', () => {
    fc.assert(
      fc.property(fc.integer({ min: 0, max: 1_000_000_000 }), fc.bigInt({ min: 1n, max: 10n ** 11n }), fc.constantFrom(0, 2, 3), fc.constantFrom(0, 2, 3), (amount, rate, from, to) => {
        const got = BigInt(convertAmount(amount, from, to, rate));
        // exact value x = N / D; half up: got - 1/2 <= x < got + 1/2
        const N = BigInt(amount) * rate * 10n ** BigInt(to);
        const D = 10n ** 8n * 10n ** BigInt(from);
        expect(2n * got * D - D <= 2n * N).toBe(true);
        expect(2n * N < 2n * got * D + D).toBe(true);
      }),
    );
  });
});

describe('the sandbox rate source', () => {
  it('knows a sandbox card\'s currency from its issuing country; the test cards are valid card numbers', () => {
    expect(sandboxCardCurrency('40000840')).toBe('USD');
    expect(sandboxCardCurrency('40000826')).toBe('GBP');
    expect(sandboxCardCurrency('40000724')).toBe('EUR');
    expect(sandboxCardCurrency('45488120')).toBeNull();
    expect(sandboxCardCurrency('40000000')).toBeNull();
    for (const [currency, pan] of Object.entries(SANDBOX_DCC_CARDS)) {
      expect(luhnValid(pan), pan).toBe(true);
      expect(sandboxCardCurrency(pan.slice(0, 8)), pan).toBe(currency);
    }
  });

  it('quotes the table with its margin; no quote for the same currency, an unknown card or currency, or a zero amount', () => {
    expect(sandboxQuote({ bin: SANDBOX_DCC_CARDS.USD.slice(0, 8), amount: 1050, currency: 'EUR', now: NOW })).toEqual({
      cardholderCurrency: 'USD', cardholderAmount: 1179, rate: '1.122975', referenceRate: '1.0850', markup: '3.50', source: 'SANDBOX', validSeconds: 600,
    });
    // an order in another currency: cross rates through the euro
    const q = sandboxQuote({ bin: SANDBOX_DCC_CARDS.EUR.slice(0, 8), amount: 10_000, currency: 'USD', now: NOW })!;
    expect(q).toMatchObject({ cardholderCurrency: 'EUR', referenceRate: '0.92165899', rate: '0.95391705', cardholderAmount: 9539 });
    expect(sandboxQuote({ bin: SANDBOX_DCC_CARDS.EUR.slice(0, 8), amount: 1050, currency: 'EUR', now: NOW })).toBeNull();
    expect(sandboxQuote({ bin: '45488120', amount: 1050, currency: 'EUR', now: NOW })).toBeNull();
    expect(sandboxQuote({ bin: SANDBOX_DCC_CARDS.USD.slice(0, 8), amount: 1050, currency: 'THB', now: NOW })).toBeNull();
    expect(sandboxQuote({ bin: SANDBOX_DCC_CARDS.USD.slice(0, 8), amount: 0, currency: 'EUR', now: NOW })).toBeNull();
    expect(Object.keys(SANDBOX_DCC_RATES)).toContain('EUR');
    expect(SANDBOX_DCC_MARKUP_BPS).toBe(350);
  });
});

describe('when an offer is made', () => {
  const service = { enabled: true, dcc_allowed: true, dcc_mode: 'DYNAMIC' as const };
  it('a service that allows DCC in DYNAMIC or FOREIGN mode, for card charges of a positive amount', () => {
    expect(offerable(service, { operative: 'AUTHORIZATION', amount: 1 })).toBe('DYNAMIC');
    expect(offerable({ ...service, dcc_mode: 'FOREIGN' }, { operative: 'DEFERRED', amount: 1 })).toBe('FOREIGN');
    expect(offerable({ ...service, dcc_mode: null }, { operative: 'AUTHORIZATION', amount: 1 })).toBe('DYNAMIC');
    expect(offerable({ ...service, dcc_mode: 'LOCAL' }, { operative: 'AUTHORIZATION', amount: 1 })).toBeNull();
    expect(offerable({ ...service, dcc_allowed: false }, { operative: 'AUTHORIZATION', amount: 1 })).toBeNull();
    expect(offerable({ ...service, enabled: false }, { operative: 'AUTHORIZATION', amount: 1 })).toBeNull();
    for (const operative of ['PARTIAL_AUTHORIZATION', 'PAYOUT', 'TRANSFER']) expect(offerable(service, { operative, amount: 1 }), operative).toBeNull();
    expect(offerable(service, { operative: 'AUTHORIZATION', amount: 0 })).toBeNull();
  });

  it('an offer holds the quote\'s validity, 10 minutes at most; the screen order follows the mode; only accept and decline are choices', () => {
    expect(offerExpiry(NOW, 60).toISOString()).toBe('2026-05-04T10:01:00.000Z');
    expect(offerExpiry(NOW, 86_400).toISOString()).toBe('2026-05-04T10:10:00.000Z');
    expect(firstChoice('DYNAMIC')).toBe('ORDER');
    expect(firstChoice('FOREIGN')).toBe('CARD');
    expect(parseChoice('accept')).toBe(true);
    expect(parseChoice('decline')).toBe(false);
    for (const v of ['ACCEPT', '', undefined, ['accept'], 1]) expect(parseChoice(v)).toBeNull();
  });
});

describe('the record of a payment', () => {
  const offer = { cardholder_currency: 'USD', cardholder_amount: 1179, rate: '1.122975', markup: '3.50', source: 'SANDBOX' };
  const o = { currency: 'EUR', operative: 'AUTHORIZATION' as const };

  it('keeps the numeric currency like the order\'s, the choice and the time; the processor gets the alpha-3 code', () => {
    const choice = choiceOf(offer, true, NOW);
    const { record, data } = dccOf({ channel: 'ECOMMERCE', card: { kind: 'source', sourceUuid: 'x' }, dcc: choice }, o);
    expect(record).toEqual({ offered: true, accepted: true, cardholder_currency: '840', cardholder_amount: 1179, rate: '1.122975', markup: '3.50', source: 'SANDBOX', timestamp: '2026-05-04T10:00:00.000Z' });
    expect(data).toEqual({ accepted: true, currency: 'USD', amount: 1179, rate: '1.122975', markup: '3.50', source: 'SANDBOX' });
    // what a payment resuming after 3-D Secure sends again
    expect(dccDataOf(record)).toEqual(data);
    expect(dccDataOf(null)).toBeNull();
    expect(dccOf({ channel: 'ECOMMERCE', card: { kind: 'source', sourceUuid: 'x' } }, o)).toEqual({ record: null, data: null });
  });

  it('refuses a conversion that cannot be one', () => {
    const pay = (dcc: ReturnType<typeof choiceOf>, channel: 'ECOMMERCE' | 'MIT' = 'ECOMMERCE', operative = 'AUTHORIZATION') =>
      () => dccOf({ channel, card: { kind: 'source', sourceUuid: 'x' }, dcc }, { currency: 'EUR', operative: operative as 'AUTHORIZATION' });
    expect(pay(choiceOf({ ...offer, cardholder_currency: 'EUR' }, true, NOW))).toThrow(/other than the order/);
    expect(pay(choiceOf({ ...offer, cardholder_currency: 'ZZZ' }, true, NOW))).toThrow(/other than the order/);
    expect(pay(choiceOf({ ...offer, cardholder_amount: 0 }, true, NOW))).toThrow(/positive amount/);
    expect(pay(choiceOf(offer, true, NOW), 'MIT')).toThrow(/cardholder/);
    expect(pay(choiceOf(offer, true, NOW), 'ECOMMERCE', 'PAYOUT')).toThrow(/AUTHORIZATION or DEFERRED/);
  });

  it('the order shows the conversion of its latest payment attempt', () => {
    const tx = (operative: string, dcc: unknown, i: number) => ({
      id: `t${i}`, created_at: NOW, operative, amount: 1, auth_code: '', processor_id: null, status: 'SUCCESS', error: 'NONE', source_json: null, antifraud: null, device: null, error_details: null, dcc,
    });
    const base = { id: 'o', created_at: NOW, amount: 1, currency_number: '978', paid: true, status: 'SUCCESS', safe: false, refunded: 0, additional: null, service_type: 'X', service_id: 's', customer_ext_id: null, cof_txnid: null, token: 't', ip: null, reference: null, dynamic_descriptor: null, threeds_data: null, env: 'sandbox' as const };
    const zones = { server: 'UTC', merchant: 'UTC' };
    const rec = { offered: true, accepted: true, cardholder_currency: '840', cardholder_amount: 1, rate: '1.0', markup: '0.00', source: 'S', timestamp: NOW.toISOString() };
    expect(presentOrder(base, [], zones, 'http://x').dcc).toBeNull();
    expect(presentOrder(base, [tx('AUTHORIZATION', rec, 1)], zones, 'http://x').dcc).toEqual(rec);
    // a refund after it does not change it; a later attempt without one clears it
    expect(presentOrder(base, [tx('AUTHORIZATION', rec, 1), tx('REFUND', null, 2)], zones, 'http://x').dcc).toEqual(rec);
    expect(presentOrder(base, [tx('AUTHORIZATION', rec, 1), tx('AUTHORIZATION', null, 2)], zones, 'http://x').dcc).toBeNull();
    expect(presentOrder(base, [tx('DEFERRED', rec, 1), tx('CONFIRMATION', null, 2)], zones, 'http://x').transactions.map((t) => t.dcc)).toEqual([rec, null]);
  });
});
