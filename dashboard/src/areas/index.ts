/**
 * The dashboard's areas after the payments list: each one a folder (its page and its words), listed
 * here once; the shell builds the menu and the routes from this list. `visible` mirrors the server's
 * role table: an area a group may not use is not in its menu (and its routes answer 403 anyway).
 */
import type { ComponentType } from 'react';
import type { Permission } from '../api';
import type { AreaProps } from './types';
import { OverviewPage } from './overview';
import { TerminalPage } from './terminal';
import { CampaignsPage } from './campaigns';
import { BatchesPage } from './batches';
import { CustomersPage } from './customers';
import { SubscriptionsPage } from './subscriptions';
import { DevicesPage } from './devices';
import { RiskPage } from './risk';
import { SettingsPage } from './settings';

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
  { id: 'settings', path: '/settings', nav: 'nav.settings', visible: (can) => can('settings.manage') || can('terminals.manage'), Page: SettingsPage },
];
