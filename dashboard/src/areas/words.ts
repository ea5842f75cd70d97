/** The words of every area, merged into the dashboard's dictionaries (i18n.ts). */
import * as OverviewWords from './overview/i18n';
import * as TerminalWords from './terminal/i18n';
import * as CampaignsWords from './campaigns/i18n';
import * as BatchesWords from './batches/i18n';
import * as CustomersWords from './customers/i18n';
import * as SubscriptionsWords from './subscriptions/i18n';
import * as DevicesWords from './devices/i18n';
import * as RiskWords from './risk/i18n';
import * as SettingsWords from './settings/i18n';
import * as ReconciliationWords from './reconciliation/i18n';
import * as DisputesWords from './disputes/i18n';
import * as RoutingWords from './routing/i18n';

export const AREA_EN = { ...OverviewWords.EN, ...TerminalWords.EN, ...CampaignsWords.EN, ...BatchesWords.EN, ...CustomersWords.EN, ...SubscriptionsWords.EN, ...DevicesWords.EN, ...RiskWords.EN, ...SettingsWords.EN, ...ReconciliationWords.EN, ...DisputesWords.EN, ...RoutingWords.EN } as const;
export const AREA_ES: Record<keyof typeof AREA_EN, string> = { ...OverviewWords.ES, ...TerminalWords.ES, ...CampaignsWords.ES, ...BatchesWords.ES, ...CustomersWords.ES, ...SubscriptionsWords.ES, ...DevicesWords.ES, ...RiskWords.ES, ...SettingsWords.ES, ...ReconciliationWords.ES, ...DisputesWords.ES, ...RoutingWords.ES };
export const AREA_PT: Record<keyof typeof AREA_EN, string> = { ...OverviewWords.PT, ...TerminalWords.PT, ...CampaignsWords.PT, ...BatchesWords.PT, ...CustomersWords.PT, ...SubscriptionsWords.PT, ...DevicesWords.PT, ...RiskWords.PT, ...SettingsWords.PT, ...ReconciliationWords.PT, ...DisputesWords.PT, ...RoutingWords.PT };
