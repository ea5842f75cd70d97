/**
 * Pure rules of the risk module (no IO): security-list items (what each type accepts and what a payment
 * is matched by), the antifraud settings and their defaults, the small offline IP → country table of
 * the sandbox, and the decision an evaluation comes to.
 */
import { isIP } from 'node:net';
import ipaddr from 'ipaddr.js';
import countries from 'i18n-iso-countries';
import currencyCodes from 'currency-codes';
import { parsePhoneNumberFromString } from 'libphonenumber-js';
import { Secret } from '../../platform/security/secret.js';
import { parsePan } from '../sources/index.js';
import { isUuid } from '../../platform/ids.js';

export type Result<T> = { ok: T } | { error: string };

// ---- lists and items ------------------------------------------------------------------------------------

export const LIST_TYPES = ['WHITELIST', 'BLACKLIST', 'GREYLIST'] as const;
export type ListType = (typeof LIST_TYPES)[number];

export const ITEM_TYPES = ['CARD', 'CARD_UUID', 'BIN', 'EMAIL', 'IP', 'COUNTRY', 'CUSTOMER', 'PHONE'] as const;
export type ItemType = (typeof ITEM_TYPES)[number];

/** Most items one L8 request may add (a list holds many more: add them in several requests). */
export const MAX_ITEMS_PER_REQUEST = 10_000;

/** An item as stored: what a payment is matched by, what the API shows. */
export interface ParsedItem {
  type: ItemType;
  matchKey: string;
  shown: string;
  bin: string | null;
  last4: string | null;
}

/** `TYPE:normalized`: the match key of an item (and of a payment's candidate). */
export const key = (type: ItemType, normalized: string) => `${type}:${normalized}`;

/** A card shown by BIN and last 4 only. */
export const maskedCard = (bin: string, last4: string) => `${bin.slice(0, 6)}******${last4}`;

export function normalizeEmail(v: string): string | null {
  const e = v.trim().toLowerCase();
  return e.length <= 254 && /^[^\s@]+@[^\s@]+\.[^\s@]+$/.test(e) ? e : null;
}

/** A phone number in E.164 (`+34600000000`), from an international number or a number and its prefix. */
export function normalizePhone(number: string, prefix?: string | null): string | null {
  const compact = number.replace(/[\s().-]/g, '');
  let full = compact;
  if (!compact.startsWith('+')) {
    if (!prefix) return null;
    full = `+${prefix.replace(/[\s+]/g, '')}${compact}`;
  }
  if (!/^\+[0-9]{4,17}$/.test(full)) return null;
  const p = parsePhoneNumberFromString(full);
  return p && p.isPossible() ? p.number : full;
}

/** A network in canonical form (`192.0.2.0/24`, `2001:db8::/32`); an address is a /32 or /128. */
export function normalizeNetwork(v: string): string | null {
  const s = v.trim();
  if (s.length > 64) return null;
  try {
    let addr: ipaddr.IPv4 | ipaddr.IPv6;
    let bits: number;
    if (s.includes('/')) {
      if (!isIP(s.slice(0, s.indexOf('/'))) || !/^[0-9]{1,3}$/.test(s.slice(s.indexOf('/') + 1)) || !ipaddr.isValidCIDR(s)) return null;
      [addr, bits] = ipaddr.parseCIDR(s);
    } else {
      if (!isIP(s)) return null;
      addr = ipaddr.parse(s);
      bits = addr.kind() === 'ipv4' ? 32 : 128;
    }
    if (addr.kind() === 'ipv6' && (addr as ipaddr.IPv6).isIPv4MappedAddress() && bits >= 96) {
      addr = (addr as ipaddr.IPv6).toIPv4Address();
      bits -= 96;
    }
    return `${masked(addr, bits)}/${bits}`;
  } catch {
    return null;
  }
}

function masked(addr: ipaddr.IPv4 | ipaddr.IPv6, bits: number): string {
  const bytes = addr.toByteArray();
  for (let i = 0; i < bytes.length; i++) {
    const keep = Math.max(0, Math.min(8, bits - i * 8));
    bytes[i] &= keep === 0 ? 0 : (0xff << (8 - keep)) & 0xff;
  }
  return ipaddr.fromByteArray(bytes).toString();
}

