/** Reconciliation (settlement reports, payouts, bank statements): the public interface of the module. */
export { ReconciliationService } from './reconciliation.service.js';
export { UPLOAD_MAX_BYTES, CLI_MAX_BYTES, CLI_MAX_LINES, settlementCsv, presentItem, presentPayout, presentReport } from './reconciliation.shared.js';
export type { SettlementImportInput, StatementImportInput } from './reconciliation.shared.js';
export { reconciliationRoutes } from './reconciliation.routes.js';
export { MATCH_KINDS, EXCEPTION_KINDS, PAYOUT_STATUSES, LINE_TYPES, CSV_REQUIRED, CSV_OPTIONAL, parseSettlementRow, lineNet } from './reconciliation.domain.js';
export type { MatchKind, PayoutStatus, LineType } from './reconciliation.domain.js';
export { parseCamt053 } from './parsers/camt053.js';
export { parseNorma43, norma43Text } from './parsers/norma43.js';
export { StatementProblems } from './parsers/statement.js';
export type { BankStatement, BankEntry } from './parsers/statement.js';
export { ItemsResponse as ReconciliationItemsSchema, PayoutsResponse as PayoutsSchema, SummaryResponse as ReconciliationSummarySchema } from './reconciliation.schemas.js';
