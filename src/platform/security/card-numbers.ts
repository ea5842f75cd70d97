/**
 * What a card number is, for every check that keeps card numbers out of free text, logs and URLs
 * (the input guard in http/pan-guard.ts, the CSV reader, the request log, the logged URLs).
 *
 * A card number is a run of digits that
 *  - passes the Luhn check,
 *  - starts with a prefix in a card brand's issuer ranges, and
 *  - has a length that brand uses
 * (the ranges and lengths are card-validator's, the library the card fields are checked with). Any other
 * number passes: an EAN-13 product code (8412345678907), a millisecond timestamp (1763769600000), an
 * order number that happens to pass Luhn.
 *
 * In text, digits may be grouped by single spaces or dashes the way card numbers are written: in fours
 * (4548 8120 4940 0004, 6759 6498 2643 8453 123, the last group shorter), or 4-6-5 and 4-6-4 (American
 * Express, Diners). Every run of consecutive groups is tried, so a card number next to another number
 * (`order 12 4548 8120 …`) is still found. Groups joined in any other way are not one number: a plugin's
 * `<order id>-<unix time>` reference (63621-1796608201) passes Luhn in a card range by chance, but no
 * card number is written 5-10. A run of more than 19 digits with no separator is not a card number.
 *
 * What is redacted before it is logged or shown (`redactCardNumbers`, the logged URLs, the request log)
 * is read more widely, groups joined in any way (`anyGrouping`): hiding a number that only looks like a
 * card costs nothing there, where refusing a merchant's reference stops a checkout.
 */
import cardValidator from 'card-validator';

type CreditCardType = { types: Record<string, string>; getTypeInfo(type: string): { patterns: Array<number | [number, number]>; lengths: number[] } };
const creditCardType = ((cardValidator.creditCardType as unknown as { default?: unknown }).default ?? cardValidator.creditCardType) as unknown as CreditCardType;

/**
 * Every brand's issuer ranges and lengths, read once from card-validator's brand table (credit-card-type,
 * the table the card fields are checked with): a prefix (`4`, `63`) or a range of prefixes of one length
 * ([`2221`, `2720`]) and the lengths the brand uses. Matching them here, not through the library's
 * lookup (which copies every brand record on each call), keeps the guard cheap on every request.
 */
const BRANDS = Object.values(creditCardType.types).map((type) => {
  const info = creditCardType.getTypeInfo(type);
  return {
    lengths: new Set(info.lengths),
    prefixes: info.patterns.map((p) => (Array.isArray(p) ? { size: String(p[0]).length, min: p[0], max: p[1] } : { size: String(p).length, min: p, max: p })),
  };
});

function inBrandRange(digits: string): boolean {
  for (const b of BRANDS) {
    if (!b.lengths.has(digits.length)) continue;
    for (const p of b.prefixes) {
      const head = Number(digits.slice(0, p.size));
      if (head >= p.min && head <= p.max) return true;
    }
  }
  return false;
}

/** Shortest and longest card number of any brand. */
export const CARD_NUMBER_MIN = 12;
export const CARD_NUMBER_MAX = 19;

export function luhn(digits: string): boolean {
  let sum = 0;
  for (let i = 0; i < digits.length; i++) {
    let d = digits.charCodeAt(digits.length - 1 - i) - 48;
    if (d < 0 || d > 9) return false;
    if (i % 2 === 1) {
      d *= 2;
      if (d > 9) d -= 9;
    }
    sum += d;
  }
  return digits.length > 0 && sum % 10 === 0;
}

/** True when `digits` (digits only) is a card number: Luhn-valid, in a brand's ranges, of that brand's length. */
export function isCardNumber(digits: string): boolean {
  if (digits.length < CARD_NUMBER_MIN || digits.length > CARD_NUMBER_MAX) return false;
  for (let k = 0; k < digits.length; k++) if (!isDigit(digits.charCodeAt(k))) return false;
  return luhn(digits) && inBrandRange(digits);
}

const isDigit = (c: number) => c >= 48 && c <= 57;

/**
 * Identifiers whose digits are no card number however they fall: UUIDs (the gateway's own ids, whose
 * digit groups joined by their dashes can pass every check) and hexadecimal tokens of 16 characters or
 * more with at least one letter (page tokens, hashes). They are blanked (same length, so spans keep
 * their places) before the digits are read.
 */
