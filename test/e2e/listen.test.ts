/**
 * `npx paygate listen --forward-to URL` against a running gateway started as a user would (`npm start`,
 * with the credentials it prints): each notification reaches the developer's receiver with the body and
 * signature headers the gateway sends (verifiable with the signature), the CLI prints the delivery
 * result, and after a lost connection it resumes with every notification made meanwhile, none twice.
 */
import { execFile, spawn, type ChildProcess } from 'node:child_process';
import { createHash, createHmac } from 'node:crypto';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { gatewayEnv, printedExports, startGateway, type Gateway, type GatewayEnv } from '../helpers/process.js';
import { startReceiver, type Receiver } from '../helpers/receiver.js';
import { startTcpProxy, type TcpProxy } from '../helpers/tcp-proxy.js';

const run = promisify(execFile);
const ROOT = path.resolve(import.meta.dirname, '../..');
let g: GatewayEnv;
let gw: Gateway;
let vars: Record<string, string>;
let rx: Receiver;
const procs: ChildProcess[] = [];

beforeAll(async () => {
  g = await gatewayEnv({}, { migrated: true });
  gw = await startGateway(g);
  vars = printedExports(gw.stdout());
  rx = await startReceiver();
});
afterAll(async () => {
  for (const p of procs) if (p.exitCode === null) p.kill('SIGKILL');
  await gw?.stop();
  await rx?.close();
  await g?.cleanup();
});

interface Cli {
  proc: ChildProcess;
  stdout(): string;
  stderr(): string;
  exited: Promise<number | null>;
}

