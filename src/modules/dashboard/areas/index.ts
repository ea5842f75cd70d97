/** Every area's routes and docs, registered by dashboard.routes.ts and documented by dashboard.openapi.ts. */
import type { Area } from './kit.js';
import { area as overview } from './overview.js';
import { area as terminal } from './terminal.js';
import { area as campaigns } from './campaigns.js';
import { area as batches } from './batches.js';
import { area as customers } from './customers.js';
import { area as subscriptions } from './subscriptions.js';
import { area as devices } from './devices.js';
import { area as risk } from './risk.js';
import { area as settings } from './settings.js';
import { area as reconciliation } from './reconciliation.js';
import { area as routing } from './routing.js';

export const AREAS: Area[] = [overview, terminal, campaigns, batches, customers, subscriptions, devices, risk, settings, reconciliation, routing];
