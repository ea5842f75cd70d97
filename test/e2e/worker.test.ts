/**
 * Background work off the API's event loop: `npm start` on PostgreSQL runs a separate worker process
 * (PAYGATE_WORKER_PROCESSES, one by default) and notifications are still delivered and orders still
 * expire on the sandbox clock, done by the worker. On the embedded database (single process) the same
 * work runs in the gateway process.
 */
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { gatewayEnv, printedExports, startGateway, type Gateway, type GatewayEnv } from '../helpers/process.js';
import { startReceiver, type Receiver } from '../helpers/receiver.js';
import { testDbKind } from '../helpers/db.js';

let g: GatewayEnv;
let gw: Gateway;
let rx: Receiver;
let vars: Record<string, string>;

beforeAll(async () => {
  rx = await startReceiver();
  g = await gatewayEnv({ PAYGATE_SWEEP_EVERY_MS: '200', PAYGATE_JOB_POLL_MS: '100' }, { migrated: true });
  gw = await startGateway(g);
  vars = printedExports(gw.stdout());
});
afterAll(async () => {
  await gw?.stop();
  await g?.cleanup();
  await rx?.close();
});

/** Waits for a condition another process brings about (bounded). */
async function eventually<T>(what: string, fn: () => Promise<T | null | undefined | false> | T | null | undefined | false, ms = 30_000): Promise<T> {
  const until = Date.now() + ms;
  for (;;) {
    const v = await fn();
    if (v) return v;
    if (Date.now() > until) throw new Error(`timed out waiting for ${what}\n${gw.stdout().slice(-3000)}\n${gw.stderr().slice(-2000)}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

async function api(method: string, path: string, body?: Record<string, unknown>) {
  const res = await fetch(`${g.url}/v1/sandbox${path}`, {
    method,
    headers: { authorization: `Bearer ${vars.PAYGATE_API_KEY}`, ...(body ? { 'content-type': 'application/json' } : {}) },
    body: body ? JSON.stringify({ signature: vars.PAYGATE_SIGNATURE, ...body }) : undefined,
  });
  return { status: res.status, body: (await res.json()) as any };
}

function logLines(): Array<Record<string, any>> {
  return gw
    .stdout()
    .split('\n')
    .filter((l) => l.startsWith('{'))
    .map((l) => {
      try {
        return JSON.parse(l);
      } catch {
        return {};
      }
    });
}

describe('background work with npm start', () => {
  it('expiry and notifications happen on the sandbox clock: by the worker process on PostgreSQL, in-process on the embedded database', async () => {
    const order = (extra: Record<string, unknown>) =>
      api('POST', '/payment', { amount: 1000, operative: 'AUTHORIZATION', secure: false, description: 'worker e2e', service: vars.PAYGATE_SERVICE, expires_in: 600, ...extra });
    const loud = await order({ url_post: `${rx.url}/hook` });
    expect(loud.status, JSON.stringify(loud.body)).toBe(200);
    const quiet = await order({});
    expect(quiet.status).toBe(200);
    const clock = await api('POST', '/test-clock', { advance_seconds: 601 });
    expect(clock.status, JSON.stringify(clock.body)).toBe(200);

    // the sweep expires the order with url_post and the notification reaches the receiver
    const hit = await eventually('the EXPIRED notification', () => rx.received.find((r) => JSON.parse(r.body).order?.uuid === loud.body.order.uuid));
    expect(JSON.parse(hit.body).order.status).toBe('EXPIRED');
    expect(hit.headers['paygate-signature']).toBeTruthy();

    const listening = logLines().find((l) => l.msg === 'paygate listening');
    expect(listening).toBeTruthy();
    if (testDbKind() === 'postgres') {
      const worker = await eventually('the worker log line', () => logLines().find((l) => l.msg === 'paygate worker started'));
      expect(worker.pid).not.toBe(listening!.pid);
      const db = g.db!.database.db;
      // the order without url_post expired by the sweep (read in the database: a read through the API would expire it on the spot)
      await eventually('the quiet order to expire', async () => {
        const { rows } = await sql<{ status: string }>`select status from orders where id = ${quiet.body.order.uuid}`.execute(db);
        return rows[0]?.status === 'EXPIRED';
      });
      // both the sweep and the delivery ran in the worker process, not in the API process
      // (the delivery job is marked done just after the receiver answers: wait for it)
      const rows = await eventually('the delivery job to be done', async () => {
        const { rows } = await sql<{ queue: string; locked_by: string }>`select queue, locked_by from jobs where queue in ('events.deliver', 'payments.expire') and status = 'done'`.execute(db);
        return new Set(rows.map((r) => r.queue)).size === 2 && rows;
      });
      for (const r of rows) expect(r.locked_by.split('-')[0], r.queue).toBe(String(worker.pid));
    } else {
      // the embedded database: no worker process, the gateway does the work itself
      expect(logLines().some((l) => l.msg === 'paygate worker started')).toBe(false);
      const events = await api('GET', `/events?order_uuid=${loud.body.order.uuid}`);
      expect(events.body.events[0]).toMatchObject({ status: 'DELIVERED' });
    }
  });

  it.skipIf(testDbKind() !== 'postgres')('a worker whose API process is killed (kill -9) stops too, leaving no process behind', async () => {
    const listening = logLines().find((l) => l.msg === 'paygate listening')!;
    const worker = await eventually('the worker log line', () => logLines().find((l) => l.msg === 'paygate worker started'));
    const alive = (pid: number) => {
      try {
        process.kill(pid, 0);
        return true;
      } catch {
        return false;
      }
    };
    expect(alive(worker.pid)).toBe(true);
    process.kill(listening.pid, 'SIGKILL');
    await eventually('the worker process to exit', () => !alive(worker.pid), 30_000);
  });
});
