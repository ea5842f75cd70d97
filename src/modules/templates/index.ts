export { TemplatesService, presentTemplate } from './templates.service.js';
export type { TemplateInput } from './templates.service.js';
export { templatesRoutes } from './templates.routes.js';
export { DEFAULT_TEMPLATES, TEMPLATE_TYPES, frameAncestorsDirective, logoOrigin, checkColour, checkLogoUrl, checkFrameAncestors } from './templates.domain.js';
export type { PageTemplate, TemplateType } from './templates.domain.js';
