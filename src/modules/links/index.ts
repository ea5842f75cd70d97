export { LinksService } from './links.service.js';
export type { SendLinkInput } from './links.service.js';
export { linksRoutes } from './links.routes.js';
export { LogSmsProvider } from './sms.js';
export type { SmsProvider, SmsMessage, SmsResult } from './sms.js';
export { parseDestination, smsSender } from './links.domain.js';
