import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import {
  addKeyToRingFile,
  keyRingFileSource,
  loadOrCreateKeyRingFile,
  removeKeyFromRingFile,
  Vault,
  vaultFromConfig,
} from '../../src/platform/security/vault.js';
import { registerSealedColumn, sealedColumns } from '../../src/platform/security/sealed-columns.js';
import '../../src/modules/sources/index.js';
import '../../src/modules/customers/index.js';

const tmp = () => fs.mkdtempSync(path.join(os.tmpdir(), 'paygate-ring-'));

describe('key ring file', () => {
  it('adds a new active key and retires an old one; the active key cannot be retired', () => {
    const dir = tmp();
    const first = loadOrCreateKeyRingFile(dir).keys[0].id;
    const second = addKeyToRingFile(dir);
    const ring = loadOrCreateKeyRingFile(dir);
    expect(ring.keys.map((k) => k.id)).toEqual([second, first]);
    expect(fs.statSync(path.join(dir, 'vault-keys.json')).mode & 0o777).toBe(0o600);
    expect(() => removeKeyFromRingFile(dir, second)).toThrow(/active/);
    removeKeyFromRingFile(dir, first);
    expect(loadOrCreateKeyRingFile(dir).keys.map((k) => k.id)).toEqual([second]);
    expect(() => removeKeyFromRingFile(dir, 'nope')).toThrow(/not in the key file/);
  });

  it('a running vault picks up a rotated key file: new seals use the new key, values sealed elsewhere open', () => {
    const dir = tmp();
    const running = vaultFromConfig({ vaultKeys: null, dataDir: dir });
    const old = running.activeKeyId;
    const sealedOld = running.seal('4548812049400004', 'source:1');
    // another process (the CLI) rotates the file and seals with the new key
    const added = addKeyToRingFile(dir);
    const cli = vaultFromConfig({ vaultKeys: null, dataDir: dir });
    const sealedNew = cli.seal('5590337536718399', 'source:2');
    expect(cli.keyIdOf(sealedNew)).toBe(added);
    // the running vault has not looked yet, but a value under an unknown key makes it re-read at once
    expect(running.open(sealedNew, 'source:2').reveal()).toBe('5590337536718399');
    expect(running.activeKeyId).toBe(added);
    expect(running.open(sealedOld, 'source:1').reveal()).toBe('4548812049400004');
    expect(running.keyIdOf(running.rewrap(sealedOld, 'source:1'))).toBe(added);
    expect(old).not.toBe(added);
  });

  it('re-reads on seal at most every everyMs, and tells listeners about a new active key', () => {
    const dir = tmp();
    loadOrCreateKeyRingFile(dir);
    const ring = loadOrCreateKeyRingFile(dir);
    const v = new Vault(
      ring.keys.map((k) => ({ id: k.id, key: Buffer.from(k.key, 'base64') })),
      Buffer.from(ring.fingerprint_key, 'base64'),
      keyRingFileSource(dir, 0),
    );
    const heard: string[] = [];
    v.onActiveKeyChange((id) => heard.push(id));
    const added = addKeyToRingFile(dir);
    expect(v.keyIdOf(v.seal('x', 'y'))).toBe(added);
    expect(heard).toEqual([added]);
    // an unchanged file is not re-applied
    v.seal('x', 'y');
    expect(heard).toEqual([added]);
  });

  it('a vault with keys from PAYGATE_VAULT_KEYS can be given a new ring in place', () => {
    const fp = randomBytes(32);
    const a = { id: 'a', key: randomBytes(32) };
    const b = { id: 'b', key: randomBytes(32) };
    const v = new Vault([a], fp);
    const sealed = v.seal('v', 'aad');
    v.setKeys([b, a]);
    expect(v.activeKeyId).toBe('b');
    expect(v.keyIdOf(v.rewrap(sealed, 'aad'))).toBe('b');
    expect(() => v.setKeys([])).toThrow(/empty/);
  });
});

describe('sealed-column registry', () => {
  it('has the foundation columns and the ones modules register; identifiers are checked', () => {
    const names = sealedColumns().map((c) => `${c.table}.${c.column}`);
    expect(names).toEqual(expect.arrayContaining([
      'api_keys.signature_sealed', 'terminals.credentials_sealed', 'mail_outbox.body_sealed', 'vault_canaries.sealed',
      'sources.number_sealed', 'customer_accounts.account_number_sealed', 'customer_profiles.social_security_number_sealed',
    ]));
    expect(sealedColumns().find((c) => c.table === 'sources')!.aad('x')).toBe('source:x');
    expect(sealedColumns().find((c) => c.table === 'vault_canaries')!.rewrap).toBe(false);
    expect(() => registerSealedColumn({ table: 'x; drop table y', idColumn: 'id', column: 'c', aad: () => '' })).toThrow();
    const before = sealedColumns().length;
    registerSealedColumn({ table: 'sources', idColumn: 'id', column: 'number_sealed', aad: (id) => `source:${id}` });
    expect(sealedColumns().length).toBe(before);
  });
});
