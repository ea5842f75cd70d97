/**
 * B14: paying an order with the card of a wallet token (Google Pay, Apple Pay) that the wallets module
 * verified and decrypted. The card is never stored: it is used for this payment only.
 *
 *  - a cryptogram (Google Pay CRYPTOGRAM_3DS, Apple Pay): the device authenticated the cardholder; the
 *    payment goes to the processor with the cryptogram and ECI (network token data) and is recorded as
 *    authenticated (`safe`, `threeds_data.flow` WALLET);
 *  - no cryptogram (Google Pay PAN_ONLY): the cardholder goes through 3-D Secure first (the answer is
 *    303 to the tokenized 3DS page, as B3 and B10 do); the card is kept sealed for the challenge's few
 *    minutes and dropped when the payment settles.
 */
import type { RequestContext } from '../../../platform/http/types.js';
import type { Secret } from '../../../platform/security/secret.js';
import type { DpanData } from '../../../processors/index.js';
import type { OrderResult, PayInput, PaymentsCore, WalletUse } from '../core.js';
import { payOwned } from './pay.js';

export interface WalletPayment extends WalletUse {
  card: { pan: Secret<string>; expMonth: number; expYear: number };
  /** The wallet's cryptogram and ECI; null for a Google Pay PAN_ONLY token. */
  dpan: DpanData | null;
  customerIp: string | null;
  /** Records the token as used, in the transaction that starts the payment (see PayInput.claim). */
  claim: NonNullable<PayInput['claim']>;
}

const HOLDER: Record<WalletUse['wallet'], string> = { GOOGLE_PAY: 'Google Pay', APPLE_PAY: 'Apple Pay' };


export function payWallet(core: PaymentsCore, ctx: RequestContext, orderUuid: string, w: WalletPayment): Promise<OrderResult> {
  const input: PayInput = {
    channel: 'ECOMMERCE',
    card: { kind: 'card', holder: HOLDER[w.wallet], pan: w.card.pan, expMonth: w.card.expMonth, expYear: w.card.expYear, additional: null, origin: w.wallet, store: false },
    customerIp: w.customerIp,
    wallet: { wallet: w.wallet, flow: w.flow },
    claim: w.claim,
    ...(w.dpan ? { dpan: w.dpan } : { keepCardFor3ds: true, force3ds: true }),
  };
  return payOwned(core, ctx, orderUuid, () => input);
}
