/**
 * Pure rules of stored payment methods (sources): card number and expiry checks, brand, the Source
 * record of api.md, and the listing semantics of decisions §6. No IO.
 */
import cardValidator from 'card-validator';
import * as ibantools from 'ibantools';
import { Secret } from '../../platform/security/secret.js';

/** Source types of api.md. */
export const SOURCE_TYPES = ['card', 'dynamic_card', 'bank', 'paypal', 'tap_to_pay', 'ecopaynet'] as const;
export type SourceType = (typeof SOURCE_TYPES)[number];

/** Brand codes we emit, from card-validator's type names. */
const BRANDS: Record<string, string> = {
  visa: 'VISA',
  mastercard: 'MASTERCARD',
  'american-express': 'AMEX',
  'diners-club': 'DINERS',
  discover: 'DISCOVER',
  jcb: 'JCB',
  unionpay: 'UNIONPAY',
  maestro: 'MAESTRO',
  mir: 'MIR',
  elo: 'ELO',
  hiper: 'HIPER',
  hipercard: 'HIPERCARD',
};

export interface ParsedCard {
  pan: Secret<string>;
  bin: string;
  last4: string;
  brand: string;
  brandDescription: string;
  cvvSize: number;
}

export type Result<T> = { ok: T } | { error: string };

/** Luhn checksum of a digit string. */
export function luhnValid(digits: string): boolean {
  let sum = 0;
  let double = false;
  for (let i = digits.length - 1; i >= 0; i--) {
    let d = digits.charCodeAt(i) - 48;
    if (d < 0 || d > 9) return false;
    if (double) {
      d *= 2;
      if (d > 9) d -= 9;
    }
    sum += d;
    double = !double;
  }
  return digits.length > 0 && sum % 10 === 0;
}

/**
 * Checks a card number: digits (spaces and dashes allowed between groups), a known brand, a length the
 * brand uses, and the Luhn checksum. The error text never contains the number.
 */
export function parsePan(input: Secret<string>, field = 'card_pan'): Result<ParsedCard> {
  const raw = input.reveal();
  if (typeof raw !== 'string') return { error: `${field} must be a string of digits` };
  const digits = raw.replace(/[\s-]/g, '');
  if (!/^[0-9]{12,19}$/.test(digits)) return { error: `${field} must be 12 to 19 digits` };
  if (!luhnValid(digits)) return { error: `${field} is not a valid card number (checksum)` };
  const v = cardValidator.number(digits, { luhnValidateUnionPay: true });
  if (!v.card) return { error: `${field} is not a card number of a known brand` };
  if (!v.isValid) return { error: `${field} has a length that ${v.card.niceType} cards do not use` };
  return {
    ok: {
      pan: new Secret(digits),
      bin: digits.slice(0, 6),
      last4: digits.slice(-4),
      brand: BRANDS[v.card.type] ?? v.card.type.toUpperCase(),
      brandDescription: v.card.niceType,
      cvvSize: v.card.code.size,
    },
  };
}

/**
 * Expiry month (1–12, number or string) and year (2 or 4 digits, number or string). A card is valid
 * through the last day of its expiry month, in the merchant's time.
 */
export function parseExpiry(month: unknown, year: unknown, now: Date, fields = { month: 'card_expiry_month', year: 'card_expiry_year' }): Result<{ month: number; year: number }> {
  const m = typeof month === 'number' ? String(month) : month;
  const y = typeof year === 'number' ? String(year) : year;
  if (typeof m !== 'string' || !/^[0-9]{1,2}$/.test(m.trim()) || Number(m) < 1 || Number(m) > 12) {
    return { error: `${fields.month} must be a month from 1 to 12` };
  }
  if (typeof y !== 'string' || !/^([0-9]{2}|[0-9]{4})$/.test(y.trim())) return { error: `${fields.year} must be a year of 2 or 4 digits` };
  const monthN = Number(m);
  let yearN = Number(y);
  if (yearN < 100) yearN += 2000;
  if (yearN < 2000 || yearN > 2199) return { error: `${fields.year} is out of range` };
  const nowY = now.getUTCFullYear();
  const nowM = now.getUTCMonth() + 1;
  if (yearN < nowY || (yearN === nowY && monthN < nowM)) return { error: 'The card has expired' };
  if (yearN > nowY + 50) return { error: `${fields.year} is too far in the future` };
  return { ok: { month: monthN, year: yearN } };
}

/** A card verification code: 3 or 4 digits (4 for AMEX). Used once, never stored. */
export function parseCvv(input: Secret<string> | undefined, expectedSize?: number): Result<Secret<string> | null> {
  if (input === undefined) return { ok: null };
  const v = input.reveal();
  if (typeof v !== 'string' || !/^[0-9]{3,4}$/.test(v)) return { error: 'card_cvv must be 3 or 4 digits' };
  if (expectedSize && v.length !== expectedSize) return { error: `card_cvv must be ${expectedSize} digits for this card` };
  return { ok: input };
}

/** Holder names: trimmed, 1 to 100 characters. */
export function parseHolder(input: unknown, field = 'card_holder'): Result<string> {
  if (typeof input !== 'string') return { error: `${field} must be a string` };
  const h = input.trim().replace(/\s+/g, ' ');
  if (h.length === 0) return { error: `${field} must not be empty` };
  if (h.length > 100) return { error: `${field} must be at most 100 characters` };
  return { ok: h };
}

