/**
 * Every route group of the dashboard's JSON API, in the order they are registered (and documented):
 * the session, the payments list, developers, users, the bridge to the merchant API, the areas after the
 * payments list (areas/), and the saved views. Each is an `Area` (areas/kit.ts): its routes and docs.
 */
import type { Area } from '../areas/kit.js';
import { AREAS } from '../areas/index.js';
import { area as session } from './session.js';
import { area as payments } from './payments.js';
import { area as developers } from './developers.js';
import { area as users } from './users.js';
import { area as bridge } from './bridge.js';
import { area as views } from './views.js';

export const ROUTE_GROUPS: Area[] = [session, payments, developers, users, bridge, ...AREAS, views];
