export { MerchantsService, parseProfiles } from './merchants.service.js';
export type { NewMerchant, IssuedKey } from './merchants.service.js';
export { merchantsRoutes } from './merchants.routes.js';
export { MERCHANT_CATEGORIES, presentMerchant, credentialsEmail } from './merchants.domain.js';
export type { MerchantRow } from './merchants.repo.js';
export { USER_GROUPS, USER_LANGUAGES } from './merchants.domain.js';
export type { FullDashboardUserRow as DashboardUserRow, ApiKeyRow } from './merchants.repo.js';
