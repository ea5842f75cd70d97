/** Request and response schemas of reconciliation (ours: docs/reconciliation.md). */
import { Int, Nullable, OptionalText, OptionalUuid, Type, envelope, signedBody } from '../../platform/http/schemas.js';
import { EXCEPTION_KINDS, LINE_TYPES, MATCH_KINDS, PAYOUT_STATUSES } from './reconciliation.domain.js';
import * as EX from './reconciliation.examples.js';

const Day = (description: string) => Type.String({ pattern: '^\\d{4}-\\d{2}-\\d{2}$', description: `${description} (YYYY-MM-DD)`, examples: ['2026-03-14'] });
const Iso = Type.String({ description: 'ISO 8601 UTC with milliseconds' });
const Minor = (description: string) => Type.Integer({ description: `${description}, minor units of the currency` });
const Cursor = Type.Optional(Type.String({ maxLength: 300, description: 'the `next_cursor` of the previous page; absent: the first page' }));
const Limit = (max: number, dflt: number) => Type.Optional(Int({ minimum: 1, maximum: max, default: dflt, description: 'at most this many entries' }));

const FILE = 'in base64 (a `data:...;base64,` prefix is allowed), at most 16 MiB; larger files are imported with `paygate reconcile import`';

export const SettlementUploadBody = signedBody({
  data: Type.String({ minLength: 1, description: `the settlement file in the CSV layout of docs/reconciliation.md, ${FILE}. Header (case-insensitive): TYPE, AMOUNT, CURRENCY, TRANSACTION_DATE, SETTLEMENT_DATE, BATCH required; PROCESSOR_ID, REFERENCE, FEE_INTERCHANGE, FEE_SCHEME, FEE_PROCESSING, NET optional (a PAYMENT, REFUND or PAYOUT line needs its PROCESSOR_ID or REFERENCE).` }),
  filename: Type.String({ minLength: 1, maxLength: 255, description: 'the name of the file, kept with the report' }),
  acquirer: Type.String({ minLength: 1, maxLength: 40, pattern: '^[A-Za-z0-9][A-Za-z0-9 ._-]*$', description: 'who settled it (CHECKOUT, PAYPAL, REDSYS, your bank\'s name...): payouts are the batches of one acquirer', examples: ['CHECKOUT'] }),
  service: OptionalUuid({ description: 'the service whose transactions the report covers: its successful transactions of the report\'s days that no line settles are ONLY_AT_PAYGATE. Absent: nothing is looked for as missing' }),
  settlement_days: Type.Optional(Int({ minimum: 0, maximum: 60, default: 2, description: 'a line settled more days than this after its transaction is SETTLED_LATE' })),
  period_from: OptionalText(10, { description: 'the first day the report covers (YYYY-MM-DD); absent: the earliest TRANSACTION_DATE of its lines' }),
  period_to: OptionalText(10, { description: 'the last day the report covers (YYYY-MM-DD); absent: the latest TRANSACTION_DATE of its lines' }),
}, { title: 'SettlementUploadRequest', examples: [EX.SETTLEMENT_UPLOAD_EXAMPLE] });

export const SettlementFetchBody = signedBody({
  service: Type.String({ format: 'uuid', description: 'the service whose connector is asked for its settlement report' }),
  date: Type.String({ minLength: 10, maxLength: 10, description: 'the day of the transactions (YYYY-MM-DD, UTC), a day that has ended', examples: ['2026-03-14'] }),
  settlement_days: Type.Optional(Int({ minimum: 0, maximum: 60, default: 2, description: 'a line settled more days than this after its transaction is SETTLED_LATE' })),
}, { title: 'SettlementFetchRequest', examples: [EX.SETTLEMENT_FETCH_EXAMPLE] });

export const StatementUploadBody = signedBody({
  data: Type.String({ minLength: 1, description: `the bank statement, an ISO 20022 camt.053 message (UTF-8 XML, versions 001.02 to 001.13) or an AEB Norma 43 file, ${FILE}` }),
  filename: Type.String({ minLength: 1, maxLength: 255, description: 'the name of the file, kept with the statement' }),
  format: Type.Optional(Nullable(Type.Enum(['CAMT053', 'NORMA43'], { description: 'the file\'s format; absent: XML is camt.053, a file starting with record 11 is Norma 43' }))),
}, { title: 'BankStatementUploadRequest', examples: [EX.STATEMENT_UPLOAD_EXAMPLE] });

const Counts = Type.Object(Object.fromEntries(MATCH_KINDS.map((k) => [k, Type.Integer()])) as Record<(typeof MATCH_KINDS)[number], ReturnType<typeof Type.Integer>>, { description: 'lines of each match kind; ONLY_AT_PAYGATE: the transactions this report found missing (and still are)' });

