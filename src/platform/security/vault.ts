/**
 * The vault: envelope encryption of secrets at rest (card numbers, terminal credentials, signatures).
 *
 * Each sealed record has its own random 256-bit data key (DEK). The payload is encrypted with the DEK
 * (AES-256-GCM); the DEK is wrapped with a key-encrypting key (KEK) from the key ring (AES-256-GCM).
 * Both encryptions bind an associated-data string (the record's purpose and owner), so a ciphertext
 * copied to another row does not open. Rotation re-wraps DEKs under the new active KEK without touching
 * (or ever decrypting) the payload.
 *
 * Sealed form (ASCII, storable in a text column):
 *   v1.<kid>.<iv_w>.<wrapped_dek+tag>.<iv>.<ciphertext+tag>      (each part base64url)
 *
 * The ring also holds a fingerprint key: HMAC-SHA256 keyed fingerprints let us tell "same card"
 * without storing anything that can be reversed or brute-forced offline. It never rotates with KEKs.
 */
import { createCipheriv, createDecipheriv, createHmac, randomBytes } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { Secret } from './secret.js';

export interface VaultKey {
  id: string;
  key: Buffer;
}

export interface KeyRingFile {
  /** Newest first; the first is active. */
  keys: Array<{ id: string; key: string; created: string }>;
  fingerprint_key: string;
}

const B64 = 'base64url' as const;

function gcmEncrypt(key: Buffer, plaintext: Buffer, aad: string): { iv: Buffer; data: Buffer } {
  const iv = randomBytes(12);
  const c = createCipheriv('aes-256-gcm', key, iv);
  c.setAAD(Buffer.from(aad, 'utf8'));
  const data = Buffer.concat([c.update(plaintext), c.final(), c.getAuthTag()]);
  return { iv, data };
}

function gcmDecrypt(key: Buffer, iv: Buffer, data: Buffer, aad: string): Buffer {
  const d = createDecipheriv('aes-256-gcm', key, iv);
  d.setAAD(Buffer.from(aad, 'utf8'));
  d.setAuthTag(data.subarray(data.length - 16));
  return Buffer.concat([d.update(data.subarray(0, data.length - 16)), d.final()]);
}

export class VaultError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'VaultError';
  }
}

/**
 * Where a running process re-reads its key ring from (the key file): `load` returns the ring when it
 * changed since the last call, null otherwise. Checked at most every `everyMs` when sealing, and at
 * once when a sealed value names a key the ring does not have (another process rotated).
 */
export interface KeyRingSource {
  load(): VaultKey[] | null;
  everyMs: number;
}

export class Vault {
  #keys: Map<string, Buffer>;
  #active: VaultKey;
  readonly #fingerprintKey: Buffer;
  readonly #source: KeyRingSource | null;
  #checkedAt = 0;
  readonly #listeners: Array<(activeKeyId: string) => void> = [];

  constructor(keys: VaultKey[], fingerprintKey: Buffer, source: KeyRingSource | null = null) {
    Vault.#check(keys);
    if (fingerprintKey.length < 32) throw new VaultError('the fingerprint key must be at least 32 bytes');
    this.#keys = new Map(keys.map((k) => [k.id, k.key]));
    this.#active = keys[0];
    this.#fingerprintKey = fingerprintKey;
    this.#source = source;
    this.#checkedAt = Date.now();
  }

