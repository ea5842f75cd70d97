/**
 * The Checkout.com simulator as the kit loads it (kit/declaration.ts SimulatorModule): the demo terminal
 * of `paygate checkout-simulator`, a simulator whose account takes a terminal, and what the conformance
 * harness needs.
 */
import type { SimulatorModule } from '../../kit/declaration.js';
import { CheckoutSimulator } from './server.js';
import { CHECKOUT_SIM_CARDS } from './rules.js';

export const simulator: SimulatorModule = {
  demoTerminal: () => ({ code: null, credentials: { secret_key: 'sk_sbox_demo0000000000000000000000', processing_channel_id: 'pc_demo0000000000000000000000', webhook_signature_key: CheckoutSimulator.demoKey() } }),
  create(o) {
    const c = o.terminal.credentials;
    return new CheckoutSimulator({
      accounts: { [c.secret_key]: { processingChannelId: c.processing_channel_id, webhookKey: c.webhook_signature_key, webhookUrl: o.webhookUrl ?? null } },
      latencyMs: o.latencyMs, clock: o.clock, webhookHeaders: o.webhookHeaders,
    });
  },
  harness: {
    terminal: { code: null, credentials: { secret_key: 'sk_sbox_conformance0000000000000000', processing_channel_id: 'pc_conformance00000000000000a', webhook_signature_key: 'whsec-conformance-0123456789abcdef' } },
    cards: {
      approvedPrefix: '42424242',
      refused: { pan: CHECKOUT_SIM_CARDS.REFUSED, error: 'DENIED' },
      insufficientFunds: CHECKOUT_SIM_CARDS.INSUFFICIENT_FUNDS,
      softDecline: CHECKOUT_SIM_CARDS.SOFT_DECLINE,
      declines: [{ pan: CHECKOUT_SIM_CARDS.FRAUD, error: 'FRAUD_SUSPECTED' }],
    },
    storedCredentials: true,
    payouts: false,
    databases: ['postgres'],
    tamper(d) {
      const body = JSON.parse(d.body) as { type: string; data: Record<string, unknown> };
      body.type = body.type === 'payment_declined' ? 'payment_approved' : 'payment_declined';
      body.data.response_code = body.data.response_code === '10000' ? '20005' : '10000';
      return { ...d, body: JSON.stringify(body) };
    },
  },
};
