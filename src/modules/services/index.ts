export { ServicesService } from './services.service.js';
export type { NewService, NewTerminal } from './services.service.js';
export { servicesRoutes } from './services.routes.js';
export { SERVICE_TYPES, REDSYS_FAMILY, isRedsysFamily } from './services.domain.js';
export type { ServiceType } from './services.domain.js';
export { findServiceWithTerminal, findDefaultServiceForCurrency, findTerminal, listServices } from './services.repo.js';
export type { ServiceRow, TerminalRow, ServiceWithTerminal } from './services.repo.js';
export { Service as ServiceSchema, Terminal as TerminalSchema } from './services.schemas.js';
