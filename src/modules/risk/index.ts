/**
 * Risk: security lists, antifraud and the exemptions from strong customer authentication. The only file
 * other modules import.
 *
 *   const risk = new RiskService(p, { sources });
 *   new PaymentsService(p, { ..., risk })           // RiskEvaluator: every card payment is evaluated
 *   risk.assertTokenizable(db, owner, card)        // F1/F2: 400 for a card under suspected fraud
 *   risk.blacklistCheck(owner, cards)              // card listings: which cards a black list holds
 */
export { RiskService, REJECTED_CARD_SECONDS } from './risk.service.js';
export type { RiskDeps } from './risk.service.js';
export { riskRoutes } from './risk.routes.js';
export { DEFAULT_SETTINGS, SANDBOX_IP_COUNTRIES, SANDBOX_TRIGGERS, ITEM_TYPES, LIST_TYPES, RULE_NAMES } from './risk.domain.js';
export type { RiskSettings, ItemType, ListType } from './risk.domain.js';
