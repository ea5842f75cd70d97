/**
 * `npx paygate trigger <scenario>` against a running gateway (started as a user would), with the
 * credentials `npm start` prints: each scenario's orders end in the state it names, as the API shows.
 */
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { gatewayEnv, printedExports, startGateway, type Gateway, type GatewayEnv } from '../helpers/process.js';

const run = promisify(execFile);
let g: GatewayEnv;
let gw: Gateway;
let vars: Record<string, string>;

beforeAll(async () => {
  g = await gatewayEnv({}, { migrated: true });
  gw = await startGateway(g);
  vars = printedExports(gw.stdout());
});
afterAll(async () => {
  await gw?.stop();
  await g?.cleanup();
});

async function trigger(...args: string[]) {
  const { stdout } = await run('node', ['bin/paygate.js', 'trigger', ...args], { env: { ...process.env, ...vars, PAYGATE_TEST_DB: '', CI: '' } });
  return stdout;
}

async function order(uuid: string) {
  const res = await fetch(`${vars.PAYGATE_URL}/v1/sandbox/order/${uuid}`, { headers: { authorization: `Bearer ${vars.PAYGATE_API_KEY}` } });
  return ((await res.json()) as any).order;
}

describe('paygate trigger', () => {
  it('runs each scenario and prints every call with its answer', async () => {
    const expected: Record<string, string> = {
      'payment.approved': 'SUCCESS',
      'payment.refused': 'REFUSED',
      'payment.deferred': 'SUCCESS',
      'payment.refund': 'REFUNDED',
    };
    for (const [scenario, status] of Object.entries(expected)) {
      const out = JSON.parse(await trigger(scenario, '--json'));
      expect(out.scenario).toBe(scenario);
      expect(out.order.status, JSON.stringify(out)).toBe(status);
      expect((await order(out.order.uuid)).status).toBe(status);
      expect(out.steps.map((s: any) => s.call.split(':')[0])).toEqual(
        ['create the order', 'store a test card', 'pay it', ...(scenario === 'payment.deferred' ? ['capture it'] : []), ...(scenario === 'payment.refund' ? ['refund it'] : [])],
      );
    }
    const text = await trigger('payment.approved');
    expect(text).toMatch(/^create the order: POST \/v1\/sandbox\/payment -> 200 order [0-9a-f-]{36} CREATED/m);
    expect(text).toMatch(/^payment\.approved: order [0-9a-f-]{36} is SUCCESS$/m);
  }, 300_000);

  it('a 3-D Secure scenario leaves the order waiting for the challenge', async () => {
    const out = JSON.parse(await trigger('payment.3ds', '--json'));
    expect(out.order.status).toBe('PENDING_3DS_RESPONSE');
    expect(out.steps[2]).toMatchObject({ status: 303, summary: expect.stringContaining('challenge page: http') });
    expect((await order(out.order.uuid)).status).toBe(out.order.status);
    // as printed for a person (README: "ends waiting for the challenge, whose page it prints")
    const text = await trigger('payment.3ds');
    expect(text).toMatch(/^pay it: POST \/v1\/sandbox\/payment\/direct -> 303 order [0-9a-f-]{36} PENDING_3DS_RESPONSE.*; challenge page: http:\/\/\S+\/payment\/tokenized\/[0-9a-f]+$/m);
    expect(text).toMatch(/^payment\.3ds: order [0-9a-f-]{36} is PENDING_3DS_RESPONSE; open the challenge page to approve or fail it: http:\/\/\S+$/m);
  });

  it('an unknown scenario lists the known ones', async () => {
    await expect(trigger('payment.nope')).rejects.toMatchObject({ stderr: expect.stringContaining('payment.approved, payment.refused, payment.3ds, payment.deferred, payment.refund') });
  });

  it('dispute: the sandbox raises a dispute on a new approved order, or on --order', async () => {
    const out = JSON.parse(await trigger('dispute', '--outcome', 'lost', '--json'));
    expect(out.steps.map((s: any) => s.call.split(':')[0])).toEqual(['create the order', 'store a test card', 'pay it', 'raise a dispute']);
    expect(out.order.status).toBe('SUCCESS');
    expect(out.dispute).toMatchObject({ source: 'SANDBOX', status: 'NEEDS_RESPONSE', order_uuid: out.order.uuid, amount: 1250 });
    const paid = JSON.parse(await trigger('payment.approved', '--json')).order.uuid;
    const text = await trigger('dispute', '--order', paid);
    expect(text).toMatch(new RegExp(`^dispute: dispute [0-9a-f-]{36} of order ${paid} NEEDS_RESPONSE, evidence due `, 'm'));
    const res = await fetch(`${vars.PAYGATE_URL}/v1/sandbox/disputes?order_uuid=${paid}`, { headers: { authorization: `Bearer ${vars.PAYGATE_API_KEY}` } });
    expect(((await res.json()) as any).disputes).toHaveLength(1);
  }, 120_000);
});
