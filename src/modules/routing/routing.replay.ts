/**
 * The replay's figures (docs/routing.md "Replay"), pure: payments of the merchant's history go in one at
 * a time, each with the service it actually went to, whether it was approved, and the service the profile
 * would have chosen; only aggregates are kept (per service, per BIN and service, per brand and service,
 * per group of payments priced alike), so the memory does not grow with the history but with its variety.
 *
 * Expected approvals of a payment on a service: the approval rate observed in the same history for its
 * 6-digit BIN on that service, with at least `minObservations` payments behind it; else for its brand on
 * that service; else for the service; else the overall rate. A fee is paid on an approved payment: the
 * expected fee is the fee on the chosen service times the expected approval; the actual fee is the fee
 * of each approved payment on the service that took it.
 */
import { feeLineFor, feeOf, regionOf, type FeeModel } from './routing.fees.js';

/** The most payments one replay reads (the answer says when it stopped there). */
export const REPLAY_CAP = 200_000;
export const REPLAY_MAX_DAYS = 90;
/** Payments an observed approval rate needs behind it before it is used (else the next level). */
export const DEFAULT_MIN_OBSERVATIONS = 5;

export const RATE_SOURCES = ['BIN', 'BRAND', 'SERVICE', 'OVERALL'] as const;
export type RateSource = (typeof RATE_SOURCES)[number];

/** One payment of the history, with what routing and the fee model need. */
export interface ReplayPayment {
  amount: number;
  /** 6 digits, or null when the history does not know the card's BIN */
  bin: string | null;
  brand: string | null;
  card_type: string | null;
  issuer_country: string | null;
  /** the service that took it */
  actual_service: string;
  approved: boolean;
  /** the service the profile chooses for it */
  replayed_service: string;
}

interface Count {
  n: number;
  ok: number;
}

interface Group {
  service: string;
  bin: string | null;
  brand: string | null;
  payments: number;
  amount: number;
  /** the fees of its payments were they all approved */
  fees: number;
}

interface Actual {
  payments: number;
  amount: number;
  approvals: number;
  fees: number;
  unpriced: number;
}

export interface ReplayedFigures {
  payments: number;
  amount: number;
  expected_approvals: number;
  expected_approval_rate: number | null;
  expected_fees: number;
  /** payments whose service has no fee line for them (counted with no fee) */
  unpriced: number;
  /** how many payments' approval rate came from each level */
  rate_sources: Record<'bin' | 'brand' | 'service' | 'overall', number>;
}

export interface ActualFigures {
  payments: number;
  amount: number;
  approvals: number;
  approval_rate: number | null;
  fees: number;
  unpriced: number;
}

export interface ReplayFigures {
  services: Array<{ service_uuid: string; replayed: ReplayedFigures; actual: ActualFigures }>;
  totals: {
    replayed: ReplayedFigures;
    actual: ActualFigures;
    difference: { approvals: number; approval_rate: number | null; fees: number };
  };
}

const r2 = (x: number) => Math.round(x * 100) / 100;
const r4 = (x: number) => Math.round(x * 10_000) / 10_000;
const bump = (m: Map<string, Count>, key: string, ok: boolean) => {
  const c = m.get(key);
  if (c) {
    c.n++;
    if (ok) c.ok++;
  } else m.set(key, { n: 1, ok: ok ? 1 : 0 });
};

export class ReplayTally {
  readonly #byBin = new Map<string, Count>();
  readonly #byBrand = new Map<string, Count>();
  readonly #byService = new Map<string, Count>();
  readonly #overall: Count = { n: 0, ok: 0 };
  readonly #groups = new Map<string, Group>();
  readonly #actual = new Map<string, Actual>();
  readonly #unpriced = new Map<string, number>();

  /** `fees`: the fee model of each service (a service without one prices nothing). */
  constructor(private readonly fees: (serviceUuid: string) => FeeModel | null) {}

  get payments(): number {
    return this.#overall.n;
  }

