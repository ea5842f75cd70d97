/**
 * The money path's database round trips stay at or under their targets (a payment ≤ 3, a refund ≤ 4, a
 * read 1): counted statements, not time. A change that adds a query to a hot step fails here.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp, type TestMerchant } from '../helpers/app.js';
import { countRoundTrips, ROUND_TRIP_TARGETS, type RoundTrips } from '../helpers/roundtrips.js';

let t: TestApp;
let m: TestMerchant;

beforeAll(async () => {
  t = await createTestApp();
  m = await t.merchant({ isPci: true });
});
afterAll(async () => t?.close());

describe('round trips of the money path', () => {
  it('create, payment, refund and read stay at or under their targets', async () => {
    const counts = await countRoundTrips(t, m);
    for (const step of Object.keys(ROUND_TRIP_TARGETS) as Array<keyof RoundTrips>) {
      expect(counts[step], `${step}: ${JSON.stringify(counts)}`).toBeLessThanOrEqual(ROUND_TRIP_TARGETS[step]);
    }
  });
});