/** A single address (not a network), canonical, or null. IPv4-mapped IPv6 addresses become IPv4. */
export function parseAddress(v: string): ipaddr.IPv4 | ipaddr.IPv6 | null {
  const s = v.trim();
  if (s.length > 64 || !isIP(s)) return null;
  const a = ipaddr.parse(s);
  return a.kind() === 'ipv6' && (a as ipaddr.IPv6).isIPv4MappedAddress() ? (a as ipaddr.IPv6).toIPv4Address() : a;
}

/**
 * The match keys of every network holding an address (33 for IPv4, 129 for IPv6): an IP item matches a
 * payment when its network is one of them, so IP look-ups are plain equality on one index.
 */
export function ipCandidates(ip: string): string[] {
  const a = parseAddress(ip);
  if (!a) return [];
  const max = a.kind() === 'ipv4' ? 32 : 128;
  const out: string[] = [];
  for (let bits = max; bits >= 0; bits--) out.push(key('IP', `${masked(a, bits)}/${bits}`));
  return out;
}

/**
 * Parses one item of L8 (CARD_UUID needs the stored card: the service resolves it). `fingerprint` is the
 * vault's keyed fingerprint of a card number (the same the sources module keeps for "same card").
 */
export function parseItem(
  input: { type: string; value: unknown },
  fingerprint: (pan: string) => string,
): Result<ParsedItem> {
  const type = input.type as ItemType;
  const raw = typeof input.value === 'number' && Number.isSafeInteger(input.value) ? String(input.value) : input.value;
  if (typeof raw !== 'string' || raw.trim() === '') return { error: 'value must be a non-empty string' };
  const v = raw.trim();
  switch (type) {
    case 'CARD': {
      const card = parsePan(new Secret(v), 'value');
      if ('error' in card) return card;
      const pan = card.ok.pan.reveal();
      return { ok: { type, matchKey: key(type, fingerprint(pan)), shown: maskedCard(card.ok.bin, card.ok.last4), bin: pan.slice(0, 8), last4: card.ok.last4 } };
    }
    case 'BIN':
      if (!/^[0-9]{6,8}$/.test(v)) return { error: 'a BIN is 6 to 8 digits' };
      return { ok: { type, matchKey: key(type, v), shown: v, bin: null, last4: null } };
    case 'EMAIL': {
      const e = normalizeEmail(v);
      if (!e) return { error: 'value must be an e-mail address' };
      return { ok: { type, matchKey: key(type, e), shown: e, bin: null, last4: null } };
    }
    case 'IP': {
      const n = normalizeNetwork(v);
      if (!n) return { error: 'value must be an IPv4 or IPv6 address or network (CIDR)' };
      const shown = n.endsWith('/32') || n.endsWith('/128') ? n.slice(0, n.lastIndexOf('/')) : n;
      return { ok: { type, matchKey: key(type, n), shown, bin: null, last4: null } };
    }
    case 'COUNTRY': {
      const c = v.toUpperCase();
      if (!/^[A-Z]{2}$/.test(c) || !countries.isValid(c)) return { error: 'value must be an ISO 3166 alpha-2 country code' };
      return { ok: { type, matchKey: key(type, c), shown: c, bin: null, last4: null } };
    }
    case 'CUSTOMER':
      if (v.length > 255) return { error: 'a customer external id has at most 255 characters' };
      return { ok: { type, matchKey: key(type, v), shown: v, bin: null, last4: null } };
    case 'PHONE': {
      const p = normalizePhone(v);
      if (!p) return { error: 'value must be a phone number with its country code (+34600000000)' };
      return { ok: { type, matchKey: key(type, p), shown: p, bin: null, last4: null } };
    }
    case 'CARD_UUID':
      if (!isUuid(v)) return { error: 'value must be the uuid of a stored card' };
      return { ok: { type, matchKey: '', shown: v.toLowerCase(), bin: null, last4: null } };
    default:
      return { error: `type must be one of ${ITEM_TYPES.join(', ')}` };
  }
}

