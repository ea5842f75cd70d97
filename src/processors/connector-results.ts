/** What comes out of a connector (connector.ts): results, acquirer-side 3-D Secure and the settlement report. */
import type { PaymentRequest, TerminalAction, TerminalRef, ThreeDSResult, TxError } from './connector-requests.js';

/** What a money operation came to. */
export type ProcessorResult =
  /** `cofTxnid`: the network transaction id of a stored credential, kept on the order (`cof_txnid`). */
  | { outcome: 'APPROVED'; authorization: string; processorId: string; amount: number; cofTxnid?: string | null }
  | { outcome: 'DECLINED'; error: Exclude<TxError, 'NONE'>; details: string; processorId: string | null }
  /**
   * Strong customer authentication is needed first (soft decline). Card-present payments carry the
   * `terminalAction` the terminal must take before it sends the payment again (SCA on the terminal);
   * the others go through 3-D Secure.
   */
  | { outcome: 'CHALLENGE'; details: string; terminalAction?: TerminalAction }
  /**
   * The processor accepted the operation but has not decided it yet (an asynchronous capture, void or
   * refund answered 202; a payment "in progress" at the issuer; a capture PENDING at the provider). The
   * transaction stays PENDING, never SUCCESS: the provider's notification or a `lookup` decides it
   * (decisions §13). `processorId`: the provider's id of the operation, when it gave one.
   */
  | { outcome: 'PENDING'; details: string; processorId: string | null }
  /**
   * No answer: the operation may have happened. Settle later with `lookup`. `notSent`: no request
   * reached the provider (the connection was refused before anything was sent): nothing can have
   * happened there.
   */
  | { outcome: 'UNKNOWN'; details: string; notSent?: true };

export type SettledResult = Exclude<ProcessorResult, { outcome: 'UNKNOWN' } | { outcome: 'CHALLENGE' } | { outcome: 'PENDING' }>;

export type LookupResult =
  /** The processor has the operation and its final result. */
  | { found: true; result: SettledResult }
  /** The processor never received it: it did not happen. */
  | { found: false }
  /** The processor could not be asked (try again later). */
  | { found: 'unknown'; details: string };

export type AuthenticationResult =
  | { outcome: 'AUTHENTICATED'; threeds: ThreeDSResult }
  /** Only for an `initial` request: the cardholder must go through the ACS challenge. */
  | { outcome: 'CHALLENGE_REQUIRED'; details: string }
  | { outcome: 'FAILED'; threeds: ThreeDSResult; details: string }
  | { outcome: 'UNKNOWN'; details: string };

export type VerifyCardResult =
  | { outcome: 'VERIFIED'; processorId: string }
  | { outcome: 'DECLINED'; error: Exclude<TxError, 'NONE'>; details: string }
  | { outcome: 'UNKNOWN'; details: string };

export type HolderMatch = 'MATCH' | 'PARTIAL_MATCH' | 'NO_MATCH';

export type VerifyHolderResult =
  | { outcome: 'DONE'; result: HolderMatch }
  | { outcome: 'UNKNOWN'; details: string };

/** What the cardholder's browser tells an issuer's 3-D Secure server (EMV 3DS browser data). */
export interface BrowserInfo {
  acceptHeader: string;
  userAgent: string;
  javaEnabled: boolean;
  javascriptEnabled: boolean;
  /** BCP 47 (`es-ES`). */
  language: string;
  colorDepth: number;
  screenHeight: number;
  screenWidth: number;
  /** Minutes between UTC and local time (JavaScript's getTimezoneOffset()). */
  tz: number;
}

/** The first step of acquirer-side 3-D Secure: run the issuer's 3DS method first, or authenticate now. */
export type ThreeDSStart =
  /** Post `data` as `threeDSMethodData` to `url` in a hidden frame; the issuer then posts to the method notification URL. */
  | { outcome: 'METHOD'; url: string; data: string }
  | { outcome: 'READY' }
  /** Refused, or no answer (the payment stays waiting for 3-D Secure). */
  | { outcome: 'DECLINED'; error: Exclude<TxError, 'NONE'>; details: string }
  | { outcome: 'UNKNOWN'; details: string };

