/** MoTo campaigns: the public interface of the module. */
export { CampaignsService, MOTO_QUEUE } from './campaigns.service.js';
export type { FileCampaignInput, JsonCampaignInput } from './campaigns.service.js';
export { campaignsRoutes } from './campaigns.routes.js';
export { campaignTransition, paymentTransition, CAMPAIGN_STATUSES, PAYMENT_STATUSES, maskDestination } from './campaigns.domain.js';
export type { CampaignStatus, MotoPaymentStatus } from './campaigns.domain.js';
export { verifyCertificate } from './certificates.js';
export type { Evidence, Verification } from './certificates.js';
export { CampaignDetail as CampaignDetailSchema } from './campaigns.schemas.js';
