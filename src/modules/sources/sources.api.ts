/**
 * The F1-F12 operations of stored payment methods: storing cards (with validation and holder
 * verification through the processor of a service, always outside database transactions), listings,
 * updates and deletion, and the card storage notification job. The vault side other modules use is
 * SourcesService (sources.service.ts).
 */
import { createHmac, randomBytes, randomUUID } from 'node:crypto';
import { OutgoingError, refusedUrlText } from '../../platform/net/outgoing.js';
import type { Platform } from '../../platform/index.js';
import { ApiError, badRequest, notFound, unavailable } from '../../platform/errors/errors.js';
import type { RequestContext } from '../../platform/http/types.js';
import { toWireJson } from '../../platform/http/json.js';
import { okEnvelope } from '../../platform/http/envelope.js';
import { PermanentJobError } from '../../platform/jobs/queue.js';
import { formatContractDate } from '../../platform/time/format.js';
import { Secret } from '../../platform/security/secret.js';
import type { Connector, HolderInput, TerminalRef } from '../../processors/index.js';
import { findCustomer, type Owner } from '../customers/index.js';
import { findServiceWithTerminal, findTerminal, listServices } from '../services/index.js';
import {
  NOTIFICATION_RETRIES_S,
  parseCvv,
  parseExternalId,
  parseFlag,
  parseHolder,
  parseIban,
  parseSourceTypes,
  presentListedSource,
  presentSource,
  selectListing,
  type ListStatus,
} from './sources.domain.js';
import * as repo from './sources.repo.js';
import { CARD_STORED_QUEUE, NO_BLACKLISTS, sourceAad, sourceUuidOf, type CardRequest, type NewCard, type SourcesCore, type SourcesDeps } from './sources.types.js';

interface ServiceTarget {
  serviceId: string;
  connector: Connector;
  terminal: TerminalRef;
  currency: string;
}

const ownerOf = (ctx: RequestContext): Owner => ({ merchantId: ctx.merchant.id, env: ctx.env });

export interface VerificationView {
  uuid: string;
  source_uuid: string;
  status: string;
  result: string | null;
  created: string;
}

export type CustomerSourceView = {
  Customer: { external_id: string; token: string };
  Source: ReturnType<typeof presentSource>;
  verification?: VerificationView;
};

export function presentCustomerOf(row: { customer_ext_id: string; customer_token: string }) {
  return { external_id: row.customer_ext_id, token: row.customer_token };
}

/** The API use cases (F1–F12): validation through the processor, listing, notifications. */
export class SourcesApi {
  constructor(
    private readonly p: Platform,
    private readonly core: SourcesCore,
    private readonly deps: SourcesDeps,
  ) {}

  // ---- processors -----------------------------------------------------------------------------------

