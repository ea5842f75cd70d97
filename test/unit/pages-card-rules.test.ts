/**
 * The card rules the payment page runs in the browser and the server runs on the posted form are one
 * file (client/card-rules.mjs). These tests check the rules, check them against card-validator (what
 * the vault uses), and run the same cases through the exact text the page inlines.
 */
import fs from 'node:fs';
import vm from 'node:vm';
import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import cardValidator from 'card-validator';
import * as rules from '../../src/modules/pages/client/card-rules.mjs';
import { PAGE_SCRIPT, rulesForBrowser } from '../../src/modules/pages/assets.js';
import { checkCard, parseBizumPhone, readCardForm } from '../../src/modules/pages/card.domain.js';
import { TEST_CARDS } from '../../src/processors/index.js';
import { useTestSeed } from '../helpers/seed.js';

useTestSeed(import.meta.url);

const TODAY = { year: 2026, month: 6 };

/** Valid numbers of each brand (the sandbox test cards and well-known test numbers). */
const SAMPLES: Array<[string, string]> = [
  ['4548812049400004', 'visa'],
  ['4761739000091011', 'visa'],
  ['4111111111111111', 'visa'],
  ['4000058400000071', 'visa'],
  ['5590337536718399', 'mastercard'],
  ['5150796024238164', 'mastercard'],
  ['5223798193659108', 'mastercard'],
  ['5485009949201879', 'mastercard'],
  ['2223000048400011', 'mastercard'],
  ['378282246310005', 'amex'],
  ['371449635398431', 'amex'],
  ['36227206271667', 'diners'],
  ['30569309025904', 'diners'],
  ['6011111111111117', 'discover'],
  ['3530111333300000', 'jcb'],
  ['6200000000000005', 'unionpay'],
  ['6759649826438453', 'maestro'],
  ['5018000000000009', 'maestro'],
  ['2200000000000004', 'mir'],
];

/** The cases every copy of the rules must agree on: [fields, expected errors]. */
const FORM_CASES: Array<[Record<string, string>, Record<string, string>]> = [
  [{ holder: 'Ana Pérez', number: '4548 8120 4940 0004', expiry: '12/30', cvv: '123' }, {}],
  [{ holder: 'Ana Pérez', number: '3782 822463 10005', expiry: '06/26', cvv: '1234' }, {}],
  [{ holder: 'Ana', number: '4548 8120 4940 0005', expiry: '12/30', cvv: '123' }, { number: 'err.number.invalid' }],
  [{ holder: 'Ana', number: '4548 8120 4940', expiry: '12/30', cvv: '123' }, { number: 'err.number.incomplete' }],
  [{ holder: 'Ana', number: '4548-8120-4940-0004', expiry: '05/26', cvv: '123' }, { expiry: 'err.expiry.past' }],
  [{ holder: 'Ana', number: '4548812049400004', expiry: '13/30', cvv: '123' }, { expiry: 'err.expiry.invalid' }],
  [{ holder: 'Ana', number: '4548812049400004', expiry: '12/2030', cvv: '12' }, { cvv: 'err.cvv.length3' }],
  [{ holder: 'Ana', number: '378282246310005', expiry: '1230', cvv: '123' }, { cvv: 'err.cvv.length4' }],
  [{ holder: '', number: '', expiry: '', cvv: '' }, { holder: 'err.holder.required', number: 'err.number.required', expiry: 'err.expiry.required', cvv: 'err.cvv.required' }],
  [{ holder: '1234', number: 'abcd', expiry: 'xx', cvv: 'abc' }, { holder: 'err.holder.invalid', number: 'err.number.invalid', expiry: 'err.expiry.invalid', cvv: 'err.cvv.length3' }],
  [{ holder: 'x'.repeat(101), number: '4548812049400004', expiry: '12/30', cvv: '123' }, { holder: 'err.holder.long' }],
];

