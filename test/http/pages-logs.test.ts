/**
 * Card data and page tokens never reach the log: a whole page payment, a form error and a 3DS
 * challenge run at debug level on an app whose log goes to memory.
 */
import { Writable } from 'node:stream';
import { afterAll, beforeAll, expect, it } from 'vitest';
import type { FastifyInstance } from 'fastify';
import { buildApp, buildModules, registerJobs } from '../../src/app.js';
import { createMerchantWithService, type CreatedMerchant } from '../../src/bootstrap.js';
import { loadConfig } from '../../src/config/config.js';
import { createPlatform } from '../../src/platform/create.js';
import type { Platform } from '../../src/platform/index.js';
import { createLogger } from '../../src/platform/logging.js';
import { testVault, type TestApp } from '../helpers/app.js';
import { createTestDatabase, type TestDatabase } from '../helpers/db.js';
import { TEST_CARDS } from '../helpers/payments.js';
import { nonceOf, open, pagePath, payOnPage, post } from '../helpers/pages.js';

let log = '';
let db: TestDatabase;
let p: Platform;
let app: FastifyInstance;
let merchant: CreatedMerchant;

beforeAll(async () => {
  const sink = new Writable({
    write(chunk, _enc, cb) {
      log += chunk.toString();
      cb();
    },
  });
  db = await createTestDatabase();
  p = await createPlatform(loadConfig({ PAYGATE_LOG_LEVEL: 'debug', PAYGATE_WORKERS: 'false', PAYGATE_DATA_DIR: '/nonexistent' }), {
    database: db.database,
    vault: testVault(),
    logger: createLogger('debug', sink),
  });
  const m = buildModules(p);
  registerJobs(p, m);
  app = await buildApp(p, m);
  merchant = await createMerchantWithService(p, m);
});
afterAll(async () => {
  await app?.close();
  await p?.jobs.stop();
  await db?.drop();
});

async function order(secure: boolean) {
  const r = await app.inject({
    method: 'POST',
    url: '/v1/sandbox/payment',
    headers: { authorization: `Bearer ${merchant.api_key}`, 'content-type': 'application/json' },
    payload: JSON.stringify({ signature: merchant.signature, amount: 100, operative: 'AUTHORIZATION', secure, description: 'x', service: merchant.service_uuid }),
  });
  expect(r.statusCode, r.body).toBe(200);
  return JSON.parse(r.body).order as { token: string };
}

it('leaves no PAN, CVV or page token in the log', async () => {
  const t = { app } as unknown as TestApp;
  const o1 = await order(false);
  const page = await open(t, pagePath(o1));
  await post(t, pagePath(o1), { nonce: nonceOf(page.body), holder: 'Ana', number: '4548 8120 4940 0005', expiry: '12/30', cvv: '987' });
  await payOnPage(t, pagePath(o1), { cvv: '123' });
  const o2 = await order(true);
  await payOnPage(t, pagePath(o2), { number: TEST_CARDS.THREEDS_OK });
  const acs = await open(t, pagePath(o2, 'tokenized'));
  await post(t, pagePath(o2, 'tokenized'), { nonce: nonceOf(acs.body), result: 'approve' });
  // a card in US dollars on a service with DCC: the offer screen and the choice
  await p.database.db.updateTable('services').set({ dcc_allowed: true, dcc_mode: 'DYNAMIC' }).where('id', '=', merchant.service_uuid!).execute();
  const o3 = await order(false);
  const card = await open(t, pagePath(o3));
  const offered = await post(t, pagePath(o3), { nonce: nonceOf(card.body), holder: 'Ana', number: '4000 0840 0000 0006', expiry: '12/30', cvv: '456' });
  const offer = await open(t, String(offered.headers.location));
  expect(offer.statusCode, offer.body).toBe(200);
  await post(t, String(offered.headers.location), { nonce: nonceOf(offer.body), offer: /name="offer" value="([^"]+)"/.exec(offer.body)![1], choice: 'accept' });
  // the page of an APM (not offered by the service: a 400 page, logged all the same)
  await open(t, `/v1/sandbox/payment/apm/${o3.token}?apm=IDEAL`);
  expect(log.length).toBeGreaterThan(1000);
  expect(log).toContain('/payment/process/[REDACTED]');
  expect(log).toContain('/payment/tokenized/[REDACTED]');
  expect(log).toContain('/payment/dcc/[REDACTED]');
  expect(log).toContain('/payment/apm/[REDACTED]');
  for (const secret of ['4548812049400004', '4548 8120 4940 0004', '4548812049400005', '4761739000091011', '4000084000000006', '4000 0840 0000 0006', '"987"', '"456"', o1.token, o2.token, o3.token]) {
    expect(log.includes(secret), secret).toBe(false);
  }
  expect(log).not.toMatch(/"(cvv|number|holder)"\s*:/);
});
