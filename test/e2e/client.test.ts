/**
 * The typed TypeScript client (clients/typescript) against a gateway started as a user would: the
 * README's Node example runs verbatim with the printed credentials, and the client's types and
 * runtime agree with what the gateway answers, errors included.
 */
import { execFile } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createPaygateClient, type Schema } from '../../clients/typescript/index.js';
import { gatewayEnv, printedExports, startGateway, type Gateway, type GatewayEnv } from '../helpers/process.js';

const run = promisify(execFile);
let g: GatewayEnv;
let gw: Gateway;
let vars: Record<string, string>;

beforeAll(async () => {
  g = await gatewayEnv({}, { migrated: true });
  gw = await startGateway(g);
  vars = printedExports(gw.stdout());
}, 120_000);
afterAll(async () => {
  await gw?.stop();
  await g?.cleanup();
});

/** The README's Node example (the ```ts block that uses the client). */
function readmeNodeExample(): string {
  const readme = fs.readFileSync('README.md', 'utf8');
  const block = [...readme.matchAll(/```ts\n([\s\S]*?)```/g)].map((m) => m[1]).find((b) => b.includes('createPaygateClient'));
  if (!block) throw new Error('README has no Node example using createPaygateClient');
  return block;
}

describe('the typed client', () => {
  it('the README Node example runs verbatim: it creates an order and pays it', async () => {
    // saved in the repository folder, as the README says, and run with tsx
    const file = path.resolve(`pay-${process.pid}-${Date.now()}.ts`);
    fs.writeFileSync(file, readmeNodeExample());
    try {
      const { stdout } = await run('npx', ['tsx', file], { env: { ...process.env, ...vars }, timeout: 60_000 });
      const [uuid, status] = stdout.trim().split(/\s+/);
      expect(status).toBe('SUCCESS');
      const client = createPaygateClient({ baseUrl: `${vars.PAYGATE_URL}/v1/sandbox`, apiKey: vars.PAYGATE_API_KEY });
      const read = await client.GET('/order/{order_uuid}', { params: { path: { order_uuid: uuid } } });
      expect(read.data?.order).toMatchObject({ uuid, status: 'SUCCESS', paid: true, amount: 1050 });
    } finally {
      fs.rmSync(file, { force: true });
    }
  }, 90_000);

  it('types and runtime agree: a record, a validation error with every problem, a refused key', async () => {
    const client = createPaygateClient({ baseUrl: `${vars.PAYGATE_URL}/v1/sandbox/`, apiKey: vars.PAYGATE_API_KEY });
    const services = await client.GET('/client/services');
    const service: Schema<'Service'> | undefined = services.data?.services[0];
    expect(service).toMatchObject({ uuid: vars.PAYGATE_SERVICE, enabled: true });

    const bad = await client.POST('/payment', {
      // a deliberately wrong body: the types would refuse it, so it is cast
      body: { signature: vars.PAYGATE_SIGNATURE, amount: 'ten', operative: 'AUTHORIZATION', secure: false } as never,
    });
    expect(bad.response.status).toBe(400);
    const errors: Schema<'FieldProblem'>[] = bad.error?.errors ?? [];
    expect(errors.map((e) => e.field).sort()).toEqual(['amount', 'description']);

    const wrongKey = createPaygateClient({ baseUrl: `${vars.PAYGATE_URL}/v1/sandbox`, apiKey: 'not-a-key' });
    const denied = await wrongKey.GET('/auth/check');
    expect(denied.response.status).toBe(401);
    expect(denied.error?.message).toBe('Unauthorized');
  });
});
