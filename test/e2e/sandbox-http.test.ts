/**
 * Sandbox over plain HTTP beyond loopback (a LAN, a container): off by default (sandbox over plain HTTP
 * on a non-loopback address is refused, saying which setting allows it), on with
 * PAYGATE_SANDBOX_HTTP_ANY_ADDRESS=true, which the gateway warns about when it starts; production never
 * answers plain HTTP. Needs a non-loopback IPv4 address on this machine (skipped without one).
 */
import os from 'node:os';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { gatewayEnv, printedExports, startGateway, type Gateway, type GatewayEnv } from '../helpers/process.js';

const lan = Object.values(os.networkInterfaces()).flat().find((a) => a && a.family === 'IPv4' && !a.internal)?.address;
let g: GatewayEnv;
let gw: Gateway | null = null;
let key = '';

beforeAll(async () => {
  if (!lan) return;
  g = await gatewayEnv({ HOST: '0.0.0.0' }, { migrated: true });
});
afterAll(async () => {
  await gw?.stop();
  await g?.cleanup();
});

const check = async (host: string, prefix = '/v1/sandbox') => {
  const res = await fetch(`http://${host}:${g.port}${prefix}/auth/check`, { headers: { authorization: `Bearer ${key}` } });
  return { status: res.status, body: (await res.json()) as any };
};

describe.skipIf(!lan)('sandbox over plain HTTP on a non-loopback address', () => {
  it('off by default: refused with the setting named; loopback still works; no warning', async () => {
    gw = await startGateway(g);
    key = printedExports(gw.stdout()).PAYGATE_API_KEY;
    expect(key).toMatch(/^[0-9a-f]{32}$/);
    expect((await check('127.0.0.1')).status).toBe(200);
    const far = await check(lan!);
    expect(far.status).toBe(403);
    expect(far.body.details).toMatch(/PAYGATE_SANDBOX_HTTP_ANY_ADDRESS=true/);
    expect(gw.stdout()).not.toContain('PAYGATE_SANDBOX_HTTP_ANY_ADDRESS is on');
    await gw.stop();
    gw = null;
  }, 180_000);

  it('PAYGATE_SANDBOX_HTTP_ANY_ADDRESS=true: served on that address too, warned at start; production still refused', async () => {
    gw = await startGateway({ ...g, env: { ...g.env, PAYGATE_SANDBOX_HTTP_ANY_ADDRESS: 'true' } });
    expect(gw.stdout()).toMatch(/PAYGATE_SANDBOX_HTTP_ANY_ADDRESS is on: sandbox routes answer plain HTTP on every address/);
    expect((await check(lan!)).status).toBe(200);
    const prod = await check(lan!, '/v1');
    expect(prod.status).toBe(403);
    // the key is a sandbox key: the refusal also says where its requests go
    expect(prod.body.details).toMatch(/^HTTPS is required: this is a sandbox .*\/v1\/sandbox/);
  }, 180_000);
});
