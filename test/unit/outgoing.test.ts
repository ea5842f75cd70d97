/**
 * The outgoing client refuses every internal address class (SSRF), with a fake resolver, and on real
 * loopback sockets with the settings on and off; it follows no redirect and caps answers.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { OutgoingClient, OutgoingError, OutgoingPolicy, parseAllowEntry, type Resolver } from '../../src/platform/net/outgoing.js';
import { loadConfig } from '../../src/config/config.js';

const FORBIDDEN: Array<[string, string]> = [
  ['127.0.0.1', 'loopback'],
  ['127.3.4.5', 'loopback'],
  ['::1', 'loopback'],
  ['::ffff:127.0.0.1', 'loopback'],
  ['10.0.0.1', 'private'],
  ['172.16.5.4', 'private'],
  ['192.168.1.1', 'private'],
  ['::ffff:192.168.1.1', 'private'],
  ['169.254.169.254', 'linkLocal'],
  ['fe80::1', 'linkLocal'],
  ['100.64.0.1', 'carrierGradeNat'],
  ['100.100.100.200', 'carrierGradeNat'],
  ['fd00:ec2::254', 'uniqueLocal'],
  ['224.0.0.1', 'multicast'],
  ['ff02::1', 'multicast'],
  ['0.0.0.0', 'unspecified'],
  ['::', 'unspecified'],
  ['255.255.255.255', 'broadcast'],
  ['240.0.0.1', 'reserved'],
  ['192.0.2.1', 'reserved'],
];

/** A resolver that maps every name of the test to one address (no real DNS). */
const fakeResolver =
  (table: Record<string, string[]>): Resolver =>
  async (host) => {
    const list = table[host];
    if (!list) throw Object.assign(new Error(`getaddrinfo ENOTFOUND ${host}`), { code: 'ENOTFOUND' });
    return list.map((address) => ({ address, family: address.includes(':') ? 6 : 4 }));
  };

describe('address policy', () => {
  const strict = new OutgoingPolicy({ allow: [], sandboxLoopback: false });

  it.each(FORBIDDEN)('refuses %s (%s) in both environments', (address, range) => {
    expect(strict.refusal(address, 'production')).toBe(range);
    expect(strict.refusal(address, 'sandbox')).toBe(range);
  });

  it('allows public unicast addresses', () => {
    for (const a of ['93.184.216.34', '8.8.8.8', '2606:4700:4700::1111', '::ffff:8.8.8.8']) expect(strict.refusal(a, 'production')).toBeNull();
  });

  it('sandbox loopback opens loopback to sandbox merchants only, and nothing else', () => {
    const dev = new OutgoingPolicy({ allow: [], sandboxLoopback: true });
    expect(dev.refusal('127.0.0.1', 'sandbox')).toBeNull();
    expect(dev.refusal('::1', 'sandbox')).toBeNull();
    expect(dev.refusal('127.0.0.1', 'production')).toBe('loopback');
    expect(dev.refusal('10.0.0.1', 'sandbox')).toBe('private');
    expect(dev.refusal('169.254.169.254', 'sandbox')).toBe('linkLocal');
  });

  it('the operator allow list opens CIDRs and addresses', () => {
    const p = new OutgoingPolicy({ allow: ['10.1.0.0/16', '192.168.7.7', 'fd00::/8'], sandboxLoopback: false });
    expect(p.refusal('10.1.2.3', 'production')).toBeNull();
    expect(p.refusal('10.2.0.1', 'production')).toBe('private');
    expect(p.refusal('192.168.7.7', 'production')).toBeNull();
    expect(p.refusal('192.168.7.8', 'production')).toBe('private');
    expect(p.refusal('fd12::1', 'production')).toBeNull();
  });

  it('allow-list entries are validated', () => {
    expect(parseAllowEntry('10.0.0.0/8')).not.toBeNull();
    expect(parseAllowEntry('hooks.internal.example')).toEqual({ host: 'hooks.internal.example' });
    expect(parseAllowEntry('10.0.0.0/99')).toBeNull();
    expect(parseAllowEntry('http://x')).toBeNull();
    expect(() => loadConfig({ PAYGATE_OUTGOING_ALLOW: '10.0.0.0/8,not a host' })).toThrow(/PAYGATE_OUTGOING_ALLOW/);
  });

  it('sandbox loopback defaults to on only when the gateway listens on loopback', () => {
    expect(loadConfig({}).outgoingSandboxLoopback).toBe(true);
    expect(loadConfig({ HOST: '0.0.0.0' }).outgoingSandboxLoopback).toBe(false);
    expect(loadConfig({ HOST: '0.0.0.0', PAYGATE_OUTGOING_SANDBOX_LOOPBACK: 'true' }).outgoingSandboxLoopback).toBe(true);
    expect(loadConfig({}).outgoingAllow).toEqual([]);
  });
});

