/**
 * Redsys answer codes and our transaction errors (pure).
 *
 * `Ds_Response` is a number of up to 4 digits: 0000–0099 approve a payment or pre-authorization, 0900 a
 * refund or confirmation, 0400 a cancellation; 9998 and 9999 say the operation is still in progress
 * (no decision yet: it stays PENDING until Redsys's notification or query service decides it);
 * everything else is a refusal, whose reason we keep in `error_details` with the code. `SIS0xxx` codes
 * are protocol errors (in `errorCode`, or as `Ds_Response` 9xxx for the same number); `XML0xxx` are
 * errors of the query service. Every meaning below is Redsys's published one (see the tables).
 */
import type { TxError } from '../connector.js';

export type Refusal = { error: Exclude<TxError, 'NONE'>; details: string };

/**
 * Refusal codes, each checked against Redsys's published table of `Ds_Response` values (its "códigos
 * de respuesta"; redsys-easy's `error-codes.ts` is a machine-readable copy) or, for the issuer codes
 * Redsys's current table leaves out, against ActiveMerchant's Redsys `RESPONSE_TEXTS`
 * (test/unit/redsys-codes.test.ts holds each code to its published meaning).
 */
const RESPONSE_REFUSALS: Record<number, Refusal> = {
  101: { error: 'EXPIRED_CARD', details: 'expired card' },
  102: { error: 'FRAUD_SUSPECTED', details: 'card under a temporary exception or suspected of fraud' },
  104: { error: 'DENIED', details: 'operation not allowed for this card or terminal' },
  106: { error: 'DENIED', details: 'card blocked: too many wrong PIN entries' },
  107: { error: 'DENIED', details: 'contact the card issuer' },
  109: { error: 'PROCESSOR_ERROR', details: 'invalid merchant or terminal identification' },
  110: { error: 'DENIED', details: 'invalid amount' },
  114: { error: 'DENIED', details: 'the card does not support this operation' },
  116: { error: 'INSUFFICIENT_FUNDS', details: 'insufficient funds' },
  118: { error: 'INVALID_CARD', details: 'card not registered' },
  125: { error: 'INVALID_CARD', details: 'card not effective' },
  129: { error: 'DENIED', details: 'wrong CVV (security code)' },
  167: { error: 'FRAUD_SUSPECTED', details: 'contact the card issuer: suspected fraud' },
  172: { error: 'DENIED', details: 'declined, do not retry' },
  173: { error: 'DENIED', details: 'declined, do not retry without updating the card data' },
  174: { error: 'DENIED', details: 'declined, do not retry before 72 hours' },
  180: { error: 'INVALID_CARD', details: 'card not valid for this service' },
  181: { error: 'DENIED', details: 'card with credit restrictions' },
  182: { error: 'DENIED', details: 'card with debit restrictions' },
  184: { error: 'AUTHENTICATION_FAILED', details: 'the cardholder was not authenticated' },
  190: { error: 'DENIED', details: 'declined by the issuer without a reason' },
  191: { error: 'INVALID_CARD', details: 'wrong expiry date' },
  195: { error: 'AUTHENTICATION_FAILED', details: 'strong customer authentication required (soft decline)' },
  201: { error: 'EXPIRED_CARD', details: 'expired card (retain card)' },
  202: { error: 'FRAUD_SUSPECTED', details: 'card under a temporary exception or suspected of fraud (retain card)' },
  204: { error: 'DENIED', details: 'operation not allowed (retain card)' },
  207: { error: 'DENIED', details: 'contact the card issuer (retain card)' },
  208: { error: 'FRAUD_SUSPECTED', details: 'card reported lost or stolen' },
  209: { error: 'FRAUD_SUSPECTED', details: 'card reported lost or stolen' },
  280: { error: 'DENIED', details: 'wrong CVV (security code) (retain card)' },
  290: { error: 'DENIED', details: 'declined by the issuer without a reason (retain card)' },
  904: { error: 'PROCESSOR_ERROR', details: 'a problem with the merchant\'s configuration at Redsys' },
  909: { error: 'PROCESSOR_ERROR', details: 'system error at Redsys' },
  912: { error: 'PROCESSOR_ERROR', details: 'issuer unavailable' },
  913: { error: 'PROCESSOR_ERROR', details: 'duplicate order number' },
  944: { error: 'PROCESSOR_ERROR', details: 'wrong session' },
  950: { error: 'DENIED', details: 'refund not allowed' },
  9912: { error: 'PROCESSOR_ERROR', details: 'the operation had a problem and is cancelled automatically' },
  9915: { error: 'DENIED', details: 'the customer cancelled the payment' },
  9997: { error: 'PROCESSOR_ERROR', details: 'another payment with the same card is in flight' },
};

