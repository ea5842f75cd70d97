/** B2: payment links by e-mail (a real SMTP server started here) and by SMS (the log provider). */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp, type TestMerchant } from '../helpers/app.js';
import { createOrder, paidOrder } from '../helpers/payments.js';
import { startSmtp } from '../helpers/smtp.js';
import { h1, open } from '../helpers/pages.js';
import { LogSmsProvider } from '../../src/modules/links/index.js';

let t: TestApp;
let a: TestMerchant;
let smtp: Awaited<ReturnType<typeof startSmtp>>;

beforeAll(async () => {
  smtp = await startSmtp();
  t = await createTestApp({ PAYGATE_SMTP_URL: smtp.url, PAYGATE_MAIL_FROM: 'Pagos <pagos@gateway.test>', PAYGATE_PUBLIC_URL: 'https://pay.gateway.test', PAYGATE_PRODUCTION_SIMULATOR: 'true' });
  a = await t.merchant({ name: 'Librería Ñ' });
});
afterAll(async () => {
  await t?.close();
  await smtp?.close().catch(() => {});
});

/** The decoded text of a received message (quoted-printable soft breaks joined). */
function decoded(raw: string): string {
  return raw.replace(/=\r?\n/g, '').replace(/=([0-9A-F]{2})/g, (_m, h) => String.fromCharCode(parseInt(h, 16)));
}

function linkIn(text: string): string {
  const m = /https:\/\/pay\.gateway\.test\/v1\/sandbox\/payment\/process\/[0-9a-f]+\?lang=[a-z]{2}(?:&template=[0-9a-f-]+)?/.exec(text);
  if (!m) throw new Error(`no link in:\n${text}`);
  return m[0];
}

describe('by e-mail', () => {
  it('the SMTP server receives the link in the chosen language; the link opens the page in that language', async () => {
    const o = await createOrder(a, { amount: 2550, description: 'Libro <b>raro</b>', customer_ext_id: null });
    const r = await a.api.post('/payment/link', { order_uuid: o.uuid, destination: 'lector@example.com', subject: 'Tu pedido', language: 'CA' });
    expect(r.status, r.raw).toBe(200);
    expect(r.body).toMatchObject({ delivery: true, channel: 'EMAIL' });
    expect(smtp.mails).toHaveLength(1);
    const mail = smtp.mails[0];
    expect(mail.to).toEqual(['lector@example.com']);
    expect(mail.from).toBe('pagos@gateway.test');
    const text = Buffer.from(decoded(mail.raw), 'latin1').toString('utf8');
    expect(text).toContain('Subject: Tu pedido');
    expect(text).toContain('Librería Ñ t’ha enviat una sol·licitud de pagament de 25,50');
    expect(text).toContain('Libro &lt;b&gt;raro&lt;/b&gt;');
    expect(text).not.toContain('<b>raro</b></p>');
    const url = linkIn(text);
    expect(url).toContain('lang=ca');
    const page = await open(t, url.replace('https://pay.gateway.test', ''));
    expect(page.statusCode).toBe(200);
    expect(page.body).toContain('<html lang="ca">');
    const row = await t.p.database.db.selectFrom('payment_links').selectAll().where('order_id', '=', o.uuid).executeTakeFirstOrThrow();
    expect(row).toMatchObject({ channel: 'EMAIL', destination: 'lector@example.com', language: 'ca', delivered: true, provider: 'smtp' });
  });

  it('with a template: the link carries it and the page uses it', async () => {
    const tpl = (await a.api.post('/template', { name: 'mail', type: 'PAYMENT_CARD', button_color: '#0A7F4F' })).body.template;
    const o = await createOrder(a, { customer_ext_id: null });
    const before = smtp.mails.length;
    const r = await a.api.post('/payment/link', { order_uuid: o.uuid, destination: 'x@example.com', subject: 'Pay', template_uuid: tpl.uuid, language: 'en' });
    expect(r.body.delivery).toBe(true);
    const text = decoded(smtp.mails[before].raw);
    expect(text).toContain('#0A7F4F');
    const url = linkIn(text);
    expect(url).toContain(`template=${tpl.uuid}`);
    expect((await open(t, url.replace('https://pay.gateway.test', ''))).body).toContain('--accent:#0A7F4F');
    const bad = await a.api.post('/payment/link', { order_uuid: o.uuid, destination: 'x@example.com', subject: 'Pay', template_uuid: '00000000-0000-4000-8000-000000000000' });
    expect(bad.status).toBe(400);
  });

});

