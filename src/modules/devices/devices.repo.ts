/** SQL of devices and device operations. Every function takes the executor to run on. */
import { sql, type ColumnType, type Selectable } from 'kysely';
import type { Executor } from '../../platform/db/database.js';
import type { Env } from '../../platform/db/schema.js';
import { OPEN_OPERATION_STATUSES, PENDING_OPERATION_STATUSES, type DeviceRefundStatus, type CommunicationType, type ConnectionStatus, type OperationStatus } from './devices.domain.js';
import { UUID_RE as UUID } from '../../platform/ids.js';

export interface DevicesTable {
  id: string;
  merchant_id: string;
  env: Env;
  service_id: string;
  identifier: string;
  terminal_id: string;
  mid: string;
  communication_type: CommunicationType;
  connection_status: ConnectionStatus;
  active: boolean;
  configured: boolean;
  properties: ColumnType<Record<string, unknown>, string, string>;
  status: ColumnType<Record<string, unknown>, string, string>;
  token_hash: string;
  key_id: string;
  created_at: Date;
  updated_at: Date;
}

export interface CardPresentTable {
  id: string;
  device_id: string;
  merchant_id: string;
  env: Env;
  kind: CardPresentKind;
  order_id: string;
  stan: string;
  stan_day: string;
  rrn: string;
  amount: number | null;
  card_bin: string | null;
  card_last4: string | null;
  card_reading_method: string | null;
  created_at: Date;
}

export type CardPresentKind = 'PAYMENT' | 'PREAUTHORIZATION' | 'REFUND' | 'CONFIRMATION' | 'CANCELLATION' | 'VOID';
export type CardPresentRow = Selectable<CardPresentTable>;

export interface DeviceOperationsTable {
  id: string;
  device_id: string;
  merchant_id: string;
  env: Env;
  key_id: string;
  kind: 'PAYMENT' | 'PREAUTHORIZATION';
  order_id: string;
  amount: ColumnType<number, number, number>;
  currency: string;
  description: string;
  status: OperationStatus;
  terminal_action: string | null;
  error: string | null;
  card_bin: string | null;
  card_last4: string | null;
  card_reading_method: string | null;
  deadline_at: Date;
  created_at: Date;
  updated_at: Date;
}

export interface DeviceRefundsTable {
  id: string;
  device_id: string;
  merchant_id: string;
  env: Env;
  key_id: string;
  order_id: string;
  amount: ColumnType<number | string | null, number | null, number | null>;
  status: DeviceRefundStatus;
  error: string | null;
  /** The payments module's PENDING REFUND transaction that reserves its amount (null: queued by an earlier release). */
  transaction_id: ColumnType<string | null, string | null | undefined, string | null>;
  created_at: Date;
  updated_at: Date;
}
/** `transaction_id` may be left out where a refund is built in code (it is set once the refund is made). */
export type DeviceRefundRow = Omit<Selectable<DeviceRefundsTable>, 'transaction_id'> & { transaction_id?: string | null };

export async function insertDeviceRefund(db: Executor, row: DeviceRefundRow): Promise<void> {
  await db.insertInto('device_refunds').values({ ...row, amount: row.amount === null ? null : Number(row.amount) }).execute();
}

export async function findDeviceRefund(db: Executor, id: string, opts: { forUpdate?: boolean } = {}): Promise<DeviceRefundRow | undefined> {
  let q = db.selectFrom('device_refunds').selectAll().where('id', '=', id);
  if (opts.forUpdate) q = q.forUpdate();
  return q.executeTakeFirst() as Promise<DeviceRefundRow | undefined>;
}

export async function updateDeviceRefund(db: Executor, id: string, set: { status: DeviceRefundStatus; error: string | null; updated_at: Date }): Promise<void> {
  await db.updateTable('device_refunds').set(set).where('id', '=', id).execute();
}

declare module '../../platform/db/schema.js' {
  interface DB {
    device_refunds: DeviceRefundsTable;
    devices: DevicesTable;
    device_operations: DeviceOperationsTable;
    card_present_operations: CardPresentTable;
  }
}

export interface Owner {
  merchantId: string;
  env: Env;
}

export type DeviceRow = Selectable<DevicesTable>;
export type OperationRow = Selectable<DeviceOperationsTable>;


export async function insertDevice(db: Executor, row: DeviceRow): Promise<void> {
  await db.insertInto('devices').values({ ...row, properties: JSON.stringify(row.properties), status: JSON.stringify(row.status) }).execute();
}

