/** Examples of the wallets API (shown in the API reference; a test validates them). */
import { EXAMPLE_SIGNATURE as signature } from '../../platform/http/schemas.js';

const ORDER_UUID = '3c9a7e52-1b4d-4f0e-8a6b-9d2f5c1e7a34';
const SERVICE_UUID = '7d2b4f0a-6c1e-4b8d-9e3f-1a5c7b9d2e40';

/** A Google Pay ECv2 token as the wallet returns it (shortened: a real one is about 1.5 KB). */
const GOOGLE_TOKEN = JSON.stringify({
  signature: 'MEUCIQDw6...',
  intermediateSigningKey: { signedKey: '{"keyValue":"MFkwEwYHKoZIzj0CAQYIKoZIzj0DAQcDQgAE...","keyExpiration":"1795689600000"}', signatures: ['MEYCIQCO2EIi48s8VTH...'] },
  protocolVersion: 'ECv2',
  signedMessage: '{"encryptedMessage":"mKOoXwi8OavZ...","ephemeralPublicKey":"BJatyFvFPPD21l8...","tag":"jpGz1F1Bcoi/fCNxI9n7Qrsw7i7KHrGtTf3NrRclt+U="}',
});

export const WALLET_PAY_REQUEST = { signature, order_uuid: ORDER_UUID, wallet: 'GOOGLEPAY', payload: GOOGLE_TOKEN, customer_ip: '203.0.113.10', flow: 'WEB' };

export const GOOGLE_KEY_EXAMPLE = {
  uuid: '0f6d1c2b-3a4e-4b5f-8c7d-9e0a1b2c3d4e',
  wallet: 'GOOGLE_PAY',
  generated: true,
  created_at: '2026-03-14T09:21:07.000Z',
  recipient_id: 'gateway:paygate',
  public_key: 'BOdoXP+9Aq473SnGwg3JU1aiNpsd9vH2ognq4PtDtlLGa3Kj8TPf+jaQNPyDSkh3JUhiS0KyrrlWhAgNZKHYF2Y=',
  merchant_identifier: null,
  public_key_hash: null,
  certificate: null,
  expires_at: null,
};

export const APPLE_KEY_EXAMPLE = {
  uuid: '5a1b2c3d-4e5f-4a6b-8c7d-8e9f0a1b2c3d',
  wallet: 'APPLE_PAY',
  generated: false,
  created_at: '2026-03-14T09:25:41.000Z',
  recipient_id: null,
  public_key: null,
  merchant_identifier: 'merchant.com.example.shop',
  public_key_hash: 'LbsUwAT6w1JV9tFXocU813TCHks+LSuFF0R/eBkrWnQ=',
  certificate: '-----BEGIN CERTIFICATE-----\nMIIB...\n-----END CERTIFICATE-----\n',
  expires_at: '2028-03-14T09:25:41.000Z',
};

export const WALLETS_EXAMPLE = {
  google_pay: { enabled: true, roots_trusted: true, gateway_merchant_id: 'b2c3d4e5-f6a7-4b8c-9d0e-1f2a3b4c5d6e', keys: [GOOGLE_KEY_EXAMPLE] },
  apple_pay: { enabled: false, roots_trusted: true, keys: [APPLE_KEY_EXAMPLE] },
};

export const GOOGLE_KEY_REQUEST = { signature, recipient_id: 'merchant:12345678901234567890' };
export const APPLE_CERTIFICATE_REQUEST = {
  signature,
  certificate: '-----BEGIN CERTIFICATE-----\nMIIB...\n-----END CERTIFICATE-----\n',
  private_key: '-----BEGIN PRIVATE KEY-----\nMIGHAgEAMBMGByqGSM49AgEGCCqGSM49AwEHBG0wawIBAQQg...\n-----END PRIVATE KEY-----\n',
  merchant_identifier: 'merchant.com.example.shop',
};

export const SET_WALLETS_REQUEST = { signature, wallets: ['GOOGLE_PAY', 'APPLE_PAY'] };
export const SERVICE_WALLETS_EXAMPLE = { service_uuid: SERVICE_UUID, wallets: ['GOOGLE_PAY', 'APPLE_PAY'] };

export const SANDBOX_TOKEN_REQUEST = { signature, wallet: 'GOOGLEPAY', card_pan: '4548812049400004', card_expiry_month: 12, card_expiry_year: 2029, auth_method: 'CRYPTOGRAM_3DS' };
export const SANDBOX_TOKEN_EXAMPLE = { wallet: 'GOOGLEPAY', payload: GOOGLE_TOKEN, token_id: 'AH2EjtcSAFb5KdNc0s8VWm0KLvYpKmgzDyhm', auth_method: 'CRYPTOGRAM_3DS' };
