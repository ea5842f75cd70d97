/**
 * The dashboard API routes of the Routing area. Profiles are read, created, replaced, deleted and tried,
 * and the services' health is read, through the bridge (the merchant API's routing operations); the API
 * has no list that names each profile's entry service or the services a profile may name, so this area
 * adds one: the profiles in short (entry service by name, rules counted) and the merchant's services.
 */
import { Nullable, Type, Uuid, envelope, responses } from '../../../platform/http/schemas.js';
import { listServices } from '../../services/index.js';
import type { Area } from './kit.js';

const TAG = 'routing';

const ProfileRow = Type.Object({
  uuid: Uuid,
  name: Type.String(),
  service_uuid: Uuid,
  service_name: Nullable(Type.String({ description: 'the entry service\'s name; null when it is no longer one of the merchant\'s services' })),
  status: Type.String({ enum: ['ACTIVE', 'DRAFT'] }),
  version: Type.Integer(),
  max_attempts: Type.Integer(),
  rules: Type.Integer({ description: 'how many rules the profile has' }),
  updated_at: Type.String({ description: 'ISO 8601 UTC' }),
}, { additionalProperties: false });

const ServiceRow = Type.Object({
  uuid: Uuid,
  name: Type.String(),
  type: Type.String({ description: 'the service type (its connector)' }),
  enabled: Type.Boolean(),
}, { additionalProperties: false });

const OverviewResponse = envelope({
  routing_profiles: Type.Array(ProfileRow, { description: 'newest first' }),
  services: Type.Array(ServiceRow, { description: 'the merchant\'s services in the environment looked at: the entry services and the services a rule may name' }),
}, { title: 'DashboardRoutingOverviewResponse' });

export const area: Area = {
  routes(kit) {
    kit.app.get('/routing/overview', {
      config: { dashboard: { permission: 'routing.read' } },
      schema: { response: responses(OverviewResponse) },
    }, async (req) => {
      const ctx = await kit.service.ctx(kit.dash(req));
      const [{ routing_profiles: profiles }, rows] = await Promise.all([
        kit.service.deps.routing.list(ctx, {}),
        listServices(kit.service.db, ctx.merchant.id),
      ]);
      const services = rows.filter((s) => s.env === ctx.env).map((s) => ({ uuid: s.id, name: s.name, type: s.type, enabled: s.enabled }));
      const names = new Map(services.map((s) => [s.uuid, s.name]));
      return kit.done({
        routing_profiles: profiles.map((p) => ({
          uuid: p.uuid, name: p.name, service_uuid: p.service_uuid, service_name: names.get(p.service_uuid) ?? null,
          status: p.status, version: p.version, max_attempts: p.max_attempts, rules: p.rules.length, updated_at: p.updated_at,
        })),
        services,
      });
    });
  },
  docs: {
    'GET /routing/overview': {
      operationId: 'dashboardRoutingOverview',
      summary: 'The routing profiles in short, and the services they may name',
      description: 'The merchant\'s routing profiles in the environment looked at, newest first, each with its entry service\'s name, status, version and how many rules it has; and the merchant\'s services in that environment (name, type, enabled), which a profile\'s entry service and its rules\' services are chosen from. A profile itself, its changes, trying it and the services\' health go through the merchant API.',
      tag: TAG,
    },
  },
  tag: { name: TAG, description: 'The Routing area: the profiles in short and the services they may name (the profiles themselves, trying one and the health through the merchant API).' },
};
