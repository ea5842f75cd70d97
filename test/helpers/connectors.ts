/**
 * Connector harnesses for the conformance scenarios (test/http/connector-conformance.test.ts): each
 * production connector is run against its own protocol simulator, and the same scenarios run through
 * the public API whatever the connector. A harness says how to start the simulator, which settings point
 * the gateway at it, the terminal a merchant needs, the test cards for each outcome, how to make the
 * next answer get lost or tampered with, and (for processors that send them) where its webhooks go.
 */
import { RedsysSimulator } from '../../src/processors/redsys/simulator/server.js';
import { SIM_CARDS } from '../../src/processors/redsys/simulator/rules.js';
import { CheckoutSimulator } from '../../src/processors/checkout/simulator/server.js';
import { CHECKOUT_SIM_CARDS } from '../../src/processors/checkout/simulator/rules.js';
import { PaypalSimulator } from '../../src/processors/paypal/simulator/server.js';
import { PAYPAL_SIM_CARDS } from '../../src/processors/paypal/simulator/rules.js';
import { startSimulatorService, type SimulatorService } from '../../src/processors/simulator-service.js';
import { TEST_CARDS } from '../../src/processors/simulator.rules.js';

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
export type WebhookSend = (d: WebhookDelivery) => Promise<{ status: number; body: string }>;

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
  };
  /** The connector keeps the network transaction id of a card's first payment (cof_txnid). */
  storedCredentials: boolean;
  /** Payouts to cards are offered. */
  payouts: boolean;
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
   * answers 202, then sends the decision's webhook): waits until the processor has decided every
   * follow-up it accepted so far and delivers to the gateway, through `send`, what it sent about them.
   * Absent: follow-ups are decided in their answer.
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
  // notifications are posted over HTTP to the gateway's public URL until a scenario takes them over
  // (`webhooks.deliverTo`: kept, or delivered in process)
  const kept: WebhookDelivery[] = [];
  return {
    name: 'redsys',
    serviceType: 'REDSYSPSD2',
    sim,
    async start() {
      url = await sim.listen();
    },
    // every request the simulator received and every answer it gave followed Redsys's reference (spec.ts)
    async close() {
      await sim.close();
      sim.spec.assertClean();
    },
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
      declines: [{ pan: SIM_CARDS.NOT_SUPPORTED, error: 'INVALID_CARD' }, { pan: SIM_CARDS.FRAUD, error: 'FRAUD_SUSPECTED' }],
    },
    storedCredentials: true,
    payouts: false,
    fault(kind) {
      const map = { 'answer-lost': 'drop', 'request-lost': 'lost', tampered: 'tamper', 'webhook-only': 'drop-notify', 'webhook-first': 'notify-first' } as const;
      sim.injectFault({ kind: map[kind] });
    },
    webhooks: {
      deliverTo(send) {
        sim.transport = async (n) => {
          const d = { path: new URL(n.url).pathname, headers: n.headers, body: n.body };
          kept.push(d);
          return send ? (await send(d)).status : 0;
        };
      },
      sent: () => [...kept],
      tamper(d) {
        const fields = new URLSearchParams(d.body);
        const params = JSON.parse(Buffer.from(fields.get('Ds_MerchantParameters') ?? '', 'base64url').toString('utf8')) as Record<string, unknown>;
        params.Ds_Response = params.Ds_Response === '0000' ? '0190' : '0000';
        fields.set('Ds_MerchantParameters', Buffer.from(JSON.stringify(params)).toString('base64url'));
        return { ...d, body: fields.toString() };
      },
    },
    databases: ['pglite', 'postgres'],
    paymentCalls: () => sim.calls.trataPeticion,
  };
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

export const CHECKOUT_ACCOUNT = {
  secretKey: 'sk_sbox_conformance0000000000000000',
  processingChannelId: 'pc_conformance00000000000000a',
  webhookKey: 'whsec-conformance-0123456789abcdef',
};

/**
 * Checkout.com on its simulator; its webhooks are kept until a scenario delivers them. Captures, voids
 * and refunds are accepted (202) and decided right after; the webhooks of those decisions are delivered
 * by `deliverDecisions` (or by `webhooks.deliverTo` when a scenario has them sent). Closing it fails the
 * file when the simulator saw a request, or gave an answer, that Checkout.com's reference does not allow.
 */
