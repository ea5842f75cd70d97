import { describe, expect, it } from 'vitest';
import {
  DEFAULT_SETTINGS,
  checkSettings,
  decide,
  effectiveSettings,
  ipCandidates,
  knownSettings,
  ipCountry,
  normalizeNetwork,
  normalizePhone,
  parseItem,
  removalKeys,
  sandboxCardCountry,
  triggeredRules,
  type Facts,
  type ListType,
  type VelocityRule,
} from '../../src/modules/risk/risk.domain.js';
import { RulesResponse } from '../../src/modules/risk/risk.schemas.js';

const fp = (pan: string) => `fp(${pan})`;

const facts = (over: Partial<Facts> = {}): Facts => ({
  channel: 'ECOMMERCE',
  amount: 1000,
  currency: 'EUR',
  now: new Date('2026-03-01T12:00:00Z'),
  matchedLists: new Set<ListType>(),
  testCard: false,
  customerIp: null,
  sandbox: true,
  velocity: {},
  counted: new Set<VelocityRule>(['CARD_VELOCITY', 'CUSTOMER_VELOCITY']),
  cardFirstSeenAt: new Date('2026-01-01T00:00:00Z'),
  cardCountry: null,
  ipCountry: null,
  ...over,
});

describe('items', () => {
  it('a CARD item keeps the fingerprint, BIN and last 4, never the number', () => {
    const r = parseItem({ type: 'CARD', value: '4548 8120 4940 0004' }, fp);
    expect(r).toEqual({ ok: { type: 'CARD', matchKey: 'CARD:fp(4548812049400004)', shown: '454881******0004', bin: '45488120', last4: '0004' } });
    expect(JSON.stringify(r)).not.toContain('4548812049400004"');
    expect(parseItem({ type: 'CARD', value: '4548812049400005' }, fp)).toEqual({ error: 'value is not a valid card number (checksum)' });
  });

  it('each type normalizes its value; bad values are errors', () => {
    const ok = (type: string, value: unknown) => {
      const r = parseItem({ type, value }, fp);
      if (!('ok' in r)) throw new Error(`${type} ${String(value)}: ${r.error}`);
      return r.ok.matchKey;
    };
    expect(ok('BIN', '454881')).toBe('BIN:454881');
    expect(ok('BIN', 45488120)).toBe('BIN:45488120');
    expect(ok('EMAIL', ' Fraud@Example.COM ')).toBe('EMAIL:fraud@example.com');
    expect(ok('IP', '192.0.2.77')).toBe('IP:192.0.2.77/32');
    expect(ok('IP', '192.0.2.77/24')).toBe('IP:192.0.2.0/24');
    expect(ok('IP', '2001:DB8:0:0::1')).toBe('IP:2001:db8::1/128');
    expect(ok('IP', '::ffff:198.51.100.7')).toBe('IP:198.51.100.7/32');
    expect(ok('COUNTRY', 'es')).toBe('COUNTRY:ES');
    expect(ok('CUSTOMER', 'cust-9')).toBe('CUSTOMER:cust-9');
    expect(ok('PHONE', '+34 600 000 000')).toBe('PHONE:+34600000000');
    for (const [type, value] of [
      ['BIN', '4548'], ['EMAIL', 'not-an-email'], ['IP', '300.1.1.1'], ['IP', '10.0.0.0/33'], ['IP', '454881'], ['IP', '1.2.3.4/'], ['COUNTRY', 'XX'], ['COUNTRY', 'ESP'],
      ['PHONE', '600000000'], ['CARD_UUID', 'abc'], ['NOPE', 'x'], ['EMAIL', ''], ['CUSTOMER', { a: 1 }],
    ] as const) {
      expect('error' in parseItem({ type, value }, fp), `${type} ${JSON.stringify(value)}`).toBe(true);
    }
  });

  it('an L9 value stands for the items of every type it parses as', () => {
    expect(removalKeys('198.51.100.0/24', fp)).toEqual(['IP:198.51.100.0/24', 'CUSTOMER:198.51.100.0/24']);
    expect(removalKeys('4548812049400004', fp)).toContain('CARD:fp(4548812049400004)');
    expect(removalKeys('454881', fp)).toEqual(['BIN:454881', 'CUSTOMER:454881']);
  });

  it('an address matches every network that holds it (one equality look-up per prefix)', () => {
    const c = ipCandidates('192.0.2.77');
    expect(c).toHaveLength(33);
    expect(c[0]).toBe('IP:192.0.2.77/32');
    expect(c).toContain('IP:192.0.2.0/24');
    expect(c).toContain('IP:192.0.0.0/16');
    expect(c.at(-1)).toBe('IP:0.0.0.0/0');
    expect(ipCandidates('2001:db8::5')).toHaveLength(129);
    expect(ipCandidates('2001:db8::5')).toContain(`IP:${normalizeNetwork('2001:db8::/32')}`);
    expect(ipCandidates('nope')).toEqual([]);
  });

  it('phones from a profile: number and prefix, or an international number', () => {
    expect(normalizePhone('600000000', '+34')).toBe('+34600000000');
    expect(normalizePhone('600 000 000', '34')).toBe('+34600000000');
    expect(normalizePhone('+34600000000', null)).toBe('+34600000000');
    expect(normalizePhone('600000000', null)).toBeNull();
  });
});

