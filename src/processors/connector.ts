/**
 * The one interface every processor connector implements (design.md principle 6).
 *
 * A connector turns our operations into a processor's protocol and back. Requests and results here are
 * processor-neutral; the mapping of each connector is pure and kept apart from its IO. A connector never
 * throws for a business outcome: declines, challenges and "no answer" are results. It throws only for
 * programming errors.
 *
 * `UNKNOWN` means the processor may or may not have done the operation (timeout, connection lost): the
 * caller leaves its transaction PENDING and the reconciler settles it later with `lookup`.
 */
import type { Secret } from '../platform/security/secret.js';
import type { ApmKind, VoucherFormat } from './apms.js';

/** Transaction error codes of decisions §4. */
export const TX_ERRORS = [
  'NONE',
  'DENIED',
  'INSUFFICIENT_FUNDS',
  'EXPIRED_CARD',
  'INVALID_CARD',
  'AUTHENTICATION_FAILED',
  'FRAUD_SUSPECTED',
  'BLACKLISTED',
  'PROCESSOR_ERROR',
  'TIMEOUT',
] as const;
export type TxError = (typeof TX_ERRORS)[number];

/** Every operation a connector offers. */
export const PROCESSOR_OPERATIONS = [
  'authorize',
  'partialAuthorize',
  'preauthorize',
  'capture',
  'cancel',
  'refund',
  'payout',
  'lookup',
  'authenticate',
  'verifyCard',
  'verifyHolder',
  'apmPayment',
  'apmStart',
  'apmComplete',
  'apmPayout',
] as const;
export type ProcessorOperation = (typeof PROCESSOR_OPERATIONS)[number];

/** Card data as it travels to a processor: PAN and CVV only as secrets. */
export interface CardData {
  pan: Secret<string>;
  expiryMonth: number;
  /** Four digits. */
  expiryYear: number;
  /** Used once and dropped; never stored. */
  cvv?: Secret<string> | null;
  holder?: string | null;
}

/** Result of a 3-D Secure authentication (ours, or an external MPI's `threeds_data`). */
export interface ThreeDSResult {
  version: string;
  /** EMV 3DS transStatus: Y (authenticated), A (attempted), I (exemption acknowledged, not authenticated), N, U, R, C. */
  transStatus: string;
  eci: string | null;
  cavv: string | null;
  dsTransId: string | null;
}

/** Network token (wallet / token service) cryptogram. */
export interface DpanData {
  cryptogram: string;
  eci: string | null;
}

/** Processor-neutral description of the terminal a request goes through. */
export interface TerminalRef {
  serviceType: string;
  terminalId: string | null;
  /** The service the request goes through (real connectors find its terminal and credentials). */
  serviceId?: string | null;
  /** Opened terminal credentials, for real connectors (the simulator ignores them). */
  credentials?: Record<string, string> | null;
}

interface Base {
  /** Our id of the operation (the transaction uuid); processors keep it for `lookup`. */
  reference: string;
  terminal: TerminalRef;
  /** Now, on the merchant's clock (card expiry and similar checks). */
  now: Date;
}

/** How a payment terminal read the card, and whether the cardholder entered a PIN (EMV cardholder verification). */
export interface TerminalRead {
  readingMethod: 'KEY_ENTRY' | 'BAR_CODE' | 'MAGNETIC_STRIPE' | 'ICC' | 'NFC' | null;
  /** An online PIN block came with the card (it is verified by the issuer; the gateway never keeps it). */
  pinEntered: boolean;
}

/**
 * What the issuer asks the terminal to do before it can approve a card-present payment (strong customer
 * authentication on the terminal): ask for the PIN, or have the card inserted (chip) instead of tapped.
 */
export const TERMINAL_ACTIONS = ['REQUEST_PIN', 'SWITCH_INTERFACE'] as const;
export type TerminalAction = (typeof TERMINAL_ACTIONS)[number];

