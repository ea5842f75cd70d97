/** HTTP of wallets: B14, the wallet configuration, the wallets of a service, sandbox tokens. */
import type { FastifyInstance } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { ctxOf, ok } from '../../platform/http/respond.js';
import { responses } from '../../platform/http/schemas.js';
import { Secret } from '../../platform/security/secret.js';
import { OrderResponseSchema, RedirectResponseSchema, answerOrder, type PaymentsService } from '../payments/index.js';
import * as S from './wallets.schemas.js';
import type { WalletsService } from './wallets.service.js';

const PAYMENT = ['payment'] as const;
const READ = ['payment', 'readonly'] as const;
const tags = ['wallets'];

export function walletsRoutes(service: WalletsService, payments: PaymentsService) {
  return async (scope: FastifyInstance) => {
    const app = scope.withTypeProvider<TypeBoxTypeProvider>();

    app.post('/payment/wallet', {
      config: { profiles: PAYMENT },
      schema: {
        operationId: 'payWallet',
        summary: 'B14 Wallet payment (Google Pay, Apple Pay)',
        description: 'Pays an order with the token a wallet returned: Google Pay (`GOOGLEPAY`, protocol ECv2: the intermediate signing key is checked against the trusted Google root keys, the message signature for the merchant\'s recipient id, then it is decrypted with the merchant\'s key) or Apple Pay (`APPLEPAY`, EC_v1: the PKCS#7 signature chain up to the trusted Apple root, the signing time, the merchant\'s payment processing certificate, then decryption). The order\'s service must offer the wallet (`PUT /service/{uuid}/wallets`). Google Pay CRYPTOGRAM_3DS tokens and Apple Pay tokens are paid as authenticated (`safe` true, `threeds_data.flow` WALLET with the ECI); Google Pay PAN_ONLY tokens go through 3-D Secure: HTTP 303 "See Other" with the tokenized 3DS URL in `details` and `url` (no Location header). Apple Pay tokens must be for the order\'s amount and currency. A tampered, expired or foreign token is 400 saying why; a token used before is 409 (each token pays once). The card is never stored; the transaction\'s `source` names the wallet. Sandbox: build tokens with `POST /sandbox-wallet/token`.',
        tags, body: S.WalletPayBody, response: responses(OrderResponseSchema, { 303: RedirectResponseSchema }),
      },
    }, async (req, reply) => {
      const ctx = ctxOf(req);
      return answerOrder(reply, ctx, payments, await service.pay(ctx, req.body));
    });

    app.get('/wallets', {
      config: { profiles: READ },
      schema: {
        operationId: 'getWallets',
        summary: 'The merchant\'s wallet configuration',
        description: 'Google Pay and Apple Pay in this environment: whether each is offered to customers, whether the gateway trusts its roots, and the merchant\'s keys (public parts only). A sandbox merchant gets its keys on first use, and the answer carries the sandbox roots tokens are signed by.',
        tags, response: responses(S.WalletsResponse),
      },
    }, async (req) => {
      const ctx = ctxOf(req);
      return ok(ctx, { wallets: await service.configuration(ctx) });
    });

    app.post('/wallet/google-pay/key', {
      config: { profiles: PAYMENT },
      schema: {
        operationId: 'createGooglePayKey',
        summary: 'Generate a Google Pay key',
        description: 'Generates an ECv2 key pair (P-256) for the merchant; the private key is sealed and never leaves the gateway. Register `public_key` with Google for `recipient_id` (merchant:<your Google merchant id> in the Google Pay & Wallet Console). Tokens are tried with every key, so an old key keeps working while Google switches to the new one.',
        tags, body: S.GoogleKeyBody, response: responses(S.WalletKeyResponse),
      },
    }, async (req) => {
      const ctx = ctxOf(req);
      return ok(ctx, { key: await service.generateGoogleKey(ctx, req.body) });
    });

    app.post('/wallet/apple-pay/certificate', {
      config: { profiles: PAYMENT },
      schema: {
        operationId: 'importApplePayCertificate',
        summary: 'Import an Apple Pay payment processing certificate',
        description: 'The payment processing certificate Apple issued for the merchant identifier (PEM) and its EC P-256 private key (PEM). The certificate must carry the merchant identifier field and match the key; the key is sealed and never shown again. Tokens name the certificate they were made for (header.publicKeyHash). 409 when the certificate is already configured.',
        tags, body: S.AppleCertificateBody, response: responses(S.WalletKeyResponse),
      },
    }, async (req) => {
      const ctx = ctxOf(req);
      const b = req.body;
      return ok(ctx, { key: await service.importAppleCertificate(ctx, { certificate: b.certificate, private_key: new Secret(b.private_key), merchant_identifier: b.merchant_identifier ?? null }) });
    });

    app.get('/service/:service_uuid/wallets', {
      config: { profiles: READ },
      schema: { operationId: 'getServiceWallets', summary: 'The wallets a service offers', description: 'GOOGLE_PAY and APPLE_PAY when configured on the service (none by default).', tags, params: S.ServiceParams, response: responses(S.ServiceWalletsResponse) },
    }, async (req) => {
      const ctx = ctxOf(req);
      return ok(ctx, { service: await service.serviceWallets(ctx, req.params.service_uuid) });
    });

    app.put('/service/:service_uuid/wallets', {
      config: { profiles: PAYMENT },
      schema: { operationId: 'setServiceWallets', summary: 'Set the wallets a service offers', description: 'Replaces the list of wallets the service offers (an empty list: none). B14, the hosted page and the checkout offer exactly these, and `GET /client/resources` reports them.', tags, params: S.ServiceParams, body: S.SetWalletsBody, response: responses(S.ServiceWalletsResponse) },
    }, async (req) => {
      const ctx = ctxOf(req);
      return ok(ctx, { service: await service.setServiceWallets(ctx, req.params.service_uuid, req.body.wallets) });
    });

    app.post('/sandbox-wallet/token', {
      config: { profiles: PAYMENT },
      schema: {
        operationId: 'sandboxWalletToken',
        summary: 'Sandbox: build a wallet token',
        description: 'Sandbox only (404 in production). Builds a real wallet token for the merchant\'s sandbox key, as the wallet would: Google Pay ECv2 (signed by the sandbox root through a fresh intermediate key, encrypted for the merchant\'s key; CRYPTOGRAM_3DS by default, or PAN_ONLY) or Apple Pay EC_v1 (signed by the sandbox Apple chain, encrypted for the merchant\'s payment processing certificate, for the amount and currency of `order_uuid` or the ones given). Send `payload` to `POST /payment/wallet`. The card is a sandbox test card: its outcome is the test card\'s.',
        tags: ['sandbox'], body: S.SandboxTokenBody, response: responses(S.SandboxTokenResponse),
      },
    }, async (req) => {
      const ctx = ctxOf(req);
      const b = req.body;
      return ok(ctx, { token: await service.sandboxToken(ctx, { ...b, card_pan: b.card_pan ? new Secret(b.card_pan) : null }) });
    });
  };
}
