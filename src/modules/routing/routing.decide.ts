/**
 * The routing decision (docs/routing.md "The decision"), pure: the ordered services to try for one
 * payment. The first rule of the profile whose conditions all hold names the primary service (a split
 * picks it by a hash of the order's uuid, so the same order always lands in the same bucket), then its
 * fallbacks in order; duplicates are dropped, services whose circuit is open are skipped (and named in
 * the reason of the next one), and the list is cut at the profile's `max_attempts`. No rule matched, or
 * no profile: the entry service alone.
 */
import type { CompiledProfile, CompiledRule, Facts } from './routing.domain.js';

export interface Attempt {
  service_uuid: string;
  /** the rule that chose it (null: no rule matched, or no profile) */
  rule: string | null;
  /** why it is in the list, in words */
  reason: string;
}

export interface Decision {
  /** first = primary, then the fallbacks, in the order to try */
  attempts: Attempt[];
  /** the rule that matched, or null */
  rule: string | null;
  /** candidates left out because their circuit is open */
  skipped: Array<{ service_uuid: string; reason: string }>;
  /** the profile that decided (null: none) and its version */
  profile: { uuid: string; version: number } | null;
}

export interface DecideOptions {
  /** services whose circuit is open now (skipped) */
  isOpen?: ((serviceUuid: string) => boolean) | ReadonlySet<string>;
  /** a further cap on the attempts (the payments module's own), below the profile's max_attempts */
  maxAttempts?: number;
}

/**
 * 32-bit FNV-1a of a string: the split's bucket of an order. Stable across processes and releases
 * (changing it would move orders between buckets), and cheap.
 */
export function fnv1a(s: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < s.length; i++) {
    h ^= s.charCodeAt(i);
    h = Math.imul(h, 0x01000193);
  }
  return h >>> 0;
}

/** Where an order falls in a split: a point in [0, total) from the hash of its (lower-case) uuid. */
export function splitPoint(orderUuid: string, total: number): number {
  return fnv1a(orderUuid.toLowerCase()) % total;
}

function pick(rule: CompiledRule, orderUuid: string): { index: number; point: number } {
  if (!rule.cumulative) return { index: 0, point: 0 };
  const point = splitPoint(orderUuid, rule.total);
  let i = 0;
  while (rule.cumulative[i] <= point) i++;
  return { index: i, point };
}

function openTest(opt: DecideOptions['isOpen']): (s: string) => boolean {
  if (!opt) return () => false;
  if (typeof opt === 'function') return opt;
  return (s) => opt.has(s);
}

/** The services to try for a payment of `facts`, under `profile` (null: none), in order. */
export function decide(profile: CompiledProfile | null, facts: Facts, options: DecideOptions = {}): Decision {
  const entry = facts.entry_service_uuid.toLowerCase();
  const isOpen = openTest(options.isOpen);
  let rule: CompiledRule | null = null;
  if (profile) {
    const rules = profile.rules;
    for (let i = 0; i < rules.length; i++) {
      if (rules[i].test(facts)) {
        rule = rules[i];
        break;
      }
    }
  }
  const candidates: Attempt[] = [];
  if (!rule) {
    candidates.push({ service_uuid: entry, rule: null, reason: profile ? 'no rule matched: the entry service' : 'no routing profile: the entry service' });
  } else {
    const { index, point } = pick(rule, facts.order_uuid);
    const primary = rule.targets[index];
    const why = rule.cumulative
      ? `rule "${rule.name}": split bucket ${index + 1} of ${rule.targets.length} (weight ${rule.cumulative[index] - (index > 0 ? rule.cumulative[index - 1] : 0)} of ${rule.total}; the order's point ${point})`
      : `rule "${rule.name}": its service`;
    candidates.push({ service_uuid: primary, rule: rule.name, reason: why });
    rule.fallbacks.forEach((f, i) => candidates.push({ service_uuid: f, rule: rule!.name, reason: `rule "${rule!.name}": fallback ${i + 1}` }));
  }
  const cap = Math.max(1, Math.min(profile?.profile.max_attempts ?? 1, options.maxAttempts ?? Infinity));
  const seen = new Set<string>();
  const attempts: Attempt[] = [];
  const skipped: Decision['skipped'] = [];
  let pendingSkips: string[] = [];
  for (const c of candidates) {
    if (seen.has(c.service_uuid)) continue;
    seen.add(c.service_uuid);
    if (isOpen(c.service_uuid)) {
      skipped.push({ service_uuid: c.service_uuid, reason: `circuit open: ${c.reason}` });
      pendingSkips.push(c.service_uuid);
      continue;
    }
    if (attempts.length >= cap) break;
    attempts.push(pendingSkips.length > 0 ? { ...c, reason: `${c.reason} (instead of ${pendingSkips.join(', ')}: circuit open)` } : c);
    pendingSkips = [];
  }
  // every candidate's circuit open: the first one is tried all the same (a breaker must not turn the only
  // way to pay into none); the payments module may still refuse it
  if (attempts.length === 0) {
    const first = candidates[0];
    skipped.shift();
    attempts.push({ ...first, reason: `${first.reason} (every candidate's circuit is open: tried all the same)` });
  }
  return {
    attempts,
    rule: rule?.name ?? null,
    skipped,
    profile: profile ? { uuid: profile.profile.id, version: profile.profile.version } : null,
  };
}