/**
 * `Ds_Response` values that are no decision: the operation is in progress at Redsys (the customer is
 * giving the card's data on Redsys's page, or is at the issuer authenticating). The operation stays
 * PENDING; Redsys's notification or its query service gives the result later.
 */
const IN_PROGRESS: Record<number, string> = {
  9998: 'operation in progress: the card\'s data are being requested',
  9999: 'operation in progress: sent to the issuer to authenticate the cardholder',
};

/**
 * SIS protocol errors worth a precise explanation (the others are named by their code), each checked
 * against Redsys's published table of SIS errors (test/unit/redsys-codes.test.ts).
 */
const SIS_REFUSALS: Record<string, Refusal> = {
  SIS0007: { error: 'PROCESSOR_ERROR', details: 'the message sent to Redsys is not correct' },
  SIS0008: { error: 'PROCESSOR_ERROR', details: 'the merchant code (Ds_Merchant_MerchantCode) is missing' },
  SIS0009: { error: 'PROCESSOR_ERROR', details: 'format error in the merchant code (Ds_Merchant_MerchantCode)' },
  SIS0010: { error: 'PROCESSOR_ERROR', details: 'the terminal (Ds_Merchant_Terminal) is missing' },
  SIS0011: { error: 'PROCESSOR_ERROR', details: 'format error in the terminal (Ds_Merchant_Terminal)' },
  SIS0015: { error: 'PROCESSOR_ERROR', details: 'the currency (Ds_Merchant_Currency) is missing' },
  SIS0016: { error: 'PROCESSOR_ERROR', details: 'format error in the currency (Ds_Merchant_Currency)' },
  SIS0018: { error: 'PROCESSOR_ERROR', details: 'the amount (Ds_Merchant_Amount) is missing' },
  SIS0022: { error: 'PROCESSOR_ERROR', details: 'format error in the transaction type (Ds_Merchant_TransactionType)' },
  SIS0023: { error: 'PROCESSOR_ERROR', details: 'unknown transaction type (Ds_Merchant_TransactionType)' },
  SIS0026: { error: 'PROCESSOR_ERROR', details: 'unknown merchant code (FUC) or terminal' },
  SIS0027: { error: 'PROCESSOR_ERROR', details: 'the currency does not match the terminal' },
  SIS0028: { error: 'PROCESSOR_ERROR', details: 'the merchant or terminal is deactivated' },
  SIS0040: { error: 'PROCESSOR_ERROR', details: 'the terminal has no payment method' },
  SIS0041: { error: 'PROCESSOR_ERROR', details: 'signature error: check the terminal key' },
  SIS0042: { error: 'PROCESSOR_ERROR', details: 'signature error: check the terminal key and the signature version' },
  SIS0051: { error: 'PROCESSOR_ERROR', details: 'duplicate order number' },
  SIS0054: { error: 'PROCESSOR_ERROR', details: 'no payment to refund under this order number' },
  SIS0055: { error: 'PROCESSOR_ERROR', details: 'more than one payment under this order number' },
  SIS0056: { error: 'PROCESSOR_ERROR', details: 'the payment to refund is not authorized' },
  SIS0057: { error: 'PROCESSOR_ERROR', details: 'the refund exceeds the amount that can be refunded' },
  SIS0059: { error: 'PROCESSOR_ERROR', details: 'no pre-authorization to confirm under this order number' },
  SIS0060: { error: 'PROCESSOR_ERROR', details: 'the pre-authorization is already confirmed' },
  SIS0061: { error: 'PROCESSOR_ERROR', details: 'the pre-authorization to confirm is not authorized' },
  SIS0062: { error: 'PROCESSOR_ERROR', details: 'the confirmation exceeds the pre-authorized amount' },
  SIS0063: { error: 'INVALID_CARD', details: 'invalid card number' },
  SIS0064: { error: 'INVALID_CARD', details: 'wrong card number length' },
  SIS0065: { error: 'INVALID_CARD', details: 'the card number is not numeric' },
  SIS0066: { error: 'INVALID_CARD', details: 'wrong expiry month' },
  SIS0069: { error: 'INVALID_CARD', details: 'wrong expiry year' },
  SIS0071: { error: 'EXPIRED_CARD', details: 'expired card' },
  SIS0072: { error: 'PROCESSOR_ERROR', details: 'the operation cannot be cancelled' },
  SIS0074: { error: 'PROCESSOR_ERROR', details: 'the order number (Ds_Merchant_Order) is missing' },
  SIS0075: { error: 'PROCESSOR_ERROR', details: 'the order number (Ds_Merchant_Order) has fewer than 4 or more than 12 characters' },
  SIS0078: { error: 'DENIED', details: 'operation not allowed for this card' },
  SIS0081: { error: 'PROCESSOR_ERROR', details: 'the session data were lost' },
  SIS0093: { error: 'DENIED', details: 'declined by the issuer' },
  SIS0094: { error: 'DENIED', details: 'declined by the issuer' },
  SIS0218: { error: 'PROCESSOR_ERROR', details: 'the merchant only allows secure operations and a non-secure operation was sent host to host' },
  SIS0222: { error: 'PROCESSOR_ERROR', details: 'the pre-authorization is already cancelled' },
  SIS0223: { error: 'PROCESSOR_ERROR', details: 'the pre-authorization to cancel is not authorized' },
  SIS0225: { error: 'PROCESSOR_ERROR', details: 'no operation to cancel under this order number' },
  SIS0252: { error: 'DENIED', details: 'the merchant\'s configuration does not allow sending the card' },
  SIS0253: { error: 'INVALID_CARD', details: 'the card does not pass the check digit (Luhn)' },
  SIS0256: { error: 'PROCESSOR_ERROR', details: 'the merchant cannot do pre-authorizations' },
  SIS0257: { error: 'DENIED', details: 'the card does not allow pre-authorizations' },
  SIS0261: { error: 'DENIED', details: 'refused by the acquirer\'s restriction limits' },
  SIS0274: { error: 'PROCESSOR_ERROR', details: 'unknown or unaccepted type of operation' },
  SIS0292: { error: 'FRAUD_SUSPECTED', details: 'blocked by Redsys\'s security controls' },
  SIS0429: { error: 'PROCESSOR_ERROR', details: 'signature version error (Ds_SignatureVersion)' },
  SIS0430: { error: 'PROCESSOR_ERROR', details: 'Ds_MerchantParameters could not be decoded' },
  SIS0431: { error: 'PROCESSOR_ERROR', details: 'the JSON object in Ds_MerchantParameters is not correct' },
  SIS0432: { error: 'PROCESSOR_ERROR', details: 'wrong merchant code (FUC)' },
  SIS0493: { error: 'PROCESSOR_ERROR', details: 'external 3-D Secure (MPI) data in a non-secure operation' },
  SIS0571: { error: 'PROCESSOR_ERROR', details: '3-D Secure authentication refused: protocolVersion is missing' },
  SIS0573: { error: 'PROCESSOR_ERROR', details: '3-D Secure authentication refused: browserAcceptHeader is missing' },
  SIS0574: { error: 'PROCESSOR_ERROR', details: '3-D Secure authentication refused: browserUserAgent is missing' },
  SIS0575: { error: 'PROCESSOR_ERROR', details: '3-D Secure authentication refused: browserJavaEnabled is missing' },
  SIS0576: { error: 'PROCESSOR_ERROR', details: '3-D Secure authentication refused: browserLanguage is missing' },
  SIS0577: { error: 'PROCESSOR_ERROR', details: '3-D Secure authentication refused: browserColorDepth is missing' },
  SIS0578: { error: 'PROCESSOR_ERROR', details: '3-D Secure authentication refused: browserScreenHeight is missing' },
  SIS0579: { error: 'PROCESSOR_ERROR', details: '3-D Secure authentication refused: browserScreenWidth is missing' },
  SIS0580: { error: 'PROCESSOR_ERROR', details: '3-D Secure authentication refused: browserTZ is missing' },
  SIS0581: { error: 'PROCESSOR_ERROR', details: '3-D Secure authentication refused: the DS_MERCHANT_EMV3DS data are missing or not readable' },
  SIS0582: { error: 'PROCESSOR_ERROR', details: '3-D Secure authentication refused: threeDSServerTransID is missing' },
  SIS0583: { error: 'PROCESSOR_ERROR', details: '3-D Secure authentication refused: threeDSCompInd is missing' },
  SIS0584: { error: 'PROCESSOR_ERROR', details: '3-D Secure authentication refused: notificationURL is missing' },
  SIS0605: { error: 'PROCESSOR_ERROR', details: 'error in the external 3-D Secure data (DS_MERCHANT_MPIEXTERNAL)' },
  SIS0606: { error: 'PROCESSOR_ERROR', details: 'error in the MPI data of DS_MERCHANT_MPIEXTERNAL' },
  SIS0607: { error: 'PROCESSOR_ERROR', details: 'wrong TXID in DS_MERCHANT_MPIEXTERNAL' },
  SIS0608: { error: 'PROCESSOR_ERROR', details: 'wrong CAVV in DS_MERCHANT_MPIEXTERNAL' },
  SIS0609: { error: 'PROCESSOR_ERROR', details: 'wrong ECI in DS_MERCHANT_MPIEXTERNAL' },
  SIS0610: { error: 'PROCESSOR_ERROR', details: 'wrong threeDSServerTransID in DS_MERCHANT_MPIEXTERNAL' },
  SIS0611: { error: 'PROCESSOR_ERROR', details: 'wrong dsTransID in DS_MERCHANT_MPIEXTERNAL' },
  SIS0612: { error: 'PROCESSOR_ERROR', details: 'wrong authenticacionValue in DS_MERCHANT_MPIEXTERNAL' },
  SIS0613: { error: 'PROCESSOR_ERROR', details: 'wrong protocolVersion in DS_MERCHANT_MPIEXTERNAL' },
  SIS0614: { error: 'PROCESSOR_ERROR', details: 'wrong Eci in DS_MERCHANT_MPIEXTERNAL' },
  SIS0616: { error: 'PROCESSOR_ERROR', details: 'invalid SCA exemption (DS_MERCHANT_EXCEP_SCA) for this operation' },
  SIS0617: { error: 'PROCESSOR_ERROR', details: 'a merchant-initiated payment (EXCEP_SCA MIT) needs the stored-credential data (COF_TXNID)' },
  SIS0653: { error: 'PROCESSOR_ERROR', details: '3-D Secure authentication refused: browserJavascriptEnabled is missing' },
  SIS0802: { error: 'PROCESSOR_ERROR', details: 'wrong value of DS_MERCHANT_COF_TYPE' },
};

