/**
 * What routing costs and would have earned (docs/routing.md "Fees" and "Replay"): the fee model of each
 * of the merchant's services (API), and the replay of a routing profile over the merchant's history. The
 * history comes from the payments module (`paymentHistory`), a page at a time; only aggregates are kept
 * (routing.replay.ts).
 */
import { badRequest, notFound } from '../../platform/errors/errors.js';
import type { RequestContext } from '../../platform/http/types.js';
import type { Platform } from '../../platform/index.js';
import { currencyFrom } from '../../platform/money/currency.js';
import { findServiceWithTerminal, listServices } from '../services/index.js';
import { paymentHistory, type PaymentHistoryRow } from '../payments/index.js';
import { compileProfile, normalizeRules, problemsSentence, type Rule } from './routing.domain.js';
import { decide } from './routing.decide.js';
import { brandOfPrefix, type BinFacts } from './routing.bins.js';
import { feeModelProblems, type FeeLine } from './routing.fees.js';
import { DEFAULT_MIN_OBSERVATIONS, REPLAY_CAP, REPLAY_MAX_DAYS, ReplayTally } from './routing.replay.js';
import type { RoutingService } from './routing.service.js';
import * as repo from './routing.repo.js';

const DAY_MS = 86_400_000;

export interface FeesInput {
  merchant_country: string | null;
  fees: FeeLine[];
}

export interface ReplayInput {
  days: number;
  currency?: string | number | null;
  min_observations?: number | null;
  /** a draft of the rules to replay instead of the stored profile's */
  rules?: Rule[] | null;
}

const own = (ctx: RequestContext): repo.Owner => ({ merchantId: ctx.merchant.id, env: ctx.env });

/** Metadata as routing's conditions read it (routing.payments.ts): string, number and boolean values. */
function stringMetadata(m: Record<string, unknown> | null): Record<string, string> | null {
  if (!m) return null;
  const out: Record<string, string> = {};
  for (const [k, v] of Object.entries(m)) if (typeof v === 'string' || typeof v === 'number' || typeof v === 'boolean') out[k] = String(v);
  return out;
}

export class RoutingEconomics {
  /** The replay's page size and cap (tests lower them to walk several pages and reach the cap). */
  limits = { page: 1000, cap: REPLAY_CAP };

  constructor(
    private readonly p: Platform,
    private readonly routing: RoutingService,
  ) {}

