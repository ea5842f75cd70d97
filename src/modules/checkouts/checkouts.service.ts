/**
 * Use cases of checkout configurations: a merchant's checkouts (create, list, read, update, delete),
 * the merged checkout an order's page uses, and `GET /client/resources`.
 */
import { randomUUID } from 'node:crypto';
import type { Executor } from '../../platform/db/database.js';
import { badRequest, notFound } from '../../platform/errors/errors.js';
import type { RequestContext } from '../../platform/http/types.js';
import type { Platform } from '../../platform/index.js';
import type { ServicesService } from '../services/index.js';
import {
  NO_WALLETS,
  checkDefault,
  mergeCheckout,
  parseCustomization,
  parseMethods,
  presentCheckout,
  presentCheckoutResource,
  type CheckoutInput,
  type CheckoutMethod,
  type WalletAvailability,
} from './checkouts.domain.js';
import * as repo from './checkouts.repo.js';

export type Owner = repo.Owner;

export interface CheckoutsDeps {
  services: ServicesService;
  /** Which wallets the merchant's customers are offered (a wallet module provides it; none until then). */
  wallets?: (owner: Owner) => Promise<WalletAvailability>;
}

const ownerOf = (ctx: RequestContext): Owner => ({ merchantId: ctx.merchant.id, env: ctx.env });

export class CheckoutsService {
  constructor(
    private readonly p: Platform,
    private readonly deps: CheckoutsDeps,
  ) {}

  #methods(list: unknown[] | undefined): CheckoutMethod[] | undefined {
    if (list === undefined) return undefined;
    const r = parseMethods(list);
    if ('error' in r) throw badRequest(r.error);
    return r.ok;
  }

  /** Creates a checkout for `owner` (the API and the CLI). */
  async createFor(db: Executor, owner: Owner, input: CheckoutInput & { name: string }, now: Date): Promise<repo.CheckoutRow> {
    const name = input.name.trim();
    if (name === '') throw badRequest('name must not be empty');
    const methods = this.#methods(input.payment_methods) ?? [];
    const def = checkDefault(methods, input.default_payment_method);
    if ('error' in def) throw badRequest(def.error);
    const row: repo.CheckoutRow = {
      id: randomUUID(),
      merchant_id: owner.merchantId,
      env: owner.env,
      name,
      payment_methods: methods,
      default_payment_method: def.ok,
      customization: parseCustomization(input.customization),
      created_at: now,
      updated_at: now,
    };
    await repo.insertCheckout(db, row);
    return row;
  }

  async listFor(db: Executor, owner: Owner): Promise<repo.CheckoutRow[]> {
    return repo.listCheckouts(db, owner);
  }

  async create(ctx: RequestContext, input: CheckoutInput & { name: string }) {
    const row = await this.createFor(this.p.database.db, ownerOf(ctx), input, ctx.clock.now());
    return presentCheckout(row, ctx.timezone);
  }

  async list(ctx: RequestContext) {
    return (await this.listFor(this.p.database.db, ownerOf(ctx))).map((c) => presentCheckout(c, ctx.timezone));
  }

  async #owned(db: Executor, ctx: RequestContext, id: string, forUpdate = false): Promise<repo.CheckoutRow> {
    const c = await repo.findCheckout(db, ownerOf(ctx), id, { forUpdate });
    if (!c) throw notFound(`The checkout ${id} was not found`);
    return c;
  }

  async get(ctx: RequestContext, id: string) {
    return presentCheckout(await this.#owned(this.p.database.db, ctx, id), ctx.timezone);
  }

  /** Partial update: fields left out keep their value; `customization` is replaced as a whole (null clears it). */
  async update(ctx: RequestContext, id: string, input: CheckoutInput) {
    return this.p.database.transaction(async (trx) => {
      const c = await this.#owned(trx, ctx, id, true);
      const set: Partial<repo.CheckoutRow> = { updated_at: ctx.clock.now() };
      if (input.name !== undefined) {
        if (input.name.trim() === '') throw badRequest('name must not be empty');
        set.name = input.name.trim();
      }
      const methods = this.#methods(input.payment_methods);
      if (methods !== undefined) set.payment_methods = methods;
      const finalMethods = (methods ?? c.payment_methods) as CheckoutMethod[];
      const wantedDefault = input.default_payment_method !== undefined ? input.default_payment_method : c.default_payment_method;
      const def = checkDefault(finalMethods, wantedDefault);
      if ('error' in def) throw badRequest(def.error);
      set.default_payment_method = def.ok;
      if (input.customization !== undefined) set.customization = parseCustomization(input.customization);
      await repo.updateCheckout(trx, c.id, set);
      return presentCheckout({ ...c, ...set }, ctx.timezone);
    });
  }

  async remove(ctx: RequestContext, id: string) {
    return this.p.database.transaction(async (trx) => {
      const c = await this.#owned(trx, ctx, id, true);
      await repo.deleteCheckout(trx, c.id);
      return presentCheckout(c, ctx.timezone);
    });
  }

  /**
   * The checkout an order's pages use (the shape of `extra_data.checkout`), or null when the order has
   * none: the stored checkout named by `uuid`, overridden by the fields the order gives. A uuid the
   * merchant does not have (never created, deleted, another merchant's) leaves the order's own fields.
   */
  async forOrder(owner: Owner, extraData: unknown): Promise<Record<string, unknown> | null> {
    const checkout = extraData && typeof extraData === 'object' ? (extraData as Record<string, unknown>).checkout : null;
    if (!checkout || typeof checkout !== 'object' || Array.isArray(checkout)) return null;
    const order = checkout as Record<string, unknown>;
    const stored = typeof order.uuid === 'string' ? await repo.findCheckout(this.p.database.db, owner, order.uuid) : undefined;
    return mergeCheckout(order, stored ?? null);
  }

  /** `GET /client/resources`: services, checkouts and wallet flags of the key's merchant, no envelope. */
  async clientResources(ctx: RequestContext) {
    const owner = ownerOf(ctx);
    const [services, checkouts, wallets] = await Promise.all([
      this.deps.services.listServices(ctx, ctx.merchant.id),
      this.listFor(this.p.database.db, owner),
      this.deps.wallets ? this.deps.wallets(owner) : Promise.resolve(NO_WALLETS),
    ]);
    return {
      services,
      checkouts: checkouts.map(presentCheckoutResource),
      googlePay: { enabled: wallets.googlePay.enabled },
      applePay: { enabled: wallets.applePay.enabled },
    };
  }
}
