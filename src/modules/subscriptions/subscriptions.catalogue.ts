/**
 * Recurring billing's catalogue (section I): the company of a merchant, its products (I2-I5) and plans
 * (I8-I11). The subscriptions service answers for it (see subscriptions.service.ts).
 */
import { randomUUID } from 'node:crypto';
import type { Executor } from '../../platform/db/database.js';
import { badRequest, conflict, notFound } from '../../platform/errors/errors.js';
import { refusedUrlText } from '../../platform/net/outgoing.js';
import type { RequestContext } from '../../platform/http/types.js';
import type { Platform } from '../../platform/index.js';
import { intervalType, presentCompany, presentPlan, presentProduct, type IntervalType } from './subscriptions.domain.js';
import * as repo from './subscriptions.repo.js';

export const ownerOf = (ctx: RequestContext): repo.Owner => ({ merchantId: ctx.merchant.id, env: ctx.env });

export interface ProductInput {
  name: string;
  external_id: string;
  notification_url?: string | null;
}

export interface PlanInput {
  name: string;
  external_id: string;
  product: string;
  amount: number;
  interval?: number | null;
  interval_type: string;
  trial_available?: boolean | null;
  interval_offset?: number | null;
  interval_offset_type?: string | null;
}
export function checkUrl(field: string, v: string | null | undefined): void {
  if (v === undefined || v === null) return;
  let u: URL;
  try {
    u = new URL(v);
  } catch {
    throw badRequest(`${field} must be an absolute http or https URL`);
  }
  if (u.protocol !== 'http:' && u.protocol !== 'https:') throw badRequest(`${field} must be an absolute http or https URL`);
}

export class SubscriptionsCatalogue {
  constructor(private readonly p: Platform) {}

