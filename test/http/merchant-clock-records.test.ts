/**
 * Every timestamp of a sandbox merchant's records follows its clock. With the test clock a year ahead,
 * the merchant does a bit of everything through the API (customers and their details, cards, orders,
 * payments, refunds, notifications, templates, links, checkouts, security lists, antifraud rules,
 * subscriptions, MoTo campaigns, batch files, devices, terminals and services, child merchants...); then
 * every timestamp column of every table of the database is read, and no row written meanwhile may carry
 * the real time. A new table or column is covered without changing this test; the few that are on the
 * real clock by design are listed below with the reason.
 */
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp, type TestMerchant } from '../helpers/app.js';
import { TEST_CARDS } from '../helpers/payments.js';
import { startReceiver, type Receiver } from '../helpers/receiver.js';
import { pagePath, payOnPage } from '../helpers/pages.js';
import { startSmtp } from '../helpers/smtp.js';

let t: TestApp;
let a: TestMerchant;
let rx: Receiver;
let smtp: Awaited<ReturnType<typeof startSmtp>>;
const YEAR = 365 * 86400;

/** Columns on the real clock by design: the platform's machinery, not a merchant's records. */
const REAL_CLOCK: Record<string, string> = {
  'jobs.*': 'the job queue: due times are real (a merchant job is moved when its clock moves)',
  'idempotency_keys.*': 'the 24-hour replay window of Idempotency-Key is real time',
  'vault_canaries.*': 'the vault key check, not a record of a merchant',
  'certificate_keys.*': 'the gateway signing keys, not a record of a merchant',
  'schema_migrations.*': 'migrations',
  'transactions.started_at': 'when the processor call began, in real time: the reconciler settles a call left PENDING longer than PAYGATE_RECONCILE_AFTER_MS of real time (never shown)',
  'mail_outbox.*': 'the e-mail outbox: when a message was queued and sent, in real time (delivery machinery, like the jobs; never shown)',
  'page_submissions.*': 'the hosted page\'s guard against a double submit, purged after a while of real time (never shown)',
  'request_logs.*': 'the API request log: HTTP traffic as it happened, in real time, pruned after PAYGATE_REQUEST_LOG_DAYS of real time',
  'request_log_bodies.*': 'the bodies of the API request log\'s entries, a batch to a row, on the time of their newest entry (real time, as request_logs)',
};

beforeAll(async () => {
  smtp = await startSmtp();
  t = await createTestApp({ PAYGATE_SMTP_URL: smtp.url });
  a = await t.merchant({ name: 'Year ahead', isPci: true });
  rx = await startReceiver();
});
afterAll(async () => {
  await rx?.close();
  await t?.close();
  await smtp?.close().catch(() => {});
});

async function ok(r: Promise<{ status: number; raw: string; body: any }>, ...statuses: number[]) {
  const res = await r;
  expect(statuses.length ? statuses : [200], `${res.status} ${res.raw}`).toContain(res.status);
  return res.body;
}

const b64 = (s: string) => Buffer.from(s).toString('base64');

