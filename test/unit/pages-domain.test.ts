/** Pure rules of the pages and templates: views, redirects, CSP, escaping, template validation. */
import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { escapeHtml, html, jsonForScript, safeUrl } from '../../src/modules/pages/html.js';
import {
  checkoutMethods,
  contentSecurityPolicy,
  destinationAfter,
  originOf,
  pageViewFor,
  parseCheckout,
  statusOfView,
  textOn,
  MAX_PAGE_ATTEMPTS,
} from '../../src/modules/pages/pages.domain.js';
import { checkColour, checkFrameAncestors, checkLogoUrl, frameAncestorsDirective, parseTemplateType } from '../../src/modules/templates/templates.domain.js';
import { parseDestination, smsSender, emailHtml } from '../../src/modules/links/links.domain.js';
import { useTestSeed } from '../helpers/seed.js';

useTestSeed(import.meta.url);

const NOW = new Date('2026-06-15T10:00:00Z');
const LATER = new Date('2026-06-15T11:00:00Z');

describe('what a page shows', () => {
  it('by order status and expiry', () => {
    const v = (status: any, expiresAt = LATER, failedAttempts = 0) => pageViewFor({ status, expiresAt, failedAttempts }, NOW).kind;
    expect(v('CREATED')).toBe('form');
    expect(v('REFUSED')).toBe('form');
    expect(v('ERROR')).toBe('form');
    expect(v('CREATED', NOW)).toBe('expired');
    expect(v('EXPIRED')).toBe('expired');
    expect(v('SUCCESS')).toBe('paid');
    expect(v('PENDING_CONFIRMATION')).toBe('paid');
    expect(v('REFUNDED')).toBe('paid');
    expect(v('PENDING_PROCESSOR_RESPONSE')).toBe('processing');
    expect(v('PENDING_3DS_RESPONSE')).toBe('pending3ds');
    expect(v('PENDING_3DS_RESPONSE', NOW)).toBe('expired');
    expect(v('CANCELLED')).toBe('closed');
    expect(v('REFUSED', LATER, MAX_PAGE_ATTEMPTS)).toBe('attempts');
  });

  it('status codes: a used or expired link is 410, the flow\'s own result 200', () => {
    expect(statusOfView({ kind: 'paid' }, 'ok')).toBe(200);
    expect(statusOfView({ kind: 'paid' }, null)).toBe(410);
    expect(statusOfView({ kind: 'expired' }, null)).toBe(410);
    expect(statusOfView({ kind: 'form' }, null)).toBe(200);
  });

  it('after a payment: url_ok on success, url_ko otherwise, the challenge for 3DS', () => {
    const urls = { ok: 'https://shop/ok', ko: 'https://shop/ko' };
    expect(destinationAfter('SUCCESS', urls)).toEqual({ to: 'url', url: 'https://shop/ok' });
    expect(destinationAfter('PENDING_CONFIRMATION', urls)).toEqual({ to: 'url', url: 'https://shop/ok' });
    expect(destinationAfter('REFUSED', urls)).toEqual({ to: 'url', url: 'https://shop/ko' });
    expect(destinationAfter('EXPIRED', urls)).toEqual({ to: 'url', url: 'https://shop/ko' });
    expect(destinationAfter('PENDING_3DS_RESPONSE', urls)).toEqual({ to: '3ds' });
    expect(destinationAfter('PENDING_PROCESSOR_RESPONSE', urls)).toEqual({ to: 'page', result: null });
    expect(destinationAfter('SUCCESS', { ok: null, ko: null })).toEqual({ to: 'page', result: 'ok' });
    expect(destinationAfter('REFUSED', { ok: null, ko: null })).toEqual({ to: 'page', result: 'ko' });
  });
});

