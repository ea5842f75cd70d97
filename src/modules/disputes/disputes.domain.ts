/**
 * Pure rules of disputes (docs/disputes.md): the status lifecycle (ONE transition table), the stages, the
 * evidence a category asks for, what a document is (by its magic bytes) and the text of a PDF the card
 * guard reads, the import file's rows, what a dispute means for its order's money, and the schemes'
 * monitoring thresholds.
 */
import { inflateSync } from 'node:zlib';
import { AMOUNT_MAX } from '../../platform/http/schemas.js';
import { containsCardNumber } from '../../platform/security/card-numbers.js';
import { currencyFrom } from '../../platform/money/currency.js';

// ---- the lifecycle --------------------------------------------------------------------------------------

export const DISPUTE_STATUSES = ['NEEDS_RESPONSE', 'UNDER_REVIEW', 'WON', 'LOST', 'ACCEPTED', 'EXPIRED'] as const;
export type DisputeStatus = (typeof DISPUTE_STATUSES)[number];

export const DISPUTE_STAGES = ['RETRIEVAL', 'CHARGEBACK', 'PRE_ARBITRATION', 'ARBITRATION'] as const;
export type DisputeStage = (typeof DISPUTE_STAGES)[number];

export const DISPUTE_SOURCES = ['MANUAL', 'IMPORT', 'SANDBOX', 'CONNECTOR'] as const;
export type DisputeSource = (typeof DISPUTE_SOURCES)[number];

/**
 * SUBMIT: the merchant's evidence went to the acquirer; ACCEPT: the merchant accepts the loss; WIN / LOSE:
 * the scheme's decision; EXPIRE: the evidence deadline passed with no response; ESCALATE: the dispute
 * moved to a later stage (a retrieval became a chargeback, a won chargeback went to pre-arbitration) and
 * needs a response again.
 */
export const DISPUTE_EVENTS = ['SUBMIT', 'ACCEPT', 'WIN', 'LOSE', 'EXPIRE', 'ESCALATE'] as const;
export type DisputeEvent = (typeof DISPUTE_EVENTS)[number];

const TABLE: Record<DisputeStatus, Partial<Record<DisputeEvent, DisputeStatus>>> = {
  // an issuer may withdraw (WIN) or the acquirer decide (LOSE) before the merchant answered
  NEEDS_RESPONSE: { SUBMIT: 'UNDER_REVIEW', ACCEPT: 'ACCEPTED', WIN: 'WON', LOSE: 'LOST', EXPIRE: 'EXPIRED', ESCALATE: 'NEEDS_RESPONSE' },
  UNDER_REVIEW: { WIN: 'WON', LOSE: 'LOST', ESCALATE: 'NEEDS_RESPONSE' },
  // the issuer may take a dispute the merchant won to the next stage
  WON: { ESCALATE: 'NEEDS_RESPONSE' },
  LOST: {},
  ACCEPTED: {},
  EXPIRED: {},
};

/** The next status, or null when the event does not apply in `from`. */
export function disputeTransition(from: DisputeStatus, event: DisputeEvent): DisputeStatus | null {
  return TABLE[from][event] ?? null;
}

/** The events that apply in `from` (the answer of a refused action names them). */
export function eventsFrom(from: DisputeStatus): DisputeEvent[] {
  return DISPUTE_EVENTS.filter((e) => TABLE[from][e] !== undefined);
}

export const isOpen = (s: DisputeStatus): boolean => s === 'NEEDS_RESPONSE' || s === 'UNDER_REVIEW';
export const isFinal = (s: DisputeStatus): boolean => eventsFrom(s).length === 0;

/** ESCALATE moves the stage forward only: the next stage must be later than the current one. */
export function laterStage(from: DisputeStage, to: DisputeStage): boolean {
  return DISPUTE_STAGES.indexOf(to) > DISPUTE_STAGES.indexOf(from);
}

