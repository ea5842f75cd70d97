/**
 * Card-present operations (K1–K9): a device, authenticated by its own bearer token, charges the card it
 * read, refunds, confirms or cancels by `rrn`, voids its last operation, syncs its configuration and finds
 * orders by STAN or RRN. Every charge is a real order created and paid through the payments module's
 * public interface, in the name of the key that registered the device.
 *
 * The gateway gives each operation a 12-digit `rrn` (unique per merchant); a `stan` is unique per device
 * and day. Track 2 and PIN blocks are used in memory and dropped: the operation keeps BIN and last 4.
 */
import { randomInt, randomUUID } from 'node:crypto';
import { isUniqueViolation } from '../../platform/db/database.js';
import { badRequest, conflict, forbidden, notFound, unauthorized } from '../../platform/errors/errors.js';
import type { RequestContext } from '../../platform/http/types.js';
import type { Platform } from '../../platform/index.js';
import { localDate } from '../../platform/time/format.js';
import { CONTACTLESS_CVM_LIMIT } from '../../processors/index.js';
import type { MerchantsService } from '../merchants/index.js';
import type { OrderResult, Payments } from '../payments/index.js';
import { findServiceWithTerminal } from '../services/index.js';
import { newRrn, pinBlockProblem, posOf, readCard, type CardReadingMethod, type ReportedCard } from './devices.domain.js';
import * as repo from './devices.repo.js';
import type { DevicesService } from './devices.service.js';

export interface CardPresentInput {
  card: ReportedCard;
  amount: number;
  currency: string;
  mid?: string | null;
  /** Absent: the gateway assigns one (unique per device and day). */
  stan?: string | null;
  card_reading_method?: CardReadingMethod | null;
  emv_data?: string | null;
  card_sequence_number?: string | null;
  pin: { block?: string | null; format?: number | null };
  device: { serial_number?: string | null; model?: string | null };
  sca?: { original_order_uuid?: string | null } | null;
}

export interface ByRrnInput {
  mid?: string | null;
  stan: string;
  rrn: string;
  tid: string;
  amount?: number | null;
}

/** What a card-present answer carries besides the order: where and how the card was read. */
export interface Pos {
  device_id: string;
  tid: string;
  mid: string;
  stan: string;
  rrn: string;
  card_reading_method: string | null;
  entry_mode: string | null;
}

export interface CardPresentResult {
  result: OrderResult;
  ctx: RequestContext;
  pos: Pos;
}


export class CardPresentService {
  constructor(
    private readonly p: Platform,
    private readonly deps: { payments: Payments; merchants: MerchantsService; devices: DevicesService },
  ) {}