export const SettlementReport = Type.Object({
  uuid: Type.String({ format: 'uuid' }),
  acquirer: Type.String(),
  source: Type.Enum(['UPLOAD', 'CLI', 'CONNECTOR'], { description: 'how it came: uploaded (API or dashboard), `paygate reconcile import`, or the connector\'s report' }),
  filename: Type.String(),
  service: Nullable(Type.String({ format: 'uuid', description: 'the service it covers' })),
  period_from: Day('the first day it covers'),
  period_to: Day('the last day it covers'),
  settlement_days: Type.Integer({ description: 'days after a transaction within which its settlement is on time' }),
  lines: Type.Integer({ description: 'lines of the file' }),
  counts: Counts,
  exceptions: Type.Integer({ description: 'lines and missing transactions that are not MATCHED' }),
  created_at: Iso,
}, { title: 'SettlementReport', examples: [EX.REPORT_EXAMPLE] });

const Fees = Type.Object({
  interchange: Minor('interchange'),
  scheme: Minor('scheme fee'),
  processing: Minor('processing fee'),
}, { description: 'the fees of the line as the report gives them (negative: a rebate)' });

export const ReconciliationItem = Type.Object({
  id: Type.String({ description: 'the item\'s id (newest first in lists)' }),
  kind: Nullable(Type.Enum([...MATCH_KINDS], { description: 'MATCHED, AMOUNT_DIFFERS, ONLY_AT_ACQUIRER, ONLY_AT_PAYGATE, SETTLED_LATE or DUPLICATE (docs/reconciliation.md); null for a CHARGEBACK or ADJUSTMENT line, which only counts in its payout' })),
  detail: Type.String({ description: 'what was found, as a sentence' }),
  type: Type.Enum([...LINE_TYPES]),
  report: Type.Object({
    uuid: Type.String({ format: 'uuid' }),
    filename: Type.String(),
    acquirer: Type.String(),
    line: Nullable(Type.Integer({ description: 'the line of the file (the header is line 1); null for ONLY_AT_PAYGATE (the report that found the transaction missing)' })),
  }),
  line: Nullable(Type.Object({
    processor_id: Nullable(Type.String()),
    reference: Nullable(Type.String()),
    amount: Minor('what the acquirer settled'),
    currency: Type.String(),
    transaction_date: Day('the transaction\'s day per the acquirer'),
    settlement_date: Day('the day it was settled'),
    batch: Type.String({ description: 'the acquirer\'s payout it is paid in' }),
    fees: Fees,
    net: Minor('what it adds to its payout: the signed amount less the fees'),
  }, { description: 'the report\'s line; null for ONLY_AT_PAYGATE' })),
  transaction: Nullable(Type.Object({
    uuid: Type.String({ format: 'uuid' }),
    order_uuid: Type.String({ format: 'uuid' }),
    amount: Minor('what paygate recorded'),
    currency: Type.String(),
    date: Day('the transaction\'s day (UTC)'),
    status: Type.String({ description: 'the transaction\'s status at paygate' }),
  }, { description: 'paygate\'s transaction; null when none was found (ONLY_AT_ACQUIRER)' })),
}, { title: 'ReconciliationItem', examples: [EX.ITEM_EXAMPLE] });

export const Payout = Type.Object({
  uuid: Type.String({ format: 'uuid' }),
  acquirer: Type.String(),
  batch: Type.String({ description: 'the acquirer\'s payout (batch) reference' }),
  currency: Type.String(),
  settlement_date: Day('the day it is paid'),
  status: Type.Enum([...PAYOUT_STATUSES], { description: 'EXPECTED (no statement covers its day yet), RECEIVED, DIFFERENT (a credit naming its batch, of another amount), MISSING (the statements cover its day and three more, and it is not there)' }),
  lines: Type.Integer(),
  gross: Minor('the signed sum of its lines (payments in; refunds, payouts and chargebacks out)'),
  fees: Type.Object({ interchange: Minor('interchange'), scheme: Minor('scheme fees'), processing: Minor('processing fees'), total: Minor('every fee') }),
  expected: Minor('the net to receive: the sum of its lines\' net'),
  received: Nullable(Type.Object({
    amount: Minor('what the bank statement shows'),
    date: Day('its booking day'),
    statement_uuid: Type.String({ format: 'uuid' }),
    statement_filename: Type.String(),
    line: Type.Integer({ description: 'the entry in the statement file (its line)' }),
    reference: Nullable(Type.String()),
  }, { description: 'the statement entry found for it' })),
  difference: Nullable(Minor('received less expected')),
}, { title: 'Payout', examples: [EX.PAYOUT_EXAMPLE] });

