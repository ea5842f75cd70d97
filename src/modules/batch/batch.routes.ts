/** HTTP of batch files (H1, H2, and the batch's progress and results). */
import type { FastifyInstance } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { CSV_BODY_LIMIT } from '../../platform/csv/csv.js';
import { ctxOf, ok } from '../../platform/http/respond.js';
import { ErrorEnvelope, FileProblemsResponse, responses } from '../../platform/http/schemas.js';
import * as S from './batch.schemas.js';
import type { BatchService } from './batch.service.js';

const READ = ['batch_authorization', 'batch_refund', 'readonly'] as const;
const tags = ['batch'];

const RULES = 'The file is read first: one that cannot be (not base64, not UTF-8, not CSV, wrong header, more than 10 MiB or 10,000 rows) is 400. Then every row is checked; rows with problems make the whole file 422 with `errors: [{line, msg}]` (line 1 is the header) and nothing is queued. Otherwise each row is processed once, from `execute_at`, by background workers (several gateway processes share the work; a line is never charged or refunded twice, even across a crash). Follow it with `GET /batch/{uuid}`.';

export function batchRoutes(service: BatchService) {
  return async (scope: FastifyInstance) => {
    const app = scope.withTypeProvider<TypeBoxTypeProvider>();

    app.post('/batch/authorizations', {
      config: { profiles: ['batch_authorization'], bodyLimit: CSV_BODY_LIMIT },
      schema: {
        operationId: 'submitBatchAuthorizations',
        summary: 'H1 Payments file',
        description: `Each row becomes one order paid with a stored card as a merchant-initiated payment. ${RULES}`,
        tags, body: S.AuthorizationsBody, response: { ...responses(S.BatchSubmitted), 422: FileProblemsResponse },
      },
    }, async (req) => {
      const ctx = ctxOf(req);
      return ok(ctx, await service.submit(ctx, 'AUTHORIZATION', req.body));
    });

    app.post('/batch/refunds', {
      config: { profiles: ['batch_refund'], bodyLimit: CSV_BODY_LIMIT },
      schema: {
        operationId: 'submitBatchRefunds',
        summary: 'H2 Refunds file',
        description: `Each row refunds an order, all of its refundable remainder (AMOUNT empty) or part; one row per order. An order whose state changed after the check (refunded meanwhile) gets its line marked FAILED with the reason. ${RULES}`,
        tags, body: S.RefundsBody, response: { ...responses(S.BatchSubmitted), 422: FileProblemsResponse },
      },
    }, async (req) => {
      const ctx = ctxOf(req);
      return ok(ctx, await service.submit(ctx, 'REFUND', req.body));
    });

    app.get('/batch/:batch_uuid', {
      config: { profiles: READ },
      schema: {
        operationId: 'getBatch',
        summary: 'Read a batch: progress and each line\'s outcome',
        description: 'Counts and progress of the file, and every line with its order and outcome. With `limit`, a page of the lines (and `next_offset`); `limit=0` answers the counts alone, a cheap way to follow a large file.',
        tags, params: S.BatchParams, querystring: S.BatchQuery, response: responses(S.BatchStatus),
      },
    }, async (req) => {
      const ctx = ctxOf(req);
      return ok(ctx, await service.get(ctx, req.params.batch_uuid, req.query));
    });

    app.get('/batch/:batch_uuid/results.csv', {
      config: { profiles: READ },
      schema: {
        operationId: 'getBatchResults',
        summary: 'The results of a batch as CSV',
        description: 'One row per line of the file: `LINE,STATUS,ORDER_UUID,AMOUNT,OUTCOME,ERROR`.',
        tags, params: S.BatchParams,
        response: {
          200: { description: 'The results file', content: { 'text/csv': { schema: { type: 'string' }, example: 'LINE,STATUS,ORDER_UUID,AMOUNT,OUTCOME,ERROR\n2,SUCCEEDED,3c9a7e52-1b4d-4f0e-8a6b-9d2f5c1e7a34,1500,SUCCESS,\n3,FAILED,8d2f4a6b-1c3e-4f5a-9b7c-2d4e6f8a0b1c,2500,REFUSED,Card declined by the issuer\n' } } },
          '4xx': ErrorEnvelope,
          '5xx': ErrorEnvelope,
        },
      },
    }, async (req, reply) => {
      const ctx = ctxOf(req);
      const r = await service.resultsCsv(ctx, req.params.batch_uuid);
      return reply.type('text/csv; charset=utf-8').header('Content-Disposition', `attachment; filename="${r.filename}"`).send(r.body);
    });
  };
}
