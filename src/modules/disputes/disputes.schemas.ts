/** Request and response schemas of disputes (ours: docs/disputes.md). */
import { Amount, Int, Maybe, Nullable, OptionalText, OptionalUuid, Type, envelope, signedBody } from '../../platform/http/schemas.js';
import { SCHEMES, THRESHOLDS, DISPUTE_CATEGORIES, DISPUTE_SOURCES, DISPUTE_STAGES, DISPUTE_STATUSES, DOCUMENT_TYPES } from './disputes.domain.js';
import * as EX from './disputes.examples.js';

const Iso = Type.String({ description: 'ISO 8601 UTC with milliseconds (the merchant\'s clock)' });
const Minor = (description: string) => Type.Integer({ description: `${description}, minor units of the currency` });
const Cursor = Type.Optional(Type.String({ maxLength: 300, description: 'the `next_cursor` of the previous page; absent: the first page' }));
const NextCursor = Nullable(Type.String({ description: 'pass it as `cursor` for the next page; null on the last', examples: ['ZGlzcHV0ZXM6MjAyNi0wMy0xNFQwOToyMTowNy4wMDBa'] }));

const Category = Type.Enum([...DISPUTE_CATEGORIES], { description: 'what the cardholder claims, as the scheme\'s reason code groups it' });
const Stage = Type.Enum([...DISPUTE_STAGES], { description: 'RETRIEVAL (a copy of the sale is asked for; no money moves), CHARGEBACK, PRE_ARBITRATION, ARBITRATION' });
const Status = Type.Enum([...DISPUTE_STATUSES], { description: 'NEEDS_RESPONSE (evidence or acceptance expected by `evidence_due_at`), UNDER_REVIEW (evidence submitted), WON, LOST, ACCEPTED (the merchant accepted the loss), EXPIRED (no response by the deadline: lost)' });
const ReasonCode = Type.String({ minLength: 1, maxLength: 20, pattern: '^[A-Za-z0-9.\\-_ ]+$', description: 'the scheme\'s reason code (Visa 10.4, 13.1...; Mastercard 4837, 4853...)', examples: ['13.1'] });

export const Money = Type.Object({
  disputed: Minor('taken from the merchant and not decided yet'),
  lost: Minor('lost (LOST, ACCEPTED, EXPIRED)'),
  won: Minor('won back'),
}, { description: 'what the dispute means for its order\'s money (a RETRIEVAL moves none)' });

export const Dispute = Type.Object({
  uuid: Type.String({ format: 'uuid' }),
  order_uuid: Type.String({ format: 'uuid', description: 'the disputed order' }),
  transaction_uuid: Type.String({ format: 'uuid', description: 'the disputed payment (a sale or a capture of the order)' }),
  source: Type.Enum([...DISPUTE_SOURCES], { description: 'MANUAL (POST /disputes), IMPORT (an acquirer\'s file), SANDBOX (raised by the sandbox), CONNECTOR (the provider\'s API or webhook)' }),
  acquirer: Type.String({ description: 'who reported it (REDSYS, CHECKOUT, PAYPAL, a bank; SANDBOX)' }),
  provider_id: Nullable(Type.String({ description: 'the acquirer\'s id of the dispute' })),
  reason_code: Type.String(),
  category: Category,
  amount: Minor('the disputed amount'),
  currency: Type.String({ description: 'ISO 4217 alpha-3 (the order\'s currency)' }),
  stage: Stage,
  status: Status,
  evidence_due_at: Type.String({ description: 'when the response is due (ISO 8601 UTC); with none by then the dispute EXPIRES' }),
  submitted_at: Nullable(Iso),
  resolved_at: Nullable(Iso),
  created_at: Iso,
  updated_at: Iso,
  money: Money,
  evidence_fields: Type.Array(Type.String(), { description: 'the text fields of evidence this dispute\'s category takes' }),
  actions: Type.Array(Type.Enum(['SUBMIT', 'ACCEPT']), { description: 'what the merchant may do now' }),
}, { title: 'Dispute', examples: [EX.DISPUTE_EXAMPLE] });

