/** The test helpers that keep the suite honest: the card scan's Luhn rule and the run's seed. */
import { describe, expect, it } from 'vitest';
import { luhnValid } from '../helpers/capture.js';
import { TEST_SEED, rng } from '../helpers/seed.js';

describe('card scan: only Luhn-valid numbers are card numbers', () => {
  it('accepts real test card numbers and refuses digit runs that fail the check', () => {
    for (const pan of ['4548812049400004', '378282246310005', '4242424242424242', '5555555555554444']) expect(luhnValid(pan), pan).toBe(true);
    // typed by a fuzz test into a customer field: not a card number
    for (const s of ['1234567812345678', '4548812049400005', '12345678901', '4548 8120 4940 0004']) expect(luhnValid(s), s).toBe(false);
  });
});

describe('the run seed', () => {
  it('comes from PAYGATE_TEST_SEED (set once per run by the config) and drives a reproducible generator', () => {
    expect(String(TEST_SEED)).toBe(process.env.PAYGATE_TEST_SEED);
    const a = rng(42);
    const b = rng(42);
    const xs = Array.from({ length: 5 }, () => a());
    expect(Array.from({ length: 5 }, () => b())).toEqual(xs);
    expect(xs.every((x) => x >= 0 && x < 1)).toBe(true);
    expect(rng(43)()).not.toBe(xs[0]);
  });
});
