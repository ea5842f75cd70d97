/**
 * Use cases of the risk module: security lists (L1–L9 and the item listing), the antifraud rules of a
 * merchant, the evaluation of every card payment (the payments module's RiskEvaluator), the screening
 * of cards before they are stored (F2) and the black-list flag of card listings.
 */
import { randomUUID } from 'node:crypto';
import type { Executor, Tx } from '../../platform/db/database.js';
import { badRequest, notFound } from '../../platform/errors/errors.js';
import type { RequestContext } from '../../platform/http/types.js';
import type { Platform } from '../../platform/index.js';
import { TEST_CARDS } from '../../processors/index.js';
import { findContact } from '../customers/index.js';
import type { RiskCheck, RiskEvaluator, RiskVerdict } from '../payments/index.js';
import { findServiceWithTerminal } from '../services/index.js';
import type { SourcesService } from '../sources/index.js';
import {
  KIND_OF,
  MAX_WINDOW_SECONDS,
  VELOCITY_RULES,
  checkSettings,
  decide,
  effectiveSettings,
  knownSettings,
  ipCandidates,
  ipCountry,
  key,
  normalizeEmail,
  normalizePhone,
  parseAddress,
  parseItem,
  removalKeys,
  sandboxCardCountry,
  type ItemType,
  type ListType,
  type ParsedItem,
  type RiskSettings,
  type SettingsInput,
  type VelocityRule,
} from './risk.domain.js';
import * as repo from './risk.repo.js';
import { isUuid } from '../../platform/ids.js';
import { TtlCache } from '../../platform/cache/ttl-cache.js';

export interface RiskDeps {
  sources: SourcesService;
}

/** How long a card rejected as fraud cannot be stored (F2). */
export const REJECTED_CARD_SECONDS = 7 * 86_400;

const ownerOf = (ctx: RequestContext): repo.Owner => ({ merchantId: ctx.merchant.id, env: ctx.env });

export function presentList(l: repo.ListRow) {
  return {
    uuid: l.id,
    type: l.type,
    enabled: l.enabled,
    description: l.description,
    services: l.services,
    items_count: l.item_count,
    created: l.created_at.toISOString(),
    updated: l.updated_at.toISOString(),
  };
}

export function presentItem(i: repo.ItemRow) {
  return { uuid: i.id, type: i.type, value: i.shown, description: i.description, created: i.created_at.toISOString() };
}

export class RiskService implements RiskEvaluator {
  /** Effective settings by merchant, for 2 s (a change made through this process applies at once). */
  readonly #settings = new TtlCache<RiskSettings>(2000);
  /** Enabled lists linked to a service, for 2 s (most services have none: no list query then). */
  readonly #linked = new TtlCache<Array<{ id: string; type: ListType }>>(2000);
  #testCards: Set<string> | null = null;

  constructor(
    private readonly p: Platform,
    private readonly deps: RiskDeps,
  ) {}

  #fingerprint = (pan: string) => this.p.vault.fingerprint('pan', pan);

