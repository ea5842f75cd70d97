/**
 * `POST /routing-profiles/{uuid}/test` (docs/routing.md "Trying a profile"): a hypothetical payment's
 * facts (from a card number or a BIN, the BIN table, what the caller says) and the decision the profile
 * makes for it. The card number is read and forgotten: the answer shows its BIN and last 4 digits at
 * most (the first 6 digits of a card shorter than 16).
 */
import { randomUUID } from 'node:crypto';
import { badRequest } from '../../platform/errors/errors.js';
import { Secret } from '../../platform/security/secret.js';
import { currencyFrom } from '../../platform/money/currency.js';
import { parsePan } from '../sources/index.js';
import type { CardType, Channel, CompiledProfile, Facts } from './routing.domain.js';
import type { Decision } from './routing.decide.js';
import { brandOfPrefix, type BinFacts } from './routing.bins.js';
import type { ProfileRow } from './routing.repo.js';

export interface TestPaymentInput {
  card_pan?: Secret<string> | null;
  bin?: string | null;
  brand?: string | null;
  amount: number;
  currency: string | number;
  channel?: Channel | null;
  issuer_country?: string | null;
  card_type?: CardType | null;
  customer_country?: string | null;
  metadata?: Record<string, string> | null;
  order_uuid?: string | null;
}

export interface TestPaymentDeps {
  binFacts(bin: string): Promise<BinFacts | null>;
  decide(profile: CompiledProfile, facts: Facts): Decision;
}

export async function testPayment(row: ProfileRow, profile: CompiledProfile, input: TestPaymentInput, deps: TestPaymentDeps) {
  if (input.card_pan && input.bin) throw badRequest('card_pan and bin: give one of them, not both');
  if (!input.card_pan && !input.bin) throw badRequest('card_pan or bin is required: the card of the hypothetical payment');
  let bin: string;
  let shown: string;
  let last4: string | null = null;
  let brand: string | null;
  if (input.card_pan) {
    const parsed = parsePan(input.card_pan);
    if ('error' in parsed) throw badRequest(parsed.error, { errors: [{ field: 'card_pan', problem: parsed.error.replace(/^card_pan /, '') }] });
    const digits = parsed.ok.pan.reveal();
    bin = digits.slice(0, 8);
    shown = digits.length >= 16 ? bin : digits.slice(0, 6);
    last4 = parsed.ok.last4;
    brand = parsed.ok.brand;
  } else {
    bin = input.bin!;
    shown = bin;
    brand = null;
  }
  const currency = currencyFrom(input.currency);
  if (!currency) throw badRequest(`currency ${String(input.currency)} is not an ISO 4217 currency`, { errors: [{ field: 'currency', problem: 'must be an ISO 4217 currency (EUR or 978)' }] });
  const known = await deps.binFacts(bin);
  const facts: Facts = {
    entry_service_uuid: row.service_id,
    order_uuid: (input.order_uuid ?? randomUUID()).toLowerCase(),
    amount: input.amount,
    currency: currency.code,
    brand: input.brand?.toUpperCase() ?? brand ?? known?.brand ?? brandOfPrefix(bin),
    bin,
    issuer_country: input.issuer_country?.toUpperCase() ?? known?.issuer_country ?? null,
    card_type: input.card_type ?? known?.card_type ?? null,
    customer_country: input.customer_country?.toUpperCase() ?? null,
    channel: input.channel ?? 'ECOMMERCE',
    metadata: input.metadata ?? {},
  };
  const decision = deps.decide(profile, facts);
  return {
    routing_decision: {
      profile_uuid: row.id,
      profile_version: row.version,
      profile_status: row.status,
      order_uuid: facts.order_uuid,
      facts: {
        bin: shown,
        last4,
        brand: facts.brand,
        issuer_country: facts.issuer_country ?? null,
        card_type: (facts.card_type ?? null) as CardType | null,
        bin_source: known?.source ?? null,
        amount: facts.amount,
        currency: facts.currency,
        customer_country: facts.customer_country ?? null,
        channel: facts.channel,
        metadata: facts.metadata ?? {},
      },
      rule: decision.rule,
      attempts: decision.attempts,
      skipped: decision.skipped,
    },
  };
}
