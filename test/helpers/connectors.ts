/**
 * Connector harnesses for the conformance scenarios (test/http/connector-conformance.test.ts): each
 * production connector of the list (src/processors/connectors.ts) is run against its own protocol
 * simulator, and the same scenarios run through the public API whatever the connector. A harness is
 * built from the connector's declaration and what its simulator module says the tests need
 * (kit/declaration.ts HarnessFacts): how to start the simulator, which setting points the gateway at it,
 * the terminal a merchant needs, the test cards for each outcome, how to make the next answer get lost or
 * tampered with, and (for processors that send them) where its notifications go.
 */
import { CONNECTORS, declarationNamed, type AnyConnectorDeclaration } from '../../src/processors/connectors.js';
import type { SimulatorModule, TerminalCredentials } from '../../src/processors/kit/declaration.js';
import type { FaultKind, SimulatorBase } from '../../src/processors/kit/simulator.js';
import type { RedsysSimulator } from '../../src/processors/redsys/simulator/server.js';
import type { CheckoutSimulator } from '../../src/processors/checkout/simulator/server.js';
import type { PaypalSimulator } from '../../src/processors/paypal/simulator/server.js';
import { startSimulatorService, type SimulatorService } from '../../src/processors/simulator-service.js';
import { TEST_CARDS } from '../../src/processors/simulator.rules.js';

/** Every connector's simulator module, loaded once. */
const SIMULATORS = new Map<string, SimulatorModule>(await Promise.all(CONNECTORS.map(async (d) => [d.name, await d.simulator.load()] as const)));

/**
 * `answer-lost`: processed, the answer lost; `request-lost`: never processed; `tampered`: the answer
 * altered after signing; `webhook-only`: processed, the answer lost, the webhook sent; `webhook-first`:
 * processed, the webhook delivered before the synchronous answer.
 */
export type Fault = 'answer-lost' | 'request-lost' | 'tampered' | 'webhook-only' | 'webhook-first';

/** A webhook as the processor sends it to the gateway. */
export interface WebhookDelivery {
  /** The gateway's path it is posted to. */
  path: string;
  headers: Record<string, string>;
  body: string;
}

/** Where the webhook transport answers: the HTTP status and the gateway's body. */
/** Delivers a webhook: the gateway's answer, and what it made of it (its `Paygate-Notification` header) when it says. */
export type WebhookSend = (d: WebhookDelivery) => Promise<{ status: number; body: string; outcome?: string }>;

export interface WebhookHarness {
  /** The simulator's webhooks go to `send`; null: they are kept (not sent). */
  deliverTo(send: WebhookSend | null): void;
  /** Every webhook sent or kept so far, oldest first. */
  sent(): WebhookDelivery[];
  /** The same webhook with what it says changed after it was signed (the signature kept). */
  tamper(d: WebhookDelivery): WebhookDelivery;
}

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
    /** More refusals, each with the transaction error its code maps to. */
    declines: Array<{ pan: string; error: string }>;
    /** The simulator shows its 3-D Secure challenge page for it (its harness's, else certification's); none: no challenge simulated. */
    challenge?: string;
  };
  /** The connector keeps the network transaction id of a card's first payment (cof_txnid). */
  storedCredentials: boolean;
  /** Payouts to cards are offered. */
  payouts: boolean;
  /**
   * A payment whose answer was lost or not believed: settled as the provider decided (absent), or
   * `failed`: ERROR (TIMEOUT), the provider offering no way to read it back and nothing captured (Clearhaus).
   */
  lostPayments?: 'failed';
  /** Makes the next payment call fail this way (`webhook-*` only where `webhooks` is set). */
  fault(kind: Fault): void;
  /** The processor's webhooks; null when it sends none the gateway reads. */
  webhooks: WebhookHarness | null;
  /** The databases the scenarios run on (the issue asks for PostgreSQL in production mode). */
  databases: ReadonlyArray<'pglite' | 'postgres'>;
  /** Payment calls the processor received so far (a retry must not add one). */
  paymentCalls(): number;
  /**
   * Processors that accept a capture, void or refund and decide it later (asynchronously: Checkout.com
   * answers 202, then sends the decision's webhook; Worldpay takes a refund, then sends `refunded` or
   * `refundFailed`; CyberSource decides a refund in its settlement batch and sends nothing, its
   * Transaction Search says it): waits until the processor has decided every follow-up it accepted so
   * far and delivers to the gateway, through `send`, what it sent about them. Absent: follow-ups are
   * decided in their answer.
   */
  deliverDecisions?(send: WebhookSend): Promise<void>;
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

