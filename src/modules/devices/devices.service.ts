/**
 * Use cases of physical devices: the registry (register, list, read, enable/disable, rotate the token),
 * operations sent to a device (J3–J7), and what a device reports (status, the card it read, a
 * cancellation). Every charge is a real order created and paid through the payments module's public
 * interface; this module keeps the device, the operation's state and the BIN/last 4 of the card read.
 *
 * J3/J4 answer at once with the order PENDING_PROCESSOR_RESPONSE and a PENDING transaction waiting for
 * the device (payments `sendToDevice`); the card the device reads is charged through that transaction.
 *
 * Schedules are durable jobs on the merchant's clock: the simulated device settles 10 s after the
 * operation was sent (`devices.simulate`); every operation has a deadline (`devices.deadline`) after
 * which an operation no device answered fails and its order is closed, so a device that goes offline
 * mid-operation leaves nothing open.
 *
 * Delivery to a socket device: only the process that holds the device's socket talks to it. Whatever
 * must reach the device (a queued operation, a cancellation, the device disabled or its token rotated)
 * is a row or a change in the database plus a NOTIFY on `paygate_devices` sent in the same transaction;
 * every process listening hears it and the one holding the socket acts (devices.socket.ts). The rows are
 * the truth: a (re)connecting device gets every open operation, and the socket hub looks for queued
 * operations of its devices periodically, so a lost notification delays delivery, never loses it.
 */
import { createHash, randomBytes, randomInt, randomUUID } from 'node:crypto';
import { sql } from 'kysely';
import type { Executor } from '../../platform/db/database.js';
import { isUniqueViolation } from '../../platform/db/database.js';
import { ApiError, badRequest, conflict, notFound } from '../../platform/errors/errors.js';
import { IdempotencyStore } from '../../platform/http/idempotency.js';
import type { RequestContext } from '../../platform/http/types.js';
import type { Platform } from '../../platform/index.js';
import type { Job, Reschedule } from '../../platform/jobs/queue.js';
import { parseFilterDate } from '../../platform/time/format.js';
import { simulatedDeviceReport, type DeviceReport } from '../../processors/index.js';
import type { MerchantsService } from '../merchants/index.js';
import type { OrderResult, Payments } from '../payments/index.js';
import { findServiceWithTerminal, findTerminal } from '../services/index.js';
import {
  OPERATION_TIMEOUT_MS,
  PROPERTY_FIELDS,
  SIMULATION_DELAY_MS,
  STATUS_FIELDS,
  canOperation,
  deviceRefundTransition,
  deviceTransition,
  eventForOrder,
  operationMessage,
  operationTransition,
  pinBlockProblem,
  posOf,
  presentDevice,
  presentDeviceRefund,
  presentOperation,
  readCard,
  simulatedRefundOutcome,
  type DeviceRefundEvent,
  type PresentedDeviceRefund,
  type CommunicationType,
  type OperationEvent,
  type OperationStatus,
  type PresentedDevice,
  type PresentedOperation,
} from './devices.domain.js';
import * as repo from './devices.repo.js';
import { TtlCache } from '../../platform/cache/ttl-cache.js';

export const SIMULATE_QUEUE = 'devices.simulate';
export const SIMULATE_REFUND_QUEUE = 'devices.simulate-refund';
export const DEADLINE_QUEUE = 'devices.deadline';
/** The NOTIFY channel of what must reach a device's socket, in whichever process holds it. */
export const DEVICE_SIGNAL_CHANNEL = 'paygate_devices';

/** What a process holding a device's socket must do (payload of DEVICE_SIGNAL_CHANNEL, JSON). */
export type DeviceSignal =
  /** Operations were queued for the device: send them. */
  | { device: string; kind: 'operations' }
  /** Tell the device to stop an operation (cancelled by the merchant, or its deadline passed). */
  | { device: string; kind: 'cancel'; operation: string }
  /** The device was disabled, its token rotated or revoked by the operator: close its socket. */
  | { device: string; kind: 'disabled' | 'token_rotated' | 'token_revoked' }
  /** The device opened a socket on the process `by`: any other process holding one for it closes it (one socket per device). */
  | { device: string; kind: 'connected'; by: string };

export interface DevicesDeps {
  payments: Payments;
  merchants: MerchantsService;
}

/** Where the socket hub delivers messages to connected devices (set by the socket route). */
export interface DeviceChannel {
  /** Sends a message to the device when its socket is open in this process; false otherwise. */
  send(deviceId: string, message: Record<string, unknown>): boolean;
  /** Whether the device's socket is open in this process. */
  holds(deviceId: string): boolean;
}

export interface RegisterInput {
  service: string;
  identifier: string;
  communication_type: CommunicationType;
  properties?: Record<string, unknown> | null;
}

export interface ListQuery {
  identifier?: string;
  service?: string;
  terminal_id?: string;
  communication_type?: string;
  active?: boolean;
  configured?: boolean;
  created_at_from?: string;
  created_at_to?: string;
  updated_at_from?: string;
  updated_at_to?: string;
}

export interface SendInput {
  device: string;
  amount: number;
  description: string;
  customer_ext_id?: string | null;
  additional?: string | null;
  url_post?: string | null;
  reference?: string | null;
}

interface OpPayload {
  operationId: string;
}

