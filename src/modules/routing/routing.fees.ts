/**
 * The fee model of a service (docs/routing.md "Fees"), pure: what a payment costs on a service, a
 * percentage in basis points of its amount plus a fixed part in minor units, by card type and region.
 * The most specific line applies: the card type and the region both named, then the card type with ANY
 * region, then ANY card type with the region, then ANY with ANY; no line: no fee known (0, counted apart).
 */
import { CARD_TYPES } from './routing.domain.js';
import type { FieldProblem } from './routing.domain.js';

export const FEE_CARD_TYPES = [...CARD_TYPES, 'ANY'] as const;
export type FeeCardType = (typeof FEE_CARD_TYPES)[number];
export const FEE_REGIONS = ['DOMESTIC', 'INTRA_EEA', 'INTERNATIONAL', 'ANY'] as const;
export type FeeRegion = (typeof FEE_REGIONS)[number];
export type Region = Exclude<FeeRegion, 'ANY'>;

/** The most lines a model holds: one per card type and region. */
export const MAX_FEE_LINES = FEE_CARD_TYPES.length * FEE_REGIONS.length;
export const MAX_PERCENT_BP = 10_000;
export const MAX_FIXED = 100_000_000;

export interface FeeLine {
  card_type: FeeCardType;
  region: FeeRegion;
  /** basis points of the amount (100 = 1 %) */
  percent_bp: number;
  /** minor units of the payment's currency */
  fixed: number;
}

export interface FeeModel {
  /** the merchant's country for this service (ISO 3166 alpha-2); null: regions unknown */
  merchant_country: string | null;
  lines: FeeLine[];
}

/** The European Economic Area: the 27 members of the European Union, Iceland, Liechtenstein and Norway. */
export const EEA = new Set([
  'AT', 'BE', 'BG', 'HR', 'CY', 'CZ', 'DK', 'EE', 'FI', 'FR', 'DE', 'GR', 'HU', 'IE', 'IT', 'LV', 'LT', 'LU',
  'MT', 'NL', 'PL', 'PT', 'RO', 'SK', 'SI', 'ES', 'SE', 'IS', 'LI', 'NO',
]);

/** A card's region for a merchant: null when either country is not known (only ANY lines apply then). */
export function regionOf(issuerCountry: string | null | undefined, merchantCountry: string | null | undefined): Region | null {
  if (!issuerCountry || !merchantCountry) return null;
  if (issuerCountry === merchantCountry) return 'DOMESTIC';
  if (EEA.has(issuerCountry) && EEA.has(merchantCountry)) return 'INTRA_EEA';
  return 'INTERNATIONAL';
}

/** The line that prices a payment of this card type and region (null: unknown), or null when none does. */
export function feeLineFor(model: FeeModel, cardType: string | null | undefined, region: Region | null): FeeLine | null {
  const find = (c: string, r: string) => model.lines.find((l) => l.card_type === c && l.region === r) ?? null;
  return (cardType && region ? find(cardType, region) : null)
    ?? (cardType ? find(cardType, 'ANY') : null)
    ?? (region ? find('ANY', region) : null)
    ?? find('ANY', 'ANY');
}

/** The fee of `amount` (minor units) under a line: the percentage rounded half up, plus the fixed part. */
export function feeOf(line: FeeLine, amount: number): number {
  return Math.round((amount * line.percent_bp) / 10_000) + line.fixed;
}

/** The problems of a model as written, each named by its field. */
export function feeModelProblems(m: FeeModel): FieldProblem[] {
  const out: FieldProblem[] = [];
  if (m.merchant_country !== null && !/^[A-Z]{2}$/.test(m.merchant_country)) out.push({ field: 'merchant_country', problem: 'must be an ISO 3166 alpha-2 country code in capitals (ES, FR...)' });
  if (m.lines.length > MAX_FEE_LINES) out.push({ field: 'fees', problem: `has ${m.lines.length} lines: at most ${MAX_FEE_LINES}` });
  const seen = new Map<string, number>();
  m.lines.forEach((l, i) => {
    const at = `fees[${i}]`;
    if (!(FEE_CARD_TYPES as readonly string[]).includes(l.card_type)) out.push({ field: `${at}.card_type`, problem: `must be one of ${FEE_CARD_TYPES.join(', ')}` });
    if (!(FEE_REGIONS as readonly string[]).includes(l.region)) out.push({ field: `${at}.region`, problem: `must be one of ${FEE_REGIONS.join(', ')}` });
    if (!Number.isInteger(l.percent_bp) || l.percent_bp < 0 || l.percent_bp > MAX_PERCENT_BP) out.push({ field: `${at}.percent_bp`, problem: `must be an integer from 0 to ${MAX_PERCENT_BP} (basis points)` });
    if (!Number.isInteger(l.fixed) || l.fixed < 0 || l.fixed > MAX_FIXED) out.push({ field: `${at}.fixed`, problem: `must be an integer from 0 to ${MAX_FIXED} (minor units)` });
    const key = `${l.card_type}/${l.region}`;
    const before = seen.get(key);
    if (before !== undefined) out.push({ field: at, problem: `repeats card_type ${l.card_type} and region ${l.region} of fees[${before}]` });
    else seen.set(key, i);
  });
  return out;
}