describe('name resolution (fake resolver)', () => {
  const client = new OutgoingClient({
    policy: new OutgoingPolicy({ allow: ['trusted.internal'], sandboxLoopback: false }),
    resolver: fakeResolver({
      'metadata.evil.example': ['169.254.169.254'],
      'mixed.evil.example': ['93.184.216.34', '10.0.0.5'],
      'v6.evil.example': ['::ffff:127.0.0.1'],
      'public.example': ['93.184.216.34'],
      'trusted.internal': ['10.9.9.9'],
      ...Object.fromEntries(FORBIDDEN.map(([a], i) => [`h${i}.evil.example`, [a]])),
    }),
  });

  it.each(FORBIDDEN.map(([a], i) => [`h${i}.evil.example`, a]))('refuses %s resolving to %s', async (host) => {
    await expect(client.resolveAllowed(host, 'production')).rejects.toMatchObject({ failure: 'refused_address' });
  });

  it('refuses a name when any of its addresses is internal, and names it does not resolve', async () => {
    await expect(client.resolveAllowed('metadata.evil.example', 'sandbox')).rejects.toMatchObject({ failure: 'refused_address' });
    await expect(client.resolveAllowed('mixed.evil.example', 'production')).rejects.toMatchObject({ failure: 'refused_address' });
    await expect(client.resolveAllowed('v6.evil.example', 'production')).rejects.toMatchObject({ failure: 'refused_address' });
    await expect(client.resolveAllowed('nowhere.example', 'production')).rejects.toMatchObject({ failure: 'dns' });
  });

  it('allows public names and host names the operator listed', async () => {
    expect(await client.resolveAllowed('public.example', 'production')).toEqual([{ address: '93.184.216.34', family: 4 }]);
    expect(await client.resolveAllowed('trusted.internal', 'production')).toEqual([{ address: '10.9.9.9', family: 4 }]);
  });

  it('refuses literal internal addresses before sending, and URLs that are not http(s)', async () => {
    for (const url of ['http://169.254.169.254/latest/meta-data/', 'http://[::1]:8080/', 'http://10.0.0.1/', 'http://0.0.0.0:80/']) {
      const err = await client.send(url, { env: 'production', timeoutMs: 1000, body: '{}' }).catch((e) => e);
      expect(err, url).toBeInstanceOf(OutgoingError);
      expect(err.failure).toBe('refused_address');
      expect(err.message).not.toMatch(/169\.254|::1|10\.0\.0\.1/);
    }
    for (const url of ['file:///etc/passwd', 'gopher://x/', 'not a url', 'http://user:pw@public.example/']) {
      await expect(client.send(url, { env: 'production', timeoutMs: 1000 })).rejects.toMatchObject({ failure: 'invalid_url' });
    }
  });
});

