/**
 * What a card number is (issue 31 items 2 and 3): Luhn-valid AND in a brand's issuer ranges AND of a
 * length that brand uses. Ordinary numbers that pass Luhn (EAN-13 codes, millisecond timestamps) are not
 * card numbers; every sandbox test card is one, written however a person writes it. Logged and echoed
 * URLs carry no card number.
 */
import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { containsCardNumber, isCardNumber, luhn, redactCardNumbers } from '../../src/platform/security/card-numbers.js';
import { redactCardNumbersInUrl, redactUrl } from '../../src/platform/logging.js';
import { TEST_CARDS } from '../../src/processors/index.js';
import { rng, useTestSeed } from '../helpers/seed.js';

useTestSeed(import.meta.url);

const PAN = TEST_CARDS.APPROVED;

describe('a card number', () => {
  it('is every sandbox test card and well-known test number, plain, spaced or dashed', () => {
    for (const p of [...Object.values(TEST_CARDS), '378282246310005', '5555555555554444', '6759649826438453', '6200000000000005', '2200000000000004', '3530111333300000']) {
      expect(isCardNumber(p), p).toBe(true);
      expect(containsCardNumber(`card ${p.replace(/(\d{4})(?=\d)/g, '$1 ')} thanks`), p).toBe(true);
      expect(containsCardNumber(p.replace(/(\d{4})(?=\d)/g, '$1-')), p).toBe(true);
    }
  });

  it('is found next to other numbers (each run of groups is tried)', () => {
    expect(containsCardNumber(`order 12 ${PAN.replace(/(\d{4})(?=\d)/g, '$1 ')}`)).toBe(true);
    expect(containsCardNumber(`2026-11-27 ${PAN}`)).toBe(true);
  });

  it('is never read from the digits of a UUID or a hexadecimal token, however they fall (seeded)', () => {
    // the digit groups of this UUID joined by their dashes hold 567890123456: Luhn-valid, in Maestro's range and length
    const digitsOnly = '1b2c3d4e-5678-9012-3456-7890abcdef01';
    expect(containsCardNumber('9-4548-8120-4940-0004')).toBe(true);
    expect(containsCardNumber(`card_uuid ${digitsOnly}`)).toBe(false);
    expect(containsCardNumber(`a0${PAN}`)).toBe(false);
    expect(containsCardNumber(`token ${PAN}ab12`)).toBe(false);
    const r = rng();
    for (let i = 0; i < 20000; i++) {
      const u = [8, 4, 4, 4, 12].map((len) => Array.from({ length: len }, () => (r() < 0.85 ? String(Math.floor(r() * 10)) : 'abcdef'[Math.floor(r() * 6)])).join('')).join('-');
      expect(containsCardNumber(`/v1/orders/${u}/refund`), u).toBe(false);
    }
  });

  it('is not an EAN-13 code, a millisecond timestamp or a number outside every brand range, even when Luhn-valid', () => {
    for (const n of ['8412345678907', '4006381333932', '1763769600000', '1700000000004', '9999999999999995', '1234567890123452']) {
      expect(luhn(n), n).toBe(true);
      expect(isCardNumber(n), n).toBe(false);
      expect(containsCardNumber(`Pack EAN ${n}`), n).toBe(false);
    }
    // a brand's prefix but not its length (Visa is 16, 18 or 19 digits)
    expect(luhn('4222222222222')).toBe(true);
    expect(isCardNumber('4222222222222')).toBe(false);
    // Luhn-invalid, or too long without separators
    expect(isCardNumber('4548812049400005')).toBe(false);
    expect(containsCardNumber(`ES12${PAN}12`)).toBe(false);
  });

  it("is not a plugin's `<order id>-<unix time>` reference, whatever its digits (seeded); real card numbers stay found however they are written", () => {
    // WooCommerce's Paylands plugin sends `reference` as `<order id>-<unix time>`: joined across the dash,
    // about 1.5% of them pass Luhn in a Maestro or Mastercard range, and were refused
    const r = rng();
    let joinedLikeCards = 0;
    for (let i = 0; i < 4000; i++) {
      const reference = `${1 + Math.floor(r() * 999_999)}-${1_700_000_000 + Math.floor(r() * 200_000_000)}`;
      if (isCardNumber(reference.replace('-', ''))) joinedLikeCards++;
      expect(containsCardNumber(reference), reference).toBe(false);
      expect(containsCardNumber(`Order ${reference}`), reference).toBe(false);
    }
    // the test would catch the old reading: some of these references joined are card numbers
    expect(joinedLikeCards).toBeGreaterThan(0);
    expect(containsCardNumber('63621-1796608201')).toBe(false);
    // real card numbers of every length, written whole, in fours (the last group shorter), 4-6-5 / 4-6-4
    const luhnComplete = (body: string) => {
      for (let d = 0; d <= 9; d++) if (luhn(body + d)) return body + d;
      throw new Error('unreachable');
    };
    const digits = (n: number) => Array.from({ length: n }, () => String(Math.floor(r() * 10))).join('');
    const inFours = (p: string) => p.replace(/(\d{4})(?=\d)/g, '$1 ');
    for (let i = 0; i < 500; i++) {
      const visa = luhnComplete(`4${digits(14)}`);
      const visa19 = luhnComplete(`4${digits(17)}`);
      const amex = luhnComplete(`37${digits(12)}`);
      const diners = luhnComplete(`36${digits(11)}`);
      for (const [pan, written] of [
        [visa, visa], [visa, inFours(visa)], [visa, inFours(visa).replace(/ /g, '-')], [visa19, inFours(visa19)],
        [amex, amex], [amex, `${amex.slice(0, 4)} ${amex.slice(4, 10)} ${amex.slice(10)}`], [amex, inFours(amex)],
        [diners, `${diners.slice(0, 4)}-${diners.slice(4, 10)}-${diners.slice(10)}`],
      ] as const) {
        expect(isCardNumber(pan), pan).toBe(true);
        expect(containsCardNumber(`ref ${written} x`), written).toBe(true);
      }
    }
  });

  it('is Luhn-valid: a random number in a brand range is one only when it passes Luhn (seeded)', () => {
    fc.assert(
      fc.property(fc.stringMatching(/^4[0-9]{15}$/), (n) => {
        expect(isCardNumber(n)).toBe(luhn(n));
      }),
      { numRuns: 300 },
    );
  });
});

