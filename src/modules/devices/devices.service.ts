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
import { ApiError, badRequest, conflict, notFound } from '../../platform/errors/errors.js';
import type { Job, Reschedule } from '../../platform/jobs/queue.js';
import { simulatedDeviceReport, type DeviceReport } from '../../processors/index.js';
import type { OrderResult } from '../payments/index.js';
import {
  STATUS_FIELDS,
  canOperation,
  deviceTransition,
  eventForOrder,
  operationMessage,
  pinBlockProblem,
  posOf,
  presentOperation,
  readCard,
  type PresentedDevice,
  type PresentedOperation,
} from './devices.domain.js';
import * as repo from './devices.repo.js';
import { DEADLINE_QUEUE, SIMULATE_QUEUE, SIMULATE_REFUND_QUEUE, type OpPayload } from './devices.types.js';
import { DeviceOperations } from './devices.operations.js';

/**
 * The devices service: the registry (devices.registry.ts), operations sent to devices
 * (devices.operations.ts), and here what a device reports and the background jobs.
 */
export class DevicesService extends DeviceOperations {
  async connected(deviceId: string): Promise<{ device: PresentedDevice; open: repo.OperationRow[] }> {
    const d = (await repo.findDeviceById(this.db, deviceId))!;
    const now = new Date(this.p.clock.now().getTime() + (await this.#clockOffset(d)));
    await repo.updateDevice(this.db, d.id, { connection_status: deviceTransition(d.connection_status, 'CONNECTED'), configured: true, updated_at: now });
    const open = await repo.openOperations(this.db, d.id);
    const fresh = (await repo.findDeviceById(this.db, deviceId))!;
    return { device: await this.presentOne(this.db, fresh), open };
  }

  /**
   * After `connected`: sends every operation the device may act on (queued ones are claimed first; one
   * sent before, or waiting for the card again after SCA, is sent again: the device lost it).
   */
  async deliverWaiting(deviceId: string, open: repo.OperationRow[]): Promise<void> {
    for (const op of open) {
      const current = op.status === 'QUEUED' ? await this.apply(op, 'DELIVERED', {}, { onlyFrom: ['QUEUED'] }) : op;
      if (current) this.channel.send(deviceId, { type: 'operation', operation: operationMessage(current) });
    }
  }

  async disconnected(deviceId: string): Promise<void> {
    const d = await repo.findDeviceById(this.db, deviceId);
    if (!d) return;
    const now = new Date(this.p.clock.now().getTime() + (await this.#clockOffset(d)));
    await repo.updateDevice(this.db, d.id, { connection_status: deviceTransition(d.connection_status, 'DISCONNECTED'), updated_at: now });
  }

  async #clockOffset(d: repo.DeviceRow): Promise<number> {
    if (d.env !== 'sandbox') return 0;
    const m = await this.deps.merchants.findMerchant(this.db, d.merchant_id);
    return Number(m?.clock_offset_ms ?? 0);
  }

  /** Battery, connection and build of the device, as it reports them. */
  async reportStatus(deviceId: string, status: Record<string, unknown>): Promise<void> {
    const d = await repo.findDeviceById(this.db, deviceId);
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
    await repo.updateDevice(this.db, d.id, { status: next, updated_at: now });
  }

  /**
   * What a device read for an operation: the card is charged through payments, through the transaction
   * that waited for the device (the order is paid and the merchant notified there); a cancellation on the
   * terminal closes the order. When the issuer asks for SCA the operation waits (AUTHENTICATION_REQUIRED,
   * with the terminal action) for the device to read the card again, which continues the same order.
   * Track 2 and the PIN block are used in memory and dropped; the operation keeps the BIN and last 4.
   */
  async report(deviceId: string, operationId: string, report: DeviceReport): Promise<PresentedOperation> {
    const op = await repo.findOperation(this.db, operationId);
    if (!op || op.device_id !== deviceId) throw notFound(`The operation ${operationId} was not found`);
    const ctx = await this.deps.merchants.contextForKey(op.key_id);
    if (report.kind === 'CANCELLED') {
      const reason = String(report.reason ?? 'Cancelled on the device').slice(0, 200);
      const done = await this.apply(op, 'CANCELLED', { error: reason });
      if (!done) throw conflict(`The operation is ${op.status}: it cannot be cancelled`);
      await this.abandon(ctx, op.order_id, 'CANCELLED', `Cancelled on the device: ${reason}`);
      return presentOperation(done);
    }
    const card = readCard(report.card ?? {});
    if ('error' in card) throw badRequest(card.error);
    const pinProblem = pinBlockProblem(report.pin ?? null);
    if (pinProblem) throw badRequest(pinProblem);
    const method = report.card_reading_method ?? null;
    const read = await this.apply(op, 'CARD_READ', { card_bin: card.bin, card_last4: card.last4, card_reading_method: method, terminal_action: null });
    if (!read) throw conflict(`The operation is ${op.status}: no card can be read for it`);
    const device = (await repo.findDeviceById(this.db, deviceId))!;
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
      const failed = await this.apply(op, 'FAILED', { error: err.details.slice(0, 200) });
      await this.abandon(ctx, op.order_id, 'ABANDONED', `The card read by the device could not be used: ${err.details}`);
      return presentOperation(failed ?? (await repo.findOperation(this.db, op.id))!);
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
    const done = event ? await this.apply(op, event, set) : null;
    return done ?? (await repo.findOperation(this.db, op.id))!;
  }

  // ---- background ---------------------------------------------------------------------------------

  registerJobs(): void {
    this.p.jobs.register<OpPayload>(SIMULATE_QUEUE, (job) => this.#simulateJob(job));
    this.p.jobs.register<OpPayload>(DEADLINE_QUEUE, (job) => this.#deadlineJob(job));
    this.p.jobs.register<{ refundId: string }>(SIMULATE_REFUND_QUEUE, (job) => this.simulateRefundJob(job));
  }

  /** The simulated device answers (sandbox rules by amount). */
  async #simulateJob(job: Job<OpPayload>): Promise<void> {
    const op = await repo.findOperation(this.db, job.payload.operationId);
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
    const op = await repo.findOperation(this.db, job.payload.operationId);
    if (!op) return;
    const ctx = await this.deps.merchants.contextForKey(op.key_id);
    const now = ctx.clock.now();
    if (canOperation(op.status, 'TIMED_OUT')) {
      const left = op.deadline_at.getTime() - now.getTime();
      if (left > 0) return { retryAt: new Date(this.p.clock.now().getTime() + left) };
      const done = await this.apply(op, 'TIMED_OUT', { error: 'The device did not answer in time' });
      // a card was read meanwhile: its charge decides; look again later in case it was interrupted
      if (!done) return { retryAt: new Date(this.p.clock.now().getTime() + 60_000) };
      await this.tell({ device: op.device_id, kind: 'cancel', operation: op.id });
      await this.abandon(ctx, op.order_id, 'ABANDONED', 'The device did not read a card in time');
      return;
    }
    if (op.status === 'CARD_READ') {
      const settled = await this.#settleFromOrder(op, await this.deps.payments.getOrder(ctx, op.order_id));
      if (settled.status === 'CARD_READ') return { retryAt: new Date(this.p.clock.now().getTime() + 60_000) };
      if (settled.status === 'AUTHENTICATION_REQUIRED') return this.#deadlineJob(job); // past the deadline: closes it
      return;
    }
    if (op.status === 'CANCELLED') await this.abandon(ctx, op.order_id, 'CANCELLED', op.error ?? 'Cancelled');
    else if (op.status === 'TIMED_OUT' || op.status === 'FAILED') await this.abandon(ctx, op.order_id, 'ABANDONED', op.error ?? 'The device did not read a card');
  }
}