describe('on real loopback sockets', () => {
  let server: http.Server;
  let base: string;
  const seen: string[] = [];
  beforeAll(async () => {
    server = http.createServer((req, res) => {
      seen.push(req.url ?? '');
      if (req.url === '/redirect') {
        res.writeHead(302, { location: `${base}/target` }).end();
      } else if (req.url === '/big') {
        res.writeHead(200).end('x'.repeat(200_000));
      } else res.writeHead(200).end('ok');
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterAll(() => new Promise<void>((r) => server.close(() => r())));

  const clientWith = (allow: string[], sandboxLoopback: boolean) => new OutgoingClient({ policy: new OutgoingPolicy({ allow, sandboxLoopback }), maxResponseBytes: 1024 });

  it('setting off: loopback is refused in both environments and nothing reaches the server', async () => {
    seen.length = 0;
    const c = clientWith([], false);
    for (const env of ['sandbox', 'production'] as const) {
      await expect(c.send(`${base}/a`, { env, timeoutMs: 2000 })).rejects.toMatchObject({ failure: 'refused_address' });
      // by name too: localhost resolves to loopback and is refused at resolution
      const port = new URL(base).port;
      await expect(c.send(`http://localhost:${port}/a`, { env, timeoutMs: 2000 })).rejects.toMatchObject({ failure: 'refused_address' });
    }
    expect(seen).toEqual([]);
    await c.close();
  });

  it('sandbox loopback on: sandbox reaches it, production does not', async () => {
    seen.length = 0;
    const c = clientWith([], true);
    expect((await c.send(`${base}/a`, { env: 'sandbox', timeoutMs: 2000 })).status).toBe(200);
    const port = new URL(base).port;
    expect((await c.send(`http://localhost:${port}/b`, { env: 'sandbox', timeoutMs: 2000 })).status).toBe(200);
    await expect(c.send(`${base}/c`, { env: 'production', timeoutMs: 2000 })).rejects.toMatchObject({ failure: 'refused_address' });
    expect(seen).toEqual(['/a', '/b']);
    await c.close();
  });

  it('allow list on: production reaches it; a redirect is returned, not followed; answers are capped', async () => {
    seen.length = 0;
    const c = clientWith(['127.0.0.0/8', '::1'], false);
    expect((await c.send(`${base}/a`, { env: 'production', timeoutMs: 2000 })).status).toBe(200);
    const r = await c.send(`${base}/redirect`, { env: 'production', timeoutMs: 2000 });
    expect(r.status).toBe(302);
    expect(seen).toEqual(['/a', '/redirect']);
    const big = await c.send(`${base}/big`, { env: 'production', timeoutMs: 2000 });
    expect(big.body.length).toBe(1024);
    await c.close();
  });

  it('DNS rebinding: the name is resolved once and the connection goes to the address that was checked', async () => {
    seen.length = 0;
    const port = new URL(base).port;
    let calls = 0;
    // first answer public (passes the check), every later answer loopback (the rebinding attack)
    const rebinding: Resolver = async () => (calls++ === 0 ? [{ address: '93.184.216.34', family: 4 }] : [{ address: '127.0.0.1', family: 4 }]);
    const c = new OutgoingClient({ policy: new OutgoingPolicy({ allow: [], sandboxLoopback: false }), resolver: rebinding });
    const err = await c.send(`http://rebind.example:${port}/rebind`, { env: 'production', timeoutMs: 300 }).catch((e) => e);
    expect(err).toBeInstanceOf(OutgoingError);
    expect(['connect', 'timeout']).toContain(err.failure);
    expect(calls).toBe(1);
    expect(seen).toEqual([]);
    await c.close();
  });

  it('a closed port is reported as a connection failure without the address', async () => {
    const c = clientWith(['127.0.0.0/8'], false);
    const probe = http.createServer();
    await new Promise<void>((r) => probe.listen(0, '127.0.0.1', r));
    const port = (probe.address() as AddressInfo).port;
    await new Promise<void>((r) => probe.close(() => r()));
    const err = await c.send(`http://127.0.0.1:${port}/`, { env: 'production', timeoutMs: 2000 }).catch((e) => e);
    expect(err).toBeInstanceOf(OutgoingError);
    expect(err.failure).toBe('connect');
    expect(err.message).not.toContain('127.0.0.1');
    expect(err.message).not.toContain(String(port));
    await c.close();
  });
});
