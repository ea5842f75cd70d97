/**
 * `paygate sandbox behaviour`: the operator shows, sets and resets a sandbox service's behaviour in the
 * simulator; a production service and bad values are refused.
 */
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { gatewayEnv, type GatewayEnv } from '../helpers/process.js';

const run = promisify(execFile);
let g: GatewayEnv;

beforeAll(async () => {
  g = await gatewayEnv({ PAYGATE_BOOTSTRAP_SANDBOX: 'false' }, { migrated: true });
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

describe('paygate sandbox behaviour', () => {
  it('shows the defaults, sets a range, replaces, resets; refuses production services and bad values', async () => {
    const merchant = await paygate('merchant', 'create', '--json');
    const svc = merchant.service_uuid as string;
    expect((await paygate('sandbox', 'behaviour', svc, '--json')).sandbox_behaviour).toEqual({ service_uuid: svc, approval: [], soft_decline: 'DENIED', outage: 'none', latency_ms: 0, updated: null });

    const set = await paygate('sandbox', 'behaviour', svc, '--bin-from', '400000', '--bin-to', '499999', '--approve-rate', '0.6', '--soft-decline', 'PROCESSOR_ERROR', '--json');
    expect(set.sandbox_behaviour).toMatchObject({ approval: [{ bin_from: '400000', bin_to: '499999', approve_rate: 0.6 }], soft_decline: 'PROCESSOR_ERROR', outage: 'none', updated: expect.any(String) });
    expect((await paygate('sandbox', 'behaviour', svc, '--json')).sandbox_behaviour).toEqual(set.sandbox_behaviour);
    // setting replaces: the range is gone, the outage set
    expect((await paygate('sandbox', 'behaviour', svc, '--outage', 'refuse', '--json')).sandbox_behaviour).toMatchObject({ approval: [], soft_decline: 'DENIED', outage: 'refuse' });

    expect(await paygateFails('sandbox', 'behaviour', svc, '--approve-rate', '1.5')).toContain('approve_rate');
    expect(await paygateFails('sandbox', 'behaviour', svc, '--outage', 'down')).toContain('Allowed choices');

    // back to the test cards
    expect((await paygate('sandbox', 'behaviour', svc, '--reset', '--json')).sandbox_behaviour).toMatchObject({ approval: [], outage: 'none', updated: null });

    const prod = await paygate('merchant', 'create', '--env', 'production', '--json');
    expect(await paygateFails('sandbox', 'behaviour', prod.service_uuid, '--outage', 'refuse')).toContain('only in sandbox');
  }, 300_000);
});
