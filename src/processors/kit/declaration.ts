/**
 * A connector as one declaration (the connector kit): everything the gateway needs to know of a
 * production connector besides its protocol, read from the one list (src/processors/connectors.ts) by
 * the app (registration, allowed hosts, the startup log), the configuration (its base-URL setting), the
 * services module (credential checks, D6 and `test_credentials`), the notification and webhook routes,
 * the CLI (`paygate <name>-simulator`) and the test harnesses.
 */
import type { Logger } from 'pino';
import type { Executor } from '../../platform/db/database.js';
import type { OutgoingClient } from '../../platform/net/outgoing.js';
import type { Connector, TerminalRef } from '../connector.js';
import type { SimulatorBase } from './simulator.js';

/** A terminal's code and credentials as the gateway keeps them (services module). */
export interface TerminalCredentials {
  code: string | null;
  credentials: Record<string, string>;
}

/** What `create` gets from the gateway. */
export interface ConnectorDeps<T> {
  /** The provider's base URL (`PAYGATE_<NAME>_URL`), without a trailing slash. */
  baseUrl: string;
  /** The gateway's outgoing client, allowed to reach the configured provider hosts. */
  http: OutgoingClient;
  /** The root database connection (the ledger writes outside business transactions). */
  db: () => Executor;
  /** Deadline of one HTTP call (just inside the registry's deadline around the whole call). */
  timeoutMs: number;
  logger: Logger;
  /** The keyed fingerprint of a card number (the ledger never keeps the number). */
  fingerprint: (pan: string) => string;
  /** The gateway's public URL (pages, where a buyer comes back). */
  publicUrl: string;
  /** Where the provider's notifications reach the gateway (`/v1/processor/<name>/notification` or `/webhook`); null: none. */
  notificationUrl: string | null;
  /** The opened terminal of a request (`credentials.open` of the service's terminal); throws when it is not usable. */
  terminals: (ref: TerminalRef) => Promise<T>;
}

/** The connector `create` returns: the Connector interface, and a test of a terminal's credentials. */
export interface DeclaredConnector<T> extends Connector {
  /**
   * Tries a terminal's credentials against the provider without moving money; the problems in words an
   * operator can act on (empty: usable).
   */
  testCredentials(terminal: T, currency: string): Promise<string[]>;
}

export interface CredentialsDeclaration<T> {
  /** The keys of `credentials`, as the provider names them. */
  required: readonly string[];
  optional: readonly string[];
  /**
   * What is wrong with a production terminal's code and credentials besides missing keys, in words an
   * operator can act on (D6 refuses the terminal with them); empty: nothing.
   */
  problems(code: string | null, credentials: Record<string, string>): string[];
  /** The connector's view of a terminal; throws (a configuration error) when it is not usable. */
  open(code: string | null, credentials: Record<string, string> | null): T;
}

/**
 * How the provider's notifications reach the gateway: a form posted to `/v1/processor/<name>/notification`
 * (its fields), or a JSON webhook posted to `/v1/processor/<name>/webhook` (the raw body as `body`, and
 * the request headers `headers` matches, lower case). null: it sends none the gateway reads.
 */
export type NotificationsDeclaration = { via: 'form' } | { via: 'webhook'; headers: RegExp } | null;

/** What the conformance harness needs of a connector's simulator (test/helpers/connectors.ts). */
export interface HarnessFacts {
  /** The terminal the tests' merchant gets (the simulator's account takes it). */
  terminal: TerminalCredentials;
  cards: {
    /** A prefix of approved cards (a fresh Luhn-valid number per payment). */
    approvedPrefix: string;
    refused: { pan: string; error: string };
    insufficientFunds: string;
    /** Asks for strong customer authentication when the customer pays without it. */
    softDecline: string;
    declines: Array<{ pan: string; error: string }>;
    /**
     * The simulator shows its 3-D Secure challenge page for this card (approved once passed). Absent:
     * certification's challenge card is the simulator's too.
     */
    challenge?: string;
  };
  /** The connector keeps the network transaction id of a card's first payment (cof_txnid). */
  storedCredentials: boolean;
  payouts: boolean;
  databases: ReadonlyArray<'pglite' | 'postgres'>;
  /**
   * What the reconciler makes of a payment whose answer was lost or not believed. Absent: settled as the
   * provider decided (the connector reads it back). `failed`: the provider offers no way to read a
   * transaction back (Clearhaus), and the connector never captured it: ERROR (TIMEOUT), nothing charged.
   */
  lostPayments?: 'failed';
  /**
   * Its notifications go where each request names (posted over HTTP until a test takes them over); else
   * to the account's webhook URL, kept until a test delivers them.
   */
  notifiesRequestUrl?: boolean;
  /** The same notification with what it says changed after it was signed (the signature kept). */
  tamper(d: { path: string; headers: Record<string, string>; body: string }): { path: string; headers: Record<string, string>; body: string };
}

