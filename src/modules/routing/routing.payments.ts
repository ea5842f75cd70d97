/**
 * Routing as the payments module asks for it (its `PaymentRouter`, given to it by the app): the entry
 * service's ACTIVE profile decides the attempts of a card payment, each named with its service's type
 * (the connector that takes it); the retry table says whether a failed attempt cascades; each attempt's
 * outcome feeds the health figures and the circuit breaker. A service of the decision that is not the
 * merchant's, not in the order's environment or disabled is left out (its reason says so in the log of
 * the decision, never an error for the customer).
 */
import type { Executor } from '../../platform/db/database.js';
import { TtlCache } from '../../platform/cache/ttl-cache.js';
import { findServiceWithTerminal } from '../services/index.js';
import type { RoutingService } from './routing.service.js';
import type { Channel } from './routing.domain.js';
import { brandOfPrefix } from './routing.bins.js';
import type { AttemptOutcome } from './routing.breaker.js';
import type { TxError } from '../../processors/connector.js';

export interface PaymentRoutingFacts {
  merchantId: string;
  env: 'sandbox' | 'production';
  entryServiceId: string;
  orderId: string;
  amount: number;
  currency: string;
  bin: string;
  channel: 'ECOMMERCE' | 'MOTO' | 'MIT' | 'CARD_PRESENT';
  customerCountry: string | null;
  metadata: Record<string, unknown> | null;
}

export interface PaymentRoute {
  attempts: Array<{ serviceId: string; serviceType: string; rule: string | null; reason: string }>;
  rule: string | null;
}

/** Metadata as routing's conditions read it: string values only. */
function stringMetadata(m: Record<string, unknown> | null): Record<string, string> | null {
  if (!m) return null;
  const out: Record<string, string> = {};
  for (const [k, v] of Object.entries(m)) if (typeof v === 'string' || typeof v === 'number' || typeof v === 'boolean') out[k] = String(v);
  return out;
}

export class PaymentRouting {
  /** Services by id (type, owner, environment, enabled), for PAYGATE_CACHE_TTL_MS. */
  readonly #services: TtlCache<{ type: string; merchantId: string; env: string; enabled: boolean } | null>;

  constructor(
    private readonly routing: RoutingService,
    private readonly db: () => Executor,
    ttlMs: number,
  ) {
    this.#services = new TtlCache(ttlMs);
  }

  /** `db`: the caller's transaction when it holds one (a payment's first step), else the pool. */
  async route(f: PaymentRoutingFacts, db: Executor = this.db()): Promise<PaymentRoute | null> {
    if (f.channel === 'CARD_PRESENT') return null;
    const profile = await this.routing.activeProfileFor(f.merchantId, f.entryServiceId, db);
    if (!profile) return null;
    const bin = await this.routing.binFacts(f.bin, db);
    const decision = this.routing.decide(profile, {
      entry_service_uuid: f.entryServiceId,
      order_uuid: f.orderId,
      amount: f.amount,
      currency: f.currency,
      brand: bin?.brand ?? brandOfPrefix(f.bin),
      bin: f.bin,
      issuer_country: bin?.issuer_country ?? null,
      card_type: bin?.card_type ?? null,
      customer_country: f.customerCountry,
      channel: f.channel as Channel,
      metadata: stringMetadata(f.metadata),
    });
    const attempts: PaymentRoute['attempts'] = [];
    for (const a of decision.attempts) {
      const s = await this.#service(a.service_uuid, db);
      if (!s || s.merchantId !== f.merchantId || s.env !== f.env || !s.enabled) continue;
      attempts.push({ serviceId: a.service_uuid, serviceType: s.type, rule: a.rule, reason: a.reason });
    }
    return attempts.length === 0 ? null : { attempts, rule: decision.rule };
  }

  /** The retry table, for a failure that moved no money (an answered refusal, or a request never sent). */
  cascadeAllowed(failure: { error: string; notSent: boolean }): boolean {
    return this.routing.cascadeAllowed({ error: failure.error as TxError, moneyMayHaveMoved: false }).allowed;
  }

  record(serviceId: string, outcome: AttemptOutcome, ms: number): void {
    this.routing.record(serviceId, outcome, ms);
  }

  async #service(id: string, db: Executor) {
    const kept = this.#services.get(id);
    if (kept !== undefined) return kept;
    const s = await findServiceWithTerminal(db, id);
    return this.#services.set(id, s ? { type: s.type, merchantId: s.merchant_id, env: s.env, enabled: s.enabled } : null);
  }
}