  /** Keyed fingerprint of a counted thing (no e-mail, IP or customer id in clear in velocity rows). */
  #velocityKey(kind: string, value: string): string {
    return this.p.vault.fingerprint('risk-velocity', `${kind}:${value}`).slice(0, 40);
  }

  #isTestCard(fingerprint: string): boolean {
    this.#testCards ??= new Set(Object.values(TEST_CARDS).map((p) => this.#fingerprint(p)));
    return this.#testCards.has(fingerprint);
  }

  // ---- lists (L1–L9) ----------------------------------------------------------------------------------

  async #list(db: Executor, ctx: RequestContext, id: string, opts: { forUpdate?: boolean } = {}): Promise<repo.ListRow> {
    const l = await repo.findList(db, ownerOf(ctx), id.toLowerCase(), opts);
    if (!l) throw notFound(`The security list ${id} was not found`);
    return l;
  }

  #changed(): void {
    this.#linked.clear();
  }

  async create(ctx: RequestContext, body: { type: ListType; enabled: boolean; description: string }) {
    const now = ctx.clock.now();
    const id = randomUUID();
    await this.p.database.transaction((trx) =>
      repo.insertList(trx, { id, merchant_id: ctx.merchant.id, env: ctx.env, type: body.type, enabled: body.enabled, description: body.description, created_at: now, updated_at: now }),
    );
    return presentList((await repo.findList(this.p.database.db, ownerOf(ctx), id))!);
  }

  async lists(ctx: RequestContext, q: { type?: ListType }) {
    return (await repo.listLists(this.p.database.db, ownerOf(ctx), q.type)).map(presentList);
  }

  async get(ctx: RequestContext, id: string) {
    return presentList(await this.#list(this.p.database.db, ctx, id));
  }

  async remove(ctx: RequestContext, id: string): Promise<void> {
    await this.p.database.transaction(async (trx) => {
      const l = await this.#list(trx, ctx, id, { forUpdate: true });
      await repo.deleteList(trx, l.id);
    });
    this.#changed();
  }

  async setEnabled(ctx: RequestContext, id: string, enabled: boolean) {
    const l = await this.p.database.transaction(async (trx) => {
      const l = await this.#list(trx, ctx, id, { forUpdate: true });
      await repo.updateList(trx, l.id, { enabled, updated_at: ctx.clock.now() });
      return l;
    });
    this.#changed();
    return presentList((await repo.findList(this.p.database.db, ownerOf(ctx), l.id))!);
  }

  /** The caller's own service (404 for another merchant's or environment's). */
  async #service(ctx: RequestContext, serviceId: string): Promise<string> {
    const s = await findServiceWithTerminal(this.p.database.db, serviceId.toLowerCase());
    if (!s || s.merchant_id !== ctx.merchant.id || s.env !== ctx.env) throw notFound(`The service ${serviceId} was not found`);
    return s.id;
  }

  async linkService(ctx: RequestContext, id: string, serviceUuid: string): Promise<void> {
    const serviceId = await this.#service(ctx, serviceUuid);
    await this.p.database.transaction(async (trx) => {
      const l = await this.#list(trx, ctx, id, { forUpdate: true });
      await repo.linkService(trx, l.id, serviceId, ctx.clock.now());
    });
    this.#changed();
  }

  async unlinkService(ctx: RequestContext, id: string, serviceUuid: string): Promise<void> {
    const serviceId = await this.#service(ctx, serviceUuid);
    const removed = await this.p.database.transaction(async (trx) => {
      const l = await this.#list(trx, ctx, id, { forUpdate: true });
      return repo.unlinkService(trx, l.id, serviceId);
    });
    if (!removed) throw notFound(`The service ${serviceUuid} is not linked to the security list ${id}`);
    this.#changed();
  }

  /** L8: every item is checked before any is stored (400 names the first bad one); duplicates are skipped. */
  async addItems(ctx: RequestContext, id: string, items: Array<{ type: ItemType; value: string | number; description?: string | null }>) {
    const parsed: Array<ParsedItem & { description: string | null }> = [];
    const owner = { merchantId: ctx.merchant.id, env: ctx.env };
    for (const [i, item] of items.entries()) {
      const r = parseItem(item, this.#fingerprint);
      if ('error' in r) throw badRequest(`items[${i}]: ${r.error}`);
      let p = r.ok;
      if (p.type === 'CARD_UUID') {
        // a stored card: matched by its card number's fingerprint, so every entry of the same card is
        const src = await this.deps.sources.loadSource(this.p.database.db, owner, p.shown).catch(() => null);
        if (!src || src.type !== 'card') throw badRequest(`items[${i}]: ${p.shown} is not a stored card of this merchant`);
        p = { ...p, matchKey: key('CARD_UUID', src.fingerprint), bin: src.bin, last4: src.last4 };
      }
      parsed.push({ ...p, description: item.description ?? null });
    }
    const now = ctx.clock.now();
    const result = await this.p.database.transaction(async (trx) => {
      const l = await this.#list(trx, ctx, id, { forUpdate: true });
      const added = await repo.insertItems(
        trx,
        l.id,
        parsed.map((p) => ({ id: randomUUID(), type: p.type, match_key: p.matchKey, shown: p.shown, bin: p.bin, last4: p.last4, description: p.description, created_at: now })),
        now,
      );
      return { added, items_count: l.item_count + added };
    });
    return result;
  }

  /** L9: items by uuid or by value (a value removes the item of every type it stands for). */
  async removeItems(ctx: RequestContext, id: string, values: string[]) {
    const ids: string[] = [];
    const keys = new Set<string>();
    for (const v of values) {
      const t = v.trim();
      if (isUuid(t)) {
        // an item's uuid, or the stored card a CARD_UUID item was added with (no look-up per value)
        ids.push(t.toLowerCase());
        continue;
      }
      for (const k of removalKeys(t, this.#fingerprint)) keys.add(k);
    }
    const now = ctx.clock.now();
    return this.p.database.transaction(async (trx) => {
      const l = await this.#list(trx, ctx, id, { forUpdate: true });
      const removed = await repo.deleteItems(trx, l.id, ids, [...keys], now);
      return { removed, items_count: l.item_count - removed };
    });
  }

  async items(ctx: RequestContext, id: string, q: { limit?: number; offset?: number }) {
    const l = await this.#list(this.p.database.db, ctx, id);
    const limit = q.limit ?? 100;
    const offset = q.offset ?? 0;
    const rows = await repo.pageItems(this.p.database.db, l.id, limit, offset);
    return { items: rows.map(presentItem), count: l.item_count, next_offset: offset + rows.length < l.item_count && rows.length === limit ? offset + limit : null };
  }

  // ---- antifraud rules --------------------------------------------------------------------------------

  async settingsOf(db: Executor, merchantId: string): Promise<RiskSettings> {
    const cached = this.#settings.get(merchantId);
    if (cached) return cached;
    return this.#settings.set(merchantId, effectiveSettings((await repo.findSettings(db, merchantId)) as SettingsInput | undefined));
  }

  async getRules(ctx: RequestContext): Promise<RiskSettings> {
    return effectiveSettings((await repo.findSettings(this.p.database.db, ctx.merchant.id)) as SettingsInput | undefined);
  }

  /** PUT: the document given replaces the merchant's; what it leaves out takes the defaults. */
  async putRules(ctx: RequestContext, input: SettingsInput): Promise<RiskSettings> {
    const doc = knownSettings(input);
    const effective = effectiveSettings(doc);
    const problem = checkSettings(effective);
    if (problem) throw badRequest(problem);
    await this.p.database.transaction((trx) => repo.saveSettings(trx, ctx.merchant.id, doc, ctx.clock.now()));
    this.#settings.set(ctx.merchant.id, effective);
    return effective;
  }

  // ---- the evaluation of a card payment (payments' RiskEvaluator) -----------------------------------------

  async #linkedLists(db: Executor, serviceId: string) {
    return this.#linked.get(serviceId) ?? this.#linked.set(serviceId, await repo.linkedLists(db, serviceId));
  }

  /**
   * Evaluates a card payment in the transaction that starts it: security lists linked to the payment's
   * service, then the antifraud rules. Reads and writes (velocity events, cards seen) in one statement;
   * the customer profile (e-mail, phones) is read only when something uses it.
   */
  /**
   * The verdict without touching the database, when the cached settings say nothing is evaluated (no
   * list linked to the service and antifraud off): what `evaluate` would answer. Null otherwise (or when
   * the caches are cold): the caller evaluates in its transaction.
   */
  quickVerdict(c: RiskCheck): RiskVerdict | null {
    const settings = this.#settings.get(c.merchantId);
    const lists = this.#linked.get(c.serviceId);
    if (!settings || !lists) return null;
    const testCard = c.env === 'sandbox' && this.#isTestCard(c.card.fingerprint);
    if (lists.length === 0 && !settings.enabled) return { action: 'PROCEED', antifraud: null, exemption: decide(settings, this.#facts(c, testCard, new Set(), {}, new Set(), null, null)).exemption };
    // lists to look in or payments to count: evaluate reads and writes in the payment's transaction
    if (lists.length > 0 || (settings.enabled && !testCard)) return null;
    // antifraud on, nothing to count (a sandbox test card): the rules decide on the payment alone
    const ip = c.customerIp && parseAddress(c.customerIp) ? parseAddress(c.customerIp)!.toString() : null;
    const cardCountry = c.card.country ?? (c.env === 'sandbox' ? sandboxCardCountry(c.card.iin) : null);
    const d = decide(settings, this.#facts(c, testCard, new Set(), {}, new Set(), null, { card: cardCountry, ip: ipCountry(ip) }));
    if (d.antifraud?.evaluation === 'REJECT' && d.action !== 'BLACKLISTED') return null;
    return { action: d.action, antifraud: d.antifraud, exemption: d.exemption };
  }

  async evaluate(trx: Tx, c: RiskCheck): Promise<RiskVerdict> {
    const settings = await this.settingsOf(trx, c.merchantId);
    const lists = await this.#linkedLists(trx, c.serviceId);
    const testCard = c.env === 'sandbox' && this.#isTestCard(c.card.fingerprint);
    const counting = settings.enabled && !testCard;
    if (lists.length === 0 && !settings.enabled) return { action: 'PROCEED', antifraud: null, exemption: decide(settings, this.#facts(c, testCard, new Set(), {}, new Set(), null, null)).exemption };

    const ip = c.customerIp && parseAddress(c.customerIp) ? parseAddress(c.customerIp)!.toString() : null;
    const cardCountry = c.card.country ?? (c.env === 'sandbox' ? sandboxCardCountry(c.card.iin) : null);
    const ipCtry = ipCountry(ip);
    let email: string | null = null;
    let phones: string[] = [];
    const wantsContact = c.customerExtId !== null && (lists.length > 0 || (counting && settings.rules.EMAIL_VELOCITY.enabled));
    if (wantsContact) {
      const contact = await findContact(trx, { merchantId: c.merchantId, env: c.env }, c.customerExtId!);
      email = contact?.email ? normalizeEmail(contact.email) : null;
      phones = (contact?.phones ?? []).map((p) => normalizePhone(p.number, p.prefix)).filter((x): x is string => !!x);
    }

    const candidates: string[] = [];
    if (lists.length > 0) {
      candidates.push(key('CARD', c.card.fingerprint), key('CARD_UUID', c.card.fingerprint));
      for (let n = 6; n <= Math.min(8, c.card.iin.length); n++) candidates.push(key('BIN', c.card.iin.slice(0, n)));
      if (ip) candidates.push(...ipCandidates(ip));
      for (const ctry of new Set([cardCountry, ipCtry])) if (ctry) candidates.push(key('COUNTRY', ctry));
      if (c.customerExtId !== null) candidates.push(key('CUSTOMER', c.customerExtId));
      if (email) candidates.push(key('EMAIL', email));
      for (const p of phones) candidates.push(key('PHONE', p));
    }

    const counted = new Set<VelocityRule>();
    const velocity: repo.EvaluationQuery['velocity'] = [];
    const record: string[] = [];
    if (counting) {
      const values: Record<VelocityRule, string | null> = {
        CARD_VELOCITY: c.card.fingerprint,
        IP_VELOCITY: ip,
        CUSTOMER_VELOCITY: c.customerExtId,
        EMAIL_VELOCITY: email,
      };
      for (const name of VELOCITY_RULES) {
        const v = values[name];
        if (v === null) continue;
        const k = this.#velocityKey(KIND_OF[name], v);
        record.push(k);
        const rule = settings.rules[name];
        if (rule.enabled) {
          counted.add(name);
          velocity.push({ name, key: k, since: new Date(c.now.getTime() - rule.window_seconds * 1000) });
        }
      }
    }
    const rows = await repo.evaluationRows(trx, {
      merchantId: c.merchantId,
      listIds: lists.map((l) => l.id),
      candidates,
      velocity,
      record,
      cardFingerprint: counting ? c.card.fingerprint : null,
      now: c.now,
    });
    const facts = this.#facts(c, testCard, rows.lists, rows.velocity as Partial<Record<VelocityRule, number>>, counted, rows.card?.first_seen_at ?? null, { card: cardCountry, ip: ipCtry });
    const d = decide(settings, facts);
    // a card rejected as fraud (whatever the channel did with it) cannot be stored for a while
    if (d.antifraud?.evaluation === 'REJECT' && d.action !== 'BLACKLISTED') await repo.markRejected(trx, c.merchantId, c.card.fingerprint, c.now);
    return { action: d.action, antifraud: d.antifraud, exemption: d.exemption };
  }

  #facts(
    c: RiskCheck,
    testCard: boolean,
    lists: ReadonlySet<ListType>,
    velocity: Partial<Record<VelocityRule, number>>,
    counted: ReadonlySet<VelocityRule>,
    firstSeen: Date | null,
    countries: { card: string | null; ip: string | null } | null,
  ) {
    return {
      channel: c.channel,
      amount: c.amount,
      currency: c.currency,
      now: c.now,
      matchedLists: lists,
      testCard,
      customerIp: c.customerIp,
      sandbox: c.env === 'sandbox',
      velocity,
      counted,
      cardFirstSeenAt: firstSeen,
      cardCountry: countries?.card ?? null,
      ipCountry: countries?.ip ?? null,
    };
  }

  // ---- cards outside payments ---------------------------------------------------------------------------

  /**
   * F2 and F1: may this card be stored (tokenized)? Not when an enabled black list (linked to `serviceId`
   * when given, else any of the merchant's) holds the card, its BIN, the customer or the customer's e-mail
   * or phone, nor when a payment with the card was rejected as fraud in the last 7 days: "a card under
   * suspected fraud cannot be tokenized" (400).
   */
  async assertTokenizable(db: Executor, owner: repo.Owner, card: { fingerprint: string; bin: string; customerExtId: string; serviceId?: string | null; now: Date }): Promise<void> {
    const settings = await this.settingsOf(db, owner.merchantId);
    if (settings.enabled) {
      const rejected = await repo.lastRejectOf(db, owner.merchantId, card.fingerprint);
      if (rejected && card.now.getTime() - rejected.getTime() < REJECTED_CARD_SECONDS * 1000) {
        throw badRequest('The card cannot be tokenized: suspected fraud');
      }
    }
    const listIds = await repo.blackListIds(db, owner, card.serviceId ?? null);
    if (listIds.length === 0) return;
    const contact = await findContact(db, owner, card.customerExtId);
    const keys = [key('CARD', card.fingerprint), key('CARD_UUID', card.fingerprint), key('BIN', card.bin.slice(0, 6)), key('CUSTOMER', card.customerExtId)];
    const email = contact?.email ? normalizeEmail(contact.email) : null;
    if (email) keys.push(key('EMAIL', email));
    for (const p of contact?.phones ?? []) {
      const n = normalizePhone(p.number, p.prefix);
      if (n) keys.push(key('PHONE', n));
    }
    const rows = await repo.evaluationRows(db, { merchantId: owner.merchantId, listIds, candidates: keys, velocity: [], record: [], cardFingerprint: null, now: new Date() });
    if (rows.lists.has('BLACKLIST')) throw badRequest('The card cannot be tokenized: suspected fraud');
  }

  /**
   * Card listings (F10, F11): which cards a black list holds (CARD, CARD_UUID or BIN items) — lists linked
   * to the card's tokenization service, or, for a card without one, any enabled black list of the
   * merchant. One query for the whole listing. The shape is the sources module's `BlacklistCheck`.
   */
  blacklistCheck = async (
    owner: repo.Owner,
    cards: ReadonlyArray<{ sourceId: string; fingerprint: string; bin: string | null; serviceId: string | null }>,
  ): Promise<ReadonlySet<string>> => {
    const keysOf = (c: (typeof cards)[number]) => [key('CARD', c.fingerprint), key('CARD_UUID', c.fingerprint), ...(c.bin ? [key('BIN', c.bin.slice(0, 6))] : [])];
    const all = [...new Set(cards.flatMap(keysOf))];
    const services = [...new Set(cards.map((c) => c.serviceId).filter((s): s is string => !!s))];
    const rows = await repo.blacklistedKeys(this.p.database.db, owner, all, services, cards.some((c) => !c.serviceId));
    const out = new Set<string>();
    for (const c of cards) {
      const ks = new Set(keysOf(c));
      if (rows.some((r) => ks.has(r.match_key) && (!c.serviceId || r.service_id === c.serviceId))) out.add(c.sourceId);
    }
    return out;
  };

  // ---- background -----------------------------------------------------------------------------------------

  registerJobs(): void {
    this.p.jobs.register('risk.purge', async () => {
      // velocity events older than the longest window any rule may use (merchant clocks only run ahead)
      await repo.purgeVelocity(this.p.database.db, new Date(this.p.clock.now().getTime() - MAX_WINDOW_SECONDS * 1000));
    });
    this.p.jobs.every('risk.purge', 3600_000);
  }
}
