/**
 * The dashboard's areas after the payments list: each one a folder (its page and its words), listed
 * here once; the shell builds the menu and the routes from this list. `visible` mirrors the server's
 * role table: an area a group may not use is not in its menu (and its routes answer 403 anyway).
 *
 * Each area's page is a script of its own, loaded when the area is first opened (React.lazy): the
 * sign-in page and the shell never download the charts of the overview or the editors of the settings.
 * Only the words (./words.ts) are in the first script.
 */
import { lazy, type ComponentType } from 'react';
import type { Permission } from '../api';
import type { AreaProps } from './types';

const OverviewPage = lazy(() => import('./overview').then((x) => ({ default: x.OverviewPage })));
const TerminalPage = lazy(() => import('./terminal').then((x) => ({ default: x.TerminalPage })));
const CampaignsPage = lazy(() => import('./campaigns').then((x) => ({ default: x.CampaignsPage })));
const BatchesPage = lazy(() => import('./batches').then((x) => ({ default: x.BatchesPage })));
const CustomersPage = lazy(() => import('./customers').then((x) => ({ default: x.CustomersPage })));
const SubscriptionsPage = lazy(() => import('./subscriptions').then((x) => ({ default: x.SubscriptionsPage })));
const DevicesPage = lazy(() => import('./devices').then((x) => ({ default: x.DevicesPage })));
const RiskPage = lazy(() => import('./risk').then((x) => ({ default: x.RiskPage })));
const SettingsPage = lazy(() => import('./settings').then((x) => ({ default: x.SettingsPage })));
const ReconciliationPage = lazy(() => import('./reconciliation').then((x) => ({ default: x.ReconciliationPage })));
const PayoutsPage = lazy(() => import('./reconciliation').then((x) => ({ default: x.PayoutsPage })));
const DisputesPage = lazy(() => import('./disputes').then((x) => ({ default: x.DisputesPage })));
const RoutingPage = lazy(() => import('./routing').then((x) => ({ default: x.RoutingPage })));

export interface Area {
  id: string;
  /** the area's path prefix in the dashboard */
  path: string;
  /** its menu entry's word */
  nav: `nav.${string}`;
  visible: (can: (permission: Permission) => boolean) => boolean;
  Page: ComponentType<AreaProps>;
}

export const AREAS: Area[] = [
  { id: 'overview', path: '/overview', nav: 'nav.overview', visible: (can) => can('payments.read'), Page: OverviewPage },
  { id: 'terminal', path: '/terminal', nav: 'nav.terminal', visible: (can) => can('manual.create'), Page: TerminalPage },
  { id: 'campaigns', path: '/campaigns', nav: 'nav.campaigns', visible: (can) => can('moto.read'), Page: CampaignsPage },
  { id: 'batches', path: '/batches', nav: 'nav.batches', visible: (can) => can('batch.read'), Page: BatchesPage },
  { id: 'customers', path: '/customers', nav: 'nav.customers', visible: (can) => can('cards.read'), Page: CustomersPage },
  { id: 'subscriptions', path: '/subscriptions', nav: 'nav.subscriptions', visible: (can) => can('subscriptions.read'), Page: SubscriptionsPage },
  { id: 'devices', path: '/devices', nav: 'nav.devices', visible: (can) => can('devices.read'), Page: DevicesPage },
  { id: 'risk', path: '/risk', nav: 'nav.risk', visible: (can) => can('risk.read'), Page: RiskPage },
  { id: 'reconciliation', path: '/reconciliation', nav: 'nav.reconciliation', visible: (can) => can('reconciliation.read'), Page: ReconciliationPage },
  { id: 'payouts', path: '/payouts', nav: 'nav.payouts', visible: (can) => can('reconciliation.read'), Page: PayoutsPage },
  { id: 'disputes', path: '/disputes', nav: 'nav.disputes', visible: (can) => can('disputes.read'), Page: DisputesPage },
  { id: 'routing', path: '/routing', nav: 'nav.routing', visible: (can) => can('routing.read'), Page: RoutingPage },
  { id: 'settings', path: '/settings', nav: 'nav.settings', visible: (can) => can('settings.manage') || can('terminals.manage'), Page: SettingsPage },
];
