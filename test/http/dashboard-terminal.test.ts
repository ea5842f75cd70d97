/**
 * The dashboard's virtual terminal and MoTo campaigns routes: the one-time card form of the gateway
 * (PCI merchants only; the card posted to the gateway's page, never to the dashboard's API; the token
 * works once), the options and campaigns lists, and every route's 403 for groups without the permission.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp, type TestMerchant } from '../helpers/app.js';
import { createUser, signedIn, type DashClient, type DashUser } from '../helpers/dashboard.js';
import { TEST_CARDS } from '../helpers/payments.js';

let t: TestApp;
let pci: TestMerchant;
let plain: TestMerchant;
let manual: DashClient;
let plainManual: DashClient;
let viewer: DashClient;
let batch: DashClient;
let manager: DashClient;
let plainManualUser: DashUser;

const inDays = (n: number) => new Date(Date.now() + n * 86400_000).toISOString().slice(0, 10);

/** The gateway's card form as the framed page posts it (same origin, form-encoded). */
async function postForm(path: string, fields: Record<string, string>, headers: Record<string, string> = {}) {
  return t.app.inject({
    method: 'POST',
    url: path,
    headers: { 'x-forwarded-proto': 'https', 'content-type': 'application/x-www-form-urlencoded', ...headers },
    payload: new URLSearchParams(fields).toString(),
  });
}

const CARD = { holder: 'Lucía Ñúñez', number: TEST_CARDS.APPROVED, expiry: '12/34', cvv: '123' };

beforeAll(async () => {
  t = await createTestApp({ PAYGATE_DASHBOARD_LOCKOUT_FAILURES: '1000' });
  pci = await t.merchant({ name: 'Phone Shop', isPci: true });
  plain = await t.merchant({ name: 'Web Shop', isPci: false });
  // signing in hashes passwords (scrypt): the five users are made together, once for the file
  [manual, plainManual, viewer, batch, manager] = await Promise.all([
    createUser(pci, 'MANUAL PAYMENT').then((u) => signedIn(t.app, u)),
    createUser(plain, 'MANUAL PAYMENT').then((u) => ((plainManualUser = u), signedIn(t.app, u))),
    createUser(pci, 'VIEWER').then((u) => signedIn(t.app, u)),
    createUser(pci, 'BATCH').then((u) => signedIn(t.app, u)),
    createUser(pci, 'MANAGER').then((u) => signedIn(t.app, u)),
  ]);
}, 120_000);
afterAll(async () => t?.close());

