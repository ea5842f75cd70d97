/**
 * Inviting a user where no e-mail is configured (no PAYGATE_SMTP_URL): nothing could carry the one-time
 * password, so the inviting manager is shown it once (as D3 answers it), nothing is queued for an e-mail
 * that cannot go, the Users page says how it was given, and a new one can be shown for a user who has not
 * signed in yet. (With e-mail: test/http/dashboard-users.test.ts.)
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp, type TestMerchant } from '../helpers/app.js';
import { DashClient, createUser, signedIn } from '../helpers/dashboard.js';

let t: TestApp;
let a: TestMerchant;
let manager: DashClient;

beforeAll(async () => {
  t = await createTestApp();
  a = await t.merchant({ name: 'No Mail Shop' });
  manager = await signedIn(t.app, await createUser(a, 'MANAGER'));
});
afterAll(async () => {
  await t?.close();
});

describe('an invitation without e-mail', () => {
  it('shows the manager the one-time password once; the user signs in with it; a new one replaces it', async () => {
    const r = await manager.post('/users', { username: 'sin.correo', email: 'sin.correo@shop.example', language: 'ES', group: 'VIEWER' });
    expect(r.status, r.raw).toBe(200);
    expect(r.body.delivery).toBe('SHOWN');
    expect(r.body.password).toMatch(/^[A-Za-z0-9]{16}$/);
    // no e-mail queued that could only fail
    const queued = await t.p.database.db.selectFrom('mail_outbox').select('id').where('recipient', '=', 'sin.correo@shop.example').execute();
    expect(queued).toEqual([]);
    const row = (await manager.get('/users')).body.users.find((u: any) => u.uuid === r.body.uuid);
    expect(row.invitation).toMatchObject({ delivery: 'SHOWN', mail_status: null });
    expect(row.must_change_password).toBe(true);
    // the listing never shows it again
    expect(JSON.stringify((await manager.get('/users')).body)).not.toContain(r.body.password);
    const c = new DashClient(t.app);
    const s = await c.signIn('sin.correo', r.body.password);
    expect(s.status, s.raw).toBe(200);
    expect(s.body.stage).toBe('PASSWORD_CHANGE');
    // lost it: a new one, shown once; the first stops working and its sessions end
    const again = await manager.post(`/users/${r.body.uuid}/credentials`);
    expect(again.status, again.raw).toBe(200);
    expect(again.body.delivery).toBe('SHOWN');
    expect(again.body.password).toMatch(/^[A-Za-z0-9]{16}$/);
    expect(again.body.password).not.toBe(r.body.password);
    expect((await c.get('/session')).status).toBe(401);
    expect((await new DashClient(t.app).signIn('sin.correo', r.body.password)).status).toBe(401);
    expect((await new DashClient(t.app).signIn('sin.correo', again.body.password)).status).toBe(200);
    const audit = await manager.get('/audit', { action: 'user.credentials' });
    expect(audit.body.entries[0]).toMatchObject({ target: r.body.uuid, details: { delivery: 'SHOWN' } });
    expect(JSON.stringify(audit.body)).not.toContain(again.body.password);
  });

  it('is for managers only, and for the users of the merchant', async () => {
    const u = await createUser(a, 'VIEWER');
    const user = await signedIn(t.app, await createUser(a, 'USER'));
    expect((await user.post(`/users/${u.uuid}/credentials`)).status).toBe(403);
    const other = await t.merchant({ name: 'Other' });
    const theirs = await createUser(other, 'VIEWER');
    expect((await manager.post(`/users/${theirs.uuid}/credentials`)).status).toBe(404);
  });
});
