/**
 * Connector harnesses for the conformance scenarios (test/http/connector-conformance.test.ts): each
 * production connector is run against its own protocol simulator, and the same scenarios run through
 * the public API whatever the connector. A harness says how to start the simulator, which settings point
 * the gateway at it, the terminal a merchant needs, the test cards for each outcome, and how to make the
 * next answer get lost or tampered with.
 */
import { RedsysSimulator } from '../../src/processors/redsys/simulator/server.js';
import { SIM_CARDS } from '../../src/processors/redsys/simulator/rules.js';

export type Fault = 'answer-lost' | 'request-lost' | 'tampered';

export interface ConnectorHarness {
  name: string;
  serviceType: string;
  start(): Promise<void>;
  close(): Promise<void>;
  /** Gateway settings that point the connector at the simulator. */
  env(): Record<string, string>;
  /** The production terminal a merchant needs (code and credentials). */
  terminal: { code: string | null; credentials: Record<string, string> };
  cards: {
    /** A fresh approved card each call (antifraud counts payments per card). */
    approved(): string;
    /** Refused by the issuer, and the transaction error it becomes. */
    refused: { pan: string; error: string };
    insufficientFunds: string;
    /** Asks for strong customer authentication when the customer pays without it. */
    softDecline: string;
  };
  /** The connector keeps the network transaction id of a card's first payment (cof_txnid). */
  storedCredentials: boolean;
  /** Payouts to cards are offered. */
  payouts: boolean;
  /** Makes the next payment call fail this way. */
  fault(kind: Fault): void;
  /** Payment calls the processor received so far (a retry must not add one). */
  paymentCalls(): number;
}

let cardSeq = 0;

/** A Luhn-valid 16-digit card number: the prefix, a sequence number, the check digit. */
export function luhnCard(prefix: string, seq: number): string {
  const body = prefix + String(seq).padStart(15 - prefix.length, '0');
  let sum = 0;
  for (let i = 0; i < body.length; i++) {
    let d = body.charCodeAt(body.length - 1 - i) - 48;
    if (i % 2 === 0 && (d *= 2) > 9) d -= 9;
    sum += d;
  }
  return body + String((10 - (sum % 10)) % 10);
}

const REDSYS_KEY = 'sq7HjrUOBfKmC576ILgskD5srU870gJ7';
const REDSYS_KEY_NOT_SECURE = 'Mk9m98IfEblmPfrpsawt7BmxObt98Jev';

export function redsysHarness(opts: { latencyMs?: number; signatureVersion?: 'HMAC_SHA256_V1' | 'HMAC_SHA512_V2' } = {}): ConnectorHarness & { sim: RedsysSimulator } {
  const sim = new RedsysSimulator({
    merchants: { '999008881': { '001': { key: REDSYS_KEY }, '002': { key: REDSYS_KEY_NOT_SECURE } } },
    latencyMs: opts.latencyMs,
    // the tests' gateways trust proxies: as behind the TLS proxy of a production gateway
    notifyHeaders: { 'x-forwarded-proto': 'https' },
  });
  let url = '';
  return {
    name: 'redsys',
    serviceType: 'REDSYSPSD2',
    sim,
    async start() {
      url = await sim.listen();
    },
    close: () => sim.close(),
    env: () => ({ PAYGATE_REDSYS_URL: url }),
    terminal: {
      code: '999008881',
      credentials: { terminal_secure: '001', key_secure: REDSYS_KEY, terminal_not_secure: '002', key_not_secure: REDSYS_KEY_NOT_SECURE, signature_version: opts.signatureVersion ?? 'HMAC_SHA256_V1' },
    },
    cards: {
      approved: () => luhnCard('45488120', ++cardSeq),
      refused: { pan: SIM_CARDS.REFUSED, error: 'DENIED' },
      insufficientFunds: SIM_CARDS.INSUFFICIENT_FUNDS,
      softDecline: SIM_CARDS.SOFT_DECLINE,
    },
    storedCredentials: true,
    payouts: false,
    fault(kind) {
      sim.injectFault({ kind: kind === 'answer-lost' ? 'drop' : kind === 'request-lost' ? 'lost' : 'tamper' });
    },
    paymentCalls: () => sim.calls.trataPeticion,
  };
}

/** Every connector the conformance scenarios run against. */
export const CONNECTOR_HARNESSES: Array<() => ConnectorHarness> = [() => redsysHarness()];
