/** The virtual terminal's card form (MoTo payments by phone or mail): the public interface of the module. */
export { TerminalService, FORM_TTL_MS } from './terminal.service.js';
export type { TerminalPaymentInput, TerminalForm } from './terminal.service.js';
export { terminalFormRoutes, TERMINAL_FORM_PATH } from './terminal.routes.js';