/** A payment's result after acquirer-side authentication, or the ACS challenge to show first. */
export type ThreeDSPayment =
  /** The browser posts `creq` to `acsUrl`; the ACS posts `cres` back to the challenge notification URL. */
  /**
   * The browser goes to the issuer's challenge: it posts `creq` to `acsUrl` (EMV 3DS), or, with `method:
   * 'get'`, is sent to `acsUrl` as it is (a provider's own authentication page, PayPal's payer-action link).
   * `field`: the name the value is posted under when the challenge page names it otherwise (Worldpay's
   * challenge page takes its `JWT`); absent: `creq`.
   */
  | { outcome: 'ACS_CHALLENGE'; acsUrl: string; creq: string; method?: 'post' | 'get'; field?: 'creq' | 'JWT' }
  /** The payment's result; `threeds`: how the cardholder was authenticated (null when not known). */
  | { outcome: 'RESULT'; result: ProcessorResult; threeds: ThreeDSResult | null; flow: 'FRICTIONLESS' | 'CHALLENGE' };

/**
 * Acquirer-side EMV 3-D Secure 2: the acquirer runs the authentication and authorizes the payment in the
 * same exchange (card configuration, the 3DS method in the browser, authentication with the browser's
 * data, then frictionless approval or the ACS challenge, then the final call). The payment request is the
 * one the payment would be (`reference` the transaction). Connectors without it use `authenticate`.
 */
export interface AcquirerThreeDS {
  start(req: PaymentRequest & { preauthorization: boolean }, urls: { methodNotification: string }): Promise<ThreeDSStart>;
  authenticate(req: PaymentRequest & { preauthorization: boolean }, browser: BrowserInfo, urls: { challengeNotification: string }, methodCompleted: boolean | null): Promise<ThreeDSPayment>;
  /** The ACS's answer (`cres`, as the browser posted it) turns into the payment's result. */
  complete(req: PaymentRequest & { preauthorization: boolean }, cres: string): Promise<ThreeDSPayment>;
}

/**
 * One line of an acquirer's settlement report, in paygate's settlement layout (docs/reconciliation.md,
 * "The CSV layout"): what the acquirer settled for one operation, in minor units.
 */
export interface SettlementLine {
  type: 'PAYMENT' | 'REFUND' | 'PAYOUT' | 'CHARGEBACK' | 'ADJUSTMENT';
  /** The provider's id of the operation, as the connector answered it (`processorId` of its result). */
  processorId: string | null;
  /** Our reference of the operation as it was sent (the transaction uuid: `reference` of the request). */
  reference: string | null;
  /** The operation's amount, positive (an ADJUSTMENT may be negative). */
  amount: number;
  /** ISO 4217 alpha-3. */
  currency: string;
  /** When the operation was made and when the acquirer settled it (its payout's day): `YYYY-MM-DD`, UTC. */
  transactionDate: string;
  settlementDate: string;
  /** The acquirer's payout (batch) the line is paid in. */
  batch: string;
  /** Fees of the line, as the report gives them (0 when it gives none; negative for a rebate). */
  fees: { interchange: number; scheme: number; processing: number };
  /** What the line adds to its payout: the signed amount less the fees. */
  net: number;
}

/** The settlement report of a day: every operation the acquirer settled that day for one terminal. */
export interface SettlementReportRequest {
  /** `YYYY-MM-DD`: the day the operations were made (UTC). */
  day: string;
  terminal: TerminalRef;
}

export type SettlementReportResult =
  /** `acquirer`: the provider's name (the payouts of the report are the acquirer's batches). */
  | { outcome: 'REPORT'; acquirer: string; lines: SettlementLine[] }
  /** The provider has no report for the day yet (it is too early): ask again later. */
  | { outcome: 'NOT_READY'; details: string }
  /** The provider could not be asked. */
  | { outcome: 'UNKNOWN'; details: string };