/** The code as Redsys writes it: 4 digits (`0101`), or SIS0xxx / XML0xxx. */
export function normaliseCode(raw: unknown): string | null {
  if (typeof raw === 'number' && Number.isInteger(raw) && raw >= 0) return String(raw).padStart(4, '0');
  if (typeof raw !== 'string') return null;
  const s = raw.trim();
  if (/^\d{1,4}$/.test(s)) return s.padStart(4, '0');
  if (/^(SIS|XML)\d{4}$/i.test(s)) return s.toUpperCase();
  return null;
}

/** The operation a `Ds_Response` answers, for its approval code. */
export type CodeKind = 'payment' | 'refund' | 'confirmation' | 'cancellation';

/** Whether `Ds_Response` approves an operation of this kind. */
export function isApproval(code: string, kind: CodeKind): boolean {
  if (!/^\d{4}$/.test(code)) return false;
  const n = Number(code);
  if (kind === 'payment') return n <= 99;
  if (kind === 'cancellation') return n === 400 || n === 900;
  return n === 900;
}

/**
 * Whether `Ds_Response` says the operation is still in progress (9998, 9999): its explanation, else
 * null. Not a decision: the operation stays PENDING.
 */
export function inProgress(code: string): string | null {
  if (!/^\d{4}$/.test(code)) return null;
  const what = IN_PROGRESS[Number(code)];
  return what ? `Redsys ${code}: ${what}` : null;
}