describe('countries', () => {
  it('the sandbox IP table covers the documentation ranges only', () => {
    expect(ipCountry('192.0.2.10')).toBe('ES');
    expect(ipCountry('198.51.100.200')).toBe('FR');
    expect(ipCountry('203.0.113.66')).toBe('US');
    expect(ipCountry('2001:db8:1::9')).toBe('DE');
    expect(ipCountry('8.8.8.8')).toBeNull();
    expect(ipCountry(null)).toBeNull();
  });

  it('sandbox cards 4000 + ISO numeric code carry their country', () => {
    expect(sandboxCardCountry('40000724')).toBe('ES');
    expect(sandboxCardCountry('40000250')).toBe('FR');
    expect(sandboxCardCountry('40000840')).toBe('US');
    expect(sandboxCardCountry('40000000')).toBeNull();
    expect(sandboxCardCountry('45488120')).toBeNull();
  });
});

describe('settings', () => {
  it('what the merchant leaves out takes the defaults', () => {
    const s = effectiveSettings({ challenge_threshold: 40, rules: { CARD_VELOCITY: { max_payments: 2 } } });
    expect(s.challenge_threshold).toBe(40);
    expect(s.reject_threshold).toBe(DEFAULT_SETTINGS.reject_threshold);
    expect(s.rules.CARD_VELOCITY).toEqual({ ...DEFAULT_SETTINGS.rules.CARD_VELOCITY, max_payments: 2 });
    expect(s.rules.IP_VELOCITY).toEqual(DEFAULT_SETTINGS.rules.IP_VELOCITY);
    expect(effectiveSettings(null)).toEqual(DEFAULT_SETTINGS);
  });

  it('the OpenAPI example of the rules is the defaults', () => {
    expect((RulesResponse as unknown as { examples: Array<{ antifraud: unknown }> }).examples[0].antifraud).toEqual(DEFAULT_SETTINGS);
  });

  it('only the fields the settings have are kept for storing: unknown keys at any depth are left out', () => {
    const sent = {
      signature: 'abc',
      challenge_threshold: 40,
      junk: { nested: 8867225064709314e90 },
      rules: { CARD_VELOCITY: { max_payments: 2, extra: true }, NOT_A_RULE: { enabled: false }, AMOUNT_HIGH: { amounts: { EUR: 5000, USD: 7000 } } },
      low_value_exemption: { enabled: true, max_amounts: { EUR: 3000 }, other: 'x' },
    } as never;
    expect(knownSettings(sent)).toEqual({
      challenge_threshold: 40,
      rules: { CARD_VELOCITY: { max_payments: 2 }, AMOUNT_HIGH: { amounts: { EUR: 5000, USD: 7000 } } },
      low_value_exemption: { enabled: true, max_amounts: { EUR: 3000 } },
    });
    expect(knownSettings({})).toEqual({});
  });

  it('thresholds in order and known currencies', () => {
    expect(checkSettings(DEFAULT_SETTINGS)).toBeNull();
    expect(checkSettings(effectiveSettings({ challenge_threshold: 80, reject_threshold: 70 }))).toMatch(/reject_threshold/);
    expect(checkSettings(effectiveSettings({ rules: { AMOUNT_HIGH: { amounts: { ZZZ: 1 } } } }))).toMatch(/ZZZ is not an ISO 4217/);
  });
});