/**
 * The match keys an L9 value may stand for (an item is removed by its uuid or by its value): every type
 * the value parses as. CARD_UUID values are matched by the service (they need the stored card).
 */
export function removalKeys(value: string, fingerprint: (pan: string) => string): string[] {
  const out: string[] = [];
  for (const type of ITEM_TYPES) {
    if (type === 'CARD_UUID') continue;
    const r = parseItem({ type, value }, fingerprint);
    if ('ok' in r) out.push(r.ok.matchKey);
  }
  return out;
}

// ---- countries ----------------------------------------------------------------------------------------------

/**
 * The sandbox's offline IP → country table: the documentation address ranges (RFC 5737, RFC 3849), so
 * sandbox tests can exercise "card country against IP country". Real addresses have no country here:
 * the gateway bundles no GeoIP database, and a rule that needs a country does not run without one.
 */
export const SANDBOX_IP_COUNTRIES: ReadonlyArray<{ network: string; country: string }> = [
  { network: '192.0.2.0/24', country: 'ES' },
  { network: '198.51.100.0/24', country: 'FR' },
  { network: '203.0.113.0/24', country: 'US' },
  { network: '2001:db8::/32', country: 'DE' },
];
const IP_COUNTRY = new Map(SANDBOX_IP_COUNTRIES.map((e) => [key('IP', e.network), e.country]));

export function ipCountry(ip: string | null): string | null {
  if (!ip) return null;
  for (const k of ipCandidates(ip)) {
    const c = IP_COUNTRY.get(k);
    if (c) return c;
  }
  return null;
}

/** The issuing country of a sandbox card (the simulated processor's BIN data): see processors/simulator.rules.ts. */
export { sandboxCardCountry } from '../../processors/index.js';

// ---- antifraud settings ---------------------------------------------------------------------------------

export const VELOCITY_RULES = ['CARD_VELOCITY', 'IP_VELOCITY', 'CUSTOMER_VELOCITY', 'EMAIL_VELOCITY'] as const;
export type VelocityRule = (typeof VELOCITY_RULES)[number];
export type VelocityKind = 'CARD' | 'IP' | 'CUSTOMER' | 'EMAIL';
export const KIND_OF: Record<VelocityRule, VelocityKind> = {
  CARD_VELOCITY: 'CARD',
  IP_VELOCITY: 'IP',
  CUSTOMER_VELOCITY: 'CUSTOMER',
  EMAIL_VELOCITY: 'EMAIL',
};

export const RULE_NAMES = [...VELOCITY_RULES, 'AMOUNT_HIGH', 'AMOUNT_VERY_HIGH', 'NEW_CARD_HIGH_AMOUNT', 'COUNTRY_MISMATCH'] as const;
export type RuleName = (typeof RULE_NAMES)[number];

/** Names that appear in `triggered_rules` besides the rules: the lists and the sandbox triggers. */
export const LIST_RULES = { WHITELIST: 'WHITELIST', BLACKLIST: 'BLACKLIST', GREYLIST: 'GREYLIST' } as const;
export const SANDBOX_TRIGGERS = {
  '203.0.113.66': { rule: 'SANDBOX_CHALLENGE', score: 60 },
  '203.0.113.99': { rule: 'SANDBOX_REJECT', score: 100 },
} as const;

export interface VelocitySettings {
  enabled: boolean;
  score: number;
  /** The rule triggers when more than this many payments (this one included) fall in the window. */
  max_payments: number;
  window_seconds: number;
}
export interface AmountSettings {
  enabled: boolean;
  score: number;
  /** Triggers at or above this amount, in minor units, per currency (ISO 4217 alpha-3); other currencies are not checked. */
  amounts: Record<string, number>;
}
export interface NewCardSettings extends AmountSettings {
  /** A card is new when the merchant saw it first less than this long ago. */
  new_for_seconds: number;
}
export interface RiskSettings {
  enabled: boolean;
  challenge_threshold: number;
  reject_threshold: number;
  rules: {
    CARD_VELOCITY: VelocitySettings;
    IP_VELOCITY: VelocitySettings;
    CUSTOMER_VELOCITY: VelocitySettings;
    EMAIL_VELOCITY: VelocitySettings;
    AMOUNT_HIGH: AmountSettings;
    AMOUNT_VERY_HIGH: AmountSettings;
    NEW_CARD_HIGH_AMOUNT: NewCardSettings;
    COUNTRY_MISMATCH: { enabled: boolean; score: number };
  };
  low_value_exemption: { enabled: boolean; max_amounts: Record<string, number> };
}

