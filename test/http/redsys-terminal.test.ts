/**
 * REDSYSPSD2 production terminals: their credentials are validated at creation (merchant code, keys,
 * terminal numbers, signature version) and, with test_credentials, tried against Redsys (the simulator)
 * without moving money: a wrong key is refused naming SIS0042, an unknown terminal SIS0026.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp, type TestMerchant } from '../helpers/app.js';
import { redsysHarness } from '../helpers/connectors.js';

const h = redsysHarness();
let t: TestApp;
let prod: TestMerchant;
let sandbox: TestMerchant;

beforeAll(async () => {
  await h.start();
  t = await createTestApp(h.env());
  prod = await t.merchant({ env: 'production', serviceType: h.serviceType, terminal: h.terminal });
  sandbox = await t.merchant();
});
afterAll(async () => {
  await t?.close();
  await h.close();
});

const terminal = (m: TestMerchant, fields: Record<string, unknown>) =>
  m.api.post('/terminal', { currency_code: 'EUR', type: 'REDSYSPSD2', description: 'Redsys', code: h.terminal.code, credentials: h.terminal.credentials, ...fields });

describe('REDSYSPSD2 terminals in production', () => {
  it('validates the formats Redsys issues', async () => {
    const badCode = await terminal(prod, { code: '1234' });
    expect(badCode.status).toBe(400);
    expect(badCode.body.details).toContain('9-digit Redsys merchant code (FUC)');
    const badKey = await terminal(prod, { credentials: { ...h.terminal.credentials, key_not_secure: 'not-a-key' } });
    expect(badKey.status).toBe(400);
    expect(badKey.body.details).toContain('credentials.key_not_secure');
    const badTerminal = await terminal(prod, { credentials: { ...h.terminal.credentials, terminal_secure: '1000' } });
    expect(badTerminal.body.details).toContain('credentials.terminal_secure');
    const badVersion = await terminal(prod, { credentials: { ...h.terminal.credentials, signature_version: 'SHA1' } });
    expect(badVersion.body.details).toContain('signature_version');
    const ok = await terminal(prod, {});
    expect(ok.status, ok.raw).toBe(200);
    // credentials are never shown again
    expect(JSON.stringify(ok.body)).not.toContain(h.terminal.credentials.key_secure);
    // the sandbox runs on the gateway's simulator: any values, as before
    expect((await terminal(sandbox, { code: '1', credentials: { key_secure: 'a', key_not_secure: 'b', terminal_secure: '1', terminal_not_secure: '2' } })).status).toBe(200);
  });

  it('test_credentials tries both terminals against Redsys without moving money', async () => {
    const before = h.sim.calls.trataPeticion;
    const orders = h.sim.orderCount;
    const ok = await terminal(prod, { test_credentials: true });
    expect(ok.status, ok.raw).toBe(200);
    expect(h.sim.calls.trataPeticion).toBe(before + 2);
    expect(h.sim.orderCount).toBe(orders);

    const wrongKey = await terminal(prod, { test_credentials: true, credentials: { ...h.terminal.credentials, key_secure: 'Zq7HjrUOBfKmC576ILgskD5srU870gJ7' } });
    expect(wrongKey.status).toBe(400);
    expect(wrongKey.body.details).toContain('terminal_secure 001: Redsys SIS0042: signature error');
    expect(wrongKey.body.details).not.toContain('terminal_not_secure');

    const unknown = await terminal(prod, { test_credentials: true, credentials: { ...h.terminal.credentials, terminal_not_secure: '7' } });
    expect(unknown.status).toBe(400);
    expect(unknown.body.details).toContain('terminal_not_secure 007: Redsys SIS0026: unknown merchant code (FUC) or terminal');

    const v2 = await terminal(prod, { test_credentials: true, credentials: { ...h.terminal.credentials, signature_version: 'HMAC_SHA512_V2' } });
    expect(v2.status, v2.raw).toBe(200);

    // nothing was created by the refused ones
    const created = await t.p.database.db.selectFrom('terminals').select('id').where('merchant_id', '=', prod.client_uuid).execute();
    expect(created).toHaveLength(1 + 1 + 1 + 1);
  });
});
