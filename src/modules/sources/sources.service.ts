/**
 * Use cases of stored payment methods (sources).
 *
 * - SourcesService: what other modules use (index.ts documents it): store cards in the vault, open a
 *   card for a payment, record a successful payment, pick the card of a payout.
 * - SourcesApi (sources.api.ts): the F1–F12 operations: validation and holder verification through the
 *   processor of a service (always outside database transactions), listings, and the card storage
 *   notification job.
 */
import { randomBytes, randomUUID } from 'node:crypto';
import type { Platform } from '../../platform/index.js';
import type { Executor } from '../../platform/db/database.js';
import { ApiError, badRequest, notFound } from '../../platform/errors/errors.js';
import { ensureCustomer, type CustomerRow, type Owner } from '../customers/index.js';
import { parseExpiry, parseExternalId, parseHolder, parsePan, type ParsedCard } from './sources.domain.js';
import * as repo from './sources.repo.js';
import { SourcesApi } from './sources.api.js';
import { sourceAad, type LoadedCard, type NewCard, type SourcesCore, type SourcesDeps } from './sources.types.js';

export class SourcesService implements SourcesCore {
  /** The F1–F12 use cases (HTTP); needs `processors` and `services` in deps. */
  readonly api: SourcesApi;

  constructor(
    private readonly p: Platform,
    deps: SourcesDeps = {},
  ) {
    this.api = new SourcesApi(p, this, deps);
  }

  /** Checks a card (holder, Luhn/brand, expiry) without storing it. Throws 400 naming the field. */
  checkCard(input: Pick<NewCard, 'holder' | 'pan' | 'expMonth' | 'expYear' | 'at'>): { card: ParsedCard; holder: string; expMonth: number; expYear: number } {
    const holder = parseHolder(input.holder);
    if ('error' in holder) throw badRequest(holder.error);
    const card = parsePan(input.pan);
    if ('error' in card) throw badRequest(card.error);
    const exp = parseExpiry(input.expMonth, input.expYear, input.at ?? this.p.clock.now());
    if ('error' in exp) throw badRequest(exp.error);
    return { card: card.ok, holder: holder.ok, expMonth: exp.ok.month, expYear: exp.ok.year };
  }

  /**
   * Stores a card: always a NEW source (decisions §6), the PAN sealed by the vault, a keyed fingerprint
   * for "same card" checks, BIN and last 4 in clear. Creates the customer when missing. Never takes a CVV.
   */
  async storeCard(trx: Executor, owner: Owner, input: NewCard): Promise<repo.SourceWithCustomer> {
    const [stored] = await this.storeCards(trx, owner, [input]);
    return stored;
  }