describe("a merchant's records on its clock", () => {
  it('no timestamp written while the clock runs a year ahead is on the real clock', async () => {
    await ok(a.api.post('/test-clock', { advance_seconds: YEAR }));
    const start = new Date();
    const api = a.api;
    const hook = `${rx.url}/notify`;

    // customers and their details
    await ok(api.post('/customer', { customer_ext_id: 'c-1' }));
    await ok(api.post('/customer/account', { external_id: 'c-1', account_type: 'SAVING_ACCOUNT', account_number: 'ES9121000418450200051332' }));
    await ok(api.post('/customer/address', { external_id: 'c-1', address1: 'Calle Mayor 12', city: 'Madrid', country: 'ESP', default: true, state_code: 'M', type: 'BILLING', zip_code: '28013' }));
    await ok(api.post('/customer/profile', { external_id: 'c-1', first_name: 'Lucía', last_name: 'Martín', email: 'lucia@example.com' }));
    // cards, orders, payments, a refund, a deferred capture, notifications and their attempts
    const card = (await ok(api.post('/payment-method/card', { customer_ext_id: 'c-1', card_holder: 'Lucía Martín', card_pan: TEST_CARDS.APPROVED, card_expiry_month: '12', card_expiry_year: '30', validate: true, service: a.service_uuid }))).Source.uuid;
    const order = (await ok(api.post('/payment', { amount: 1000, operative: 'AUTHORIZATION', secure: false, service: a.service_uuid, description: 'clock', customer_ext_id: 'c-1', url_post: hook }))).order.uuid;
    await ok(api.post('/payment/direct', { order_uuid: order, card_uuid: card }));
    await ok(api.post('/payment/refund', { order_uuid: order, amount: 300 }));
    const deferred = (await ok(api.post('/payment', { amount: 800, operative: 'DEFERRED', secure: false, service: a.service_uuid, description: 'deferred', customer_ext_id: 'c-1', url_post: hook }))).order.uuid;
    await ok(api.post('/payment/direct', { order_uuid: deferred, card_uuid: card }));
    await ok(api.post('/payment/confirmation', { order_uuid: deferred }));
    await ok(api.post('/payment/single-step', { amount: 500, operative: 'AUTHORIZATION', secure: false, service: a.service_uuid, description: 'one step', customer_ext_id: 'c-1', card_holder: 'Lucía Martín', card_pan: TEST_CARDS.APPROVED, card_expiry_month: '12', card_expiry_year: '30', card_cvv: '123' }));
    await ok(api.post('/payment/single-step', { amount: 500, operative: 'AUTHORIZATION', secure: true, service: a.service_uuid, description: '3ds', customer_ext_id: 'c-1', card_holder: 'Lucía Martín', card_pan: TEST_CARDS.THREEDS_OK, card_expiry_month: '12', card_expiry_year: '30', card_cvv: '123' }), 200, 303);
    await ok(api.post(`/transaction/${(await ok(api.get(`/order/${order}`))).order.transactions[0].uuid}/metadata`, { metadata: { k: 'v' } }));
    // the hosted page: a submitted form
    const paged = (await ok(api.post('/payment', { amount: 700, operative: 'AUTHORIZATION', secure: false, service: a.service_uuid, description: 'page', customer_ext_id: 'c-2' }))).order;
    const form = await payOnPage(t, pagePath(paged));
    expect(form.statusCode, form.body.slice(0, 300)).toBeLessThan(400);
    // templates, page settings, a payment link, a checkout
    const tpl = (await ok(api.post('/template', { name: 'Look', type: 'PAYMENT_CARD', button_color: '#0A7F4F' }))).template.uuid;
    await ok(api.put(`/template/${tpl}`, { name: 'Look 2' }));
    await ok(api.put('/page-settings', { frame_ancestors: ['https://shop.example'] }));
    const linked = (await ok(api.post('/payment', { amount: 900, operative: 'AUTHORIZATION', secure: false, service: a.service_uuid, description: 'link', customer_ext_id: 'c-3' }))).order.uuid;
    await ok(api.post('/payment/link', { order_uuid: linked, destination: 'lector@example.com', subject: 'Tu pedido' }));
    await ok(api.post('/checkout', { name: 'Web shop' }));
    // security lists and antifraud rules
    const list = (await ok(api.post('/security-list', { type: 'BLACKLIST', enabled: true, description: 'chargebacks' }))).colorlists.uuid;
    await ok(api.post(`/security-list/${list}/items`, { items: [{ type: 'EMAIL', value: 'fraud@example.com', description: null }] }));
    await ok(api.post(`/security-list/${list}/service`, { service_uuid: a.service_uuid }));
    await ok(api.put('/antifraud/rules', { challenge_threshold: 40 }));
    // terminals, services and their APMs; a child merchant with its dashboard user
    const terminal = (await ok(api.post('/terminal', { currency_code: 'EUR', type: 'CREDORAX', description: 'second', credentials: { merchant_id: 'CRX-1', signing_api_key: 'abcdefghijkl' } }))).terminal.uuid;
    const service = (await ok(api.post('/service', { name: 'Second', type: 'CREDORAX', terminal_uuid: terminal }))).service.uuid;
    await ok(api.put(`/service/${a.service_uuid}/apms`, { apms: ['IDEAL', 'MULTIBANCO'] }));
    await ok(api.put(`/service/${service}`, { name: 'Second (renamed)' }));
    const child = (await ok(api.post('/client', { name: 'Child shop', email: 'child@example.com', timezone: 'Europe/Madrid', mcc: '5411' }))).client;
    // a child starts on its parent's time line: its own clock is as far ahead
    expect((await ok(api.withCreds({ api_key: child.api_key, signature: child.signature }).get('/test-clock'))).test_clock.offset_seconds).toBe(YEAR);
    await ok(api.post('/client/user', { email: 'lucia@example.com', username: `lucia-${a.client_uuid.slice(0, 8)}`, language: 'ES', environment: 'SANDBOX', send_email_with_credentials: true, group: 'MANAGER' }));
    // subscriptions: company, product, plan, a subscription charged at once
    await ok(api.post('/subscriptions/company', {}));
    await ok(api.post('/subscriptions/product', { name: 'Gym', external_id: 'gym', notification_url: hook }));
    await ok(api.post('/subscriptions/plan', { name: 'Monthly', external_id: 'gym-monthly', product: 'gym', amount: 2990, interval: 1, interval_type: 'MONTHLY' }));
    await ok(api.post('/subscriptions/subscription', { plan: 'gym-monthly', customer: 'c-1', total_payment_number: 3, payment_attempts_limit: 2, additional_data: { source_uuid: card, url_post: hook } }));
    // a MoTo campaign and a batch file
    await ok(api.post('/moto/campaign', { description: 'Own channel', expires_at: new Date(Date.now() + (YEAR + 10 * 86400) * 1000).toISOString().slice(0, 10), service_uuid: a.service_uuid, type: 'CUSTOM_DELIVERY', payments: [{ amount: 700 }] }));
    await ok(api.post('/batch/authorizations', { data: b64(`AMOUNT,CARD,SERVICE\n700,${card},${a.service_uuid}\n`), filename: 'one.csv' }));
    // a simulated device and a payment sent to it
    const device = (await ok(api.post('/device', { service: a.service_uuid, identifier: 'SIM-1', communication_type: 'SIMULATION' }))).device.id;
    await ok(api.post('/device/payment', { device, amount: 1500, description: 'counter', url_post: hook }));
    // an APM voucher paid in the sandbox
    const apm = (await ok(api.post('/payment', { amount: 1200, operative: 'AUTHORIZATION', secure: false, service: a.service_uuid, description: 'voucher', customer_ext_id: 'c-4', url_post: hook }))).order.uuid;
    await ok(api.post('/payment/push', { order_uuid: apm, payment_method: 'MULTIBANCO' }), 200, 400);
    // a dispute of the payment: its events on, evidence, submitted (its history, evidence and settings rows)
    await ok(api.put('/disputes/settings', { notification_url: hook }));
    const dispute = (await ok(api.post('/disputes/simulate', { order_uuid: order }))).dispute.uuid;
    await ok(api.post(`/disputes/${dispute}/evidence`, { fields: { additional_information: 'delivered' } }));
    await ok(api.post(`/disputes/${dispute}/submit`, {}));
    // background work: notifications, the device, campaign, batch and subscription jobs
    for (let i = 0; i < 5; i++) await t.p.jobs.drain();
    const end = new Date(Date.now() + 60_000);

    // every timestamp column of every table
    const { rows: columns } = await sql<{ table_name: string; column_name: string }>`
      select table_name, column_name from information_schema.columns
      where table_schema = current_schema() and data_type in ('timestamp with time zone', 'timestamp without time zone')
      order by 1, 2`.execute(t.p.database.db);
    expect(columns.length).toBeGreaterThan(60);
    const onRealClock: string[] = [];
    const checked = new Set<string>();
    for (const { table_name, column_name } of columns) {
      if (REAL_CLOCK[`${table_name}.*`] || REAL_CLOCK[`${table_name}.${column_name}`]) continue;
      const { rows } = await sql<{ n: number }>`select count(*)::int as n from ${sql.table(table_name)} where ${sql.ref(column_name)} between ${start} and ${end}`.execute(t.p.database.db);
      if (rows[0].n > 0) onRealClock.push(`${table_name}.${column_name} (${rows[0].n} rows)`);
      const { rows: any } = await sql<{ n: number }>`select count(*)::int as n from ${sql.table(table_name)} where ${sql.ref(column_name)} > ${end}`.execute(t.p.database.db);
      if (any[0].n > 0) checked.add(table_name);
    }
    expect(onRealClock).toEqual([]);
    // the walk reached the records it is about (each has rows a year ahead)
    for (const table of ['customers', 'customer_accounts', 'customer_addresses', 'customer_profiles', 'sources', 'orders', 'transactions', 'events', 'event_attempts', 'templates', 'payment_links', 'checkouts', 'risk_lists', 'risk_list_items', 'terminals', 'services', 'merchants', 'subscriptions', 'subscription_payments', 'moto_campaigns', 'moto_payments', 'batch_files', 'devices', 'device_operations', 'dashboard_users', 'service_apms', 'api_keys']) {
      expect(checked, table).toContain(table);
    }
  });
});
