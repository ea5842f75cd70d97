/**
 * The editor's form state of a routing profile and its conversion to and from the merchant API's
 * profile (docs/routing.md): value lists and BIN ranges are edited as text, amounts as minor units.
 * Pure: no React, no requests.
 */
import type { V1Schema } from '../../api';

export type ApiProfile = V1Schema<'RoutingProfile'>;
export type ApiRule = V1Schema<'RoutingRule'>;
export type ApiCondition = V1Schema<'RoutingCondition'>;
export type ApiAction = V1Schema<'RoutingAction'>;

export const CONDITION_TYPES = ['brand', 'bin', 'issuer_country', 'card_type', 'currency', 'amount', 'customer_country', 'channel', 'metadata'] as const;
export type ConditionType = (typeof CONDITION_TYPES)[number];
export const CARD_TYPES = ['CREDIT', 'DEBIT', 'PREPAID'] as const;
export const CHANNELS = ['ECOMMERCE', 'MOTO', 'MIT'] as const;

export interface FormCondition {
  type: ConditionType;
  /** brand, countries, currency: comma-separated; card type and channel: the chosen codes */
  values: string;
  chosen: string[];
  /** bin: `from-to, from-to` */
  ranges: string;
  min: string;
  max: string;
  key: string;
  equals: string;
}

export interface FormAction {
  type: 'service' | 'split';
  service_uuid: string;
  splits: { service_uuid: string; weight: string }[];
  fallbacks: string[];
}

export interface FormRule {
  /** React's key of the rule (kept across moves) */
  id: number;
  name: string;
  conditions: FormCondition[];
  action: FormAction;
}

export interface FormProfile {
  name: string;
  service_uuid: string;
  status: 'ACTIVE' | 'DRAFT';
  max_attempts: string;
  rules: FormRule[];
}

let next = 1;
const nextId = () => next++;

export function emptyCondition(type: ConditionType = 'brand'): FormCondition {
  return { type, values: '', chosen: [], ranges: '', min: '', max: '', key: '', equals: '' };
}

export function emptyRule(n: number): FormRule {
  return { id: nextId(), name: `rule-${n}`, conditions: [], action: { type: 'service', service_uuid: '', splits: [{ service_uuid: '', weight: '50' }, { service_uuid: '', weight: '50' }], fallbacks: [] } };
}

export function emptyProfile(serviceUuid: string): FormProfile {
  return { name: '', service_uuid: serviceUuid, status: 'DRAFT', max_attempts: '3', rules: [] };
}

const CHOSEN: readonly ConditionType[] = ['card_type', 'channel'];
const list = (s: string) => s.split(',').map((x) => x.trim()).filter((x) => x !== '');
/** A list of the API's answer (an optional list may come as "", which means absent). */
const arr = <T,>(x: T[] | string | null | undefined): T[] => (Array.isArray(x) ? x : []);
const int = (s: string) => (s.trim() === '' ? undefined : Number(s.trim()));

export function toForm(p: ApiProfile): FormProfile {
  return {
    name: p.name,
    service_uuid: p.service_uuid,
    status: p.status,
    max_attempts: String(p.max_attempts),
    rules: p.rules.map((r) => ({
      id: nextId(),
      name: r.name,
      conditions: r.conditions.map((c) => ({
        ...emptyCondition(c.type),
        values: CHOSEN.includes(c.type) ? '' : arr(c.values).join(', '),
        chosen: CHOSEN.includes(c.type) ? [...arr(c.values)] : [],
        ranges: arr(c.ranges).map((x) => `${x.from}-${x.to}`).join(', '),
        min: c.min == null ? '' : String(c.min),
        max: c.max == null ? '' : String(c.max),
        key: c.key ?? '',
        equals: c.equals ?? '',
      })),
      action: {
        type: r.action.type,
        service_uuid: r.action.service_uuid ?? '',
        splits: arr(r.action.splits).length ? arr(r.action.splits).map((s) => ({ service_uuid: s.service_uuid, weight: String(s.weight) })) : emptyRule(0).action.splits,
        fallbacks: [...arr(r.action.fallbacks)],
      },
    })),
  };
}

function condition(c: FormCondition): ApiCondition {
  switch (c.type) {
    case 'bin':
      return { type: 'bin', ranges: list(c.ranges).map((r) => { const [from = '', to = from] = r.split('-').map((x) => x.trim()); return { from, to }; }) };
    case 'amount':
      return { type: 'amount', min: int(c.min), max: int(c.max) };
    case 'metadata':
      return { type: 'metadata', key: c.key.trim(), equals: c.equals === '' ? undefined : c.equals };
    case 'card_type':
    case 'channel':
      return { type: c.type, values: c.chosen };
    default:
      return { type: c.type, values: list(c.values) };
  }
}

function action(a: FormAction): ApiAction {
  const fallbacks = a.fallbacks.filter((f) => f !== '');
  if (a.type === 'split') return { type: 'split', splits: a.splits.map((s) => ({ service_uuid: s.service_uuid, weight: Number(s.weight) })), fallbacks };
  return { type: 'service', service_uuid: a.service_uuid, fallbacks };
}

/** The body of POST and PUT /routing-profiles. */
export function toApi(f: FormProfile) {
  return {
    name: f.name,
    service_uuid: f.service_uuid,
    status: f.status,
    max_attempts: int(f.max_attempts),
    rules: f.rules.map((r): ApiRule => ({ name: r.name, conditions: r.conditions.map(condition), action: action(r.action) })),
  };
}

/** `rules[1].action.service_uuid` → its message, from a refused write's `errors: [{field, problem}]`. */
export function fieldProblems(body: unknown): Map<string, string> {
  const out = new Map<string, string>();
  const errors = (body as { errors?: unknown } | null)?.errors;
  if (Array.isArray(errors)) {
    for (const e of errors) if (e && typeof e.field === 'string' && typeof e.problem === 'string') out.set(e.field, `${e.field} ${e.problem}`);
  }
  return out;
}

/** Moves item `i` of a list by `d` places (a copy). */
export function move<T>(xs: readonly T[], i: number, d: -1 | 1): T[] {
  const j = i + d;
  if (j < 0 || j >= xs.length) return [...xs];
  const out = [...xs];
  [out[i], out[j]] = [out[j], out[i]];
  return out;
}

/**
 * What the try-it form sends of a card: a BIN as typed, or the first 8 digits of a card number (6 for one
 * shorter than 16 digits) and its last 4, shown and never sent; null when it is neither.
 */
export function cardOf(text: string): { bin: string; last4: string | null } | null {
  const d = text.replace(/[\s-]/g, '');
  if (!/^\d+$/.test(d)) return null;
  if (d.length >= 6 && d.length <= 8) return { bin: d, last4: null };
  if (d.length >= 12 && d.length <= 19) return { bin: d.slice(0, d.length < 16 ? 6 : 8), last4: d.slice(-4) };
  return null;
}
