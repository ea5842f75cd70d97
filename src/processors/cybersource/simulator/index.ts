/**
 * The CyberSource simulator as the kit loads it (kit/declaration.ts SimulatorModule): the demo terminal
 * of `paygate cybersource-simulator`, a simulator whose account takes a terminal, and what the
 * conformance harness needs.
 */
import type { SimulatorModule } from '../../kit/declaration.js';
import { CybersourceSimulator } from './server.js';
import { CYBERSOURCE_SIM_CARDS } from './rules.js';

export const simulator: SimulatorModule = {
  demoTerminal: () => ({ code: null, credentials: { merchant_id: 'paygate_demo', key_id: '0b5f7a52-6a6e-4c1b-9d55-3f1c2a0e8d11', shared_secret_key: CybersourceSimulator.demoSecret() } }),
  create(o) {
    const c = o.terminal.credentials;
    return new CybersourceSimulator({ accounts: { [c.key_id]: { merchantId: c.merchant_id, sharedSecret: c.shared_secret_key } }, latencyMs: o.latencyMs, clock: o.clock });
  },
  harness: {
    terminal: { code: null, credentials: { merchant_id: 'paygate_conformance', key_id: '5a0c2f3e-8b1d-4e6f-9a7b-2c4d6e8f0a1b', shared_secret_key: 'Y29uZm9ybWFuY2Utc2hhcmVkLXNlY3JldC0wMTIzNDU=' } },
    cards: {
      approvedPrefix: '41111111',
      refused: { pan: CYBERSOURCE_SIM_CARDS.REFUSED, error: 'DENIED' },
      insufficientFunds: CYBERSOURCE_SIM_CARDS.INSUFFICIENT_FUNDS,
      softDecline: CYBERSOURCE_SIM_CARDS.SOFT_DECLINE,
      declines: [{ pan: CYBERSOURCE_SIM_CARDS.STOLEN, error: 'BLACKLISTED' }, { pan: CYBERSOURCE_SIM_CARDS.EXPIRED, error: 'EXPIRED_CARD' }],
    },
    storedCredentials: true,
    payouts: false,
    databases: ['postgres'],
    // CyberSource's card payments are answered synchronously: the gateway reads no notification of theirs
    tamper: (d) => d,
  },
};
