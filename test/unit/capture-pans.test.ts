/**
 * The card-data scan learns every card number a request carried, from any field (issue 31), not only
 * from the card fields: body values and keys at any depth, JSON inside strings, the query, the URL and
 * the Idempotency-Key header. Ordinary numbers are not learnt.
 */
import { describe, expect, it } from 'vitest';
import { decodedUrl, pansAnywhere } from '../helpers/capture.js';

const PAN = '4548812049400004';

describe('pansAnywhere', () => {
  it('finds card numbers in any field, key, query, URL or header', () => {
    expect(pansAnywhere({ reference: `r-${PAN}` })).toEqual([PAN]);
    expect(pansAnywhere({ metadata: { [PAN]: 'x' } })).toEqual([PAN]);
    expect(pansAnywhere({ n: 4111111111111111 })).toEqual(['4111111111111111']);
    expect(pansAnywhere(JSON.stringify({ a: [{ b: '4548 8120 4940 0004' }] }))).toEqual([PAN]);
    expect(pansAnywhere({ q: PAN })).toEqual([PAN]);
    expect(pansAnywhere(decodedUrl('/v1/orders?reference=4548%208120%204940%200004'))).toEqual([PAN]);
    expect(pansAnywhere(`key-${PAN}`)).toEqual([PAN]);
  });

  it('leaves ordinary numbers out', () => {
    expect(pansAnywhere({ ean: '8412345678907', at: 1763769600000, ref: '4548812049400005' })).toEqual([]);
  });
});