/** The soft decline: strong customer authentication is needed (authenticate, then send again). */
export const SOFT_DECLINE = '0195';

/**
 * Our error for a refusal code (`Ds_Response` other than an approval, a SIS or XML code), with a
 * clear explanation that names the code. Every code has one: unknown codes are DENIED (issuer codes)
 * or PROCESSOR_ERROR (protocol codes), named as such.
 */
export function refusalOf(code: string): Refusal {
  const sis = /^SIS(\d{4})$/.exec(code);
  if (sis) {
    const known = SIS_REFUSALS[code];
    return known ? { error: known.error, details: `Redsys ${code}: ${known.details}` } : { error: 'PROCESSOR_ERROR', details: `Redsys ${code}: protocol error` };
  }
  if (/^XML\d{4}$/.test(code)) return { error: 'PROCESSOR_ERROR', details: `Redsys ${code}: query service error` };
  if (!/^\d{4}$/.test(code)) return { error: 'PROCESSOR_ERROR', details: `Redsys: unreadable answer code "${code.slice(0, 20)}"` };
  const n = Number(code);
  const known = RESPONSE_REFUSALS[n];
  if (known) return { error: known.error, details: `Redsys ${code}: ${known.details}` };
  // asked of an operation in progress (a caller that needs a decision): named, never approved
  if (IN_PROGRESS[n]) return { error: 'PROCESSOR_ERROR', details: `Redsys ${code}: ${IN_PROGRESS[n]}` };
  // 9xxx is the SIS error of the same number (9042 = SIS0042)
  if (n >= 9000) {
    const asSis = `SIS0${code.slice(1)}`;
    const s = SIS_REFUSALS[asSis];
    return { error: s?.error ?? 'PROCESSOR_ERROR', details: `Redsys ${code} (${asSis}): ${s?.details ?? 'protocol error'}` };
  }
  if (n <= 99) return { error: 'PROCESSOR_ERROR', details: `Redsys ${code}: an approval code where a refusal was expected` };
  if (n >= 900) return { error: 'PROCESSOR_ERROR', details: `Redsys ${code}: acquirer error` };
  return { error: 'DENIED', details: `Redsys ${code}: declined by the issuer` };
}

/** Documented codes, for the "Going live" page and tests: every one of them maps. */
export const DOCUMENTED_RESPONSE_CODES: readonly number[] = Object.keys(RESPONSE_REFUSALS).map(Number);
export const DOCUMENTED_SIS_CODES: readonly string[] = Object.keys(SIS_REFUSALS);
export const IN_PROGRESS_CODES: readonly number[] = Object.keys(IN_PROGRESS).map(Number);

/** What a code means to us (tests and the "Going live" page): the refusal, or null (approval, in progress, unknown). */
export function documentedMeaning(code: string): Refusal | null {
  const sis = SIS_REFUSALS[code];
  if (sis) return sis;
  return /^\d{4}$/.test(code) ? RESPONSE_REFUSALS[Number(code)] ?? null : null;
}
