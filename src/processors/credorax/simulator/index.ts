/**
 * The Credorax simulator as the kit loads it (kit/declaration.ts SimulatorModule): the demo terminal of
 * `paygate credorax-simulator`, a simulator whose merchants take a terminal, and what the conformance
 * harness needs.
 */
import type { SimulatorModule } from '../../kit/declaration.js';
import { CredoraxSimulator } from './server.js';
import { CREDORAX_SIM_CARDS } from './rules.js';

export const simulator: SimulatorModule = {
  demoTerminal: () => ({ code: null, credentials: { merchant_id: 'DEMO0001', signing_api_key: CredoraxSimulator.demoKey(), merchant_id_amex: 'DEMOAMEX', signing_api_key_amex: CredoraxSimulator.demoKey() } }),
  create(o) {
    const c = o.terminal.credentials;
    const merchants: Record<string, string> = { [c.merchant_id]: c.signing_api_key };
    if (c.merchant_id_amex && c.signing_api_key_amex) merchants[c.merchant_id_amex] = c.signing_api_key_amex;
    return new CredoraxSimulator({ merchants, latencyMs: o.latencyMs, clock: o.clock });
  },
  harness: {
    terminal: { code: null, credentials: { merchant_id: 'CONF0001', signing_api_key: 'conformance-signing-key-0123456789', sub_merchant_id: 'SUB-01', merchant_id_amex: 'CONFAMEX', signing_api_key_amex: 'conformance-amex-key-0123456789', target_mid_amex: 'AMEX-MID-1', sub_merchant_phone_amex: '+34 600 000 000' } },
    cards: {
      approvedPrefix: '44445555',
      refused: { pan: CREDORAX_SIM_CARDS.REFUSED, error: 'DENIED' },
      insufficientFunds: CREDORAX_SIM_CARDS.INSUFFICIENT_FUNDS,
      softDecline: CREDORAX_SIM_CARDS.SOFT_DECLINE,
      declines: [{ pan: CREDORAX_SIM_CARDS.STOLEN, error: 'BLACKLISTED' }, { pan: CREDORAX_SIM_CARDS.EXPIRED, error: 'EXPIRED_CARD' }],
    },
    storedCredentials: true,
    payouts: false,
    databases: ['postgres'],
    // Credorax's payments are answered synchronously: the gateway reads no notification of theirs
    tamper: (d) => d,
  },
};
