/**
 * The Trust Payments simulator as the kit loads it (kit/declaration.ts SimulatorModule): the demo
 * terminal of `paygate trustpayments-simulator`, a simulator whose account takes a terminal, and what
 * the conformance harness needs.
 */
import type { SimulatorModule } from '../../kit/declaration.js';
import { TrustpaymentsSimulator } from './server.js';
import { TRUSTPAYMENTS_SIM_CARDS } from './rules.js';

export const simulator: SimulatorModule = {
  demoTerminal: () => ({ code: null, credentials: { alias: 'ws@demo.example', password: TrustpaymentsSimulator.demoPassword(), sitereference: 'test_demo12345' } }),
  create(o) {
    const c = o.terminal.credentials;
    return new TrustpaymentsSimulator({ accounts: { [c.alias]: { password: c.password, sitereference: c.sitereference } }, latencyMs: o.latencyMs, clock: o.clock });
  },
  harness: {
    terminal: { code: null, credentials: { alias: 'ws@conformance.example', password: 'conformance-password-0123', sitereference: 'test_conformance01' } },
    cards: {
      approvedPrefix: '41111111',
      refused: { pan: TRUSTPAYMENTS_SIM_CARDS.DECLINED, error: 'DENIED' },
      insufficientFunds: TRUSTPAYMENTS_SIM_CARDS.INSUFFICIENT_FUNDS,
      softDecline: TRUSTPAYMENTS_SIM_CARDS.SOFT_DECLINE,
      declines: [{ pan: TRUSTPAYMENTS_SIM_CARDS.FRAUD, error: 'FRAUD_SUSPECTED' }],
    },
    storedCredentials: true,
    payouts: false,
    databases: ['postgres'],
    // Trust Payments sends no notifications the gateway reads
    tamper: (d) => d,
  },
};
