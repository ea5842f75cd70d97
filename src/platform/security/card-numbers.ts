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
 * In text, digits may be grouped by single spaces or dashes (4548 8120 4940 0004). Every run of
 * consecutive groups is tried, so a card number next to another number (`order 12 4548 8120 …`) is still
 * found; a run of more than 19 digits with no separator is not a card number.
 */
import cardValidator from 'card-validator';

type CardType = { type: string; lengths: number[] };
const cardTypes = ((cardValidator.creditCardType as unknown as { default?: unknown }).default ?? cardValidator.creditCardType) as unknown as (n: string) => CardType[];

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
  if (digits.length < CARD_NUMBER_MIN || digits.length > CARD_NUMBER_MAX || !/^[0-9]+$/.test(digits)) return false;
  if (!luhn(digits)) return false;
  return cardTypes(digits).some((t) => t.lengths.includes(digits.length));
}

/** Runs of digit groups (single spaces or dashes between groups). */
const RUN = /\d+(?:[ -]\d+)*/g;

/** The [start, end) spans of `text` that are card numbers (whole groups of a run), leftmost first. */
export function cardNumberSpans(text: string): Array<[number, number]> {
  const spans: Array<[number, number]> = [];
  if (!/\d{4}/.test(text) && !/\d[ -]\d/.test(text)) return spans; // cheap exit: no run long enough
  for (const m of text.matchAll(RUN)) {
    const run = m[0];
    if (run.length < CARD_NUMBER_MIN) continue;
    const base = m.index ?? 0;
    // the groups of the run and where each starts
    const groups: Array<{ at: number; digits: string }> = [];
    for (const g of run.matchAll(/\d+/g)) groups.push({ at: base + (g.index ?? 0), digits: g[0] });
    let i = 0;
    while (i < groups.length) {
      let digits = '';
      let hit = -1;
      for (let j = i; j < groups.length; j++) {
        digits += groups[j].digits;
        if (digits.length > CARD_NUMBER_MAX) break;
        if (digits.length >= CARD_NUMBER_MIN && isCardNumber(digits)) hit = j;
      }
      if (hit >= 0) {
        spans.push([groups[i].at, groups[hit].at + groups[hit].digits.length]);
        i = hit + 1;
      } else {
        i++;
      }
    }
  }
  return spans;
}

/** True when `text` carries a card number anywhere (see the module comment). */
export function containsCardNumber(text: string): boolean {
  return cardNumberSpans(text).length > 0;
}

/**
 * `text` with every card number in it masked to its BIN and last 4 (`454881******0004`), the most of a
 * card number that may be shown; everything else is left as it is.
 */
export function redactCardNumbers(text: string): string {
  const spans = cardNumberSpans(text);
  if (spans.length === 0) return text;
  let out = '';
  let at = 0;
  for (const [s, e] of spans) {
    const digits = text.slice(s, e).replace(/[ -]/g, '');
    out += text.slice(at, s) + digits.slice(0, 6) + '*'.repeat(digits.length - 10) + digits.slice(-4);
    at = e;
  }
  return out + text.slice(at);
}