/** A customer- or merchant-initiated card payment (authorize, partial authorize, pre-authorize). */
export interface PaymentRequest extends Base {
  amount: number;
  /** ISO 4217 alpha-3. */
  currency: string;
  card: CardData;
  /** 3DS result when the payment went through authentication. */
  threeds?: ThreeDSResult | null;
  dpan?: DpanData | null;
  /** MoTo payments are exempt from SCA. */
  channel: 'ECOMMERCE' | 'MOTO' | 'MIT' | 'CARD_PRESENT';
  customerIp?: string | null;
  cofTxnid?: string | null;
  /**
   * This payment's card is being stored for later use: the customer-initiated payment that sets up a
   * stored credential (later payments, merchant-initiated ones included, refer to it). Processors flag it
   * to the card schemes (Checkout.com `source.store_for_future_use`). Absent: false.
   */
  storeCredential?: boolean;
  /**
   * What kind of merchant-initiated payment this is (`channel: 'MIT'`): one of a series at fixed
   * intervals agreed with the cardholder (RECURRING: a subscription's charges, the first one included),
   * an instalment of one purchase (INSTALMENT), or a charge at no fixed time (UNSCHEDULED: batch charges,
   * top-ups). Absent or null: UNSCHEDULED. Ignored for the other channels.
   */
  mit?: 'RECURRING' | 'UNSCHEDULED' | 'INSTALMENT' | null;
  /**
   * The card comes from the merchant's stored cards (a stored credential used again, by the customer or
   * the merchant), not typed or read for this payment. Processors flag it (Checkout.com `source.stored`).
   */
  storedCard?: boolean;
  dynamicDescriptor?: string | null;
  /**
   * Dynamic currency conversion offered to the cardholder on the hosted page, and their choice. The
   * order's `amount` and `currency` stay what the merchant is credited; when `accepted`, the cardholder
   * is charged `dcc.amount` of `dcc.currency` (the processor presents the conversion to the networks).
   */
  dcc?: DccData | null;
  /** CARD_PRESENT: how the terminal read the card. */
  cardPresent?: TerminalRead | null;
}

/** A conversion the cardholder was offered (processor-neutral). */
export interface DccData {
  accepted: boolean;
  /** The card's currency, ISO 4217 alpha-3. */
  currency: string;
  /** Minor units of the card's currency. */
  amount: number;
  /** Applied rate (order currency to card currency, margin included), a decimal string. */
  rate: string;
  /** Margin over the reference rate, percent, a decimal string. */
  markup: string;
  /** Who quoted the rate. */
  source: string;
}

/** An operation on an earlier approved payment: capture, cancel, refund. */
export interface FollowUpRequest extends Base {
  amount: number;
  currency: string;
  /** The approved payment it refers to. */
  original: { reference: string; processorId: string | null; authorization: string };
}

export interface PayoutRequest extends Base {
  amount: number;
  currency: string;
  card: CardData;
}

export interface LookupRequest {
  /** The reference of the operation to look up. */
  reference: string;
  operation: ProcessorOperation;
  terminal: TerminalRef;
}

export interface AuthenticateRequest extends Base {
  amount: number;
  currency: string;
  card: CardData;
  /**
   * The cardholder's answer in the ACS challenge, when the challenge page is the simulator's own
   * (sandbox ACS with approve / fail buttons). Real connectors ask their 3DS server instead.
   */
  challenge?: 'APPROVED' | 'FAILED' | null;
  /**
   * The first message (EMV 3DS AReq) before any challenge: the ACS authenticates frictionlessly, or asks
   * for a challenge (`CHALLENGE_REQUIRED`). `exemption` asks for no challenge under an exemption from
   * strong customer authentication (e.g. LOW_VALUE); an ACS that accepts it answers transStatus `I`.
   */
  initial?: boolean;
  exemption?: string | null;
}

/** Alternative payment methods a connector may offer through `apmPayment`. */
export const APM_METHODS = ['BIZUM'] as const;
export type ApmMethod = (typeof APM_METHODS)[number];

/** A payment with an alternative payment method (Bizum: the customer's phone number). */
export interface ApmPaymentRequest extends Base {
  amount: number;
  currency: string;
  apm: ApmMethod;
  /** Bizum: the phone number of the paying account, national digits (e.g. 700000000). */
  phone: string;
}

/** Starts a payment with an APM of any kind (redirect, push, voucher); it completes later. */
export interface ApmStartRequest extends Base {
  amount: number;
  currency: string;
  /** An APM value of the catalogue (apms.ts). */
  apm: string;
  kind: ApmKind;
  /** Push APMs: the customer's phone, national digits. */
  phone?: string | null;
  /** The order's description (the concept of a bank transfer). */
  description: string;
  /** Redirect APMs: where the provider sends the customer back. */
  returnUrl?: string | null;
}

/** The data a customer needs to pay a voucher, as the provider issued it. */
export interface ApmVoucher {
  format: VoucherFormat;
  /** Multibanco: the entity (5 digits). */
  entity?: string;
  /** The payment reference (Multibanco, Payshop, Efecty, Servipag; SPEI and transfers: the reference to quote). */
  reference?: string;
  /** Boleto, Lotérica, Pago Fácil, viacash: the digits of the barcode (Interleaved 2 of 5). */
  barcode?: string;
  /** PIX, PicPay: the payload of the QR code (EMV "copia e cola"). */
  qr_code?: string;
  /** SPEI: the 18-digit CLABE to transfer to. */
  clabe?: string;
  /** Bank transfer: the account to transfer to and the concept to quote. */
  iban?: string;
  bic?: string;
  beneficiary?: string;
  concept?: string;
  /** The amount to pay, in minor units, and its currency. */
  amount: number;
  currency: string;
  /** Until when it can be paid (ISO 8601, UTC). */
  expires_at: string;
}

