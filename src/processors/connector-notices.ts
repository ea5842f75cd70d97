/** What a provider tells on its own (connector.ts): disputes and their API, provider forms, signed notifications. */
import type { TerminalRef } from './connector-requests.js';
import type { SettledResult } from './connector-results.js';

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