  get #db() {
    return this.p.database.db;
  }

  // ---- company (I1) -------------------------------------------------------------------------------------

  async company(db: Executor, ctx: RequestContext): Promise<repo.CompanyRow> {
    const existing = await repo.findCompany(db, ownerOf(ctx));
    if (existing) return existing;
    const now = ctx.clock.now();
    return repo.ensureCompany(db, ownerOf(ctx), { id: randomUUID(), merchant_id: ctx.merchant.id, env: ctx.env, name: ctx.merchant.name, created_at: now, updated_at: now });
  }

  async createCompany(ctx: RequestContext) {
    return presentCompany(await this.company(this.#db, ctx));
  }

  async getCompany(ctx: RequestContext) {
    const c = await repo.findCompany(this.#db, ownerOf(ctx));
    if (!c) throw notFound('The merchant has no company yet (POST /subscriptions/company creates it)');
    return presentCompany(c);
  }

  /** A production URL the gateway will call is judged now with the rules of delivery (400 naming the rule). */
  async checkOutgoing(ctx: RequestContext, field: string, v: string | null | undefined): Promise<void> {
    if (ctx.env !== 'production' || !v) return;
    const refused = await this.p.outgoing.refusalOf(v, ctx.env);
    if (refused) throw badRequest(refusedUrlText(field, refused));
  }

  // ---- products (I2–I5) ---------------------------------------------------------------------------------

  async createProduct(ctx: RequestContext, input: ProductInput) {
    const name = input.name.trim();
    const externalId = String(input.external_id).trim();
    if (name === '') throw badRequest('name must not be empty');
    if (externalId === '') throw badRequest('external_id must not be empty');
    checkUrl('notification_url', input.notification_url);
    await this.checkOutgoing(ctx, 'notification_url', input.notification_url);
    const now = ctx.clock.now();
    const row: repo.ProductRow = {
      id: randomUUID(),
      merchant_id: ctx.merchant.id,
      env: ctx.env,
      external_id: externalId,
      name,
      notification_url: input.notification_url ?? null,
      created_at: now,
      updated_at: now,
      deleted_at: null,
    };
    await this.p.database.transaction(async (trx) => {
      await this.company(trx, ctx);
      if (await repo.findProduct(trx, ownerOf(ctx), externalId)) throw conflict(`A product with external_id "${externalId}" already exists`);
      try {
        await repo.insertProduct(trx, row);
      } catch (err) {
        if (isUnique(err)) throw conflict(`A product with external_id "${externalId}" already exists`);
        throw err;
      }
    });
    return presentProduct(row);
  }

  async productOf(ctx: RequestContext, externalId: string): Promise<repo.ProductRow> {
    const p = await repo.findProduct(this.#db, ownerOf(ctx), externalId);
    if (!p) throw notFound(`The product ${externalId} was not found`);
    return p;
  }

  async listProducts(ctx: RequestContext) {
    return (await repo.listProducts(this.#db, ownerOf(ctx))).map(presentProduct);
  }

  async getProduct(ctx: RequestContext, externalId: string) {
    return presentProduct(await this.productOf(ctx, externalId));
  }

  /** I5: the product is removed; its plans and subscriptions go on. */
  async deleteProduct(ctx: RequestContext, externalId: string): Promise<number> {
    const p = await this.productOf(ctx, externalId);
    return repo.deleteProduct(this.#db, p.id, ctx.clock.now());
  }

  // ---- plans (I8–I11) -----------------------------------------------------------------------------------

  async createPlan(ctx: RequestContext, input: PlanInput) {
    const name = input.name.trim();
    const externalId = String(input.external_id).trim();
    if (name === '') throw badRequest('name must not be empty');
    if (externalId === '') throw badRequest('external_id must not be empty');
    const type = intervalType(input.interval_type);
    if (!type) throw badRequest('interval_type must be DAILY, WEEKLY, MONTHLY or ANNUAL (YEARLY)');
    let offsetType: IntervalType | null = null;
    if (input.interval_offset_type !== undefined && input.interval_offset_type !== null) {
      offsetType = intervalType(input.interval_offset_type);
      if (!offsetType) throw badRequest('interval_offset_type must be DAILY, WEEKLY, MONTHLY or ANNUAL (YEARLY)');
    }
    const offset = input.interval_offset ?? null;
    const trial = input.trial_available ?? false;
    if (trial && (offset === null || offsetType === null)) throw badRequest('a plan with trial_available needs interval_offset and interval_offset_type (how long the trial lasts)');
    if (offset !== null && offsetType === null) throw badRequest('interval_offset_type is required with interval_offset');
    const product = await this.productOf(ctx, String(input.product));
    const now = ctx.clock.now();
    const row = {
      id: randomUUID(),
      merchant_id: ctx.merchant.id,
      env: ctx.env,
      product_id: product.id,
      external_id: externalId,
      name,
      amount: input.amount,
      interval: input.interval ?? 1,
      interval_type: type,
      interval_offset: offset,
      interval_offset_type: offsetType,
      trial_available: trial,
      created_at: now,
      updated_at: now,
      deleted_at: null,
    };
    await this.p.database.transaction(async (trx) => {
      if (await repo.findPlan(trx, ownerOf(ctx), externalId)) throw conflict(`A plan with external_id "${externalId}" already exists`);
      try {
        await repo.insertPlan(trx, row);
      } catch (err) {
        if (isUnique(err)) throw conflict(`A plan with external_id "${externalId}" already exists`);
        throw err;
      }
    });
    return presentPlan({ ...row, amount: String(row.amount) }, product);
  }

  async planOf(ctx: RequestContext, externalId: string): Promise<repo.PlanRow> {
    const p = await repo.findPlan(this.#db, ownerOf(ctx), externalId);
    if (!p) throw notFound(`The plan ${externalId} was not found`);
    return p;
  }

  async presentPlan(plan: repo.PlanRow) {
    return presentPlan(plan, (await repo.findProductById(this.#db, plan.product_id))!);
  }

  async listPlans(ctx: RequestContext, q: { product?: string } = {}) {
    let productId: string | undefined;
    if (q.product) productId = (await this.productOf(ctx, q.product)).id;
    const plans = await repo.listPlans(this.#db, ownerOf(ctx), productId);
    return Promise.all(plans.map((p) => this.presentPlan(p)));
  }

  async getPlan(ctx: RequestContext, externalId: string) {
    return this.presentPlan(await this.planOf(ctx, externalId));
  }

  /** I11: the plan is removed; its subscriptions go on. */
  async deletePlan(ctx: RequestContext, externalId: string): Promise<number> {
    const p = await this.planOf(ctx, externalId);
    return repo.deletePlan(this.#db, p.id, ctx.clock.now());
  }

  async getPlanById(id: string) {
    return this.presentPlan((await repo.findPlanById(this.#db, id))!);
  }
}

function isUnique(err: unknown): boolean {
  return typeof err === 'object' && err !== null && (err as { code?: string }).code === '23505';
}
