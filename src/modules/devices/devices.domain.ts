/**
 * Devices, pure: the two lifecycles (a device's connection, an operation sent to a device) as transition
 * tables, how a device and an operation are presented, and how the card data a device reports is read.
 * Nothing here touches the database, the clock or the network.
 */
import { randomInt } from 'node:crypto';
import { isCardNumber } from '../../platform/security/card-numbers.js';
import { Secret } from '../../platform/security/secret.js';

/**
 * A new retrieval reference number (12 digits) for a card-present operation. About 1.6% of random
 * 12-digit numbers are card numbers by the gateway's definition (Luhn-valid, in Maestro's ranges, of
 * a Maestro length); such a value is drawn again, so an rrn the gateway gives is never refused as a card
 * number when the merchant sends it back (K2, K6, K7, K9) and never looks like one in a log or a table.
 * `half` draws six digits (100000 to 999999); it is a parameter for tests.
 */
export function newRrn(half: () => number = () => randomInt(100_000, 1_000_000)): string {
  for (;;) {
    const rrn = String(half()) + String(half());
    if (!isCardNumber(rrn)) return rrn;
  }
}

export const COMMUNICATION_TYPES = ['SIMULATION', 'SOCKET'] as const;
export type CommunicationType = (typeof COMMUNICATION_TYPES)[number];

/** A simulated device settles an operation this long after it was sent (merchant's clock). */
export const SIMULATION_DELAY_MS = 10_000;
/** An operation a device has not answered (offline, or the customer walked away) fails after this long. */
export const OPERATION_TIMEOUT_MS = 120_000;

// ---- the device's connection ----------------------------------------------------------------------

export const CONNECTION_STATUSES = ['ONLINE', 'OFFLINE'] as const;
export type ConnectionStatus = (typeof CONNECTION_STATUSES)[number];
export const DEVICE_EVENTS = ['CONNECTED', 'DISCONNECTED'] as const;
export type DeviceEvent = (typeof DEVICE_EVENTS)[number];

/**
 * A socket device is OFFLINE until it opens its socket; a simulated one is always ONLINE. A second
 * socket of an online device replaces the first (CONNECTED while ONLINE stays ONLINE).
 */
export const DEVICE_TABLE: Readonly<Record<DeviceEvent, Partial<Record<ConnectionStatus, ConnectionStatus>>>> = {
  CONNECTED: { OFFLINE: 'ONLINE', ONLINE: 'ONLINE' },
  DISCONNECTED: { ONLINE: 'OFFLINE', OFFLINE: 'OFFLINE' },
};

export function deviceTransition(from: ConnectionStatus, event: DeviceEvent): ConnectionStatus {
  const to = DEVICE_TABLE[event][from];
  if (!to) throw new Error(`device in status ${from} does not accept ${event}`);
  return to;
}

// ---- an operation sent to a device ----------------------------------------------------------------

export const OPERATION_STATUSES = ['QUEUED', 'SENT', 'CARD_READ', 'AUTHENTICATION_REQUIRED', 'APPROVED', 'REFUSED', 'FAILED', 'CANCELLED', 'TIMED_OUT'] as const;
export type OperationStatus = (typeof OPERATION_STATUSES)[number];
export const OPERATION_EVENTS = [
  /** The operation was sent to the device's socket. */
  'DELIVERED',
  /** The device read a card: the gateway is charging it. */
  'CARD_READ',
  /** The issuer asked for SCA on the terminal (PIN, chip): the device reads the card again. */
  'SCA_REQUIRED',
  /** The charge was approved. */
  'APPROVED',
  /** The charge was declined. */
  'DECLINED',
  /** The charge failed (processor error, or the card data could not be used). */
  'FAILED',
  /** The customer cancelled on the device, or the merchant cancelled it (J6) before a card was charged. */
  'CANCELLED',
  /** The deadline passed with no card charged (the device was offline or did not answer). */
  'TIMED_OUT',
] as const;
export type OperationEvent = (typeof OPERATION_EVENTS)[number];

