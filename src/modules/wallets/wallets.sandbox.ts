/**
 * Sandbox wallet tokens (`POST /sandbox-wallet/token`): a real Google Pay or Apple Pay token for one of the
 * caller's keys, built the way the wallet builds it and signed by the sandbox roots, so B14 opens and pays it
 * exactly as it would a wallet's.
 */
import { createHash, randomUUID } from 'node:crypto';
import type { Env } from '../../platform/db/schema.js';
import { badRequest, notFound } from '../../platform/errors/errors.js';
import { currencyFrom } from '../../platform/money/currency.js';
import type { RequestContext } from '../../platform/http/types.js';
import type { Secret } from '../../platform/security/secret.js';
import { newMessageId, newTransactionId, privateKeyOf, sealApplePayToken, sealGooglePayToken, type AppleRootMaterial, type GoogleRootMaterial } from './sandbox-wallet.js';
import { parseWallet, type Wallet } from './wallets.domain.js';
import type * as repo from './wallets.repo.js';

/** The card of a sandbox wallet token when the caller names none. */
export const SANDBOX_WALLET_CARD = '4548812049400004';

export interface SandboxTokenInput {
  wallet: string;
  card_pan?: Secret<string> | null;
  card_expiry_month?: number | null;
  card_expiry_year?: number | null;
  auth_method?: 'PAN_ONLY' | 'CRYPTOGRAM_3DS' | null;
  order_uuid?: string | null;
  amount?: number | null;
  currency?: string | null;
  expires_in?: number | null;
}

export interface SandboxToken {
  wallet: string;
  payload: string;
  token_id: string;
  auth_method: string | null;
}

/** What a sandbox token needs of the wallets service and of payments. */
export interface SandboxTokenDeps {
  keys(owner: { merchantId: string; env: Env }, wallet: Wallet): Promise<repo.WalletKeyRow[]>;
  googleRoot(): Promise<GoogleRootMaterial>;
  appleRoot(): Promise<AppleRootMaterial>;
  order(ctx: RequestContext, uuid: string): Promise<{ order: { amount: number; currency: string | number } }>;
}

export async function sandboxToken(deps: SandboxTokenDeps, ctx: RequestContext, input: SandboxTokenInput): Promise<SandboxToken> {
  if (ctx.env !== 'sandbox') throw notFound('Sandbox wallet tokens exist only in sandbox (/v1/sandbox/sandbox-wallet/token)');
  const wallet = parseWallet(input.wallet);
  if (!wallet) throw badRequest('wallet must be GOOGLEPAY or APPLEPAY');
  const now = ctx.clock.now();
  const pan = input.card_pan ? input.card_pan.reveal().replace(/[\s-]/g, '') : SANDBOX_WALLET_CARD;
  if (!/^[0-9]{12,19}$/.test(pan)) throw badRequest('card_pan must be 12 to 19 digits');
  const month = input.card_expiry_month ?? 12;
  const year = input.card_expiry_year ?? now.getUTCFullYear() + 3;
  if (month < 1 || month > 12) throw badRequest('card_expiry_month must be from 1 to 12');
  if (year < 2000 || year > 2099) throw badRequest('card_expiry_year must be 4 digits (2000 to 2099)');
  const keys = await deps.keys({ merchantId: ctx.merchant.id, env: ctx.env }, wallet);
  const key = keys[0];
  if (wallet === 'GOOGLE_PAY') {
    const authMethod = input.auth_method ?? 'CRYPTOGRAM_3DS';
    const root = await deps.googleRoot();
    const messageId = newMessageId();
    const token = sealGooglePayToken({
      rootPrivateKey: privateKeyOf(root.privateKey),
      recipientId: key.identifier,
      merchantPublicKey: key.public_key,
      now,
      message: {
        messageId,
        messageExpiration: new Date(now.getTime() + (input.expires_in ?? 3600) * 1000),
        pan,
        expirationMonth: month,
        expirationYear: year,
        authMethod,
        cryptogram: authMethod === 'CRYPTOGRAM_3DS' ? sandboxCryptogram() : null,
        eciIndicator: authMethod === 'CRYPTOGRAM_3DS' ? '05' : null,
        gatewayMerchantId: key.identifier.startsWith('gateway:') ? ctx.merchant.id : null,
      },
    });
    return { wallet: 'GOOGLEPAY', payload: JSON.stringify(token), token_id: messageId, auth_method: authMethod };
  }
  if (input.auth_method === 'PAN_ONLY') throw badRequest('auth_method applies to Google Pay only (Apple Pay tokens always carry a cryptogram)');
  let amount = input.amount ?? null;
  let currency: string | null = input.currency ?? null;
  if (input.order_uuid) {
    const { order } = await deps.order(ctx, input.order_uuid);
    amount ??= order.amount;
    currency ??= String(order.currency);
  }
  if (amount === null || currency === null) throw badRequest('Apple Pay tokens carry the amount the customer approved: give order_uuid, or amount and currency');
  const numeric = currencyNumeric(currency);
  if (!numeric) throw badRequest('currency must be an ISO 4217 code (EUR or 978)');
  const root = await deps.appleRoot();
  const transactionId = newTransactionId();
  const token = sealApplePayToken({
    leafCertificate: root.leafCertificate,
    leafKey: privateKeyOf(root.leafKey),
    intermediateCertificate: root.intermediateCertificate,
    merchantCertificate: key.certificate_pem!,
    payment: { pan, expiration: `${String(year % 100).padStart(2, '0')}${String(month).padStart(2, '0')}${String(lastDay(year, month)).padStart(2, '0')}`, currencyCode: numeric, amount, cryptogram: sandboxCryptogram(), eciIndicator: '07' },
    transactionId,
    signingTime: now,
  });
  return { wallet: 'APPLEPAY', payload: JSON.stringify(token), token_id: transactionId, auth_method: null };
}

/** A cryptogram in the shape networks use (20 bytes, base64); random, meaningless outside the sandbox. */
function sandboxCryptogram(): string {
  return createHash('sha256').update(randomUUID()).digest().subarray(0, 20).toString('base64');
}

function lastDay(year: number, month: number): number {
  return new Date(Date.UTC(year, month, 0)).getUTCDate();
}

function currencyNumeric(code: string): string | null {
  const c = currencyFrom(code);
  return c ? String(c.number).padStart(3, '0') : null;
}
