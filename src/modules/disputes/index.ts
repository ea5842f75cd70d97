/** Disputes and chargebacks: the public interface of the module. */
export { presentDispute, DISPUTE_EVENT_TYPES } from './disputes.changes.js';
export { DisputesService, DEADLINE_QUEUE, REMINDER_QUEUE, SANDBOX_DECISION_QUEUE } from './disputes.service.js';
export type { NewDispute, EvidenceInput } from './disputes.service.js';
export { disputesRoutes } from './disputes.routes.js';
export { DISPUTE_STATUSES, DISPUTE_STAGES, DISPUTE_CATEGORIES, DISPUTE_EVENTS, disputeTransition, moneyOf, evidenceFields } from './disputes.domain.js';
export type { DisputeStatus, DisputeStage, DisputeCategory, DisputeEvent } from './disputes.domain.js';
