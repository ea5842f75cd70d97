/**
 * The Worldpay simulator as the kit loads it (kit/declaration.ts SimulatorModule): the demo terminal of
 * `paygate worldpay-simulator`, a simulator whose account takes a terminal, and what the conformance
 * harness needs.
 */
import type { SimulatorModule } from '../../kit/declaration.js';
import { WorldpaySimulator } from './server.js';
import { WORLDPAY_SIM_CARDS } from './rules.js';

export const simulator: SimulatorModule = {
  demoTerminal: () => ({ code: null, credentials: { username: 'demo-access-user', password: 'demo-access-password', entity: 'default', event_signature_key: WorldpaySimulator.demoKey() } }),
  create(o) {
    const c = o.terminal.credentials;
    return new WorldpaySimulator({
      accounts: { [c.username]: { password: c.password, entity: c.entity, eventKey: c.event_signature_key, webhookUrl: o.webhookUrl ?? null } },
      latencyMs: o.latencyMs, clock: o.clock, webhookHeaders: o.webhookHeaders,
    });
  },
  harness: {
    terminal: { code: null, credentials: { username: 'conformance-user', password: 'conformance-password-0123', entity: 'default', event_signature_key: 'event-secret-conformance-0123456789' } },
    cards: {
      approvedPrefix: '44443333',
      refused: { pan: WORLDPAY_SIM_CARDS.REFUSED, error: 'DENIED' },
      insufficientFunds: WORLDPAY_SIM_CARDS.INSUFFICIENT_FUNDS,
      softDecline: WORLDPAY_SIM_CARDS.SOFT_DECLINE,
      declines: [{ pan: WORLDPAY_SIM_CARDS.FRAUD, error: 'FRAUD_SUSPECTED' }],
    },
    storedCredentials: true,
    payouts: false,
    databases: ['postgres'],
    tamper(d) {
      const body = JSON.parse(d.body) as { eventDetails: Record<string, unknown> };
      body.eventDetails.type = body.eventDetails.type === 'refused' ? 'authorized' : 'refused';
      return { ...d, body: JSON.stringify(body) };
    },
  },
};