  /** The merchant's own enabled service and its processor connector; 404 for others' services. */
  async #target(ctx: RequestContext, serviceId: string): Promise<ServiceTarget> {
    return this.#targetFor(ownerOf(ctx), serviceId);
  }

  async #targetFor(owner: Owner, serviceId: string): Promise<ServiceTarget> {
    const { processors, services } = this.deps;
    if (!processors || !services) throw unavailable('Processors are not available in this process');
    const db = this.p.database.db;
    const s = await findServiceWithTerminal(db, serviceId.toLowerCase());
    if (!s || s.merchant_id !== owner.merchantId || s.env !== owner.env) throw notFound(`The service ${serviceId} was not found`);
    if (!s.enabled || !s.terminal_id || !s.currency_code) throw badRequest(`The service ${serviceId} is not enabled (it has no terminal)`);
    const terminal = await findTerminal(db, s.terminal_id);
    return {
      serviceId: s.id,
      connector: processors.forService(s.type, owner.env),
      terminal: { serviceType: s.type, terminalId: s.terminal_id, credentials: terminal ? services.openCredentials(terminal) : null },
      currency: s.currency_code,
    };
  }

  /** Zero-amount verification of a card. Declines are 400; suspected fraud cannot be tokenized. */
  async #verifyCard(now: Date, target: ServiceTarget, card: { pan: Secret<string>; expMonth: number; expYear: number; holder: string }, cvv: Secret<string> | null, label = '') {
    const r = await target.connector.verifyCard({
      reference: randomUUID(),
      terminal: target.terminal,
      now,
      currency: target.currency,
      card: { pan: card.pan, expiryMonth: card.expMonth, expiryYear: card.expYear, cvv, holder: card.holder },
    });
    if (r.outcome === 'VERIFIED') return;
    if (r.outcome === 'UNKNOWN') throw unavailable(`${label}The service did not answer the card validation; nothing was stored. Try again`);
    if (r.error === 'FRAUD_SUSPECTED' || r.error === 'BLACKLISTED') throw badRequest(`${label}The card cannot be tokenized: suspected fraud`);
    throw badRequest(`${label}The card was not validated by the service (${r.error}): ${r.details}`);
  }

  async #verifyHolder(ctx: RequestContext, target: ServiceTarget, registered: string, holder: HolderInput, sourceId: string): Promise<VerificationView> {
    const r = await target.connector.verifyHolder({ reference: randomUUID(), terminal: target.terminal, now: ctx.clock.now(), registeredHolder: registered, holder });
    return {
      uuid: randomUUID(),
      source_uuid: sourceId,
      status: r.outcome === 'DONE' ? 'DONE' : 'FAILED',
      result: r.outcome === 'DONE' ? r.result : null,
      created: formatContractDate(ctx.clock.now(), ctx.timezone),
    };
  }

  #holderInput(v: boolean | Record<string, unknown>, registered: string): HolderInput {
    if (v === true || typeof v !== 'object') return { name: registered };
    const h = v as HolderInput;
    const has = (x: unknown) => typeof x === 'string' && x.trim() !== '';
    if (!has(h.name) && !has(h.first_name) && !has(h.last_name)) return { ...h, name: registered };
    return h;
  }

  #urlPost(v: string | null | undefined, label = ''): string | null {
    if (v === undefined || v === null || v.trim() === '') return null;
    try {
      const u = new URL(v);
      if (u.protocol !== 'http:' && u.protocol !== 'https:') throw new Error('scheme');
      return u.toString();
    } catch {
      throw badRequest(`${label}url_post must be an http(s) URL`);
    }
  }

  // ---- F1 / F2 ----------------------------------------------------------------------------------------

  async storeCards(ctx: RequestContext, cards: CardRequest[], opts: { many: boolean }) {
    const now = ctx.clock.now();
    const prepared: Array<{ input: NewCard; cvv: Secret<string> | null; req: CardRequest; url: string | null; validated: boolean; verify: HolderInput | null; checked: ReturnType<SourcesCore['checkCard']> }> = [];
    for (const [i, req] of cards.entries()) {
      const label = opts.many ? `cards[${i}]: ` : '';
      const input: NewCard = {
        customerExtId: req.customer_ext_id,
        holder: req.card_holder,
        pan: new Secret(req.card_pan),
        expMonth: req.card_expiry_month,
        expYear: req.card_expiry_year,
        additional: req.additional ?? null,
        origin: 'API',
        at: now,
      };
      const ext = parseExternalId(req.customer_ext_id);
      if ('error' in ext) throw badRequest(label + ext.error);
      let checked;
      try {
        checked = this.core.checkCard(input);
      } catch (err) {
        if (err instanceof ApiError && label) throw badRequest(label + err.details);
        throw err;
      }
      const cvvR = parseCvv(req.card_cvv === null || req.card_cvv === undefined ? undefined : new Secret(req.card_cvv), checked.card.cvvSize);
      if ('error' in cvvR) throw badRequest(label + cvvR.error);
      const validate = req.validate === true;
      const shv = req.source_holder_verification;
      const wantsHolder = shv !== undefined && shv !== null && shv !== false;
      if ((validate || wantsHolder) && !req.service) throw badRequest(`${label}service is required when validate or source_holder_verification is used`);
      prepared.push({
        input,
        cvv: cvvR.ok,
        req,
        url: this.#urlPost(req.url_post, label),
        validated: validate,
        verify: wantsHolder ? this.#holderInput(shv as boolean | Record<string, unknown>, checked.holder) : null,
        checked,
      });
    }
    // a production url_post is judged now with the rules of delivery, as an order's is (400 naming the rule)
    if (ctx.env === 'production') {
      for (const [i, x] of prepared.entries()) {
        const refused = x.url ? await this.p.outgoing.refusalOf(x.url, ctx.env) : null;
        if (refused) throw badRequest(`${opts.many ? `cards[${i}]: ` : ''}${refusedUrlText('url_post', refused)}`);
      }
    }
    // a card under suspected fraud cannot be tokenized (api.md F2)
    if (this.deps.screenCard) {
      for (const [i, c] of prepared.entries()) {
        const pan = c.checked.card.pan.reveal();
        try {
          await this.deps.screenCard(this.p.database.db, ownerOf(ctx), { fingerprint: this.p.vault.fingerprint('pan', pan), bin: c.checked.card.bin, customerExtId: String(c.req.customer_ext_id).trim(), serviceId: c.req.service ?? null, now });
        } catch (err) {
          if (err instanceof ApiError && opts.many) throw badRequest(`cards[${i}]: ${err.details}`);
          throw err;
        }
      }
    }
    // processor calls happen before (never inside) the transaction
    const targets = new Map<string, ServiceTarget>();
    const target = async (id: string) => {
      let t = targets.get(id.toLowerCase());
      if (!t) targets.set(id.toLowerCase(), (t = await this.#target(ctx, id)));
      return t;
    };
    for (const [i, c] of prepared.entries()) {
      if (c.validated) {
        await this.#verifyCard(ctx.clock.now(), await target(c.req.service!), { pan: c.checked.card.pan, expMonth: c.checked.expMonth, expYear: c.checked.expYear, holder: c.checked.holder }, c.cvv, opts.many ? `cards[${i}]: ` : '');
        c.input.validatedAt = ctx.clock.now();
        c.input.tokenizationServiceId = (await target(c.req.service!)).serviceId;
      }
      c.cvv = null; // the CVV is used once and dropped
    }
    const owner = ownerOf(ctx);
    const rows = await this.p.database.transaction(async (trx) => {
      const stored = await this.core.storeCards(trx, owner, prepared.map((c) => c.input));
      const jobs = stored
        .map((row, i) => ({ row, url: prepared[i].url }))
        .filter((x): x is { row: repo.SourceWithCustomer; url: string } => x.url !== null)
        .map(({ row, url }) => ({ queue: CARD_STORED_QUEUE, payload: { sourceId: row.id, url, keyId: ctx.keyId }, merchantId: ctx.env === 'sandbox' ? ctx.merchant.id : null, maxAttempts: 1 + NOTIFICATION_RETRIES_S.length }));
      await this.p.jobs.enqueueMany(trx, jobs);
      return stored;
    });
    const out: CustomerSourceView[] = [];
    for (const [i, row] of rows.entries()) {
      const entry: CustomerSourceView = { Customer: presentCustomerOf(row), Source: presentSource(row) };
      const verify = prepared[i].verify;
      if (verify) entry.verification = await this.#verifyHolder(ctx, await target(prepared[i].req.service!), row.holder, verify, row.id);
      out.push(entry);
    }
    return out;
  }

  // ---- the embedded card form --------------------------------------------------------------------------

  /**
   * Stores a card the customer typed into the embedded card form (the pages module calls this for the
   * customer whose token opened the form). The card is validated, CVV included, through the merchant's
   * first enabled card service (which becomes its tokenization service); a merchant without one gets
   * the card stored unvalidated. Declines are 400 and nothing is stored. The CVV is used once.
   */
  async storeFromCardForm(
    owner: Owner,
    input: { customerExtId: string; holder: string; pan: Secret<string>; expMonth: number; expYear: number; cvv: Secret<string> | null; now: Date },
  ): Promise<repo.SourceWithCustomer> {
    const checked = this.core.checkCard({ holder: input.holder, pan: input.pan, expMonth: input.expMonth, expYear: input.expYear, at: input.now });
    const cvv = parseCvv(input.cvv ?? undefined, checked.card.cvvSize);
    if ('error' in cvv) throw badRequest(cvv.error);
    const { processors } = this.deps;
    const candidates = processors
      ? (await listServices(this.p.database.db, owner.merchantId)).filter(
          (s) => s.env === owner.env && s.enabled && s.terminal_id !== null && s.type !== 'PAYGATEAPM' && processors.supports(s.type, owner.env),
        )
      : [];
    let validatedAt: Date | null = null;
    let serviceId: string | null = null;
    if (candidates.length > 0) {
      const target = await this.#targetFor(owner, candidates[0].id);
      await this.#verifyCard(input.now, target, { pan: checked.card.pan, expMonth: checked.expMonth, expYear: checked.expYear, holder: checked.holder }, cvv.ok);
      validatedAt = input.now;
      serviceId = target.serviceId;
    }
    return this.p.database.transaction((trx) =>
      this.core.storeCard(trx, owner, {
        customerExtId: input.customerExtId,
        holder: checked.holder,
        pan: checked.card.pan,
        expMonth: checked.expMonth,
        expYear: checked.expYear,
        origin: 'CARD_FORM',
        validatedAt,
        tokenizationServiceId: serviceId,
        at: input.now,
      }),
    );
  }

  // ---- F3 -------------------------------------------------------------------------------------------

  async revalidate(ctx: RequestContext, body: { source_uuid?: string; card_uuid?: string; customer_ext_id: string | number; service: string; card_cvv?: string | null }) {
    const owner = ownerOf(ctx);
    const row = await this.#owned(ctx, sourceUuidOf(body), 'card', body.customer_ext_id);
    const card = this.core.openCard(row);
    const cvv = parseCvv(body.card_cvv === null || body.card_cvv === undefined ? undefined : new Secret(body.card_cvv));
    if ('error' in cvv) throw badRequest(cvv.error);
    const target = await this.#target(ctx, body.service);
    await this.#verifyCard(ctx.clock.now(), target, { pan: card.pan, expMonth: card.expMonth, expYear: card.expYear, holder: card.holder }, cvv.ok);
    const at = ctx.clock.now();
    await this.p.database.transaction((trx) => repo.setValidated(trx, row.id, at, target.serviceId));
    const fresh = await this.core.loadSource(this.p.database.db, owner, row.id);
    return { Customer: presentCustomerOf(fresh), Source: presentSource(fresh) };
  }

  // ---- F4 -------------------------------------------------------------------------------------------

  async storeBank(ctx: RequestContext, body: { customer_ext_id: string | number; account_holder: string; iban: string; additional?: string | null; service?: string | null; source_holder_verification?: boolean | Record<string, unknown> | null }) {
    const ext = parseExternalId(body.customer_ext_id);
    if ('error' in ext) throw badRequest(ext.error);
    const holder = parseHolder(body.account_holder, 'account_holder');
    if ('error' in holder) throw badRequest(holder.error);
    const iban = parseIban(body.iban);
    if ('error' in iban) throw badRequest(iban.error);
    const shv = body.source_holder_verification;
    const wantsHolder = shv !== undefined && shv !== null && shv !== false;
    if (wantsHolder && !body.service) throw badRequest('service is required when source_holder_verification is used');
    const target = body.service ? await this.#target(ctx, body.service) : null;
    const owner = ownerOf(ctx);
    const row = await this.p.database.transaction(async (trx) => {
      const customer = await this.core.ensureCustomer(trx, owner, ext.ok, ctx.clock.now());
      const id = randomUUID();
      const plain = iban.ok.iban.reveal();
      const r: repo.SourceRow = {
        id,
        merchant_id: owner.merchantId,
        env: owner.env,
        customer_id: customer.id,
        type: 'bank',
        holder: holder.ok,
        token: randomBytes(20).toString('hex'),
        number_sealed: this.p.vault.seal(plain, sourceAad(id)),
        fingerprint: this.p.vault.fingerprint('iban', plain),
        bin: null,
        last4: iban.ok.last4,
        brand: null,
        brand_description: null,
        card_type: '',
        country: iban.ok.country,
        bank: '',
        prepaid: null,
        expire_month: null,
        expire_year: null,
        additional: body.additional ?? null,
        origin: 'API',
        is_saved: true,
        validation_date: null,
        first_paid_at: null,
        tokenization_service_id: null,
        deleted_at: null,
        created_at: ctx.clock.now(),
      };
      await repo.insertSource(trx, r);
      return { ...r, customer_ext_id: customer.external_id, customer_token: customer.token };
    });
    const out: CustomerSourceView = { Customer: presentCustomerOf(row), Source: presentSource(row) };
    if (wantsHolder && target) out.verification = await this.#verifyHolder(ctx, target, row.holder, this.#holderInput(shv as boolean | Record<string, unknown>, row.holder), row.id);
    return out;
  }

  // ---- F5, F6, F7, F8, F9 -----------------------------------------------------------------------------

  /** A live source of the caller; with `type`, it must be of that type; with a customer, its customer. */
  async #owned(ctx: RequestContext, uuid: string, type?: string, customerExtId?: string | number) {
    const row = await repo.findOwnedSource(this.p.database.db, ownerOf(ctx), uuid);
    if (!row || (type !== undefined && row.type !== type)) throw notFound(`The ${type ?? 'source'} ${uuid} was not found`);
    if (customerExtId !== undefined && row.customer_ext_id !== String(customerExtId).trim()) {
      throw notFound(`The ${type ?? 'source'} ${uuid} of customer ${String(customerExtId).slice(0, 64)} was not found`);
    }
    return row;
  }

  async setAdditional(ctx: RequestContext, type: string, body: { source_uuid?: string; card_uuid?: string; additional?: string | null }) {
    const row = await this.#owned(ctx, sourceUuidOf(body), type);
    const additional = body.additional ?? null;
    await this.p.database.transaction((trx) => repo.updateSource(trx, row.id, { additional }));
    const updated = { ...row, additional };
    return { Customer: presentCustomerOf(updated), Source: presentSource(updated) };
  }

  async changeOwner(ctx: RequestContext, sourceUuid: string, body: { old_external_id: string | number; new_external_id: string | number }) {
    const next = parseExternalId(body.new_external_id, 'new_external_id');
    if ('error' in next) throw badRequest(next.error);
    const row = await this.#owned(ctx, sourceUuid, undefined, body.old_external_id);
    await this.p.database.transaction(async (trx) => {
      const locked = await repo.findOwnedSource(trx, ownerOf(ctx), row.id, { forUpdate: true });
      if (!locked || locked.customer_id !== row.customer_id) throw notFound(`The source ${sourceUuid} was not found`);
      const customer = await this.core.ensureCustomer(trx, ownerOf(ctx), next.ok, ctx.clock.now());
      await repo.updateSource(trx, row.id, { customer_id: customer.id });
    });
  }

  async view(ctx: RequestContext, uuid: string, type?: string) {
    return presentSource(await this.#owned(ctx, uuid, type));
  }

  async remove(ctx: RequestContext, type: string, body: { source_uuid?: string; card_uuid?: string; customer_external_id: string | number }) {
    const row = await this.#owned(ctx, sourceUuidOf(body), type, body.customer_external_id);
    await this.p.database.transaction((trx) => repo.updateSource(trx, row.id, { deleted_at: ctx.clock.now() }));
  }

  // ---- F10, F11 ------------------------------------------------------------------------------------

  async list(ctx: RequestContext, customerExtId: string, q: { sourceType?: string; types?: string[]; status?: ListStatus; unique?: unknown }) {
    const parsedTypes = q.types ? { ok: q.types } : parseSourceTypes(q.sourceType);
    if ('error' in parsedTypes) throw badRequest(parsedTypes.error);
    const customer = await findCustomer(this.p.database.db, ownerOf(ctx), customerExtId.trim());
    if (!customer) throw notFound(`The customer ${customerExtId.slice(0, 64)} was not found`);
    const rows = await repo.listCustomerSources(this.p.database.db, customer.id, parsedTypes.ok ?? undefined);
    const listed = selectListing(rows, { status: q.status ?? 'VALIDATED', unique: parseFlag(q.unique) });
    const cards = listed.filter((r) => r.type === 'card' || r.type === 'dynamic_card');
    const check = this.deps.isBlacklisted ?? NO_BLACKLISTS;
    const blacklisted = cards.length === 0 ? new Set<string>() : await check(ownerOf(ctx), cards.map((r) => ({ sourceId: r.id, fingerprint: r.fingerprint, bin: r.bin, serviceId: r.tokenization_service_id })));
    return listed.map((r) => presentListedSource(r, blacklisted.has(r.id)));
  }

  /**
   * F10 with paging: `limit` sources per page (default 100 when only `cursor` is given) after `cursor`
   * (the `next_cursor` of the previous page). Without either the whole list is returned, as before.
   */
  async listPage(ctx: RequestContext, customerExtId: string, q: { sourceType?: string; status?: ListStatus; unique?: unknown; limit?: number; cursor?: string }) {
    if (q.limit === undefined && (q.cursor === undefined || q.cursor === '')) return { sources: await this.list(ctx, customerExtId, q) };
    const parsedTypes = parseSourceTypes(q.sourceType);
    if ('error' in parsedTypes) throw badRequest(parsedTypes.error);
    let afterId: string | undefined;
    if (q.cursor) {
      const m = /^s1:([0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12})$/.exec(Buffer.from(q.cursor, 'base64url').toString('utf8'));
      if (!m) throw badRequest('cursor is not valid: pass the next_cursor of the previous page unchanged');
      afterId = m[1];
    }
    const db = this.p.database.db;
    const customer = await findCustomer(db, ownerOf(ctx), customerExtId.trim());
    if (!customer) throw notFound(`The customer ${customerExtId.slice(0, 64)} was not found`);
    if (afterId && !(await repo.isCustomerSource(db, customer.id, afterId))) throw badRequest('cursor is not valid: pass the next_cursor of the previous page unchanged');
    const { rows, more } = await repo.pageCustomerSources(db, customer.id, {
      types: parsedTypes.ok ?? undefined,
      validatedOnly: (q.status ?? 'VALIDATED') === 'VALIDATED',
      unique: parseFlag(q.unique),
      limit: q.limit ?? 100,
      afterId,
    });
    const cards = rows.filter((r) => r.type === 'card' || r.type === 'dynamic_card');
    const check = this.deps.isBlacklisted ?? NO_BLACKLISTS;
    const blacklisted = cards.length === 0 ? new Set<string>() : await check(ownerOf(ctx), cards.map((r) => ({ sourceId: r.id, fingerprint: r.fingerprint, bin: r.bin, serviceId: r.tokenization_service_id })));
    return {
      sources: rows.map((r) => presentListedSource(r, blacklisted.has(r.id))),
      next_cursor: more ? Buffer.from(`s1:${rows[rows.length - 1].id}`).toString('base64url') : null,
    };
  }

  // ---- F12 ------------------------------------------------------------------------------------------

  async verifyHolder(ctx: RequestContext, type: string, body: { source_uuid?: string; card_uuid?: string; service: string; holder: Record<string, unknown> }) {
    const row = await this.#owned(ctx, sourceUuidOf(body), type);
    const target = await this.#target(ctx, body.service);
    return this.#verifyHolder(ctx, target, row.holder, this.#holderInput(body.holder, row.holder), row.id);
  }

  // ---- card storage notification --------------------------------------------------------------------

  /** Posts `{Customer, Source}` to url_post, signed like payment notifications (decisions §7). */
  registerJobs(): void {
    this.p.jobs.register<{ sourceId: string; url: string; keyId: string }>(CARD_STORED_QUEUE, async (job) => {
      const db = this.p.database.db;
      const row = await db
        .selectFrom('sources as s')
        .innerJoin('customers as c', 'c.id', 's.customer_id')
        .innerJoin('merchants as m', 'm.id', 's.merchant_id')
        .selectAll('s')
        .select(['c.external_id as customer_ext_id', 'c.token as customer_token', 'm.resend_failed_notifications'])
        .where('s.id', '=', job.payload.sourceId)
        .executeTakeFirst();
      if (!row) throw new PermanentJobError('source not found');
      const key = await db.selectFrom('api_keys').select(['id', 'signature_sealed']).where('id', '=', job.payload.keyId).executeTakeFirst();
      const body = toWireJson(
        okEnvelope({ now: this.p.clock.now(), timezone: this.p.config.timezone }, { Customer: presentCustomerOf(row), Source: presentSource(row) }),
      );
      const headers: Record<string, string> = { 'content-type': 'application/json' };
      if (key) {
        const t = Math.floor(Date.now() / 1000);
        const sig = this.p.vault.open(key.signature_sealed, `signature:${key.id}`);
        headers['paygate-signature'] = `t=${t},v1=${createHmac('sha256', sig.reveal()).update(`${t}.${body}`).digest('hex')}`;
      }
      let problem: string | null = null;
      try {
        const res = await this.p.outgoing.send(job.payload.url, {
          method: 'POST',
          headers,
          body,
          env: row.env,
          timeoutMs: this.p.config.notificationTimeoutMs,
        });
        if (res.status < 200 || res.status >= 300) problem = `url_post answered HTTP ${res.status}`;
      } catch (err) {
        // the class of failure only: never the addresses behind the URL
        problem = `url_post could not be reached: ${err instanceof OutgoingError ? err.message : 'the request failed'}`;
      }
      if (problem === null) return;
      const next = NOTIFICATION_RETRIES_S[job.attempts - 1];
      if (!row.resend_failed_notifications || next === undefined) throw new PermanentJobError(problem);
      return { retryAt: new Date(job.runAt.getTime() + (next - (NOTIFICATION_RETRIES_S[job.attempts - 2] ?? 0)) * 1000) };
    });
  }
}