describe('Content-Security-Policy', () => {
  it('allows only our nonce, the logo origin, the gateway and redirect targets as form targets, and the framing setting', () => {
    const csp = contentSecurityPolicy({ nonce: 'abc', imgOrigins: ['https://cdn.shop'], formTargets: ['https://shop', 'https://shop'], frameAncestors: '*' });
    expect(csp).toBe("default-src 'none'; script-src 'nonce-abc'; style-src 'nonce-abc'; img-src https://cdn.shop; form-action 'self' https://shop; frame-ancestors *; base-uri 'none'; connect-src 'none'; font-src 'none'; object-src 'none'");
    expect(contentSecurityPolicy({ nonce: 'n', imgOrigins: [], formTargets: [], frameAncestors: "'none'" })).toContain("img-src 'none'");
  });

  it('origins of redirect URLs are plain origins or nothing', () => {
    expect(originOf('https://shop.example:8443/ok?x=1')).toBe('https://shop.example:8443');
    expect(originOf('javascript:alert(1)')).toBeNull();
    expect(originOf("https://a.example/'; script-src *")).toBe('https://a.example');
    expect(originOf(null)).toBeNull();
  });

  it('frame-ancestors: any origin by default, none for [], the list otherwise', () => {
    expect(frameAncestorsDirective(null)).toBe('*');
    expect(frameAncestorsDirective([])).toBe("'none'");
    expect(frameAncestorsDirective(["'self'", 'https://shop.example'])).toBe("'self' https://shop.example");
  });
});