/** Starts `paygate listen` with the printed credentials in its environment. */
function listen(...args: string[]): Cli {
  const proc = spawn('node', ['bin/paygate.js', 'listen', ...args], {
    cwd: ROOT,
    env: { ...process.env, PAYGATE_URL: vars.PAYGATE_URL, PAYGATE_API_KEY: vars.PAYGATE_API_KEY, PAYGATE_TEST_DB: '', CI: '' },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  procs.push(proc);
  let out = '';
  let err = '';
  proc.stdout!.on('data', (d) => (out += d));
  proc.stderr!.on('data', (d) => (err += d));
  return { proc, stdout: () => out, stderr: () => err, exited: new Promise((r) => proc.on('exit', (code) => r(code))) };
}

/** Polls until `check` holds (real processes and sockets: generous deadline). */
async function until(check: () => boolean, what: () => string, timeoutMs = 60_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!check()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting: ${what()}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

/** Creates and pays an order with url_post through the API (as a shop's server does). */
async function payment(urlPost: string): Promise<string> {
  const post = async (p: string, body: Record<string, unknown>) => {
    const res = await fetch(`${vars.PAYGATE_URL}/v1/sandbox${p}`, {
      method: 'POST',
      headers: { authorization: `Bearer ${vars.PAYGATE_API_KEY}`, 'content-type': 'application/json' },
      body: JSON.stringify({ signature: vars.PAYGATE_SIGNATURE, ...body }),
    });
    const json: any = await res.json();
    expect(res.status, JSON.stringify(json)).toBe(200);
    return json;
  };
  const order = await post('/payment', { amount: 990, operative: 'AUTHORIZATION', service: vars.PAYGATE_SERVICE, customer_ext_id: 'listen-e2e', url_post: urlPost, description: 'listen e2e' });
  const card = await post('/payment-method/card', { customer_ext_id: 'listen-e2e', card_holder: 'Listen Test', card_pan: '4548812049400004', card_expiry_month: '12', card_expiry_year: '34' });
  await post('/payment/direct', { order_uuid: order.order.uuid, card_uuid: card.Source.uuid });
  return order.order.uuid;
}

async function eventsOf(orderUuid: string): Promise<Array<{ uuid: string }>> {
  const res = await fetch(`${vars.PAYGATE_URL}/v1/sandbox/events?order_uuid=${orderUuid}`, { headers: { authorization: `Bearer ${vars.PAYGATE_API_KEY}` } });
  return ((await res.json()) as any).events;
}

function verifies(body: string, header: string | string[] | undefined, signature: string): boolean {
  const m = /^t=(\d+),v1=([0-9a-f]{64})$/.exec(String(header));
  if (!m || createHmac('sha256', signature).update(`${m[1]}.${body}`).digest('hex') !== m[2]) return false;
  const serialized = `{${body.slice(body.indexOf('"order":'), body.lastIndexOf(',"validation_hash":'))}}`;
  return createHash('sha256').update(serialized + signature).digest('hex') === JSON.parse(body).validation_hash;
}

const orderOf = (body: string) => JSON.parse(body).order as { uuid: string; status: string };

describe('paygate listen --forward-to', () => {
  it('forwards each notification with its signed body to the local receiver and prints the delivery result', async () => {
    const cli = listen('--forward-to', `${rx.url}/paygate/notify`);
    await until(() => cli.stderr().includes('Ready:'), () => cli.stderr());
    expect(cli.stderr()).toMatch(/Ready: listening for the sandbox events of merchant [0-9a-f-]{36} at http:\/\/127\.0\.0\.1:\d+, forwarding to http:\/\/127\.0\.0\.1:\d+\/paygate\/notify/);

    // a payment made with `paygate trigger --url-post` (the shop's own URL, which the gateway cannot reach)
    const { stdout } = await run('node', ['bin/paygate.js', 'trigger', 'payment.approved', '--url-post', 'http://127.0.0.1:9/shop/notify', '--json'], {
      cwd: ROOT,
      env: { ...process.env, ...vars, PAYGATE_TEST_DB: '', CI: '' },
    });
    const paid = JSON.parse(stdout).order;
    expect(paid.status).toBe('SUCCESS');
    await until(() => rx.received.some((r) => r.path === '/paygate/notify'), () => `${cli.stdout()}\n${cli.stderr()}`);
    const got = rx.received.find((r) => r.path === '/paygate/notify')!;
    expect(orderOf(got.body)).toMatchObject({ uuid: paid.uuid, status: 'SUCCESS' });
    expect(got.headers['content-type']).toBe('application/json');
    // the receiver verifies it as it would verify the gateway's own delivery
    expect(verifies(got.body, got.headers['paygate-signature'], vars.PAYGATE_SIGNATURE)).toBe(true);
    expect(verifies(got.body, got.headers['paygate-signature'], '0'.repeat(32))).toBe(false);
    const [ev] = await eventsOf(paid.uuid);
    expect(got.headers['paygate-event']).toBe(ev.uuid);
    await until(() => cli.stdout().includes(ev.uuid), () => cli.stdout());
    expect(cli.stdout()).toMatch(new RegExp(`ORDER_NOTIFICATION  ${ev.uuid}  order ${paid.uuid} SUCCESS  -> POST ${rx.url}/paygate/notify \\[200\\] \\d+ ms`));

    // the receiver's answer is what is printed: a 500 shows as such
    rx.script.push(500);
    const second = await payment('http://127.0.0.1:9/shop/notify');
    const [ev2] = await eventsOf(second);
    await until(() => cli.stdout().includes(ev2.uuid), () => cli.stdout());
    expect(cli.stdout()).toMatch(new RegExp(`${ev2.uuid}  order ${second} SUCCESS  -> POST ${rx.url}/paygate/notify \\[500\\] \\d+ ms`));

    cli.proc.kill('SIGINT');
    expect(await cli.exited).toBe(0);
  }, 180_000);

  let proxy: TcpProxy | null = null;
  afterAll(async () => proxy?.close());

  it('resumes after a lost connection with every notification made meanwhile, in order, none twice', async () => {
    proxy = await startTcpProxy({ host: '127.0.0.1', port: g.port });
    const cli = listen('--url', `http://127.0.0.1:${proxy.port}`, '--forward-to', `${rx.url}/resume`, '--json');
    await until(() => cli.stdout().includes('"ready"'), () => cli.stderr());
    const forwarded = () => rx.received.filter((r) => r.path === '/resume').map((r) => orderOf(r.body).uuid);

    const first = await payment('http://127.0.0.1:9/shop/notify');
    await until(() => forwarded().length === 1, () => cli.stdout());

    proxy.cut();
    await until(() => /connection lost|closed the stream/.test(cli.stderr()), () => cli.stderr());
    // made while the CLI cannot reach the gateway
    const missed = [await payment('http://127.0.0.1:9/shop/notify'), await payment('http://127.0.0.1:9/shop/notify')];
    proxy.restore();

    const lines = () => cli.stdout().trim().split('\n').map((l) => JSON.parse(l)).filter((l) => l.event);
    await until(() => lines().length >= 3, () => `${cli.stdout()}\n${cli.stderr()}`, 90_000);
    expect(cli.stderr()).toMatch(/reconnected, resuming after \d+-\d+/);
    expect(forwarded()).toEqual([first, ...missed]);
    // every forwarded body verifies, and each event came once (JSON lines: one per event, with its result)
    for (const r of rx.received.filter((x) => x.path === '/resume')) expect(verifies(r.body, r.headers['paygate-signature'], vars.PAYGATE_SIGNATURE)).toBe(true);
    expect(lines().map((l) => l.event.order_uuid)).toEqual([first, ...missed]);
    expect(new Set(lines().map((l) => l.event.uuid)).size).toBe(3);
    for (const l of lines()) expect(l).toMatchObject({ id: expect.stringMatching(/^\d+-\d+$/), forward: { url: `${rx.url}/resume`, status: 200, duration_ms: expect.any(Number), error: null } });

    // a gateway restart: the shutdown ends the open stream instead of waiting for it (a hang would time
    // this test out), and listen comes back by itself
    await gw.stop();
    expect(gw.stdout()).toContain('shutting down');
    gw = await startGateway(g);
    const after = await payment('http://127.0.0.1:9/shop/notify');
    await until(() => forwarded().includes(after), () => `${cli.stdout()}\n${cli.stderr()}`, 90_000);
    expect(forwarded()).toEqual([first, ...missed, after]);
    cli.proc.kill('SIGTERM');
    expect(await cli.exited).toBe(0);
  }, 300_000);

  it('a wrong key is one clear error and a non-zero exit, not endless retries', async () => {
    const cli = spawn('node', ['bin/paygate.js', 'listen', '--url', vars.PAYGATE_URL, '--api-key', '0'.repeat(32)], { cwd: ROOT, env: { ...process.env, PAYGATE_TEST_DB: '', CI: '' } });
    procs.push(cli);
    let err = '';
    cli.stderr!.on('data', (d) => (err += d));
    const code = await new Promise<number | null>((r) => cli.on('exit', r));
    expect(code).toBe(1);
    expect(err).toMatch(/answered 401/);
    const noKey = await run('node', ['bin/paygate.js', 'listen'], { cwd: ROOT, env: { ...process.env, PAYGATE_API_KEY: '', PAYGATE_TEST_DB: '', CI: '' } }).catch((e) => e);
    expect(noKey.stderr).toContain('an API key is needed');
  }, 120_000);
});