  /** storeCard for many cards at once (batch insert); all or nothing within `trx`. */
  async storeCards(trx: Executor, owner: Owner, inputs: NewCard[]): Promise<repo.SourceWithCustomer[]> {
    const prepared = inputs.map((input, i) => {
      const ext = parseExternalId(input.customerExtId);
      if ('error' in ext) throw badRequest(inputs.length > 1 ? `cards[${i}]: ${ext.error}` : ext.error);
      try {
        return { input, ext: ext.ok, checked: this.checkCard(input) };
      } catch (err) {
        if (inputs.length > 1 && err instanceof ApiError) throw badRequest(`cards[${i}]: ${err.details}`);
        throw err;
      }
    });
    const customers = new Map<string, CustomerRow>();
    for (const { ext, input } of prepared) {
      if (!customers.has(ext)) customers.set(ext, await this.ensureCustomer(trx, owner, ext, input.at));
    }
    const out: repo.SourceWithCustomer[] = [];
    const rows: repo.SourceRow[] = [];
    for (const { input, ext, checked } of prepared) {
      const id = randomUUID();
      const pan = checked.card.pan.reveal();
      const customer = customers.get(ext)!;
      const row: repo.SourceRow = {
        id,
        merchant_id: owner.merchantId,
        env: owner.env,
        customer_id: customer.id,
        type: 'card',
        holder: checked.holder,
        token: randomBytes(20).toString('hex'),
        number_sealed: this.p.vault.seal(pan, sourceAad(id)),
        fingerprint: this.p.vault.fingerprint('pan', pan),
        bin: checked.card.bin,
        last4: checked.card.last4,
        brand: checked.card.brand,
        brand_description: checked.card.brandDescription,
        card_type: '',
        country: null,
        bank: '',
        prepaid: null,
        expire_month: checked.expMonth,
        expire_year: checked.expYear,
        additional: input.additional ?? null,
        origin: input.origin ?? 'API',
        is_saved: input.isSaved ?? true,
        validation_date: input.validatedAt ?? null,
        first_paid_at: null,
        tokenization_service_id: input.validatedAt ? (input.tokenizationServiceId ?? null) : null,
        deleted_at: null,
        // the merchant's time (its sandbox clock), as orders use
        created_at: input.at ?? this.p.clock.now(),
      };
      rows.push(row);
      out.push({ ...row, customer_ext_id: customer.external_id, customer_token: customer.token });
    }
    for (let i = 0; i < rows.length; i += 500) await repo.insertSources(trx, rows.slice(i, i + 500));
    return out;
  }

  async ensureCustomer(trx: Executor, owner: Owner, externalId: string, at?: Date): Promise<CustomerRow> {
    const { row } = await ensureCustomer(trx, owner, externalId, {
      id: randomUUID(),
      token: randomBytes(20).toString('hex'),
      created_at: at ?? this.p.clock.now(),
    });
    return row;
  }

  /** A live source of `owner` by uuid, any type; 404 for unknown, other merchants' and deleted sources. */
  async loadSource(executor: Executor, owner: Owner, sourceUuid: string, opts: { forUpdate?: boolean } = {}): Promise<repo.SourceWithCustomer> {
    const row = await repo.findOwnedSource(executor, owner, sourceUuid, opts);
    if (!row) throw notFound(`The source ${String(sourceUuid).slice(0, 64)} was not found`);
    return row;
  }

  /**
   * Opens a stored card for a payment: 404 for unknown, other merchants' or deleted sources; 400 when
   * the source is not a card.
   */
  async loadCardForPayment(executor: Executor, owner: Owner, sourceUuid: string): Promise<LoadedCard> {
    return this.openCard(await this.loadSource(executor, owner, sourceUuid));
  }

  openCard(row: repo.SourceWithCustomer): LoadedCard {
    if (row.type !== 'card') throw badRequest(`The source ${row.id} is not a card`);
    return {
      sourceId: row.id,
      customerExtId: row.customer_ext_id,
      holder: row.holder,
      pan: this.p.vault.open(row.number_sealed, sourceAad(row.id)),
      expMonth: row.expire_month!,
      expYear: row.expire_year!,
      bin: row.bin!,
      last4: row.last4,
      brand: row.brand!,
      fingerprint: row.fingerprint,
      row,
    };
  }

  /**
   * A successful payment with the source: it becomes valid (validation_date set if it was not), its
   * first successful payment is recorded (B15 payouts choose the card by its newest payment, read
   * from the transactions), and `serviceId` becomes its tokenization service unless it has one. The
   * row is written only when one of these changes. Call in the payment's transaction.
   */
  async markValidated(trx: Executor, sourceId: string, at: Date, serviceId: string | null = null): Promise<void> {
    await repo.markPaid(trx, sourceId, at, serviceId);
  }

  /** B15: the card with the newest successful payment of the customer, opened; null when none. */
  async lastSuccessfullyUsedCard(executor: Executor, owner: Owner, customerExtId: string | number): Promise<LoadedCard | null> {
    const row = await repo.findLastPaidCard(executor, owner, String(customerExtId));
    return row ? this.openCard(row) : null;
  }
}
