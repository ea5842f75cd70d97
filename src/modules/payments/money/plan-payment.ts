/**
 * Step 1 of a card payment, planned once: the status guards (`guardPayment`), then, from what the
 * caller read (the order, the card, the risk verdict), the PENDING transaction, the order's change, and
 * what follows: the 3-D Secure page, a refusal by risk, or the processor request (`planPayment`). Pure:
 * the locked writer (write-locked.ts, the ordinary path of operations/pay.ts) and the optimistic writer
 * (write-optimistic.ts, operations/fast.ts) carry out the same plan; the optimistic one takes only the
 * plans it can write in one statement (`optimisticTakes`) and hands the rest to the locked one.
 */
import { badRequest, conflict, type ApiError } from '../../../platform/errors/errors.js';
import type { CardData, DccData, PaymentRequest, ProcessorOperation } from '../../../processors/index.js';
import { canOrder, orderTransition, type OrderEvent } from '../order-states.js';
import { challengeThreedsRecord, orderUrls, paymentOperation, type DccRecord, type Operative, type TxOperative } from '../payments.domain.js';
import type * as repo from '../payments.repo.js';
import type { PayInput, RiskCheck, RiskVerdict, RoutedAttempt, RoutingFacts } from '../core.js';
import type { KeptCard } from '../threeds-cards.repo.js';
import { exemptionRecord, threedsRecordOf, walletThreedsRecord } from '../operations/input.js';

/** What the guards allow: the order's event, and whether the payment charges a transaction that waited for a device. */
export type PaymentGuard = { event: 'PAYMENT_STARTED' | 'SCA_RETRIED'; waitsForDevice: boolean };

/** The status guards of step 1 (the order's expiry is the caller's: it writes). */
export function guardPayment(o: Pick<repo.LockedOrder, 'status' | 'operative'>, input: PayInput): PaymentGuard | { error: ApiError } {
  // a card read by a device: it charges the transaction that waited for the device (J3, J4), or sends
  // again a payment the issuer asked SCA for on the terminal (operations/device.ts)
  const terminal = input.channel === 'CARD_PRESENT' ? input.cardPresent ?? null : null;
  let guard: PaymentGuard = { event: 'PAYMENT_STARTED', waitsForDevice: false };
  if (terminal?.scaRetry) {
    if (o.status !== 'AUTHENTICATION_REQUIRED') return { error: badRequest(`The order is ${o.status}: only an order waiting for strong customer authentication (AUTHENTICATION_REQUIRED) can be continued`) };
    guard = { event: 'SCA_RETRIED', waitsForDevice: false };
  } else if (o.status === 'PENDING_PROCESSOR_RESPONSE' && terminal) {
    guard = { event: 'PAYMENT_STARTED', waitsForDevice: true };
  } else {
    if (o.status === 'PENDING_PROCESSOR_RESPONSE') return { error: conflict('A payment of this order is in progress') };
    if (!canOrder(o.status, 'PAYMENT_STARTED')) return { error: badRequest(`The order is ${o.status} and cannot be paid`) };
  }
  if (o.operative === 'PAYOUT' || o.operative === 'TRANSFER') return { error: badRequest(`A ${o.operative} order is paid out with POST /payment/payout`) };
  return guard;
}

/** The card as step 1 read or stored it. */
export interface PaymentCard {
  data: CardData;
  sourceId: string | null;
  sourceJson: string | null;
  /** Kept for later payments with the customer's consent: when it was first paid with (null: never). */
  saved: { firstPaidAt: Date | null } | null;
}

export interface PaymentFacts {
  o: repo.LockedOrder;
  input: PayInput;
  guard: PaymentGuard;
  /** The transaction that waited for a device (guard.waitsForDevice), read under the lock. */
  waitTx: Pick<repo.TxRow, 'id' | 'pos'> | null;
  card: PaymentCard;
  risk: RiskVerdict | null;
  dcc: { record: DccRecord | null; data: DccData | null };
  txId: string;
  /** The order's merchant clock. */
  now: Date;
  /** The server's clock (started_at). */
  realNow: Date;
  publicUrl: string;
  /** The attempts routing planned (null: no routing profile: the order's own service). */
  route?: { attempts: RoutedAttempt[]; rule: string | null } | null;
}

