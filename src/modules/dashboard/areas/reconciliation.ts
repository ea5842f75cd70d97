/**
 * The dashboard API routes of the reconciliation and payouts areas. Imports, exceptions, reports,
 * payouts, statements and their exports go through the bridge (the merchant API's reconciliation
 * operations); the API has no list of which services' connectors give a settlement report, so this area
 * adds one (the page offers to fetch a day's report from those, and a file upload for the others).
 */
import { Type, Uuid, envelope, responses } from '../../../platform/http/schemas.js';
import type { Area } from './kit.js';

const SourcesResponse = envelope({
  services: Type.Array(Type.Object({
    uuid: Uuid,
    name: Type.String(),
    type: Type.String({ description: 'the service type (its connector)' }),
    enabled: Type.Boolean(),
    settlement_report: Type.Boolean({ description: 'its connector gives a day\'s settlement report through an API (POST /reconciliation/settlements/fetch); otherwise the acquirer\'s file is imported' }),
  }, { additionalProperties: false })),
}, { title: 'DashboardReconciliationSourcesResponse' });

export const area: Area = {
  routes(kit) {
    kit.app.get('/reconciliation/sources', {
      config: { dashboard: { permission: 'reconciliation.read' } },
      schema: { response: responses(SourcesResponse) },
    }, async (req) => {
      const ctx = await kit.service.ctx(kit.dash(req));
      return kit.done({ services: await kit.service.deps.reconciliation.reportSources(ctx) });
    });
  },
  docs: {
    'GET /reconciliation/sources': {
      operationId: 'dashboardReconciliationSources',
      summary: 'Where settlement reports come from',
      description: 'The merchant\'s services in the environment looked at, each saying whether its connector gives a day\'s settlement report through an API (the sandbox simulator does) or its acquirer\'s report is imported as a file.',
      tag: 'reconciliation',
    },
  },
  tag: { name: 'reconciliation', description: 'The reconciliation and payouts areas: where settlement reports come from (imports, exceptions, payouts and statements through the merchant API).' },
};
