/**
 * The Nuvei simulator as the kit loads it (kit/declaration.ts SimulatorModule): the demo terminal of
 * `paygate nuvei-simulator`, a simulator whose site takes a terminal, and what the conformance harness
 * needs.
 */
import type { SimulatorModule } from '../../kit/declaration.js';
import { NuveiSimulator } from './server.js';
import { NUVEI_SIM_CARDS } from './rules.js';

export const simulator: SimulatorModule = {
  demoTerminal: () => ({ code: null, credentials: { merchantId: '4270517318213870000', merchantSiteId: '212345', merchantSecretKey: NuveiSimulator.demoKey() } }),
  create(o) {
    const c = o.terminal.credentials;
    // its DMNs go where each payment names (urlDetails.notificationUrl)
    return new NuveiSimulator({ sites: { [c.merchantSiteId]: { merchantId: c.merchantId, secretKey: c.merchantSecretKey } }, latencyMs: o.latencyMs, clock: o.clock, notifyHeaders: o.webhookHeaders });
  },
  harness: {
    terminal: { code: null, credentials: { merchantId: '5081234567890123456', merchantSiteId: '208765', merchantSecretKey: 'conformanceSecretKey0123456789abcdefABCDEF' } },
    cards: {
      approvedPrefix: '45671234',
      refused: { pan: NUVEI_SIM_CARDS.REFUSED, error: 'DENIED' },
      insufficientFunds: NUVEI_SIM_CARDS.INSUFFICIENT_FUNDS,
      softDecline: NUVEI_SIM_CARDS.SOFT_DECLINE,
      declines: [{ pan: NUVEI_SIM_CARDS.FRAUD, error: 'FRAUD_SUSPECTED' }, { pan: NUVEI_SIM_CARDS.DO_NOT_HONOR, error: 'DENIED' }],
    },
    storedCredentials: true,
    payouts: false,
    databases: ['pglite', 'postgres'],
    notifiesRequestUrl: true,
    tamper(d) {
      const fields = new URLSearchParams(d.body);
      fields.set('Status', fields.get('Status') === 'APPROVED' ? 'DECLINED' : 'APPROVED');
      return { ...d, body: fields.toString() };
    },
  },
};