export const EvidenceItem = Type.Object({
  uuid: Type.String({ format: 'uuid' }),
  kind: Type.Enum(['TEXT', 'DOCUMENT']),
  name: Type.String({ description: 'the field (TEXT) or the file name (DOCUMENT)' }),
  text: Nullable(Type.String({ description: 'the field\'s text' })),
  content_type: Nullable(Type.Enum([...DOCUMENT_TYPES], { description: 'the document\'s type, read from its content' })),
  size: Type.Integer({ description: 'bytes' }),
  field: Nullable(Type.String({ description: 'DOCUMENT: the evidence field it supports, when named' })),
  created_at: Iso,
}, { title: 'DisputeEvidence', examples: [EX.EVIDENCE_ITEM_EXAMPLE] });

export const HistoryEntry = Type.Object({
  at: Iso,
  actor: Type.String({ description: 'who or what: `api:<key uuid>` (the API or the dashboard), `sandbox`, `system` (the deadline), `import:<file name>`, `connector:<name>`' }),
  event: Type.String({ description: 'CREATE, EVIDENCE, REMINDER, or the lifecycle\'s event (SUBMIT, ACCEPT, WIN, LOSE, EXPIRE, ESCALATE)' }),
  from_status: Nullable(Status),
  to_status: Status,
  stage: Stage,
  detail: Nullable(Type.String()),
}, { title: 'DisputeHistoryEntry', examples: [EX.HISTORY_EXAMPLE] });

export const OrderTotals = Type.Object({
  order_uuid: Type.String({ format: 'uuid' }),
  currency: Nullable(Type.String()),
  disputes: Type.Integer({ description: 'disputes of the order' }),
  disputed: Minor('taken and not decided yet'),
  lost: Minor('lost to disputes'),
  won: Minor('won back'),
}, { title: 'OrderDisputeTotals', description: 'what the order\'s disputes mean for it: disputed, lost and won back', examples: [EX.ORDER_TOTALS_EXAMPLE] });

export const DisputeDetail = Type.Object({
  ...Dispute.properties,
  evidence: Type.Array(EvidenceItem, { description: 'in the order given' }),
  history: Type.Array(HistoryEntry, { description: 'every change, oldest first' }),
}, { title: 'DisputeDetail', examples: [{ ...EX.DISPUTE_EXAMPLE, evidence: [EX.EVIDENCE_ITEM_EXAMPLE], history: [EX.HISTORY_EXAMPLE] }] });

export const DocumentResponse = envelope({
  document: Type.Object({
    uuid: Type.String({ format: 'uuid' }),
    filename: Type.String(),
    content_type: Type.Enum([...DOCUMENT_TYPES]),
    size: Type.Integer({ description: 'bytes' }),
    data: Type.String({ description: 'the file in base64' }),
  }, { title: 'DisputeDocument', examples: [{ uuid: '0b4c6d8e-1f2a-4b3c-9d4e-5f6a7b8c9d0e', filename: 'delivery-receipt.pdf', content_type: 'application/pdf', size: 15, data: 'JVBERi0xLjQKJcfsj6IK' }] }),
}, { title: 'DisputeDocumentResponse' });

export const DisputeResponse = envelope({ dispute: DisputeDetail, order_totals: OrderTotals }, { title: 'DisputeResponse' });
export const DisputesResponse = envelope({
  disputes: Type.Array(Dispute, { description: 'newest first' }),
  next_cursor: NextCursor,
  order_totals: Nullable(OrderTotals),
}, { title: 'DisputesResponse' });

export const ListQuery = Type.Object({
  status: Type.Optional(Type.Array(Status, { maxItems: 6, description: 'only these statuses (repeat the parameter)' })),
  stage: Type.Optional(Type.Array(Stage, { maxItems: 4, description: 'only these stages (repeat the parameter)' })),
  order_uuid: OptionalUuid({ description: 'only the disputes of this order (the answer then has its `order_totals`)' }),
  limit: Type.Optional(Int({ minimum: 1, maximum: 200, default: 50, description: 'at most this many disputes' })),
  cursor: Cursor,
});

