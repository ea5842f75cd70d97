/**
 * `paygate connector certify` (src/cli/certify.ts, processors/kit/certify.ts) against every declared
 * connector's simulator, which answers the provider's test cards as its test environment does: every step
 * passes, the simulator's spec ledger stays clean (each request certify sent is one the provider's
 * reference allows), and nothing of the merchant's is charged (no order). With a wrong secret the
 * credentials step fails saying what to fix, and a terminal of a type without a connector is refused.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp } from '../helpers/app.js';
import { testDbKind } from '../helpers/db.js';
import { harnessOf } from '../helpers/connectors.js';
import { CONNECTORS } from '../../src/processors/connectors.js';
import { certifyReport, certifyTerminal } from '../../src/cli/certify.js';

const declared = CONNECTORS.filter((c) => c.certification);

describe.skipIf(testDbKind() !== 'postgres')('paygate connector certify', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await createTestApp();
  });
  afterAll(async () => t?.close());

  it('every connector declares its test environment\'s cards', () => {
    expect(declared.map((c) => c.name).sort()).toEqual(CONNECTORS.map((c) => c.name).sort());
  });

  it.each(declared.map((c) => [c.name, c] as const))('%s: every step passes against its simulator, as the provider documents its flows', async (_name, decl) => {
    const h = harnessOf(decl);
    await h.start();
    try {
      const m = await t.merchant({ env: 'production', isPci: true, serviceType: h.serviceType, terminal: h.terminal });
      const terminal = (await t.p.database.db.selectFrom('terminals').select('id').where('merchant_id', '=', m.client_uuid).executeTakeFirstOrThrow()).id;
      const orders = async () => (await t.p.database.db.selectFrom('orders').select('id').where('merchant_id', '=', m.client_uuid).execute()).length;
      const before = await orders();
      const r = await certifyTerminal(t.p, t.m.services, { terminal, url: h.env()[decl.url.env] });
      expect(r.passed, certifyReport(r)).toBe(true);
      expect(r.steps.map((s) => s.step)).toEqual(expect.arrayContaining(['credentials', 'approval', 'lookup of a payment', 'partial refund', 'decline', 'pre-authorization and partial capture', 'pre-authorization and void', 'stored credential: first use', 'stored credential: merchant-initiated payment', ...(decl.certification!.cards.challenge ? ['3-D Secure challenge'] : [])]));
      expect(await orders()).toBe(before);
      expect(certifyReport(r)).toMatch(/every step passed/);
    } finally {
      await h.close();
    }
  });

  it('a wrong secret fails the credentials step and says what to fix; a terminal without a connector is refused', async () => {
    const decl = declared.find((c) => c.name === 'checkout')!;
    const h = harnessOf(decl, { terminal: { code: null, credentials: { ...harnessOf(decl).terminal.credentials, secret_key: 'sk_sbox_notTheRightKey000000000000' } } });
    await h.start();
    try {
      const m = await t.merchant({ env: 'production', isPci: true, serviceType: h.serviceType, terminal: { code: null, credentials: { ...h.terminal.credentials, secret_key: 'sk_sbox_someOtherKey00000000000000' } } });
      const terminal = (await t.p.database.db.selectFrom('terminals').select('id').where('merchant_id', '=', m.client_uuid).executeTakeFirstOrThrow()).id;
      const r = await certifyTerminal(t.p, t.m.services, { terminal, url: h.env()[decl.url.env] });
      expect(r.passed).toBe(false);
      const step = r.steps.find((s) => s.step === 'credentials')!;
      expect(step.passed).toBe(false);
      expect(step.fix).toMatch(/fix the terminal's test credentials/);
      expect(certifyReport(r)).toMatch(/FAIL  credentials/);
    } finally {
      await h.close().catch(() => {});
    }
    const other = await t.merchant({ env: 'production', isPci: true, serviceType: 'EVOSNAP', terminal: { code: null, credentials: { user: 'x' } } });
    const terminal = (await t.p.database.db.selectFrom('terminals').select('id').where('merchant_id', '=', other.client_uuid).executeTakeFirstOrThrow()).id;
    await expect(certifyTerminal(t.p, t.m.services, { terminal })).rejects.toThrow(/no production connector to certify/);
    await expect(certifyTerminal(t.p, t.m.services, { terminal: '00000000-0000-4000-8000-000000000000' })).rejects.toThrow(/not found/);
  });
});
