/** B2 on a gateway without e-mail configured: 503 naming the setting; SMS still works. */
import { afterAll, beforeAll, expect, it } from 'vitest';
import { createTestApp, type TestApp, type TestMerchant } from '../helpers/app.js';
import { createOrder } from '../helpers/payments.js';

let t: TestApp;
let a: TestMerchant;

beforeAll(async () => {
  t = await createTestApp();
  a = await t.merchant();
});
afterAll(async () => t?.close());

it('e-mail links are 503 without PAYGATE_SMTP_URL; SMS links are delivered', async () => {
  const o = await createOrder(a, { customer_ext_id: null });
  const r = await a.api.post('/payment/link', { order_uuid: o.uuid, destination: 'x@example.com', subject: 'Pay' });
  expect(r.status).toBe(503);
  expect(r.body.details).toContain('PAYGATE_SMTP_URL');
  const sms = await a.api.post('/payment/link', { order_uuid: o.uuid, destination: '+34 612 345 678', subject: 'Pay' });
  expect(sms.body).toMatchObject({ delivery: true, channel: 'SMS' });
});