/**
 * The event that takes a dispute from `from` to the status a provider or file reports (`to`, at `stage`),
 * or null when it is where it is; 'impossible' when the table has no such move.
 */
export function eventTowards(from: { status: DisputeStatus; stage: DisputeStage }, to: { status: DisputeStatus; stage: DisputeStage }): DisputeEvent | null | 'impossible' {
  if (to.stage !== from.stage) {
    if (!laterStage(from.stage, to.stage)) return 'impossible';
    return disputeTransition(from.status, 'ESCALATE') && (to.status === 'NEEDS_RESPONSE') ? 'ESCALATE' : 'impossible';
  }
  if (to.status === from.status) return null;
  const byTarget: Record<DisputeStatus, DisputeEvent | null> = { NEEDS_RESPONSE: null, UNDER_REVIEW: 'SUBMIT', WON: 'WIN', LOST: 'LOSE', ACCEPTED: 'ACCEPT', EXPIRED: 'EXPIRE' };
  const e = byTarget[to.status];
  return e && disputeTransition(from.status, e) === to.status ? e : 'impossible';
}

// ---- categories and evidence ----------------------------------------------------------------------------

export const DISPUTE_CATEGORIES = ['FRAUD', 'PRODUCT_NOT_RECEIVED', 'PRODUCT_UNACCEPTABLE', 'DUPLICATE', 'CREDIT_NOT_PROCESSED', 'SUBSCRIPTION_CANCELLED', 'PROCESSING_ERROR', 'AUTHORIZATION', 'GENERAL'] as const;
export type DisputeCategory = (typeof DISPUTE_CATEGORIES)[number];

/** Text fields every dispute takes. */
export const COMMON_FIELDS = ['product_description', 'customer_communication', 'refund_policy', 'terms_and_conditions', 'additional_information'] as const;

/** Text fields a category adds to the common ones. */
export const CATEGORY_FIELDS: Record<DisputeCategory, readonly string[]> = {
  FRAUD: ['customer_name', 'customer_email', 'customer_ip', 'billing_address', 'authentication', 'prior_undisputed_transactions'],
  PRODUCT_NOT_RECEIVED: ['shipping_address', 'shipping_carrier', 'shipping_tracking_number', 'shipping_date', 'proof_of_delivery'],
  PRODUCT_UNACCEPTABLE: ['product_condition_explanation', 'return_policy_explanation'],
  DUPLICATE: ['duplicate_explanation', 'other_transaction'],
  CREDIT_NOT_PROCESSED: ['refund_refusal_explanation', 'refund_made'],
  SUBSCRIPTION_CANCELLED: ['cancellation_policy', 'cancellation_rebuttal'],
  PROCESSING_ERROR: ['processing_explanation'],
  AUTHORIZATION: ['authorization_explanation'],
  GENERAL: [],
};

export function evidenceFields(category: DisputeCategory): string[] {
  return [...COMMON_FIELDS, ...CATEGORY_FIELDS[category]];
}

export const TEXT_MAX = 20_000;
/** Largest document, decoded. */
export const DOCUMENT_MAX_BYTES = 4 * 1024 * 1024;
/** Every document of a dispute together. */
export const DISPUTE_DOCUMENTS_MAX_BYTES = 10 * 1024 * 1024;
/** Documents of one dispute. */
export const DOCUMENTS_MAX = 20;

export const DOCUMENT_TYPES = ['application/pdf', 'image/png', 'image/jpeg'] as const;
export type DocumentType = (typeof DOCUMENT_TYPES)[number];

/** What a document is by its first bytes (PDF `%PDF-`, PNG's signature, JPEG's SOI marker), or null. */
export function sniffDocument(bytes: Uint8Array): DocumentType | null {
  const starts = (sig: number[]) => bytes.length >= sig.length && sig.every((b, i) => bytes[i] === b);
  if (starts([0x25, 0x50, 0x44, 0x46, 0x2d])) return 'application/pdf';
  if (starts([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a])) return 'image/png';
  if (starts([0xff, 0xd8, 0xff])) return 'image/jpeg';
  return null;
}