describe('the virtual terminal card form', () => {
  it('a MoTo payment: the order is created, the gateway form takes the card once, the order is paid', async () => {
    const r = await manual.post('/terminal/sessions', { amount: 4250, currency: 'EUR', description: 'Phone order 17', method: 'PHONE', reference: 'tel-17' });
    expect(r.status, r.raw).toBe(200);
    expect(r.body.form_url).toMatch(/^\/dashboard\/terminal-form\/[A-Za-z0-9_-]{43}$/);
    const before = await pci.api.get(`/order/${r.body.order_uuid}`);
    expect(before.body.order).toMatchObject({ status: 'CREATED', paid: false, amount: 4250, reference: 'tel-17' });

    const page = await t.app.inject({ method: 'GET', url: r.body.form_url, headers: { 'x-forwarded-proto': 'https' } });
    expect(page.statusCode).toBe(200);
    const csp = String(page.headers['content-security-policy']);
    expect(csp).toContain("frame-ancestors 'self'");
    expect(csp).toContain("form-action 'self'");
    expect(csp).toMatch(/script-src 'nonce-[^']+'/);
    expect(page.headers['x-frame-options']).toBe('SAMEORIGIN');
    expect(page.headers['cache-control']).toBe('no-store');
    expect(page.body).toContain('Phone Shop');
    expect(page.body).toContain('name="number"');

    // a mistake shows the form again (nothing typed echoed but the holder and expiry); the token still works
    const bad = await postForm(r.body.form_url, { ...CARD, number: '4548812049400005' });
    expect(bad.statusCode).toBe(422);
    expect(bad.body).not.toContain('4548812049400005');
    expect(bad.body).toContain('Lucía Ñúñez');

    const paid = await postForm(r.body.form_url, CARD, { origin: 'https://localhost:80' });
    expect(paid.statusCode, paid.body).toBe(200);
    expect(paid.body).not.toContain(TEST_CARDS.APPROVED);
    expect(paid.body).not.toContain('9400004');
    expect(paid.body).toContain(r.body.order_uuid);
    expect(paid.body).toContain('postMessage');
    const after = await pci.api.get(`/order/${r.body.order_uuid}`);
    expect(after.body.order).toMatchObject({ status: 'SUCCESS', paid: true });

    // once only
    const again = await postForm(r.body.form_url, CARD);
    expect(again.statusCode).toBe(410);
    expect((await t.app.inject({ method: 'GET', url: r.body.form_url, headers: { 'x-forwarded-proto': 'https' } })).statusCode).toBe(410);
    // the form's row keeps no card data
    const rows = await t.p.database.db.selectFrom('terminal_forms').selectAll().where('order_id', '=', r.body.order_uuid).execute();
    expect(rows).toHaveLength(1);
    expect(JSON.stringify(rows)).not.toMatch(/9400004|Lucía/);
    expect(rows[0]).toMatchObject({ outcome: 'SUCCESS', method: 'PHONE' });
    // the audit log names the order, never the card
    const audit = await t.p.database.db.selectFrom('dashboard_audit').selectAll().where('action', '=', 'terminal.moto').execute();
    expect(audit.map((a: any) => a.target)).toContain(r.body.order_uuid);
  });

  it('a refused card: the outcome says so and the order is not paid', async () => {
    const r = await manual.post('/terminal/sessions', { amount: 990, currency: 'EUR', description: 'Mail order', method: 'MAIL' });
    const out = await postForm(r.body.form_url, { ...CARD, number: TEST_CARDS.REFUSED });
    expect(out.statusCode).toBe(200);
    expect(out.body).not.toContain(TEST_CARDS.REFUSED);
    const o = await pci.api.get(`/order/${r.body.order_uuid}`);
    expect(o.body.order.paid).toBe(false);
  });

  it('an unknown token and a post from another site are refused', async () => {
    expect((await postForm('/dashboard/terminal-form/AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA', CARD)).statusCode).toBe(410);
    const r = await manual.post('/terminal/sessions', { amount: 100, currency: 'EUR', description: 'x', method: 'PHONE' });
    expect((await postForm(r.body.form_url, CARD, { origin: 'https://evil.example' })).statusCode).toBe(403);
    // the refused post did not use the token
    expect((await postForm(r.body.form_url, CARD)).statusCode).toBe(200);
  });

  it('a merchant that is not PCI-compliant cannot open the form (as B11 refuses it); the options say why', async () => {
    const c = plainManual;
    const r = await c.post('/terminal/sessions', { amount: 100, currency: 'EUR', description: 'x', method: 'PHONE' });
    expect(r.status).toBe(403);
    expect(r.body.details).toContain('PCI');
    const o = await c.get('/terminal/templates');
    expect(o.status, o.raw).toBe(200);
    expect(o.body.pci).toBe(false);
    expect(await t.p.database.db.selectFrom('terminal_forms').selectAll().where('merchant_id', '=', plain.client_uuid).execute()).toHaveLength(0);
  });

  it('a card number never reaches the dashboard API: not in a field of the form opening, not through the bridge', async () => {
    const r = await manual.post('/terminal/sessions', { amount: 100, currency: 'EUR', description: `card ${TEST_CARDS.APPROVED}`, method: 'PHONE' });
    expect(r.status).toBe(400);
    expect(r.raw).not.toContain(TEST_CARDS.APPROVED);
    const order = await manual.post('/v1/payment', { amount: 100, operative: 'AUTHORIZATION', description: 'x', currency: 'EUR' });
    expect(order.status, order.raw).toBe(200);
    const moto = await manual.post('/v1/payment/moto', { order_uuid: order.body.order.uuid, method: 'PHONE', card_holder: 'A B', card_pan: TEST_CARDS.APPROVED, card_expiry_month: '12', card_expiry_year: '34' });
    expect(moto.status).toBe(400);
    expect((await pci.api.get(`/order/${order.body.order.uuid}`)).body.order.paid).toBe(false);
  });

  it('options: the payment-page templates and services of the merchant', async () => {
    const tpl = await pci.api.post('/template', { name: 'Phone orders', type: 'PAYMENT_CARD', button_color: '#0A7F4F' });
    expect(tpl.status, tpl.raw).toBe(200);
    const o = await manual.get('/terminal/templates');
    expect(o.status, o.raw).toBe(200);
    expect(o.body.pci).toBe(true);
    expect(o.body.templates).toContainEqual({ uuid: tpl.body.template.uuid, name: 'Phone orders' });
    expect(o.body.services.map((s: any) => s.uuid)).toContain(pci.service_uuid);
  });
});

