/**
 * 3-D Secure: completing a payment that waits for the cardholder (the tokenized page after the
 * challenge), the card shown on the challenge page, and challenges that time out.
 */
import { ApiError, badRequest, conflict, notFound, unavailable } from '../../../platform/errors/errors.js';
import type { Tx } from '../../../platform/db/database.js';
import type { Secret } from '../../../platform/security/secret.js';
import type { AcquirerThreeDS, BrowserInfo, CardData, PaymentRequest, ThreeDSPayment, ThreeDSResult } from '../../../processors/index.js';
import { challengeThreedsRecord, paymentOperation } from '../payments.domain.js';
import * as repo from '../payments.repo.js';
import * as keptCards from '../threeds-cards.repo.js';
import type { OrderResult, PaymentsCore } from '../core.js';
import { threedsRecordOf } from './input.js';
import { dccDataOf } from './dcc.js';
import { settle } from './settle.js';
import { callProcessor } from '../money/run.js';

/**
 * Completes a payment waiting for 3DS (the tokenized page calls this after the challenge): the
 * cardholder is authenticated with the processor's 3DS server, then the payment is authorized.
 */
export async function completeAfter3ds(core: PaymentsCore, token: string, opts: { challenge?: 'APPROVED' | 'FAILED' | null } = {}): Promise<OrderResult> {
  const prep = await waiting3ds(core, (trx) => repo.lockOrderByToken(trx, token));
  if ('expired' in prep) throw new ApiError(400, 'The order has expired');
  const { o, tx, card, now } = prep;
  const connector = core.deps.processors.forService(o.service_type, o.env);
  const cardData: CardData = { pan: card.pan, expiryMonth: card.expMonth, expiryYear: card.expYear, cvv: null, holder: card.holder };
  const auth = await connector.authenticate({ reference: `${tx.id}:3ds`, terminal: { serviceType: o.service_type, terminalId: null, serviceId: o.service_id }, now, amount: Number(o.amount), currency: o.currency, card: cardData, challenge: opts.challenge ?? null });
  if (auth.outcome === 'UNKNOWN' || auth.outcome === 'CHALLENGE_REQUIRED') throw unavailable('The 3DS server did not answer; try again');
  const record = threedsRecordOf(auth.threeds, 'CHALLENGE', true);
  if (auth.outcome === 'FAILED') {
    return settle(core, o.id, tx.id, { outcome: 'FAILED', error: 'AUTHENTICATION_FAILED', details: auth.details }, { threedsData: record });
  }
  return authorizeAfter3ds(core, prep, cardData, auth.threeds, record, true);
}

/**
 * The first 3DS message of a payment that waits for 3DS (AReq, before any challenge): the frictionless
 * flow, or the exemption the payment qualifies for. Returns the settled payment, or null when the
 * cardholder must go through the challenge (or the 3DS server did not answer: the challenge page asks
 * again).
 */
export async function tryFrictionless(core: PaymentsCore, orderId: string, exemption: string | null): Promise<OrderResult | null> {
  const prep = await waiting3ds(core, (trx) => repo.lockOrder(trx, orderId));
  if ('expired' in prep) return null;
  const { o, tx, card, now } = prep;
  const connector = core.deps.processors.forService(o.service_type, o.env);
  const cardData: CardData = { pan: card.pan, expiryMonth: card.expMonth, expiryYear: card.expYear, cvv: null, holder: card.holder };
  const auth = await connector.authenticate({ reference: `${tx.id}:areq`, terminal: { serviceType: o.service_type, terminalId: null, serviceId: o.service_id }, now, amount: Number(o.amount), currency: o.currency, card: cardData, initial: true, exemption });
  if (auth.outcome === 'UNKNOWN' || auth.outcome === 'CHALLENGE_REQUIRED') return null;
  // transStatus I: the issuer acknowledged the exemption; the payment goes without authentication
  const exempted = auth.threeds.transStatus === 'I';
  const record = { ...threedsRecordOf(auth.threeds, 'FRICTIONLESS', !exempted), exemption: exempted ? exemption : null };
  if (auth.outcome === 'FAILED') {
    return settle(core, o.id, tx.id, { outcome: 'FAILED', error: 'AUTHENTICATION_FAILED', details: auth.details }, { threedsData: record });
  }
  return authorizeAfter3ds(core, prep, cardData, auth.threeds, record, !exempted);
}

/**
 * `saved`: the card is a stored card kept for later payments with the customer's consent (not one kept
 * for the challenge only); `firstUse`: it has never paid (the payment that stores it, or the first use of
 * one tokenized without a payment): the stored credential's first use, flagged to the processor.
 */
type Waiting = { o: repo.LockedOrder; tx: repo.TxRow; card: { pan: Secret<string>; expMonth: number; expYear: number; holder: string }; saved: boolean; firstUse: boolean; now: Date };