/**
 * The text of a PDF as the card guard reads it: the file's own bytes, and every stream inflated when it
 * is FlateDecode-compressed (where page text usually is), with the strings of text-showing operators
 * (`(...)` literals, `<...>` hex strings) decoded and joined. Not a renderer: it finds a card number
 * written as text in the document; a number drawn as an image is not text.
 */
export function pdfTexts(bytes: Buffer): string[] {
  const raw = bytes.toString('latin1');
  const parts: string[] = [raw];
  // what the streams of one document may inflate to, in all: past it (a compression bomb) the document
  // cannot be read, so it cannot be checked for card numbers
  let budget = PDF_INFLATED_MAX_BYTES;
  const streams = /stream\r?\n/g;
  let m: RegExpExecArray | null;
  while ((m = streams.exec(raw)) !== null) {
    const start = m.index + m[0].length;
    const end = raw.indexOf('endstream', start);
    if (end < 0) break;
    const dict = raw.slice(Math.max(0, raw.lastIndexOf('<<', m.index)), m.index);
    let content = raw.slice(start, end);
    if (/\/FlateDecode/.test(dict)) {
      let inflated: Buffer;
      try {
        inflated = inflateSync(Buffer.from(content, 'latin1'), { maxOutputLength: budget + 1 });
      } catch (err) {
        if ((err as { code?: string }).code === 'ERR_BUFFER_TOO_LARGE') throw new UnreadablePdf();
        // a stream that is not valid deflate data: its raw bytes stay what is read
        inflated = Buffer.from(content, 'latin1');
      }
      if (inflated.length > budget) throw new UnreadablePdf();
      budget -= inflated.length;
      content = inflated.toString('latin1');
    }
    parts.push(content);
    // past the `endstream` (whose own "stream" is not the start of another)
    streams.lastIndex = end + 'endstream'.length;
  }
  // text-showing strings of content streams: literals (with their escapes) and hex strings, joined per stream
  return parts.map((p) => {
    const texts: string[] = [];
    for (const lit of p.matchAll(/\(((?:\\.|[^\\)])*)\)/gs)) texts.push(lit[1].replace(/\\([0-7]{1,3}|.)/gs, (_s, e: string) => (/^[0-7]+$/.test(e) ? String.fromCharCode(parseInt(e, 8)) : e === 'n' ? '\n' : e)));
    for (const hex of p.matchAll(/<([0-9A-Fa-f\s]{2,})>/g)) {
      const h = hex[1].replace(/\s/g, '');
      texts.push(Buffer.from(h.length % 2 ? `${h}0` : h, 'hex').toString('latin1'));
    }
    return `${p}\n${texts.join('')}\n${texts.join(' ')}`;
  });
}

/** How much the compressed streams of one PDF may inflate to, in all (a document past it is refused). */
export const PDF_INFLATED_MAX_BYTES = 32 * 1024 * 1024;

/** A PDF whose streams inflate past PDF_INFLATED_MAX_BYTES: it cannot be read, so it cannot be checked. */
export class UnreadablePdf extends Error {
  constructor() {
    super(`the PDF's compressed content inflates to more than ${PDF_INFLATED_MAX_BYTES / 1024 / 1024} MiB: it cannot be checked for card numbers`);
  }
}

/** True when a PDF carries a card number in its text; throws UnreadablePdf when it cannot be read. */
export function pdfHasCardNumber(bytes: Buffer): boolean {
  return pdfTexts(bytes).some((t) => containsCardNumber(t));
}

// ---- money -----------------------------------------------------------------------------------------------

/** A retrieval request moves no money; from the chargeback on, the amount is taken from the merchant. */
export const movesMoney = (stage: DisputeStage): boolean => stage !== 'RETRIEVAL';

/**
 * What a dispute means for its order: `disputed` (taken, not decided yet), `lost` (the merchant's loss:
 * LOST, ACCEPTED, EXPIRED) and `won` (won back). A retrieval request counts nowhere.
 */