export const DisputeParams = Type.Object({ dispute_uuid: Type.String({ format: 'uuid' }) });
export const DocumentParams = Type.Object({ dispute_uuid: Type.String({ format: 'uuid' }), document_uuid: Type.String({ format: 'uuid' }) });

export const CreateBody = signedBody({
  order_uuid: Type.String({ format: 'uuid', description: 'the disputed order (of the caller)' }),
  transaction_uuid: OptionalUuid({ description: 'the disputed payment of the order; absent: its latest successful sale or capture' }),
  reason_code: ReasonCode,
  category: Category,
  amount: Type.Optional(Amount({ minimum: 1, description: 'the disputed amount in minor units, at most the payment\'s; absent: the payment\'s amount' })),
  stage: Type.Optional(Stage),
  evidence_due_at: OptionalText(40, { description: 'when the response is due (ISO 8601 with its offset), in the future; absent: 7 days from now' }),
  acquirer: OptionalText(40, { description: 'who reported it (REDSYS, your bank...); absent: MANUAL' }),
  provider_id: OptionalText(100, { description: 'the acquirer\'s id of the dispute (an import of the same id updates this dispute)' }),
}, { title: 'CreateDisputeRequest', examples: [EX.CREATE_DISPUTE_EXAMPLE] });

export const SimulateBody = signedBody({
  order_uuid: Type.String({ format: 'uuid', description: 'a paid sandbox order of the caller' }),
  transaction_uuid: OptionalUuid({ description: 'the disputed payment of the order; absent: its latest successful sale or capture' }),
  reason_code: Type.Optional(ReasonCode),
  category: Type.Optional(Category),
  amount: Type.Optional(Amount({ minimum: 1, description: 'the disputed amount, at most the payment\'s; absent: the payment\'s amount' })),
  stage: Type.Optional(Stage),
  outcome: Type.Optional(Type.Enum(['WON', 'LOST'], { description: 'how the sandbox decides the dispute once it is submitted (2 days later on the test clock); default WON' })),
}, { title: 'SimulateDisputeRequest', examples: [EX.SIMULATE_DISPUTE_EXAMPLE] });

export const EvidenceBody = signedBody({
  fields: Maybe(Type.Record(Type.String({ pattern: '^[a-z_]{1,60}$' }), Type.String({ minLength: 1, maxLength: 20000 }), { description: 'text evidence by field (the dispute\'s `evidence_fields`); a field given again replaces its text. No card numbers' })),
  documents: Maybe(Type.Array(Type.Object({
    filename: Type.String({ minLength: 1, maxLength: 255, pattern: '^[^/\\\\\\u0000-\\u001f]+$', description: 'the file name' }),
    data: Type.String({ minLength: 1, description: 'the file in base64 (a `data:...;base64,` prefix is allowed): PDF, PNG or JPEG (read from its content), at most 4 MiB; a PDF whose text holds a card number is refused' }),
    field: OptionalText(60, { description: 'the evidence field the document supports (one of the dispute\'s `evidence_fields`, e.g. proof_of_delivery); a connector files it under the provider\'s matching kind' }),
  }), { maxItems: 20, description: 'documents: at most 4 MiB each and 10 MiB per dispute in all' })),
}, { title: 'DisputeEvidenceRequest', examples: [EX.EVIDENCE_EXAMPLE] });

export const ActionBody = signedBody({}, { title: 'DisputeActionRequest', examples: [EX.ACTION_EXAMPLE] });

export const ImportBody = signedBody({
  data: Type.String({ minLength: 1, description: 'the file in the CSV layout of docs/disputes.md, in base64 (a `data:text/csv;base64,` prefix is allowed), at most 10 MiB. Header (any case): DISPUTE_ID, TRANSACTION, REASON_CODE, CATEGORY, AMOUNT, CURRENCY, STAGE, STATUS, EVIDENCE_DUE; ACQUIRER optional' }),
  filename: Type.String({ minLength: 1, maxLength: 255, description: 'the name of the file (in the disputes\' history)' }),
  acquirer: Type.String({ minLength: 1, maxLength: 40, pattern: '^[A-Za-z0-9][A-Za-z0-9 ._-]*$', description: 'who reported the disputes (a line\'s ACQUIRER overrides it)', examples: ['REDSYS'] }),
}, { title: 'DisputeImportRequest', examples: [EX.IMPORT_EXAMPLE] });

