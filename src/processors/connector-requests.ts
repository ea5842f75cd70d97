/** What goes into a connector (connector.ts): the transaction errors, the operations, card data and the requests. */
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