export function moneyOf(d: { status: DisputeStatus; stage: DisputeStage; amount: number }): { disputed: number; lost: number; won: number } {
  if (!movesMoney(d.stage)) return { disputed: 0, lost: 0, won: 0 };
  if (isOpen(d.status)) return { disputed: d.amount, lost: 0, won: 0 };
  if (d.status === 'WON') return { disputed: 0, lost: 0, won: d.amount };
  return { disputed: 0, lost: d.amount, won: 0 };
}

// ---- deadlines -------------------------------------------------------------------------------------------

/** Days to respond when a dispute is entered without its deadline (and in the sandbox). */
export const DEFAULT_RESPONSE_DAYS = 7;
/** A submitted sandbox dispute is decided this many days after its submission (merchant clock). */
export const SANDBOX_DECISION_DAYS = 2;
/** The reminder e-mail goes this many days before the deadline (unless the merchant chose otherwise). */
export const REMINDER_DAYS = 3;

export function reminderAt(due: Date, days: number): Date {
  return new Date(due.getTime() - days * 86400_000);
}

// ---- the import file (docs/disputes.md "The CSV layout") --------------------------------------------------

export const CSV_REQUIRED = ['DISPUTE_ID', 'TRANSACTION', 'REASON_CODE', 'CATEGORY', 'AMOUNT', 'CURRENCY', 'STAGE', 'STATUS', 'EVIDENCE_DUE'] as const;
export const CSV_OPTIONAL = ['ACQUIRER'] as const;

export interface ImportRow {
  line: number;
  providerId: string;
  transactionId: string;
  reasonCode: string;
  category: DisputeCategory;
  amount: number;
  currency: string;
  stage: DisputeStage;
  status: DisputeStatus;
  due: Date;
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
const TEXT_ID = /^[A-Za-z0-9][A-Za-z0-9._:/-]{0,99}$/;

/** One row of a dispute file: the row, or its problems (each naming its column). */
export function parseImportRow(line: number, v: Record<string, string>): { row: ImportRow } | { problems: string[] } {
  const problems: string[] = [];
  const get = (c: string) => (v[c] ?? '').trim();
  const providerId = get('DISPUTE_ID');
  if (!TEXT_ID.test(providerId)) problems.push('DISPUTE_ID must be the acquirer\'s id of the dispute: 1 to 100 letters, digits, . _ : / -');
  const transactionId = get('TRANSACTION').toLowerCase();
  if (!UUID.test(transactionId)) problems.push('TRANSACTION must be the uuid of the disputed payment transaction (paygate\'s transaction uuid, the reference paygate sent the acquirer)');
  const reasonCode = get('REASON_CODE');
  if (!/^[A-Za-z0-9.\-_ ]{1,20}$/.test(reasonCode)) problems.push('REASON_CODE must be the scheme\'s reason code, 1 to 20 characters (10.4, 4837, 13.1...)');
  const category = get('CATEGORY').toUpperCase();
  if (!(DISPUTE_CATEGORIES as readonly string[]).includes(category)) problems.push(`CATEGORY must be one of ${DISPUTE_CATEGORIES.join(', ')}`);
  const amountText = get('AMOUNT');
  const amount = /^[0-9]{1,15}$/.test(amountText) ? Number(amountText) : NaN;
  if (!(amount >= 1 && amount <= AMOUNT_MAX)) problems.push(`AMOUNT must be a whole number of minor units from 1 to ${AMOUNT_MAX}`);
  const currency = get('CURRENCY').toUpperCase();
  if (!/^[A-Z]{3}$/.test(currency) || !currencyFrom(currency)) problems.push('CURRENCY must be an ISO 4217 alphabetic code (EUR, USD...)');
  const stage = get('STAGE').toUpperCase();
  if (!(DISPUTE_STAGES as readonly string[]).includes(stage)) problems.push(`STAGE must be one of ${DISPUTE_STAGES.join(', ')}`);
  const status = get('STATUS').toUpperCase();
  if (!(DISPUTE_STATUSES as readonly string[]).includes(status)) problems.push(`STATUS must be one of ${DISPUTE_STATUSES.join(', ')}`);
  const dueText = get('EVIDENCE_DUE');
  const due = parseDue(dueText);
  if (!due) problems.push('EVIDENCE_DUE must be a day (YYYY-MM-DD, the end of that day in UTC) or an ISO 8601 date and time with its offset');
  if (problems.length > 0) return { problems };
  return { row: { line, providerId, transactionId, reasonCode, category: category as DisputeCategory, amount, currency, stage: stage as DisputeStage, status: status as DisputeStatus, due: due! } };
}

/** `YYYY-MM-DD` (the end of that day, UTC) or an ISO 8601 date and time with an offset. */
export function parseDue(text: string): Date | null {
  if (/^\d{4}-\d{2}-\d{2}$/.test(text)) {
    const d = new Date(`${text}T23:59:59.999Z`);
    return Number.isNaN(d.getTime()) || d.toISOString().slice(0, 10) !== text ? null : d;
  }
  if (!/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d{1,3})?)?(Z|[+-]\d{2}:?\d{2})$/.test(text)) return null;
  const d = new Date(text);
  return Number.isNaN(d.getTime()) ? null : d;
}

