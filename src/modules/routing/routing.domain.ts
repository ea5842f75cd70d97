/**
 * Routing profiles (docs/routing.md), pure: what a profile is, its validation (every problem named by
 * its field), and its compiled form, which `decide` (routing.decide.ts) runs per payment. No IO.
 *
 * A profile hangs on one entry service (the service an order names) of a merchant. Its rules are read
 * in order; the first whose conditions all hold picks the service (or a weighted split of services)
 * and the ordered fallbacks. No rule matched: the entry service alone.
 */

export const PROFILE_STATUSES = ['ACTIVE', 'DRAFT'] as const;
export type ProfileStatus = (typeof PROFILE_STATUSES)[number];

export const CONDITION_TYPES = ['brand', 'bin', 'issuer_country', 'card_type', 'currency', 'amount', 'customer_country', 'channel', 'metadata'] as const;
export type ConditionType = (typeof CONDITION_TYPES)[number];

export const CARD_TYPES = ['CREDIT', 'DEBIT', 'PREPAID'] as const;
export type CardType = (typeof CARD_TYPES)[number];
export const CHANNELS = ['ECOMMERCE', 'MOTO', 'MIT'] as const;
export type Channel = (typeof CHANNELS)[number];

export const MAX_RULES = 100;
export const MAX_ATTEMPTS_LIMIT = 5;
export const DEFAULT_MAX_ATTEMPTS = 3;
export const MAX_SPLITS = 10;
export const MAX_FALLBACKS = 5;
export const MAX_VALUES = 300;
export const MAX_RANGES = 100;

export interface BinRange {
  from: string;
  to: string;
}

/** One condition of a rule, as the API takes it: `type` says which other fields it uses. */
export interface Condition {
  type: ConditionType;
  /** brand, issuer_country, card_type, currency, customer_country, channel: the accepted values. */
  values?: string[] | null;
  /** bin: prefixes of 6 to 8 digits, `from` ≤ `to`, both of one length. */
  ranges?: BinRange[] | null;
  /** amount: inclusive bounds in minor units (either may be absent). */
  min?: number | null;
  max?: number | null;
  /** metadata: the key, and the value it must equal (absent: the key must be present). */
  key?: string | null;
  equals?: string | null;
}

export interface Split {
  service_uuid: string;
  weight: number;
}

export interface Action {
  type: 'service' | 'split';
  service_uuid?: string | null;
  splits?: Split[] | null;
  fallbacks?: string[] | null;
}

export interface Rule {
  name: string;
  conditions: Condition[];
  action: Action;
}

/** A profile's content, as written (the API body without its signature). */
export interface ProfileInput {
  service_uuid: string;
  name: string;
  status?: ProfileStatus | null;
  max_attempts?: number | null;
  rules?: Rule[] | null;
}

/** A profile as `decide` needs it (stored rows are turned into this). */
export interface Profile {
  id: string;
  service_uuid: string;
  name: string;
  status: ProfileStatus;
  max_attempts: number;
  version: number;
  rules: Rule[];
}

/** What is known of a payment before any processor is called. */
export interface Facts {
  entry_service_uuid: string;
  order_uuid: string;
  /** minor units */
  amount: number;
  /** ISO 4217 alpha-3 */
  currency: string;
  brand: string | null;
  /** 6 to 8 digits */
  bin: string | null;
  issuer_country?: string | null;
  card_type?: string | null;
  customer_country?: string | null;
  channel: Channel;
  metadata?: Record<string, string> | null;
}

