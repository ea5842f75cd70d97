/**
 * The dashboard API routes of the batches area: the list of the merchant's batch files (the API reads
 * one file by its uuid, H1/H2 upload it; the list is the dashboard's). Upload, progress and results go
 * through the bridge.
 */
import { BatchSchema } from '../../batch/index.js';
import { Nullable, Type, envelope, responses } from '../../../platform/http/schemas.js';
import type { Area } from './kit.js';

const ListQuery = Type.Object({
  limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 200, default: 50 })),
  offset: Type.Optional(Type.Integer({ minimum: 0, maximum: 1_000_000, default: 0 })),
});

const BatchesResponse = envelope({
  batches: Type.Array(BatchSchema, { description: 'newest first' }),
  next_offset: Nullable(Type.Integer({ description: 'offset of the next page; null on the last page' })),
}, { title: 'DashboardBatchesResponse' });

export const area: Area = {
  routes(kit) {
    kit.app.get('/batches', {
      config: { dashboard: { permission: 'batch.read' } },
      schema: { querystring: ListQuery, response: responses(BatchesResponse) },
    }, async (req) => {
      const ctx = await kit.service.ctx(kit.dash(req));
      return kit.done(await kit.service.deps.batch.list(ctx, req.query));
    });
  },
  docs: {
    'GET /batches': {
      operationId: 'dashboardListBatches',
      summary: 'The merchant\'s batch files',
      description: 'Every payments (H1) and refunds (H2) file of the merchant in the environment looked at, newest first, with its state, execute_at and the counts of its lines, in pages (limit, offset, next_offset).',
      tag: 'batches',
    },
  },
  tag: { name: 'batches', description: 'The batch files area: the list of files (upload, progress and results through the merchant API).' },
};