export function checkoutHarness(opts: { latencyMs?: number } = {}): ConnectorHarness & { sim: CheckoutSimulator } {
  const sim = new CheckoutSimulator({
    accounts: { [CHECKOUT_ACCOUNT.secretKey]: { processingChannelId: CHECKOUT_ACCOUNT.processingChannelId, webhookKey: CHECKOUT_ACCOUNT.webhookKey, webhookUrl: 'https://gateway.test/v1/processor/checkout/webhook' } },
    latencyMs: opts.latencyMs,
    webhookHeaders: { 'x-forwarded-proto': 'https' },
  });
  const kept: WebhookDelivery[] = [];
  // the decisions of follow-ups kept (not sent), for deliverDecisions
  const decisions: WebhookDelivery[] = [];
  const keepOrSend = (send: WebhookSend | null) => {
    sim.transport = async (n) => {
      const d = { path: new URL(n.url).pathname, headers: n.headers, body: n.body };
      kept.push(d);
      if (send) return (await send(d)).status;
      const actionId = (JSON.parse(n.body) as { data?: { action_id?: string } }).data?.action_id;
      if (actionId && sim.isFollowUpAction(actionId)) decisions.push(d);
      return 0;
    };
  };
  keepOrSend(null);
  let url = '';
  return {
    name: 'checkout',
    serviceType: 'CHECKOUT',
    sim,
    async start() {
      url = await sim.listen();
    },
    async close() {
      await sim.close();
      sim.spec.assertClean();
    },
    env: () => ({ PAYGATE_CHECKOUT_URL: url }),
    terminal: { code: null, credentials: { secret_key: CHECKOUT_ACCOUNT.secretKey, processing_channel_id: CHECKOUT_ACCOUNT.processingChannelId, webhook_signature_key: CHECKOUT_ACCOUNT.webhookKey } },
    cards: {
      approved: () => luhnCard('42424242', ++cardSeq),
      refused: { pan: CHECKOUT_SIM_CARDS.REFUSED, error: 'DENIED' },
      insufficientFunds: CHECKOUT_SIM_CARDS.INSUFFICIENT_FUNDS,
      softDecline: CHECKOUT_SIM_CARDS.SOFT_DECLINE,
      declines: [{ pan: CHECKOUT_SIM_CARDS.FRAUD, error: 'FRAUD_SUSPECTED' }],
    },
    storedCredentials: true,
    payouts: false,
    fault(kind) {
      const map = { 'answer-lost': 'drop', 'request-lost': 'lost', tampered: 'tamper', 'webhook-only': 'drop-notify', 'webhook-first': 'notify-first' } as const;
      sim.injectFault(map[kind]);
    },
    webhooks: {
      deliverTo: keepOrSend,
      sent: () => [...kept],
      tamper(d) {
        const body = JSON.parse(d.body) as { type: string; data: Record<string, unknown> };
        body.type = body.type === 'payment_declined' ? 'payment_approved' : 'payment_declined';
        body.data.response_code = body.data.response_code === '10000' ? '20005' : '10000';
        return { ...d, body: JSON.stringify(body) };
      },
    },
    databases: ['postgres'],
    paymentCalls: () => sim.calls.payments + sim.calls.actions,
    async deliverDecisions(send) {
      await sim.decide();
      for (const d of decisions.splice(0)) await send(d);
    },
  };
}

export const PAYPAL_APP = { clientId: 'AconformanceClientId0000000000', clientSecret: 'EconformanceSecret000000000000', webhookId: '8PT597110X687430LKGECATA' };

/** PayPal (Orders v2, card payment source) on its simulator; its webhooks are kept until delivered. */
export function paypalHarness(opts: { latencyMs?: number } = {}): ConnectorHarness & { sim: PaypalSimulator } {
  const sim = new PaypalSimulator({
    apps: { [PAYPAL_APP.clientId]: { clientSecret: PAYPAL_APP.clientSecret, webhookId: PAYPAL_APP.webhookId, webhookUrl: 'https://gateway.test/v1/processor/paypal/webhook' } },
    latencyMs: opts.latencyMs,
    webhookHeaders: { 'x-forwarded-proto': 'https' },
  });
  const kept: WebhookDelivery[] = [];
  const keepOrSend = (send: WebhookSend | null) => {
    sim.transport = async (n) => {
      const d = { path: new URL(n.url).pathname, headers: n.headers, body: n.body };
      kept.push(d);
      return send ? (await send(d)).status : 0;
    };
  };
  keepOrSend(null);
  let url = '';
  return {
    name: 'paypal',
    serviceType: 'PAYPAL',
    sim,
    async start() {
      url = await sim.listen();
    },
    async close() {
      await sim.close();
      // a request or answer PayPal's reference (src/processors/paypal/spec.ts) does not allow fails the file
      sim.spec.assertClean();
    },
    env: () => ({ PAYGATE_PAYPAL_URL: url }),
    terminal: { code: null, credentials: { client_id: PAYPAL_APP.clientId, client_secret: PAYPAL_APP.clientSecret, webhook_id: PAYPAL_APP.webhookId } },
    cards: {
      approved: () => luhnCard('41111111', ++cardSeq),
      refused: { pan: PAYPAL_SIM_CARDS.REFUSED, error: 'DENIED' },
      insufficientFunds: PAYPAL_SIM_CARDS.INSUFFICIENT_FUNDS,
      softDecline: PAYPAL_SIM_CARDS.SOFT_DECLINE,
      declines: [{ pan: PAYPAL_SIM_CARDS.FRAUD, error: 'FRAUD_SUSPECTED' }],
    },
    storedCredentials: true,
    payouts: false,
    fault(kind) {
      const map = { 'answer-lost': 'drop', 'request-lost': 'lost', tampered: 'tamper', 'webhook-only': 'drop-notify', 'webhook-first': 'notify-first' } as const;
      sim.injectFault(map[kind]);
    },
    webhooks: {
      deliverTo: keepOrSend,
      sent: () => [...kept],
      tamper(d) {
        const body = JSON.parse(d.body) as { event_type: string; resource: Record<string, unknown> };
        body.event_type = body.event_type === 'PAYMENT.CAPTURE.COMPLETED' ? 'PAYMENT.CAPTURE.DECLINED' : 'PAYMENT.CAPTURE.COMPLETED';
        body.resource.status = body.resource.status === 'COMPLETED' ? 'DECLINED' : 'COMPLETED';
        return { ...d, body: JSON.stringify(body) };
      },
    },
    databases: ['postgres'],
    paymentCalls: () => sim.calls.money,
  };
}

/** Every connector the conformance scenarios run against. */
export const CONNECTOR_HARNESSES: Array<() => ConnectorHarness> = [() => redsysHarness(), () => sandboxHarness(), () => checkoutHarness(), () => paypalHarness()];
