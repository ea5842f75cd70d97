/** Disputes and chargebacks: the public interface of the module. */
export { DisputesService } from './disputes.service.js';
export { presentDispute, DISPUTE_EVENT_TYPES, DEADLINE_QUEUE, REMINDER_QUEUE, SANDBOX_DECISION_QUEUE } from './disputes.types.js';
export type { NewDispute, EvidenceInput } from './disputes.types.js';
export { disputesRoutes } from './disputes.routes.js';
export { DISPUTE_STATUSES, DISPUTE_STAGES, DISPUTE_CATEGORIES, DISPUTE_EVENTS, disputeTransition, moneyOf, evidenceFields } from './disputes.domain.js';
export type { DisputeStatus, DisputeStage, DisputeCategory, DisputeEvent } from './disputes.domain.js';