/** A device of `owner`; undefined for unknown ids and other merchants' devices. */
export async function findDevice(db: Executor, owner: Owner, id: string, opts: { forUpdate?: boolean } = {}): Promise<DeviceRow | undefined> {
  if (!UUID.test(id)) return undefined;
  let q = db.selectFrom('devices').selectAll().where('id', '=', id.toLowerCase()).where('merchant_id', '=', owner.merchantId).where('env', '=', owner.env);
  if (opts.forUpdate) q = q.forUpdate();
  return q.executeTakeFirst() as Promise<DeviceRow | undefined>;
}

export async function findDeviceById(db: Executor, id: string, opts: { forUpdate?: boolean } = {}): Promise<DeviceRow | undefined> {
  let q = db.selectFrom('devices').selectAll().where('id', '=', id);
  if (opts.forUpdate) q = q.forUpdate();
  return q.executeTakeFirst() as Promise<DeviceRow | undefined>;
}

export async function findDeviceByTokenHash(db: Executor, hash: string): Promise<DeviceRow | undefined> {
  return db.selectFrom('devices').selectAll().where('token_hash', '=', hash).executeTakeFirst() as Promise<DeviceRow | undefined>;
}

export async function terminalIdTaken(db: Executor, owner: Owner, tid: string): Promise<boolean> {
  const r = await db.selectFrom('devices').select('id').where('merchant_id', '=', owner.merchantId).where('env', '=', owner.env).where('terminal_id', '=', tid).executeTakeFirst();
  return !!r;
}

export interface DeviceFilter {
  identifier?: string;
  service?: string;
  terminal_id?: string;
  communication_type?: string;
  active?: boolean;
  configured?: boolean;
  created_from?: Date;
  created_to?: Date;
  updated_from?: Date;
  updated_to?: Date;
}

export async function listDevices(db: Executor, owner: Owner, f: DeviceFilter): Promise<DeviceRow[]> {
  let q = db.selectFrom('devices').selectAll().where('merchant_id', '=', owner.merchantId).where('env', '=', owner.env);
  if (f.identifier !== undefined) q = q.where('identifier', '=', f.identifier);
  if (f.service !== undefined) q = q.where('service_id', '=', f.service.toLowerCase());
  if (f.terminal_id !== undefined) q = q.where('terminal_id', '=', f.terminal_id);
  if (f.communication_type !== undefined) q = q.where('communication_type', '=', f.communication_type as CommunicationType);
  if (f.active !== undefined) q = q.where('active', '=', f.active);
  if (f.configured !== undefined) q = q.where('configured', '=', f.configured);
  if (f.created_from) q = q.where('created_at', '>=', f.created_from);
  if (f.created_to) q = q.where('created_at', '<=', f.created_to);
  if (f.updated_from) q = q.where('updated_at', '>=', f.updated_from);
  if (f.updated_to) q = q.where('updated_at', '<=', f.updated_to);
  return q.orderBy('created_at', 'asc').orderBy(sql`seq`, 'asc').execute() as Promise<DeviceRow[]>;
}

export async function updateDevice(db: Executor, id: string, set: Partial<Omit<DeviceRow, 'id' | 'merchant_id' | 'env' | 'created_at'>>): Promise<void> {
  const values: Record<string, unknown> = { ...set };
  if (set.properties !== undefined) values.properties = JSON.stringify(set.properties);
  if (set.status !== undefined) values.status = JSON.stringify(set.status);
  await db.updateTable('devices').set(values).where('id', '=', id).execute();
}

/** Operations not finished yet, per device. */
export async function pendingCounts(db: Executor, deviceIds: string[]): Promise<Map<string, number>> {
  const out = new Map<string, number>();
  if (deviceIds.length === 0) return out;
  const rows = await db
    .selectFrom('device_operations')
    .select(['device_id', sql<number>`count(*)::int`.as('n')])
    .where('device_id', 'in', deviceIds)
    .where('status', 'in', [...PENDING_OPERATION_STATUSES])
    .groupBy('device_id')
    .execute();
  for (const r of rows) out.set(r.device_id, Number(r.n));
  return out;
}

export async function insertOperation(db: Executor, row: OperationRow): Promise<void> {
  await db.insertInto('device_operations').values(row).execute();
}

export async function findOperation(db: Executor, id: string, opts: { forUpdate?: boolean } = {}): Promise<OperationRow | undefined> {
  if (!UUID.test(id)) return undefined;
  let q = db.selectFrom('device_operations').selectAll().where('id', '=', id.toLowerCase());
  if (opts.forUpdate) q = q.forUpdate();
  return q.executeTakeFirst() as Promise<OperationRow | undefined>;
}