describe('redaction', () => {
  it('masks a card number in text to BIN and last 4 and leaves other numbers', () => {
    expect(redactCardNumbers(`card ${PAN} and EAN 8412345678907`)).toBe('card 454881******0004 and EAN 8412345678907');
    expect(redactCardNumbers('pay 4548 8120 4940 0004 now')).toBe('pay 454881******0004 now');
  });

  it('redacts card numbers in logged URLs, path and query, encoded or not', () => {
    expect(redactUrl(`/v1/sandbox/customer/${PAN}/sources?x=1`)).toBe('/v1/sandbox/customer/[REDACTED]/sources?x=1');
    expect(redactUrl(`/v1/orders?reference=${PAN}&limit=10`)).toBe('/v1/orders?reference=[REDACTED]&limit=10');
    expect(redactUrl('/v1/orders?reference=4548%208120%204940%200004')).toBe('/v1/orders?reference=[REDACTED]');
    expect(redactUrl('/v1/orders?q=4548+8120+4940+0004')).toBe('/v1/orders?q=[REDACTED]');
    expect(redactUrl(`/v1/orders?q=card%20${PAN}%20ok`)).toBe('/v1/orders?q=card%20[REDACTED]%20ok');
    expect(redactCardNumbersInUrl(`/x/${PAN.slice(0, 8)}-${PAN.slice(8)}`)).toBe('/x/[REDACTED]');
    // ordinary numbers stay
    expect(redactUrl('/v1/orders?from=1763769600000&ean=8412345678907')).toBe('/v1/orders?from=1763769600000&ean=8412345678907');
  });
});
