/** Pure rules of customers, accounts, addresses and profiles (api.md E1–E12). No IO. */
import countries from 'i18n-iso-countries';
import { parsePhoneNumberFromString, type CountryCode } from 'libphonenumber-js';

export const ACCOUNT_TYPES = [
  'ACCOUNT_NUMBER', 'BUSINESS', 'ACCOUNT_CLABE', 'CARD_NUMBER', 'INTEREST_CHECKING', 'MONEY_MARKET', 'MOBILE_PHONE_NUMBER',
  'NOT_USED_FOR_THIS_BANK', 'PERSONAL', 'REGULAR_CHECKING', 'SAVING_ACCOUNT',
] as const;
export type AccountType = (typeof ACCOUNT_TYPES)[number];

export const ADDRESS_TYPES = ['OTHER', 'BILLING', 'SHIPPING'] as const;
export type AddressType = (typeof ADDRESS_TYPES)[number];

export const DOCUMENT_ISSUER_TYPES = ['STATE_GOVERNMENT', 'FEDERAL_GOVERNMENT', 'MONEY_TRANSMITTER', 'PROFESSIONAL_ASSOCIATION'] as const;

export const DOCUMENT_TYPES = [
  'ALIEN_REGISTRATION_CARD', 'ELECTOR_CREDENTIAL', 'FISCAL_IDENTIFICATION_CODE', 'ORIGIN_COUNTRY_IDENTIFICATION_CODE',
  'FOREIGN_IDENTIFICATION_DOCUMENT', 'NATIONAL_IDENTITY_DOCUMENT', 'OTHER_PHYSICAL_PERSON_DOCUMENTS', 'DRIVER_LICENSE',
  'CONSULAR_REGISTRATION', 'UNDER_AGE', 'RESIDENCE_CARD', 'TAX_IDENTIFICATION_NUMBER', 'NON_DRIVER_LICENSE_PHOTO_ID',
  'VALID_PASSPORT', 'DIPLOMAT_IDENTITY_CARD', 'US_GOVERNMENT_ISSUER_ID', 'UNIQUE_ID_ISSUED_BY_MT',
] as const;

export const ADDRESS_LINE_MAX = 50;

type Result<T> = { ok: T } | { error: string };

/** ISO 3166-1 alpha-3 country code (any case in, upper case out). */
export function parseCountry(input: string, field = 'country'): Result<string> {
  const c = input.trim().toUpperCase();
  if (!/^[A-Z]{3}$/.test(c) || !countries.alpha3ToAlpha2(c)) return { error: `${field} must be an ISO 3166 alpha-3 country code (e.g. ESP)` };
  return { ok: c };
}

/** Account numbers: 1 to 64 characters of digits, letters, spaces and dashes; CARD_NUMBER is a card. */
export function parseAccountNumber(type: AccountType, input: string): Result<{ number: string; shown: string }> {
  const compact = input.replace(/[\s-]/g, '');
  if (!/^[A-Za-z0-9+]{1,64}$/.test(compact)) return { error: 'account_number must be 1 to 64 letters or digits' };
  if (type === 'CARD_NUMBER') {
    if (!/^[0-9]{12,19}$/.test(compact)) return { error: 'account_number must be a card number (12 to 19 digits) for CARD_NUMBER' };
    // a card number is shown as BIN and last 4 only
    return { ok: { number: compact, shown: `${compact.slice(0, 6)}${'*'.repeat(compact.length - 10)}${compact.slice(-4)}` } };
  }
  if (type === 'ACCOUNT_CLABE' && !/^[0-9]{18}$/.test(compact)) return { error: 'account_number must be 18 digits for ACCOUNT_CLABE' };
  if (type === 'MOBILE_PHONE_NUMBER') {
    const p = parsePhoneNumberFromString(compact.startsWith('+') ? compact : `+${compact}`);
    if (!p || !p.isValid()) return { error: 'account_number must be a mobile phone number with its country prefix for MOBILE_PHONE_NUMBER' };
  }
  return { ok: { number: compact, shown: compact } };
}

/** Phone object of api.md: `{number, prefix}`; prefix like "+34" or "34", null or absent. */
export interface Phone {
  number: string;
  prefix?: string | null;
}

/**
 * Checks a Phone and returns it as it is echoed: `number` and `prefix` exactly as sent (decisions §10),
 * `prefix` null when it was not given. With a country (a prefix, or a number starting with + and its
 * country code) the number must be a valid phone number of that country. Without one it cannot be
 * validated that far (existing clients send national numbers without a prefix): it must then look like
 * a phone number, 4 to 15 digits with the usual separators.
 */
export function parsePhone(input: Phone, field: string): Result<{ number: string; prefix: string | null }> {
  const number = input.number.replace(/[\s().-]/g, '');
  const rawPrefix = input.prefix === undefined || input.prefix === null || input.prefix.trim() === '' ? null : input.prefix;
  const prefix = rawPrefix === null ? null : rawPrefix.trim().replace(/^00/, '+');
  if (prefix !== null && !/^\+?[0-9]{1,4}$/.test(prefix)) return { error: `${field}.prefix must be a country calling code such as +34` };
  let full: string | null;
  if (prefix !== null) full = `+${prefix.replace(/^\+/, '')}${number.replace(/^\+/, '')}`;
  else if (number.startsWith('+')) full = number;
  else full = null;
  if (full !== null) {
    const parsed = parsePhoneNumberFromString(full);
    if (!parsed || !parsed.isValid()) return { error: `${field} is not a valid phone number` };
  } else if (!/^[0-9]{4,15}$/.test(number)) {
    return { error: `${field}.number must be a phone number (4 to 15 digits)` };
  }
  return { ok: { number: input.number, prefix: rawPrefix } };
}

/** `YYYY-MM-DD`, a real calendar date, not in the future of `today` (YYYY-MM-DD). */
export function parseBirthdate(input: string, today: string): Result<string> {
  const m = /^([0-9]{4})-([0-9]{2})-([0-9]{2})$/.exec(input);
  if (!m) return { error: 'birthdate must be a date YYYY-MM-DD' };
  const [y, mo, d] = [Number(m[1]), Number(m[2]), Number(m[3])];
  const dt = new Date(Date.UTC(y, mo - 1, d));
  if (dt.getUTCFullYear() !== y || dt.getUTCMonth() !== mo - 1 || dt.getUTCDate() !== d) return { error: 'birthdate is not a real date' };
  if (input > today) return { error: 'birthdate is in the future' };
  if (y < 1900) return { error: 'birthdate is before 1900' };
  return { ok: input };
}

export type { CountryCode };