/** How routing chose an attempt, as its transaction presents it (`routing`). */
export function routingRecord(a: RoutedAttempt, attempt: number) {
  return { service_uuid: a.serviceId, service: a.serviceType, rule: a.rule, reason: a.reason, attempt };
}

/** The fallbacks left after attempt number `attempt`, as its transaction keeps them (`routing_next`), or null when none. */
export function routingNext(attempt: number, rest: readonly RoutedAttempt[]): RoutingNext | null {
  return rest.length === 0 ? null : { attempt, next: rest.map((a) => ({ service_id: a.serviceId, service_type: a.serviceType, rule: a.rule, reason: a.reason })) };
}

export interface RoutingNext {
  /** The number of the attempt that keeps them (1: the first). */
  attempt: number;
  next: Array<{ service_id: string; service_type: string; rule: string | null; reason: string }>;
}

/** A transaction's `routing_next` as written by `routingNext`, or null. */
export function readRoutingNext(v: unknown): { attempt: number; next: RoutedAttempt[] } | null {
  const r = v as RoutingNext | null | undefined;
  if (!r || typeof r !== 'object' || !Array.isArray(r.next) || r.next.length === 0) return null;
  return { attempt: Number(r.attempt) || 1, next: r.next.map((a) => ({ serviceId: a.service_id, serviceType: a.service_type, rule: a.rule, reason: a.reason })) };
}

/** The order's columns when an attempt goes to another service than the one it processes now. */
export function routedOrderSet(o: Pick<repo.LockedOrder, 'service_id' | 'service_type' | 'entry_service_id' | 'entry_service_type'>, a: Pick<RoutedAttempt, 'serviceId' | 'serviceType'>): Partial<repo.OrderRow> {
  if (a.serviceId === o.service_id) return {};
  return { service_id: a.serviceId, service_type: a.serviceType, entry_service_id: o.entry_service_id ?? o.service_id, entry_service_type: o.entry_service_type ?? o.service_type };
}

interface PlanBase {
  txOperative: TxOperative;
  op: ProcessorOperation;
  txId: string;
  /** The PENDING transaction to insert, or the device's waiting transaction to start (`wait`). */
  tx: repo.TxRow;
  wait: { id: string; set: Parameters<typeof repo.startDeviceWaitTransaction>[2] } | null;
  /** A typed card kept sealed for the few minutes of a 3-D Secure challenge (never the CVV). */
  keep: KeptCard | null;
  /** The order's event and columns (null: an order that waited for a device keeps its status). */
  order: { event: OrderEvent; set: Partial<repo.OrderRow> } | null;
  /** The order once step 1 is written (its settle is planned from it). */
  after: repo.LockedOrder;
}

export type PaymentPlan =
  | (PlanBase & { kind: '3ds'; threeds: { url: string; tryFrictionless: boolean; exemption: 'LOW_VALUE' | 'WHITELISTED' | null } })
  | (PlanBase & { kind: 'refuse'; refusal: { error: 'BLACKLISTED' | 'FRAUD_SUSPECTED'; details: string } })
  | (PlanBase & { kind: 'call'; request: PaymentRequest; safe: boolean });