  static #check(keys: VaultKey[]): void {
    if (keys.length === 0) throw new VaultError('the vault key ring is empty');
    for (const k of keys) {
      if (k.key.length !== 32) throw new VaultError(`vault key "${k.id}" must be 32 bytes`);
    }
  }

  /**
   * Replaces the key ring (rotation in a running process); the first key becomes active. The
   * fingerprint key never changes. Listeners hear about a new active key.
   */
  setKeys(keys: VaultKey[]): void {
    Vault.#check(keys);
    const before = this.#active.id;
    this.#keys = new Map(keys.map((k) => [k.id, k.key]));
    this.#active = keys[0];
    if (this.#active.id !== before) for (const l of this.#listeners) l(this.#active.id);
  }

  /** Called with the new active key id whenever the ring changes its active key. */
  onActiveKeyChange(listener: (activeKeyId: string) => void): void {
    this.#listeners.push(listener);
  }

  /** Re-reads the key ring from its source (when it has one); true when it changed. */
  refresh(force = false): boolean {
    if (!this.#source) return false;
    const now = Date.now();
    if (!force && now - this.#checkedAt < this.#source.everyMs) return false;
    this.#checkedAt = now;
    let keys: VaultKey[] | null = null;
    try {
      keys = this.#source.load();
    } catch {
      return false; // a half-written or unreadable file: keep the ring we have
    }
    if (!keys) return false;
    this.setKeys(keys);
    return true;
  }

  get activeKeyId(): string {
    return this.#active.id;
  }

  get keyIds(): string[] {
    return [...this.#keys.keys()];
  }

  /** Encrypts `plaintext` for purpose `aad` (e.g. `card:<uuid>`). */
  seal(plaintext: string | Buffer, aad: string): string {
    this.refresh();
    const dek = randomBytes(32);
    try {
      const body = gcmEncrypt(dek, Buffer.isBuffer(plaintext) ? plaintext : Buffer.from(plaintext, 'utf8'), aad);
      const wrapped = gcmEncrypt(this.#active.key, dek, `dek|${aad}`);
      return ['v1', this.#active.id, wrapped.iv.toString(B64), wrapped.data.toString(B64), body.iv.toString(B64), body.data.toString(B64)].join('.');
    } finally {
      dek.fill(0);
    }
  }

  /** Decrypts a sealed value. The result is wrapped so it cannot be logged by accident. */
  open(sealed: string, aad: string): Secret<string> {
    return new Secret(this.openBuffer(sealed, aad).toString('utf8'));
  }

  openBuffer(sealed: string, aad: string): Buffer {
    const parts = this.#parse(sealed);
    const dek = this.#unwrap(parts, aad);
    try {
      return gcmDecrypt(dek, Buffer.from(parts.iv, B64), Buffer.from(parts.data, B64), aad);
    } catch {
      throw new VaultError('sealed value does not open (wrong key or purpose)');
    } finally {
      dek.fill(0);
    }
  }

  /** Key id a sealed value is wrapped under. */
  keyIdOf(sealed: string): string {
    return this.#parse(sealed).kid;
  }

  /** Re-wraps the data key under the active KEK. The payload is neither decrypted nor changed. */
  rewrap(sealed: string, aad: string): string {
    this.refresh();
    const parts = this.#parse(sealed);
    if (parts.kid === this.#active.id) return sealed;
    const dek = this.#unwrap(parts, aad);
    try {
      const wrapped = gcmEncrypt(this.#active.key, dek, `dek|${aad}`);
      return ['v1', this.#active.id, wrapped.iv.toString(B64), wrapped.data.toString(B64), parts.iv, parts.data].join('.');
    } finally {
      dek.fill(0);
    }
  }

  /** Keyed fingerprint (hex HMAC-SHA256) of a value in a namespace, e.g. ('pan', '4548...'). */
  fingerprint(namespace: string, value: string): string {
    return createHmac('sha256', this.#fingerprintKey).update(`${namespace}\0${value}`).digest('hex');
  }

  #parse(sealed: string) {
    const p = sealed.split('.');
    if (p.length !== 6 || p[0] !== 'v1') throw new VaultError('not a sealed value');
    return { kid: p[1], wiv: p[2], wdek: p[3], iv: p[4], data: p[5] };
  }

  #unwrap(parts: { kid: string; wiv: string; wdek: string }, aad: string): Buffer {
    let kek = this.#keys.get(parts.kid);
    if (!kek && this.refresh(true)) kek = this.#keys.get(parts.kid);
    if (!kek) throw new VaultError(`vault key "${parts.kid}" is not in the key ring`);
    try {
      return gcmDecrypt(kek, Buffer.from(parts.wiv, B64), Buffer.from(parts.wdek, B64), `dek|${aad}`);
    } catch {
      throw new VaultError('sealed value does not open (wrong key or purpose)');
    }
  }
}

/** Parses `id:base64[,id:base64...]`. */
export function parseKeyRing(spec: string): VaultKey[] {
  return spec.split(',').map((entry) => {
    const [id, b64] = entry.split(':');
    return { id, key: Buffer.from(b64, 'base64') };
  });
}

export function newKeyId(): string {
  return `k${new Date().toISOString().slice(0, 10).replace(/-/g, '')}${randomBytes(3).toString('hex')}`;
}

export const keyRingPath = (dataDir: string) => path.join(dataDir, 'vault-keys.json');

/** Reads the key ring file, creating it (mode 0600) on first use. Safe against concurrent creation. */
export function loadOrCreateKeyRingFile(dataDir: string): KeyRingFile {
  const file = keyRingPath(dataDir);
  if (!fs.existsSync(file)) {
    fs.mkdirSync(dataDir, { recursive: true });
    const fresh: KeyRingFile = {
      keys: [{ id: newKeyId(), key: randomBytes(32).toString('base64'), created: new Date().toISOString() }],
      fingerprint_key: randomBytes(32).toString('base64'),
    };
    try {
      fs.writeFileSync(file, JSON.stringify(fresh, null, 2) + '\n', { flag: 'wx', mode: 0o600 });
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
    }
  }
  return JSON.parse(fs.readFileSync(file, 'utf8')) as KeyRingFile;
}

/** Writes the key ring file atomically. */
export function writeKeyRingFile(dataDir: string, ring: KeyRingFile): void {
  const file = keyRingPath(dataDir);
  const tmp = `${file}.${process.pid}.tmp`;
  fs.writeFileSync(tmp, JSON.stringify(ring, null, 2) + '\n', { mode: 0o600 });
  fs.renameSync(tmp, file);
}

const ringKeys = (ring: KeyRingFile): VaultKey[] => ring.keys.map((k) => ({ id: k.id, key: Buffer.from(k.key, 'base64') }));

/** Adds a fresh random key to the key ring file as the active key; returns its id. */
export function addKeyToRingFile(dataDir: string): string {
  const ring = loadOrCreateKeyRingFile(dataDir);
  const id = newKeyId();
  writeKeyRingFile(dataDir, { ...ring, keys: [{ id, key: randomBytes(32).toString('base64'), created: new Date().toISOString() }, ...ring.keys] });
  return id;
}

/** Removes a (non-active) key from the key ring file. */
export function removeKeyFromRingFile(dataDir: string, id: string): void {
  const ring = loadOrCreateKeyRingFile(dataDir);
  if (!ring.keys.some((k) => k.id === id)) throw new VaultError(`vault key "${id}" is not in the key file`);
  if (ring.keys[0].id === id) throw new VaultError(`vault key "${id}" is the active key and cannot be retired`);
  writeKeyRingFile(dataDir, { ...ring, keys: ring.keys.filter((k) => k.id !== id) });
}

/** Re-reads the key file when its modification time or size changed. */
export function keyRingFileSource(dataDir: string, everyMs = 5000): KeyRingSource {
  const file = keyRingPath(dataDir);
  const stamp = () => {
    const st = fs.statSync(file);
    return `${st.mtimeMs}:${st.size}:${st.ino}`;
  };
  let seen = fs.existsSync(file) ? stamp() : '';
  return {
    everyMs,
    load() {
      const now = stamp();
      if (now === seen) return null;
      seen = now;
      return ringKeys(JSON.parse(fs.readFileSync(file, 'utf8')) as KeyRingFile);
    },
  };
}

/** Where the vault keys of a configuration come from. */
export const keySourceOf = (opts: { vaultKeys: string | null }): 'env' | 'file' => (opts.vaultKeys ? 'env' : 'file');

/**
 * Builds the vault from configuration: PAYGATE_VAULT_KEYS (+ PAYGATE_VAULT_FINGERPRINT_KEY) when set,
 * otherwise the key ring file in the data directory (re-read when it changes, so `paygate vault
 * rotate` reaches a running gateway).
 */
export function vaultFromConfig(opts: { vaultKeys: string | null; fingerprintKey?: string | null; dataDir: string }): Vault {
  if (opts.vaultKeys) {
    const fp = opts.fingerprintKey;
    if (!fp) throw new VaultError('PAYGATE_VAULT_FINGERPRINT_KEY must be set with PAYGATE_VAULT_KEYS');
    return new Vault(parseKeyRing(opts.vaultKeys), Buffer.from(fp, 'base64'));
  }
  const ring = loadOrCreateKeyRingFile(opts.dataDir);
  return new Vault(ringKeys(ring), Buffer.from(ring.fingerprint_key, 'base64'), keyRingFileSource(opts.dataDir));
}
