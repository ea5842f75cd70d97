import { Bool, ContractDate, EXAMPLE_SIGNATURE as signature, Maybe, Nullable, Type, Uuid, envelope, signedBody } from '../../platform/http/schemas.js';

const TEMPLATE_EXAMPLE = {
  uuid: 'd1f3a5c7-9e1b-4d3f-8a5c-7e9b1d3f5a7c',
  type: 'PAYMENT_CARD',
  name: 'Shop blue',
  logo_url: 'https://shop.example/logo.svg',
  button_color: '#0A58CA',
  background_color: '#F5F7FA',
  default: true,
  created: '2026-03-14T10:21:07+0100',
  updated: '2026-03-14T10:21:07+0100',
};

const Colour = Type.String({ pattern: '^#[0-9A-Fa-f]{6}$', description: 'colour #RRGGBB' });
const LogoUrl = Type.String({ maxLength: 2000, description: 'https URL of the logo image (shown with <img>)' });

export const Template = Type.Object(
  {
    uuid: Uuid,
    type: Type.Enum(['PAYMENT_CARD', 'DCC']),
    name: Type.String(),
    logo_url: Nullable(Type.String()),
    button_color: Nullable(Type.String()),
    background_color: Nullable(Type.String()),
    default: Type.Boolean({ description: 'used for orders that name no template' }),
    created: ContractDate,
    updated: ContractDate,
  },
  { title: 'Template', description: 'The look of the payment pages: logo and colours', examples: [TEMPLATE_EXAMPLE] },
);

export const CreateTemplateBody = signedBody({
  name: Type.String({ minLength: 1, maxLength: 100 }),
  type: Type.String({ description: 'PAYMENT_CARD (also payment-card) or DCC' }),
  logo_url: Type.Optional(Nullable(LogoUrl)),
  button_color: Type.Optional(Nullable(Colour)),
  background_color: Type.Optional(Nullable(Colour)),
  default: Maybe(Bool({ description: 'make it the default of its type (default false)' })),
}, { title: 'CreateTemplateRequest', examples: [{ signature, name: 'Shop blue', type: 'PAYMENT_CARD', logo_url: 'https://shop.example/logo.svg', button_color: '#0A58CA', background_color: '#F5F7FA', default: true }] });

export const UpdateTemplateBody = signedBody({
  name: Type.Optional(Type.String({ minLength: 1, maxLength: 100 })),
  logo_url: Type.Optional(Nullable(LogoUrl)),
  button_color: Type.Optional(Nullable(Colour)),
  background_color: Type.Optional(Nullable(Colour)),
  default: Maybe(Bool()),
}, { title: 'UpdateTemplateRequest', examples: [{ signature, button_color: '#198754', logo_url: null }] });

export const DeleteTemplateBody = signedBody({}, { examples: [{ signature }] });

export const TemplateParams = Type.Object({ template_uuid: Uuid });
export const TemplatesQuery = Type.Object({ type: Type.Optional(Type.String({ description: 'PAYMENT_CARD or DCC' })) });

export const TemplateResponse = envelope({ template: Template }, { title: 'TemplateResponse' });
export const TemplatesResponse = envelope({ templates: Type.Array(Template) }, { title: 'TemplateListResponse' });

const FrameAncestors = Nullable(Type.Array(Type.String({ maxLength: 300 }), { maxItems: 20, description: "origins allowed to frame the pages ('self', https://shop.example.com, https://*.example.com); null: any origin; []: none" }));

export const PageSettings = Type.Object({ frame_ancestors: FrameAncestors }, {
  title: 'PageSettings',
  description: 'Settings of the customer pages',
  examples: [{ frame_ancestors: ['https://shop.example', 'https://*.shop.example'] }],
});
export const PutPageSettingsBody = signedBody({ frame_ancestors: FrameAncestors }, { examples: [{ signature, frame_ancestors: ['https://shop.example'] }] });
export const PageSettingsResponse = envelope({ page_settings: PageSettings });