  /** The caller's service, or 404 (another merchant's or another environment's is not found). */
  async #ownService(ctx: RequestContext, uuid: string) {
    const s = await findServiceWithTerminal(this.p.database.db, uuid.toLowerCase());
    if (!s || s.merchant_id !== ctx.merchant.id || s.env !== ctx.env) throw notFound(`The service ${uuid} was not found`);
    return s;
  }

  async #present(ctx: RequestContext, serviceId: string) {
    const model = (await repo.feeModels(this.p.database.db, own(ctx), serviceId)).get(serviceId);
    return {
      routing_fees: {
        service_uuid: serviceId,
        merchant_country: model?.merchant_country ?? null,
        fees: model?.lines ?? [],
        updated_at: model ? model.updated_at.toISOString() : null,
      },
    };
  }

  /** GET /routing/fees/{service_uuid}: the service's fee model (no lines: none set). */
  async getFees(ctx: RequestContext, serviceUuid: string) {
    const s = await this.#ownService(ctx, serviceUuid);
    return this.#present(ctx, s.id);
  }

  /** PUT /routing/fees/{service_uuid}: replaces the service's fee model whole. */
  async putFees(ctx: RequestContext, serviceUuid: string, input: FeesInput) {
    const s = await this.#ownService(ctx, serviceUuid);
    const model = { merchant_country: input.merchant_country ? input.merchant_country.toUpperCase() : null, lines: input.fees };
    const problems = feeModelProblems(model);
    if (problems.length > 0) throw badRequest(problemsSentence(problems), { errors: problems });
    await this.p.database.transaction((trx) =>
      repo.replaceFeeModel(trx, { service_id: s.id, merchant_id: ctx.merchant.id, env: ctx.env, merchant_country: model.merchant_country, updated_at: ctx.clock.now() }, model.lines),
    );
    return this.#present(ctx, s.id);
  }

  /** POST /routing-profiles/{uuid}/replay: the profile (or a draft of its rules) over the last `days` of history. */
  async replay(ctx: RequestContext, id: string, input: ReplayInput) {
    const db = this.p.database.db;
    const row = await repo.findProfile(db, own(ctx), id.toLowerCase());
    if (!row) throw notFound(`The routing profile ${id} was not found`);
    if (!Number.isInteger(input.days) || input.days < 1 || input.days > REPLAY_MAX_DAYS) throw badRequest(`days must be an integer from 1 to ${REPLAY_MAX_DAYS}`, { errors: [{ field: 'days', problem: `must be an integer from 1 to ${REPLAY_MAX_DAYS}` }] });
    const draft = input.rules !== undefined && input.rules !== null;
    if (draft) await this.routing.checkContent(db, ctx, { service_uuid: row.service_id, name: row.name, rules: input.rules });
    const profile = compileProfile({ id: row.id, service_uuid: row.service_id, name: row.name, status: row.status, max_attempts: row.max_attempts, version: row.version, rules: draft ? normalizeRules(input.rules!) : row.rules });
    const known = currencyFrom(input.currency ?? 'EUR');
    if (!known) throw badRequest(`currency ${String(input.currency)} is not an ISO 4217 currency`, { errors: [{ field: 'currency', problem: 'must be an ISO 4217 currency (EUR or 978)' }] });
    const currency = known.code;
    const minObservations = input.min_observations ?? DEFAULT_MIN_OBSERVATIONS;
    const to = ctx.clock.now();
    const from = new Date(to.getTime() - input.days * DAY_MS);

    const fees = await repo.feeModels(db, own(ctx));
    const tally = new ReplayTally((s) => fees.get(s) ?? null);
    const bins = new Map<string, BinFacts | null>();
    const factsOf = async (bin: string | null) => {
      if (!bin) return null;
      if (!bins.has(bin)) bins.set(bin, await this.routing.binFacts(bin));
      return bins.get(bin)!;
    };
    let after: { created_at: Date; id: string } | null = null;
    let read = 0;
    let otherCurrencies = 0;
    let capped = false;
    const { page: PAGE, cap } = this.limits;
    for (;;) {
      const page: PaymentHistoryRow[] = await paymentHistory(this.p.reads.db, { merchantId: ctx.merchant.id, env: ctx.env, entryServiceId: row.service_id, from, to, after, limit: PAGE });
      for (const h of page) {
        if (read >= cap) {
          capped = true;
          break;
        }
        read++;
        if (h.currency !== currency) {
          otherCurrencies++;
          continue;
        }
        const facts = await factsOf(h.bin);
        const brand = h.brand ?? facts?.brand ?? (h.bin ? brandOfPrefix(h.bin) : null);
        const decision = decide(profile, {
          entry_service_uuid: row.service_id,
          order_uuid: h.order_id,
          amount: h.amount,
          currency: h.currency,
          brand,
          bin: h.bin,
          issuer_country: facts?.issuer_country ?? null,
          card_type: facts?.card_type ?? null,
          customer_country: null,
          channel: h.channel,
          metadata: stringMetadata(h.metadata),
        }, { isOpen: () => false });
        tally.add({
          amount: h.amount, bin: h.bin, brand, card_type: facts?.card_type ?? null, issuer_country: facts?.issuer_country ?? null,
          actual_service: h.service_id, approved: h.status === 'SUCCESS', replayed_service: decision.attempts[0].service_uuid,
        });
      }
      if (capped || page.length < PAGE) break;
      const last = page[page.length - 1];
      after = { created_at: last.created_at, id: last.id };
    }

    const figures = tally.figures(minObservations);
    const names = new Map((await listServices(db, ctx.merchant.id)).map((s) => [s.id, s.name]));
    return {
      routing_replay: {
        profile_uuid: row.id,
        profile_version: row.version,
        draft,
        from: from.toISOString(),
        to: to.toISOString(),
        days: input.days,
        currency,
        min_observations: minObservations,
        payments: tally.payments,
        other_currencies: otherCurrencies,
        capped,
        cap,
        services: figures.services.map((s) => ({ ...s, service_name: names.get(s.service_uuid) ?? null })),
        totals: figures.totals,
      },
    };
  }
}
