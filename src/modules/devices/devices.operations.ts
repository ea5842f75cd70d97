/**
 * Operations sent by the merchant to a device (J3-J7): payment and preauthorization, cancellation,
 * confirmation, refund (with the simulated device's refunds), the history of a device. The second layer
 * of DevicesService (devices.service.ts).
 */
import { randomUUID } from 'node:crypto';
import { ApiError, badRequest, notFound } from '../../platform/errors/errors.js';
import type { RequestContext } from '../../platform/http/types.js';
import type { Job } from '../../platform/jobs/queue.js';
import type { OrderResult } from '../payments/index.js';
import {
  OPERATION_TIMEOUT_MS,
  SIMULATION_DELAY_MS,
  canOperation,
  deviceRefundTransition,
  operationMessage,
  operationTransition,
  posOf,
  presentDeviceRefund,
  presentOperation,
  simulatedRefundOutcome,
  type DeviceRefundEvent,
  type PresentedDeviceRefund,
  type OperationEvent,
  type OperationStatus,
  type PresentedDevice,
  type PresentedOperation,
} from './devices.domain.js';
import * as repo from './devices.repo.js';
import { DEADLINE_QUEUE, SIMULATE_QUEUE, SIMULATE_REFUND_QUEUE, type DeviceHistoryEntry, type DeviceSignal, type OpPayload, type SendInput } from './devices.types.js';
import { DevicesRegistry } from './devices.registry.js';

export class DeviceOperations extends DevicesRegistry {
  // ---- merchant → device (J3–J7) ------------------------------------------------------------------

  /**
   * J3/J4: creates the order (payments' public interface) and sends it to the device: the order is
   * PENDING_PROCESSOR_RESPONSE with a PENDING transaction from now on, and the operation is queued, its
   * deadline and (simulated device) its answer scheduled, all in one database transaction. A socket device
   * is told at once, by whichever process holds its socket. The order is paid when the device reports the
   * card.
   */
  async send(ctx: RequestContext, kind: 'PAYMENT' | 'PREAUTHORIZATION', input: SendInput): Promise<{ result: OrderResult; device: PresentedDevice; operation: PresentedOperation }> {
    const device = await this.owned(ctx, input.device);
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
          await this.signal(trx, { device: device.id, kind: 'operations' });
        }
      },
    });
    // the socket is open in this process: deliver before answering (other processes hear the NOTIFY)
    if (this.channel.holds(device.id)) await this.deliverQueued([device.id]);
    const fresh = (await repo.findOperation(this.db, op.id))!;
    return { result, device: await this.get(ctx, device.id), operation: presentOperation(fresh) };
  }

  /**
   * Sends the queued operations of these devices whose sockets are open in this process: each is claimed
   * (QUEUED → SENT, under its row lock) before it is sent, so two processes or two triggers never send
   * it twice. An operation whose send fails (the socket closed meanwhile) is sent again on reconnection.
   */
  async deliverQueued(deviceIds: string[]): Promise<number> {
    const held = deviceIds.filter((id) => this.channel.holds(id));
    let sent = 0;
    for (const op of await repo.queuedOperations(this.db, held)) {
      if (!this.channel.holds(op.device_id)) continue;
      const claimed = await this.apply(op, 'DELIVERED', {}, { onlyFrom: ['QUEUED'] });
      if (claimed && this.channel.send(op.device_id, { type: 'operation', operation: operationMessage(claimed) })) sent++;
    }
    return sent;
  }

  /** Applies an operation event under a row lock; null when the table does not allow it now. */
  protected async apply(op: { id: string; key_id: string }, event: OperationEvent, set: Partial<repo.OperationRow>, opts: { onlyFrom?: OperationStatus[] } = {}): Promise<repo.OperationRow | null> {
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
    const op = await repo.findOperationByOrder(this.db, orderUuid);
    if (!op || op.merchant_id !== ctx.merchant.id || op.env !== ctx.env) return undefined;
    return op;
  }

  /**
   * J6: cancels an operation no card was charged for yet (the device is told; the order is CANCELLED and
   * notified), or releases the hold of a pre-authorization the device took.
   */
  async cancel(ctx: RequestContext, input: { device: string; order_uuid: string }): Promise<{ result: OrderResult; device: PresentedDevice }> {
    const device = await this.owned(ctx, input.device);
    const op = await this.#sentTo(ctx, device, input.order_uuid);
    if (canOperation(op.status, 'CANCELLED')) {
      const done = await this.apply(op, 'CANCELLED', { error: 'Cancelled by the merchant' });
      if (done) {
        await this.tell({ device: device.id, kind: 'cancel', operation: op.id });
        return { result: await this.abandon(ctx, op.order_id, 'CANCELLED', 'Cancelled by the merchant'), device: await this.get(ctx, device.id) };
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
    const device = await this.owned(ctx, id);
    const [sent, present, refunds] = await Promise.all([
      repo.recentOperations(this.db, device.id, q.limit, q.order),
      repo.recentCardPresent(this.db, device.id, q.limit, q.order),
      repo.recentDeviceRefunds(this.db, device.id, q.limit, q.order),
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
    await this.signal(this.db, signal);
  }

  /** J5: captures the hold of a pre-authorization taken on the device. */
  async confirm(ctx: RequestContext, input: { device: string; order_uuid: string; amount?: number | null }): Promise<{ result: OrderResult; device: PresentedDevice }> {
    const device = await this.owned(ctx, input.device);
    await this.#sentTo(ctx, device, input.order_uuid);
    return { result: await this.deps.payments.confirm(ctx, { order_uuid: input.order_uuid, amount: input.amount ?? null }), device: await this.get(ctx, device.id) };
  }

  /**
   * J7: refunds a payment (all of what is left when `amount` is omitted). A SIMULATION device processes
   * it 10 seconds after it is sent, like a payment (the contract): the answer carries the queued `refund`
   * and the order as it is; then amount 100 is cancelled on the terminal, 200 refused, any other refunded.
   */
  async refund(ctx: RequestContext, input: { device: string; order_uuid: string; amount?: number | null }): Promise<{ result: OrderResult; device: PresentedDevice; refund?: PresentedDeviceRefund }> {
    const device = await this.owned(ctx, input.device);
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
  protected async simulateRefundJob(job: Job<{ refundId: string }>): Promise<void> {
    const r = await repo.findDeviceRefund(this.db, job.payload.refundId);
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
  protected abandon(ctx: RequestContext, orderId: string, outcome: 'CANCELLED' | 'ABANDONED', details: string): Promise<OrderResult> {
    return this.deps.payments.abandonDevicePayment(ctx, orderId, { outcome, details });
  }

}
