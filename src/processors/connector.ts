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
 *
 * The requests are in connector-requests.ts, the results in connector-results.ts, disputes and
 * notifications in connector-notices.ts; this file gathers them, so every import stays here.
 */
import type { AuthenticateRequest, ApmCompleteRequest, ApmPaymentRequest, ApmPayoutRequest, ApmStartRequest, ApmStartResult, FollowUpRequest, LookupRequest, PaymentRequest, PayoutRequest, VerifyCardRequest, VerifyHolderRequest } from './connector-requests.js';
import type { AcquirerThreeDS, AuthenticationResult, LookupResult, ProcessorResult, SettlementReportRequest, SettlementReportResult, VerifyCardResult, VerifyHolderResult } from './connector-results.js';
import type { DisputeApi, NotifyingConnector, ProviderForm } from './connector-notices.js';

export * from './connector-requests.js';
export * from './connector-results.js';
export * from './connector-notices.js';

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

/** Thrown by a connector (or the deadline around it) when no answer came in time. */
export class ProcessorTimeoutError extends Error {
  constructor(message = 'the processor did not answer in time') {
    super(message);
    this.name = 'ProcessorTimeoutError';
  }
}
