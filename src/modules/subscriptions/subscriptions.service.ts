/**
 * Recurring billing (section I): the company, products and plans of a merchant, subscriptions and
 * their charges; the service the routes and other modules call.
 *
 * The catalogue (company, products, plans) is subscriptions.catalogue.ts; the schedule (charging a due
 * payment once, retries, the product's notification) is subscriptions.billing.ts. This file holds the
 * subscriptions themselves (subscribe, read, list, cancel) and their payments.
 */
import { randomUUID } from 'node:crypto';
import { IdempotencyStore } from '../../platform/http/idempotency.js';
import { badRequest, notFound } from '../../platform/errors/errors.js';
import type { RequestContext } from '../../platform/http/types.js';
import type { Platform } from '../../platform/index.js';
import { parseFilterDate } from '../../platform/time/format.js';
import { isActive, subscriptionTransition } from './subscription-states.js';
import { CHARGE_QUEUE, ChargeInProgress, SubscriptionsBilling, type ChargeRef, type SubscriptionsDeps } from './subscriptions.billing.js';
import { SubscriptionsCatalogue, checkUrl, ownerOf, type PlanInput, type ProductInput } from './subscriptions.catalogue.js';
import { addInterval, localDay, parseInitialDate, paymentResult, presentPayment, presentSubscription, type IntervalType } from './subscriptions.domain.js';
import * as repo from './subscriptions.repo.js';

export interface SubscribeInput {
  plan: string;
  customer: string;
  total_payment_number?: number | null;
  payment_attempts_limit: number;
  initial_date?: string | null;
  additional_data?: {
    additional?: string | null;
    customer_ext_id?: string | null;
    operative?: string | null;
    service?: string | null;
    source_uuid?: string | null;
    card_uuid?: string | null;
    url_post?: string | null;
  } | null;
}

export interface ListQuery {
  status?: string;
  customer?: string;
  plan?: string;
  product?: string;
  subscription?: string;
  active?: boolean;
  start?: string;
  end?: string;
  limit?: number;
  offset?: number;
}

export class SubscriptionsService {
  readonly #catalogue: SubscriptionsCatalogue;
  readonly #billing: SubscriptionsBilling;

  constructor(
    private readonly p: Platform,
    deps: SubscriptionsDeps,
  ) {
    this.#catalogue = new SubscriptionsCatalogue(p);
    this.#billing = new SubscriptionsBilling(p, deps, this.#catalogue);
  }