/** The order waiting for 3DS, its transaction and card (or the order expired on the spot). */
async function waiting3ds(core: PaymentsCore, lock: (trx: Tx) => Promise<repo.LockedOrder | undefined>): Promise<Waiting | { expired: true }> {
  return core.db.transaction(async (trx) => {
    const o = await lock(trx);
    if (!o) throw notFound('The order was not found');
    const now = core.now(o);
    if (core.isDue(o, now)) {
      await core.expire(trx, o, now);
      return { expired: true } as const;
    }
    if (o.status !== 'PENDING_3DS_RESPONSE') throw badRequest(`The order is ${o.status}: it is not waiting for 3DS`);
    const tx = await repo.awaiting3dsTransaction(trx, o.id);
    if (!tx) throw badRequest('The order has no payment waiting for 3DS');
    // the stored card, or the card the hosted page keeps for the challenge (no customer)
    const stored = tx.source_id ? await core.deps.sources.loadCardForPayment(trx, { merchantId: o.merchant_id, env: o.env }, tx.source_id) : null;
    const card = stored ?? (await keptCards.keptCard(trx, core.p.vault, tx.id));
    if (!card) throw badRequest('The card of this payment is no longer available: the 3DS challenge timed out');
    const saved = !!stored?.row.is_saved;
    return { o, tx, card, saved, firstUse: saved && stored!.row.first_paid_at === null, now };
  });
}

/** After a successful authentication (or an acknowledged exemption): authorize and settle. */
async function authorizeAfter3ds(core: PaymentsCore, w: Waiting, cardData: CardData, threeds: ThreeDSResult, record: unknown, safe: boolean): Promise<OrderResult> {
  const { o, tx, now } = w;
  const connector = core.deps.processors.forService(o.service_type, o.env);
  const { op } = paymentOperation(o.operative);
  await core.db.transaction(async (trx) => {
    const locked = await repo.lockOrder(trx, o.id);
    if (!locked || locked.status !== 'PENDING_3DS_RESPONSE') throw conflict('The order changed while 3DS was completed');
    await repo.updateTransaction(trx, tx.id, { awaiting_3ds: false, started_at: core.p.clock.now(), updated_at: core.now(locked) });
    await core.transition(trx, locked, 'THREEDS_COMPLETED', { threeds_data: record, safe }, core.now(locked), { present: false });
  });
  const result = await callProcessor(connector, op, {
    reference: tx.id,
    terminal: { serviceType: o.service_type, terminalId: null, serviceId: o.service_id },
    now,
    amount: Number(o.amount),
    currency: o.currency,
    card: cardData,
    threeds,
    dpan: null,
    channel: 'ECOMMERCE',
    storeCredential: w.firstUse,
    storedCard: w.saved && !w.firstUse,
    customerIp: tx.customer_ip,
    dcc: dccDataOf(tx.dcc),
  });
  return settle(core, o.id, tx.id, result, { safe });
}

/** The last four digits of the card whose payment waits for 3DS (shown on the challenge page), or null. */
export async function pending3dsCardLast4(core: PaymentsCore, orderId: string): Promise<string | null> {
  const db = core.db.db;
  const tx = await repo.awaiting3dsTransaction(db, orderId);
  if (!tx) return null;
  if (tx.source_json) {
    const last4 = (JSON.parse(tx.source_json) as { last4?: unknown }).last4;
    if (typeof last4 === 'string') return last4;
  }
  const kept = await keptCards.keptCard(db, core.p.vault, tx.id);
  return kept ? kept.pan.reveal().slice(-4) : null;
}

/**
 * Challenges whose kept card (hosted page, no customer) has timed out: the cardholder did not finish
 * 3DS in time, so the payment fails (AUTHENTICATION_FAILED) and the order can be paid again. Returns
 * how many were settled. Run by the pages' sweep.
 */
export async function expireKeptCardChallenges(core: PaymentsCore, limit = 200): Promise<number> {
  const db = core.db.db;
  const due = await keptCards.expiredSessions(db, core.p.clock.now(), limit);
  let settled = 0;
  for (const s of due) {
    const tx = await repo.findTransaction(db, s.transaction_id);
    if (tx && tx.status === 'PENDING' && tx.awaiting_3ds) {
      const record = challengeThreedsRecord('U');
      await settle(core, s.order_id, tx.id, { outcome: 'FAILED', error: 'AUTHENTICATION_FAILED', details: 'The cardholder did not complete 3DS in time' }, { threedsData: record });
      settled++;
    }
    await core.db.transaction((trx) => keptCards.dropCard(trx, s.transaction_id));
  }
  return settled;
}

// ---- acquirer-side EMV 3-D Secure 2 (the processor authenticates and authorizes in one exchange) ------------

/** Whether the order's processor runs 3-D Secure itself (then the 3DS page runs its steps). */
export function hasAcquirerThreeds(core: PaymentsCore, o: { service_type: string; env: repo.LockedOrder['env'] }): boolean {
  return !!core.deps.processors.forService(o.service_type, o.env).threeds;
}

