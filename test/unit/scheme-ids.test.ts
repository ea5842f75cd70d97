/** The simulators' scheme transaction ids are never card numbers (they are stored and sent back). */
import { describe, expect, it } from 'vitest';
import { isCardNumber } from '../../src/platform/security/card-numbers.js';
import { schemeTransactionId } from '../../src/processors/scheme-ids.js';

describe('scheme transaction ids', () => {
  it('a drawn id that is a card number (an American Express or Maestro number) is drawn again', () => {
    const draws = ['378282246310005', '563929000000009', '123456789012345'];
    expect(draws.slice(0, 2).every(isCardNumber)).toBe(true);
    let i = 0;
    expect(schemeTransactionId(() => draws[i++]!)).toBe('123456789012345');
    expect(i).toBe(3);
  });

  it('gives 15 digits, never a card number', () => {
    for (let n = 0; n < 20_000; n++) {
      const id = schemeTransactionId();
      expect(id).toMatch(/^\d{15}$/);
      expect(isCardNumber(id)).toBe(false);
    }
  });
});