/** The form's page by GET, as the dashboard's frame loads it. */
const getForm = (path: string) => t.app.inject({ method: 'GET', url: path, headers: { 'x-forwarded-proto': 'https' } });
/** A page without its per-answer nonce, to compare two answers. */
const sansNonce = (html: string) => html.replace(/nonce-[A-Za-z0-9+/=]+/g, 'nonce-N').replace(/nonce="[^"]*"/g, 'nonce="N"');
const UNKNOWN_FORM = '/dashboard/terminal-form/AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA';

describe('the card form of a staff user who may no longer act for the merchant', () => {
  /** The form is gone exactly as an unknown token is, by GET and POST; the order is not charged; the token is not used. */
  async function expectGone(form: { form_url: string; order_uuid: string }, orderOf: TestMerchant) {
    const unknownGet = await getForm(UNKNOWN_FORM);
    const unknownPost = await postForm(UNKNOWN_FORM, CARD);
    const page = await getForm(form.form_url);
    expect(page.statusCode, page.body).toBe(410);
    expect(sansNonce(page.body)).toBe(sansNonce(unknownGet.body));
    expect(page.headers['content-type']).toBe(unknownGet.headers['content-type']);
    const posted = await postForm(form.form_url, CARD, { origin: 'https://localhost:80' });
    expect(posted.statusCode, posted.body).toBe(410);
    expect(sansNonce(posted.body)).toBe(sansNonce(unknownPost.body));
    const order = await orderOf.api.get(`/order/${form.order_uuid}`);
    expect(order.status, order.raw).toBe(200);
    expect(order.body.order).toMatchObject({ status: 'CREATED', paid: false });
    expect(order.body.order.transactions ?? []).toEqual([]);
    const row = await t.p.database.db.selectFrom('terminal_forms').selectAll().where('order_id', '=', form.order_uuid).executeTakeFirstOrThrow();
    expect(row).toMatchObject({ used_at: null, outcome: null });
  }

  it('a disabled user\'s form is gone (GET and POST) and its order is not charged; an active user\'s form still works', async () => {
    const [leaving, staying] = await Promise.all([createUser(pci, 'MANUAL PAYMENT'), createUser(pci, 'MANUAL PAYMENT')]);
    const [leaver, stayer] = await Promise.all([signedIn(t.app, leaving), signedIn(t.app, staying)]);
    const a = await leaver.post('/terminal/sessions', { amount: 1200, currency: 'EUR', description: 'Phone order of a leaver', method: 'PHONE' });
    const b = await stayer.post('/terminal/sessions', { amount: 1300, currency: 'EUR', description: 'Phone order of a stayer', method: 'PHONE' });
    expect(a.status, a.raw).toBe(200);
    expect(b.status, b.raw).toBe(200);
    // both forms work while both users are active
    expect((await getForm(a.body.form_url)).statusCode).toBe(200);
    expect((await getForm(b.body.form_url)).statusCode).toBe(200);

    // a manager disables the user who opened the first form (the dashboard's users route)
    const off = await manager.put(`/users/${leaving.uuid}`, { status: 'DISABLED' });
    expect(off.status, off.raw).toBe(200);
    expect((await manager.get('/users')).body.users.find((u: any) => u.uuid === leaving.uuid)?.status).toBe('DISABLED');

    await expectGone(a.body, pci);

    // control: the form of the user still active is loaded and takes the card
    expect((await getForm(b.body.form_url)).statusCode).toBe(200);
    const paid = await postForm(b.body.form_url, CARD, { origin: 'https://localhost:80' });
    expect(paid.statusCode, paid.body).toBe(200);
    expect((await pci.api.get(`/order/${b.body.order_uuid}`)).body.order).toMatchObject({ status: 'SUCCESS', paid: true });
  });

  it('a form whose user is disabled after the page was loaded refuses the posted card', async () => {
    const clerk = await createUser(pci, 'MANUAL PAYMENT');
    const c = await signedIn(t.app, clerk);
    const r = await c.post('/terminal/sessions', { amount: 1400, currency: 'EUR', description: 'Mail order', method: 'MAIL' });
    expect(r.status, r.raw).toBe(200);
    expect((await getForm(r.body.form_url)).statusCode).toBe(200);
    expect((await manager.put(`/users/${clerk.uuid}`, { status: 'DISABLED' })).status).toBe(200);
    const posted = await postForm(r.body.form_url, CARD, { origin: 'https://localhost:80' });
    expect(posted.statusCode).toBe(410);
    expect((await pci.api.get(`/order/${r.body.order_uuid}`)).body.order).toMatchObject({ status: 'CREATED', paid: false });
  });

  it('a form whose user was moved to a group without manual payments (VIEWER) is gone', async () => {
    const clerk = await createUser(pci, 'MANUAL PAYMENT');
    const c = await signedIn(t.app, clerk);
    const r = await c.post('/terminal/sessions', { amount: 1450, currency: 'EUR', description: 'Phone order, then moved', method: 'PHONE' });
    expect(r.status, r.raw).toBe(200);
    expect((await getForm(r.body.form_url)).statusCode).toBe(200);
    const moved = await manager.put(`/users/${clerk.uuid}`, { group: 'VIEWER' });
    expect(moved.status, moved.raw).toBe(200);
    await expectGone(r.body, pci);
  });

  it('a form whose user belongs to another merchant is gone', async () => {
    const r = await manual.post('/terminal/sessions', { amount: 1500, currency: 'EUR', description: 'Phone order', method: 'PHONE' });
    expect(r.status, r.raw).toBe(200);
    expect((await getForm(r.body.form_url)).statusCode).toBe(200);
    // no route moves a form or a user to another merchant: the form's row is pointed at an active user of another merchant
    await t.p.database.db.updateTable('terminal_forms').set({ user_id: plainManualUser.uuid }).where('order_id', '=', r.body.order_uuid).execute();
    await expectGone(r.body, pci);
  });

  it("a partner's user takes a child merchant's payment; once the partner merchant is deleted, the form is gone", async () => {
    const partner = await t.merchant({ name: 'Phone Partner', isPci: true });
    const child = await t.merchant({ name: 'Phone Child', isPci: true, parentId: partner.client_uuid });
    const c = await signedIn(t.app, await createUser(partner, 'MANUAL PAYMENT'));
    expect((await c.put('/session/merchant', { merchant_uuid: child.client_uuid })).status).toBe(200);
    const paidForm = await c.post('/terminal/sessions', { amount: 1600, currency: 'EUR', description: 'Child order', method: 'PHONE' });
    const lateForm = await c.post('/terminal/sessions', { amount: 1700, currency: 'EUR', description: 'Child order, later', method: 'PHONE' });
    expect(paidForm.status, paidForm.raw).toBe(200);
    expect(lateForm.status, lateForm.raw).toBe(200);
    // the user's merchant is an ancestor of the form's merchant: the form works
    const paid = await postForm(paidForm.body.form_url, CARD, { origin: 'https://localhost:80' });
    expect(paid.statusCode, paid.body).toBe(200);
    expect((await child.api.get(`/order/${paidForm.body.order_uuid}`)).body.order.paid).toBe(true);
    expect((await getForm(lateForm.body.form_url)).statusCode).toBe(200);
    // no route deletes a merchant: the user's own merchant is marked deleted in the database
    await t.p.database.db.updateTable('merchants').set({ is_deleted: true }).where('id', '=', partner.client_uuid).execute();
    await expectGone(lateForm.body, child);
  });
});