describe('by SMS', () => {
  it('the log provider records the message in the chosen language with the sender from the subject', async () => {
    const sms = t.m.links.sms as LogSmsProvider;
    const o = await createOrder(a, { amount: 1000, customer_ext_id: null });
    const r = await a.api.post('/payment/link', { order_uuid: o.uuid, destination: '600 11 22 33', subject: 'Librería Ñ, S.L.', language: 'de' });
    expect(r.status, r.raw).toBe(200);
    expect(r.body).toMatchObject({ delivery: true, channel: 'SMS' });
    const msg = sms.sent.at(-1)!;
    expect(msg.to).toBe('+34600112233');
    expect(msg.sender).toBe('Libreria N');
    expect(msg.text.replace(/\u00a0/g, ' ')).toMatch(/^Librería Ñ: 10,00 € bezahlen unter https:\/\/pay\.gateway\.test\/v1\/sandbox\/payment\/process\/[0-9a-f]+\?lang=de$/);
  });

  it('a fixed line cannot take an SMS; junk is not a destination', async () => {
    const o = await createOrder(a, { customer_ext_id: null });
    for (const destination of ['912345678', 'hello', 'a@b']) {
      const r = await a.api.post('/payment/link', { order_uuid: o.uuid, destination, subject: 'Pay' });
      expect(r.status, destination).toBe(400);
      expect(r.body.details).toContain('destination');
    }
  });

  it('production with the log provider does not pretend to deliver', async () => {
    const p = await t.merchant({ env: 'production' });
    const o = await createOrder(p, { customer_ext_id: null });
    const r = await p.api.post('/payment/link', { order_uuid: o.uuid, destination: '+34600112233', subject: 'Pay' });
    expect(r.status, r.raw).toBe(200);
    expect(r.body.delivery).toBe(false);
    const row = await t.p.database.db.selectFrom('payment_links').selectAll().where('order_id', '=', o.uuid).executeTakeFirstOrThrow();
    expect(row).toMatchObject({ delivered: false, provider: 'log' });
  });
});

describe('orders that cannot take a link', () => {
  it('410 for a paid or expired order, 404 for an unknown or foreign one', async () => {
    const paid = await paidOrder(t, a);
    const r = await a.api.post('/payment/link', { order_uuid: paid.uuid, destination: 'x@example.com', subject: 'Pay' });
    expect(r.status).toBe(410);
    expect(r.body.message).toBe('Gone');
    const e = await createOrder(a, { customer_ext_id: null });
    await a.api.post(`/order/${e.uuid}/expire`, {});
    expect((await a.api.post('/payment/link', { order_uuid: e.uuid, destination: 'x@example.com', subject: 'Pay' })).status).toBe(410);
    expect((await a.api.post('/payment/link', { order_uuid: '00000000-0000-4000-8000-000000000000', destination: 'x@example.com', subject: 'Pay' })).status).toBe(404);
    const other = await t.merchant();
    const foreign = await createOrder(other, { customer_ext_id: null });
    expect((await a.api.post('/payment/link', { order_uuid: foreign.uuid, destination: 'x@example.com', subject: 'Pay' })).status).toBe(404);
    // and the expired order's page says so
    expect(h1((await open(t, `/v1/sandbox/payment/process/${e.token}?lang=en`)).body)).toBe('This payment link has expired');
  });

  it('needs the payment profile and a valid language', async () => {
    const o = await createOrder(a, { customer_ext_id: null });
    expect((await a.api.post('/payment/link', { order_uuid: o.uuid, destination: 'x@example.com', subject: 'Pay', language: 'klingon' })).status).toBe(400);
    const key = await t.p.database.transaction((trx) => t.m.merchants.issueKey(trx, a.client_uuid, 'sandbox', ['readonly']));
    const ro = a.api.withCreds({ api_key: key.apiKey, signature: key.signature });
    expect((await ro.post('/payment/link', { order_uuid: o.uuid, destination: 'x@example.com', subject: 'Pay' })).status).toBe(403);
  });
});

describe('when the SMTP server cannot be reached', () => {
  it('delivery is false and recorded', async () => {
    await smtp.close();
    const o = await createOrder(a, { customer_ext_id: null });
    const r = await a.api.post('/payment/link', { order_uuid: o.uuid, destination: 'x@example.com', subject: 'Pay' });
    expect(r.status, r.raw).toBe(200);
    expect(r.body.delivery).toBe(false);
    const row = await t.p.database.db.selectFrom('payment_links').selectAll().where('order_id', '=', o.uuid).executeTakeFirstOrThrow();
    expect(row.delivered).toBe(false);
    expect(row.error).toBeTruthy();
  });
});