const ownerOf = (ctx: RequestContext): repo.Owner => ({ merchantId: ctx.merchant.id, env: ctx.env });
/** A device found by its token, and whether the key it acts for is still active (revoked: the token ended). */
/** One line of a device's history (DevicesService.history). */
export interface DeviceHistoryEntry {
  uuid: string;
  /** SENT: sent to the device (J3/J4); CARD_PRESENT: the device's own call (K1–K7); REFUND: a refund sent to it (J7) */
  source: 'SENT' | 'CARD_PRESENT' | 'REFUND';
  kind: string;
  order_uuid: string;
  amount: number | null;
  currency: string | null;
  status: string | null;
  terminal_action: string | null;
  error: string | null;
  stan: string | null;
  rrn: string | null;
  card: { bin: string | null; last4: string; reading_method: string | null } | null;
  created_at: string;
  updated_at: string;
}

export type TokenDevice = repo.DeviceRow & { keyActive: boolean };

export const hashDeviceToken = (token: string) => createHash('sha256').update(token, 'utf8').digest('hex');
const newToken = () => `pgd_${randomBytes(32).toString('base64url')}`;

export class DevicesService {
  #channel: DeviceChannel = { send: () => false, holds: () => false };
  /** Devices by token hash, and the currency of services, for the card-present hot path (PAYGATE_CACHE_TTL_MS). */
  readonly #byToken: TtlCache<TokenDevice>;
  readonly #currencies: TtlCache<string | null>;

  constructor(
    private readonly p: Platform,
    private readonly deps: DevicesDeps,
  ) {
    this.#byToken = new TtlCache(p.config.cacheTtlMs);
    this.#currencies = new TtlCache(p.config.cacheTtlMs);
    // a device disabled or its token rotated (devices trigger), a key revoked (api_keys trigger), a service
    // changed, in any process: drop them
    p.invalidation?.onInvalidate((table) => {
      if (table === null || table.endsWith('.devices') || table.endsWith('.api_keys')) this.#byToken.clear();
      if (table === null || table.endsWith('.services')) this.#currencies.clear();
    });
  }

  /** The socket hub of this process. */
  useChannel(channel: DeviceChannel): void {
    this.#channel = channel;
  }