export type ApmStartResult =
  /**
   * The provider took the payment; it completes when the customer acts. `redirectUrl`: redirect APMs,
   * where the customer approves (null: the sandbox bank page of the order). `voucher`: voucher APMs.
   * `expiresAt`: after it, an unfinished payment is refused.
   */
  | {
      outcome: 'PENDING';
      processorId: string;
      redirectUrl: string | null;
      voucher: ApmVoucher | null;
      expiresAt: Date;
    }
  | { outcome: 'DECLINED'; error: Exclude<TxError, 'NONE'>; details: string; processorId: string | null }
  | { outcome: 'UNKNOWN'; details: string };

/**
 * A payout (credit) with an APM that supports payouts (apms.ts `payout`): to a phone (push APMs) or to a
 * bank account (bank transfer). It settles at once, like a card payout.
 */
export interface ApmPayoutRequest extends Base {
  amount: number;
  currency: string;
  apm: string;
  kind: ApmKind;
  /** Push APMs: the phone of the receiving account, national digits. */
  phone?: string | null;
  /** Bank transfer: the receiving account. */
  iban?: Secret<string> | null;
  /** The receiving account's holder. */
  holder?: string | null;
  /** The order's description (the concept of a transfer). */
  description: string;
}

/**
 * The customer's action on a started APM payment, as the provider reports it (a real provider by its
 * webhook; the sandbox provider through its bank page, phone and voucher endpoint).
 */
export interface ApmCompleteRequest extends Base {
  amount: number;
  currency: string;
  apm: string;
  processorId: string | null;
  action: 'PAID' | 'REFUSED';
}

export interface VerifyCardRequest extends Base {
  currency: string;
  card: CardData;
}

/** Holder data to compare with the holder known for a card or account. */
export interface HolderInput {
  name?: string | null;
  first_name?: string | null;
  last_name?: string | null;
  [key: string]: unknown;
}

export interface VerifyHolderRequest extends Base {
  /** The holder name on file for the card/account. */
  registeredHolder: string;
  holder: HolderInput;
}

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
  /** No answer: the operation may have happened. Settle later with `lookup`. */
  | { outcome: 'UNKNOWN'; details: string };

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

/** A processor connector. */
export interface Connector {
  readonly name: string;
  /** Authorize and capture at once (operative AUTHORIZATION). */
  authorize(req: PaymentRequest): Promise<ProcessorResult>;
  /** Authorize, accepting a lower approved amount (operative PARTIAL_AUTHORIZATION). */
  partialAuthorize(req: PaymentRequest): Promise<ProcessorResult>;
  /** Hold funds to capture later (operative DEFERRED). */
  preauthorize(req: PaymentRequest): Promise<ProcessorResult>;
  /** Capture (all or part of) a pre-authorization. */
  capture(req: FollowUpRequest): Promise<ProcessorResult>;
  /** Release a pre-authorization. */
  cancel(req: FollowUpRequest): Promise<ProcessorResult>;
  /** Give back (all or part of) a captured payment. */
  refund(req: FollowUpRequest): Promise<ProcessorResult>;
  /** Credit funds to a card. */
  payout(req: PayoutRequest): Promise<ProcessorResult>;
  /** The final result of an earlier operation, by our reference. */
  lookup(req: LookupRequest): Promise<LookupResult>;
  /** 3-D Secure authentication of the cardholder. */
  authenticate(req: AuthenticateRequest): Promise<AuthenticationResult>;
  /** Account verification: zero-amount check that the card exists and can be charged (CVV optional). */
  verifyCard(req: VerifyCardRequest): Promise<VerifyCardResult>;
  /** Compares a given holder with the holder the issuer knows. */
  verifyHolder(req: VerifyHolderRequest): Promise<VerifyHolderResult>;
  /** A payment with an alternative payment method (Bizum); absent when the connector offers none. */
  apmPayment?(req: ApmPaymentRequest): Promise<ProcessorResult>;
  /** Starts a payment with an APM of any kind; absent when the connector offers none. */
  apmStart?(req: ApmStartRequest): Promise<ApmStartResult>;
  /** The final result of a started APM payment, once the customer acted. */
  apmComplete?(req: ApmCompleteRequest): Promise<ProcessorResult>;
  /** A payout with an APM (to a phone or a bank account); absent when the connector offers none. */
  apmPayout?(req: ApmPayoutRequest): Promise<ProcessorResult>;
  /** Acquirer-side 3-D Secure (the acquirer authenticates and authorizes); absent: `authenticate` is used. */
  threeds?: AcquirerThreeDS;
  /** Signed notifications of the processor (absent: it sends none the gateway reads). */
  notification?: NotifyingConnector['notification'];
  /**
   * Redirect APMs whose provider page expects a form POST: the form the customer's browser posts for a
   * started payment (by our reference); null when there is none. The gateway's redirect page posts it.
   */
  apmRedirectForm?(reference: string): Promise<ProviderForm | null>;
  /**
   * The acquirer's settlement report of a day for a terminal, in paygate's settlement layout (for
   * reconciliation: docs/reconciliation.md); absent when the provider offers none through an API (its
   * reports are imported as files).
   */
  settlementReport?(req: SettlementReportRequest): Promise<SettlementReportResult>;
  /**
   * The provider's dispute API (docs/disputes.md "Connectors"): evidence sent and submitted, a dispute
   * accepted. Its webhooks about disputes come through `notification` (outcome DISPUTE). Absent when the
   * provider has none (disputes are entered by hand or imported).
   */
  disputes?: DisputeApi;
}