describe('MoTo campaigns list', () => {
  it('newest first, paged', async () => {
    const ids: string[] = [];
    for (const d of ['First', 'Second', 'Third']) {
      const r = await pci.api.post('/moto/campaign', { description: d, expires_at: inDays(3), service_uuid: pci.service_uuid, type: 'CUSTOM_DELIVERY', payments: [{ amount: 500 }] });
      expect(r.status, r.raw).toBe(200);
      ids.push(r.body.detail.uuid);
    }
    const p1 = await viewer.get('/campaigns', { limit: '2' });
    expect(p1.status, p1.raw).toBe(200);
    expect(p1.body.campaigns.map((c: any) => c.description)).toEqual(['Third', 'Second']);
    expect(p1.body.next_offset).toBe(2);
    const p2 = await viewer.get('/campaigns', { limit: '2', offset: '2' });
    expect(p2.body.campaigns.map((c: any) => c.uuid)).toEqual([ids[0]]);
    expect(p2.body.next_offset).toBeNull();
    // another merchant sees none of them
    expect((await plainManual.get('/campaigns')).body.campaigns).toEqual([]);
    const services = await manual.get('/campaigns/services');
    expect(services.status, services.raw).toBe(200);
    expect(services.body.services.map((s: any) => s.uuid)).toContain(pci.service_uuid);
    // with the currency of the service's terminal, which a campaign's amounts are in
    expect(services.body.services.find((s: any) => s.uuid === pci.service_uuid)).toMatchObject({ enabled: true, currency: 'EUR' });
  });
});

