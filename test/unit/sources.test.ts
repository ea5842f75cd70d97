import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { Secret } from '../../src/platform/security/secret.js';
import { luhnValid, parseExpiry, parseExternalId, parsePan, presentSource, selectListing } from '../../src/modules/sources/sources.domain.js';
import { useTestSeed } from '../helpers/seed.js';

useTestSeed(import.meta.url);

const NOW = new Date('2026-06-15T10:00:00Z');

describe('card numbers', () => {
  it('accepts the sandbox test cards with their brand, BIN and last 4', () => {
    const r = parsePan(new Secret('4548 8120 4940 0004'));
    expect('ok' in r && { bin: r.ok.bin, last4: r.ok.last4, brand: r.ok.brand, pan: r.ok.pan.reveal() }).toEqual({
      bin: '454881', last4: '0004', brand: 'VISA', pan: '4548812049400004',
    });
    const mc = parsePan(new Secret('5590337536718399'));
    expect('ok' in mc && mc.ok.brand).toBe('MASTERCARD');
    const amex = parsePan(new Secret('378282246310005'));
    expect('ok' in amex && [amex.ok.brand, amex.ok.cvvSize]).toEqual(['AMEX', 4]);
  });

  it('refuses Luhn-invalid numbers, wrong lengths and non-digits, never echoing the number', () => {
    for (const bad of ['4548812049400005', '4548', '45488120494000041234', 'abcd812049400004', '']) {
      const r = parsePan(new Secret(bad));
      expect('error' in r).toBe(true);
      if ('error' in r && bad.length > 4) expect(r.error).not.toContain(bad);
    }
  });

  it('Luhn: changing one digit of a valid number always breaks the checksum', () => {
    fc.assert(
      fc.property(fc.integer({ min: 0, max: 15 }), fc.integer({ min: 1, max: 9 }), (pos, delta) => {
        const pan = '4548812049400004';
        const d = (Number(pan[pos]) + delta) % 10;
        return !luhnValid(pan.slice(0, pos) + d + pan.slice(pos + 1));
      }),
    );
  });
});

describe('expiry', () => {
  it('accepts 2- and 4-digit years, strings or numbers; the expiry month itself is still valid', () => {
    expect(parseExpiry('12', '30', NOW)).toEqual({ ok: { month: 12, year: 2030 } });
    expect(parseExpiry(6, 2026, NOW)).toEqual({ ok: { month: 6, year: 2026 } });
  });
  it('refuses expired cards and bad values', () => {
    expect(parseExpiry(5, 2026, NOW)).toEqual({ error: 'The card has expired' });
    expect(parseExpiry('13', '30', NOW)).toHaveProperty('error');
    expect(parseExpiry('0', '30', NOW)).toHaveProperty('error');
    expect(parseExpiry('12', '303', NOW)).toHaveProperty('error');
    expect(parseExpiry(null, '30', NOW)).toHaveProperty('error');
  });
});

describe('customer_ext_id', () => {
  it('keeps numbers as strings', () => {
    expect(parseExternalId(12345)).toEqual({ ok: '12345' });
    expect(parseExternalId(' abc ')).toEqual({ ok: 'abc' });
    expect(parseExternalId('')).toHaveProperty('error');
    expect(parseExternalId({})).toHaveProperty('error');
  });
});

describe('listing semantics (decisions §6)', () => {
  const t = (s: number) => new Date(NOW.getTime() + s * 1000);
  // oldest first, as the repository returns them (decisions §10)
  const rows = [
    { id: 'a', fingerprint: 'F1', validation_date: t(1), first_paid_at: null, created_at: t(1) },
    { id: 'b', fingerprint: 'F1', validation_date: t(2), first_paid_at: null, created_at: t(2) },
    { id: 'c', fingerprint: 'F2', validation_date: null, first_paid_at: null, created_at: t(3) },
    { id: 'd', fingerprint: 'F3', validation_date: null, first_paid_at: t(9), created_at: t(4) },
    { id: 'e', fingerprint: 'F2', validation_date: null, first_paid_at: null, created_at: t(5) },
  ];
  it('status and unique combine: filter first, then keep the newest entry per card, oldest first', () => {
    const ids = (status: 'VALIDATED' | 'ALL', unique: boolean) => selectListing(rows, { status, unique }).map((r) => r.id);
    expect(ids('VALIDATED', false)).toEqual(['a', 'b', 'd']);
    expect(ids('VALIDATED', true)).toEqual(['b', 'd']);
    expect(ids('ALL', false)).toEqual(['a', 'b', 'c', 'd', 'e']);
    expect(ids('ALL', true)).toEqual(['b', 'd', 'e']);
  });
});

describe('Source record', () => {
  it('has the fields of api.md in order, bin a number, last4 a string, nothing more of the number', () => {
    const s = presentSource({
      id: '6b4b0e0e-0d5d-4a43-9f7c-8d3a1b8d7e01', type: 'card', token: 'tok', holder: 'Ana', bin: '454881', last4: '0004',
      brand: 'VISA', brand_description: 'Visa', card_type: '', country: null, bank: '', prepaid: null, expire_month: 3,
      expire_year: 2030, additional: null, origin: 'API', is_saved: true, validation_date: null, first_paid_at: null, created_at: NOW,
    });
    expect(Object.keys(s)).toEqual([
      'object', 'par', 'uuid', 'type', 'token', 'brand', 'country', 'holder', 'bin', 'last4', 'is_saved', 'expire_month',
      'expire_year', 'additional', 'bank', 'prepaid', 'validation_date', 'creation_date', 'brand_description', 'origin', 'cof',
    ]);
    expect(s).toMatchObject({ object: 'CARD', bin: 454881, last4: '0004', expire_month: '03', expire_year: '30', prepaid: '', cof: { is_available: false } });
    expect(s.creation_date).toBe('2026-06-15T10:00:00.000Z');
  });
});
