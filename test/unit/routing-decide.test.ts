/**
 * The routing decision, pure (seeded property tests): the same input gives the same decision; each
 * condition type matches and mismatches; a split's proportions over many orders; fallbacks in order,
 * without duplicates, capped; open circuits skipped and named; and the profile's validation.
 */
import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { randomUUID } from 'node:crypto';
import { compileProfile, profileProblems, type Condition, type Facts, type Profile, type Rule } from '../../src/modules/routing/routing.domain.js';
import { decide, fnv1a } from '../../src/modules/routing/routing.decide.js';
import { rng, useTestSeed } from '../helpers/seed.js';

useTestSeed(import.meta.url);

const ENTRY = '00000000-0000-4000-8000-000000000000';
const S = Array.from({ length: 8 }, (_, i) => `00000000-0000-4000-8000-00000000000${i + 1}`);

function uuidFrom(r: () => number): string {
  const hex = () => Math.floor(r() * 16).toString(16);
  const s = Array.from({ length: 32 }, hex).join('');
  return `${s.slice(0, 8)}-${s.slice(8, 12)}-4${s.slice(13, 16)}-8${s.slice(17, 20)}-${s.slice(20, 32)}`;
}

const profile = (rules: Rule[], max = 3): Profile => ({ id: 'p', service_uuid: ENTRY, name: 'p', status: 'ACTIVE', max_attempts: max, version: 1, rules });
const facts = (over: Partial<Facts> = {}): Facts => ({
  entry_service_uuid: ENTRY, order_uuid: '3c9a7e52-1b4d-4f0e-8a6b-9d2f5c1e7a34', amount: 2500, currency: 'EUR', brand: 'VISA', bin: '45488120',
  issuer_country: 'ES', card_type: 'DEBIT', customer_country: 'ES', channel: 'ECOMMERCE', metadata: { tier: 'gold' }, ...over,
});
const only = (c: Condition): Rule[] => [{ name: 'r', conditions: [c], action: { type: 'service', service_uuid: S[0], fallbacks: [] } }];
const matched = (c: Condition, f: Facts) => decide(compileProfile(profile(only(c))), f).rule === 'r';

describe('conditions: each type matches and mismatches', () => {
  const cases: Array<{ c: Condition; yes: Partial<Facts>[]; no: Partial<Facts>[] }> = [
    { c: { type: 'brand', values: ['VISA', 'AMEX'] }, yes: [{ brand: 'VISA' }, { brand: 'AMEX' }], no: [{ brand: 'MASTERCARD' }, { brand: null }] },
    { c: { type: 'bin', ranges: [{ from: '454881', to: '454881' }, { from: '51000000', to: '51999999' }] }, yes: [{ bin: '45488120' }, { bin: '454881' }, { bin: '51234567' }], no: [{ bin: '45488200' }, { bin: '512345' }, { bin: null }] },
    { c: { type: 'issuer_country', values: ['ES'] }, yes: [{ issuer_country: 'ES' }], no: [{ issuer_country: 'FR' }, { issuer_country: null }, { issuer_country: undefined }] },
    { c: { type: 'card_type', values: ['CREDIT', 'PREPAID'] }, yes: [{ card_type: 'CREDIT' }, { card_type: 'PREPAID' }], no: [{ card_type: 'DEBIT' }, { card_type: null }] },
    { c: { type: 'currency', values: ['EUR', 'GBP'] }, yes: [{ currency: 'EUR' }, { currency: 'GBP' }], no: [{ currency: 'USD' }] },
    { c: { type: 'amount', min: 1000, max: 5000 }, yes: [{ amount: 1000 }, { amount: 5000 }, { amount: 2500 }], no: [{ amount: 999 }, { amount: 5001 }] },
    { c: { type: 'amount', min: 1000 }, yes: [{ amount: 1000 }, { amount: 10 ** 11 }], no: [{ amount: 0 }] },
    { c: { type: 'customer_country', values: ['PT'] }, yes: [{ customer_country: 'PT' }], no: [{ customer_country: 'ES' }, { customer_country: null }] },
    { c: { type: 'channel', values: ['MOTO', 'MIT'] }, yes: [{ channel: 'MOTO' }, { channel: 'MIT' }], no: [{ channel: 'ECOMMERCE' }] },
    { c: { type: 'metadata', key: 'tier', equals: 'gold' }, yes: [{ metadata: { tier: 'gold' } }], no: [{ metadata: { tier: 'silver' } }, { metadata: {} }, { metadata: null }] },
    { c: { type: 'metadata', key: 'vip' }, yes: [{ metadata: { vip: '' } }, { metadata: { vip: 'no' } }], no: [{ metadata: { tier: 'gold' } }, { metadata: null }] },
  ];
  for (const { c, yes, no } of cases) {
    it(`${c.type} ${JSON.stringify(c)}`, () => {
      for (const y of yes) expect(matched(c, facts(y)), JSON.stringify(y)).toBe(true);
      for (const n of no) expect(matched(c, facts(n)), JSON.stringify(n)).toBe(false);
    });
  }

  it('all conditions of a rule must hold; the first matching rule wins; none: the entry service alone', () => {
    const rules: Rule[] = [
      { name: 'es-credit', conditions: [{ type: 'issuer_country', values: ['ES'] }, { type: 'card_type', values: ['CREDIT'] }], action: { type: 'service', service_uuid: S[0] } },
      { name: 'es', conditions: [{ type: 'issuer_country', values: ['ES'] }], action: { type: 'service', service_uuid: S[1] } },
      { name: 'es-again', conditions: [{ type: 'issuer_country', values: ['ES'] }], action: { type: 'service', service_uuid: S[2] } },
    ];
    const p = compileProfile(profile(rules));
    expect(decide(p, facts({ card_type: 'CREDIT' })).rule).toBe('es-credit');
    expect(decide(p, facts({ card_type: 'DEBIT' }))).toMatchObject({ rule: 'es', attempts: [{ service_uuid: S[1], rule: 'es' }] });
    expect(decide(p, facts({ issuer_country: 'FR' }))).toMatchObject({ rule: null, attempts: [{ service_uuid: ENTRY, rule: null, reason: 'no rule matched: the entry service' }] });
    expect(decide(null, facts())).toMatchObject({ rule: null, attempts: [{ service_uuid: ENTRY, reason: 'no routing profile: the entry service' }], profile: null });
  });
});