  get #db() {
    return this.p.database.db;
  }

  /**
   * The device of a bearer token; 401 when there is none or the key it acts for was revoked, 403 for a
   * disabled device or another environment.
   */
  async authenticate(authorization: string | undefined, env: string): Promise<{ device: repo.DeviceRow; ctx: RequestContext }> {
    const m = /^bearer\s+(\S+)$/i.exec(String(authorization ?? ''));
    if (!m || !/^pgd_[A-Za-z0-9_-]{20,100}$/.test(m[1])) throw unauthorized('A device bearer token is required');
    const device = await this.deps.devices.deviceForToken(m[1]);
    if (!device) throw unauthorized('A device bearer token is required');
    if (!device.keyActive) throw unauthorized('The device token ended: the API key the device acts for was revoked. Give the device a new token with an active key (POST /device/{id}/token)');
    if (device.env !== env) throw forbidden(`The device token is not valid in ${env}`);
    if (!device.active) throw forbidden('The device is disabled');
    const ctx = await this.deps.merchants.contextForKey(device.key_id);
    return { device, ctx };
  }

  /** `mid`/`tid` (body or X-Service headers) must be the device's own when given. */
  checkIds(device: repo.DeviceRow, ids: { mid?: string | null; tid?: string | null }): void {
    if (ids.mid && ids.mid !== device.mid) throw forbidden('mid is not the MID of this device');
    if (ids.tid && ids.tid !== device.terminal_id) throw forbidden('tid is not the TID of this device');
  }

  /**
   * Records an operation under its STAN. A STAN the device did not send (K1/K5 take it as optional, as
   * the contract shows) is assigned here: 6 random digits, drawn again when the device already used them
   * today, so it is unique per device and day like the terminal's own.
   */
  async #record(device: repo.DeviceRow, ctx: RequestContext, given: Omit<repo.CardPresentRow, 'id' | 'device_id' | 'merchant_id' | 'env' | 'stan_day' | 'rrn' | 'created_at' | 'stan'> & { stan?: string | null }): Promise<repo.CardPresentRow> {
    const now = ctx.clock.now();
    const assigned = !given.stan;
    for (let attempt = 0; ; attempt++) {
      const row = { ...given, stan: given.stan || String(randomInt(0, 1_000_000)).padStart(6, '0') };
      const full: repo.CardPresentRow = {
        ...row,
        id: randomUUID(),
        device_id: device.id,
        merchant_id: device.merchant_id,
        env: device.env,
        stan_day: localDate(now, ctx.merchant.timezone),
        rrn: newRrn(),
        created_at: now,
      };
      try {
        await repo.insertCardPresent(this.#db, full);
        return full;
      } catch (err) {
        if (isUniqueViolation(err, 'card_present_operations_device_id_stan_day_stan_key')) {
          if (assigned && attempt < 20) continue;
          throw conflict(`STAN ${row.stan} was already used by this device today`);
        }
        if (isUniqueViolation(err) && attempt < 5) continue; // an rrn drawn twice
        throw err;
      }
    }
  }

  #pos(device: repo.DeviceRow, op: repo.CardPresentRow): Pos {
    return posOf(device, op) as Pos;
  }

  /**
   * K1/K5: a payment or pre-authorization of the card the device read. When the issuer asks for strong
   * customer authentication on the terminal the order answers AUTHENTICATION_REQUIRED with
   * `transactions[…].payment_data.terminal_action`; the terminal then calls again with
   * `sca.original_order_uuid` (and the PIN, or the card inserted), which continues that same order.
   */
  async pay(device: repo.DeviceRow, ctx: RequestContext, kind: 'PAYMENT' | 'PREAUTHORIZATION', input: CardPresentInput): Promise<CardPresentResult> {
    this.checkIds(device, { mid: input.mid });
    const card = readCard(input.card);
    if ('error' in card) throw badRequest(card.error);
    const pinProblem = input.pin.block ? pinBlockProblem({ block: input.pin.block, format: input.pin.format ?? 0 }) : null;
    if (pinProblem) throw badRequest(pinProblem);
    const currency = await this.deps.devices.serviceCurrency(device.service_id);
    if (!currency || currency !== input.currency.toUpperCase()) throw badRequest(`currency ${input.currency} is not the currency of the device's service (${currency ?? 'none'})`);
    const method = input.card_reading_method ?? null;
    const original = input.sca?.original_order_uuid ? await this.#scaOriginal(device, ctx, kind, input, card, input.sca.original_order_uuid) : null;
    const orderId = original?.order_id ?? randomUUID();
    // the STAN is taken first: a repeated STAN never creates an order nor charges
    const op = await this.#record(device, ctx, {
      kind, order_id: orderId, stan: input.stan, amount: input.amount, card_bin: card.bin, card_last4: card.last4, card_reading_method: method,
    });
    if (!original) {
      await this.deps.payments.create(ctx, {
        amount: input.amount,
        operative: kind === 'PAYMENT' ? 'AUTHORIZATION' : 'DEFERRED',
        secure: false,
        description: `Card-present ${kind === 'PAYMENT' ? 'payment' : 'pre-authorization'} on ${device.identifier}`,
        service: device.service_id,
        reference: null,
      }, { orderId, fresh: true });
    }
    const pos = this.#pos(device, op);
    const result = await this.deps.payments.pay(ctx, orderId, {
      channel: 'CARD_PRESENT',
      card: { kind: 'card', holder: 'CARDHOLDER', pan: card.pan, expMonth: card.expMonth, expYear: card.expYear, origin: 'DEVICE', store: false },
      cardPresent: { readingMethod: method, pinEntered: !!input.pin.block, pos: { ...pos }, scaRetry: original !== null },
    });
    return { result, ctx, pos };
  }

  /**
   * The order a repeated call (`sca.original_order_uuid`) continues: one this device took with the same
   * operation, still waiting for SCA, for the same amount and currency and the same card.
   */
  async #scaOriginal(device: repo.DeviceRow, ctx: RequestContext, kind: 'PAYMENT' | 'PREAUTHORIZATION', input: CardPresentInput, card: { bin: string; last4: string }, orderUuid: string): Promise<repo.CardPresentRow> {
    const original = /^[0-9a-f-]{36}$/i.test(orderUuid) ? await repo.cardPresentOfOrder(this.#db, orderUuid.toLowerCase()) : undefined;
    if (!original || original.device_id !== device.id) throw notFound(`sca.original_order_uuid: no order ${orderUuid} was taken by this device`);
    if (original.kind !== kind) throw badRequest(`sca.original_order_uuid: the order is a ${original.kind.toLowerCase()}; repeat it with the same operation`);
    const current = (await this.deps.payments.getOrder(ctx, original.order_id)).order;
    if (current.status !== 'AUTHENTICATION_REQUIRED') throw badRequest(`sca.original_order_uuid: the order is ${current.status}, not waiting for strong customer authentication (AUTHENTICATION_REQUIRED)`);
    if (Number(current.amount) !== input.amount) throw badRequest(`amount ${input.amount} is not the amount of the original order (${current.amount})`);
    // the currency: the device took the order in its service's currency, which `pay` checked `currency` against
    if (original.card_bin !== card.bin || original.card_last4 !== card.last4) throw badRequest('card: the repeated payment must present the card of the original order');
    return original;
  }

  /** The payment or pre-authorization of this device with `rrn`. */
  async #original(device: repo.DeviceRow, rrn: string): Promise<repo.CardPresentRow> {
    const op = /^[0-9]{12}$/.test(rrn) ? await repo.cardPresentByRrn(this.#db, device.id, rrn) : undefined;
    if (!op || (op.kind !== 'PAYMENT' && op.kind !== 'PREAUTHORIZATION')) throw notFound(`No payment of this device has rrn ${rrn}`);
    return op;
  }

  /** K2 refund, K6 cancel a pre-authorization, K7 confirm it: by `rrn`, with a new STAN. */
  async followUp(device: repo.DeviceRow, ctx: RequestContext, kind: 'REFUND' | 'CANCELLATION' | 'CONFIRMATION', input: ByRrnInput): Promise<CardPresentResult> {
    this.checkIds(device, { mid: input.mid, tid: input.tid });
    const original = await this.#original(device, input.rrn);
    const op = await this.#record(device, ctx, { kind, order_id: original.order_id, stan: input.stan, amount: input.amount ?? null, card_bin: original.card_bin, card_last4: original.card_last4, card_reading_method: original.card_reading_method });
    const orderUuid = original.order_id;
    const result =
      kind === 'REFUND'
        ? await this.deps.payments.refund(ctx, { order_uuid: orderUuid, amount: input.amount ?? null })
        : kind === 'CONFIRMATION'
          ? await this.deps.payments.confirm(ctx, { order_uuid: orderUuid, amount: input.amount ?? null })
          : await this.deps.payments.cancel(ctx, { order_uuid: orderUuid });
    return { result, ctx, pos: this.#pos(device, op) };
  }

  /**
   * K4: the automatic void of the device's last operation (the terminal lost the answer): a payment is
   * refunded in full, a pre-authorization released. Only the last operation, and only by its STAN.
   */
  async voidLast(device: repo.DeviceRow, ctx: RequestContext, input: { stan: string; mid?: string | null }): Promise<CardPresentResult> {
    this.checkIds(device, { mid: input.mid });
    const last = await repo.lastCardPresent(this.#db, device.id);
    if (!last || last.stan !== input.stan) throw notFound(`The last operation of this device does not have STAN ${input.stan}`);
    if (last.kind !== 'PAYMENT' && last.kind !== 'PREAUTHORIZATION') throw badRequest(`The last operation is a ${last.kind}: only a payment or pre-authorization is voided`);
    const current = await this.deps.payments.getOrder(ctx, last.order_id);
    let result: OrderResult;
    if (current.order.status === 'SUCCESS' || current.order.status === 'PARTIALLY_REFUNDED') result = await this.deps.payments.refund(ctx, { order_uuid: last.order_id, amount: null });
    else if (current.order.status === 'PENDING_CONFIRMATION') result = await this.deps.payments.cancel(ctx, { order_uuid: last.order_id });
    else result = current; // nothing was charged: nothing to void
    // the void is not a new operation of the terminal: K8 by the STAN still finds the order, now refunded
    return { result, ctx, pos: this.#pos(device, last) };
  }

  /** K8/K9: an order of this device by STAN (its latest use) or RRN. */
  async find(device: repo.DeviceRow, ctx: RequestContext, by: { stan?: string; rrn?: string }): Promise<CardPresentResult> {
    const op = by.rrn !== undefined
      ? (/^[0-9]{12}$/.test(by.rrn) ? await repo.cardPresentByRrn(this.#db, device.id, by.rrn) : undefined)
      : (/^[0-9]{1,12}$/.test(by.stan ?? '') ? await repo.cardPresentByStan(this.#db, device.id, by.stan!) : undefined);
    if (!op) throw notFound(by.rrn !== undefined ? `No operation of this device has rrn ${by.rrn}` : `No operation of this device has STAN ${by.stan}`);
    return { result: await this.deps.payments.getOrder(ctx, op.order_id), ctx, pos: this.#pos(device, op) };
  }

  /** K3: what the device needs to work: its ids, its service and the EMV configuration. */
  async sync(device: repo.DeviceRow, q: { tid: string; mid: string; serialNumber: string }) {
    this.checkIds(device, { mid: q.mid, tid: q.tid });
    const service = await findServiceWithTerminal(this.#db, device.service_id);
    const emv = {
      currency: service?.currency_code ?? null,
      contactless_cvm_limit: CONTACTLESS_CVM_LIMIT,
      contactless_transaction_limit: 100000,
      pin_block_formats: [0, 4],
      reading_methods: ['ICC', 'NFC', 'MAGNETIC_STRIPE', 'KEY_ENTRY'],
    };
    return { mid: device.mid, tid: device.terminal_id, serial_number: q.serialNumber, service_uuid: device.service_id, emv_config: JSON.stringify(emv) };
  }
}