/** The plan of step 1 from what the caller read, or the contract error. */
export function planPayment(f: PaymentFacts): PaymentPlan | { error: ApiError } {
  const { o, input, card, risk, now } = f;
  const spec = input.card;
  const terminal = input.channel === 'CARD_PRESENT' ? input.cardPresent ?? null : null;
  const refused = risk?.action === 'BLACKLISTED' || risk?.action === 'FRAUD';
  const riskChallenge = risk?.action === 'CHALLENGE';
  const needs3ds = !refused && input.channel === 'ECOMMERCE' && (o.secure || !!input.force3ds || riskChallenge) && !input.threeds && !input.dpan;
  const keep = spec.kind === 'card' && !card.sourceId && !!input.keepCardFor3ds && input.channel === 'ECOMMERCE';
  if (needs3ds && !card.sourceId && !keep) return { error: badRequest('A secure payment needs a stored card to complete 3DS') };
  const { txOperative, op } = paymentOperation(o.operative as Operative);
  const txId = f.waitTx?.id ?? f.txId;
  // routing: the first attempt's service takes the payment; the fallbacks wait for a retriable decline.
  // A payment carrying authentication (an external MPI's result, a wallet's cryptogram) or a
  // merchant-initiated one, or one with a currency conversion (an acquirer's own quote), keeps to
  // services of the first one's type: another acquirer could not use or quote them (docs/routing.md)
  const first = f.route?.attempts[0] ?? null;
  const fallbacks = first
    ? f.route!.attempts.slice(1).filter((a) => !(input.threeds || input.dpan || input.wallet || input.channel === 'MIT' || f.dcc.record) || a.serviceType === first.serviceType)
    : [];
  const routed = first ? routedOrderSet(o, first) : {};
  const tx: repo.TxRow = {
    id: txId, order_id: o.id, merchant_id: o.merchant_id, operative: txOperative, processor_operation: op, amount: Number(o.amount),
    status: 'PENDING', error: 'NONE', auth_code: '', processor_id: null, source_id: card.sourceId, source_json: card.sourceJson,
    antifraud: risk?.antifraud ?? null, device: null, error_details: null, customer_ip: input.customerIp ?? null, awaiting_3ds: needs3ds,
    metadata: null, dcc: f.dcc.record, created_at: now, updated_at: now, started_at: f.realNow, pos: terminal?.pos ?? null,
    ...(first ? { service_id: first.serviceId, routing: routingRecord(first, 1), routing_next: routingNext(1, fallbacks) } : {}),
  } as repo.TxRow;
  const wait = f.waitTx
    ? {
        id: f.waitTx.id,
        set: {
          processor_operation: op, source_id: card.sourceId, source_json: card.sourceJson, antifraud: risk?.antifraud ?? null, pos: terminal?.pos ?? f.waitTx.pos ?? null,
          customer_ip: input.customerIp ?? null, updated_at: now, started_at: f.realNow,
        },
      }
    : null;
  const kept = keep ? { pan: card.data.pan, expMonth: card.data.expiryMonth, expYear: card.data.expiryYear, holder: card.data.holder ?? '' } : null;
  const common = { source_id: card.sourceId ?? o.source_id, ip: input.customerIp ?? o.ip, ...routed };
  const base = { txOperative, op, txId, tx, wait, keep: kept };
  const afterEvent = (event: OrderEvent, set: Partial<repo.OrderRow>): repo.LockedOrder => {
    const t = orderTransition(o.status, event);
    return { ...o, ...set, status: t.to, paid: t.paid ?? o.paid, updated_at: now };
  };

  if (needs3ds) {
    const set = { ...common, threeds_data: challengeThreedsRecord('PENDING') };
    // A challenge asked for by risk goes straight to the challenge; otherwise the 3DS server is asked
    // first (frictionless flow), with the exemption when only the order's `secure` flag asks for 3DS.
    const exemption = o.secure && !input.force3ds ? risk?.exemption ?? null : null;
    return {
      ...base, kind: '3ds', order: { event: 'THREEDS_REQUIRED', set }, after: afterEvent('THREEDS_REQUIRED', set),
      threeds: { url: orderUrls(f.publicUrl, o.env, o.token)['3ds_tokenized'], tryFrictionless: !riskChallenge, exemption },
    };
  }
  const walletAuthenticated = !!input.wallet && !!input.dpan;
  const threedsRecord = input.threeds
    ? threedsRecordOf(input.threeds, 'EXTERNAL', o.secure)
    : walletAuthenticated
      ? walletThreedsRecord(input.dpan!, o.secure)
      : input.channel === 'MIT' ? exemptionRecord('MERCHANT_INITIATED') : undefined;
  const set = threedsRecord ? { ...common, threeds_data: threedsRecord } : common;
  // an order that waited for a device is PENDING_PROCESSOR_RESPONSE already
  const order = f.waitTx ? null : { event: f.guard.event, set };
  const after = order ? afterEvent(order.event, order.set) : o;
  if (refused) {
    const error = risk!.action === 'BLACKLISTED' ? 'BLACKLISTED' : 'FRAUD_SUSPECTED';
    const details = error === 'BLACKLISTED' ? 'Refused by a security list' : `Refused by antifraud (${risk!.antifraud?.triggered_rules.join(', ') ?? ''})`;
    return { ...base, kind: 'refuse', order, after, refusal: { error, details } };
  }
  const saved = card.saved;
  return {
    ...base,
    kind: 'call',
    order,
    after,
    safe: (!!input.threeds && ['Y', 'A'].includes(input.threeds.transStatus)) || walletAuthenticated,
    request: {
      reference: txId,
      terminal: first ? { serviceType: first.serviceType, terminalId: null, serviceId: first.serviceId } : { serviceType: o.service_type, terminalId: null, serviceId: o.service_id },
      now,
      amount: Number(o.amount),
      currency: o.currency,
      card: card.data,
      threeds: input.threeds ?? null,
      dpan: input.dpan ?? null,
      channel: input.channel,
      customerIp: input.customerIp ?? null,
      cofTxnid: o.cof_txnid,
      // stored credentials: the first payment with a card kept with the customer's consent is the
      // credential's first use, later ones use it
      storeCredential: !!saved && saved.firstPaidAt === null,
      storedCard: !!saved && saved.firstPaidAt !== null,
      ...(input.channel === 'MIT' ? { mit: input.mit ?? 'UNSCHEDULED' } : {}),
      dynamicDescriptor: o.dynamic_descriptor,
      dcc: f.dcc.data,
      cardPresent: terminal ? { readingMethod: terminal.readingMethod, pinEntered: terminal.pinEntered } : null,
    },
  };
}

