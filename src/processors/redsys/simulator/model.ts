/** The Redsys simulator's shapes (terminals, orders, sessions) and checks (server.ts re-exports the public ones). */
import type http from 'node:http';
import { type SimFault, type WebhookTransport } from '../../kit/simulator.js';
import { type SignatureVersion } from '../signature.js';
import { type SimOrder } from './rules.js';

export interface RedsysSimTerminal {
  key: string;
}

export interface RedsysSimulatorOptions {
  /** Merchant codes (FUC) and their terminals (3 digits) with their keys. */
  merchants: Record<string, Record<string, RedsysSimTerminal>>;
  latencyMs?: number;
  /** Send signed notifications to DS_MERCHANT_MERCHANTURL after REST operations (default true). */
  notifyRest?: boolean;
  clock?: () => Date;
  /** Extra headers of the notifications it posts (tests: the TLS proxy's `x-forwarded-proto` in front of a gateway). */
  notifyHeaders?: Record<string, string>;
}

/** How the simulator delivers a notification; answers the HTTP status (tests deliver in process). */
export type NotificationTransport = WebhookTransport;
/** A fault of the kit's queue, by endpoint (default: trataPeticion). */
export type RedsysFault = SimFault<'trataPeticion' | 'iniciaPeticion' | 'query'>;

export interface KeptOrder extends SimOrder {
  fuc: string;
  terminal: string;
  order: string;
  authCode: string;
  securePayment: string;
  cofTxnid: string | null;
  /** Still in progress (Ds_Response 9998 or 9999): no decision yet; `decideInProgress` gives it one. */
  inProgress: boolean;
  /** Where its notifications go, and the signature version they are signed with. */
  merchantUrl: string | null;
  version: SignatureVersion;
  /** The operations done under this number, in order (for the query service). */
  operations: Array<{ type: string; amount: number; code: string; authCode: string; at: Date }>;
}

export interface ThreeDSSession {
  fuc: string;
  terminal: string;
  order: string;
  pan: string;
  acsTransID: string;
  notificationURL: string | null;
  methodDone: boolean;
  challengeResult: 'Y' | 'N' | null;
}

export interface BizumSession {
  fuc: string;
  terminalDisplay: string;
  terminal: string;
  order: string;
  amount: number;
  currency: string;
  version: SignatureVersion;
  merchantUrl: string | null;
  urlOk: string | null;
  urlKo: string | null;
}

export interface SentNotification {
  url: string;
  order: string;
  status: number | null;
  error: string | null;
  body: Record<string, string>;
}

export const pad3 = (t: string) => (/^\d{1,3}$/.test(t) ? t.padStart(3, '0') : t);
export const b64urlJson = (o: unknown) => Buffer.from(JSON.stringify(o)).toString('base64url');

export type RestOutcome = { answer: Record<string, unknown>; notify?: { url: string; fuc: string; terminal: string; version: SignatureVersion; params: Record<string, unknown> } };

export const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
export const BASE64 = /^[A-Za-z0-9+/]{20,}={0,2}$/;

/**
 * DS_MERCHANT_MPIEXTERNAL as Redsys checks it (the SIS errors that name its fields): EMV 3DS 2
 * (`protocolVersion`, `dsTransID`, `authenticacionValue`, `Eci`, optionally `threeDSServerTransID`) or
 * 3-D Secure 1 (`TXID`, `CAVV`, `ECI`). `secure`: the Ds_SecurePayment of the payment (2 or 1).
 */
export function checkMpiExternal(mpi: unknown): { secure: '1' | '2' } | { error: string } {
  if (!mpi || typeof mpi !== 'object' || Array.isArray(mpi)) return { error: 'SIS0605' };
  const m = mpi as Record<string, unknown>;
  if (m.protocolVersion !== undefined || m.dsTransID !== undefined || m.authenticacionValue !== undefined) {
    if (typeof m.protocolVersion !== 'string' || !/^2\.\d\.\d$/.test(m.protocolVersion)) return { error: 'SIS0613' };
    if (m.threeDSServerTransID !== undefined && (typeof m.threeDSServerTransID !== 'string' || !UUID.test(m.threeDSServerTransID))) return { error: 'SIS0610' };
    if (m.dsTransID !== undefined && (typeof m.dsTransID !== 'string' || !UUID.test(m.dsTransID))) return { error: 'SIS0611' };
    if (typeof m.authenticacionValue !== 'string' || !BASE64.test(m.authenticacionValue)) return { error: 'SIS0612' };
    if (typeof m.Eci !== 'string' || !/^0\d$/.test(m.Eci)) return { error: 'SIS0614' };
    return { secure: '2' };
  }
  if (m.CAVV !== undefined || m.TXID !== undefined) {
    if (m.TXID !== undefined && typeof m.TXID !== 'string') return { error: 'SIS0607' };
    if (typeof m.CAVV !== 'string' || !BASE64.test(m.CAVV)) return { error: 'SIS0608' };
    if (typeof m.ECI !== 'string' || !/^0?\d$/.test(m.ECI)) return { error: 'SIS0609' };
    return { secure: '1' };
  }
  return { error: 'SIS0606' };
}
