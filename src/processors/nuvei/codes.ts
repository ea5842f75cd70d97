/**
 * Nuvei decline reasons (pure): a declined transaction's `gwErrorReason` (the issuer's reason as Nuvei
 * words it, with `gwErrorCode` -1) → our transaction `error` (decisions §4). Nuvei's answers carry the
 * reason in words ("Decline", "Do Not Honor", "Insufficient Funds", "Expired Card", "Lost/Stolen",
 * "Invalid Card Number", "Suspected Fraud"...); `gwExtendedErrorCode` refines it. A transaction in ERROR
 * (Nuvei's or the gateway's fault, `gwErrorCode` other than -1) is PROCESSOR_ERROR. A decline asking for
 * strong customer authentication (the schemes' soft declines, Visa 1A / Mastercard 65: "Authentication
 * Required", "SCA Required") sends the payment on to 3-D Secure.
 */
import type { TxError } from '../connector.js';

export interface Refusal {
  error: Exclude<TxError, 'NONE'>;
  details: string;
}

/** Reasons that ask for strong customer authentication (the payment goes on with 3-D Secure). */
export function asksForAuthentication(reason: string | null): boolean {
  return !!reason && /authentication required|sca required|soft decline/i.test(reason);
}

/** Words of the reason (lower case, letters only) → our error. */
const REASONS: Array<[RegExp, Exclude<TxError, 'NONE'>]> = [
  [/insufficient|exceeds? (withdrawal|amount) limit|over limit/, 'INSUFFICIENT_FUNDS'],
  [/expired/, 'EXPIRED_CARD'],
  [/lost|stolen|pick ?up|restricted card|blocked/, 'BLACKLISTED'],
  [/fraud|security violation/, 'FRAUD_SUSPECTED'],
  [/invalid card|no such (card|issuer)|invalid account|card not supported|invalid issuer/, 'INVALID_CARD'],
  [/authentication|3d ?secure|sca required/, 'AUTHENTICATION_FAILED'],
];

/** What a declined transaction means for us (Nuvei's own words in the details); unknown reasons are DENIED. */
export function refusalOf(reason: string | null, code: number | null, extended: number | null): Refusal {
  const words = reason && reason.length <= 200 ? reason : 'Decline';
  const lower = words.toLowerCase();
  const error = REASONS.find(([re]) => re.test(lower))?.[1] ?? 'DENIED';
  const codes = [code, extended].filter((c) => c !== null && c !== 0).join('/');
  return { error, details: `Nuvei declined the transaction${codes ? ` (${codes})` : ''}: ${words}` };
}

/** A transaction in ERROR: Nuvei could not process it. */
export function errorOf(reason: string | null, code: number | null): Refusal {
  const words = reason && reason.length <= 200 ? reason : 'error';
  return { error: 'PROCESSOR_ERROR', details: `Nuvei could not process the transaction${code !== null ? ` (${code})` : ''}: ${words}` };
}
