/**
 * What the two halves of the sources module share: the card a caller stores, the card opened for a
 * payment, the card request of the API, the hooks a risk module provides, and SourcesCore, the part of
 * SourcesService (sources.service.ts) that SourcesApi (sources.api.ts) builds on.
 */
import type { Executor } from '../../platform/db/database.js';
import { badRequest } from '../../platform/errors/errors.js';
import type { Secret } from '../../platform/security/secret.js';
import type { ProcessorRegistry } from '../../processors/index.js';
import type { CustomerRow, Owner } from '../customers/index.js';
import type { ServicesService } from '../services/index.js';
import type { ParsedCard } from './sources.domain.js';
import type * as repo from './sources.repo.js';

export interface NewCard {
  /** customer_ext_id: a string or a number (kept as a string). The customer is created when missing. */
  customerExtId: string | number;
  holder: string;
  pan: Secret<string>;
  expMonth: string | number;
  expYear: string | number;
  additional?: string | null;
  /** Where the card came from: API (default), SINGLE_STEP, MOTO, PAYMENT_PAGE, BATCH, ... */
  origin?: string;
  /** save_card consent (default true). */
  isSaved?: boolean;
  /** Set when the card was validated against the processor before storing. */
  validatedAt?: Date | null;
  /** The service that validated it (card listings show it as `tokenization_service_uuid`). */
  tokenizationServiceId?: string | null;
  /** The merchant's time now (expiry is checked against it); defaults to the platform clock. */
  at?: Date;
}

/** A card opened for a payment. `pan` is a Secret: reveal it only to hand it to a processor. */
export interface LoadedCard {
  sourceId: string;
  customerExtId: string;
  holder: string;
  pan: Secret<string>;
  expMonth: number;
  expYear: number;
  bin: string;
  last4: string;
  brand: string;
  fingerprint: string;
  /** The stored row, for presentSource() in transaction records. */
  row: repo.SourceWithCustomer;
}

export const sourceAad = (id: string) => `source:${id}`;

export const CARD_STORED_QUEUE = 'sources.card_stored';

/** F2 / one card of F1, as the API receives it. */
export interface CardRequest {
  card_holder: string;
  card_pan: string;
  card_expiry_month: string | number;
  card_expiry_year: string | number;
  customer_ext_id: string | number;
  additional?: string | null;
  url_post?: string | null;
  validate?: boolean | null;
  service?: string | null;
  card_cvv?: string | null;
  source_holder_verification?: boolean | Record<string, unknown> | null;
}

/**
 * Which of these cards a black list linked to their tokenization service holds (card listings show it
 * as `is_blacklisted`). A risk module provides it; without one no card is blacklisted.
 */
export type BlacklistCheck = (
  owner: Owner,
  cards: ReadonlyArray<{ sourceId: string; fingerprint: string; bin: string | null; serviceId: string | null }>,
) => Promise<ReadonlySet<string>>;

export const NO_BLACKLISTS: BlacklistCheck = async () => new Set<string>();

/**
 * Screens a card before it is stored (F1, F2): throws 400 for a card under suspected fraud. A risk module
 * provides it; without one every card may be stored.
 */
export type CardScreen = (db: Executor, owner: Owner, card: { fingerprint: string; bin: string; customerExtId: string; serviceId: string | null; now: Date }) => Promise<void>;

export interface SourcesDeps {
  processors?: ProcessorRegistry;
  services?: ServicesService;
  isBlacklisted?: BlacklistCheck;
  screenCard?: CardScreen;
}

/** What SourcesApi uses of SourcesService (the vault side). */
export interface SourcesCore {
  checkCard(input: Pick<NewCard, 'holder' | 'pan' | 'expMonth' | 'expYear' | 'at'>): { card: ParsedCard; holder: string; expMonth: number; expYear: number };
  storeCard(trx: Executor, owner: Owner, input: NewCard): Promise<repo.SourceWithCustomer>;
  storeCards(trx: Executor, owner: Owner, inputs: NewCard[]): Promise<repo.SourceWithCustomer[]>;
  ensureCustomer(trx: Executor, owner: Owner, externalId: string, at?: Date): Promise<CustomerRow>;
  loadSource(executor: Executor, owner: Owner, sourceUuid: string, opts?: { forUpdate?: boolean }): Promise<repo.SourceWithCustomer>;
  openCard(row: repo.SourceWithCustomer): LoadedCard;
}

/** `source_uuid`, or its alias `card_uuid` (decisions §1). */
export function sourceUuidOf(body: { source_uuid?: string; card_uuid?: string }): string {
  const v = body.source_uuid ?? body.card_uuid;
  if (!v) throw badRequest('source_uuid is required');
  return v;
}
