export { PagesService } from './pages.service.js';
export type { PageOrder } from './pages.service.js';
export { pagesRoutes } from './pages.routes.js';
export { widgetRoutes, WIDGET_MAX_AGE_S } from './card-form.routes.js';
export { CARD_FORM_MAX_FAILURES } from './card-form.service.js';
export { LANGUAGES, CATALOGUES, DEFAULT_LANGUAGE, parseLanguage, chooseLanguage, translate, translator, formatMoney, formatDateTime } from './i18n/index.js';
export type { Language, MessageKey, Catalogue, T } from './i18n/index.js';
export { escapeHtml, html, safeUrl } from './html.js';
export { textOn } from './pages.domain.js';