describe('card rules', () => {
  it('detects the brand of every sample and agrees with card-validator on brand, validity and CVV size', () => {
    const names: Record<string, string> = { amex: 'american-express', diners: 'diners-club' };
    for (const [pan, brand] of SAMPLES) {
      const r = rules.checkNumber(pan, false);
      expect(r.error, pan).toBeNull();
      expect(r.brand?.id, pan).toBe(brand);
      const cv = cardValidator.number(pan);
      expect(cv.isValid, pan).toBe(true);
      expect(cv.card?.type, pan).toBe(names[brand] ?? brand);
      expect(rules.cvvLength(r.brand), pan).toBe(cv.card?.code.size);
    }
  });

  it('knows every sandbox test card', () => {
    for (const pan of Object.values(TEST_CARDS)) expect(rules.checkNumber(pan, false).error, pan).toBeNull();
  });

  it('property: Luhn agrees with card-validator for any digit string of a valid Visa length', () => {
    fc.assert(
      fc.property(fc.stringMatching(/^4[0-9]{15}$/), (pan) => {
        expect(rules.checkNumber(pan, false).error === null).toBe(cardValidator.number(pan).isValid);
      }),
      { numRuns: 500 },
    );
  });

  it('while typing reports only what is already wrong', () => {
    expect(rules.checkNumber('4548 81', true).error).toBeNull();
    expect(rules.checkNumber('5590 3375 3671 8390', true).error).toBe('err.number.invalid');
    expect(rules.checkNumber('4548 8120 4940 0005', true).error).toBe('err.number.invalid');
    expect(rules.checkNumber('4548 8120 4940 0005', false).error).toBe('err.number.invalid');
    expect(rules.checkExpiry('1', TODAY, true).error).toBeNull();
    expect(rules.checkExpiry('12/', TODAY, true).error).toBeNull();
    expect(rules.checkExpiry('13', TODAY, true).error).toBe('err.expiry.invalid');
    expect(rules.checkExpiry('01/20', TODAY, true).error).toBe('err.expiry.past');
    expect(rules.checkCvv('12', rules.detectBrand('4548812049400004'), true).error).toBeNull();
    expect(rules.checkCvv('12345', null, true).error).toBe('err.cvv.length3');
  });

  it('a card is valid through the last day of its expiry month', () => {
    expect(rules.checkExpiry('06/26', TODAY).error).toBeNull();
    expect(rules.checkExpiry('05/26', TODAY).error).toBe('err.expiry.past');
    expect(rules.checkExpiry('6/2026', TODAY).error).toBeNull();
    expect(rules.checkExpiry('12/99', TODAY).error).toBe('err.expiry.invalid');
  });

  it('formats numbers as the brand prints them and expiries as MM/YY', () => {
    expect(rules.formatCardNumber('4548812049400004')).toBe('4548 8120 4940 0004');
    expect(rules.formatCardNumber('378282246310005')).toBe('3782 822463 10005');
    expect(rules.formatExpiry('1230')).toBe('12/30');
    expect(rules.formatExpiry('4')).toBe('04');
  });

  it('the server check of the posted form gives the expected errors', () => {
    for (const [fields, errors] of FORM_CASES) {
      const r = checkCard(readCardForm(fields), TODAY);
      expect(r.errors, JSON.stringify(fields)).toEqual(errors);
      expect(r.card === null, JSON.stringify(fields)).toBe(Object.keys(errors).length > 0);
    }
    expect(checkCard(readCardForm(FORM_CASES[0][0]), TODAY).card).toEqual({ holder: 'Ana Pérez', digits: '4548812049400004', brand: 'visa', month: 12, year: 2030 });
  });

  it('the copy the page inlines gives the same answers as the module (same cases)', () => {
    const source = fs.readFileSync(new URL('../../src/modules/pages/client/card-rules.mjs', import.meta.url), 'utf8');
    const context: Record<string, any> = {};
    vm.createContext(context);
    vm.runInContext(rulesForBrowser(source), context);
    for (const [fields, errors] of FORM_CASES) {
      expect(JSON.parse(JSON.stringify(context.checkCardForm(fields, TODAY).errors))).toEqual(errors);
    }
    for (const [pan, brand] of SAMPLES) expect(context.detectBrand(pan).id).toBe(brand);
  });

  it('the page script is self-contained JavaScript (no imports, no network, no eval)', () => {
    expect(() => new Function(PAGE_SCRIPT)).not.toThrow();
    const code = PAGE_SCRIPT.replace(/^\s*\/\/.*$/gm, '');
    expect(code).not.toMatch(/^\s*(import|export)\s|\bimport\(|fetch\(|XMLHttpRequest|eval\(|new Function|localStorage|document\.cookie|https?:\/\//m);
  });

  it('Bizum phones: Spanish mobiles only, with or without +34', () => {
    expect(parseBizumPhone('700000000')).toBe('700000000');
    expect(parseBizumPhone('+34 600 11 22 33')).toBe('600112233');
    expect(parseBizumPhone('0034700000001')).toBe('700000001');
    expect(parseBizumPhone('912345678')).toBeNull();
    expect(parseBizumPhone('60011223')).toBeNull();
    expect(parseBizumPhone(42)).toBeNull();
  });
});
