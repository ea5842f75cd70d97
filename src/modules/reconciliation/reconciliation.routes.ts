/** HTTP of reconciliation (ours, beyond the payment API's contract: docs/reconciliation.md). */
import type { FastifyInstance } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { ctxOf, ok } from '../../platform/http/respond.js';
import { ErrorEnvelope, FileProblemsResponse, responses } from '../../platform/http/schemas.js';
import * as S from './reconciliation.schemas.js';
import type { ReconciliationService } from './reconciliation.service.js';
import { UPLOAD_BODY_LIMIT } from './reconciliation.shared.js';

const READ = ['readonly'] as const;
const tags = ['reconciliation'];

const IMPORT = 'The file is read as it comes: one that cannot be read (not base64, not the format, too large, a card number anywhere in it) is 400; a line with problems makes the whole file 422 with `errors: [{line, msg}]` (line 1 is the header) and nothing is imported. The same file twice is 409. Otherwise it is stored and matched in one transaction, and the answer has the result.';

const csv = (example: string) => ({
  200: { description: 'The CSV file', content: { 'text/csv': { schema: { type: 'string' }, example } } },
  '4xx': ErrorEnvelope,
  '5xx': ErrorEnvelope,
});

export function reconciliationRoutes(service: ReconciliationService) {
  return async (scope: FastifyInstance) => {
    const app = scope.withTypeProvider<TypeBoxTypeProvider>();

    app.post('/reconciliation/settlements', {
      config: { profiles: [], bodyLimit: UPLOAD_BODY_LIMIT },
      schema: {
        operationId: 'importSettlementReport',
        summary: 'Import an acquirer\'s settlement report',
        description: `A settlement file in paygate's CSV layout (docs/reconciliation.md maps Checkout.com's and PayPal's reports to it; Redsys and the other acquirers' files come from the acquiring bank). Every PAYMENT, REFUND and PAYOUT line is matched to its transaction (by REFERENCE, the transaction uuid paygate sent, else by PROCESSOR_ID, of the same type) and named: MATCHED, AMOUNT_DIFFERS, ONLY_AT_ACQUIRER, SETTLED_LATE or DUPLICATE; with \`service\`, the successful transactions of the report's days that no line settles are ONLY_AT_PAYGATE. Lines are summed into payouts per BATCH (expected vs received: GET /reconciliation/payouts). ${IMPORT}`,
        tags, body: S.SettlementUploadBody, response: { ...responses(S.SettlementReportResponse), 422: FileProblemsResponse },
      },
    }, async (req) => {
      const ctx = ctxOf(req);
      return ok(ctx, await service.uploadSettlement(ctx, req.body));
    });

    app.post('/reconciliation/settlements/fetch', {
      config: { profiles: [] },
      schema: {
        operationId: 'fetchSettlementReport',
        summary: 'Import the settlement report of a day from the service\'s connector',
        description: 'Asks the connector of the service for its acquirer\'s settlement report of a day and imports it as a file would be (the sandbox simulator gives one consistent with its own operations, in the sandbox fee model of docs/reconciliation.md). A connector that gives no report through an API is 422 (import the acquirer\'s file instead); a report not ready yet is 409; an acquirer that cannot be asked is 503. The same day twice is 409.',
        tags, body: S.SettlementFetchBody, response: responses(S.SettlementReportResponse),
      },
    }, async (req) => {
      const ctx = ctxOf(req);
      return ok(ctx, await service.fetchSettlement(ctx, req.body));
    });

    app.get('/reconciliation/settlements', {
      config: { profiles: READ },
      schema: {
        operationId: 'listSettlementReports',
        summary: 'The imported settlement reports',
        description: 'Newest first, each with its counts by match kind, in pages (`limit`, `cursor` = the previous page\'s `next_cursor`).',
        tags, querystring: S.ListQuery, response: responses(S.SettlementReportsResponse),
      },
    }, async (req) => {
      const ctx = ctxOf(req);
      return ok(ctx, await service.listReports(ctx, req.query));
    });

    app.get('/reconciliation/settlements/:report_uuid', {
      config: { profiles: READ },
      schema: {
        operationId: 'getSettlementReport',
        summary: 'A settlement report and its lines with their matches',
        description: 'The report with its counts, and its lines in file order, each with its match kind, the transaction found and why (a page: `limit`, `cursor`; `limit=0` answers the report alone).',
        tags, params: S.ReportParams, querystring: S.ReportQuery, response: responses(S.SettlementReportDetailResponse),
      },
    }, async (req) => {
      const ctx = ctxOf(req);
      return ok(ctx, await service.getReport(ctx, req.params.report_uuid, req.query));
    });

    app.get('/reconciliation/items', {
      config: { profiles: READ },
      schema: {
        operationId: 'listReconciliationItems',
        summary: 'Reconciliation exceptions (and matches), newest first',
        description: 'Every settlement line and missing transaction that is not MATCHED (or the kinds asked for with `kind`, MATCHED included), each with the report\'s line, paygate\'s transaction and why, in pages read by keyset (`cursor`): a page costs the same at any depth.',
        tags, querystring: S.ItemsQuery, response: responses(S.ItemsResponse),
      },
    }, async (req) => {
      const ctx = ctxOf(req);
      return ok(ctx, await service.listItems(ctx, req.query));
    });

    app.get('/reconciliation/items.csv', {
      config: { profiles: READ },
      schema: {
        operationId: 'exportReconciliationItems',
        summary: 'Reconciliation exceptions as CSV',
        description: 'The items of `GET /reconciliation/items` (same filters), at most 100,000, one row each: `KIND,DETAIL,TYPE,ACQUIRER,REPORT,LINE,PROCESSOR_ID,REFERENCE,AMOUNT,CURRENCY,TRANSACTION_DATE,SETTLEMENT_DATE,BATCH,FEE_INTERCHANGE,FEE_SCHEME,FEE_PROCESSING,NET,TRANSACTION_UUID,ORDER_UUID,PAYGATE_AMOUNT,PAYGATE_CURRENCY,PAYGATE_DATE,PAYGATE_STATUS`.',
        tags, querystring: S.ItemsCsvQuery,
        response: csv('KIND,DETAIL,TYPE,ACQUIRER,REPORT,LINE,PROCESSOR_ID,REFERENCE,AMOUNT,CURRENCY,TRANSACTION_DATE,SETTLEMENT_DATE,BATCH,FEE_INTERCHANGE,FEE_SCHEME,FEE_PROCESSING,NET,TRANSACTION_UUID,ORDER_UUID,PAYGATE_AMOUNT,PAYGATE_CURRENCY,PAYGATE_DATE,PAYGATE_STATUS\nSETTLED_LATE,"settled on 2026-03-20, 6 days after the transaction (2026-03-14); expected within 2",PAYMENT,CHECKOUT,2f6d8a1c-4b3e-4c5d-9e7f-0a1b2c3d4e5f,2,pay_7mvqf3jkce2ehmdhddfuzbafke,e8b3d5f1-9a2c-4e7b-b6d4-3f1a8c5e7b20,1050,EUR,2026-03-14,2026-03-20,PO-20260320-01,3,1,5,1041,e8b3d5f1-9a2c-4e7b-b6d4-3f1a8c5e7b20,3c9a7e52-1b4d-4f0e-8a6b-9d2f5c1e7a34,1050,EUR,2026-03-14,SUCCESS\n'),
      },
    }, async (req, reply) => {
      const ctx = ctxOf(req);
      const r = await service.itemsCsv(ctx, req.query);
      return reply.type('text/csv; charset=utf-8').header('Content-Disposition', `attachment; filename="${r.filename}"`).send(r.body);
    });

    app.get('/reconciliation/summary', {
      config: { profiles: READ },
      schema: {
        operationId: 'getReconciliationSummary',
        summary: 'How many items of each kind, and payouts of each status',
        description: 'The counts of every match kind over every imported report, the exceptions among them, and the payouts by status.',
        tags, response: responses(S.SummaryResponse),
      },
    }, async (req) => {
      const ctx = ctxOf(req);
      return ok(ctx, await service.summary(ctx));
    });

    app.get('/reconciliation/payouts', {
      config: { profiles: READ },
      schema: {
        operationId: 'listPayouts',
        summary: 'Payouts: expected vs received',
        description: 'Each acquirer batch of the imported reports: its lines\' gross, fees and net (what the bank should receive), and what the imported bank statements show (RECEIVED, DIFFERENT, MISSING, or EXPECTED while no statement covers its day). Latest settlement day first, in pages (`cursor`).',
        tags, querystring: S.PayoutsQuery, response: responses(S.PayoutsResponse),
      },
    }, async (req) => {
      const ctx = ctxOf(req);
      return ok(ctx, await service.listPayouts(ctx, req.query));
    });

    app.get('/reconciliation/payouts.csv', {
      config: { profiles: READ },
      schema: {
        operationId: 'exportPayouts',
        summary: 'Payouts as CSV',
        description: 'The payouts of `GET /reconciliation/payouts` (same filter), at most 100,000: `STATUS,ACQUIRER,BATCH,CURRENCY,SETTLEMENT_DATE,LINES,GROSS,FEE_INTERCHANGE,FEE_SCHEME,FEE_PROCESSING,FEES,EXPECTED,RECEIVED,RECEIVED_ON,DIFFERENCE,STATEMENT,STATEMENT_LINE,BANK_REFERENCE`.',
        tags, querystring: S.PayoutsCsvQuery,
        response: csv('STATUS,ACQUIRER,BATCH,CURRENCY,SETTLEMENT_DATE,LINES,GROSS,FEE_INTERCHANGE,FEE_SCHEME,FEE_PROCESSING,FEES,EXPECTED,RECEIVED,RECEIVED_ON,DIFFERENCE,STATEMENT,STATEMENT_LINE,BANK_REFERENCE\nRECEIVED,CHECKOUT,PO-20260316-01,EUR,2026-03-16,2,550,3,1,10,14,536,536,2026-03-16,0,9c1e3a5b-7d2f-4e6a-8b0c-1d3e5f7a9b2c,6,PO-20260316-01\n'),
      },
    }, async (req, reply) => {
      const ctx = ctxOf(req);
      const r = await service.payoutsCsv(ctx, req.query);
      return reply.type('text/csv; charset=utf-8').header('Content-Disposition', `attachment; filename="${r.filename}"`).send(r.body);
    });

    app.post('/reconciliation/bank-statements', {
      config: { profiles: [], bodyLimit: UPLOAD_BODY_LIMIT },
      schema: {
        operationId: 'importBankStatement',
        summary: 'Import a bank statement (camt.053 or Norma 43)',
        description: `A statement of the merchant's bank account: ISO 20022 camt.053 (versions 001.02 to 001.13) or the Spanish AEB Norma 43 (Cuaderno 43). Its booked entries are matched to the expected payouts: by the batch reference in the entry's references or remittance information, else by the exact net booked within three days of the settlement day. Balances are checked (opening + entries = closing; Norma 43's record 33 and 88 counts and totals). ${IMPORT}`,
        tags, body: S.StatementUploadBody, response: { ...responses(S.StatementsImportedResponse), 422: FileProblemsResponse },
      },
    }, async (req) => {
      const ctx = ctxOf(req);
      return ok(ctx, await service.uploadStatement(ctx, req.body));
    });

    app.get('/reconciliation/bank-statements', {
      config: { profiles: READ },
      schema: {
        operationId: 'listBankStatements',
        summary: 'The imported bank statements',
        description: 'Newest first, each with its account, period, balances and how many of its entries are payouts, in pages (`cursor`).',
        tags, querystring: S.ListQuery, response: responses(S.StatementsResponse),
      },
    }, async (req) => {
      const ctx = ctxOf(req);
      return ok(ctx, await service.listStatements(ctx, req.query));
    });
  };
}