describe('escaping', () => {
  it('every interpolated value is escaped, in text and attributes', () => {
    const evil = `"><script>alert(1)</script><img src=x onerror='a'>`;
    const out = html`<p title="${evil}">${evil}</p>`.value;
    expect(out).not.toContain('<script>');
    expect(out).not.toContain('"><');
    expect(out).toBe(`<p title="${escapeHtml(evil)}">${escapeHtml(evil)}</p>`);
  });

  it('property: escaped text never contains markup characters', () => {
    fc.assert(fc.property(fc.string(), (s) => {
      expect(escapeHtml(s)).not.toMatch(/[<>"'`]/);
    }));
  });

  it('JSON in a script block cannot close the block', () => {
    expect(jsonForScript({ a: '</script><script>x' }).value).not.toContain('</script');
  });

  it('links are http(s) or our own paths', () => {
    expect(safeUrl('javascript:alert(1)')).toBe('#');
    expect(safeUrl('//evil.example/x')).toBe('#');
    expect(safeUrl('/v1/sandbox/payment/process/abc?lang=en')).toBe('/v1/sandbox/payment/process/abc?lang=en');
    expect(safeUrl('https://shop.example/ok')).toBe('https://shop.example/ok');
  });

  it('button text contrasts with the template colour', () => {
    expect(textOn('#1F5FBF')).toBe('#FFFFFF');
    expect(textOn('#FFD400')).toBe('#111111');
    expect(textOn('#000000')).toBe('#FFFFFF');
    expect(textOn('#FFFFFF')).toBe('#111111');
  });
});

describe('template fields', () => {
  it('colours are #RRGGBB only', () => {
    expect(checkColour('#ff8800', 'button_color')).toEqual({ ok: '#FF8800' });
    for (const bad of ['red', '#fff', '#ff8800;}body{display:none', 'url(x)', '#GG0000', '', 42]) {
      expect(checkColour(bad, 'button_color'), String(bad)).toHaveProperty('error');
    }
  });

  it('logos are https URLs without markup or CSS characters, credentials or other schemes', () => {
    expect(checkLogoUrl('https://cdn.shop.example/logo.png')).toEqual({ ok: 'https://cdn.shop.example/logo.png' });
    for (const bad of [
      'http://cdn.shop.example/logo.png',
      'javascript:alert(1)',
      'data:image/svg+xml;base64,PHN2Zz4=',
      'https://x.example/"><script>alert(1)</script>',
      "https://x.example/a' onerror='alert(1)",
      'https://x.example/a b.png',
      'https://user:pw@x.example/logo.png',
      'https://x.example/logo.png)',
      '//x.example/logo.png',
    ]) {
      expect(checkLogoUrl(bad), bad).toHaveProperty('error');
    }
  });

  it('frame-ancestors entries are origins or \'self\'', () => {
    expect(checkFrameAncestors(['https://Shop.example', "'self'", 'https://*.shop.example', 'http://localhost:3000'])).toEqual({
      ok: ['https://shop.example', "'self'", 'https://*.shop.example', 'http://localhost:3000'],
    });
    for (const bad of [['*'], ['https://a.example; script-src *'], ['https://a.example/path'], ["'unsafe-inline'"], ['https://a.example https://b.example'], 'https://a.example']) {
      expect(checkFrameAncestors(bad), JSON.stringify(bad)).toHaveProperty('error');
    }
    expect(checkFrameAncestors(null)).toEqual({ ok: null });
  });

  it('types', () => {
    expect(parseTemplateType('payment-card')).toBe('PAYMENT_CARD');
    expect(parseTemplateType('DCC')).toBe('DCC');
    expect(parseTemplateType('other')).toBeNull();
  });
});

describe('checkout', () => {
  it('reads extra_data.checkout with safe fallbacks', () => {
    const c = parseCheckout({ checkout: { uuid: 'c-1', payment_methods: ['card', 'BIZUM', 'PAYPAL'], default_payment_method: 'bizum', customization: { theme_type: 'DARK', font: 'Georgia', description: 'Order <b>42</b>', payment_details: { order_number: 'A-42' } } } })!;
    expect(c).toMatchObject({ uuid: 'c-1', methods: ['CARD', 'BIZUM', 'PAYPAL'], defaultMethod: 'BIZUM', theme: 'dark', font: 'Georgia, serif', description: 'Order <b>42</b>', orderNumber: 'A-42' });
    expect(checkoutMethods(c, ['CARD', 'BIZUM'])).toEqual(['CARD', 'BIZUM']);
    expect(checkoutMethods(c, ['CARD'])).toEqual(['CARD']);
    const evil = parseCheckout({ checkout: { customization: { font: 'x;}</style><script>alert(1)</script>', theme_type: '"><x' } } })!;
    expect(evil.font).toBeNull();
    expect(evil.theme).toBe('light');
    expect(parseCheckout({ cof: { reason: 'x' } })).toBeNull();
    expect(parseCheckout(null)).toBeNull();
    expect(checkoutMethods(parseCheckout({ checkout: {} })!, ['CARD', 'BIZUM'])).toEqual(['CARD', 'BIZUM']);
  });
});

describe('payment link destinations', () => {
  it('e-mail addresses and mobile numbers', () => {
    expect(parseDestination('ana@example.com')).toEqual({ channel: 'EMAIL', address: 'ana@example.com' });
    expect(parseDestination('600 11 22 33')).toEqual({ channel: 'SMS', number: '+34600112233' });
    expect(parseDestination('+4915123456789')).toEqual({ channel: 'SMS', number: '+4915123456789' });
    expect(parseDestination('912345678')).toHaveProperty('error');
    expect(parseDestination('not an address')).toHaveProperty('error');
    expect(parseDestination('a@b')).toHaveProperty('error');
    expect(parseDestination('"x"@example.com')).toHaveProperty('error');
  });

  it('SMS sender ids and an HTML e-mail with everything escaped', () => {
    expect(smsSender('Tienda Ñandú S.L. pedidos', 'x')).toBe('Tienda Nand');
    expect(smsSender('***', 'Shop')).toBe('Shop');
    const out = emailHtml({ lang: 'en', merchant: '<b>Shop</b>', amount: '€1.00', description: '<script>x</script>', url: 'https://gw/pay?a=1&b=2', expires: 'soon', buttonColor: '#1F5FBF', buttonText: '#FFFFFF', logoUrl: null });
    expect(out).not.toContain('<script>');
    expect(out).not.toContain('<b>Shop');
    expect(out).toContain('https://gw/pay?a=1&amp;b=2');
  });
});