/** `customer_ext_id` / `external_id`: a string or a number, kept as a string. */
export function parseExternalId(input: unknown, field = 'customer_ext_id'): Result<string> {
  if (typeof input === 'number' && Number.isFinite(input)) return { ok: String(input) };
  if (typeof input !== 'string') return { error: `${field} must be a string or a number` };
  const v = input.trim();
  if (v.length === 0) return { error: `${field} must not be empty` };
  if (v.length > 255) return { error: `${field} must be at most 255 characters` };
  return { ok: v };
}

/** What `presentSource` needs of a stored source. */
export interface SourceView {
  id: string;
  type: string;
  token: string;
  holder: string;
  bin: string | null;
  last4: string;
  brand: string | null;
  brand_description: string | null;
  card_type: string;
  country: string | null;
  bank: string;
  prepaid: boolean | null;
  expire_month: number | null;
  expire_year: number | null;
  additional: string | null;
  origin: string;
  is_saved: boolean;
  validation_date: Date | null;
  first_paid_at: Date | null;
  created_at: Date;
}

const OBJECT_OF_TYPE: Record<string, string> = {
  card: 'CARD',
  dynamic_card: 'DYNAMIC_CARD',
  bank: 'BANK_ACCOUNT',
  paypal: 'PAYPAL',
  tap_to_pay: 'TAP_TO_PAY',
  ecopaynet: 'ECOPAYNET',
};

const pad2 = (n: number) => String(n).padStart(2, '0');

/**
 * The Source record of api.md, fields in the order api.md lists them. Never more of the number than
 * the BIN and the last 4.
 */
export function presentSource(s: SourceView) {
  const isCard = s.type === 'card' || s.type === 'dynamic_card' || s.type === 'tap_to_pay';
  return {
    object: OBJECT_OF_TYPE[s.type] ?? s.type.toUpperCase(),
    par: null,
    uuid: s.id,
    type: s.card_type,
    token: s.token,
    brand: s.brand ?? '',
    country: s.country ?? '',
    holder: s.holder,
    bin: s.bin === null ? null : Number(s.bin),
    last4: s.last4,
    is_saved: s.is_saved,
    expire_month: s.expire_month === null ? null : pad2(s.expire_month),
    expire_year: s.expire_year === null ? null : pad2(s.expire_year % 100),
    additional: s.additional,
    bank: s.bank,
    prepaid: s.prepaid === null ? ('' as const) : s.prepaid,
    validation_date: s.validation_date ? s.validation_date.toISOString() : null,
    creation_date: s.created_at.toISOString(),
    brand_description: s.brand_description,
    origin: s.origin,
    cof: { is_available: isCard && isValidSource(s) },
  };
}

/**
 * An entry of a card listing (F10, F11; decisions §10): the Source record, the service that validated
 * the card or charged it first (null when none has), and whether a black list of that service holds it.
 */
export function presentListedSource(s: SourceView & { tokenization_service_id: string | null }, isBlacklisted: boolean) {
  return { ...presentSource(s), tokenization_service_uuid: s.tokenization_service_id, is_blacklisted: isBlacklisted };
}

/** decisions §6: valid sources were validated at storage or used in a successful payment. */
export function isValidSource(s: { validation_date: Date | null; first_paid_at: Date | null }): boolean {
  return s.validation_date !== null || s.first_paid_at !== null;
}

export type ListStatus = 'VALIDATED' | 'ALL';

/**
 * Listing semantics (decisions §6 and §10), applied to a customer's sources given oldest first
 * (insertion order) and returned in that order: `status=VALIDATED` keeps the valid ones; then
 * `unique=true` keeps, per keyed fingerprint, only the newest entry. (Filtering comes first, so a card
 * stored valid and stored again unvalidated still lists once.)
 */
export function selectListing<T extends { fingerprint: string; validation_date: Date | null; first_paid_at: Date | null }>(
  oldestFirst: T[],
  opts: { status: ListStatus; unique: boolean },
): T[] {
  const filtered = opts.status === 'VALIDATED' ? oldestFirst.filter(isValidSource) : oldestFirst;
  if (!opts.unique) return filtered;
  const newest = new Map<string, T>();
  for (const r of filtered) newest.set(r.fingerprint, r);
  return filtered.filter((r) => newest.get(r.fingerprint) === r);
}

/** An IBAN (spaces allowed, any case): checksum and country format checked with ibantools. */
export function parseIban(input: string): Result<{ iban: Secret<string>; country: string; last4: string }> {
  const compact = input.replace(/[\s-]/g, '').toUpperCase();
  if (!/^[A-Z]{2}[0-9]{2}[A-Z0-9]{8,30}$/.test(compact) || !ibantools.isValidIBAN(compact)) {
    return { error: 'iban is not a valid IBAN' };
  }
  return { ok: { iban: new Secret(compact), country: compact.slice(0, 2), last4: compact.slice(-4) } };
}

/** The notification schedule of decisions §7 (after the first try), in seconds. */
export const NOTIFICATION_RETRIES_S = [60, 300, 900, 3600, 10800, 21600, 43200, 86400, 172800, 259200];

/** Parses the comma-separated `sourceType` filter; null means every type. */
export function parseSourceTypes(input: string | undefined): Result<SourceType[] | null> {
  if (input === undefined || input.trim() === '') return { ok: null };
  const types = input.split(',').map((s) => s.trim()).filter(Boolean);
  const bad = types.filter((t) => !(SOURCE_TYPES as readonly string[]).includes(t));
  if (bad.length > 0) return { error: `sourceType must be a comma-separated list of: ${SOURCE_TYPES.join(', ')}` };
  return { ok: types as SourceType[] };
}

/** `unique` query flag: boolean or "true"/"false"/"1"/"0"; default false. */
export function parseFlag(v: unknown): boolean {
  return v === true || v === 'true' || v === '1';
}