export interface SimulatorCreateOptions {
  /** The terminal its account takes (the gateway's terminal of the connector). */
  terminal: TerminalCredentials;
  latencyMs?: number;
  /** Where its webhooks go (the gateway's `/v1/processor/<name>/webhook`); none: not sent. */
  webhookUrl?: string | null;
  webhookHeaders?: Record<string, string>;
  clock?: () => Date;
}

/** A simulator module, loaded on demand (the gateway itself never loads one). */
export interface SimulatorModule {
  /** The demo terminal of `paygate <name>-simulator` with its options; throws an Error naming a bad option. */
  demoTerminal(options: Record<string, string | undefined>): TerminalCredentials;
  create(o: SimulatorCreateOptions): SimulatorBase;
  harness: HarnessFacts;
}

export interface SimulatorDeclaration {
  /** `paygate <name>-simulator`: what it runs. */
  description: string;
  /** Its default port. */
  port: number;
  /** CLI options besides --port, --host, --latency-ms and --webhook-url (webhook providers). */
  options?: Array<{ flags: string; description: string; default?: string }>;
  load(): Promise<SimulatorModule>;
}

/**
 * What `paygate connector certify` runs against the provider's test environment: the provider's own test
 * cards (its documentation, `source`), for an approval, a decline and a 3-D Secure challenge.
 */
export interface CertificationDeclaration {
  cards: {
    approved: string;
    declined: { pan: string; error: string };
    /** Asks for the 3-D Secure challenge (absent: the provider documents none for its test environment). */
    challenge?: string;
  };
  /**
   * The cardholder's name to pay each card with, where the provider's test environment reads the name
   * (Nuvei's decides 3-D Secure by it, Worldpay's declines by it); absent: "Certification Test".
   */
  holders?: { approved?: string; declined?: string; challenge?: string };
  /** Where the provider documents its test cards. */
  source: string;
}

export interface ConnectorDeclaration<T = unknown> {
  /** In URLs (`/v1/processor/<name>/...`), logs and the CLI (`<name>-simulator`): lower case. */
  name: string;
  /** The provider's name in words (`Checkout.com`). */
  label: string;
  /** The service types production sends through it. */
  serviceTypes: readonly string[];
  /** Its base-URL setting: `PAYGATE_<NAME>_URL`, its production default, the provider's test host. */
  url: { env: string; production: string; test: string; help: string };
  credentials: CredentialsDeclaration<T>;
  notifications: NotificationsDeclaration;
  create(deps: ConnectorDeps<T>): DeclaredConnector<T>;
  simulator: SimulatorDeclaration;
  /** The test environment's cards for `paygate connector certify`. */
  certification?: CertificationDeclaration;
}

/** Declares a connector (typed by its terminal). */
export function declareConnector<T>(d: ConnectorDeclaration<T>): ConnectorDeclaration<T> {
  if (!/^[a-z][a-z0-9]{1,30}$/.test(d.name)) throw new Error(`connector name ${d.name}: lower-case letters and digits`);
  if (!/^PAYGATE_[A-Z0-9]+_URL$/.test(d.url.env)) throw new Error(`connector ${d.name}: its setting is PAYGATE_<NAME>_URL`);
  return d;
}

/** The problems of a production terminal: missing keys first, then the declaration's own checks. */
export function credentialProblems(c: CredentialsDeclaration<unknown>, code: string | null, credentials: Record<string, string>): string[] {
  const missing = c.required.filter((k) => !credentials[k]);
  return [...(missing.length > 0 ? [`credentials are missing: ${missing.join(', ')}`] : []), ...c.problems(code, credentials)];
}