// ---- the schemes' monitoring thresholds ------------------------------------------------------------------

export const SCHEMES = ['VISA', 'MASTERCARD', 'OTHER'] as const;
export type Scheme = (typeof SCHEMES)[number];

/**
 * The monitoring programmes a month's dispute ratio (disputes received in the month / sales in the month)
 * is held against: Visa's Dispute Monitoring Program (VDMP, standard: 0.9 % and 100 disputes in a month)
 * and Mastercard's Excessive Chargeback Merchant programme (ECM: 1.5 % and 100 chargebacks in a month).
 * A merchant is identified when both the ratio and the count reach the programme's figures.
 */
export const THRESHOLDS: Record<'VISA' | 'MASTERCARD', { programme: string; ratio: number; count: number }> = {
  VISA: { programme: 'VDMP', ratio: 0.009, count: 100 },
  MASTERCARD: { programme: 'ECM', ratio: 0.015, count: 100 },
};

/** The card scheme of a BIN (first digits): Visa 4; Mastercard 51–55 and 2221–2720; anything else OTHER. */
export function schemeOfBin(bin: string | null | undefined): Scheme {
  if (!bin) return 'OTHER';
  if (bin.startsWith('4')) return 'VISA';
  const two = Number(bin.slice(0, 2));
  const four = Number(bin.slice(0, 4));
  if ((two >= 51 && two <= 55) || (four >= 2221 && four <= 2720)) return 'MASTERCARD';
  return 'OTHER';
}

export interface RatioRow {
  month: string;
  scheme: Scheme;
  disputes: number;
  sales: number;
}

/** A month and scheme's ratio and where it stands against its programme. */
export function assessRatio(r: RatioRow) {
  const ratio = r.sales > 0 ? r.disputes / r.sales : r.disputes > 0 ? 1 : 0;
  const t = r.scheme === 'OTHER' ? null : THRESHOLDS[r.scheme];
  return {
    month: r.month,
    scheme: r.scheme,
    disputes: r.disputes,
    sales: r.sales,
    ratio: Math.round(ratio * 1_000_000) / 1_000_000,
    programme: t?.programme ?? null,
    threshold_ratio: t?.ratio ?? null,
    threshold_count: t?.count ?? null,
    // EXCEEDED: ratio and count both at or above; WARNING: the ratio is at or above, or within 80 % of it
    standing: !t ? 'NOT_MONITORED' as const : ratio >= t.ratio && r.disputes >= t.count ? 'EXCEEDED' as const : ratio >= t.ratio * 0.8 ? 'WARNING' as const : 'OK' as const,
  };
}