  #fee(service: string, p: ReplayPayment): number | null {
    const model = this.fees(service);
    const line = model ? feeLineFor(model, p.card_type, regionOf(p.issuer_country, model.merchant_country)) : null;
    return line ? feeOf(line, p.amount) : null;
  }

  add(p: ReplayPayment): void {
    const s = p.actual_service;
    if (p.bin) bump(this.#byBin, `${p.bin}|${s}`, p.approved);
    if (p.brand) bump(this.#byBrand, `${p.brand}|${s}`, p.approved);
    bump(this.#byService, s, p.approved);
    this.#overall.n++;
    if (p.approved) this.#overall.ok++;

    const actualFee = this.#fee(s, p);
    const a = this.#actual.get(s) ?? { payments: 0, amount: 0, approvals: 0, fees: 0, unpriced: 0 };
    a.payments++;
    a.amount += p.amount;
    if (actualFee === null) a.unpriced++;
    if (p.approved) {
      a.approvals++;
      a.fees += actualFee ?? 0;
    }
    this.#actual.set(s, a);

    const to = p.replayed_service;
    const fee = this.#fee(to, p);
    if (fee === null) this.#unpriced.set(to, (this.#unpriced.get(to) ?? 0) + 1);
    const key = `${to}|${p.bin ?? ''}|${p.brand ?? ''}`;
    const g = this.#groups.get(key) ?? { service: to, bin: p.bin, brand: p.brand, payments: 0, amount: 0, fees: 0 };
    g.payments++;
    g.amount += p.amount;
    g.fees += fee ?? 0;
    this.#groups.set(key, g);
  }

  /** The approval rate of a payment of this BIN and brand on `service`, and where it came from. */
  rateOf(service: string, bin: string | null, brand: string | null, minObservations: number): { rate: number; source: RateSource } {
    const enough = (c: Count | undefined) => (c && c.n >= minObservations ? c : undefined);
    const byBin = bin ? enough(this.#byBin.get(`${bin}|${service}`)) : undefined;
    if (byBin) return { rate: byBin.ok / byBin.n, source: 'BIN' };
    const byBrand = brand ? enough(this.#byBrand.get(`${brand}|${service}`)) : undefined;
    if (byBrand) return { rate: byBrand.ok / byBrand.n, source: 'BRAND' };
    const byService = enough(this.#byService.get(service));
    if (byService) return { rate: byService.ok / byService.n, source: 'SERVICE' };
    return { rate: this.#overall.n > 0 ? this.#overall.ok / this.#overall.n : 0, source: 'OVERALL' };
  }

  figures(minObservations: number): ReplayFigures {
    type Raw = { payments: number; amount: number; approvals: number; fees: number; unpriced: number; sources: ReplayedFigures['rate_sources'] };
    const empty = (): Raw => ({ payments: 0, amount: 0, approvals: 0, fees: 0, unpriced: 0, sources: { bin: 0, brand: 0, service: 0, overall: 0 } });
    const replayed = new Map<string, Raw>();
    for (const g of this.#groups.values()) {
      const { rate, source } = this.rateOf(g.service, g.bin, g.brand, minObservations);
      const x = replayed.get(g.service) ?? empty();
      x.payments += g.payments;
      x.amount += g.amount;
      x.approvals += g.payments * rate;
      x.fees += g.fees * rate;
      x.sources[source.toLowerCase() as keyof Raw['sources']] += g.payments;
      replayed.set(g.service, x);
    }
    for (const [s, n] of this.#unpriced) replayed.get(s)!.unpriced = n;
    const present = (x: Raw): ReplayedFigures => ({
      payments: x.payments,
      amount: x.amount,
      expected_approvals: r2(x.approvals),
      expected_approval_rate: x.payments > 0 ? r4(x.approvals / x.payments) : null,
      expected_fees: Math.round(x.fees),
      unpriced: x.unpriced,
      rate_sources: x.sources,
    });
    const presentActual = (a: Actual): ActualFigures => ({ ...a, approval_rate: a.payments > 0 ? r4(a.approvals / a.payments) : null });
    const services = [...new Set([...replayed.keys(), ...this.#actual.keys()])].sort();
    const total = empty();
    for (const x of replayed.values()) {
      total.payments += x.payments;
      total.amount += x.amount;
      total.approvals += x.approvals;
      total.fees += x.fees;
      total.unpriced += x.unpriced;
      for (const k of Object.keys(total.sources) as Array<keyof Raw['sources']>) total.sources[k] += x.sources[k];
    }
    const actual: Actual = { payments: 0, amount: 0, approvals: 0, fees: 0, unpriced: 0 };
    for (const a of this.#actual.values()) {
      actual.payments += a.payments;
      actual.amount += a.amount;
      actual.approvals += a.approvals;
      actual.fees += a.fees;
      actual.unpriced += a.unpriced;
    }
    const t = present(total);
    const ta = presentActual(actual);
    return {
      services: services.map((s) => ({
        service_uuid: s,
        replayed: present(replayed.get(s) ?? empty()),
        actual: presentActual(this.#actual.get(s) ?? { payments: 0, amount: 0, approvals: 0, fees: 0, unpriced: 0 }),
      })),
      totals: {
        replayed: t,
        actual: ta,
        difference: {
          approvals: r2(total.approvals - actual.approvals),
          approval_rate: t.expected_approval_rate === null || ta.approval_rate === null ? null : r4(total.approvals / total.payments - actual.approvals / actual.payments),
          fees: Math.round(total.fees) - actual.fees,
        },
      },
    };
  }
}