export const MAX_WINDOW_SECONDS = 7 * 86_400;

export const DEFAULT_SETTINGS: RiskSettings = {
  enabled: true,
  challenge_threshold: 50,
  reject_threshold: 90,
  rules: {
    CARD_VELOCITY: { enabled: true, score: 50, max_payments: 5, window_seconds: 3600 },
    IP_VELOCITY: { enabled: true, score: 50, max_payments: 10, window_seconds: 3600 },
    CUSTOMER_VELOCITY: { enabled: true, score: 50, max_payments: 10, window_seconds: 3600 },
    EMAIL_VELOCITY: { enabled: true, score: 50, max_payments: 10, window_seconds: 3600 },
    AMOUNT_HIGH: { enabled: true, score: 20, amounts: { EUR: 250_000, USD: 250_000, GBP: 220_000 } },
    AMOUNT_VERY_HIGH: { enabled: true, score: 30, amounts: { EUR: 1_000_000, USD: 1_000_000, GBP: 900_000 } },
    NEW_CARD_HIGH_AMOUNT: { enabled: true, score: 30, amounts: { EUR: 100_000, USD: 100_000, GBP: 90_000 }, new_for_seconds: 86_400 },
    COUNTRY_MISMATCH: { enabled: true, score: 40 },
  },
  low_value_exemption: { enabled: false, max_amounts: { EUR: 3000 } },
};

/** What a merchant sent (PUT /antifraud/rules): every field optional, the defaults fill the rest. */
export type SettingsInput = {
  enabled?: boolean;
  challenge_threshold?: number;
  reject_threshold?: number;
  rules?: { [K in RuleName]?: Partial<RiskSettings['rules'][K]> };
  low_value_exemption?: Partial<RiskSettings['low_value_exemption']>;
};

/** Fields whose value is a map of currency → amount: kept whole (the schema checks their keys). */
const AMOUNT_MAPS = new Set(['amounts', 'max_amounts']);

/**
 * The part of a settings document the schema knows: keys the settings do not have (the API accepts and
 * ignores them, decisions §10) are left out, so only known fields are stored.
 */
export function knownSettings(input: SettingsInput): SettingsInput {
  const pick = (value: unknown, shape: unknown): unknown => {
    if (value === null || typeof value !== 'object' || Array.isArray(value) || shape === null || typeof shape !== 'object') return value;
    const out: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(value as Record<string, unknown>)) {
      if (!Object.hasOwn(shape, k)) continue;
      out[k] = AMOUNT_MAPS.has(k) ? v : pick(v, (shape as Record<string, unknown>)[k]);
    }
    return out;
  };
  return pick(input, DEFAULT_SETTINGS) as SettingsInput;
}

/** The effective settings: the stored input over the defaults. */
export function effectiveSettings(input: SettingsInput | null | undefined): RiskSettings {
  const i = input ?? {};
  const rules = { ...DEFAULT_SETTINGS.rules } as Record<RuleName, unknown>;
  for (const name of RULE_NAMES) rules[name] = { ...DEFAULT_SETTINGS.rules[name], ...(i.rules?.[name] ?? {}) };
  return {
    enabled: i.enabled ?? DEFAULT_SETTINGS.enabled,
    challenge_threshold: i.challenge_threshold ?? DEFAULT_SETTINGS.challenge_threshold,
    reject_threshold: i.reject_threshold ?? DEFAULT_SETTINGS.reject_threshold,
    rules: rules as RiskSettings['rules'],
    low_value_exemption: { ...DEFAULT_SETTINGS.low_value_exemption, ...(i.low_value_exemption ?? {}) },
  };
}