/** The kit's faults behind the scenarios' words. */
const FAULTS: Record<Fault, FaultKind> = { 'answer-lost': 'drop', 'request-lost': 'lost', tampered: 'tamper', 'webhook-only': 'drop-notify', 'webhook-first': 'notify-first' };

/**
 * The harness of a connector of the list, on its simulator. A simulator whose notifications go where
 * each request names posts them over HTTP until a scenario takes them over (`webhooks.deliverTo`: kept,
 * or delivered in process); a webhook provider's are kept until a scenario delivers them. Captures,
 * voids and refunds a provider decides after accepting them are delivered by `deliverDecisions`.
 * Closing it fails the file when the simulator saw a request, or gave an answer, that the provider's
 * reference does not allow.
 */
export function harnessOf<S extends SimulatorBase = SimulatorBase>(decl: AnyConnectorDeclaration, opts: { latencyMs?: number; terminal?: TerminalCredentials } = {}): ConnectorHarness & { sim: S } {
  const mod = SIMULATORS.get(decl.name)!;
  const facts = mod.harness;
  const terminal = opts.terminal ?? facts.terminal;
  const webhookUrl = decl.notifications?.via === 'webhook' ? `https://gateway.test/v1/processor/${decl.name}/webhook` : null;
  // the tests' gateways trust proxies: as behind the TLS proxy of a production gateway
  const sim = mod.create({ terminal, latencyMs: opts.latencyMs, webhookUrl, webhookHeaders: { 'x-forwarded-proto': 'https' } }) as S;
  const kept: WebhookDelivery[] = [];
  // the decisions of follow-ups kept (not sent), for deliverDecisions
  const decisions: WebhookDelivery[] = [];
  const keepOrSend = (send: WebhookSend | null) => {
    sim.transport = async (n) => {
      const d = { path: new URL(n.url).pathname, headers: n.headers, body: n.body };
      kept.push(d);
      // the answer's body too: a simulator holds it to what its provider expects (SIBS's acknowledgement)
      if (send) return await send(d);
      if (n.followUp) decisions.push(d);
      return 0;
    };
  };
  if (!facts.notifiesRequestUrl) keepOrSend(null);
  let url = '';
  return {
    name: decl.name,
    serviceType: decl.serviceTypes[0],
    sim,
    async start() {
      url = await sim.listen();
    },
    // every request the simulator received and every answer it gave followed the provider's reference (spec.ts)
    async close() {
      await sim.close();
      sim.spec.assertClean();
    },
    env: () => ({ [decl.url.env]: url }),
    terminal,
    cards: { ...facts.cards, approved: () => luhnCard(facts.cards.approvedPrefix, ++cardSeq), challenge: facts.cards.challenge ?? decl.certification?.cards.challenge },
    storedCredentials: facts.storedCredentials,
    payouts: facts.payouts,
    ...(facts.lostPayments ? { lostPayments: facts.lostPayments } : {}),
    fault(kind) {
      sim.injectFault(FAULTS[kind]);
    },
    webhooks: decl.notifications ? { deliverTo: keepOrSend, sent: () => [...kept], tamper: facts.tamper } : null,
    databases: facts.databases,
    paymentCalls: () => sim.paymentCalls(),
    ...(sim.decide
      ? {
          async deliverDecisions(send: WebhookSend) {
            await sim.decide!();
            for (const d of decisions.splice(0)) await send(d);
          },
        }
      : {}),
  };
}