/**
 * Whether the optimistic writer takes a plan: a plain processor call whose step 1 is one insert and one
 * order update (no device's waiting transaction, no kept card, no conversion, no card-present data, no
 * claim or wallet token to record, no authentication to carry into the settle, no routing, no notification at step 1).
 */
export function optimisticTakes(plan: PaymentPlan, o: Pick<repo.LockedOrder, 'status' | 'url_post'>, input: PayInput): plan is Extract<PaymentPlan, { kind: 'call' }> {
  if (plan.kind !== 'call' || plan.wait || plan.keep || !plan.order || plan.safe || plan.tx.routing) return false;
  if (plan.tx.dcc != null || plan.tx.pos != null || plan.request.cardPresent || plan.request.dcc) return false;
  if (input.claim || input.wallet || input.threeds || input.dpan || input.force3ds || input.channel === 'CARD_PRESENT') return false;
  return !(orderTransition(o.status, plan.order.event).notify && o.url_post);
}

/** What risk is asked about a payment (security lists, antifraud), the same for both writers. */
export function riskCheckOf(
  o: repo.LockedOrder,
  input: Pick<PayInput, 'channel' | 'customerIp'>,
  card: { pan: string; fingerprint: string; country: string | null; sourceId: string | null },
  now: Date,
): RiskCheck {
  return {
    merchantId: o.merchant_id, env: o.env, serviceId: o.service_id, orderId: o.id, amount: Number(o.amount), currency: o.currency,
    channel: input.channel, card: { fingerprint: card.fingerprint, iin: card.pan.slice(0, 8), last4: card.pan.slice(-4), country: card.country, sourceId: card.sourceId },
    customerExtId: o.customer_ext_id, customerIp: input.customerIp ?? null, now,
  };
}

/** What routing is told of a payment (the same for both writers). */
export function routingFactsOf(o: repo.LockedOrder, input: Pick<PayInput, 'channel'>, pan: string): RoutingFacts {
  return {
    merchantId: o.merchant_id, env: o.env, entryServiceId: o.entry_service_id ?? o.service_id, orderId: o.id, amount: Number(o.amount), currency: o.currency,
    bin: pan.slice(0, 8), channel: input.channel,
    // the gateway has no customer address for a card payment: conditions on the customer's country do not match
    customerCountry: null,
    metadata: o.extra_data && typeof o.extra_data === 'object' && !Array.isArray(o.extra_data) ? (o.extra_data as Record<string, unknown>) : null,
  };
}