const IDENTIFIER = /[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}|(?<![0-9a-z])(?=[0-9]*[a-f])[0-9a-f]{16,}(?![0-9a-z])/gi;

/**
 * True when groups of these lengths are a card number's way of being written: one unbroken group, groups
 * of four with a last one of one to four, or 4-6-5 / 4-6-4.
 */
function cardGrouping(lengths: number[]): boolean {
  if (lengths.length === 1) return true;
  if (lengths.length === 3 && lengths[0] === 4 && lengths[1] === 6 && (lengths[2] === 5 || lengths[2] === 4)) return true;
  for (let k = 0; k < lengths.length - 1; k++) if (lengths[k] !== 4) return false;
  const last = lengths[lengths.length - 1];
  return last >= 1 && last <= 4;
}

/** How digit groups may be joined into one number: as card numbers are written (the guard), or any way (redaction). */
export interface GroupingOptions {
  anyGrouping?: boolean;
}

/** The [start, end) spans of `text` that are card numbers (whole groups of a run), leftmost first. */
export function cardNumberSpans(input: string, opts: GroupingOptions = {}): Array<[number, number]> {
  const grouped = opts.anyGrouping ? () => true : cardGrouping;
  const spans: Array<[number, number]> = [];
  const n = input.length;
  // most texts (names, URLs, ids, a JSON answer's dates and uuids) hold no run of twelve digits, even
  // across single spaces or dashes: one pass without allocating decides
  let run = 0;
  let longest = 0;
  for (let k = 0; k < n && longest < CARD_NUMBER_MIN; k++) {
    const c = input.charCodeAt(k);
    if (isDigit(c)) {
      if (++run > longest) longest = run;
    } else if (!((c === 32 || c === 45) && k > 0 && isDigit(input.charCodeAt(k - 1)) && k + 1 < n && isDigit(input.charCodeAt(k + 1)))) run = 0;
  }
  if (longest < CARD_NUMBER_MIN) return spans;
  const text = input.replace(IDENTIFIER, (id) => '_'.repeat(id.length));
  let i = 0;
  while (i < n) {
    if (!isDigit(text.charCodeAt(i))) {
      i++;
      continue;
    }
    // a run: groups of digits, a single space or dash between two groups
    const groups: Array<[number, number]> = [];
    let at = i;
    let total = 0;
    for (;;) {
      let j = at;
      while (j < n && isDigit(text.charCodeAt(j))) j++;
      groups.push([at, j]);
      total += j - at;
      const sep = text.charCodeAt(j);
      if (j + 1 < n && (sep === 32 || sep === 45) && isDigit(text.charCodeAt(j + 1))) {
        at = j + 1;
        continue;
      }
      i = j;
      break;
    }
    if (total < CARD_NUMBER_MIN) continue;
    let g = 0;
    while (g < groups.length) {
      let digits = '';
      let hit = -1;
      const lengths: number[] = [];
      for (let h = g; h < groups.length; h++) {
        digits += text.slice(groups[h][0], groups[h][1]);
        lengths.push(groups[h][1] - groups[h][0]);
        if (digits.length > CARD_NUMBER_MAX) break;
        if (digits.length >= CARD_NUMBER_MIN && grouped(lengths) && isCardNumber(digits)) hit = h;
      }
      if (hit >= 0) {
        spans.push([groups[g][0], groups[hit][1]]);
        g = hit + 1;
      } else {
        g++;
      }
    }
  }
  return spans;
}

/** True when `text` carries a card number anywhere (see the module comment). */
export function containsCardNumber(text: string, opts: GroupingOptions = {}): boolean {
  return cardNumberSpans(text, opts).length > 0;
}

/** BIN and last 4 (`454881******0004`): the most of a card number that may be shown. */
export const maskCardNumber = (digits: string) => digits.slice(0, 6) + '*'.repeat(digits.length - 10) + digits.slice(-4);

/**
 * `text` with every card number in it, groups joined any way, replaced by `mask(digits)` (by default
 * masked to its BIN and last 4); everything else is left as it is.
 */
export function redactCardNumbers(text: string, mask: (digits: string) => string = maskCardNumber): string {
  const spans = cardNumberSpans(text, { anyGrouping: true });
  if (spans.length === 0) return text;
  let out = '';
  let at = 0;
  for (const [s, e] of spans) {
    const digits = text.slice(s, e).replace(/[ -]/g, '');
    out += text.slice(at, s) + mask(digits);
    at = e;
  }
  return out + text.slice(at);
}
