/**
 * The PayPal simulator as the kit loads it (kit/declaration.ts SimulatorModule): the demo terminal of
 * `paygate paypal-simulator`, a simulator whose REST app takes a terminal, and what the conformance
 * harness needs.
 */
import type { SimulatorModule } from '../../kit/declaration.js';
import { PaypalSimulator } from './server.js';
import { PAYPAL_SIM_CARDS } from './rules.js';

export const simulator: SimulatorModule = {
  demoTerminal: () => ({ code: null, credentials: { client_id: 'AdemoClientId00000000000000000', client_secret: 'EdemoClientSecret0000000000000', webhook_id: '1DEMO000WEBHOOK000000000' } }),
  create(o) {
    const c = o.terminal.credentials;
    return new PaypalSimulator({
      apps: { [c.client_id]: { clientSecret: c.client_secret, webhookId: c.webhook_id, webhookUrl: o.webhookUrl ?? null } },
      latencyMs: o.latencyMs, clock: o.clock, webhookHeaders: o.webhookHeaders,
    });
  },
  harness: {
    terminal: { code: null, credentials: { client_id: 'AconformanceClientId0000000000', client_secret: 'EconformanceSecret000000000000', webhook_id: '8PT597110X687430LKGECATA' } },
    cards: {
      approvedPrefix: '41111111',
      refused: { pan: PAYPAL_SIM_CARDS.REFUSED, error: 'DENIED' },
      insufficientFunds: PAYPAL_SIM_CARDS.INSUFFICIENT_FUNDS,
      softDecline: PAYPAL_SIM_CARDS.SOFT_DECLINE,
      declines: [{ pan: PAYPAL_SIM_CARDS.FRAUD, error: 'FRAUD_SUSPECTED' }],
    },
    storedCredentials: true,
    payouts: false,
    databases: ['postgres'],
    tamper(d) {
      const body = JSON.parse(d.body) as { event_type: string; resource: Record<string, unknown> };
      body.event_type = body.event_type === 'PAYMENT.CAPTURE.COMPLETED' ? 'PAYMENT.CAPTURE.DECLINED' : 'PAYMENT.CAPTURE.COMPLETED';
      body.resource.status = body.resource.status === 'COMPLETED' ? 'DECLINED' : 'COMPLETED';
      return { ...d, body: JSON.stringify(body) };
    },
  },
};
