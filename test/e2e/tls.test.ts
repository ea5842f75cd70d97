/**
 * Production over TLS served directly by the gateway, and a configuration error that stops the
 * process with a clear message.
 */
import { execFile } from 'node:child_process';
import fs from 'node:fs';
import https from 'node:https';
import os from 'node:os';
import { X509Certificate } from 'node:crypto';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { gatewayEnv, startGateway, type Gateway, type GatewayEnv } from '../helpers/process.js';

const run = promisify(execFile);
let g: GatewayEnv;
let gw: Gateway;
let prod: { api_key: string };

function get(url: string, key: string): Promise<{ status: number; body: any }> {
  return new Promise((resolve, reject) => {
    https
      .get(url, { rejectUnauthorized: false, headers: { authorization: `Bearer ${key}` } }, (res) => {
        let data = '';
        res.on('data', (d) => (data += d));
        res.on('end', () => resolve({ status: res.statusCode!, body: JSON.parse(data) }));
      })
      .on('error', reject);
  });
}

beforeAll(async () => {
  g = await gatewayEnv({}, { migrated: true });
  const cert = path.join(g.dataDir, 'cert.pem');
  const key = path.join(g.dataDir, 'key.pem');
  await run('openssl', ['req', '-x509', '-newkey', 'rsa:2048', '-nodes', '-keyout', key, '-out', cert, '-days', '2', '-subj', '/CN=127.0.0.1']);
  Object.assign(g.env, { PAYGATE_TLS_CERT: cert, PAYGATE_TLS_KEY: key });
  const { stdout } = await run('node', ['bin/paygate.js', 'merchant', 'create', '--env', 'production', '--json'], { env: { ...process.env, ...g.env, PAYGATE_TEST_DB: '' } });
  prod = JSON.parse(stdout);
  gw = await startGateway(g);
});
afterAll(async () => {
  await gw?.stop();
  await g?.cleanup();
});

describe('TLS', () => {
  it('serves production over HTTPS with the configured certificate', async () => {
    const r = await get(`https://127.0.0.1:${g.port}/v1/auth/check`, prod.api_key);
    expect(r.status).toBe(200);
    expect(r.body).toMatchObject({ message: 'OK', code: 200 });
    expect(gw.stdout()).toContain(`https://127.0.0.1:${g.port}`);
  });
});

describe('TLS certificate renewal', () => {
  it('a renewed certificate is served without a restart', async () => {
    const served = () =>
      new Promise<string>((resolve, reject) => {
        const req = https.get(`https://127.0.0.1:${g.port}/healthz`, { rejectUnauthorized: false, agent: false }, (res) => {
          const fp = (res.socket as import('node:tls').TLSSocket).getPeerCertificate().fingerprint256;
          res.resume();
          resolve(fp);
        });
        req.on('error', reject);
      });
    const before = await served();
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'paygate-cert-'));
    await run('openssl', ['req', '-x509', '-newkey', 'rsa:2048', '-nodes', '-keyout', path.join(dir, 'key.pem'), '-out', path.join(dir, 'cert.pem'), '-days', '3', '-subj', '/CN=renewed']);
    const renewed = new X509Certificate(fs.readFileSync(path.join(dir, 'cert.pem'))).fingerprint256;
    expect(renewed).not.toBe(before);
    fs.copyFileSync(path.join(dir, 'key.pem'), g.env.PAYGATE_TLS_KEY);
    fs.copyFileSync(path.join(dir, 'cert.pem'), g.env.PAYGATE_TLS_CERT);
    const deadline = Date.now() + 20_000;
    let now = before;
    while (now !== renewed && Date.now() < deadline) {
      await new Promise((r) => setTimeout(r, 200));
      now = await served();
    }
    expect(now).toBe(renewed);
    expect(gw.proc.exitCode).toBeNull();
    fs.rmSync(dir, { recursive: true, force: true });
  });
});

describe('configuration errors', () => {
  it('stop the process at boot with every problem named', async () => {
    try {
      await run('npx', ['tsx', 'src/server.ts'], { env: { ...process.env, PORT: 'eighty', PAYGATE_TIMEZONE: 'Mars/Base', PAYGATE_TEST_DB: '' } });
      throw new Error('started');
    } catch (err) {
      const e = err as { code: number; stderr: string };
      expect(e.code).toBe(1);
      expect(e.stderr).toContain('Invalid configuration');
      expect(e.stderr).toContain('PORT');
      expect(e.stderr).toContain('PAYGATE_TIMEZONE');
    }
  });
});
