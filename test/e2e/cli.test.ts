/**
 * The operator command: it honours the server's database settings, prints the JSON shape scripts rely
 * on, and what it creates works against the gateway.
 */
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { gatewayEnv, startGateway, type GatewayEnv } from '../helpers/process.js';

const run = promisify(execFile);
let g: GatewayEnv;

beforeAll(async () => {
  g = await gatewayEnv({ PAYGATE_BOOTSTRAP_SANDBOX: 'false' });
});
afterAll(async () => g?.cleanup());

async function paygate(...args: string[]): Promise<any> {
  const { stdout } = await run('node', ['bin/paygate.js', ...args], { env: { ...process.env, ...g.env, PAYGATE_TEST_DB: '' } });
  return JSON.parse(stdout);
}

async function paygateFails(...args: string[]): Promise<string> {
  try {
    await run('node', ['bin/paygate.js', ...args], { env: { ...process.env, ...g.env, PAYGATE_TEST_DB: '' } });
  } catch (err) {
    return (err as { stderr: string }).stderr;
  }
  throw new Error('command succeeded');
}

describe('paygate CLI', () => {
  let merchant: any;
  let readonlyKey: any;
  let revokedKey: any;
  let pending: any;

  it('migrate, merchant create --json, key create, terminal create, service create, key revoke', async () => {
    expect((await paygate('migrate', '--json')).applied).toContain('0001_foundation');
    merchant = await paygate('merchant', 'create', '--json');
    expect(merchant).toMatchObject({
      client_uuid: expect.stringMatching(/^[0-9a-f-]{36}$/),
      api_key: expect.stringMatching(/^[0-9a-f]{32}$/),
      signature: expect.stringMatching(/^[0-9a-f]{32}$/),
      service_uuid: expect.stringMatching(/^[0-9a-f-]{36}$/),
      env: 'sandbox',
      profiles: ['all'],
    });
    readonlyKey = await paygate('key', 'create', '--merchant', merchant.client_uuid, '--profile', 'readonly', '--json');
    expect(readonlyKey.profiles).toEqual(['readonly']);
    revokedKey = await paygate('key', 'create', '--merchant', merchant.client_uuid, '--profile', 'payment,refund', '--json');
    expect(revokedKey.profiles).toEqual(['payment', 'refund']);
    expect(await paygate('key', 'revoke', revokedKey.key_id, '--json')).toEqual({ key_id: revokedKey.key_id, revoked: true });
    const terminal = await paygate('terminal', 'create', '--merchant', merchant.client_uuid, '--type', 'CREDORAX', '--currency', 'USD',
      '--credentials', JSON.stringify({ merchant_id: 'M-123456789', signing_api_key: 'abcdefghijkl' }), '--json');
    expect(terminal).toMatchObject({ type: 'CREDORAX', currency_code: 'USD', credentials: { merchant_id: '****6789', signing_api_key: '****ijkl' } });
    pending = await paygate('service', 'create', '--merchant', merchant.client_uuid, '--type', 'CREDORAX', '--json');
    expect(pending).toMatchObject({ enabled: false, terminal_uuid: null });
    const linked = await paygate('service', 'create', '--merchant', merchant.client_uuid, '--type', 'CREDORAX', '--terminal', terminal.terminal_uuid, '--json');
    expect(linked).toMatchObject({ enabled: true, terminal_uuid: terminal.terminal_uuid });
  });

  let checkout: any;
  it('checkout create and list', async () => {
    checkout = await paygate('checkout', 'create', '--merchant', merchant.client_uuid, '--name', 'Web shop', '--methods', 'card,BIZUM,GOOGLE_PAY',
      '--default', 'bizum', '--theme', 'dark', '--order-number', 'A-1', '--json');
    expect(checkout).toMatchObject({
      uuid: expect.stringMatching(/^[0-9a-f-]{36}$/),
      name: 'Web shop',
      payment_methods: ['PAYMENT_CARD', 'BIZUM', 'GOOGLE_PAY'],
      default_payment_method: 'BIZUM',
      customization: { theme_type: 'dark', font: null, description: null, payment_details: { order_number: 'A-1' } },
      client_uuid: merchant.client_uuid,
      env: 'sandbox',
    });
    await paygate('checkout', 'create', '--merchant', merchant.client_uuid, '--name', 'Second', '--json');
    const list = await paygate('checkout', 'list', '--merchant', merchant.client_uuid, '--json');
    expect(list.checkouts.map((c: { name: string }) => c.name)).toEqual(['Web shop', 'Second']);
    expect(list.checkouts[1]).toMatchObject({ payment_methods: ['PAYMENT_CARD'], default_payment_method: null, customization: null });
    expect(await paygateFails('checkout', 'create', '--merchant', merchant.client_uuid, '--name', 'x', '--methods', 'CASH')).toContain('payment_methods[0]');
    expect(await paygateFails('checkout', 'create', '--merchant', merchant.client_uuid, '--name', 'x', '--methods', 'CARD', '--default', 'BIZUM')).toContain('default_payment_method');
  });

  it('device register and list: the token is printed once, SIMULATION only in the sandbox', async () => {
    const dev = await paygate('device', 'register', '--key', merchant.key_id, '--service', merchant.service_uuid, '--identifier', 'CLI-POS-1', '--communication', 'SIMULATION', '--name', 'Till', '--json');
    expect(dev).toMatchObject({ env: 'sandbox', device: { identifier: 'CLI-POS-1', service_uuid: merchant.service_uuid, communication: { type: 'SIMULATION', status: 'ONLINE' }, properties: { name: 'Till' } } });
    expect(dev.token).toMatch(/^pgd_/);
    const list = await paygate('device', 'list', '--key', merchant.key_id, '--json');
    expect(list.devices.map((d: { identifier: string }) => d.identifier)).toEqual(['CLI-POS-1']);
    expect(JSON.stringify(list)).not.toContain(dev.token);
    expect(await paygateFails('device', 'register', '--key', merchant.key_id, '--service', merchant.service_uuid, '--identifier', 'CLI-POS-1', '--json')).toContain('already exists');
  });

  it('bad input is a clear error and a non-zero exit', async () => {
    expect(await paygateFails('key', 'create', '--merchant', '00000000-0000-4000-8000-000000000000', '--json')).toContain('not found');
    expect(await paygateFails('key', 'create', '--merchant', merchant.client_uuid, '--profile', 'god')).toContain('unknown profile');
    expect(await paygateFails('terminal', 'create', '--merchant', merchant.client_uuid, '--type', 'REDSYSPSD2')).toContain('credentials');
    expect(await paygateFails('service', 'create', '--merchant', merchant.client_uuid, '--type', 'NOPE')).toContain('Allowed choices');
  });

  it('what the CLI created works against the gateway on the same database', async () => {
    const gw = await startGateway(g);
    try {
      const auth = (k: string) => ({ authorization: `Bearer ${k}` });
      expect((await fetch(`${g.url}/v1/sandbox/auth/check`, { headers: auth(merchant.api_key) })).status).toBe(200);
      expect((await fetch(`${g.url}/v1/sandbox/auth/check`, { headers: auth(readonlyKey.api_key) })).status).toBe(200);
      expect((await fetch(`${g.url}/v1/sandbox/auth/check`, { headers: auth(revokedKey.api_key) })).status).toBe(401);
      const write = await fetch(`${g.url}/v1/sandbox/service`, {
        method: 'POST',
        headers: { ...auth(readonlyKey.api_key), 'content-type': 'application/json' },
        body: JSON.stringify({ signature: readonlyKey.signature, name: 'x', type: 'PAYGATE' }),
      });
      expect(write.status).toBe(403);
      const services: any = await (await fetch(`${g.url}/v1/sandbox/client/services`, { headers: auth(readonlyKey.api_key) })).json();
      expect(services.services.map((s: { uuid: string }) => s.uuid)).toContain(pending.service_uuid);
      // the checkouts made by the CLI are the merchant's resources
      const resources: any = await (await fetch(`${g.url}/v1/sandbox/client/resources`, { headers: auth(readonlyKey.api_key) })).json();
      expect(resources.checkouts.map((c: { uuid: string }) => c.uuid)[0]).toBe(checkout.uuid);
      expect(resources).not.toHaveProperty('code');
      // no sandbox merchant was bootstrapped: the CLI's merchant is the only one
      expect(gw.stdout()).not.toContain('PAYGATE_API_KEY');
    } finally {
      await gw.stop();
    }
  });
});
