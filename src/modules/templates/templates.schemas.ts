import { Bool, ContractDate, Maybe, Nullable, Type, Uuid, envelope, signedBody } from '../../platform/http/schemas.js';

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
  { description: 'Payment page template' },
);

export const CreateTemplateBody = signedBody({
  name: Type.String({ minLength: 1, maxLength: 100 }),
  type: Type.String({ description: 'PAYMENT_CARD (also payment-card) or DCC' }),
  logo_url: Type.Optional(Nullable(LogoUrl)),
  button_color: Type.Optional(Nullable(Colour)),
  background_color: Type.Optional(Nullable(Colour)),
  default: Maybe(Bool({ description: 'make it the default of its type (default false)' })),
});

export const UpdateTemplateBody = signedBody({
  name: Type.Optional(Type.String({ minLength: 1, maxLength: 100 })),
  logo_url: Type.Optional(Nullable(LogoUrl)),
  button_color: Type.Optional(Nullable(Colour)),
  background_color: Type.Optional(Nullable(Colour)),
  default: Maybe(Bool()),
});

export const DeleteTemplateBody = signedBody({});

export const TemplateParams = Type.Object({ template_uuid: Uuid });
export const TemplatesQuery = Type.Object({ type: Type.Optional(Type.String({ description: 'PAYMENT_CARD or DCC' })) });

export const TemplateResponse = envelope({ template: Template });
export const TemplatesResponse = envelope({ templates: Type.Array(Template) });

const FrameAncestors = Nullable(Type.Array(Type.String({ maxLength: 300 }), { maxItems: 20, description: "origins allowed to frame the pages ('self', https://shop.example.com, https://*.example.com); null: any origin; []: none" }));

export const PageSettings = Type.Object({ frame_ancestors: FrameAncestors }, { description: 'Settings of the customer pages' });
export const PutPageSettingsBody = signedBody({ frame_ancestors: FrameAncestors });
export const PageSettingsResponse = envelope({ page_settings: PageSettings });
