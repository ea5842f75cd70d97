/**
 * The dashboard API routes of the Configuration area: what the merchant API has no operation for. The
 * terminals of the merchant (to link one to a service; credentials as the names of the keys set), the
 * merchant's own settings and its child merchants with their production state, and the preview of the
 * hosted payment page with settings not saved yet (rendered by the pages module; nothing is stored, no
 * order is made). Everything else of the area goes through the bridge to the merchant API.
 */
import { badRequest } from '../../../platform/errors/errors.js';
import { Nullable, Type, Uuid, envelope, responses } from '../../../platform/http/schemas.js';
import { LANGUAGES, previewPage, type Language } from '../../pages/index.js';
import { TerminalSchema } from '../../services/index.js';
import { checkColour, checkLogoUrl } from '../../templates/index.js';
import type { Area } from './kit.js';

const TAG = 'settings';

const Colour = Nullable(Type.String({ maxLength: 7, description: 'colour #RRGGBB; null or absent: the default' }));

const PreviewBody = Type.Object({
  logo_url: Type.Optional(Nullable(Type.String({ maxLength: 2000, description: 'https URL of the logo' }))),
  button_color: Type.Optional(Colour),
  background_color: Type.Optional(Colour),
  theme_type: Type.Optional(Nullable(Type.String({ maxLength: 32, description: 'light or dark (a checkout\'s theme)' }))),
  font: Type.Optional(Nullable(Type.String({ maxLength: 100, description: 'a checkout\'s font' }))),
  description: Type.Optional(Nullable(Type.String({ maxLength: 500, description: 'a checkout\'s description, shown instead of the order\'s' }))),
  order_number: Type.Optional(Nullable(Type.String({ maxLength: 100, description: 'a checkout\'s order number' }))),
  lang: Type.Optional(Type.Unsafe<Language>({ type: 'string', enum: [...LANGUAGES], description: 'language of the page (default en)' })),
}, { additionalProperties: false });

const PreviewResponse = envelope({ html: Type.String({ description: 'the HTML document of the hosted payment page for a sample order' }) });

/** The services module's terminal, its credentials shown only as the keys that are set. */
const { credentials: _credentials, ...terminalFields } = TerminalSchema.properties;
const TerminalRow = Type.Object({
  ...terminalFields,
  credentials_set: Type.Array(Type.String(), { description: 'the credential keys that are set (their values are never shown)' }),
}, { additionalProperties: false });

const TerminalsResponse = envelope({ terminals: Type.Array(TerminalRow) });

const MerchantSettings = Type.Object({
  uuid: Uuid,
  name: Type.String(),
  timezone: Type.String(),
  resend_failed_notifications: Type.Boolean({ description: 'failed notifications are retried (1 min … 72 h), otherwise tried once' }),
  autorecover_transactions: Type.Boolean(),
}, { additionalProperties: false });

const Child = Type.Object({
  uuid: Uuid,
  name: Type.String(),
  email: Type.String(),
  parent_uuid: Nullable(Uuid),
  timezone: Type.String(),
  created_at: Type.String({ description: 'ISO 8601 UTC' }),
  in_production: Type.Boolean({ description: 'a sandbox merchant already promoted to production (always true in production)' }),
}, { additionalProperties: false });

const MerchantSettingsResponse = envelope({ merchant: MerchantSettings, children: Type.Array(Child) });

/** The sample order of the preview. */
const SAMPLE = { amount: 4990, currency: { code: 'EUR', digits: 2 }, description: 'Order 1001 — sample' };

function check<T>(r: { ok: T } | { error: string }): T {
  if ('error' in r) throw badRequest(r.error);
  return r.ok;
}

export const area: Area = {
  routes(kit) {
    const { app, dash, service } = kit;
    // the envelope around an answer, typed as the route's response schema
    const done = <T extends Record<string, unknown>>(fields: T) => kit.done(fields) as { message: string; code: number; current_time: string } & T;

    app.get('/settings/terminals', {
      config: { dashboard: { permission: 'terminals.manage' } },
      schema: { response: responses(TerminalsResponse) },
    }, async (req) => {
      const ctx = await service.ctx(dash(req));
      return done({ terminals: await service.deps.services.listTerminals(ctx) });
    });

    app.get('/settings/merchant', {
      config: { dashboard: { permission: 'settings.manage' } },
      schema: { response: responses(MerchantSettingsResponse) },
    }, async (req) => {
      const ctx = await service.ctx(dash(req));
      return done(await service.deps.merchants.dashboardSettings(ctx));
    });

    app.post('/settings/preview', {
      config: { dashboard: { permission: 'settings.manage' } },
      schema: { body: PreviewBody, response: responses(PreviewResponse) },
    }, async (req) => {
      const b = req.body;
      const ctx = await service.ctx(dash(req));
      const html = previewPage({
        merchantName: ctx.merchant.name,
        env: ctx.env,
        lang: b.lang ?? 'en',
        template: {
          logoUrl: b.logo_url ? check(checkLogoUrl(b.logo_url)) : null,
          buttonColor: b.button_color ? check(checkColour(b.button_color, 'button_color')) : null,
          backgroundColor: b.background_color ? check(checkColour(b.background_color, 'background_color')) : null,
        },
        checkout: b.theme_type || b.font || b.description || b.order_number ? { theme_type: b.theme_type, font: b.font, description: b.description, order_number: b.order_number } : null,
        ...SAMPLE,
      });
      return done({ html });
    });
  },
  docs: {
    'GET /settings/terminals': { operationId: 'dashSettingsTerminals', tag: TAG, summary: 'The terminals of the merchant', description: 'Every terminal of the merchant looked at, to link one to a service. Credentials are write-only: only the names of the keys that are set are listed, never their values.' },
    'GET /settings/merchant': { operationId: 'dashSettingsMerchant', tag: TAG, summary: 'The merchant\'s settings and its child merchants', description: 'What the merchant was created with that concerns notifications (retries of failed notifications) and its child merchants in this environment, each with whether it is already in production.' },
    'POST /settings/preview': { operationId: 'dashSettingsPreview', tag: TAG, summary: 'Preview the hosted payment page', description: 'The HTML of the hosted payment page for a sample order with the given template colours and logo and checkout customization, before they are saved. Nothing is stored and no order is created.' },
  },
  tag: { name: TAG, description: 'Configuration: terminals, the merchant\'s settings and child merchants, and the preview of the hosted payment page.' },
};
