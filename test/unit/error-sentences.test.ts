/** Validation problems told as sentences (issue 30 item 12): patterns and amounts in major units. */
import { describe, expect, it } from 'vitest';
import { amountProblem, describePattern } from '../../src/platform/http/platform.js';

describe('problems as sentences', () => {
  it('patterns are described, never shown as regular expressions', () => {
    expect(describePattern('^[0-9]{4}$', 'YYMM')).toBe('must be 4 digits (YYMM)');
    expect(describePattern('^[0-9]{1,12}$')).toBe('must be 1 to 12 digits');
    expect(describePattern('^[A-Z]{3}$')).toBe('must be 3 upper-case letters');
    expect(describePattern('^[0-9]+$')).toBe('must be digits only');
    expect(describePattern('^-?[0-9]+$')).toBe('must be a whole number');
    expect(describePattern('^#[0-9A-Fa-f]{6}$', 'colour #RRGGBB')).toBe('must be colour #RRGGBB');
    expect(describePattern('^(a|b)+x$')).toBe('is not in the format the API reference shows for it');
  });

  it('an amount in major units is told its minor units', () => {
    expect(amountProblem('10.50')).toBe('must be an integer: amounts are in minor units of the currency (10.50 in a currency with cents is 1050)');
    expect(amountProblem(10.5)).toContain('is 1050)');
    expect(amountProblem('19,99')).toContain('19.99 in a currency with cents is 1999');
    expect(amountProblem('ten')).toContain('(10.50 in a currency with cents is 1050)');
  });
});
