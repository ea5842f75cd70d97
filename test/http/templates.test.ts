/**
 * Page templates (ours: POST|GET|PUT|DELETE /template[s]) and page settings: validation that keeps
 * markup out of pages, defaults per type, ownership, and what a page does with them.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp, type TestMerchant } from '../helpers/app.js';
import { createOrder } from '../helpers/payments.js';
import { open, pagePath } from '../helpers/pages.js';

let t: TestApp;
let a: TestMerchant;
let b: TestMerchant;

beforeAll(async () => {
  t = await createTestApp();
  a = await t.merchant({ name: 'Shop A' });
  b = await t.merchant({ name: 'Shop B' });
});
afterAll(async () => t?.close());

const LOGO = 'https://cdn.shop-a.example/brand/logo.png';

describe('templates API', () => {
  it('create, read, list, update, delete', async () => {
    const c = await a.api.post('/template', { name: 'Summer', type: 'payment-card', logo_url: LOGO, button_color: '#ff6600', background_color: '#fff8f0' });
    expect(c.status, c.raw).toBe(200);
    expect(c.body.template).toMatchObject({ type: 'PAYMENT_CARD', name: 'Summer', logo_url: LOGO, button_color: '#FF6600', background_color: '#FFF8F0', default: false });
    const id = c.body.template.uuid;
    expect((await a.api.get(`/template/${id.toUpperCase()}`)).body.template.uuid).toBe(id);
    await a.api.post('/template', { name: 'DCC look', type: 'DCC' });
    expect((await a.api.get('/templates')).body.templates.map((x: any) => x.name)).toEqual(['Summer', 'DCC look']);
    expect((await a.api.get('/templates', { type: 'DCC' })).body.templates.map((x: any) => x.name)).toEqual(['DCC look']);
    const u = await a.api.put(`/template/${id}`, { button_color: null, name: 'Autumn' });
    expect(u.body.template).toMatchObject({ name: 'Autumn', button_color: null, logo_url: LOGO });
    const retype = await a.api.put(`/template/${id}`, { type: 'DCC' });
    expect(retype.status).toBe(400);
    expect(retype.body.details).toContain('type cannot be changed');
    const d = await a.api.delete(`/template/${id}`);
    expect(d.status).toBe(200);
    expect((await a.api.get(`/template/${id}`)).status).toBe(404);
  });

  it('one default per type: making another the default unmarks the first', async () => {
    const m = await t.merchant();
    const one = (await m.api.post('/template', { name: 'one', type: 'PAYMENT_CARD', default: true })).body.template;
    const dcc = (await m.api.post('/template', { name: 'dcc', type: 'DCC', default: true })).body.template;
    const two = (await m.api.post('/template', { name: 'two', type: 'PAYMENT_CARD', default: true })).body.template;
    const list = (await m.api.get('/templates')).body.templates;
    expect(list.filter((x: any) => x.default).map((x: any) => x.uuid).sort()).toEqual([dcc.uuid, two.uuid].sort());
    await m.api.put(`/template/${one.uuid}`, { default: true });
    const after = (await m.api.get('/templates', { type: 'PAYMENT_CARD' })).body.templates;
    expect(after.filter((x: any) => x.default).map((x: any) => x.uuid)).toEqual([one.uuid]);
  });

  it('fields that try to inject markup, CSS or script are refused with the field named', async () => {
    const cases: Array<[Record<string, unknown>, string]> = [
      [{ button_color: 'red' }, 'button_color'],
      [{ button_color: '#fff;}</style><script>alert(1)</script>' }, 'button_color'],
      [{ background_color: 'url(javascript:alert(1))' }, 'background_color'],
      [{ logo_url: 'javascript:alert(1)' }, 'logo_url'],
      [{ logo_url: 'http://cdn.example/logo.png' }, 'logo_url'],
      [{ logo_url: 'data:image/svg+xml,<svg onload=alert(1)>' }, 'logo_url'],
      [{ logo_url: 'https://cdn.example/x.png" onerror="alert(1)' }, 'logo_url'],
      [{ logo_url: 'https://cdn.example/x.png><script>alert(1)</script>' }, 'logo_url'],
      [{ type: 'EMAIL' }, 'type'],
    ];
    for (const [fields, field] of cases) {
      const r = await a.api.post('/template', { name: 'x', type: 'PAYMENT_CARD', ...fields });
      expect(r.status, JSON.stringify(fields)).toBe(400);
      expect(r.body.details, JSON.stringify(fields)).toContain(field);
    }
    const created = (await a.api.post('/template', { name: 'ok', type: 'PAYMENT_CARD' })).body.template;
    const put = await a.api.put(`/template/${created.uuid}`, { logo_url: 'https://x.example/"><script>' });
    expect(put.status).toBe(400);
  });

  it('a name with markup is stored as text and never reaches a page as markup', async () => {
    const r = await a.api.post('/template', { name: '<script>alert(1)</script>', type: 'PAYMENT_CARD', button_color: '#123456' });
    expect(r.status).toBe(200);
    const o = await createOrder(a, { customer_ext_id: null, template_uuid: r.body.template.uuid });
    const page = await open(t, pagePath(o));
    expect(page.body).not.toContain('<script>alert(1)</script>');
    expect(page.body).toContain('--accent:#123456');
  });

  it('another merchant\'s template is not found, and cannot be used by its orders', async () => {
    const mine = (await a.api.post('/template', { name: 'A only', type: 'PAYMENT_CARD', button_color: '#AA0000' })).body.template;
    expect((await b.api.get(`/template/${mine.uuid}`)).status).toBe(404);
    expect((await b.api.put(`/template/${mine.uuid}`, { name: 'stolen' })).status).toBe(404);
    expect((await b.api.delete(`/template/${mine.uuid}`)).status).toBe(404);
    const o = await createOrder(b, { customer_ext_id: null, template_uuid: mine.uuid });
    expect((await open(t, pagePath(o))).body).not.toContain('#AA0000');
  });
});

describe('templates on the page', () => {
  it('the order\'s template: logo (img, allowed by img-src), button and background colours; the text colour contrasts', async () => {
    const tpl = (await a.api.post('/template', { name: 'Brand', type: 'PAYMENT_CARD', logo_url: LOGO, button_color: '#FFD400', background_color: '#10243E' })).body.template;
    const o = await createOrder(a, { customer_ext_id: null, template_uuid: tpl.uuid });
    const r = await open(t, pagePath(o));
    expect(r.body).toContain(`<img src="${LOGO}" alt="Shop A" referrerpolicy="no-referrer">`);
    expect(r.body).toContain('--accent:#FFD400;--accent-text:#111111;');
    expect(r.body).toContain('--bg:#10243E');
    expect(r.headers['content-security-policy']).toContain('img-src https://cdn.shop-a.example;');
  });

  it('no template named: the merchant\'s default, else the built-in default; a DCC template is not used for the card page', async () => {
    const m = await t.merchant();
    const plain = await createOrder(m, { customer_ext_id: null });
    expect((await open(t, pagePath(plain))).body).toContain('--accent:#1F5FBF');
    await m.api.post('/template', { name: 'dcc', type: 'DCC', button_color: '#00AA00', default: true });
    const dccOnly = await createOrder(m, { customer_ext_id: null });
    expect((await open(t, pagePath(dccOnly))).body).toContain('--accent:#1F5FBF');
    await m.api.post('/template', { name: 'default', type: 'PAYMENT_CARD', button_color: '#6A1B9A', default: true });
    const withDefault = await createOrder(m, { customer_ext_id: null, template_uuid: 'not-a-uuid' });
    expect((await open(t, pagePath(withDefault))).body).toContain('--accent:#6A1B9A');
  });
});

describe('page settings: frame-ancestors per merchant', () => {
  it('any origin by default; a list restricts framing; [] forbids it; injections are refused', async () => {
    const m = await t.merchant();
    expect((await m.api.get('/page-settings')).body.page_settings).toEqual({ frame_ancestors: null });
    const o = await createOrder(m, { customer_ext_id: null });
    expect((await open(t, pagePath(o))).headers['content-security-policy']).toContain('frame-ancestors *;');
    const put = await m.api.put('/page-settings', { frame_ancestors: ['https://shop.example', "'self'"] });
    expect(put.status, put.raw).toBe(200);
    expect(put.body.page_settings.frame_ancestors).toEqual(['https://shop.example', "'self'"]);
    expect((await open(t, pagePath(o))).headers['content-security-policy']).toContain("frame-ancestors https://shop.example 'self';");
    await m.api.put('/page-settings', { frame_ancestors: [] });
    expect((await open(t, pagePath(o))).headers['content-security-policy']).toContain("frame-ancestors 'none';");
    for (const bad of [['https://a.example; script-src *'], ['*'], ['javascript:alert(1)'], ['https://a.example/path']]) {
      const r = await m.api.put('/page-settings', { frame_ancestors: bad });
      expect(r.status, JSON.stringify(bad)).toBe(400);
      expect(r.body.details).toContain('frame_ancestors');
    }
    await m.api.put('/page-settings', { frame_ancestors: null });
    expect((await open(t, pagePath(o))).headers['content-security-policy']).toContain('frame-ancestors *;');
  });
});