export const ImportResponse = envelope({
  import: Type.Object({
    filename: Type.String(),
    lines: Type.Integer({ description: 'data lines of the file' }),
    created: Type.Integer({ description: 'new disputes' }),
    updated: Type.Integer({ description: 'disputes moved to the status or stage the file reports' }),
    unchanged: Type.Integer({ description: 'lines of disputes already as the file reports them' }),
  }, { title: 'DisputeImport', examples: [{ filename: 'redsys-disputes-2026-03-14.csv', lines: 1, created: 1, updated: 0, unchanged: 0 }] }),
}, { title: 'DisputeImportResponse' });

export const SettingsBody = signedBody({
  notification_url: Maybe(Type.String({ maxLength: 500, description: 'absolute http(s) URL' }), { description: 'where dispute events are sent (signed with this key\'s signature, as every notification is); null or empty: dispute events off' }),
  reminder_days: Type.Optional(Int({ minimum: 0, maximum: 30, description: 'days before a deadline the reminder e-mail goes to the dashboard users (0: none); default 3' })),
}, { title: 'DisputeSettingsRequest', examples: [EX.SETTINGS_EXAMPLE] });

export const SettingsResponse = envelope({
  dispute_settings: Type.Object({
    notification_url: Nullable(Type.String()),
    reminder_days: Type.Integer(),
    updated_at: Nullable(Iso),
  }, { title: 'DisputeSettings', examples: [{ notification_url: 'https://shop.example.com/paygate/disputes', reminder_days: 3, updated_at: '2026-03-14T09:21:07.000Z' }] }),
}, { title: 'DisputeSettingsResponse' });

export const RatiosQuery = Type.Object({
  months: Type.Optional(Int({ minimum: 1, maximum: 24, default: 6, description: 'this many months, the current one last' })),
});

export const DisputeRatio = Type.Object({
  month: Type.String({ description: 'the month the disputes were received (UTC), YYYY-MM' }),
  scheme: Type.Enum([...SCHEMES], { description: 'the card scheme, by the BIN of the disputed payment\'s card (OTHER: another scheme, or no card)' }),
  disputes: Type.Integer({ description: 'disputes received in the month (CHARGEBACK stage or later; retrievals are not counted)' }),
  sales: Type.Integer({ description: 'successful payments of `sales_month`' }),
  sales_month: Type.String({ description: 'the month whose sales the programme divides by: the same month (Visa VDMP), the month before (Mastercard ECM)' }),
  ratio: Type.Number({ description: 'disputes / sales (0 with neither; 1 with disputes and no sales)' }),
  programme: Nullable(Type.String({ description: `the scheme's monitoring programme: ${Object.entries(THRESHOLDS).map(([k, v]) => `${k} ${v.programme} (${v.ratio * 100} % and ${v.count} in a month)`).join(', ')}` })),
  threshold_ratio: Nullable(Type.Number()),
  threshold_count: Nullable(Type.Integer()),
  standing: Type.Enum(['OK', 'WARNING', 'EXCEEDED', 'NOT_MONITORED'], { description: 'EXCEEDED: the ratio and the count both reach the programme\'s; WARNING: the ratio is at 80 % of it or more; NOT_MONITORED: no programme here' }),
}, { title: 'DisputeRatio', examples: [{ month: '2026-03', scheme: 'VISA', disputes: 3, sales: 1250, sales_month: '2026-03', ratio: 0.0024, programme: 'VDMP', threshold_ratio: 0.009, threshold_count: 100, standing: 'OK' }] });

export const RatiosResponse = envelope({ ratios: Type.Array(DisputeRatio, { description: 'oldest month first, each scheme' }) }, { title: 'DisputeRatiosResponse' });