/** What a provider says a dispute is now (a verified webhook, or its dispute API). */
export interface DisputeNotice {
  /** Our reference of the disputed payment (the transaction uuid the connector sent). */
  reference: string;
  /** The provider's id of the dispute. */
  providerId: string;
  /** Our status and stage of what the provider says. */
  status: 'NEEDS_RESPONSE' | 'UNDER_REVIEW' | 'WON' | 'LOST' | 'ACCEPTED' | 'EXPIRED';
  stage: 'RETRIEVAL' | 'CHARGEBACK' | 'PRE_ARBITRATION' | 'ARBITRATION';
  category: 'FRAUD' | 'PRODUCT_NOT_RECEIVED' | 'PRODUCT_UNACCEPTABLE' | 'DUPLICATE' | 'CREDIT_NOT_PROCESSED' | 'SUBSCRIPTION_CANCELLED' | 'PROCESSING_ERROR' | 'AUTHORIZATION' | 'GENERAL';
  reasonCode: string;
  /** Minor units of `currency`. */
  amount: number;
  currency: string;
  /** The response deadline the provider gives; null when it gives none. */
  dueAt: Date | null;
  /** The provider's own words (status, event), for the dispute's history. */
  detail: string;
}

/** Evidence as the gateway keeps it: text by our field names, documents with their bytes. */
export interface DisputeEvidence {
  fields: Record<string, string>;
  /** `field`: the evidence field a document supports, when the merchant named one. */
  documents: Array<{ filename: string; contentType: string; content: Buffer; field: string | null }>;
}

export type DisputeActionResult =
  | { outcome: 'DONE'; details: string }
  /** The provider refused it (the dispute is not in a state that takes it, an unknown dispute): nothing changed there. */
  | { outcome: 'REFUSED'; details: string }
  /** No answer, or one that cannot be read: it may or may not have been done. */
  | { outcome: 'UNKNOWN'; details: string };

export interface DisputeApi {
  /** Sends the evidence and submits it (one step for the merchant). */
  submitEvidence(req: { terminal: TerminalRef; providerId: string; evidence: DisputeEvidence }): Promise<DisputeActionResult>;
  /** Accepts the dispute (the merchant accepts the loss). */
  accept(req: { terminal: TerminalRef; providerId: string }): Promise<DisputeActionResult>;
}

/**
 * The form the customer's browser sends to a provider's page: posted (Redsys's signed fields), or a GET
 * whose fields are the page's query (PayPal's approval page). `apm`: the method's name for the page's
 * title (absent: Bizum).
 */
export interface ProviderForm {
  url: string;
  fields: Record<string, string>;
  method?: 'get' | 'post';
  apm?: string;
}

/** What a processor's signed notification said about an operation we sent. */
export type NotificationResult = (
  /** `reference`: our operation (the transaction); `result`: its final outcome, verified. */
  | { outcome: 'SETTLE'; reference: string; result: SettledResult }
  /** A verified notification about a dispute of our payment `notice.reference`. */
  | { outcome: 'DISPUTE'; notice: DisputeNotice }
  /** Not for us, not verifiable, or nothing final: nothing to do (the reason is logged). */
  | { outcome: 'IGNORED'; reason: string }
) & {
  /**
   * The JSON body the processor expects in the 200 answer to its notification once it was received
   * (SIBS: `{statusCode, statusMsg, notificationID}`, without which it sends it again); absent: the
   * webhook route answers its usual page.
   */
  acknowledgement?: Record<string, unknown>;
};

/** Connectors whose processor sends signed notifications of operations' outcomes (webhooks). */
export interface NotifyingConnector {
  /** Verifies a notification (its form or JSON fields as received) and says what it settles. */
  notification(fields: Record<string, string>): Promise<NotificationResult>;
}

/** Thrown by a connector (or the deadline around it) when no answer came in time. */
export class ProcessorTimeoutError extends Error {
  constructor(message = 'the processor did not answer in time') {
    super(message);
    this.name = 'ProcessorTimeoutError';
  }
}
