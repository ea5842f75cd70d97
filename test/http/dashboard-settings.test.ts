/**
 * The dashboard's Configuration area routes: the merchant's terminals (credentials write-only: key names,
 * never values), the merchant's settings with its child merchants and their production state, and the
 * preview of the hosted payment page (the unsaved colours and texts in the page, nothing stored, no
 * order made). Each route refuses the groups without its permission.
 */
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp, type TestMerchant } from '../helpers/app.js';
import { createUser, signedIn, type DashClient } from '../helpers/dashboard.js';

let t: TestApp;
let a: TestMerchant;
let manager: DashClient;
let user: DashClient;
let viewer: DashClient;

const SECRET = 'sq7yvkQ9ZtUxW3e2LmNpRr8sTt6uVv5w';

beforeAll(async () => {
  t = await createTestApp();
  a = await t.merchant({ name: 'Config Shop' });
  manager = await signedIn(t.app, await createUser(a, 'MANAGER'));
  user = await signedIn(t.app, await createUser(a, 'USER'));
  viewer = await signedIn(t.app, await createUser(a, 'VIEWER'));
});
afterAll(async () => {
  await t?.close();
});

async function count(table: 'orders' | 'templates' | 'page_settings'): Promise<number> {
  const { rows } = await sql<{ n: string | number }>`select count(*) as n from ${sql.table(table)}`.execute(t.p.database.db);
  return Number(rows[0].n);
}

describe('terminals', () => {
  it('lists the merchant\'s terminals with the names of the credentials set, never their values', async () => {
    const made = await user.post('/v1/terminal', {
      currency_code: 'EUR', type: 'REDSYSPSD2', description: 'Shop terminal', code: '999008881',
      credentials: { key_secure: SECRET, terminal_secure: '1', key_not_secure: SECRET, terminal_not_secure: '2' },
    });
    expect(made.status, made.raw).toBe(200);
    const r = await user.get('/settings/terminals');
    expect(r.status, r.raw).toBe(200);
    const row = r.body.terminals.find((x: { uuid: string }) => x.uuid === made.body.terminal.uuid);
    expect(row).toMatchObject({ type: 'REDSYSPSD2', description: 'Shop terminal', currency_code: 'EUR' });
    expect([...row.credentials_set].sort()).toEqual(['key_not_secure', 'key_secure', 'terminal_not_secure', 'terminal_secure']);
    expect(r.raw).not.toContain(SECRET);
    expect(r.raw).not.toContain(SECRET.slice(-4));
  });

  it('refuses groups without terminals.manage', async () => {
    expect((await viewer.get('/settings/terminals')).status).toBe(403);
  });
});

describe('the merchant and its children', () => {
  it('shows the notification setting and each child with its production state', async () => {
    const child = await manager.post('/v1/client', { name: 'Child Shop', email: 'child@shop.example', timezone: 'Europe/Madrid', resend_failed_notifications: true });
    expect(child.status, child.raw).toBe(200);
    const id = child.body.client.uuid as string;
    let r = await manager.get('/settings/merchant');
    expect(r.status, r.raw).toBe(200);
    expect(r.body.merchant).toMatchObject({ uuid: a.client_uuid, name: 'Config Shop' });
    expect(typeof r.body.merchant.resend_failed_notifications).toBe('boolean');
    expect(r.body.children.find((c: { uuid: string }) => c.uuid === id)).toMatchObject({ name: 'Child Shop', in_production: false });
    const promoted = await manager.post(`/v1/client/${id}/promote`, {});
    expect(promoted.status, promoted.raw).toBe(200);
    r = await manager.get('/settings/merchant');
    expect(r.body.children.find((c: { uuid: string }) => c.uuid === id).in_production).toBe(true);
  });

  it('refuses groups without settings.manage', async () => {
    expect((await user.get('/settings/merchant')).status).toBe(403);
    expect((await viewer.get('/settings/merchant')).status).toBe(403);
  });
});

describe('the preview of the hosted payment page', () => {
  it('renders the unsaved colours and texts, and stores nothing', async () => {
    const before = { orders: await count('orders'), templates: await count('templates'), settings: await count('page_settings') };
    const r = await manager.post('/settings/preview', { button_color: '#AB1234', background_color: '#FAFAF0', description: 'Spring sale', theme_type: 'dark', lang: 'es' });
    expect(r.status, r.raw).toBe(200);
    const html = r.body.html as string;
    expect(html).toContain('--accent:#AB1234');
    expect(html).toContain('--bg:#FAFAF0');
    expect(html).toContain('Spring sale');
    expect(html).toContain('Config Shop');
    expect(html).toContain('<html lang="es">');
    expect(html).toContain('--panel:#1D2127'); // the dark theme
    expect(html).not.toContain('<script'); // a picture of the page: nothing runs
    const plain = await manager.post('/settings/preview', {});
    expect(plain.body.html).toContain('--accent:#1F5FBF'); // the built-in default
    expect({ orders: await count('orders'), templates: await count('templates'), settings: await count('page_settings') }).toEqual(before);
  });

  it('refuses what a template would refuse', async () => {
    expect((await manager.post('/settings/preview', { button_color: 'red' })).status).toBe(400);
    expect((await manager.post('/settings/preview', { logo_url: 'http://plain.example/logo.png' })).status).toBe(400);
  });

  it('refuses groups without settings.manage, and a change without the CSRF token', async () => {
    expect((await user.post('/settings/preview', { button_color: '#AB1234' })).status).toBe(403);
    expect((await viewer.post('/settings/preview', {})).status).toBe(403);
    expect((await manager.request('POST', '/settings/preview', { body: {}, csrf: null })).status).toBe(403);
  });
});