/** A random profile over the services S (at most 5 candidates a rule), and random facts. */
const arbCondition: fc.Arbitrary<Condition> = fc.oneof(
  fc.record({ type: fc.constant('brand' as const), values: fc.subarray(['VISA', 'MASTERCARD', 'AMEX'], { minLength: 1 }) }),
  fc.record({ type: fc.constant('issuer_country' as const), values: fc.subarray(['ES', 'FR', 'PT', 'US'], { minLength: 1 }) }),
  fc.record({ type: fc.constant('amount' as const), min: fc.integer({ min: 0, max: 5000 }), max: fc.integer({ min: 5000, max: 100000 }) }),
  fc.record({ type: fc.constant('channel' as const), values: fc.subarray(['ECOMMERCE', 'MOTO', 'MIT'], { minLength: 1 }) }),
);
const arbAction = fc.oneof(
  fc.record({ type: fc.constant('service' as const), service_uuid: fc.constantFrom(...S), fallbacks: fc.array(fc.constantFrom(...S, ENTRY), { maxLength: 4 }) }),
  fc.record({
    type: fc.constant('split' as const),
    splits: fc.uniqueArray(fc.record({ service_uuid: fc.constantFrom(...S), weight: fc.integer({ min: 1, max: 100 }) }), { minLength: 2, maxLength: 4, selector: (s) => s.service_uuid }),
    fallbacks: fc.array(fc.constantFrom(...S, ENTRY), { maxLength: 4 }),
  }),
);
const arbRules = fc.array(fc.record({ conditions: fc.array(arbCondition, { maxLength: 3 }), action: arbAction }), { maxLength: 8 }).map((rs) => rs.map((r, i) => ({ name: `rule-${i}`, ...r }) as Rule));
const arbFacts = fc.record({
  order_uuid: fc.uuid(),
  amount: fc.integer({ min: 0, max: 200000 }),
  brand: fc.constantFrom('VISA', 'MASTERCARD', 'AMEX'),
  issuer_country: fc.constantFrom('ES', 'FR', 'PT', 'US', null),
  channel: fc.constantFrom('ECOMMERCE' as const, 'MOTO' as const, 'MIT' as const),
}).map((f) => facts(f));