/** Rules of a settings document beyond its schema: known currencies, thresholds in order. */
export function checkSettings(s: RiskSettings): string | null {
  if (s.reject_threshold < s.challenge_threshold) return 'reject_threshold must not be below challenge_threshold';
  const money: Array<[string, Record<string, number>]> = [
    ['rules.AMOUNT_HIGH.amounts', s.rules.AMOUNT_HIGH.amounts],
    ['rules.AMOUNT_VERY_HIGH.amounts', s.rules.AMOUNT_VERY_HIGH.amounts],
    ['rules.NEW_CARD_HIGH_AMOUNT.amounts', s.rules.NEW_CARD_HIGH_AMOUNT.amounts],
    ['low_value_exemption.max_amounts', s.low_value_exemption.max_amounts],
  ];
  for (const [field, amounts] of money) {
    for (const c of Object.keys(amounts)) if (!currencyCodes.code(c)) return `${field}: ${c.slice(0, 8)} is not an ISO 4217 currency code`;
  }
  return null;
}

// ---- the evaluation ------------------------------------------------------------------------------------------

export type Channel = 'ECOMMERCE' | 'MOTO' | 'MIT' | 'CARD_PRESENT';
export type Evaluation = 'ACCEPT' | 'CHALLENGE' | 'REJECT';

/** `antifraud` of a transaction. */
export interface AntifraudRecord {
  evaluation: Evaluation;
  score: number;
  risk_score: number;
  fraud_score: number;
  triggered_rules: string[];
}

/**
 * What the payment does: PROCEED to the processor, CHALLENGE the cardholder (3-D Secure), or refuse it
 * without calling the processor (BLACKLISTED: a black list; FRAUD: antifraud rejected it).
 */
export type RiskAction = 'PROCEED' | 'CHALLENGE' | 'BLACKLISTED' | 'FRAUD';

/** An exemption from strong customer authentication the payment qualifies for when it is asked for 3DS. */
export type Exemption = 'LOW_VALUE' | 'WHITELISTED';

export interface Facts {
  channel: Channel;
  amount: number;
  currency: string;
  now: Date;
  /** Types of the lists that matched (linked to the payment's service, enabled). */
  matchedLists: ReadonlySet<ListType>;
  /** Sandbox test cards (decisions §5) are not subject to the rules (lists and sandbox triggers still apply). */
  testCard: boolean;
  customerIp: string | null;
  /** The sandbox triggers apply (sandbox environment). */
  sandbox: boolean;
  /** Earlier payments in each velocity rule's window. */
  velocity: Partial<Record<VelocityRule, number>>;
  /** Which velocity rules had something to count (no IP: no IP velocity). */
  counted: ReadonlySet<VelocityRule>;
  cardFirstSeenAt: Date | null;
  cardCountry: string | null;
  ipCountry: string | null;
}

export interface Decision {
  action: RiskAction;
  antifraud: AntifraudRecord | null;
  exemption: Exemption | null;
}

const RISK_CATEGORY: ReadonlySet<string> = new Set(['AMOUNT_HIGH', 'AMOUNT_VERY_HIGH', 'NEW_CARD_HIGH_AMOUNT']);
const cap = (n: number) => Math.max(0, Math.min(100, Math.round(n)));

/** The rules that trigger on the facts, with their scores (lists and sandbox triggers not included). */
export function triggeredRules(s: RiskSettings, f: Facts): Array<{ rule: string; score: number }> {
  const out: Array<{ rule: string; score: number }> = [];
  if (f.sandbox && f.customerIp) {
    const t = SANDBOX_TRIGGERS[f.customerIp.trim() as keyof typeof SANDBOX_TRIGGERS];
    if (t) out.push({ rule: t.rule, score: t.score });
  }
  if (f.testCard) return out;
  for (const name of VELOCITY_RULES) {
    const r = s.rules[name];
    if (r.enabled && f.counted.has(name) && (f.velocity[name] ?? 0) + 1 > r.max_payments) out.push({ rule: name, score: r.score });
  }
  const over = (amounts: Record<string, number>) => amounts[f.currency] !== undefined && f.amount >= amounts[f.currency];
  for (const name of ['AMOUNT_HIGH', 'AMOUNT_VERY_HIGH'] as const) {
    const r = s.rules[name];
    if (r.enabled && over(r.amounts)) out.push({ rule: name, score: r.score });
  }
  const nc = s.rules.NEW_CARD_HIGH_AMOUNT;
  const isNew = !f.cardFirstSeenAt || f.now.getTime() - f.cardFirstSeenAt.getTime() < nc.new_for_seconds * 1000;
  if (nc.enabled && isNew && over(nc.amounts)) out.push({ rule: 'NEW_CARD_HIGH_AMOUNT', score: nc.score });
  const cm = s.rules.COUNTRY_MISMATCH;
  if (cm.enabled && f.cardCountry && f.ipCountry && f.cardCountry !== f.ipCountry) out.push({ rule: 'COUNTRY_MISMATCH', score: cm.score });
  return out;
}

