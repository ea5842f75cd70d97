/**
 * Wallets (B14): Google Pay and Apple Pay tokens, the merchants' wallet keys, the wallets of services.
 * The only file other modules import.
 *
 *   const wallets = new WalletsService(p, { payments, services, merchants });
 *   wallets.availability({ merchantId, env })   // GET /client/resources
 *   wallets.offered(serviceId, env)             // the wallet buttons of a page
 */
export { WalletsService, SANDBOX_RECIPIENT_ID, SANDBOX_WALLET_CARD, sandboxMerchantIdentifier } from './wallets.service.js';
export { walletsRoutes } from './wallets.routes.js';
export { WALLETS, WALLET_LABEL, parseWallet } from './wallets.domain.js';
export type { Wallet } from './wallets.domain.js';