describe('decide, properties (seeded)', () => {
  it('the same input gives the same decision, compiled once or again', () => {
    fc.assert(fc.property(arbRules, arbFacts, fc.integer({ min: 1, max: 5 }), (rules, f, max) => {
      const d1 = decide(compileProfile(profile(rules, max)), f);
      const d2 = decide(compileProfile(profile(structuredClone(rules), max)), { ...f });
      expect(d2).toEqual(d1);
    }));
  });

  it('attempts: the primary, then the fallbacks in order, without duplicates, at most max_attempts', () => {
    fc.assert(fc.property(arbRules, arbFacts, fc.integer({ min: 1, max: 5 }), (rules, f, max) => {
      const d = decide(compileProfile(profile(rules, max)), f);
      const ids = d.attempts.map((a) => a.service_uuid);
      expect(new Set(ids).size).toBe(ids.length);
      expect(ids.length).toBeLessThanOrEqual(max);
      expect(ids.length).toBeGreaterThanOrEqual(1);
      const rule = rules.find((r) => r.name === d.rule);
      if (!rule) {
        expect(ids).toEqual([ENTRY]);
        return;
      }
      const primary = ids[0];
      const expected = [primary, ...(rule.action.fallbacks ?? [])].filter((x, i, all) => all.indexOf(x) === i).slice(0, max);
      expect(ids).toEqual(expected);
      if (rule.action.type === 'service') expect(primary).toBe(rule.action.service_uuid);
      else expect(rule.action.splits!.map((s) => s.service_uuid)).toContain(primary);
    }));
  });

  it('open circuits are skipped and named; with every candidate open, the first is tried all the same', () => {
    fc.assert(fc.property(arbRules, arbFacts, fc.subarray([...S, ENTRY]), (rules, f, open) => {
      const p = compileProfile(profile(rules, 5));
      const closed = decide(p, f);
      const d = decide(p, f, { isOpen: new Set(open) });
      const candidates = [...closed.attempts.map((a) => a.service_uuid)];
      const left = candidates.filter((c) => !open.includes(c));
      if (left.length > 0) {
        expect(d.attempts.map((a) => a.service_uuid)).toEqual(left);
        expect(d.skipped.map((s) => s.service_uuid)).toEqual(candidates.filter((c) => open.includes(c)));
        for (const s of d.skipped) expect(s.reason).toMatch(/^circuit open/);
        if (open.includes(candidates[0])) expect(d.attempts[0].reason).toContain(`instead of ${candidates[0]}`);
      } else {
        expect(d.attempts.map((a) => a.service_uuid)).toEqual([candidates[0]]);
        expect(d.attempts[0].reason).toContain('every candidate\'s circuit is open');
      }
      // a predicate says the same as a set
      expect(decide(p, f, { isOpen: (s) => open.includes(s) })).toEqual(d);
    }));
  });

  it('a further cap from the caller applies below the profile\'s', () => {
    const p = compileProfile(profile([{ name: 'r', conditions: [], action: { type: 'service', service_uuid: S[0], fallbacks: [S[1], S[2]] } }], 3));
    expect(decide(p, facts()).attempts).toHaveLength(3);
    expect(decide(p, facts(), { maxAttempts: 2 }).attempts.map((a) => a.service_uuid)).toEqual([S[0], S[1]]);
  });
});

describe('splits', () => {
  it('over many orders, each service gets its weight\'s share (within 1.5 points)', () => {
    const weights = [1, 2, 7];
    const p = compileProfile(profile([{ name: 'split', conditions: [], action: { type: 'split', splits: weights.map((w, i) => ({ service_uuid: S[i], weight: w })) } }], 1));
    const r = rng();
    const n = 20_000;
    const counts = new Map<string, number>();
    for (let i = 0; i < n; i++) {
      const d = decide(p, facts({ order_uuid: uuidFrom(r) }));
      counts.set(d.attempts[0].service_uuid, (counts.get(d.attempts[0].service_uuid) ?? 0) + 1);
    }
    weights.forEach((w, i) => expect(Math.abs((counts.get(S[i]) ?? 0) / n - w / 10), S[i]).toBeLessThan(0.015));
  });

  it('the bucket is the FNV-1a hash of the lower-case order uuid (the same order, the same service, whatever its case)', () => {
    expect(fnv1a('')).toBe(0x811c9dc5);
    expect(fnv1a('a')).toBe(0xe40c292c);
    const p = compileProfile(profile([{ name: 's', conditions: [], action: { type: 'split', splits: [{ service_uuid: S[0], weight: 1 }, { service_uuid: S[1], weight: 1 }] } }]));
    for (let i = 0; i < 50; i++) {
      const u = randomUUID();
      expect(decide(p, facts({ order_uuid: u.toUpperCase() })).attempts).toEqual(decide(p, facts({ order_uuid: u })).attempts);
      expect(decide(p, facts({ order_uuid: u })).attempts[0].service_uuid).toBe(S[fnv1a(u) % 2]);
    }
  });
});

