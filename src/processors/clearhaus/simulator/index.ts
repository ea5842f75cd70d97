/**
 * The Clearhaus simulator as the kit loads it (kit/declaration.ts SimulatorModule): the demo terminal of
 * `paygate clearhaus-simulator`, a simulator whose account takes a terminal, and what the conformance
 * harness needs. Its signing key is the example of Clearhaus's "RSA signature" documentation (a
 * 512-bit key, for tests and demos only).
 */
import type { SimulatorModule } from '../../kit/declaration.js';
import { ClearhausSimulator } from './server.js';
import { CLEARHAUS_SIM_CARDS } from './rules.js';

/** The signing API key and private key of Clearhaus's documentation example (#rsa-signature). */
export const DOCUMENTED_SIGNING_API_KEY = '4390aec7-f76a-4c2f-8597-c87c2d06cb4f';
export const DOCUMENTED_SIGNING_KEY = [
  '-----BEGIN RSA PRIVATE KEY-----',
  'MIIBOwIBAAJBALYK0zmwuYkH3YWcFNLLddx5cwDxEY7Gi1xITuQqRrU4yD3uSw+J',
  'WYKknb4Tbndb6iEHY+e6gIGD+49TojnNeIUCAwEAAQJARyuYRRe4kcBHdPL+mSL+',
  'Y0IAGkAlUyKAXYXPghidKD/v/oLrFaZWALGM2clv6UoYYpPnInSgbcud4sTcfeUm',
  'QQIhAN2JZ2qv0WGcbIopBpwpQ5jDxMGVkmkVVUEWWABGF8+pAiEA0lySxTELZm8b',
  'Gx9UEDRghN+Qv/OuIKFldu1Ba4f8W30CIQCaQFIBtunTTVdF28r+cLzgYW9eWwbW',
  'pEP4TdZ4WlW6AQIhAMDCTUdeUpjxlH/87BXROORozAXocBW8bvJUI486U5ctAiAd',
  'InviQqJd1KTGRDmWIGrE5YACVmW2JSszD9t5VKxkAA==',
  '-----END RSA PRIVATE KEY-----',
  '',
].join('\n');

export const simulator: SimulatorModule = {
  demoTerminal: () => ({ code: null, credentials: { api_key: '0f8c2a35-6d1e-4b7a-9c3f-5e2d8a1b4c6d', signing_api_key: DOCUMENTED_SIGNING_API_KEY, signing_private_key: DOCUMENTED_SIGNING_KEY } }),
  create(o) {
    const c = o.terminal.credentials;
    return new ClearhausSimulator({ accounts: { [c.api_key]: { merchantId: '000000003000001', signingApiKey: c.signing_api_key ?? null, signingPrivateKey: c.signing_private_key ?? null } }, latencyMs: o.latencyMs, clock: o.clock });
  },
  harness: {
    terminal: { code: null, credentials: { api_key: '7d3e9f21-4c8b-4a6e-b5d2-1f0a9c8e7b63', signing_api_key: DOCUMENTED_SIGNING_API_KEY, signing_private_key: DOCUMENTED_SIGNING_KEY } },
    cards: {
      approvedPrefix: '41111111',
      refused: { pan: CLEARHAUS_SIM_CARDS.DECLINED, error: 'DENIED' },
      insufficientFunds: CLEARHAUS_SIM_CARDS.INSUFFICIENT_FUNDS,
      softDecline: CLEARHAUS_SIM_CARDS.SOFT_DECLINE,
      declines: [{ pan: CLEARHAUS_SIM_CARDS.FRAUD, error: 'FRAUD_SUSPECTED' }, { pan: CLEARHAUS_SIM_CARDS.LOST, error: 'BLACKLISTED' }],
    },
    storedCredentials: true,
    payouts: false,
    databases: ['postgres'],
    lostPayments: 'failed',
    // Clearhaus sends no notifications the gateway reads
    tamper: (d) => d,
  },
};