export const FINAL_OPERATION_STATUSES: readonly OperationStatus[] = ['APPROVED', 'REFUSED', 'FAILED', 'CANCELLED', 'TIMED_OUT'];
/** Statuses in which the device may still read a card (AUTHENTICATION_REQUIRED: read it again, with the SCA asked for). */
export const OPEN_OPERATION_STATUSES: readonly OperationStatus[] = ['QUEUED', 'SENT', 'AUTHENTICATION_REQUIRED'];
/** Statuses counted as the device's pending transactions. */
export const PENDING_OPERATION_STATUSES: readonly OperationStatus[] = ['QUEUED', 'SENT', 'CARD_READ', 'AUTHENTICATION_REQUIRED'];

export const OPERATION_TABLE: Readonly<Record<OperationEvent, Partial<Record<OperationStatus, OperationStatus>>>> = {
  DELIVERED: { QUEUED: 'SENT', SENT: 'SENT' },
  CARD_READ: { QUEUED: 'CARD_READ', SENT: 'CARD_READ', AUTHENTICATION_REQUIRED: 'CARD_READ' },
  SCA_REQUIRED: { CARD_READ: 'AUTHENTICATION_REQUIRED' },
  APPROVED: { CARD_READ: 'APPROVED' },
  DECLINED: { CARD_READ: 'REFUSED' },
  FAILED: { CARD_READ: 'FAILED', QUEUED: 'FAILED', SENT: 'FAILED', AUTHENTICATION_REQUIRED: 'FAILED' },
  CANCELLED: { QUEUED: 'CANCELLED', SENT: 'CANCELLED', AUTHENTICATION_REQUIRED: 'CANCELLED' },
  TIMED_OUT: { QUEUED: 'TIMED_OUT', SENT: 'TIMED_OUT', AUTHENTICATION_REQUIRED: 'TIMED_OUT' },
};

export function operationTransition(from: OperationStatus, event: OperationEvent): OperationStatus {
  const to = OPERATION_TABLE[event][from];
  if (!to) throw new Error(`device operation in status ${from} does not accept ${event}`);
  return to;
}

export function canOperation(from: OperationStatus, event: OperationEvent): boolean {
  return OPERATION_TABLE[event][from] !== undefined;
}

// ---- J7 refunds on a SIMULATION device ---------------------------------------------------------------

export const DEVICE_REFUND_STATUSES = ['QUEUED', 'PROCESSING', 'REFUNDED', 'CANCELLED', 'REFUSED', 'FAILED'] as const;
export type DeviceRefundStatus = (typeof DEVICE_REFUND_STATUSES)[number];
export type DeviceRefundEvent = 'PROCESSING' | 'REFUNDED' | 'CANCELLED' | 'REFUSED' | 'FAILED';

/**
 * The lifecycle of a refund sent to a simulated device. PROCESSING is committed before the refund is
 * made, so a step run again after a crash never refunds twice (it fails the refund, which says so).
 */
export const DEVICE_REFUND_TABLE: Readonly<Record<DeviceRefundEvent, Partial<Record<DeviceRefundStatus, DeviceRefundStatus>>>> = {
  PROCESSING: { QUEUED: 'PROCESSING' },
  REFUNDED: { PROCESSING: 'REFUNDED' },
  CANCELLED: { QUEUED: 'CANCELLED' },
  REFUSED: { QUEUED: 'REFUSED' },
  FAILED: { QUEUED: 'FAILED', PROCESSING: 'FAILED' },
};

export function deviceRefundTransition(from: DeviceRefundStatus, event: DeviceRefundEvent): DeviceRefundStatus | null {
  return DEVICE_REFUND_TABLE[event][from] ?? null;
}

/** What the simulated terminal does with a refund of `amount` (the sandbox rules, as for payments). */
export function simulatedRefundOutcome(amount: number): 'CANCELLED' | 'REFUSED' | 'REFUND' {
  if (amount === SIMULATED_REFUND_AMOUNTS.CANCELLED) return 'CANCELLED';
  if (amount === SIMULATED_REFUND_AMOUNTS.REFUSED) return 'REFUSED';
  return 'REFUND';
}
const SIMULATED_REFUND_AMOUNTS = { CANCELLED: 100, REFUSED: 200 } as const;

export interface DeviceRefundRecord {
  id: string;
  device_id: string;
  order_id: string;
  amount: number | string | null;
  status: DeviceRefundStatus;
  error: string | null;
  created_at: Date;
  updated_at: Date;
}

