/**
 * The SIBS simulator as the kit loads it (kit/declaration.ts SimulatorModule): the demo terminal of
 * `paygate sibs-simulator`, a simulator whose account takes a terminal, and what the harness needs.
 */
import type { SimulatorModule } from '../../kit/declaration.js';
import { webhookKeyOf } from '../credentials.js';
import { SibsSimulator } from './server.js';
import { SIBS_SIM_CARDS } from './rules.js';

export const simulator: SimulatorModule = {
  demoTerminal: () => ({ code: null, credentials: { terminal_id: '80317', client_id: '784ad796-b6bc-4857-b6a5-c32354b5679c', bearer_token: 'demo-sibs-bearer-token-0123456789', webhook_secret: SibsSimulator.demoKey(), payment_entity: '21234' } }),
  create(o) {
    const c = o.terminal.credentials;
    return new SibsSimulator({
      accounts: { [c.client_id]: { bearerToken: c.bearer_token, terminalId: Number(c.terminal_id), webhookKey: webhookKeyOf(c.webhook_secret)!, webhookUrl: o.webhookUrl ?? null } },
      latencyMs: o.latencyMs, clock: o.clock, webhookHeaders: o.webhookHeaders,
    });
  },
  harness: {
    terminal: { code: null, credentials: { terminal_id: '80317', client_id: '0f6b2c1e-6a1d-4c55-9e0b-3a7c2d9e8f10', bearer_token: 'conformance-sibs-bearer-token-0123', webhook_secret: 'eMvP3p0Qm0yYp0cR2mJt8w3cYb5s1GkT9oXqZr7aL2E=', payment_entity: '21234' } },
    cards: {
      // the test environment's card without 3-D Secure (its 3-D Secure cards answer Partial: rules.ts)
      approvedPrefix: '47613400',
      refused: { pan: SIBS_SIM_CARDS.DECLINED, error: 'DENIED' },
      insufficientFunds: SIBS_SIM_CARDS.INSUFFICIENT_FUNDS,
      // SIBS publishes no soft decline, and its 3-D Secure (a Partial purchase's actionResponse) is not
      // driven by this connector yet: no card of the gateway's challenge page here
      softDecline: SIBS_SIM_CARDS.APPROVED,
      declines: [],
    },
    storedCredentials: false,
    payouts: false,
    databases: ['postgres'],
    // the notification's ciphertext changed (its tag kept): it no longer authenticates
    tamper(d) {
      const b = Buffer.from(d.body, 'base64');
      b[b.length - 1] ^= 1;
      return { ...d, body: b.toString('base64') };
    },
  },
};
