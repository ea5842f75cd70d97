/**
 * The dashboard's amounts as typed by staff (a refund, a campaign, the virtual terminal, a device
 * payment): minor units of the currency, exactly, and null for anything that is not an amount of it.
 */
import { describe, expect, it } from 'vitest';
import { currencyDigits, toMinor } from '../../dashboard/src/amounts.js';

describe('typed amounts', () => {
  it('knows the decimals of a currency', () => {
    expect([currencyDigits('EUR'), currencyDigits('JPY'), currencyDigits('KWD'), currencyDigits('CLP')]).toEqual([2, 0, 3, 0]);
  });

  it('reads an amount in minor units of its currency, exactly', () => {
    const cases: Array<[string, string, number]> = [
      ['12.50', 'EUR', 1250], ['12,5', 'EUR', 1250], ['12', 'EUR', 1200], [' 1 000 ', 'EUR', 100000], ['0.29', 'EUR', 29],
      ['1.005', 'KWD', 1005], ['1000', 'JPY', 1000], ['0', 'EUR', 0], ['999999999999.99', 'EUR', 99999999999999],
    ];
    for (const [text, currency, minor] of cases) expect(toMinor(text, currency), `${text} ${currency}`).toBe(minor);
  });

  it('is null for what is not an amount of the currency', () => {
    const cases: Array<[string, string]> = [
      ['', 'EUR'], ['abc', 'EUR'], ['12.5.0', 'EUR'], ['1e3', 'EUR'], ['12.505', 'EUR'], ['-5', 'EUR'], ['10.5', 'JPY'], ['1,000.00', 'EUR'], ['Infinity', 'EUR'], ['0x10', 'EUR'],
    ];
    for (const [text, currency] of cases) expect(toMinor(text, currency), `${text} ${currency}`).toBeNull();
  });
});
