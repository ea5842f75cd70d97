/** Routing and cascading: the public interface of the module (docs/routing.md). */
export { RoutingService, ROUTING_CIRCUIT_OPENED, presentProfile } from './routing.service.js';
export type { RoutingOptions } from './routing.service.js';
export { routingRoutes } from './routing.routes.js';
export { decide, fnv1a, splitPoint } from './routing.decide.js';
export type { Attempt, Decision, DecideOptions } from './routing.decide.js';
export { cascadeAllowed, CASCADE_TABLE } from './routing.retry.js';
export type { FailedAttempt, CascadeVerdict, FailureCode } from './routing.retry.js';
export { compileProfile, profileProblems, CONDITION_TYPES, CHANNELS, CARD_TYPES, PROFILE_STATUSES } from './routing.domain.js';
export type { Facts, Profile, CompiledProfile, Rule, Condition, Action, Channel, CardType, ProfileStatus } from './routing.domain.js';
export { breakerTransition, ATTEMPT_OUTCOMES, BREAKER_STATES, DEFAULT_BREAKER } from './routing.breaker.js';
export type { AttemptOutcome, BreakerState, BreakerSettings } from './routing.breaker.js';
export { HealthTracker, DEFAULT_HEALTH } from './routing.health.js';
export type { HealthSnapshot, HealthSettings } from './routing.health.js';
export type { BinFacts, BinInfo } from './routing.bins.js';
export { PaymentRouting } from './routing.payments.js';
export type { PaymentRoute, PaymentRoutingFacts } from './routing.payments.js';