export const BankStatement = Type.Object({
  uuid: Type.String({ format: 'uuid' }),
  format: Type.Enum(['CAMT053', 'NORMA43']),
  source: Type.Enum(['UPLOAD', 'CLI']),
  filename: Type.String(),
  account: Type.String({ description: 'IBAN, or entity, office and account number (Norma 43)' }),
  currency: Type.String(),
  period_from: Day('the first day'),
  period_to: Day('the last day'),
  opening_balance: Minor('opening balance'),
  closing_balance: Minor('closing balance'),
  entries: Type.Integer({ description: 'booked entries' }),
  credits: Type.Integer(),
  debits: Type.Integer(),
  payouts_found: Type.Integer({ description: 'entries that are an acquirer\'s payout' }),
  created_at: Iso,
}, { title: 'BankStatement', examples: [EX.STATEMENT_EXAMPLE] });

const NextCursor = Nullable(Type.String({ description: 'pass it as `cursor` for the next page; null on the last', examples: ['aXRlbXM6MTA0Mg'] }));

export const SettlementReportResponse = envelope({ report: SettlementReport }, { title: 'SettlementReportResponse' });
export const SettlementReportsResponse = envelope({ reports: Type.Array(SettlementReport, { description: 'newest first' }), next_cursor: NextCursor }, { title: 'SettlementReportsResponse' });
export const SettlementReportDetailResponse = envelope({
  report: SettlementReport,
  lines: Type.Array(ReconciliationItem, { description: 'its lines in file order, each with its match' }),
  next_cursor: NextCursor,
}, { title: 'SettlementReportDetailResponse' });
export const ItemsResponse = envelope({ items: Type.Array(ReconciliationItem, { description: 'newest first' }), next_cursor: NextCursor }, { title: 'ReconciliationItemsResponse' });
export const SummaryResponse = envelope({
  kinds: Counts,
  exceptions: Type.Integer({ description: 'every item that is not MATCHED' }),
  payouts: Type.Object(Object.fromEntries(PAYOUT_STATUSES.map((s) => [s, Type.Integer()])) as Record<(typeof PAYOUT_STATUSES)[number], ReturnType<typeof Type.Integer>>, { description: 'payouts by status' }),
}, { title: 'ReconciliationSummaryResponse' });
export const PayoutsResponse = envelope({ payouts: Type.Array(Payout, { description: 'latest settlement day first' }), next_cursor: NextCursor }, { title: 'PayoutsResponse' });
export const StatementsImportedResponse = envelope({
  statements: Type.Array(BankStatement, { description: 'one per account statement of the file' }),
  payouts: Type.Object(Object.fromEntries(PAYOUT_STATUSES.map((s) => [s, Type.Integer()])) as Record<(typeof PAYOUT_STATUSES)[number], ReturnType<typeof Type.Integer>>, { description: 'the merchant\'s payouts by status after matching' }),
}, { title: 'BankStatementsImportedResponse' });
export const StatementsResponse = envelope({ statements: Type.Array(BankStatement, { description: 'newest first' }), next_cursor: NextCursor }, { title: 'BankStatementsResponse' });

export const ReportParams = Type.Object({ report_uuid: Type.String({ maxLength: 64, description: 'the report\'s uuid', examples: ['2f6d8a1c-4b3e-4c5d-9e7f-0a1b2c3d4e5f'] }) });
export const ReportQuery = Type.Object({ limit: Type.Optional(Int({ minimum: 0, maximum: 10_000, default: 100, description: 'at most this many lines (0: the report alone)' })), cursor: Cursor });
export const ListQuery = Type.Object({ limit: Limit(200, 50), cursor: Cursor });
export const ItemsQuery = Type.Object({
  kind: Type.Optional(Type.Array(Type.Enum([...MATCH_KINDS]), { maxItems: 6, description: `only these kinds (repeat the parameter); absent: every exception (${EXCEPTION_KINDS.join(', ')})` })),
  report: OptionalUuid({ description: 'only the items of this report' }),
  limit: Limit(1000, 100),
  cursor: Cursor,
});
export const ItemsCsvQuery = Type.Object({
  kind: ItemsQuery.properties.kind,
  report: ItemsQuery.properties.report,
});
export const PayoutsQuery = Type.Object({
  status: Type.Optional(Type.Array(Type.Enum([...PAYOUT_STATUSES]), { maxItems: 4, description: 'only these statuses (repeat the parameter); absent: all' })),
  limit: Limit(1000, 100),
  cursor: Cursor,
});
export const PayoutsCsvQuery = Type.Object({ status: PayoutsQuery.properties.status });