describe('the role matrix of the areas\' routes', () => {
  it('groups without the permission get 403', async () => {
    const clients = new Map<string, DashClient>([['VIEWER', viewer], ['BATCH', batch], ['MANUAL PAYMENT', manual]]);
    const expectations: Array<[string, string, string, boolean]> = [
      // group, method, path, allowed (ROLES: manual.create, moto.read, moto.create)
      ['VIEWER', 'POST', '/terminal/sessions', false],
      ['VIEWER', 'GET', '/terminal/templates', false],
      ['BATCH', 'POST', '/terminal/sessions', false],
      ['BATCH', 'GET', '/terminal/templates', false],
      ['BATCH', 'GET', '/campaigns', false],
      ['VIEWER', 'GET', '/campaigns', true],
      ['VIEWER', 'GET', '/campaigns/services', true], // moto.read: a campaign's amounts are in its service's currency
      ['BATCH', 'GET', '/campaigns/services', false],
      ['MANUAL PAYMENT', 'GET', '/campaigns/services', true],
      ['MANUAL PAYMENT', 'POST', '/terminal/sessions', true],
    ];
    for (const [group, method, path, allowed] of expectations) {
      const c = clients.get(group)!;
      const r = method === 'GET' ? await c.get(path) : await c.post(path, { amount: 100, currency: 'EUR', description: 'matrix', method: 'PHONE' });
      if (allowed) expect(r.status, `${group} ${method} ${path}: ${r.raw}`).toBe(200);
      else expect(r.status, `${group} ${method} ${path}`).toBe(403);
    }
    expect(await t.p.database.db.selectFrom('terminal_forms').selectAll().where('merchant_id', '=', pci.client_uuid).where('description', '=', 'matrix').execute()).toHaveLength(1);
  });
});
