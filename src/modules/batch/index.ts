/** Batch files (H1 payments, H2 refunds): the public interface of the module. */
export { BatchService, BATCH_QUEUE } from './batch.service.js';
export type { BatchFileInput } from './batch.service.js';
export { batchRoutes } from './batch.routes.js';
export { batchTransition, lineTransition, BATCH_STATUSES, LINE_STATUSES } from './batch.domain.js';
export type { BatchStatus, LineStatus, BatchKind } from './batch.domain.js';
export { Batch as BatchSchema } from './batch.schemas.js';
