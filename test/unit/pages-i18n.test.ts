/** The 14 languages: complete catalogues, language choice, money in each language's format. */
import { describe, expect, it } from 'vitest';
import { CATALOGUES, LANGUAGES, chooseLanguage, formatMoney, fromAcceptLanguage, parseLanguage, translate } from '../../src/modules/pages/i18n/index.js';
import { en } from '../../src/modules/pages/i18n/en.js';

const placeholders = (s: string) => [...s.matchAll(/\{([a-z0-9_]+)\}/g)].map((m) => m[1]).sort();

describe('catalogues', () => {
  it('are the 14 languages of the contract', () => {
    expect([...LANGUAGES].sort()).toEqual(['ca', 'da', 'de', 'en', 'es', 'eu', 'fr', 'gl', 'it', 'nl', 'pl', 'pt', 'ro', 'sv']);
  });

  it('every language has every key, none empty, none equal to its key, with the same placeholders as English', () => {
    const keys = Object.keys(en).sort();
    for (const lang of LANGUAGES) {
      const c = CATALOGUES[lang] as Record<string, string>;
      expect(Object.keys(c).sort(), lang).toEqual(keys);
      for (const k of keys) {
        expect(c[k].trim(), `${lang} ${k}`).not.toBe('');
        expect(c[k], `${lang} ${k}`).not.toBe(k);
        expect(placeholders(c[k]), `${lang} ${k}`).toEqual(placeholders((en as Record<string, string>)[k]));
        expect(c[k], `${lang} ${k}`).not.toMatch(/[<>]/);
      }
    }
  });

  it('languages other than English are translated (most texts differ from English)', () => {
    for (const lang of LANGUAGES.filter((l) => l !== 'en')) {
      const c = CATALOGUES[lang] as Record<string, string>;
      const same = Object.keys(en).filter((k) => c[k] === (en as Record<string, string>)[k] && !/^(method\.bizum|order\.description)$/.test(k));
      expect(same.length, `${lang}: ${same.join(', ')}`).toBeLessThanOrEqual(3);
    }
  });

  it('each language names itself differently', () => {
    expect(new Set(LANGUAGES.map((l) => CATALOGUES[l]['lang.name'])).size).toBe(14);
  });

  it('fills placeholders with plain text', () => {
    expect(translate('es', 'card.pay', { amount: '10,00 €' })).toBe('Pagar 10,00 €');
    expect(translate('de', 'acs.text', { amount: 'X', merchant: 'M', last4: '0004' })).toContain('0004');
  });
});

describe('language choice', () => {
  it('?lang= first, then Accept-Language (q-values honoured), then Spanish', () => {
    expect(chooseLanguage('EN', 'fr')).toBe('en');
    expect(chooseLanguage('pt-BR', undefined)).toBe('pt');
    expect(chooseLanguage('xx', 'de-DE,de;q=0.9,en;q=0.8')).toBe('de');
    expect(chooseLanguage(undefined, 'ja,en;q=0.5,ca;q=0.7')).toBe('ca');
    expect(chooseLanguage(undefined, 'ja, zh')).toBe('es');
    expect(chooseLanguage(undefined, undefined)).toBe('es');
    expect(fromAcceptLanguage('en;q=0, sv')).toBe('sv');
    expect(parseLanguage('EU')).toBe('eu');
    expect(parseLanguage(42)).toBeNull();
  });
});

describe('money', () => {
  it('uses the currency minor units and the language format', () => {
    const nb = (s: string) => s.replace(/[\u00a0\u202f]/g, ' ');
    expect(nb(formatMoney('es', 123456, { code: 'EUR', digits: 2 }))).toBe('1234,56 €');
    expect(nb(formatMoney('en', 123456, { code: 'EUR', digits: 2 }))).toBe('€1,234.56');
    expect(nb(formatMoney('de', 1500, { code: 'JPY', digits: 0 }))).toBe('1.500 ¥');
    expect(nb(formatMoney('en', 12345, { code: 'KWD', digits: 3 }))).toBe('KWD 12.345');
    expect(nb(formatMoney('fr', 5, { code: 'EUR', digits: 2 }))).toBe('0,05 €');
  });
});