export function presentDeviceRefund(r: DeviceRefundRecord) {
  return {
    uuid: r.id,
    device_id: r.device_id,
    order_uuid: r.order_id,
    amount: r.amount === null ? null : Number(r.amount),
    status: r.status,
    error: r.error,
    created_at: r.created_at.toISOString(),
    updated_at: r.updated_at.toISOString(),
  };
}
export type PresentedDeviceRefund = ReturnType<typeof presentDeviceRefund>;

/** The operation event that the order a charge left behind means (null: not settled yet). */
export function eventForOrder(orderStatus: string): OperationEvent | null {
  if (orderStatus === 'SUCCESS' || orderStatus === 'PENDING_CONFIRMATION' || orderStatus === 'PARTIALLY_REFUNDED' || orderStatus === 'REFUNDED') return 'APPROVED';
  if (orderStatus === 'REFUSED' || orderStatus === 'FRAUD' || orderStatus === 'BLACKLISTED') return 'DECLINED';
  if (orderStatus === 'AUTHENTICATION_REQUIRED') return 'SCA_REQUIRED';
  if (orderStatus === 'ERROR' || orderStatus === 'EXPIRED' || orderStatus === 'CANCELLED') return 'FAILED';
  return null;
}

/** POS entry mode (ISO 8583 field 22, first two digits) of a reading method. */
export const ENTRY_MODES: Readonly<Record<string, string>> = { KEY_ENTRY: '01', BAR_CODE: '03', MAGNETIC_STRIPE: '90', ICC: '05', NFC: '07' };

/** The `pos` of a transaction taken on a device: the device, and the STAN/RRN of a card-present call. */
export function posOf(
  device: { id: string; terminal_id: string; mid: string },
  read: { stan?: string | null; rrn?: string | null; card_reading_method?: string | null },
): Record<'device_id' | 'tid' | 'mid' | 'stan' | 'rrn' | 'card_reading_method' | 'entry_mode', string | null> {
  const method = read.card_reading_method ?? null;
  return {
    device_id: device.id,
    tid: device.terminal_id,
    mid: device.mid,
    stan: read.stan ?? null,
    rrn: read.rrn ?? null,
    card_reading_method: method,
    entry_mode: method ? ENTRY_MODES[method] ?? null : null,
  };
}

// ---- card data reported by a device ---------------------------------------------------------------

export const CARD_READING_METHODS = ['KEY_ENTRY', 'BAR_CODE', 'MAGNETIC_STRIPE', 'ICC', 'NFC'] as const;
export type CardReadingMethod = (typeof CARD_READING_METHODS)[number];

/** What a device reports: `track2`, or `pan` + `expiration_date` (YYMM). */
export interface ReportedCard {
  track2?: string | null;
  pan?: string | null;
  expiration_date?: string | null;
}

export interface ReadCard {
  pan: Secret<string>;
  expMonth: number;
  expYear: number;
  bin: string;
  last4: string;
}

/**
 * Reads the card of a device report. Track 2 (ISO 7813: `;PAN=YYMM...?`, `D` also as separator) gives
 * the PAN and expiry; nothing else of the track is kept. Errors never echo the card data.
 */
export function readCard(card: ReportedCard): ReadCard | { error: string } {
  let pan: string;
  let yymm: string;
  if (typeof card.track2 === 'string' && card.track2 !== '') {
    if (card.pan) return { error: 'card: give either track2, or pan and expiration_date, not both' };
    const m = /^;?([0-9]{12,19})[=D]([0-9]{4})[0-9]*\??$/.exec(card.track2);
    if (!m) return { error: 'card.track2 is not valid track 2 data' };
    pan = m[1];
    yymm = m[2];
  } else if (typeof card.pan === 'string' && card.pan !== '') {
    if (!/^[0-9]{12,19}$/.test(card.pan)) return { error: 'card.pan must be 12 to 19 digits' };
    if (typeof card.expiration_date !== 'string' || !/^[0-9]{4}$/.test(card.expiration_date)) return { error: 'card.expiration_date must be YYMM' };
    pan = card.pan;
    yymm = card.expiration_date;
  } else {
    return { error: 'card needs track2, or pan and expiration_date' };
  }
  const month = Number(yymm.slice(2));
  if (month < 1 || month > 12) return { error: 'the card expiry month is not valid' };
  return { pan: new Secret(pan), expMonth: month, expYear: 2000 + Number(yymm.slice(0, 2)), bin: pan.slice(0, 6), last4: pan.slice(-4) };
}

