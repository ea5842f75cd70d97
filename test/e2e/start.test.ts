/**
 * A newcomer's first minutes: `npm start` on a fresh data directory serves the API, prints sandbox
 * credentials that pass A1, and the README's curl works verbatim with them.
 */
import { execFile } from 'node:child_process';
import fs from 'node:fs';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { gatewayEnv, printedExports, startGateway, type Gateway, type GatewayEnv } from '../helpers/process.js';

const run = promisify(execFile);
let g: GatewayEnv;
let gw: Gateway;

beforeAll(async () => {
  g = await gatewayEnv();
  gw = await startGateway(g, ['npm', 'start']);
});
afterAll(async () => {
  await gw?.stop();
  await g?.cleanup();
});

/** The README's Quick start shell block that calls the API. */
function readmeCurl(): string {
  const readme = fs.readFileSync('README.md', 'utf8');
  const blocks = [...readme.matchAll(/```sh\n([\s\S]*?)```/g)].map((m) => m[1]);
  const block = blocks.find((b) => b.includes('curl') && b.includes('$PAYGATE_API_KEY'));
  if (!block) throw new Error('README has no curl block using $PAYGATE_API_KEY');
  return block;
}

describe('npm start on a fresh machine', () => {
  it('prints sandbox credentials that pass A1', async () => {
    const vars = printedExports(gw.stdout());
    expect(Object.keys(vars).sort()).toEqual(['PAYGATE_API_KEY', 'PAYGATE_SERVICE', 'PAYGATE_SIGNATURE', 'PAYGATE_URL']);
    expect(vars.PAYGATE_URL).toBe(g.url);
    expect(gw.stdout()).toMatch(/merchant \(client\) uuid\s+[0-9a-f-]{36}/);
    const res = await fetch(`${g.url}/v1/sandbox/auth/check`, {
      headers: { authorization: `Basic ${Buffer.from(`${vars.PAYGATE_API_KEY}:`).toString('base64')}` },
    });
    expect(res.status).toBe(200);
    expect(await res.json()).toMatchObject({ message: 'OK', code: 200 });
    // the printed service is the merchant's enabled sandbox service
    const services: any = await (await fetch(`${g.url}/v1/sandbox/client/services`, { headers: { authorization: `Bearer ${vars.PAYGATE_API_KEY}` } })).json();
    expect(services.services).toEqual([expect.objectContaining({ uuid: vars.PAYGATE_SERVICE, enabled: true })]);
  });

  it('the README curl works verbatim with the printed exports', async () => {
    const vars = printedExports(gw.stdout());
    const { stdout } = await run('bash', ['-euo', 'pipefail', '-c', readmeCurl()], { env: { ...process.env, ...vars } });
    expect(JSON.parse(stdout)).toMatchObject({ message: 'OK', code: 200 });
  });

  it('every other README example that calls the API works verbatim too', async () => {
    const vars = printedExports(gw.stdout());
    const readme = fs.readFileSync('README.md', 'utf8');
    const blocks = [...readme.matchAll(/```sh\n([\s\S]*?)```/g)].map((m) => m[1]).filter((b) => b.includes('curl') && b.includes('$PAYGATE_URL'));
    expect(blocks.length).toBeGreaterThan(2);
    for (const block of blocks) {
      const { stdout } = await run('bash', ['-euo', 'pipefail', '-c', block], { env: { ...process.env, ...vars } });
      const answers = stdout.trim().replace(/}\s*{"message"/g, '}\n{"message"').split('\n');
      for (const a of answers) expect(JSON.parse(a), block).toMatchObject({ message: 'OK', code: 200 });
    }
  });

  it('serves health, readiness, metrics, the OpenAPI document and the docs page', async () => {
    expect((await fetch(`${g.url}/healthz`)).status).toBe(200);
    expect(await (await fetch(`${g.url}/readyz`)).json()).toMatchObject({ status: 'ready' });
    const metrics = await (await fetch(`${g.url}/metrics`)).text();
    expect(metrics).toContain('paygate_http_request_duration_seconds');
    const openapi: any = await (await fetch(`${g.url}/openapi.json`)).json();
    expect(openapi.openapi).toBe('3.1.0');
    expect(openapi.paths['/auth/check']).toBeDefined();
    const docs = await fetch(`${g.url}/docs/`);
    expect(docs.status).toBe(200);
    expect(await docs.text()).toContain('js/scalar.js');
    expect((await fetch(`${g.url}/docs/js/scalar.js`)).status).toBe(200);
    const front = await fetch(`${g.url}/`, { headers: { accept: 'application/json' } });
    expect(await front.json()).toMatchObject({ docs: '/docs' });
  });

  it('logs no secret: neither the key nor the signature appears in the logs', async () => {
    const vars = printedExports(gw.stdout());
    await fetch(`${g.url}/v1/sandbox/auth/check?signature=${vars.PAYGATE_SIGNATURE}`, { headers: { authorization: `Bearer ${vars.PAYGATE_API_KEY}` } });
    await fetch(`${g.url}/v1/sandbox/test-clock`, {
      method: 'POST',
      headers: { authorization: `Bearer ${vars.PAYGATE_API_KEY}`, 'content-type': 'application/json' },
      body: JSON.stringify({ signature: vars.PAYGATE_SIGNATURE, advance_seconds: 1 }),
    });
    await new Promise((r) => setTimeout(r, 200));
    const logs = gw.stdout().split('\n').filter((l) => l.startsWith('{')).join('\n');
    expect(logs).toContain('/v1/sandbox/auth/check');
    expect(logs).not.toContain(vars.PAYGATE_API_KEY);
    expect(logs).not.toContain(vars.PAYGATE_SIGNATURE);
  });

  it('a restart keeps the data and prints the same credentials again', async () => {
    const before = printedExports(gw.stdout());
    await gw.stop('SIGTERM');
    // graceful shutdown: the listener is closed (npm relays the signal to the gateway)
    await expect(fetch(`${g.url}/healthz`)).rejects.toThrow();
    gw = await startGateway(g, ['npm', 'start']);
    expect(printedExports(gw.stdout())).toEqual(before);
    const res = await fetch(`${g.url}/v1/sandbox/auth/check`, { headers: { authorization: `Bearer ${before.PAYGATE_API_KEY}` } });
    expect(res.status).toBe(200);
  });
});
