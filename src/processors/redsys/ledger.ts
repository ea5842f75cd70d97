/**
 * Where the Redsys connector's ledger lives (kit/ledger.ts): the order numbers we draw and the operations
 * sent under them (`redsys_operations`, migrations 0920 and 0921: `order_number` is the provider id, the
 * terminal and the EMV 3DS session are fields of its own) and the network transaction ids of cards'
 * first payments (`redsys_cof`).
 */
import { randomInt } from 'node:crypto';
import type { LedgerDescriptor, LedgerOperation } from '../kit/ledger.js';
import type { TerminalRefRecord } from '../kit/outcomes.js';

declare module '../../platform/db/schema.js' {
  interface DB {
    redsys_operations: {
      reference: string; merchant_code: string; terminal: string; order_number: string; transaction_type: string; amount: number | string; currency: string;
      original_reference: string | null; created_at: Date | undefined; emv3ds: Emv3dsSession | null; terminal_ref: TerminalRefRecord | null;
    };
    redsys_cof: { merchant_code: string; card_fingerprint: string; cof_txnid: string; updated_at: Date | undefined };
  }
}

export const REDSYS_LEDGER: LedgerDescriptor = {
  connector: 'redsys',
  operations: {
    table: 'redsys_operations',
    columns: { kind: 'transaction_type', account: 'merchant_code', providerId: 'order_number' },
    extras: { terminal: { column: 'terminal' }, emv3ds: { column: 'emv3ds', json: true } },
  },
  cof: { table: 'redsys_cof', columns: { account: 'merchant_code', id: 'cof_txnid' } },
};

export interface Emv3dsSession {
  transId: string;
  protocolVersion: string;
}

/** A Redsys operation: `providerId` its order number, `account` the merchant code (FUC), `kind` the transaction type. */
export type RedsysOperation = LedgerOperation<{ terminal: string; emv3ds: Emv3dsSession }>;

const ALNUM = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';

/** A fresh order number: 4 digits, then 8 letters or digits (12 characters, as Redsys allows). */
export function newOrderNumber(rand: (max: number) => number = randomInt): string {
  let s = String(rand(10_000)).padStart(4, '0');
  for (let i = 0; i < 8; i++) s += ALNUM[rand(ALNUM.length)];
  return s;
}
