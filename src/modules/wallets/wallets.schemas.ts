/** TypeBox schemas of the wallets API (B14 and the wallet configuration). */
import { Int, Maybe, Nullable, OptionalIp, OptionalText, OptionalUuid, Type, Uuid, envelope, signedBody } from '../../platform/http/schemas.js';
import * as EX from './wallets.examples.js';

export const WalletPayBody = signedBody({
  order_uuid: Uuid,
  wallet: Type.String({ minLength: 1, maxLength: 32, description: 'GOOGLEPAY or APPLEPAY (GOOGLE_PAY and APPLE_PAY are accepted too)' }),
  payload: Type.Union([
    Type.String({ minLength: 1, maxLength: 65_536, description: 'the JSON the wallet returned, as a string (or base64 of it)' }),
    Type.Object({}, { additionalProperties: true, description: 'the same JSON as an object' }),
  ], { description: 'Google Pay: the token (`paymentMethodData.tokenizationData.token`, or the whole PaymentData). Apple Pay: the `paymentData` of the PKPaymentToken (or the token holding it)' }),
  customer_ip: OptionalIp(),
  flow: OptionalText(8, { description: 'APP (default) or WEB: where the customer paid' }),
}, { title: 'WalletPaymentRequest', examples: [EX.WALLET_PAY_REQUEST] });

export const WalletKey = Type.Object(
  {
    uuid: Uuid,
    wallet: Type.String({ description: 'GOOGLE_PAY or APPLE_PAY' }),
    generated: Type.Boolean({ description: 'made by the gateway (the private key never left it), rather than imported' }),
    created_at: Type.String({ description: 'ISO 8601 UTC' }),
    recipient_id: Nullable(Type.String({ description: 'Google Pay: the recipient id the token is signed for (merchant:<id> or gateway:<id>)' })),
    public_key: Nullable(Type.String({ description: 'Google Pay: the public key to register with Google (base64 uncompressed P-256 point)' })),
    merchant_identifier: Nullable(Type.String({ description: 'Apple Pay: the merchant identifier (sha256:<hex> when the certificate was imported without it)' })),
    public_key_hash: Nullable(Type.String({ description: 'Apple Pay: base64 SHA-256 of the certificate\'s public key, as tokens name it in header.publicKeyHash' })),
    certificate: Nullable(Type.String({ description: 'Apple Pay: the payment processing certificate (PEM)' })),
    expires_at: Nullable(Type.String({ description: 'Apple Pay: when the certificate expires (ISO 8601 UTC)' })),
  },
  { title: 'WalletKey', description: 'A wallet key of the merchant (never the private key)', examples: [EX.GOOGLE_KEY_EXAMPLE] },
);

const WalletState = {
  enabled: Type.Boolean({ description: 'offered to customers: a trusted root, an enabled service offering it, and a key' }),
  roots_trusted: Type.Boolean({ description: 'the gateway trusts roots of this wallet in this environment (production: configured by the operator)' }),
  keys: Type.Array(WalletKey, { description: 'newest first; every key is tried' }),
};

export const Wallets = Type.Object(
  {
    google_pay: Type.Object({ ...WalletState, gateway_merchant_id: Type.String({ description: 'the gatewayMerchantId to put in the Google Pay tokenization parameters (gateway integration)' }) }),
    apple_pay: Type.Object(WalletState),
    sandbox_roots: Type.Optional(Type.Object({
      google_pay: Type.Object({ keys: Type.Array(Type.Object({ keyValue: Type.String(), protocolVersion: Type.String(), keyExpiration: Type.Optional(Nullable(Type.Union([Type.String(), Type.Number()]))) })) }, { description: 'the sandbox root signing keys, in Google\'s keys.json format' }),
      apple_pay: Type.Object({ root_certificate: Type.String({ description: 'the sandbox root CA (PEM)' }) }),
    }, { description: 'sandbox only: the roots sandbox tokens are signed by (to build tokens yourself)' })),
  },
  { title: 'Wallets', description: 'The wallet configuration of the merchant in this environment', examples: [EX.WALLETS_EXAMPLE] },
);
export const WalletsResponse = envelope({ wallets: Wallets }, { title: 'WalletsResponse' });