describe('validation of a profile', () => {
  const ok = (rules: unknown[], over: Record<string, unknown> = {}) => profileProblems({ service_uuid: ENTRY, name: 'p', rules: rules as Rule[], ...over });
  const fields = (rules: unknown[], over: Record<string, unknown> = {}) => ok(rules, over).problems.map((p) => p.field);
  const svc = { type: 'service', service_uuid: S[0] };

  it('a valid profile has no problem and names its services with their fields', () => {
    const r = ok([{ name: 'a', conditions: [{ type: 'bin', ranges: [{ from: '400000', to: '499999' }] }], action: { type: 'split', splits: [{ service_uuid: S[0], weight: 3 }, { service_uuid: S[1], weight: 1 }], fallbacks: [S[2]] } }]);
    expect(r.problems).toEqual([]);
    expect(r.services).toEqual([
      { uuid: S[0], field: 'rules[0].action.splits[0].service_uuid' },
      { uuid: S[1], field: 'rules[0].action.splits[1].service_uuid' },
      { uuid: S[2], field: 'rules[0].action.fallbacks[0]' },
    ]);
  });

  it('each problem names its field', () => {
    expect(fields([], { max_attempts: 0 })).toEqual(['max_attempts']);
    expect(fields([], { max_attempts: 6 })).toEqual(['max_attempts']);
    expect(fields([{ name: 'a', conditions: [], action: svc }, { name: 'a', conditions: [], action: svc }])).toEqual(['rules[1].name']);
    expect(fields(Array.from({ length: 101 }, (_, i) => ({ name: `r${i}`, conditions: [], action: svc })))).toEqual(['rules']);
    expect(fields([{ name: 'a', conditions: [{ type: 'bin', ranges: [{ from: '4000000', to: '499999' }] }], action: svc }])).toEqual(['rules[0].conditions[0].ranges[0]']);
    expect(fields([{ name: 'a', conditions: [{ type: 'bin', ranges: [{ from: '499999', to: '400000' }] }], action: svc }])).toEqual(['rules[0].conditions[0].ranges[0]']);
    expect(fields([{ name: 'a', conditions: [{ type: 'bin', ranges: [{ from: '49999', to: '400000' }] }], action: svc }])).toEqual(['rules[0].conditions[0].ranges[0].from']);
    expect(fields([{ name: 'a', conditions: [{ type: 'amount', min: 5, max: 4 }], action: svc }])).toEqual(['rules[0].conditions[0].max']);
    expect(fields([{ name: 'a', conditions: [{ type: 'amount' }], action: svc }])).toEqual(['rules[0].conditions[0].min']);
    expect(fields([{ name: 'a', conditions: [{ type: 'currency', values: ['EURO'] }], action: svc }])).toEqual(['rules[0].conditions[0].values[0]']);
    expect(fields([{ name: 'a', conditions: [{ type: 'channel', values: ['POS'] }], action: svc }])).toEqual(['rules[0].conditions[0].values[0]']);
    expect(fields([{ name: 'a', conditions: [{ type: 'card_type' }], action: svc }])).toEqual(['rules[0].conditions[0].values']);
    expect(fields([{ name: 'a', conditions: [{ type: 'metadata' }], action: svc }])).toEqual(['rules[0].conditions[0].key']);
    expect(fields([{ name: 'a', conditions: [{ type: 'currency', values: ['EUR'], min: 3 }], action: svc }])).toEqual(['rules[0].conditions[0].min']);
    expect(fields([{ name: 'a', conditions: [], action: { type: 'service' } }])).toEqual(['rules[0].action.service_uuid']);
    expect(fields([{ name: 'a', conditions: [], action: { type: 'split', splits: [{ service_uuid: S[0], weight: 1 }] } }])).toEqual(['rules[0].action.splits']);
    expect(fields([{ name: 'a', conditions: [], action: { type: 'split', splits: [{ service_uuid: S[0], weight: 1.5 }, { service_uuid: S[0], weight: -1 }] } }])).toEqual(['rules[0].action.splits[0].weight', 'rules[0].action.splits[1].weight', 'rules[0].action.splits[1].service_uuid']);
    expect(fields([{ name: 'a', conditions: [], action: { type: 'service', service_uuid: 'nope', fallbacks: ['x'] } }])).toEqual(['rules[0].action.service_uuid', 'rules[0].action.fallbacks[0]']);
  });
});