  get #db() {
    return this.p.database.db;
  }

  async #present(db: Executor, rows: repo.DeviceRow[]): Promise<PresentedDevice[]> {
    const counts = await repo.pendingCounts(db, rows.map((r) => r.id));
    return rows.map((r) => presentDevice(r, counts.get(r.id) ?? 0));
  }

  async #presentOne(db: Executor, row: repo.DeviceRow): Promise<PresentedDevice> {
    return (await this.#present(db, [row]))[0];
  }

  async #owned(ctx: RequestContext, id: string, db: Executor = this.#db, forUpdate = false): Promise<repo.DeviceRow> {
    const d = await repo.findDevice(db, ownerOf(ctx), id, { forUpdate });
    if (!d) throw notFound(`The device ${id} was not found`);
    return d;
  }

  // ---- registry -----------------------------------------------------------------------------------

  /** Registers a device for a service of the merchant; the bearer token is in the answer only. */
  async register(ctx: RequestContext, input: RegisterInput): Promise<{ device: PresentedDevice; token: string }> {
    if (input.communication_type === 'SIMULATION' && ctx.env !== 'sandbox') throw badRequest('communication_type SIMULATION is only available in the sandbox');
    const identifier = input.identifier.trim();
    if (identifier === '') throw badRequest('identifier must not be empty');
    const service = /^[0-9a-f-]{36}$/i.test(input.service) ? await findServiceWithTerminal(this.#db, input.service.toLowerCase()) : undefined;
    if (!service || service.merchant_id !== ctx.merchant.id || service.env !== ctx.env) throw notFound(`The service ${input.service} was not found`);
    if (!service.enabled || !service.terminal_id) throw badRequest(`The service ${input.service} is not enabled (it has no terminal)`);
    const terminal = await findTerminal(this.#db, service.terminal_id);
    const mid = terminal?.code || service.terminal_id.replace(/-/g, '').slice(0, 15).toUpperCase();
    const properties: Record<string, unknown> = {};
    for (const f of PROPERTY_FIELDS) if (input.properties?.[f] !== undefined) properties[f] = input.properties[f];
    const token = newToken();
    const now = ctx.clock.now();
    for (let attempt = 0; ; attempt++) {
      const row: repo.DeviceRow = {
        id: randomUUID(),
        merchant_id: ctx.merchant.id,
        env: ctx.env,
        service_id: service.id,
        identifier,
        terminal_id: String(randomInt(10_000_000, 100_000_000)),
        mid,
        communication_type: input.communication_type,
        connection_status: input.communication_type === 'SIMULATION' ? 'ONLINE' : 'OFFLINE',
        active: true,
        configured: input.communication_type === 'SIMULATION',
        properties,
        status: {},
        token_hash: hashDeviceToken(token),
        key_id: ctx.keyId,
        created_at: now,
        updated_at: now,
      };
      try {
        await repo.insertDevice(this.#db, row);
        return { device: await this.#presentOne(this.#db, row), token };
      } catch (err) {
        if (isUniqueViolation(err, 'devices_merchant_id_env_identifier_key')) throw conflict(`A device with identifier "${identifier}" already exists`);
        if (isUniqueViolation(err) && attempt < 5) continue; // a terminal id drawn twice
        throw err;
      }
    }
  }

  async list(ctx: RequestContext, q: ListQuery): Promise<PresentedDevice[]> {
    const tz = ctx.merchant.timezone;
    const date = (name: string, v: string | undefined) => {
      if (v === undefined || v === '') return undefined;
      const d = parseFilterDate(v, tz);
      if (!d) throw badRequest(`${name} must be a date in the format YYYYMMDDHHmm`);
      return d;
    };
    const rows = await repo.listDevices(this.#db, ownerOf(ctx), {
      identifier: q.identifier || undefined,
      service: q.service || undefined,
      terminal_id: q.terminal_id || undefined,
      communication_type: q.communication_type || undefined,
      active: q.active,
      configured: q.configured,
      created_from: date('created_at_from', q.created_at_from),
      created_to: date('created_at_to', q.created_at_to),
      updated_from: date('updated_at_from', q.updated_at_from),
      updated_to: date('updated_at_to', q.updated_at_to),
    });
    return this.#present(this.#db, rows);
  }

  async get(ctx: RequestContext, id: string): Promise<PresentedDevice> {
    return this.#presentOne(this.#db, await this.#owned(ctx, id));
  }

  /** Enables or disables a device: a disabled device gets no operations and its socket is refused. */
  async setEnabled(ctx: RequestContext, id: string, enabled: boolean): Promise<PresentedDevice> {
    const d = await this.#owned(ctx, id);
    await this.p.database.transaction(async (trx) => {
      await repo.updateDevice(trx, d.id, { active: enabled, updated_at: ctx.clock.now() });
      if (!enabled) await this.#signal(trx, { device: d.id, kind: 'disabled' });
    });
    this.#byToken.clear();
    return this.get(ctx, id);
  }

  /**
   * A new bearer token for the device; the old one stops working at once. The device acts from now on in
   * the name of the key that rotated its token (docs/devices.md, "Device token lifetime"): after the key
   * that registered it was revoked, rotating with an active key gives the device a working token again.
   */
  async rotateToken(ctx: RequestContext, id: string): Promise<{ device: PresentedDevice; token: string }> {
    const d = await this.#owned(ctx, id);
    const token = newToken();
    await this.p.database.transaction(async (trx) => {
      await repo.updateDevice(trx, d.id, { token_hash: hashDeviceToken(token), key_id: ctx.keyId, updated_at: ctx.clock.now() });
      // a socket opened with the old token is closed: the device connects again with the new one
      await this.#signal(trx, { device: d.id, kind: 'token_rotated' });
    });
    this.#byToken.clear();
    return { device: await this.get(ctx, id), token };
  }

  /**
   * The operator's `paygate device revoke-token`: the device's token stops working at once (its socket is
   * closed) and no new one is issued; the merchant gives the device a new token by rotating it (or the
   * device stays without one). Returns false for an unknown device.
   */
  async revokeToken(id: string): Promise<boolean> {
    const d = /^[0-9a-f-]{36}$/i.test(id) ? await repo.findDeviceById(this.#db, id.toLowerCase()) : undefined;
    if (!d) return false;
    await this.p.database.transaction(async (trx) => {
      // the hash of a token nobody holds (never shown): the old token matches nothing from now on
      await repo.updateDevice(trx, d.id, { token_hash: hashDeviceToken(newToken()), updated_at: this.p.clock.now() });
      await this.#signal(trx, { device: d.id, kind: 'token_revoked' });
    });
    this.#byToken.clear();
    return true;
  }

  /** Of `deviceIds`, the devices whose token ended with their key (the key was revoked). */
  async devicesOfRevokedKeys(deviceIds: string[]): Promise<string[]> {
    const out: string[] = [];
    const keys = new Map<string, boolean>();
    for (const id of deviceIds) {
      const d = await repo.findDeviceById(this.#db, id);
      if (!d) continue;
      if (!keys.has(d.key_id)) keys.set(d.key_id, await this.deps.merchants.keyActive(this.#db, d.key_id));
      if (!keys.get(d.key_id)) out.push(id);
    }
    return out;
  }

  // ---- merchant → device (J3–J7) ------------------------------------------------------------------

  /**
   * J3/J4: creates the order (payments' public interface) and sends it to the device: the order is
   * PENDING_PROCESSOR_RESPONSE with a PENDING transaction from now on, and the operation is queued, its
   * deadline and (simulated device) its answer scheduled, all in one database transaction. A socket device
   * is told at once, by whichever process holds its socket. The order is paid when the device reports the
   * card.
   */
  async send(ctx: RequestContext, kind: 'PAYMENT' | 'PREAUTHORIZATION', input: SendInput): Promise<{ result: OrderResult; device: PresentedDevice; operation: PresentedOperation }> {
    const device = await this.#owned(ctx, input.device);
    if (!device.active) throw badRequest(`The device ${device.id} is disabled`);
    const currency = (await this.serviceCurrency(device.service_id)) ?? '';
    const orderId = randomUUID();
    const created = await this.deps.payments.create(
      ctx,
      {
        amount: input.amount,
        operative: kind === 'PAYMENT' ? 'AUTHORIZATION' : 'DEFERRED',
        secure: false,
        description: input.description,
        customer_ext_id: input.customer_ext_id ?? null,
        additional: input.additional ?? null,
        url_post: input.url_post ?? null,
        reference: input.reference ?? null,
        service: device.service_id,
      },
      { orderId },
    );
    const now = ctx.clock.now();
    const realNow = this.p.clock.now();
    const op: repo.OperationRow = {
      id: randomUUID(),
      device_id: device.id,
      merchant_id: ctx.merchant.id,
      env: ctx.env,
      key_id: ctx.keyId,
      kind,
      order_id: orderId,
      amount: Number(created.order.amount),
      currency,
      description: input.description,
      status: 'QUEUED',
      terminal_action: null,
      error: null,
      card_bin: null,
      card_last4: null,
      card_reading_method: null,
      deadline_at: new Date(now.getTime() + OPERATION_TIMEOUT_MS),
      created_at: now,
      updated_at: now,
    };
    const result = await this.deps.payments.sendToDevice(ctx, orderId, {
      pos: posOf(device, {}),
      waitUntil: op.deadline_at,
      within: async (trx) => {
        await repo.insertOperation(trx, op);
        await repo.updateDevice(trx, device.id, { updated_at: now });
        await this.p.jobs.enqueue(trx, { queue: DEADLINE_QUEUE, payload: { operationId: op.id } satisfies OpPayload, runAt: new Date(realNow.getTime() + OPERATION_TIMEOUT_MS), merchantId: ctx.merchant.id, maxAttempts: 20, dedupeKey: `deadline:${op.id}` });
        if (device.communication_type === 'SIMULATION') {
          await this.p.jobs.enqueue(trx, { queue: SIMULATE_QUEUE, payload: { operationId: op.id } satisfies OpPayload, runAt: new Date(realNow.getTime() + SIMULATION_DELAY_MS), merchantId: ctx.merchant.id, maxAttempts: 10, dedupeKey: `simulate:${op.id}` });
        } else {
          await this.#signal(trx, { device: device.id, kind: 'operations' });
        }
      },
    });
    // the socket is open in this process: deliver before answering (other processes hear the NOTIFY)
    if (this.#channel.holds(device.id)) await this.deliverQueued([device.id]);
    const fresh = (await repo.findOperation(this.#db, op.id))!;
    return { result, device: await this.get(ctx, device.id), operation: presentOperation(fresh) };
  }

  /** Sends `signal` to every process (NOTIFY, delivered when `db`'s transaction commits). */
  async #signal(db: Executor, signal: DeviceSignal): Promise<void> {
    await sql`select pg_notify(${DEVICE_SIGNAL_CHANNEL}, ${JSON.stringify(signal)})`.execute(db);
  }

  /**
   * Sends the queued operations of these devices whose sockets are open in this process: each is claimed
   * (QUEUED → SENT, under its row lock) before it is sent, so two processes or two triggers never send
   * it twice. An operation whose send fails (the socket closed meanwhile) is sent again on reconnection.
   */
  async deliverQueued(deviceIds: string[]): Promise<number> {
    const held = deviceIds.filter((id) => this.#channel.holds(id));
    let sent = 0;
    for (const op of await repo.queuedOperations(this.#db, held)) {
      if (!this.#channel.holds(op.device_id)) continue;
      const claimed = await this.#apply(op, 'DELIVERED', {}, { onlyFrom: ['QUEUED'] });
      if (claimed && this.#channel.send(op.device_id, { type: 'operation', operation: operationMessage(claimed) })) sent++;
    }
    return sent;
  }

  /** Applies an operation event under a row lock; null when the table does not allow it now. */
  async #apply(op: { id: string; key_id: string }, event: OperationEvent, set: Partial<repo.OperationRow>, opts: { onlyFrom?: OperationStatus[] } = {}): Promise<repo.OperationRow | null> {
    const now = await this.#merchantNow(op); // read before the transaction (one connection on the embedded database)
    return this.p.database.transaction(async (trx) => {
      const locked = await repo.findOperation(trx, op.id, { forUpdate: true });
      if (!locked || !canOperation(locked.status, event)) return null;
      if (opts.onlyFrom && !opts.onlyFrom.includes(locked.status)) return null;
      const status = operationTransition(locked.status, event);
      await repo.updateOperation(trx, locked.id, { ...set, status, updated_at: now });
      await repo.updateDevice(trx, locked.device_id, { updated_at: now });
      return { ...locked, ...set, status, updated_at: now } as repo.OperationRow;
    });
  }

  async #merchantNow(op: { key_id: string }): Promise<Date> {
    return (await this.deps.merchants.contextForKey(op.key_id)).clock.now();
  }

  /** The operation of an order of the caller. */
  async operationOfOrder(ctx: RequestContext, orderUuid: string): Promise<repo.OperationRow | undefined> {
    const op = await repo.findOperationByOrder(this.#db, orderUuid);
    if (!op || op.merchant_id !== ctx.merchant.id || op.env !== ctx.env) return undefined;
    return op;
  }

  /**
   * J6: cancels an operation no card was charged for yet (the device is told; the order is CANCELLED and
   * notified), or releases the hold of a pre-authorization the device took.
   */
  async cancel(ctx: RequestContext, input: { device: string; order_uuid: string }): Promise<{ result: OrderResult; device: PresentedDevice }> {
    const device = await this.#owned(ctx, input.device);
    const op = await this.#sentTo(ctx, device, input.order_uuid);
    if (canOperation(op.status, 'CANCELLED')) {
      const done = await this.#apply(op, 'CANCELLED', { error: 'Cancelled by the merchant' });
      if (done) {
        await this.tell({ device: device.id, kind: 'cancel', operation: op.id });
        return { result: await this.#abandon(ctx, op.order_id, 'CANCELLED', 'Cancelled by the merchant'), device: await this.get(ctx, device.id) };
      }
    }
    return { result: await this.deps.payments.cancel(ctx, { order_uuid: input.order_uuid }), device: await this.get(ctx, device.id) };
  }

  /**
   * A device's history for the dashboard: the payments and pre-authorizations sent to it (with the state
   * the device brought them to), its card-present operations (with STAN and RRN) and the refunds sent to
   * it, newest first; `order` narrows to one order (following an operation). BIN and last 4 only.
   */
  async history(ctx: RequestContext, id: string, q: { limit: number; order?: string }): Promise<{ currency: string | null; operations: DeviceHistoryEntry[] }> {
    const device = await this.#owned(ctx, id);
    const [sent, present, refunds] = await Promise.all([
      repo.recentOperations(this.#db, device.id, q.limit, q.order),
      repo.recentCardPresent(this.#db, device.id, q.limit, q.order),
      repo.recentDeviceRefunds(this.#db, device.id, q.limit, q.order),
    ]);
    const currency = await this.serviceCurrency(device.service_id);
    const card = (bin: string | null, last4: string | null, method: string | null) => (last4 ? { bin, last4, reading_method: method } : null);
    const entries: (DeviceHistoryEntry & { at: number })[] = [
      ...sent.map((o) => ({
        at: o.created_at.getTime(), uuid: o.id, source: 'SENT' as const, kind: o.kind, order_uuid: o.order_id, amount: Number(o.amount), currency: o.currency,
        status: o.status, terminal_action: o.terminal_action, error: o.error, stan: null, rrn: null, card: card(o.card_bin, o.card_last4, o.card_reading_method),
        created_at: o.created_at.toISOString(), updated_at: o.updated_at.toISOString(),
      })),
      ...present.map((c) => ({
        at: c.created_at.getTime(), uuid: c.id, source: 'CARD_PRESENT' as const, kind: c.kind, order_uuid: c.order_id, amount: c.amount === null ? null : Number(c.amount), currency,
        status: null, terminal_action: null, error: null, stan: c.stan, rrn: c.rrn, card: card(c.card_bin, c.card_last4, c.card_reading_method),
        created_at: c.created_at.toISOString(), updated_at: c.created_at.toISOString(),
      })),
      ...refunds.map((r) => ({
        at: r.created_at.getTime(), uuid: r.id, source: 'REFUND' as const, kind: 'REFUND', order_uuid: r.order_id, amount: r.amount === null ? null : Number(r.amount), currency,
        status: r.status, terminal_action: null, error: r.error, stan: null, rrn: null, card: null,
        created_at: r.created_at.toISOString(), updated_at: r.updated_at.toISOString(),
      })),
    ];
    entries.sort((a, b) => b.at - a.at);
    return { currency, operations: entries.slice(0, q.limit).map(({ at: _at, ...e }) => e) };
  }

  /** A signal outside any business transaction (the socket hub announces connections with it). */
  async tell(signal: DeviceSignal): Promise<void> {
    await this.#signal(this.#db, signal);
  }

  /** J5: captures the hold of a pre-authorization taken on the device. */
  async confirm(ctx: RequestContext, input: { device: string; order_uuid: string; amount?: number | null }): Promise<{ result: OrderResult; device: PresentedDevice }> {
    const device = await this.#owned(ctx, input.device);
    await this.#sentTo(ctx, device, input.order_uuid);
    return { result: await this.deps.payments.confirm(ctx, { order_uuid: input.order_uuid, amount: input.amount ?? null }), device: await this.get(ctx, device.id) };
  }

  /**
   * J7: refunds a payment (all of what is left when `amount` is omitted). A SIMULATION device processes
   * it 10 seconds after it is sent, like a payment (the contract): the answer carries the queued `refund`
   * and the order as it is; then amount 100 is cancelled on the terminal, 200 refused, any other refunded.
   */
  async refund(ctx: RequestContext, input: { device: string; order_uuid: string; amount?: number | null }): Promise<{ result: OrderResult; device: PresentedDevice; refund?: PresentedDeviceRefund }> {
    const device = await this.#owned(ctx, input.device);
    await this.#sentTo(ctx, device, input.order_uuid);
    if (device.communication_type === 'SIMULATION') return this.#queueSimulatedRefund(ctx, device, input);
    return { result: await this.deps.payments.refund(ctx, { order_uuid: input.order_uuid, amount: input.amount ?? null }), device: await this.get(ctx, device.id) };
  }

  /**
   * J7 on a SIMULATION device: judged and its amount reserved now (the payments module's PENDING refund:
   * more than is left, counting refunds already sent, is 400 at once and changes nothing), recorded and
   * scheduled in the same transaction; the terminal acts on it 10 seconds later (its job).
   */
  async #queueSimulatedRefund(ctx: RequestContext, device: repo.DeviceRow, input: { order_uuid: string; amount?: number | null }) {
    const now = ctx.clock.now();
    const realNow = this.p.clock.now();
    let row: repo.DeviceRefundRow | null = null;
    const reserved = await this.deps.payments.reserveDeviceRefund(ctx, input.order_uuid, input.amount ?? null, async (trx, r) => {
      row = {
        id: randomUUID(), device_id: device.id, merchant_id: ctx.merchant.id, env: ctx.env, key_id: ctx.keyId, order_id: input.order_uuid.toLowerCase(),
        amount: r.amount, status: 'QUEUED', error: null, transaction_id: r.txId, created_at: now, updated_at: now,
      };
      await repo.insertDeviceRefund(trx, row);
      await this.p.jobs.enqueue(trx, { queue: SIMULATE_REFUND_QUEUE, payload: { refundId: row.id }, runAt: new Date(realNow.getTime() + SIMULATION_DELAY_MS), merchantId: ctx.merchant.id, maxAttempts: 10, dedupeKey: `simulate-refund:${row.id}` });
    });
    return { result: reserved.result, device: await this.get(ctx, device.id), refund: presentDeviceRefund(row!) };
  }

  /** Moves a simulated refund on under its row lock; false when its table does not allow it now. */
  async #settleRefund(id: string, event: DeviceRefundEvent, error: string | null, now: Date): Promise<boolean> {
    return this.p.database.transaction(async (trx) => {
      const r = await repo.findDeviceRefund(trx, id, { forUpdate: true });
      const to = r ? deviceRefundTransition(r.status, event) : null;
      if (!to) return false;
      await repo.updateDeviceRefund(trx, id, { status: to, error, updated_at: now });
      return true;
    });
  }

  /**
   * The simulated terminal acts on a J7 refund (sandbox rules by amount): cancelled or refused on the
   * terminal, or refunded. Each outcome settles the reserved refund on the order (notified there).
   */
  async #simulateRefundJob(job: Job<{ refundId: string }>): Promise<void> {
    const r = await repo.findDeviceRefund(this.#db, job.payload.refundId);
    if (!r) return;
    const ctx = await this.deps.merchants.contextForKey(r.key_id);
    if (!r.transaction_id) return this.#simulateUnreservedRefund(r, ctx);
    const txId = r.transaction_id;
    // the order says what happened to the reserved refund (a run cut short after PROCESSING finds it
    // there: refunded, failed, or still with the processor, asked again later)
    const outcomeOnOrder = async (): Promise<'done' | 'pending'> => {
      const tx = (await this.deps.payments.getOrder(ctx, r.order_id)).order.transactions.find((x: { uuid: string }) => x.uuid === txId) as { status: string; error_details?: string | null } | undefined;
      if (!tx || tx.status === 'PENDING') return 'pending';
      const ok = tx.status === 'SUCCESS';
      await this.#settleRefund(r.id, ok ? 'REFUNDED' : 'FAILED', ok ? null : tx.error_details ?? `The refund is ${tx.status}`, ctx.clock.now());
      return 'done';
    };
    if (r.status === 'PROCESSING') {
      if ((await outcomeOnOrder()) === 'pending') throw new Error('the refund is still with the processor: asked again later');
      return;
    }
    if (r.status !== 'QUEUED') return;
    const now = ctx.clock.now();
    const outcome = simulatedRefundOutcome(Number(r.amount));
    if (outcome !== 'REFUND') {
      const details = outcome === 'CANCELLED' ? 'Cancelled on the terminal' : 'Refused on the terminal';
      if (!(await this.#settleRefund(r.id, outcome, details, now))) return;
      await this.deps.payments.finishDeviceRefund(ctx, r.order_id, txId, { kind: outcome, details });
      return;
    }
    if (!(await this.#settleRefund(r.id, 'PROCESSING', null, now))) return;
    await this.deps.payments.finishDeviceRefund(ctx, r.order_id, txId, { kind: 'REFUND' });
    if ((await outcomeOnOrder()) === 'pending') throw new Error('the refund is still with the processor: asked again later');
  }

  /** A refund queued by an earlier release, with nothing reserved: processed as it was then. */
  async #simulateUnreservedRefund(r: repo.DeviceRefundRow, ctx: RequestContext): Promise<void> {
    const now = ctx.clock.now();
    if (r.status === 'PROCESSING') {
      // a run cut short after its claim: the refund may have been made; never make it twice
      await this.#settleRefund(r.id, 'FAILED', 'Interrupted while it was processed: see the order for whether it was refunded', now);
      return;
    }
    if (r.status !== 'QUEUED') return;
    const order = (await this.deps.payments.getOrder(ctx, r.order_id)).order as { amount: number; refunded: number };
    const amount = r.amount === null ? Number(order.amount) - Number(order.refunded) : Number(r.amount);
    const outcome = simulatedRefundOutcome(amount);
    if (outcome === 'CANCELLED') return void (await this.#settleRefund(r.id, 'CANCELLED', 'Cancelled on the terminal', now));
    if (outcome === 'REFUSED') return void (await this.#settleRefund(r.id, 'REFUSED', 'Refused on the terminal', now));
    if (!(await this.#settleRefund(r.id, 'PROCESSING', null, now))) return;
    try {
      await this.deps.payments.refund(ctx, { order_uuid: r.order_id, amount: r.amount === null ? null : Number(r.amount) });
      await this.#settleRefund(r.id, 'REFUNDED', null, ctx.clock.now());
    } catch (err) {
      if (!(err instanceof ApiError) || err.status >= 500) throw err;
      await this.#settleRefund(r.id, 'FAILED', err.details, ctx.clock.now());
    }
  }

  /** An order sent to another device of the merchant is not this device's to follow up (404). */
  async #sentTo(ctx: RequestContext, device: repo.DeviceRow, orderUuid: string): Promise<repo.OperationRow> {
    // an order sent to another device, or never sent to one (a web order), is not this device's (404,
    // as another merchant's order)
    const op = await this.operationOfOrder(ctx, orderUuid);
    if (!op || op.device_id !== device.id) throw notFound(`The order ${orderUuid} was not sent to the device ${device.id}`);
    return op;
  }

  /**
   * Closes an order no card was charged for (payments voids the waiting transaction; CANCELLED or
   * EXPIRED, notified); an order whose card is being charged, or already settled, is left as it is.
   */
  #abandon(ctx: RequestContext, orderId: string, outcome: 'CANCELLED' | 'ABANDONED', details: string): Promise<OrderResult> {
    return this.deps.payments.abandonDevicePayment(ctx, orderId, { outcome, details });
  }

  // ---- device side --------------------------------------------------------------------------------

  /**
   * The device a bearer token belongs to (any environment), or undefined, with whether its key is still
   * active. Kept for PAYGATE_CACHE_TTL_MS; disabling a device, rotating or revoking its token, or revoking
   * a key drops it at once in every process (the devices and api_keys triggers of paygate_invalidate) and
   * in this one before the change is answered.
   */
  async deviceForToken(token: string): Promise<TokenDevice | undefined> {
    if (!/^pgd_[A-Za-z0-9_-]{20,100}$/.test(token)) return undefined;
    const hash = hashDeviceToken(token);
    const cached = this.#byToken.get(hash);
    if (cached) return cached;
    const row = await repo.findDeviceByTokenHash(this.#db, hash);
    // the token lives as long as the key the device acts for (docs/devices.md, "Device token lifetime")
    const device = row ? { ...row, keyActive: await this.deps.merchants.keyActive(this.#db, row.key_id) } : undefined;
    if (device) this.#byToken.set(hash, device);
    return device;
  }

  /** The ISO 4217 alpha-3 currency of a service (its terminal's), cached like deviceForToken. */
  async serviceCurrency(serviceId: string): Promise<string | null> {
    const cached = this.#currencies.get(serviceId);
    if (cached !== undefined) return cached;
    const currency = (await findServiceWithTerminal(this.#db, serviceId))?.currency_code ?? null;
    return this.#currencies.set(serviceId, currency);
  }

  /** The socket of a device opened: ONLINE, configured; what is waiting for it is sent. */
  async connected(deviceId: string): Promise<{ device: PresentedDevice; open: repo.OperationRow[] }> {
    const d = (await repo.findDeviceById(this.#db, deviceId))!;
    const now = new Date(this.p.clock.now().getTime() + (await this.#clockOffset(d)));
    await repo.updateDevice(this.#db, d.id, { connection_status: deviceTransition(d.connection_status, 'CONNECTED'), configured: true, updated_at: now });
    const open = await repo.openOperations(this.#db, d.id);
    const fresh = (await repo.findDeviceById(this.#db, deviceId))!;
    return { device: await this.#presentOne(this.#db, fresh), open };
  }

  /**
   * After `connected`: sends every operation the device may act on (queued ones are claimed first; one
   * sent before, or waiting for the card again after SCA, is sent again: the device lost it).
   */
  async deliverWaiting(deviceId: string, open: repo.OperationRow[]): Promise<void> {
    for (const op of open) {
      const current = op.status === 'QUEUED' ? await this.#apply(op, 'DELIVERED', {}, { onlyFrom: ['QUEUED'] }) : op;
      if (current) this.#channel.send(deviceId, { type: 'operation', operation: operationMessage(current) });
    }
  }

  async disconnected(deviceId: string): Promise<void> {
    const d = await repo.findDeviceById(this.#db, deviceId);
    if (!d) return;
    const now = new Date(this.p.clock.now().getTime() + (await this.#clockOffset(d)));
    await repo.updateDevice(this.#db, d.id, { connection_status: deviceTransition(d.connection_status, 'DISCONNECTED'), updated_at: now });
  }

  async #clockOffset(d: repo.DeviceRow): Promise<number> {
    if (d.env !== 'sandbox') return 0;
    const m = await this.deps.merchants.findMerchant(this.#db, d.merchant_id);
    return Number(m?.clock_offset_ms ?? 0);
  }

  /** Battery, connection and build of the device, as it reports them. */
  async reportStatus(deviceId: string, status: Record<string, unknown>): Promise<void> {
    const d = await repo.findDeviceById(this.#db, deviceId);
    if (!d) return;
    const next: Record<string, unknown> = { ...d.status };
    const checks: Record<string, (v: unknown) => boolean> = {
      battery_level: (v) => typeof v === 'number' && Number.isInteger(v) && v >= 0 && v <= 100,
      connection_type: (v) => typeof v === 'string' && v.length <= 32,
      connection_quality: (v) => typeof v === 'string' && v.length <= 32,
      charging: (v) => typeof v === 'boolean',
      build_version: (v) => typeof v === 'string' && v.length <= 64,
    };
    for (const f of STATUS_FIELDS) {
      const v = status[f];
      if (v === undefined) continue;
      if (v !== null && !checks[f](v)) throw badRequest(`status.${f} is not valid`);
      next[f] = v;
    }
    const now = new Date(this.p.clock.now().getTime() + (await this.#clockOffset(d)));
    await repo.updateDevice(this.#db, d.id, { status: next, updated_at: now });
  }

  /**
   * What a device read for an operation: the card is charged through payments, through the transaction
   * that waited for the device (the order is paid and the merchant notified there); a cancellation on the
   * terminal closes the order. When the issuer asks for SCA the operation waits (AUTHENTICATION_REQUIRED,
   * with the terminal action) for the device to read the card again, which continues the same order.
   * Track 2 and the PIN block are used in memory and dropped; the operation keeps the BIN and last 4.
   */
  async report(deviceId: string, operationId: string, report: DeviceReport): Promise<PresentedOperation> {
    const op = await repo.findOperation(this.#db, operationId);
    if (!op || op.device_id !== deviceId) throw notFound(`The operation ${operationId} was not found`);
    const ctx = await this.deps.merchants.contextForKey(op.key_id);
    if (report.kind === 'CANCELLED') {
      const reason = String(report.reason ?? 'Cancelled on the device').slice(0, 200);
      const done = await this.#apply(op, 'CANCELLED', { error: reason });
      if (!done) throw conflict(`The operation is ${op.status}: it cannot be cancelled`);
      await this.#abandon(ctx, op.order_id, 'CANCELLED', `Cancelled on the device: ${reason}`);
      return presentOperation(done);
    }
    const card = readCard(report.card ?? {});
    if ('error' in card) throw badRequest(card.error);
    const pinProblem = pinBlockProblem(report.pin ?? null);
    if (pinProblem) throw badRequest(pinProblem);
    const method = report.card_reading_method ?? null;
    const read = await this.#apply(op, 'CARD_READ', { card_bin: card.bin, card_last4: card.last4, card_reading_method: method, terminal_action: null });
    if (!read) throw conflict(`The operation is ${op.status}: no card can be read for it`);
    const device = (await repo.findDeviceById(this.#db, deviceId))!;
    let result: OrderResult;
    try {
      result = await this.deps.payments.pay(ctx, op.order_id, {
        channel: 'CARD_PRESENT',
        card: { kind: 'card', holder: 'CARDHOLDER', pan: card.pan, expMonth: card.expMonth, expYear: card.expYear, origin: 'DEVICE', store: false },
        cardPresent: {
          readingMethod: method,
          pinEntered: !!report.pin?.block,
          pos: posOf(device, { card_reading_method: method }),
          // the card read again after the issuer asked for SCA continues the same order
          scaRetry: op.status === 'AUTHENTICATION_REQUIRED',
        },
      });
    } catch (err) {
      if (!(err instanceof ApiError) || err.status >= 500) throw err; // the deadline job settles it from the order
      const failed = await this.#apply(op, 'FAILED', { error: err.details.slice(0, 200) });
      await this.#abandon(ctx, op.order_id, 'ABANDONED', `The card read by the device could not be used: ${err.details}`);
      return presentOperation(failed ?? (await repo.findOperation(this.#db, op.id))!);
    }
    return presentOperation(await this.#settleFromOrder(op, result));
  }

  /** The operation takes the outcome of its order (SCA asked for: with the terminal action). */
  async #settleFromOrder(op: repo.OperationRow, r: OrderResult): Promise<repo.OperationRow> {
    const status = r.order.status;
    const event = eventForOrder(status);
    let set: Partial<repo.OperationRow>;
    if (event === 'APPROVED') set = { error: null };
    else if (event === 'SCA_REQUIRED') {
      const last = [...r.order.transactions].reverse().find((t) => (t as { payment_data?: { terminal_action?: string | null } }).payment_data?.terminal_action);
      set = { terminal_action: (last as { payment_data?: { terminal_action?: string | null } } | undefined)?.payment_data?.terminal_action ?? 'REQUEST_PIN', error: 'The issuer asks for strong customer authentication on the terminal' };
    } else set = { error: `The order is ${status}` };
    const done = event ? await this.#apply(op, event, set) : null;
    return done ?? (await repo.findOperation(this.#db, op.id))!;
  }

  // ---- background ---------------------------------------------------------------------------------

  registerJobs(): void {
    this.p.jobs.register<OpPayload>(SIMULATE_QUEUE, (job) => this.#simulateJob(job));
    this.p.jobs.register<OpPayload>(DEADLINE_QUEUE, (job) => this.#deadlineJob(job));
    this.p.jobs.register<{ refundId: string }>(SIMULATE_REFUND_QUEUE, (job) => this.#simulateRefundJob(job));
  }

  /** The simulated device answers (sandbox rules by amount). */
  async #simulateJob(job: Job<OpPayload>): Promise<void> {
    const op = await repo.findOperation(this.#db, job.payload.operationId);
    if (!op || !canOperation(op.status, 'CARD_READ')) return;
    await this.report(op.device_id, op.id, simulatedDeviceReport(operationMessage(op)));
  }

  /**
   * The deadline of an operation: an operation no card was charged for (waiting for the device, or for
   * the card again after SCA) fails (TIMED_OUT), the device is told and the order is closed (EXPIRED,
   * notified); an operation whose charge was interrupted takes the state of its order; an operation that
   * ended (cancelled, failed) gets its order closed if a crash left it open.
   */
  async #deadlineJob(job: Job<OpPayload>): Promise<void | Reschedule> {
    const op = await repo.findOperation(this.#db, job.payload.operationId);
    if (!op) return;
    const ctx = await this.deps.merchants.contextForKey(op.key_id);
    const now = ctx.clock.now();
    if (canOperation(op.status, 'TIMED_OUT')) {
      const left = op.deadline_at.getTime() - now.getTime();
      if (left > 0) return { retryAt: new Date(this.p.clock.now().getTime() + left) };
      const done = await this.#apply(op, 'TIMED_OUT', { error: 'The device did not answer in time' });
      // a card was read meanwhile: its charge decides; look again later in case it was interrupted
      if (!done) return { retryAt: new Date(this.p.clock.now().getTime() + 60_000) };
      await this.tell({ device: op.device_id, kind: 'cancel', operation: op.id });
      await this.#abandon(ctx, op.order_id, 'ABANDONED', 'The device did not read a card in time');
      return;
    }
    if (op.status === 'CARD_READ') {
      const settled = await this.#settleFromOrder(op, await this.deps.payments.getOrder(ctx, op.order_id));
      if (settled.status === 'CARD_READ') return { retryAt: new Date(this.p.clock.now().getTime() + 60_000) };
      if (settled.status === 'AUTHENTICATION_REQUIRED') return this.#deadlineJob(job); // past the deadline: closes it
      return;
    }
    if (op.status === 'CANCELLED') await this.#abandon(ctx, op.order_id, 'CANCELLED', op.error ?? 'Cancelled');
    else if (op.status === 'TIMED_OUT' || op.status === 'FAILED') await this.#abandon(ctx, op.order_id, 'ABANDONED', op.error ?? 'The device did not read a card');
  }
}
