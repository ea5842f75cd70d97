/**
 * The dashboard API routes of the virtual terminal: what the API has no operation for. Orders and
 * payment links go through the bridge (B1, B2); a MoTo card payment opens the gateway's own card form
 * (the dashboard never carries card data, and B11 through the bridge is refused on purpose).
 */
import { Nullable, Type, Uuid, envelope, responses } from '../../../platform/http/schemas.js';
import { AMOUNT_MAX } from '../../../platform/http/schemas.js';
import type { Area } from './kit.js';

const TAG = 'terminal';

const SessionBody = Type.Object({
  amount: Type.Integer({ minimum: 1, maximum: AMOUNT_MAX, description: 'minor units' }),
  currency: Type.Optional(Nullable(Type.String({ pattern: '^[A-Za-z]{3}$', description: 'ISO 4217 alpha-3; required without `service`' }))),
  service: Type.Optional(Nullable(Uuid)),
  description: Type.String({ minLength: 1, maxLength: 500 }),
  operative: Type.Optional(Type.Union([Type.Literal('AUTHORIZATION'), Type.Literal('DEFERRED')])),
  customer_ext_id: Type.Optional(Nullable(Type.String({ maxLength: 64 }))),
  reference: Type.Optional(Nullable(Type.String({ maxLength: 64 }))),
  additional: Type.Optional(Nullable(Type.String({ maxLength: 500 }))),
  method: Type.Union([Type.Literal('PHONE'), Type.Literal('MAIL')], { description: 'how the card was given: by phone or by mail' }),
  language: Type.Optional(Type.Union([Type.Literal('EN'), Type.Literal('ES'), Type.Literal('PT')])),
});

const SessionResponse = envelope({
  order_uuid: Uuid,
  form_url: Type.String({ description: 'the gateway\'s card form for this payment (same origin): works once' }),
  expires_at: Type.String({ description: 'ISO 8601 UTC' }),
});

const Named = Type.Object({ uuid: Type.String(), name: Type.String() });
const OptionsResponse = envelope({
  pci: Type.Boolean({ description: 'the merchant may take card data (is_pci): the card form is available' }),
  templates: Type.Array(Named, { description: 'the merchant\'s payment-page templates' }),
  services: Type.Array(Type.Object({ uuid: Type.String(), name: Type.String(), enabled: Type.Boolean() }), { description: 'the merchant\'s services' }),
});

export const area: Area = {
  routes(kit) {
    kit.app.post('/terminal/sessions', {
      config: { dashboard: { permission: 'manual.create' } },
      schema: { body: SessionBody, response: responses(SessionResponse) },
    }, async (req) => {
      const s = kit.dash(req);
      const ctx = await kit.service.ctx(s);
      const b = req.body;
      const form = await kit.service.deps.terminal.open(ctx, s.user.id, { ...b, currency: b.currency ? b.currency.toUpperCase() : null, language: b.language ?? s.user.language });
      await kit.service.auditAction(s, 'terminal.moto', form.order_uuid, { amount: b.amount, currency: b.currency ?? null, method: b.method });
      return kit.done({ order_uuid: form.order_uuid, form_url: form.path, expires_at: form.expires_at.toISOString() });
    });

    kit.app.get('/terminal/templates', {
      config: { dashboard: { permission: 'manual.create' } },
      schema: { response: responses(OptionsResponse) },
    }, async (req) => {
      const ctx = await kit.service.ctx(kit.dash(req));
      const [templates, services] = await Promise.all([
        kit.service.deps.templates.list(ctx, { type: 'PAYMENT_CARD' }),
        kit.service.deps.services.listServices(ctx, ctx.merchant.id),
      ]);
      return kit.done({
        pci: ctx.merchant.isPci,
        templates: templates.map((t) => ({ uuid: t.uuid, name: t.name })),
        services: services.map((x) => ({ uuid: x.uuid, name: x.name, enabled: x.enabled })),
      });
    });
  },
  docs: {
    'POST /terminal/sessions': {
      operationId: 'openTerminalForm',
      summary: 'Open the card form of a MoTo payment',
      description: 'Creates the order (B1, not charged) and a one-time card form of the gateway (15 minutes, one use, and only while the user who opened it is active and in a group with manual.create) where the card given by phone or mail is typed; the form pays the order with B11. PCI-compliant merchants only (403 otherwise). Audited.',
      tag: TAG,
    },
    'GET /terminal/templates': {
      operationId: 'terminalOptions',
      summary: 'Templates and services for the virtual terminal',
      description: 'The merchant\'s payment-page templates (uuid and name) for payment links, its services, and whether it may take card data (is_pci).',
      tag: TAG,
    },
  },
  tag: { name: TAG, description: 'The virtual terminal: MoTo card payments through the gateway\'s own card form, payment links' },
};