export async function findOperationByOrder(db: Executor, orderId: string, opts: { forUpdate?: boolean } = {}): Promise<OperationRow | undefined> {
  if (!UUID.test(orderId)) return undefined;
  let q = db.selectFrom('device_operations').selectAll().where('order_id', '=', orderId.toLowerCase());
  if (opts.forUpdate) q = q.forUpdate();
  return q.executeTakeFirst() as Promise<OperationRow | undefined>;
}

/** Operations a device may still act on, oldest first. */
export async function openOperations(db: Executor, deviceId: string): Promise<OperationRow[]> {
  return db
    .selectFrom('device_operations')
    .selectAll()
    .where('device_id', '=', deviceId)
    .where('status', 'in', [...OPEN_OPERATION_STATUSES])
    .orderBy(sql`seq`, 'asc')
    .execute() as Promise<OperationRow[]>;
}

/** Operations not sent yet to any of these devices, oldest first. */
export async function queuedOperations(db: Executor, deviceIds: string[], limit = 500): Promise<OperationRow[]> {
  if (deviceIds.length === 0) return [];
  return db
    .selectFrom('device_operations')
    .selectAll()
    .where('device_id', 'in', deviceIds)
    .where('status', '=', 'QUEUED')
    .orderBy(sql`seq`, 'asc')
    .limit(limit)
    .execute() as Promise<OperationRow[]>;
}

export async function updateOperation(db: Executor, id: string, set: Partial<Pick<OperationRow, 'status' | 'error' | 'card_bin' | 'card_last4' | 'card_reading_method' | 'terminal_action' | 'updated_at'>>): Promise<void> {
  await db.updateTable('device_operations').set(set).where('id', '=', id).execute();
}

// ---- card-present operations ----------------------------------------------------------------------

export async function insertCardPresent(db: Executor, row: CardPresentRow): Promise<void> {
  await db.insertInto('card_present_operations').values(row).execute();
}

export async function cardPresentByRrn(db: Executor, deviceId: string, rrn: string): Promise<CardPresentRow | undefined> {
  return db.selectFrom('card_present_operations').selectAll().where('device_id', '=', deviceId).where('rrn', '=', rrn).executeTakeFirst();
}

/** The latest operation of the device with this STAN. */
export async function cardPresentByStan(db: Executor, deviceId: string, stan: string): Promise<CardPresentRow | undefined> {
  return db.selectFrom('card_present_operations').selectAll().where('device_id', '=', deviceId).where('stan', '=', stan).orderBy(sql`seq`, 'desc').limit(1).executeTakeFirst();
}

export async function lastCardPresent(db: Executor, deviceId: string): Promise<CardPresentRow | undefined> {
  return db.selectFrom('card_present_operations').selectAll().where('device_id', '=', deviceId).orderBy(sql`seq`, 'desc').limit(1).executeTakeFirst();
}

export async function cardPresentOfOrder(db: Executor, orderId: string): Promise<CardPresentRow | undefined> {
  return db.selectFrom('card_present_operations').selectAll().where('order_id', '=', orderId).where('kind', 'in', ['PAYMENT', 'PREAUTHORIZATION']).executeTakeFirst();
}

// ---- a device's history (the dashboard's list of its operations) ------------------------------------

/** The latest operations sent to a device (J3/J4), newest first; `orderId` narrows to one order. */
export async function recentOperations(db: Executor, deviceId: string, limit: number, orderId?: string): Promise<OperationRow[]> {
  let q = db.selectFrom('device_operations').selectAll().where('device_id', '=', deviceId);
  if (orderId !== undefined) q = q.where('order_id', '=', orderId.toLowerCase());
  return q.orderBy(sql`seq`, 'desc').limit(limit).execute() as Promise<OperationRow[]>;
}

/** The latest card-present operations of a device (K1–K7), newest first. */
export async function recentCardPresent(db: Executor, deviceId: string, limit: number, orderId?: string): Promise<CardPresentRow[]> {
  let q = db.selectFrom('card_present_operations').selectAll().where('device_id', '=', deviceId);
  if (orderId !== undefined) q = q.where('order_id', '=', orderId.toLowerCase());
  return q.orderBy(sql`seq`, 'desc').limit(limit).execute();
}

/** The latest refunds sent to a simulated device (J7), newest first. */
export async function recentDeviceRefunds(db: Executor, deviceId: string, limit: number, orderId?: string): Promise<DeviceRefundRow[]> {
  let q = db.selectFrom('device_refunds').selectAll().where('device_id', '=', deviceId);
  if (orderId !== undefined) q = q.where('order_id', '=', orderId.toLowerCase());
  return q.orderBy('created_at', 'desc').limit(limit).execute() as Promise<DeviceRefundRow[]>;
}