export const GoogleKeyBody = signedBody({
  recipient_id: OptionalText(120, { description: 'merchant:<your Google merchant id> (direct integration) or gateway:<id>; required in production, sandbox default gateway:paygate' }),
}, { title: 'GooglePayKeyRequest', examples: [EX.GOOGLE_KEY_REQUEST] });

export const AppleCertificateBody = signedBody({
  certificate: Type.String({ minLength: 1, maxLength: 20_000, description: 'the payment processing certificate Apple issued (PEM)' }),
  private_key: Type.String({ minLength: 1, maxLength: 10_000, description: 'its private key (PEM, EC P-256); sealed, never shown again' }),
  merchant_identifier: OptionalText(120, { description: 'the Apple Pay merchant identifier (checked against the certificate)' }),
}, { title: 'ApplePayCertificateRequest', examples: [EX.APPLE_CERTIFICATE_REQUEST] });

export const WalletKeyResponse = envelope({ key: WalletKey }, { title: 'WalletKeyResponse' });

export const ServiceParams = Type.Object({ service_uuid: Uuid });
const ServiceWallets = Type.Object(
  { service_uuid: Uuid, wallets: Type.Array(Type.String(), { description: 'GOOGLE_PAY, APPLE_PAY' }) },
  { title: 'ServiceWallets', description: 'The wallets a service offers', examples: [EX.SERVICE_WALLETS_EXAMPLE] },
);
export const ServiceWalletsResponse = envelope({ service: ServiceWallets }, { title: 'ServiceWalletsResponse' });
export const SetWalletsBody = signedBody({
  wallets: Type.Array(Type.String({ maxLength: 32 }), { maxItems: 8, description: 'the wallets the service offers from now on (replaces the list): GOOGLE_PAY, APPLE_PAY' }),
}, { title: 'SetServiceWalletsRequest', examples: [EX.SET_WALLETS_REQUEST] });

export const SandboxTokenBody = signedBody({
  wallet: Type.String({ minLength: 1, maxLength: 32, description: 'GOOGLEPAY or APPLEPAY' }),
  card_pan: OptionalText(40, { description: 'the card in the token (a sandbox test card decides the outcome); default 4548812049400004 (approved)' }),
  card_expiry_month: Maybe(Int({ minimum: 1, maximum: 12, description: 'default 12' })),
  card_expiry_year: Maybe(Int({ minimum: 2000, maximum: 2099, description: 'four digits; default three years ahead' })),
  auth_method: Maybe(Type.Union([Type.Literal('PAN_ONLY'), Type.Literal('CRYPTOGRAM_3DS')], { description: 'Google Pay: CRYPTOGRAM_3DS (default; paid as authenticated) or PAN_ONLY (3-D Secure follows)' })),
  order_uuid: OptionalUuid({ description: 'Apple Pay: the order whose amount and currency the customer approves' }),
  amount: Maybe(Int({ minimum: 0, maximum: 999_999_999_999, description: 'Apple Pay without order_uuid: minor units' })),
  currency: OptionalText(3, { description: 'Apple Pay without order_uuid: ISO 4217 (EUR or 978)' }),
  expires_in: Maybe(Int({ minimum: 1, maximum: 604_800, description: 'Google Pay: seconds until the message expires (default 3600)' })),
}, { title: 'SandboxWalletTokenRequest', examples: [EX.SANDBOX_TOKEN_REQUEST] });

export const SandboxTokenResponse = envelope({
  token: Type.Object(
    {
      wallet: Type.String(),
      payload: Type.String({ description: 'the token as the wallet returns it: send it as `payload` of POST /payment/wallet' }),
      token_id: Type.String({ description: 'the wallet\'s id of the token (Google Pay messageId, Apple Pay transactionId): each pays once' }),
      auth_method: Nullable(Type.String({ description: 'Google Pay: PAN_ONLY or CRYPTOGRAM_3DS' })),
    },
    { title: 'SandboxWalletToken', description: 'A sandbox wallet token, encrypted for the merchant\'s key and signed by the sandbox roots', examples: [EX.SANDBOX_TOKEN_EXAMPLE] },
  ),
}, { title: 'SandboxWalletTokenResponse' });