export function redsysHarness(opts: { latencyMs?: number; signatureVersion?: 'HMAC_SHA256_V1' | 'HMAC_SHA512_V2' } = {}): ConnectorHarness & { sim: RedsysSimulator } {
  const facts = SIMULATORS.get('redsys')!.harness.terminal;
  const terminal = { code: facts.code, credentials: { ...facts.credentials, signature_version: opts.signatureVersion ?? 'HMAC_SHA256_V1' } };
  return harnessOf<RedsysSimulator>(declarationNamed('redsys')!, { latencyMs: opts.latencyMs, terminal });
}

/**
 * The sandbox simulator itself, as the service every gateway process shares (PAYGATE_SIMULATOR_URL),
 * serving a production PAYGATE service (PAYGATE_PRODUCTION_SIMULATOR, staging). Its protocol is ours
 * and unsigned: an answer it cannot trust is one it does not get (`tampered` loses the answer after the
 * operation was done), and it sends no webhooks.
 */
export function sandboxHarness(): ConnectorHarness & { service(): SimulatorService } {
  let svc: SimulatorService | null = null;
  const money = () => (['authorize', 'partialAuthorize', 'preauthorize', 'capture', 'cancel', 'refund', 'payout'] as const).reduce((n, op) => n + svc!.simulator.callCount(op), 0);
  return {
    name: 'sandbox simulator',
    serviceType: 'PAYGATE',
    service: () => svc!,
    async start() {
      svc = await startSimulatorService();
    },
    close: async () => svc?.close(),
    env: () => ({ PAYGATE_SIMULATOR_URL: svc!.url, PAYGATE_PRODUCTION_SIMULATOR: 'true' }),
    terminal: { code: null, credentials: {} },
    cards: {
      approved: () => luhnCard('45488120', ++cardSeq),
      refused: { pan: TEST_CARDS.REFUSED, error: 'DENIED' },
      insufficientFunds: TEST_CARDS.PARTIAL,
      softDecline: TEST_CARDS.SOFT_DECLINE,
      declines: [{ pan: TEST_CARDS.REFUSED_VISA, error: 'DENIED' }],
    },
    storedCredentials: false,
    payouts: true,
    fault(kind) {
      if (kind === 'webhook-only' || kind === 'webhook-first') throw new Error('the sandbox simulator sends no webhooks');
      svc!.simulator.injectFault({ kind: kind === 'request-lost' ? 'lost' : 'timeout' });
    },
    webhooks: null,
    databases: ['postgres'],
    paymentCalls: money,
  };
}

const CHECKOUT_TERMINAL = SIMULATORS.get('checkout')!.harness.terminal.credentials;
export const CHECKOUT_ACCOUNT = { secretKey: CHECKOUT_TERMINAL.secret_key, processingChannelId: CHECKOUT_TERMINAL.processing_channel_id, webhookKey: CHECKOUT_TERMINAL.webhook_signature_key };

/** Checkout.com on its simulator: captures, voids and refunds are accepted (202) and decided right after. */
export function checkoutHarness(opts: { latencyMs?: number } = {}): ConnectorHarness & { sim: CheckoutSimulator } {
  return harnessOf<CheckoutSimulator>(declarationNamed('checkout')!, opts);
}

const PAYPAL_TERMINAL = SIMULATORS.get('paypal')!.harness.terminal.credentials;
export const PAYPAL_APP = { clientId: PAYPAL_TERMINAL.client_id, clientSecret: PAYPAL_TERMINAL.client_secret, webhookId: PAYPAL_TERMINAL.webhook_id };

/** PayPal (Orders v2, card payment source) on its simulator. */
export function paypalHarness(opts: { latencyMs?: number } = {}): ConnectorHarness & { sim: PaypalSimulator } {
  return harnessOf<PaypalSimulator>(declarationNamed('paypal')!, opts);
}

/** Every connector the conformance scenarios run against: each of the list, and the sandbox simulator service. */
export const CONNECTOR_HARNESSES: Array<() => ConnectorHarness> = [...CONNECTORS.map((d) => () => harnessOf(d)), () => sandboxHarness()];
