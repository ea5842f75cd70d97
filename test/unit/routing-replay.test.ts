/**
 * Routing's fee model and the replay's arithmetic, pure: a card's region, the most specific fee line,
 * the fee's rounding, the problems of a model by field; the replay's approval rate falling back from
 * BIN to brand to service to overall at the minimum of observations, its fees weighted by the expected
 * approval, its totals and difference; and (seeded property) replaying each payment onto the service it
 * went to, with every rate by BIN, expects exactly the approvals that happened.
 */
import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { feeLineFor, feeModelProblems, feeOf, regionOf, type FeeModel } from '../../src/modules/routing/routing.fees.js';
import { ReplayTally, type ReplayPayment } from '../../src/modules/routing/routing.replay.js';
import { useTestSeed } from '../helpers/seed.js';

useTestSeed(import.meta.url);

describe('fees', () => {
  const model: FeeModel = {
    merchant_country: 'ES',
    lines: [
      { card_type: 'ANY', region: 'ANY', percent_bp: 200, fixed: 0 },
      { card_type: 'ANY', region: 'INTRA_EEA', percent_bp: 90, fixed: 1 },
      { card_type: 'DEBIT', region: 'ANY', percent_bp: 30, fixed: 2 },
      { card_type: 'DEBIT', region: 'DOMESTIC', percent_bp: 20, fixed: 3 },
    ],
  };

  it('a card\'s region: domestic, within the EEA, international, unknown', () => {
    expect(regionOf('ES', 'ES')).toBe('DOMESTIC');
    expect(regionOf('FR', 'ES')).toBe('INTRA_EEA');
    expect(regionOf('NO', 'DE')).toBe('INTRA_EEA');
    expect(regionOf('US', 'ES')).toBe('INTERNATIONAL');
    expect(regionOf('ES', 'GB')).toBe('INTERNATIONAL');
    expect(regionOf(null, 'ES')).toBeNull();
    expect(regionOf('ES', null)).toBeNull();
  });

  it('the most specific line: card type and region, card type, region, any', () => {
    expect(feeLineFor(model, 'DEBIT', 'DOMESTIC')?.fixed).toBe(3);
    expect(feeLineFor(model, 'DEBIT', 'INTRA_EEA')?.fixed).toBe(2);
    expect(feeLineFor(model, 'DEBIT', null)?.fixed).toBe(2);
    expect(feeLineFor(model, 'CREDIT', 'INTRA_EEA')?.fixed).toBe(1);
    expect(feeLineFor(model, null, 'INTRA_EEA')?.fixed).toBe(1);
    expect(feeLineFor(model, 'CREDIT', 'DOMESTIC')?.fixed).toBe(0);
    expect(feeLineFor(model, null, null)?.fixed).toBe(0);
    expect(feeLineFor({ merchant_country: null, lines: [model.lines[3]] }, 'CREDIT', 'DOMESTIC')).toBeNull();
  });

  it('a fee is the percentage rounded half up plus the fixed part', () => {
    expect(feeOf({ card_type: 'ANY', region: 'ANY', percent_bp: 150, fixed: 10 }, 1000)).toBe(25);
    expect(feeOf({ card_type: 'ANY', region: 'ANY', percent_bp: 150, fixed: 0 }, 1033)).toBe(15); // 15.495
    expect(feeOf({ card_type: 'ANY', region: 'ANY', percent_bp: 150, fixed: 0 }, 1034)).toBe(16); // 15.51
    expect(feeOf({ card_type: 'ANY', region: 'ANY', percent_bp: 50, fixed: 0 }, 100)).toBe(1); // 0.5
  });

  it('the problems of a model, by field', () => {
    expect(feeModelProblems(model)).toEqual([]);
    expect(feeModelProblems({ merchant_country: 'es', lines: [
      { card_type: 'GOLD' as 'ANY', region: 'ANY', percent_bp: -1, fixed: 1.5 },
      { card_type: 'ANY', region: 'MARS' as 'ANY', percent_bp: 10_001, fixed: 0 },
      { card_type: 'ANY', region: 'ANY', percent_bp: 0, fixed: 0 },
      { card_type: 'ANY', region: 'ANY', percent_bp: 0, fixed: 0 },
    ] }).map((p) => p.field)).toEqual(['merchant_country', 'fees[0].card_type', 'fees[0].percent_bp', 'fees[0].fixed', 'fees[1].region', 'fees[1].percent_bp', 'fees[3]']);
  });
});

const pay = (over: Partial<ReplayPayment>): ReplayPayment => ({
  amount: 1000, bin: '454881', brand: 'VISA', card_type: null, issuer_country: null, actual_service: 'A', approved: true, replayed_service: 'A', ...over,
});

