/**
 * The Redsys simulator as the kit loads it (kit/declaration.ts SimulatorModule): the demo terminal of
 * `paygate redsys-simulator`, a simulator whose merchant takes a terminal, and what the conformance
 * harness needs.
 */
import type { SimulatorModule } from '../../kit/declaration.js';
import { RedsysSimulator } from './server.js';
import { SIM_CARDS } from './rules.js';

/** Redsys's public test key. */
const TEST_KEY = 'sq7HjrUOBfKmC576ILgskD5srU870gJ7';

export const simulator: SimulatorModule = {
  demoTerminal(o) {
    const code = o.merchantCode ?? '999008881';
    if (!/^\d{9}$/.test(code)) throw new Error('--merchant-code must be 9 digits');
    const terminals = (o.terminals ?? '001,002').split(',').map((t) => t.trim().padStart(3, '0'));
    if (terminals.some((t) => !/^\d{3}$/.test(t))) throw new Error('--terminals must be numbers of 1 to 3 digits');
    const key = o.key ?? TEST_KEY;
    return { code, credentials: { terminal_secure: terminals[0], key_secure: key, terminal_not_secure: terminals[1] ?? terminals[0], key_not_secure: key } };
  },
  create(o) {
    const c = o.terminal.credentials;
    const terminals: Record<string, { key: string }> = { [c.terminal_secure.padStart(3, '0')]: { key: c.key_secure } };
    terminals[c.terminal_not_secure.padStart(3, '0')] ??= { key: c.key_not_secure };
    // its notifications go where each request names (DS_MERCHANT_MERCHANTURL)
    return new RedsysSimulator({ merchants: { [o.terminal.code!]: terminals }, latencyMs: o.latencyMs, clock: o.clock, notifyHeaders: o.webhookHeaders });
  },
  harness: {
    terminal: {
      code: '999008881',
      credentials: { terminal_secure: '001', key_secure: TEST_KEY, terminal_not_secure: '002', key_not_secure: 'Mk9m98IfEblmPfrpsawt7BmxObt98Jev', signature_version: 'HMAC_SHA256_V1' },
    },
    cards: {
      approvedPrefix: '45488120',
      refused: { pan: SIM_CARDS.REFUSED, error: 'DENIED' },
      insufficientFunds: SIM_CARDS.INSUFFICIENT_FUNDS,
      softDecline: SIM_CARDS.SOFT_DECLINE,
      declines: [{ pan: SIM_CARDS.NOT_SUPPORTED, error: 'INVALID_CARD' }, { pan: SIM_CARDS.FRAUD, error: 'FRAUD_SUSPECTED' }],
    },
    storedCredentials: true,
    payouts: false,
    databases: ['pglite', 'postgres'],
    notifiesRequestUrl: true,
    tamper(d) {
      const fields = new URLSearchParams(d.body);
      const params = JSON.parse(Buffer.from(fields.get('Ds_MerchantParameters') ?? '', 'base64url').toString('utf8')) as Record<string, unknown>;
      params.Ds_Response = params.Ds_Response === '0000' ? '0190' : '0000';
      fields.set('Ds_MerchantParameters', Buffer.from(JSON.stringify(params)).toString('base64url'));
      return { ...d, body: fields.toString() };
    },
  },
};