/**
 * The decision on a payment:
 * - a black list refuses it on every channel;
 * - a white list skips antifraud (recorded as ACCEPT with WHITELIST);
 * - a grey list requires 3-D Secure (CHALLENGE with GREYLIST);
 * - antifraud scores the triggered rules: `score` ≥ reject_threshold is REJECT, ≥ challenge_threshold
 *   CHALLENGE, otherwise ACCEPT.
 * What the evaluation does depends on the channel: ECOMMERCE challenges (3DS) and refuses; MoTo is
 * recorded and never restricted; merchant-initiated and card-present payments cannot be challenged, so
 * CHALLENGE is recorded and the payment proceeds, while REJECT refuses them.
 */
export function decide(s: RiskSettings, f: Facts): Decision {
  if (f.matchedLists.has('BLACKLIST')) {
    return { action: 'BLACKLISTED', antifraud: { evaluation: 'REJECT', score: 100, risk_score: 0, fraud_score: 100, triggered_rules: [LIST_RULES.BLACKLIST] }, exemption: null };
  }
  const white = f.matchedLists.has('WHITELIST');
  const grey = f.matchedLists.has('GREYLIST');
  let record: AntifraudRecord | null = null;
  if (white) {
    record = { evaluation: 'ACCEPT', score: 0, risk_score: 0, fraud_score: 0, triggered_rules: [LIST_RULES.WHITELIST] };
  } else if (s.enabled) {
    const hits = triggeredRules(s, f);
    const risk = cap(hits.filter((h) => RISK_CATEGORY.has(h.rule)).reduce((a, h) => a + h.score, 0));
    const fraud = cap(hits.filter((h) => !RISK_CATEGORY.has(h.rule)).reduce((a, h) => a + h.score, 0));
    const score = cap(risk + fraud);
    const evaluation: Evaluation = score >= s.reject_threshold ? 'REJECT' : score >= s.challenge_threshold ? 'CHALLENGE' : 'ACCEPT';
    record = { evaluation, score, risk_score: risk, fraud_score: fraud, triggered_rules: hits.map((h) => h.rule) };
  }
  if (grey) {
    record ??= { evaluation: 'ACCEPT', score: 0, risk_score: 0, fraud_score: 0, triggered_rules: [] };
    record = { ...record, evaluation: record.evaluation === 'REJECT' ? 'REJECT' : 'CHALLENGE', triggered_rules: [...record.triggered_rules, LIST_RULES.GREYLIST] };
  }
  const evaluation = record?.evaluation ?? 'ACCEPT';
  let action: RiskAction = 'PROCEED';
  if (evaluation === 'REJECT' && f.channel !== 'MOTO') action = 'FRAUD';
  else if (evaluation === 'CHALLENGE' && f.channel === 'ECOMMERCE') action = 'CHALLENGE';
  let exemption: Exemption | null = null;
  if (f.channel === 'ECOMMERCE' && action === 'PROCEED') {
    const lv = s.low_value_exemption;
    if (white) exemption = 'WHITELISTED';
    else if (lv.enabled && lv.max_amounts[f.currency] !== undefined && f.amount <= lv.max_amounts[f.currency]) exemption = 'LOW_VALUE';
  }
  return { action, antifraud: record, exemption };
}