describe('the decision', () => {
  const S = DEFAULT_SETTINGS;

  it('ordinary payments are accepted, with nothing triggered', () => {
    expect(decide(S, facts())).toEqual({ action: 'PROCEED', antifraud: { evaluation: 'ACCEPT', score: 0, risk_score: 0, fraud_score: 0, triggered_rules: [] }, exemption: null });
  });

  it('each rule triggers on its traffic, one past its limit', () => {
    const at = (f: Partial<Facts>) => triggeredRules(S, facts(f)).map((h) => h.rule);
    expect(at({ velocity: { CARD_VELOCITY: 4 } })).toEqual([]);
    expect(at({ velocity: { CARD_VELOCITY: 5 } })).toEqual(['CARD_VELOCITY']);
    expect(at({ velocity: { CUSTOMER_VELOCITY: 10 } })).toEqual(['CUSTOMER_VELOCITY']);
    // an IP velocity count only counts when there was an IP to count
    expect(at({ velocity: { IP_VELOCITY: 50 } })).toEqual([]);
    expect(at({ velocity: { IP_VELOCITY: 10 }, counted: new Set(['IP_VELOCITY']) })).toEqual(['IP_VELOCITY']);
    expect(at({ velocity: { EMAIL_VELOCITY: 10 }, counted: new Set(['EMAIL_VELOCITY']) })).toEqual(['EMAIL_VELOCITY']);
    expect(at({ amount: 249_999 })).toEqual([]);
    expect(at({ amount: 250_000 })).toEqual(['AMOUNT_HIGH']);
    expect(at({ amount: 1_000_000 })).toEqual(['AMOUNT_HIGH', 'AMOUNT_VERY_HIGH']);
    expect(at({ amount: 250_000, currency: 'JPY' })).toEqual([]);
    expect(at({ amount: 100_000, cardFirstSeenAt: null })).toEqual(['NEW_CARD_HIGH_AMOUNT']);
    expect(at({ amount: 100_000, cardFirstSeenAt: new Date('2026-03-01T11:00:00Z') })).toEqual(['NEW_CARD_HIGH_AMOUNT']);
    expect(at({ amount: 99_999, cardFirstSeenAt: null })).toEqual([]);
    expect(at({ cardCountry: 'ES', ipCountry: 'FR' })).toEqual(['COUNTRY_MISMATCH']);
    expect(at({ cardCountry: 'ES', ipCountry: 'ES' })).toEqual([]);
    expect(at({ cardCountry: 'ES', ipCountry: null })).toEqual([]);
    expect(at({ customerIp: '203.0.113.66' })).toEqual(['SANDBOX_CHALLENGE']);
    expect(at({ customerIp: '203.0.113.66', sandbox: false })).toEqual([]);
    // sandbox test cards: only the sandbox triggers
    expect(at({ testCard: true, velocity: { CARD_VELOCITY: 99 }, amount: 9_000_000, customerIp: '203.0.113.99' })).toEqual(['SANDBOX_REJECT']);
  });

  it('scores: risk and fraud apart, summed into the score, compared with the thresholds', () => {
    const d = decide(S, facts({ amount: 250_000, cardCountry: 'ES', ipCountry: 'FR' }));
    expect(d.antifraud).toEqual({ evaluation: 'CHALLENGE', score: 60, risk_score: 20, fraud_score: 40, triggered_rules: ['AMOUNT_HIGH', 'COUNTRY_MISMATCH'] });
    expect(d.action).toBe('CHALLENGE');
    const r = decide(S, facts({ customerIp: '203.0.113.99' }));
    expect(r.antifraud).toMatchObject({ evaluation: 'REJECT', score: 100, fraud_score: 100 });
    expect(r.action).toBe('FRAUD');
  });

  it('what each channel does with the evaluation', () => {
    const reject = { customerIp: '203.0.113.99' };
    const challenge = { customerIp: '203.0.113.66' };
    expect(decide(S, facts({ ...reject, channel: 'MOTO' })).action).toBe('PROCEED');
    expect(decide(S, facts({ ...reject, channel: 'MIT' })).action).toBe('FRAUD');
    expect(decide(S, facts({ ...reject, channel: 'CARD_PRESENT' })).action).toBe('FRAUD');
    expect(decide(S, facts({ ...challenge, channel: 'MOTO' }))).toMatchObject({ action: 'PROCEED', antifraud: { evaluation: 'CHALLENGE' } });
    expect(decide(S, facts({ ...challenge, channel: 'MIT' }))).toMatchObject({ action: 'PROCEED', antifraud: { evaluation: 'CHALLENGE' } });
    expect(decide(S, facts(challenge)).action).toBe('CHALLENGE');
  });

  it('lists: black refuses everywhere, white skips antifraud, grey challenges', () => {
    const black = decide(S, facts({ matchedLists: new Set(['BLACKLIST', 'WHITELIST']), channel: 'MOTO' }));
    expect(black).toMatchObject({ action: 'BLACKLISTED', antifraud: { evaluation: 'REJECT', triggered_rules: ['BLACKLIST'] } });
    const white = decide(S, facts({ matchedLists: new Set(['WHITELIST']), customerIp: '203.0.113.99' }));
    expect(white).toEqual({ action: 'PROCEED', antifraud: { evaluation: 'ACCEPT', score: 0, risk_score: 0, fraud_score: 0, triggered_rules: ['WHITELIST'] }, exemption: 'WHITELISTED' });
    const grey = decide(S, facts({ matchedLists: new Set(['GREYLIST']) }));
    expect(grey).toMatchObject({ action: 'CHALLENGE', antifraud: { evaluation: 'CHALLENGE', triggered_rules: ['GREYLIST'] }, exemption: null });
    // antifraud off: the lists still apply; nothing else is recorded
    const off = effectiveSettings({ enabled: false });
    expect(decide(off, facts({ customerIp: '203.0.113.99' }))).toEqual({ action: 'PROCEED', antifraud: null, exemption: null });
    expect(decide(off, facts({ matchedLists: new Set(['GREYLIST']) })).action).toBe('CHALLENGE');
  });

  it('the low-value exemption, when the merchant turns it on, up to its amount', () => {
    const on = effectiveSettings({ low_value_exemption: { enabled: true } });
    expect(decide(S, facts({ amount: 3000 })).exemption).toBeNull();
    expect(decide(on, facts({ amount: 3000 })).exemption).toBe('LOW_VALUE');
    expect(decide(on, facts({ amount: 3001 })).exemption).toBeNull();
    expect(decide(on, facts({ amount: 100, currency: 'USD' })).exemption).toBeNull();
    expect(decide(on, facts({ amount: 100, customerIp: '203.0.113.66' })).exemption).toBeNull();
    expect(decide(on, facts({ amount: 100, channel: 'MIT' })).exemption).toBeNull();
  });
});
