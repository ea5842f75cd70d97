/**
 * Rotation without downtime on the embedded database: the gateway runs (HTTP and workers), the key
 * file gets a new active key (what `paygate vault rotate --key-only` does), and the running gateway
 * picks it up, re-wraps every sealed value in the background, and keeps serving the stored cards.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config/config.js';
import { startServer } from '../../src/server.js';
import { addKeyToRingFile } from '../../src/platform/security/vault.js';
import { keyUsage } from '../../src/platform/security/rotation.js';
import { testDbKind } from '../helpers/db.js';

type Server = Awaited<ReturnType<typeof startServer>>;
let server: Server;
let dataDir: string;
let creds: { api_key: string; signature: string; service_uuid: string };

const call = async (method: string, url: string, body?: Record<string, unknown>) => {
  const res = await fetch(`${server.baseUrl}/v1/sandbox${url}`, {
    method,
    headers: { authorization: `Bearer ${creds.api_key}`, 'content-type': 'application/json' },
    body: body ? JSON.stringify({ signature: creds.signature, ...body }) : undefined,
  });
  return { status: res.status, body: (await res.json()) as any };
};

describe.skipIf(testDbKind() === 'postgres')('key rotation while the gateway runs (embedded database)', () => {
  beforeAll(async () => {
    dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'paygate-live-'));
    const config = loadConfig({ PAYGATE_DATA_DIR: dataDir, PORT: '0', PAYGATE_LOG_LEVEL: 'silent', PAYGATE_JOB_POLL_MS: '50' });
    const out = process.stdout.write;
    process.stdout.write = (() => true) as any; // the first-start credentials banner
    try {
      server = await startServer(config);
    } finally {
      process.stdout.write = out;
    }
    creds = JSON.parse(fs.readFileSync(path.join(dataDir, 'sandbox-credentials.json'), 'utf8'));
  });
  afterAll(async () => server?.close());

  it('picks up the new key from the file, re-wraps in the background and keeps serving', async () => {
    const stored = await call('POST', '/payment-method/card', { card_holder: 'Live Rotation', card_pan: '5590337536718399', card_expiry_month: 12, card_expiry_year: 31, customer_ext_id: 'live' });
    expect(stored.status).toBe(200);
    const uuid = stored.body.Source.uuid;
    const oldKey = server.platform.vault.activeKeyId;
    const newKey = addKeyToRingFile(dataDir);
    const deadline = Date.now() + 20_000;
    let under: string[] = [];
    while (Date.now() < deadline) {
      under = [...new Set((await keyUsage(server.platform.database)).filter((u) => !u.canary).map((u) => u.keyId))];
      if (under.length === 1 && under[0] === newKey) break;
      await new Promise((r) => setTimeout(r, 250));
    }
    expect(server.platform.vault.activeKeyId).toBe(newKey);
    expect(under).toEqual([newKey]);
    expect(oldKey).not.toBe(newKey);
    // the card still opens and is validated with the processor; new cards are sealed under the new key
    const reval = await call('POST', '/payment-method/card/revalidate', { source_uuid: uuid, customer_ext_id: 'live', service: creds.service_uuid, card_cvv: '123' });
    expect(reval.status).toBe(200);
    expect(reval.body.Source.validation_date).not.toBeNull();
    const again = await call('POST', '/payment-method/card', { card_holder: 'Live Rotation', card_pan: '4548812049400004', card_expiry_month: 12, card_expiry_year: 31, customer_ext_id: 'live' });
    const row = await server.platform.database.db.selectFrom('sources').select('number_sealed').where('id', '=', again.body.Source.uuid).executeTakeFirstOrThrow();
    expect(server.platform.vault.keyIdOf(row.number_sealed)).toBe(newKey);
  });
});