describe('the replay\'s figures', () => {
  it('rates fall back from BIN to brand to service to overall at the minimum of observations', () => {
    const tally = new ReplayTally(() => null);
    // A: 454881 x3 (2 approved), 411111 x1 (declined); B: MASTERCARD 515079 x2 (1 approved)
    for (const approved of [true, true, false]) tally.add(pay({ approved }));
    tally.add(pay({ bin: '411111', approved: false }));
    for (const approved of [true, false]) tally.add(pay({ bin: '515079', brand: 'MASTERCARD', actual_service: 'B', replayed_service: 'B', approved }));
    expect(tally.rateOf('A', '454881', 'VISA', 3)).toEqual({ rate: 2 / 3, source: 'BIN' });
    expect(tally.rateOf('A', '411111', 'VISA', 3)).toEqual({ rate: 0.5, source: 'BRAND' });
    expect(tally.rateOf('A', null, 'VISA', 3)).toEqual({ rate: 0.5, source: 'BRAND' });
    expect(tally.rateOf('A', '411111', 'VISA', 5)).toEqual({ rate: 0.5, source: 'OVERALL' });
    expect(tally.rateOf('B', '454881', 'VISA', 2)).toEqual({ rate: 0.5, source: 'SERVICE' });
    expect(tally.rateOf('C', '454881', 'VISA', 1)).toEqual({ rate: 0.5, source: 'OVERALL' });
    expect(tally.rateOf('A', '411111', 'VISA', 1)).toEqual({ rate: 0, source: 'BIN' });
  });

  it('expected fees are the fees on the chosen service times the expected approval; actual fees only on approvals', () => {
    const fees: Record<string, FeeModel> = {
      A: { merchant_country: 'ES', lines: [{ card_type: 'ANY', region: 'ANY', percent_bp: 100, fixed: 0 }] },
      B: { merchant_country: 'ES', lines: [{ card_type: 'DEBIT', region: 'DOMESTIC', percent_bp: 0, fixed: 7 }] },
    };
    const tally = new ReplayTally((s) => fees[s] ?? null);
    // 4 DEBIT ES payments of 1000 on A, 3 approved; replayed: 2 stay on A, 2 go to B (no history there)
    const debit = { card_type: 'DEBIT', issuer_country: 'ES' };
    tally.add(pay({ ...debit, approved: true }));
    tally.add(pay({ ...debit, approved: true }));
    tally.add(pay({ ...debit, approved: true, replayed_service: 'B' }));
    tally.add(pay({ ...debit, approved: false, replayed_service: 'B' }));
    const f = tally.figures(1);
    const [a, b] = f.services;
    expect(a).toEqual({
      service_uuid: 'A',
      replayed: { payments: 2, amount: 2000, expected_approvals: 1.5, expected_approval_rate: 0.75, expected_fees: 15, unpriced: 0, rate_sources: { bin: 2, brand: 0, service: 0, overall: 0 } },
      actual: { payments: 4, amount: 4000, approvals: 3, approval_rate: 0.75, fees: 30, unpriced: 0 },
    });
    // on B: no history, the overall rate 0.75; the fee 7 each
    expect(b.replayed).toMatchObject({ payments: 2, expected_approvals: 1.5, expected_fees: 11, rate_sources: { overall: 2 } });
    expect(b.actual).toMatchObject({ payments: 0, approval_rate: null });
    // 15 + 10.5 = 25.5, rounded once at the end: 26
    expect(f.totals.replayed).toMatchObject({ payments: 4, expected_approvals: 3, expected_fees: 26 });
    expect(f.totals.difference).toEqual({ approvals: 0, approval_rate: 0, fees: -4 });
  });

  it('nothing replayed: empty figures, no rate', () => {
    const f = new ReplayTally(() => null).figures(5);
    expect(f.services).toEqual([]);
    expect(f.totals.replayed.expected_approval_rate).toBeNull();
    expect(f.totals.difference).toEqual({ approvals: 0, approval_rate: null, fees: 0 });
  });

  it('property: each payment replayed onto its own service, rates by BIN, expects exactly the approvals that happened', () => {
    const payment = fc.record({
      bin: fc.constantFrom('454881', '411111', '515079', '222100'),
      brand: fc.constantFrom('VISA', 'MASTERCARD'),
      service: fc.constantFrom('A', 'B', 'C'),
      approved: fc.boolean(),
      amount: fc.integer({ min: 1, max: 100_000 }),
    });
    fc.assert(fc.property(fc.array(payment, { minLength: 1, maxLength: 200 }), (ps) => {
      const tally = new ReplayTally(() => null);
      for (const p of ps) tally.add(pay({ bin: p.bin, brand: p.brand, actual_service: p.service, replayed_service: p.service, approved: p.approved, amount: p.amount }));
      const f = tally.figures(1);
      const approved = ps.filter((p) => p.approved).length;
      expect(f.totals.actual.approvals).toBe(approved);
      expect(f.totals.replayed.expected_approvals).toBeCloseTo(approved, 6);
      expect(f.totals.replayed.rate_sources.bin).toBe(ps.length);
      expect(f.totals.replayed.amount).toBe(ps.reduce((s, p) => s + p.amount, 0));
      for (const s of f.services) expect(s.replayed.expected_approvals).toBeCloseTo(s.actual.approvals, 6);
    }));
  });
});
