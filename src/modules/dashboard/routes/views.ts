/** The dashboard API routes of the saved views: a user's named filter combinations of the payments list. */
import { responses } from '../../../platform/http/schemas.js';
import * as S from '../dashboard.schemas.js';
import type { Area } from '../areas/kit.js';

export const area: Area = {
  routes({ app, service, done, dash }) {
    const presentView = (v: { id: string; name: string; filters: unknown }) => ({ uuid: v.id, name: v.name, filters: v.filters as Record<string, unknown> });

    app.get('/views', {
      config: { dashboard: { permission: 'payments.read' } },
      schema: { response: responses(S.ViewsResponse) },
    }, async (req) => done({ views: (await service.orders.listViews(dash(req))).map(presentView) }));

    app.post('/views', {
      config: { dashboard: { permission: 'payments.read' } },
      schema: { body: S.ViewBody, response: responses(S.ViewResponse) },
    }, async (req) => done({ view: presentView(await service.orders.saveView(dash(req), req.body.name, req.body.filters)) }));

    app.delete('/views/:uuid', {
      config: { dashboard: { permission: 'payments.read' } },
      schema: { params: S.OrderParams, response: responses(S.EmptyResponse) },
    }, async (req) => {
      await service.orders.deleteView(dash(req), req.params.uuid);
      return done({});
    });
  },
  docs: {
    'GET /views': { operationId: 'listViews', tag: 'payments', summary: 'Saved views', description: 'The user\'s saved filter combinations.' },
    'POST /views': { operationId: 'saveView', tag: 'payments', summary: 'Save a view', description: 'Saves (or replaces, by name) a filter combination of the user.' },
    'DELETE /views/:uuid': { operationId: 'deleteView', tag: 'payments', summary: 'Delete a view', description: 'Deletes one of the user\'s saved views.' },
  },
};
