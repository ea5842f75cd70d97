/** HTTP of page templates and page settings (ours). Thin: schema, profiles, one service call. */
import type { FastifyInstance } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { ctxOf, ok } from '../../platform/http/respond.js';
import { responses } from '../../platform/http/schemas.js';
import * as S from './templates.schemas.js';
import type { TemplatesService } from './templates.service.js';

const WRITE = ['payment'] as const;
const READ = ['payment', 'readonly'] as const;

export function templatesRoutes(service: TemplatesService) {
  return async (scope: FastifyInstance) => {
    const app = scope.withTypeProvider<TypeBoxTypeProvider>();

    app.post('/template', {
      config: { profiles: WRITE },
      schema: {
        operationId: 'createTemplate',
        summary: 'Create a payment page template',
        description: 'Types PAYMENT_CARD (the hosted payment page; chosen by the order\'s `template_uuid`) and DCC (chosen by `dcc_template_uuid`). Colours are #RRGGBB; the logo is an https URL. `default: true` makes it the template of orders that name none.',
        tags: ['templates'], body: S.CreateTemplateBody, response: responses(S.TemplateResponse),
      },
    }, async (req) => {
      const ctx = ctxOf(req);
      return ok(ctx, { template: await service.create(ctx, req.body) });
    });

    app.get('/templates', {
      config: { profiles: READ },
      schema: { operationId: 'listTemplates', summary: 'List payment page templates', description: 'The merchant\'s templates, optionally of one `type` (PAYMENT_CARD or DCC).', tags: ['templates'], querystring: S.TemplatesQuery, response: responses(S.TemplatesResponse) },
    }, async (req) => {
      const ctx = ctxOf(req);
      return ok(ctx, { templates: await service.list(ctx, req.query) });
    });

    app.get('/template/:template_uuid', {
      config: { profiles: READ },
      schema: { operationId: 'getTemplate', summary: 'Read a payment page template', description: 'One template of the merchant; any other is 404.', tags: ['templates'], params: S.TemplateParams, response: responses(S.TemplateResponse) },
    }, async (req) => {
      const ctx = ctxOf(req);
      return ok(ctx, { template: await service.get(ctx, req.params.template_uuid) });
    });

    app.put('/template/:template_uuid', {
      config: { profiles: WRITE },
      schema: {
        operationId: 'updateTemplate',
        summary: 'Update a payment page template',
        description: 'Fields given are changed; `null` clears a logo or colour (the default applies). The type cannot change.',
        tags: ['templates'], params: S.TemplateParams, body: S.UpdateTemplateBody, response: responses(S.TemplateResponse),
      },
    }, async (req) => {
      const ctx = ctxOf(req);
      return ok(ctx, { template: await service.update(ctx, req.params.template_uuid, req.body) });
    });

    app.delete('/template/:template_uuid', {
      config: { profiles: WRITE },
      schema: {
        operationId: 'deleteTemplate',
        summary: 'Delete a payment page template',
        description: 'Orders that named it use the merchant\'s default (or the built-in one) from then on.',
        tags: ['templates'], params: S.TemplateParams, body: S.DeleteTemplateBody, response: responses(S.TemplateResponse),
      },
    }, async (req) => {
      const ctx = ctxOf(req);
      return ok(ctx, { template: await service.remove(ctx, req.params.template_uuid) });
    });

    app.get('/page-settings', {
      config: { profiles: READ },
      schema: { operationId: 'getPageSettings', summary: 'Read the settings of the customer pages', description: 'Which origins may show the payment pages in a frame.', tags: ['templates'], response: responses(S.PageSettingsResponse) },
    }, async (req) => {
      const ctx = ctxOf(req);
      return ok(ctx, { page_settings: await service.getPageSettings(ctx) });
    });

    app.put('/page-settings', {
      config: { profiles: WRITE },
      schema: {
        operationId: 'updatePageSettings',
        summary: 'Change the settings of the customer pages',
        description: '`frame_ancestors`: the origins allowed to show the pages in a frame (CSP frame-ancestors). null (the default) allows any origin; [] allows none.',
        tags: ['templates'], body: S.PutPageSettingsBody, response: responses(S.PageSettingsResponse),
      },
    }, async (req) => {
      const ctx = ctxOf(req);
      return ok(ctx, { page_settings: await service.putPageSettings(ctx, req.body) });
    });
  };
}
