/** Bad input is never a 500: random bodies and parameters on every customer and source operation. */
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp, type TestMerchant } from '../helpers/app.js';
import { useTestSeed } from '../helpers/seed.js';

useTestSeed(import.meta.url);

let t: TestApp;
let a: TestMerchant;
let sourceUuid: string;

beforeAll(async () => {
  t = await createTestApp();
  a = await t.merchant();
  await a.api.post('/customer', { customer_ext_id: 'fz' });
  const s = await a.api.post('/payment-method/card', { card_holder: 'F Z', card_pan: '4548812049400004', card_expiry_month: 12, card_expiry_year: 30, customer_ext_id: 'fz' });
  sourceUuid = s.body.Source.uuid;
});
afterAll(async () => t?.close());

const value = fc.oneof(
  fc.string({ maxLength: 60 }),
  fc.integer(),
  fc.double(),
  fc.boolean(),
  fc.constant(null),
  fc.constantFrom('1234567812345678', 'ESP', 'ES', 'fz', '1990-02-30', '+34600123456', '\u0000', 'x'.repeat(51), '99', '-1'),
  fc.array(fc.string({ maxLength: 5 }), { maxLength: 3 }),
  fc.dictionary(fc.string({ maxLength: 8 }), fc.string({ maxLength: 8 }), { maxKeys: 3 }),
);

const FIELDS = [
  'customer_ext_id', 'external_id', 'uuid', 'account_type', 'account_number', 'address1', 'address2', 'city', 'country', 'default',
  'state_code', 'type', 'zip_code', 'first_name', 'last_name', 'phone', 'birthdate', 'email', 'document_identification_type',
  'card_holder', 'card_pan', 'card_expiry_month', 'card_expiry_year', 'card_cvv', 'validate', 'service', 'url_post', 'cards',
  'source_uuid', 'card_uuid', 'iban', 'account_holder', 'additional', 'old_external_id', 'new_external_id', 'customer_external_id',
  'holder', 'source_holder_verification',
];

const body = fc.dictionary(fc.constantFrom(...FIELDS), value, { maxKeys: 8 });

const WRITES: Array<[string, string]> = [
  ['POST', '/customer'], ['POST', '/customer/account'], ['PUT', '/customer/account'], ['DELETE', '/customer/account'],
  ['POST', '/customer/address'], ['PUT', '/customer/address'], ['DELETE', '/customer/address'],
  ['POST', '/customer/profile'], ['PUT', '/customer/profile'],
  ['POST', '/payment-method/cards'], ['POST', '/payment-method/card'], ['POST', '/payment-method/card/revalidate'],
  ['POST', '/payment-method/bank'], ['PUT', '/payment-method/card/additional'], ['DELETE', '/payment-method/card'],
  ['POST', '/payment-method/card/verify-holder'],
];

describe('never a 500 for bad input', () => {
  it('random bodies on every write', async () => {
    await fc.assert(
      fc.asyncProperty(fc.constantFrom(...WRITES), body, async ([method, path], b) => {
        const r = await a.api.request(method, path, { body: b });
        expect(r.status, `${method} ${path} ${JSON.stringify(b)} -> ${r.raw}`).toBeLessThan(500);
      }),
      { numRuns: 300 },
    );
  });

  it('random path and query values on every read, and on F6', async () => {
    const seg = fc.oneof(fc.string({ minLength: 1, maxLength: 40 }), fc.constantFrom('fz', 'cards', '%00', '..', sourceUuid));
    await fc.assert(
      fc.asyncProperty(seg, fc.dictionary(fc.constantFrom('status', 'unique', 'sourceType', 'customer_ext_id', 'lang'), fc.string({ maxLength: 12 }), { maxKeys: 3 }), async (s, q) => {
        const e = encodeURIComponent(s);
        for (const path of [`/customer/${e}/sources`, `/customer/${e}/cards`, `/payment-method/${e}`, `/payment-method/card/${e}`, `/customer/address/${e}`, `/customer/account/${e}`, `/customer/profile/${e}`, '/customer']) {
          const r = await a.api.get(path, q);
          expect(r.status, `${path} ${JSON.stringify(q)} -> ${r.raw}`).toBeLessThan(500);
        }
        const own = await a.api.put(`/payment-method/${e}/owner`, { old_external_id: s, new_external_id: s });
        expect(own.status).toBeLessThan(500);
      }),
      { numRuns: 60 },
    );
  });
});