  get #db() {
    return this.p.database.db;
  }

  // ---- the catalogue (subscriptions.catalogue.ts) --------------------------------------------------------

  createCompany(ctx: RequestContext) {
    return this.#catalogue.createCompany(ctx);
  }

  getCompany(ctx: RequestContext) {
    return this.#catalogue.getCompany(ctx);
  }

  createProduct(ctx: RequestContext, input: ProductInput) {
    return this.#catalogue.createProduct(ctx, input);
  }

  listProducts(ctx: RequestContext) {
    return this.#catalogue.listProducts(ctx);
  }

  getProduct(ctx: RequestContext, externalId: string) {
    return this.#catalogue.getProduct(ctx, externalId);
  }

  deleteProduct(ctx: RequestContext, externalId: string): Promise<number> {
    return this.#catalogue.deleteProduct(ctx, externalId);
  }

  createPlan(ctx: RequestContext, input: PlanInput) {
    return this.#catalogue.createPlan(ctx, input);
  }

  listPlans(ctx: RequestContext, q: { product?: string } = {}) {
    return this.#catalogue.listPlans(ctx, q);
  }

  getPlan(ctx: RequestContext, externalId: string) {
    return this.#catalogue.getPlan(ctx, externalId);
  }

  deletePlan(ctx: RequestContext, externalId: string): Promise<number> {
    return this.#catalogue.deletePlan(ctx, externalId);
  }

  getPlanById(id: string) {
    return this.#catalogue.getPlanById(id);
  }

  // ---- the schedule (subscriptions.billing.ts) -----------------------------------------------------------

  registerJobs(): void {
    this.#billing.registerJobs();
  }

  /** Makes the charge `ref` once (see SubscriptionsBilling.charge); null when the subscription no longer charges. */
  charge(ref: ChargeRef): Promise<repo.PaymentRow | null> {
    return this.#billing.charge(ref);
  }

  // ---- subscriptions (I12–I15) --------------------------------------------------------------------------

  /**
   * I12. Registers the subscription and schedules its first charge: at once when there is no trial and
   * `initial_date` is today (the answer carries that charge's result), otherwise on that date or after
   * the trial.
   */
  async subscribe(ctx: RequestContext, input: SubscribeInput) {
    const plan = await this.#catalogue.planOf(ctx, String(input.plan));
    const product = (await repo.findProductById(this.#db, plan.product_id))!;
    const customer = String(input.customer).trim();
    if (customer === '') throw badRequest('customer must not be empty');
    const ad = input.additional_data ?? {};
    if (ad.source_uuid && ad.card_uuid && ad.source_uuid.toLowerCase() !== ad.card_uuid.toLowerCase()) throw badRequest('additional_data.source_uuid and additional_data.card_uuid differ');
    const operative = (ad.operative ?? 'AUTHORIZATION').toUpperCase();
    if (operative !== 'AUTHORIZATION') throw badRequest('additional_data.operative must be AUTHORIZATION (subscription charges are captured at once)');
    checkUrl('additional_data.url_post', ad.url_post);
    await this.#catalogue.checkOutgoing(ctx, 'additional_data.url_post', ad.url_post);
    if (ad.customer_ext_id && String(ad.customer_ext_id) !== customer) throw badRequest('additional_data.customer_ext_id differs from customer');

    const tz = ctx.merchant.timezone;
    const now = ctx.clock.now();
    const today = localDay(now, tz);
    let base = now;
    if (input.initial_date !== undefined && input.initial_date !== null) {
      const parsed = parseInitialDate(input.initial_date, tz);
      if (!parsed) throw badRequest('initial_date must be a date (YYYY-MM-DD) or an ISO 8601 date-time');
      if (parsed.day < today) throw badRequest(`initial_date must be today (${today}) or later`);
      base = parsed.day === today ? now : parsed.at;
    }
    let first = base;
    if (plan.trial_available && plan.interval_offset && plan.interval_offset_type) {
      first = addInterval(base, plan.interval_offset, plan.interval_offset_type as IntervalType, tz);
    }
    const additional = {
      additional: ad.additional ?? null,
      customer_ext_id: customer,
      operative,
      service: ad.service ?? null,
      source_uuid: ad.source_uuid ?? ad.card_uuid ?? null,
      url_post: ad.url_post ?? null,
    };
    const id = randomUUID();
    const company = await this.p.database.transaction(async (trx) => {
      const c = await this.#catalogue.company(trx, ctx);
      await repo.insertSubscription(trx, {
        id,
        merchant_id: ctx.merchant.id,
        env: ctx.env,
        key_id: ctx.keyId,
        plan_id: plan.id,
        customer_ext_id: customer,
        additional_data: JSON.stringify(additional),
        amount: Number(plan.amount),
        interval: plan.interval,
        interval_type: plan.interval_type,
        status: 'CREATED',
        active: true,
        total_payment_number: input.total_payment_number ?? null,
        payment_attempts_limit: input.payment_attempts_limit,
        first_charge_date: first,
        next_charge_date: first,
        created_at: now,
        updated_at: now,
      });
      await this.p.jobs.enqueue(trx, this.#billing.chargeJob(ctx, { subscriptionId: id, paymentNumber: 1, attempt: 1, keyId: ctx.keyId }, first));
      // with an Idempotency-Key: a retry whose answer was lost never subscribes (and charges) twice
      await IdempotencyStore.commit(trx, ctx);
      return c;
    });

    const refs = { subscriptionId: id, plan: plan.external_id, product: product.external_id, customer, company: company.id };
    if (first.getTime() <= now.getTime()) {
      // the first charge now, in this request; its job finds it done
      try {
        const payment = await this.charge({ subscriptionId: id, paymentNumber: 1, attempt: 1, keyId: ctx.keyId, at: first.toISOString() });
        if (payment) return paymentResult(payment, refs);
      } catch (err) {
        // the background job got there first: its result follows by notification
        if (err instanceof ChargeInProgress) return paymentResult(err.payment, refs);
        // not settled now (the processor is unreachable, ...): the scheduled job goes on with it
        this.p.logger.warn({ subscription: id, err: err instanceof Error ? err.message : String(err) }, 'first charge left to its job');
      }
    }
    return {
      ...paymentResult(
        { id: null as unknown as string, subscription_id: id, payment_number: 1, attempt: 1, amount: plan.amount, currency: null, status: 'CREATED', payment_date: first, order_id: null, transaction_id: null, source_uuid: additional.source_uuid, error: null, created_at: now, updated_at: now },
        refs,
      ),
    };
  }

  async #presentSubscriptions(rows: repo.SubscriptionRow[]) {
    const payments = await repo.paymentsOf(this.#db, rows.map((r) => r.id));
    const plans = new Map<string, Awaited<ReturnType<SubscriptionsService['getPlanById']>>>();
    const out = [];
    for (const s of rows) {
      if (!plans.has(s.plan_id)) plans.set(s.plan_id, await this.getPlanById(s.plan_id));
      out.push(presentSubscription(s, plans.get(s.plan_id)!, payments.filter((p) => p.subscription_id === s.id)));
    }
    return out;
  }


  async getSubscription(ctx: RequestContext, id: string) {
    const s = await repo.findSubscription(this.#db, ownerOf(ctx), id);
    if (!s) throw notFound(`The subscription ${id} was not found`);
    return (await this.#presentSubscriptions([s]))[0];
  }

  #range(ctx: RequestContext, q: ListQuery): { start?: Date; end?: Date } {
    const out: { start?: Date; end?: Date } = {};
    for (const k of ['start', 'end'] as const) {
      const v = q[k];
      if (v === undefined) continue;
      const d = parseFilterDate(v, ctx.merchant.timezone);
      if (!d) throw badRequest(`${k} must be a date YYYYMMDDHHmm`);
      out[k] = d;
    }
    return out;
  }

  async listSubscriptions(ctx: RequestContext, q: ListQuery) {
    const limit = q.limit ?? 100;
    const offset = q.offset ?? 0;
    const owner = ownerOf(ctx);
    let planId: string | undefined;
    let productId: string | undefined;
    if (q.plan) {
      const plan = await repo.findPlan(this.#db, owner, q.plan);
      if (!plan) return { count: 0, subscriptions: [], next_offset: null };
      planId = plan.id;
    }
    if (q.product) {
      const product = await repo.findProduct(this.#db, owner, q.product);
      if (!product) return { count: 0, subscriptions: [], next_offset: null };
      productId = product.id;
    }
    const { rows, count } = await repo.listSubscriptions(this.#db, owner, {
      status: q.status, customer: q.customer, planId, productId, active: q.active, ...this.#range(ctx, q), limit, offset,
    });
    return { count, subscriptions: await this.#presentSubscriptions(rows), next_offset: offset + rows.length < count ? offset + rows.length : null };
  }

  /** I15: no charge is made after this; answers 1 when it was cancelled now, 0 when it had ended already. */
  async cancel(ctx: RequestContext, id: string): Promise<number> {
    return this.p.database.transaction(async (trx) => {
      const s = await repo.findSubscription(trx, ownerOf(ctx), id, { forUpdate: true });
      if (!s) throw notFound(`The subscription ${id} was not found`);
      if (!isActive(s.status)) return 0;
      const status = subscriptionTransition(s.status, 'CANCEL');
      await repo.updateSubscription(trx, s.id, { status, active: isActive(status), next_charge_date: null, updated_at: ctx.clock.now() });
      await trx
        .deleteFrom('jobs')
        .where('queue', '=', CHARGE_QUEUE)
        .where('status', '=', 'pending')
        .where('dedupe_key', 'like', `charge:${s.id}:%`)
        .execute();
      return 1;
    });
  }

  // ---- subscription payments (I6, I7) -------------------------------------------------------------------

  async getPayment(ctx: RequestContext, id: string) {
    const pay = await repo.findPayment(this.#db, ownerOf(ctx), id);
    if (!pay) throw notFound(`The payment ${id} was not found`);
    const s = (await repo.findSubscription(this.#db, ownerOf(ctx), pay.subscription_id))!;
    const [sub] = await this.#presentSubscriptions([s]);
    const { payments: _payments, ...subscription } = sub;
    return { ...presentPayment(pay), subscription };
  }

  async listPayments(ctx: RequestContext, q: ListQuery) {
    const limit = q.limit ?? 100;
    const offset = q.offset ?? 0;
    let subscriptionId: string | undefined;
    if (q.subscription) {
      const s = await repo.findSubscription(this.#db, ownerOf(ctx), q.subscription);
      if (!s) return { count: 0, payments: [], next_offset: null };
      subscriptionId = s.id;
    }
    const { rows, count } = await repo.listPayments(this.#db, ownerOf(ctx), { status: q.status, subscriptionId, ...this.#range(ctx, q), limit, offset });
    return {
      count,
      payments: rows.map((r) => ({ ...presentPayment(r), subscription: r.subscription_id })),
      next_offset: offset + rows.length < count ? offset + rows.length : null,
    };
  }

  /**
   * The failed charge attempts (declined, or not chargeable), newest due first, each with why it failed
   * and what happens next: RETRIED (a later attempt of the same payment exists; its status), SCHEDULED
   * (the retry is due at `next_attempt_at`) or NONE (the subscription ended: no retry).
   */
  async failedCharges(ctx: RequestContext, page: { limit?: number; offset?: number } = {}) {
    const limit = page.limit ?? 50;
    const offset = page.offset ?? 0;
    const owner = ownerOf(ctx);
    const { rows, count } = await repo.listFailedPayments(this.#db, owner, { limit, offset });
    const ids = [...new Set(rows.map((r) => r.subscription_id))];
    const subs = new Map((await repo.subscriptionsByIds(this.#db, owner, ids)).map((s) => [s.id, s]));
    const all = await repo.paymentsOf(this.#db, ids);
    const plans = new Map<string, repo.PlanRow | undefined>();
    for (const s of subs.values()) if (!plans.has(s.plan_id)) plans.set(s.plan_id, await repo.findPlanById(this.#db, s.plan_id));
    const charges = rows.map((p) => {
      const s = subs.get(p.subscription_id)!;
      const later = all.filter((x) => x.subscription_id === p.subscription_id && x.payment_number === p.payment_number && x.attempt > p.attempt);
      const last = later[later.length - 1];
      let retry: 'RETRIED' | 'SCHEDULED' | 'NONE' = 'NONE';
      if (last) retry = 'RETRIED';
      else if (s.active && s.next_charge_date && s.next_payment_number === p.payment_number) retry = 'SCHEDULED';
      const plan = plans.get(s.plan_id);
      return {
        id: p.id,
        subscription: p.subscription_id,
        customer: s.customer_ext_id,
        plan: plan?.external_id ?? '',
        subscription_status: s.status,
        payment_number: p.payment_number,
        attempt: p.attempt,
        status: p.status,
        payment_date: new Date(p.payment_date).toISOString(),
        amount: Number(p.amount),
        currency: p.currency,
        order_uuid: p.order_id,
        reason: p.error,
        retry,
        retry_attempt: last ? last.attempt : null,
        retry_status: last ? last.status : null,
        next_attempt_at: retry === 'SCHEDULED' ? new Date(s.next_charge_date!).toISOString() : null,
        attempts_limit: s.payment_attempts_limit,
      };
    });
    return { count, charges, next_offset: offset + rows.length < count ? offset + rows.length : null };
  }
}