/** A PIN block: ISO 9564 format 0 (16 hex digits) or 4 (32 hex digits). Checked, then dropped. */
export function pinBlockProblem(pin: { block?: unknown; format?: unknown } | null | undefined): string | null {
  if (pin === null || pin === undefined) return null;
  const format = Number(pin.format);
  if (format !== 0 && format !== 4) return 'pin.format must be 0 or 4 (ISO 9564)';
  const len = format === 0 ? 16 : 32;
  if (typeof pin.block !== 'string' || !new RegExp(`^[0-9A-Fa-f]{${len}}$`).test(pin.block)) return `pin.block must be ${len} hexadecimal digits for format ${format}`;
  return null;
}

// ---- presentation ---------------------------------------------------------------------------------

export interface DeviceRecord {
  id: string;
  merchant_id: string;
  service_id: string;
  identifier: string;
  terminal_id: string;
  mid: string;
  communication_type: CommunicationType;
  connection_status: ConnectionStatus;
  active: boolean;
  configured: boolean;
  properties: Record<string, unknown>;
  status: Record<string, unknown>;
  created_at: Date;
  updated_at: Date;
}

export const PROPERTY_FIELDS = ['name', 'model', 'system_name', 'system_version', 'release', 'hardware'] as const;
export const STATUS_FIELDS = ['battery_level', 'connection_type', 'connection_quality', 'charging', 'build_version'] as const;

export function presentDevice(d: DeviceRecord, pendingTransactions: number) {
  const props: any = {};
  for (const f of PROPERTY_FIELDS) props[f] = d.properties[f] ?? null;
  const status: any = {};
  for (const f of STATUS_FIELDS) status[f] = d.status[f] ?? null;
  status.pending_transactions = pendingTransactions;
  return {
    id: d.id,
    identifier: d.identifier,
    service_uuid: d.service_id,
    terminal_id: d.terminal_id,
    mid: d.mid,
    active: d.active,
    configured: d.configured,
    communication: { type: d.communication_type, status: d.connection_status },
    merchant: { uuid: d.merchant_id },
    properties: props,
    status,
    created_at: d.created_at.toISOString(),
    updated_at: d.updated_at.toISOString(),
  };
}
export type PresentedDevice = ReturnType<typeof presentDevice>;

export interface OperationRecord {
  id: string;
  device_id: string;
  kind: 'PAYMENT' | 'PREAUTHORIZATION';
  order_id: string;
  amount: number;
  currency: string;
  description: string;
  status: OperationStatus;
  /** AUTHENTICATION_REQUIRED: what the issuer asks the terminal for (REQUEST_PIN, SWITCH_INTERFACE). */
  terminal_action: string | null;
  error: string | null;
  card_bin: string | null;
  card_last4: string | null;
  card_reading_method: string | null;
  deadline_at: Date;
  created_at: Date;
  updated_at: Date;
}

export function presentOperation(o: OperationRecord) {
  return {
    uuid: o.id,
    device_id: o.device_id,
    kind: o.kind,
    order_uuid: o.order_id,
    amount: Number(o.amount),
    currency: o.currency,
    status: o.status,
    terminal_action: o.terminal_action,
    error: o.error,
    card: o.card_last4 ? { bin: o.card_bin, last4: o.card_last4, reading_method: o.card_reading_method } : null,
    deadline_at: o.deadline_at.toISOString(),
    created_at: o.created_at.toISOString(),
    updated_at: o.updated_at.toISOString(),
  };
}
export type PresentedOperation = ReturnType<typeof presentOperation>;

/**
 * The `operation` message a device receives (socket): what to charge, and `terminal_action` when the
 * issuer asked for SCA and the device must read the card again (with the PIN, or by chip).
 */
export function operationMessage(o: OperationRecord) {
  return {
    uuid: o.id,
    kind: o.kind,
    order_uuid: o.order_id,
    amount: Number(o.amount),
    currency: o.currency,
    description: o.description,
    status: o.status,
    terminal_action: o.terminal_action,
  };
}