function acquirerRequest(w: Waiting, card: CardData): PaymentRequest & { preauthorization: boolean } {
  const { o, tx, now } = w;
  return {
    reference: tx.id,
    terminal: { serviceType: o.service_type, terminalId: null, serviceId: o.service_id },
    now,
    amount: Number(o.amount),
    currency: o.currency,
    card,
    channel: 'ECOMMERCE',
    customerIp: tx.customer_ip,
    dcc: dccDataOf(tx.dcc),
    storeCredential: w.firstUse,
    storedCard: w.saved && !w.firstUse,
    preauthorization: o.operative === 'DEFERRED',
  };
}

async function acquirerWaiting(core: PaymentsCore, token: string): Promise<{ w: Waiting; threeds: AcquirerThreeDS; req: PaymentRequest & { preauthorization: boolean } }> {
  const w = await waiting3ds(core, (trx) => repo.lockOrderByToken(trx, token));
  if ('expired' in w) throw new ApiError(400, 'The order has expired');
  const threeds = core.deps.processors.forService(w.o.service_type, w.o.env).threeds;
  if (!threeds) throw badRequest('The processor of this order does not run 3-D Secure itself');
  const card: CardData = { pan: w.card.pan, expiryMonth: w.card.expMonth, expiryYear: w.card.expYear, cvv: null, holder: w.card.holder };
  return { w, threeds, req: acquirerRequest(w, card) };
}

/**
 * Step 1 of acquirer-side 3-D Secure (card configuration): the 3DS method the page runs in a hidden
 * frame, or none. A card that cannot be authenticated fails the payment (AUTHENTICATION_FAILED).
 */
export async function acquirerThreedsStart(core: PaymentsCore, token: string, urls: { methodNotification: string }): Promise<{ method: { url: string; data: string } | null } | { done: OrderResult }> {
  const { w, threeds, req } = await acquirerWaiting(core, token);
  const r = await threeds.start(req, urls);
  if (r.outcome === 'UNKNOWN') throw unavailable('The 3-D Secure server did not answer; try again');
  if (r.outcome === 'DECLINED') {
    return { done: await settle(core, w.o.id, w.tx.id, { outcome: 'FAILED', error: 'AUTHENTICATION_FAILED', details: r.details }, { threedsData: challengeThreedsRecord('U') }) };
  }
  return { method: r.outcome === 'METHOD' ? { url: r.url, data: r.data } : null };
}

/**
 * Steps 2 and 3: the processor may authorize the payment in this exchange, so the transaction waits for
 * the processor first (a crash leaves it to the reconciler); an ACS challenge puts it back to wait for
 * 3-D Secure, a result settles it with what the authentication was.
 */
async function acquirerPay(core: PaymentsCore, token: string, call: (t: AcquirerThreeDS, req: PaymentRequest & { preauthorization: boolean }) => Promise<ThreeDSPayment>): Promise<{ challenge: { acsUrl: string; creq: string; method: 'post' | 'get'; field?: 'creq' | 'JWT' } } | { done: OrderResult }> {
  const { w, threeds, req } = await acquirerWaiting(core, token);
  const { o, tx } = w;
  await core.db.transaction(async (trx) => {
    const locked = await repo.lockOrder(trx, o.id);
    if (!locked || locked.status !== 'PENDING_3DS_RESPONSE') throw conflict('The order changed while 3-D Secure was completed');
    await repo.updateTransaction(trx, tx.id, { awaiting_3ds: false, started_at: core.p.clock.now(), updated_at: core.now(locked) });
    await core.transition(trx, locked, 'THREEDS_COMPLETED', {}, core.now(locked), { present: false });
  });
  const r = await call(threeds, req);
  if (r.outcome === 'ACS_CHALLENGE') {
    await settle(core, o.id, tx.id, { outcome: 'CHALLENGE', details: 'The issuer asks for the ACS challenge' });
    return { challenge: { acsUrl: r.acsUrl, creq: r.creq, method: r.method ?? 'post', ...(r.field ? { field: r.field } : {}) } };
  }
  const authenticated = !!r.threeds && ['Y', 'A'].includes(r.threeds.transStatus);
  const record = r.threeds ? threedsRecordOf(r.threeds, r.flow, true) : undefined;
  return { done: await settle(core, o.id, tx.id, r.result, { safe: authenticated, ...(record ? { threedsData: record } : {}) }) };
}

export function acquirerThreedsAuthenticate(core: PaymentsCore, token: string, browser: BrowserInfo, urls: { challengeNotification: string }, methodCompleted: boolean | null) {
  return acquirerPay(core, token, (t, req) => t.authenticate(req, browser, urls, methodCompleted));
}

export function acquirerThreedsComplete(core: PaymentsCore, token: string, cres: string) {
  return acquirerPay(core, token, (t, req) => t.complete(req, cres));
}