export interface FieldProblem {
  field: string;
  problem: string;
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
const ALPHA2 = /^[A-Z]{2}$/;
const ALPHA3 = /^[A-Z]{3}$/;
const BRAND = /^[A-Z][A-Z0-9_]{1,29}$/;
const PREFIX = /^[0-9]{6,8}$/;

/** The values each list condition takes: a check and what the problem says. */
const VALUE_RULES: Partial<Record<ConditionType, { ok: (v: string) => boolean; what: string }>> = {
  brand: { ok: (v) => BRAND.test(v), what: 'card brands in capitals (VISA, MASTERCARD, AMEX...)' },
  issuer_country: { ok: (v) => ALPHA2.test(v), what: 'ISO 3166 alpha-2 country codes in capitals (ES, FR...)' },
  customer_country: { ok: (v) => ALPHA2.test(v), what: 'ISO 3166 alpha-2 country codes in capitals (ES, FR...)' },
  currency: { ok: (v) => ALPHA3.test(v), what: 'ISO 4217 alpha-3 currency codes in capitals (EUR, USD...)' },
  card_type: { ok: (v) => (CARD_TYPES as readonly string[]).includes(v), what: `card types: ${CARD_TYPES.join(', ')}` },
  channel: { ok: (v) => (CHANNELS as readonly string[]).includes(v), what: `channels: ${CHANNELS.join(', ')}` },
};

/** The fields a condition type uses (any other given is a problem, so a mistyped condition is not silently wide). */
const FIELDS_OF: Record<ConditionType, ReadonlyArray<keyof Condition>> = {
  brand: ['values'],
  issuer_country: ['values'],
  customer_country: ['values'],
  currency: ['values'],
  card_type: ['values'],
  channel: ['values'],
  bin: ['ranges'],
  amount: ['min', 'max'],
  metadata: ['key', 'equals'],
};
const CONDITION_FIELDS: ReadonlyArray<keyof Condition> = ['values', 'ranges', 'min', 'max', 'key', 'equals'];

const given = (v: unknown) => v !== undefined && v !== null;

function checkCondition(c: Condition, at: string, out: FieldProblem[]): void {
  const own = FIELDS_OF[c.type];
  if (!own) {
    out.push({ field: `${at}.type`, problem: `must be one of: ${CONDITION_TYPES.join(', ')}` });
    return;
  }
  for (const f of CONDITION_FIELDS) if (!own.includes(f) && given(c[f])) out.push({ field: `${at}.${f}`, problem: `is not a field of a ${c.type} condition (it takes ${own.join(', ')})` });
  const values = VALUE_RULES[c.type];
  if (values) {
    if (!c.values || c.values.length === 0) out.push({ field: `${at}.values`, problem: `is required: ${values.what}` });
    else c.values.forEach((v, i) => {
      if (!values.ok(v)) out.push({ field: `${at}.values[${i}]`, problem: `must be one of the ${values.what}` });
    });
  }
  if (c.type === 'bin') {
    if (!c.ranges || c.ranges.length === 0) out.push({ field: `${at}.ranges`, problem: 'is required: BIN ranges {from, to} of 6 to 8 digits' });
    else c.ranges.forEach((r, i) => {
      if (!PREFIX.test(r.from)) out.push({ field: `${at}.ranges[${i}].from`, problem: 'must be 6 to 8 digits' });
      if (!PREFIX.test(r.to)) out.push({ field: `${at}.ranges[${i}].to`, problem: 'must be 6 to 8 digits' });
      if (PREFIX.test(r.from) && PREFIX.test(r.to)) {
        if (r.from.length !== r.to.length) out.push({ field: `${at}.ranges[${i}]`, problem: 'from and to must have the same number of digits' });
        else if (r.from > r.to) out.push({ field: `${at}.ranges[${i}]`, problem: `from (${r.from}) must not be above to (${r.to})` });
      }
    });
  }
  if (c.type === 'amount') {
    if (!given(c.min) && !given(c.max)) out.push({ field: `${at}.min`, problem: 'min or max (minor units) is required for an amount condition' });
    if (given(c.min) && given(c.max) && c.min! > c.max!) out.push({ field: `${at}.max`, problem: `must not be below min (${c.min})` });
  }
  if (c.type === 'metadata' && (!c.key || c.key.length === 0)) out.push({ field: `${at}.key`, problem: 'is required: the metadata key' });
}

/** A service a profile names, and the field that names it. */
export interface NamedService {
  uuid: string;
  field: string;
}

function checkAction(a: Action, at: string, out: FieldProblem[], services: NamedService[]): void {
  const uuid = (v: string, field: string) => {
    if (!UUID.test(v)) out.push({ field, problem: 'must be a UUID' });
    else services.push({ uuid: v.toLowerCase(), field });
  };
  if (a.type === 'service') {
    if (!a.service_uuid) out.push({ field: `${at}.service_uuid`, problem: 'is required for a service action' });
    else uuid(a.service_uuid, `${at}.service_uuid`);
    if (given(a.splits)) out.push({ field: `${at}.splits`, problem: 'is for a split action only' });
  } else if (a.type === 'split') {
    if (given(a.service_uuid)) out.push({ field: `${at}.service_uuid`, problem: 'is for a service action only (a split names its services in splits)' });
    if (!a.splits || a.splits.length < 2) out.push({ field: `${at}.splits`, problem: `a split action needs 2 to ${MAX_SPLITS} services with their weights` });
    else {
      const seen = new Set<string>();
      a.splits.forEach((s, i) => {
        uuid(s.service_uuid, `${at}.splits[${i}].service_uuid`);
        if (!Number.isInteger(s.weight) || s.weight < 1) out.push({ field: `${at}.splits[${i}].weight`, problem: 'must be a positive integer' });
        if (seen.has(s.service_uuid.toLowerCase())) out.push({ field: `${at}.splits[${i}].service_uuid`, problem: 'is named twice in the split' });
        seen.add(s.service_uuid.toLowerCase());
      });
    }
  } else out.push({ field: `${at}.type`, problem: 'must be one of: service, split' });
  (a.fallbacks ?? []).forEach((f, i) => uuid(f, `${at}.fallbacks[${i}]`));
}

/**
 * Every problem of a profile's content, each naming its field (`rules[2].action.splits[0].weight`),
 * and the services its rules name (to be checked as the merchant's own by the caller). Empty: valid.
 */
export function profileProblems(p: ProfileInput): { problems: FieldProblem[]; services: NamedService[] } {
  const out: FieldProblem[] = [];
  const services: NamedService[] = [];
  if (!UUID.test(p.service_uuid)) out.push({ field: 'service_uuid', problem: 'must be a UUID' });
  if (p.name.trim().length === 0) out.push({ field: 'name', problem: 'must not be blank' });
  const max = p.max_attempts ?? DEFAULT_MAX_ATTEMPTS;
  if (!Number.isInteger(max) || max < 1 || max > MAX_ATTEMPTS_LIMIT) out.push({ field: 'max_attempts', problem: `must be an integer from 1 to ${MAX_ATTEMPTS_LIMIT}` });
  const rules = p.rules ?? [];
  if (rules.length > MAX_RULES) out.push({ field: 'rules', problem: `has ${rules.length} rules: at most ${MAX_RULES}` });
  const names = new Map<string, number>();
  rules.forEach((r, i) => {
    const at = `rules[${i}]`;
    if (r.name.trim().length === 0) out.push({ field: `${at}.name`, problem: 'must not be blank' });
    const before = names.get(r.name);
    if (before !== undefined) out.push({ field: `${at}.name`, problem: `"${r.name}" is already the name of rules[${before}]: rule names are unique in a profile` });
    else names.set(r.name, i);
    r.conditions.forEach((c, j) => checkCondition(c, `${at}.conditions[${j}]`, out));
    checkAction(r.action, `${at}.action`, out, services);
  });
  return { problems: out, services };
}

/** The sentence of a list of problems (the error envelope's `details`). */
export function problemsSentence(problems: FieldProblem[]): string {
  return problems.map((p) => `${p.field} ${p.problem}`).join('; ');
}

/** A profile's content in its canonical form: upper-case codes, lower-case uuids, nulls dropped. */
export function normalizeRules(rules: Rule[]): Rule[] {
  const up = (xs: string[] | null | undefined) => (xs ? xs.map((x) => x.trim().toUpperCase()) : undefined);
  return rules.map((r) => ({
    name: r.name.trim(),
    conditions: r.conditions.map((c) => {
      const n: Condition = { type: c.type };
      if (given(c.values)) n.values = up(c.values);
      if (given(c.ranges)) n.ranges = c.ranges!.map((x) => ({ from: x.from, to: x.to }));
      if (given(c.min)) n.min = c.min!;
      if (given(c.max)) n.max = c.max!;
      if (given(c.key)) n.key = c.key!;
      if (given(c.equals)) n.equals = c.equals!;
      return n;
    }),
    action: {
      type: r.action.type,
      ...(r.action.type === 'service' && r.action.service_uuid ? { service_uuid: r.action.service_uuid.toLowerCase() } : {}),
      ...(r.action.type === 'split' && r.action.splits ? { splits: r.action.splits.map((s) => ({ service_uuid: s.service_uuid.toLowerCase(), weight: s.weight })) } : {}),
      fallbacks: (r.action.fallbacks ?? []).map((f) => f.toLowerCase()),
    },
  }));
}

// ---- compiled form -------------------------------------------------------------------------------------

type Test = (f: Facts) => boolean;

export interface CompiledRule {
  name: string;
  test: Test;
  /** service: one target; split: cumulative weights over `targets`. */
  targets: string[];
  cumulative: number[] | null;
  total: number;
  fallbacks: string[];
}

export interface CompiledProfile {
  profile: Profile;
  rules: CompiledRule[];
}

function conditionTest(c: Condition): Test {
  const set = (xs: string[] | null | undefined) => new Set((xs ?? []).map((x) => x.toUpperCase()));
  switch (c.type) {
    case 'brand': {
      const s = set(c.values);
      return (f) => f.brand !== null && s.has(f.brand);
    }
    case 'issuer_country': {
      const s = set(c.values);
      return (f) => !!f.issuer_country && s.has(f.issuer_country);
    }
    case 'customer_country': {
      const s = set(c.values);
      return (f) => !!f.customer_country && s.has(f.customer_country);
    }
    case 'card_type': {
      const s = set(c.values);
      return (f) => !!f.card_type && s.has(f.card_type);
    }
    case 'currency': {
      const s = set(c.values);
      return (f) => s.has(f.currency);
    }
    case 'channel': {
      const s = set(c.values);
      return (f) => s.has(f.channel);
    }
    case 'amount': {
      const min = c.min ?? -Infinity;
      const max = c.max ?? Infinity;
      return (f) => f.amount >= min && f.amount <= max;
    }
    case 'bin': {
      const ranges = (c.ranges ?? []).map((r) => ({ len: r.from.length, from: r.from, to: r.to }));
      return (f) => {
        const bin = f.bin;
        if (!bin) return false;
        for (const r of ranges) {
          if (bin.length < r.len) continue;
          const p = bin.length === r.len ? bin : bin.slice(0, r.len);
          if (p >= r.from && p <= r.to) return true;
        }
        return false;
      };
    }
    case 'metadata': {
      const key = c.key ?? '';
      const equals = c.equals ?? null;
      return (f) => {
        const m = f.metadata;
        if (!m || !Object.prototype.hasOwnProperty.call(m, key)) return false;
        return equals === null || m[key] === equals;
      };
    }
  }
}

/** Turns a profile into closures `decide` runs (done once per profile version, then cached). */
export function compileProfile(profile: Profile): CompiledProfile {
  return {
    profile,
    rules: profile.rules.map((r) => {
      const tests = r.conditions.map(conditionTest);
      const test: Test = tests.length === 0 ? () => true : tests.length === 1 ? tests[0] : (f) => {
        for (let i = 0; i < tests.length; i++) if (!tests[i](f)) return false;
        return true;
      };
      if (r.action.type === 'split') {
        const splits = r.action.splits ?? [];
        const cumulative: number[] = [];
        let total = 0;
        for (const s of splits) cumulative.push((total += s.weight));
        return { name: r.name, test, targets: splits.map((s) => s.service_uuid.toLowerCase()), cumulative, total, fallbacks: (r.action.fallbacks ?? []).map((x) => x.toLowerCase()) };
      }
      return { name: r.name, test, targets: [(r.action.service_uuid ?? '').toLowerCase()], cumulative: null, total: 0, fallbacks: (r.action.fallbacks ?? []).map((x) => x.toLowerCase()) };
    }),
  };
}
