/**
 * The Redsys order numbers we allocate and the operations sent under them (table `redsys_operations`,
 * migration 0920). Each function is one statement on the root connection, never inside a business
 * transaction, and never while a request to Redsys is in flight.
 */
import { randomInt } from 'node:crypto';
import type { ColumnType, Selectable } from 'kysely';
import type { Executor } from '../../platform/db/database.js';

export interface RedsysOperationsTable {
  reference: string;
  merchant_code: string;
  terminal: string;
  order_number: string;
  transaction_type: string;
  amount: number | string;
  currency: string;
  original_reference: string | null;
  created_at: Date | undefined;
  /** The EMV 3DS session of a payment (migration 0921). */
  emv3ds: ColumnType<Emv3dsSession | null, string | null, string | null>;
  /** The TerminalRef the operation went through (a notification finds its key with it). */
  terminal_ref: ColumnType<TerminalRefRecord | null, string | null, string | null>;
}

/** The terminal an operation went through; a Bizum redirect also keeps where the customer comes back. */
export interface TerminalRefRecord {
  serviceId?: string | null;
  terminalId?: string | null;
  serviceType?: string;
  bizumBack?: string;
}

export interface Emv3dsSession {
  transId: string;
  protocolVersion: string;
}

export interface RedsysCofTable {
  merchant_code: string;
  card_fingerprint: string;
  cof_txnid: string;
  updated_at: Date | undefined;
}

declare module '../../platform/db/schema.js' {
  interface DB {
    redsys_operations: RedsysOperationsTable;
    redsys_cof: RedsysCofTable;
  }
}

export interface RedsysOperation {
  reference: string;
  merchantCode: string;
  terminal: string;
  order: string;
  type: string;
  amount: number;
  currency: string;
  originalReference: string | null;
  emv3ds?: Emv3dsSession | null;
  terminalRef?: TerminalRefRecord | null;
}

const ALNUM = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';

/** A fresh order number: 4 digits, then 8 letters or digits (12 characters, as Redsys allows). */
export function newOrderNumber(rand: (max: number) => number = randomInt): string {
  let s = String(rand(10_000)).padStart(4, '0');
  for (let i = 0; i < 8; i++) s += ALNUM[rand(ALNUM.length)];
  return s;
}

type OperationRow = Selectable<RedsysOperationsTable>;

function toOperation(r: OperationRow): RedsysOperation {
  return {
    reference: r.reference,
    merchantCode: r.merchant_code,
    terminal: r.terminal,
    order: r.order_number,
    type: r.transaction_type,
    amount: Number(r.amount),
    currency: r.currency,
    originalReference: r.original_reference,
    emv3ds: r.emv3ds ?? null,
    terminalRef: r.terminal_ref ?? null,
  };
}

export async function findOperation(db: Executor, reference: string): Promise<RedsysOperation | null> {
  const r = await db.selectFrom('redsys_operations').selectAll().where('reference', '=', reference).executeTakeFirst();
  return r ? toOperation(r) : null;
}

/** The operations under an order number (a notification names only that). */
export async function operationsOfOrder(db: Executor, merchantCode: string, order: string): Promise<RedsysOperation[]> {
  const rows = await db.selectFrom('redsys_operations').selectAll().where('merchant_code', '=', merchantCode).where('order_number', '=', order).orderBy('created_at').execute();
  return rows.map(toOperation);
}

/**
 * Records an operation before it is sent. A payment (no `originalReference`) gets a new order number,
 * drawn again on the rare collision; a follow-up takes the number it is given. Idempotent by reference:
 * a reference recorded before keeps its row (a retried step sends what it sent).
 */
export async function recordOperation(
  db: Executor,
  op: Omit<RedsysOperation, 'order'> & { order?: string },
  draw: () => string = () => newOrderNumber(),
): Promise<RedsysOperation> {
  for (let attempt = 0; attempt < 20; attempt++) {
    const order = op.order ?? draw();
    const inserted = await db
      .insertInto('redsys_operations')
      .values({
        reference: op.reference,
        merchant_code: op.merchantCode,
        terminal: op.terminal,
        order_number: order,
        transaction_type: op.type,
        amount: op.amount,
        currency: op.currency,
        original_reference: op.originalReference,
        created_at: undefined,
        emv3ds: null,
        terminal_ref: op.terminalRef ? JSON.stringify(op.terminalRef) : null,
      })
      .onConflict((oc) => oc.doNothing())
      .returningAll()
      .executeTakeFirst();
    if (inserted) return toOperation(inserted);
    const existing = await findOperation(db, op.reference);
    if (existing) return existing;
    if (op.order) throw new Error('redsys: the operation could not be recorded');
  }
  throw new Error('redsys: no free order number after 20 draws');
}

/** The network transaction id of a card's first payment (for its merchant-initiated payments). */
export async function findCof(db: Executor, merchantCode: string, cardFingerprint: string): Promise<string | null> {
  const r = await db.selectFrom('redsys_cof').select('cof_txnid').where('merchant_code', '=', merchantCode).where('card_fingerprint', '=', cardFingerprint).executeTakeFirst();
  return r?.cof_txnid ?? null;
}

/** Keeps the first network transaction id of a card (a later one does not replace it). */
export async function keepCof(db: Executor, merchantCode: string, cardFingerprint: string, cofTxnid: string): Promise<void> {
  await db.insertInto('redsys_cof').values({ merchant_code: merchantCode, card_fingerprint: cardFingerprint, cof_txnid: cofTxnid, updated_at: undefined }).onConflict((oc) => oc.doNothing()).execute();
}

/** Keeps the EMV 3DS session of a payment (card configuration answered). */
export async function saveEmv3ds(db: Executor, reference: string, session: Emv3dsSession): Promise<void> {
  await db.updateTable('redsys_operations').set({ emv3ds: JSON.stringify(session) }).where('reference', '=', reference).execute();
}
