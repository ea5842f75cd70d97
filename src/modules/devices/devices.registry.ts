/**
 * The registry of devices (register, list, read, enable/disable, rotate or revoke the token), the device
 * a token belongs to, and the signal to the process holding a device's socket. The first layer of
 * DevicesService (devices.service.ts): operations sent to devices are devices.operations.ts.
 */
import { randomInt, randomUUID } from 'node:crypto';
import { sql } from 'kysely';
import type { Executor } from '../../platform/db/database.js';
import { isUniqueViolation } from '../../platform/db/database.js';
import { badRequest, conflict, notFound } from '../../platform/errors/errors.js';
import type { RequestContext } from '../../platform/http/types.js';
import type { Platform } from '../../platform/index.js';
import { parseFilterDate } from '../../platform/time/format.js';
import { findServiceWithTerminal, findTerminal } from '../services/index.js';
import { PROPERTY_FIELDS, presentDevice, type PresentedDevice } from './devices.domain.js';
import * as repo from './devices.repo.js';
import {
  DEVICE_SIGNAL_CHANNEL,
  hashDeviceToken,
  newToken,
  ownerOf,
  type DeviceChannel,
  type DeviceSignal,
  type DevicesDeps,
  type ListQuery,
  type RegisterInput,
  type TokenDevice,
} from './devices.types.js';
import { TtlCache } from '../../platform/cache/ttl-cache.js';

export class DevicesRegistry {
  protected channel: DeviceChannel = { send: () => false, holds: () => false };
  /** Devices by token hash, and the currency of services, for the card-present hot path (PAYGATE_CACHE_TTL_MS). */
  readonly #byToken: TtlCache<TokenDevice>;
  readonly #currencies: TtlCache<string | null>;

  constructor(
    protected readonly p: Platform,
    protected readonly deps: DevicesDeps,
  ) {
    this.#byToken = new TtlCache(p.config.cacheTtlMs);
    this.#currencies = new TtlCache(p.config.cacheTtlMs);
    // a device disabled or its token rotated (devices trigger), a key revoked (api_keys trigger), a service
    // changed, in any process: drop them
    p.invalidation?.onInvalidate((table) => {
      if (table === null || table.endsWith('.devices') || table.endsWith('.api_keys')) this.#byToken.clear();
      if (table === null || table.endsWith('.services')) this.#currencies.clear();
    });
  }

  /** The socket hub of this process. */
  useChannel(channel: DeviceChannel): void {
    this.channel = channel;
  }

  protected get db() {
    return this.p.database.db;
  }

  async #present(db: Executor, rows: repo.DeviceRow[]): Promise<PresentedDevice[]> {
    const counts = await repo.pendingCounts(db, rows.map((r) => r.id));
    return rows.map((r) => presentDevice(r, counts.get(r.id) ?? 0));
  }

  protected async presentOne(db: Executor, row: repo.DeviceRow): Promise<PresentedDevice> {
    return (await this.#present(db, [row]))[0];
  }

  protected async owned(ctx: RequestContext, id: string, db: Executor = this.db, forUpdate = false): Promise<repo.DeviceRow> {
    const d = await repo.findDevice(db, ownerOf(ctx), id, { forUpdate });
    if (!d) throw notFound(`The device ${id} was not found`);
    return d;
  }

  // ---- registry -----------------------------------------------------------------------------------

  /** Registers a device for a service of the merchant; the bearer token is in the answer only. */
  async register(ctx: RequestContext, input: RegisterInput): Promise<{ device: PresentedDevice; token: string }> {
    if (input.communication_type === 'SIMULATION' && ctx.env !== 'sandbox') throw badRequest('communication_type SIMULATION is only available in the sandbox');
    const identifier = input.identifier.trim();
    if (identifier === '') throw badRequest('identifier must not be empty');
    const service = /^[0-9a-f-]{36}$/i.test(input.service) ? await findServiceWithTerminal(this.db, input.service.toLowerCase()) : undefined;
    if (!service || service.merchant_id !== ctx.merchant.id || service.env !== ctx.env) throw notFound(`The service ${input.service} was not found`);
    if (!service.enabled || !service.terminal_id) throw badRequest(`The service ${input.service} is not enabled (it has no terminal)`);
    const terminal = await findTerminal(this.db, service.terminal_id);
    const mid = terminal?.code || service.terminal_id.replace(/-/g, '').slice(0, 15).toUpperCase();
    const properties: Record<string, unknown> = {};
    for (const f of PROPERTY_FIELDS) if (input.properties?.[f] !== undefined) properties[f] = input.properties[f];
    const token = newToken();
    const now = ctx.clock.now();
    for (let attempt = 0; ; attempt++) {
      const row: repo.DeviceRow = {
        id: randomUUID(),
        merchant_id: ctx.merchant.id,
        env: ctx.env,
        service_id: service.id,
        identifier,
        terminal_id: String(randomInt(10_000_000, 100_000_000)),
        mid,
        communication_type: input.communication_type,
        connection_status: input.communication_type === 'SIMULATION' ? 'ONLINE' : 'OFFLINE',
        active: true,
        configured: input.communication_type === 'SIMULATION',
        properties,
        status: {},
        token_hash: hashDeviceToken(token),
        key_id: ctx.keyId,
        created_at: now,
        updated_at: now,
      };
      try {
        await repo.insertDevice(this.db, row);
        return { device: await this.presentOne(this.db, row), token };
      } catch (err) {
        if (isUniqueViolation(err, 'devices_merchant_id_env_identifier_key')) throw conflict(`A device with identifier "${identifier}" already exists`);
        if (isUniqueViolation(err) && attempt < 5) continue; // a terminal id drawn twice
        throw err;
      }
    }
  }

  async list(ctx: RequestContext, q: ListQuery): Promise<PresentedDevice[]> {
    const tz = ctx.merchant.timezone;
    const date = (name: string, v: string | undefined) => {
      if (v === undefined || v === '') return undefined;
      const d = parseFilterDate(v, tz);
      if (!d) throw badRequest(`${name} must be a date in the format YYYYMMDDHHmm`);
      return d;
    };
    const rows = await repo.listDevices(this.db, ownerOf(ctx), {
      identifier: q.identifier || undefined,
      service: q.service || undefined,
      terminal_id: q.terminal_id || undefined,
      communication_type: q.communication_type || undefined,
      active: q.active,
      configured: q.configured,
      created_from: date('created_at_from', q.created_at_from),
      created_to: date('created_at_to', q.created_at_to),
      updated_from: date('updated_at_from', q.updated_at_from),
      updated_to: date('updated_at_to', q.updated_at_to),
    });
    return this.#present(this.db, rows);
  }

  async get(ctx: RequestContext, id: string): Promise<PresentedDevice> {
    return this.presentOne(this.db, await this.owned(ctx, id));
  }

  /** Enables or disables a device: a disabled device gets no operations and its socket is refused. */
  async setEnabled(ctx: RequestContext, id: string, enabled: boolean): Promise<PresentedDevice> {
    const d = await this.owned(ctx, id);
    await this.p.database.transaction(async (trx) => {
      await repo.updateDevice(trx, d.id, { active: enabled, updated_at: ctx.clock.now() });
      if (!enabled) await this.signal(trx, { device: d.id, kind: 'disabled' });
    });
    this.#byToken.clear();
    return this.get(ctx, id);
  }

  /**
   * A new bearer token for the device; the old one stops working at once. The device acts from now on in
   * the name of the key that rotated its token (docs/devices.md, "Device token lifetime"): after the key
   * that registered it was revoked, rotating with an active key gives the device a working token again.
   */
  async rotateToken(ctx: RequestContext, id: string): Promise<{ device: PresentedDevice; token: string }> {
    const d = await this.owned(ctx, id);
    const token = newToken();
    await this.p.database.transaction(async (trx) => {
      await repo.updateDevice(trx, d.id, { token_hash: hashDeviceToken(token), key_id: ctx.keyId, updated_at: ctx.clock.now() });
      // a socket opened with the old token is closed: the device connects again with the new one
      await this.signal(trx, { device: d.id, kind: 'token_rotated' });
    });
    this.#byToken.clear();
    return { device: await this.get(ctx, id), token };
  }

  /**
   * The operator's `paygate device revoke-token`: the device's token stops working at once (its socket is
   * closed) and no new one is issued; the merchant gives the device a new token by rotating it (or the
   * device stays without one). Returns false for an unknown device.
   */
  async revokeToken(id: string): Promise<boolean> {
    const d = /^[0-9a-f-]{36}$/i.test(id) ? await repo.findDeviceById(this.db, id.toLowerCase()) : undefined;
    if (!d) return false;
    await this.p.database.transaction(async (trx) => {
      // the hash of a token nobody holds (never shown): the old token matches nothing from now on
      await repo.updateDevice(trx, d.id, { token_hash: hashDeviceToken(newToken()), updated_at: this.p.clock.now() });
      await this.signal(trx, { device: d.id, kind: 'token_revoked' });
    });
    this.#byToken.clear();
    return true;
  }

  /** Of `deviceIds`, the devices whose token ended with their key (the key was revoked). */
  async devicesOfRevokedKeys(deviceIds: string[]): Promise<string[]> {
    const out: string[] = [];
    const keys = new Map<string, boolean>();
    for (const id of deviceIds) {
      const d = await repo.findDeviceById(this.db, id);
      if (!d) continue;
      if (!keys.has(d.key_id)) keys.set(d.key_id, await this.deps.merchants.keyActive(this.db, d.key_id));
      if (!keys.get(d.key_id)) out.push(id);
    }
    return out;
  }

  /** Sends `signal` to every process (NOTIFY, delivered when `db`'s transaction commits). */
  protected async signal(db: Executor, signal: DeviceSignal): Promise<void> {
    await sql`select pg_notify(${DEVICE_SIGNAL_CHANNEL}, ${JSON.stringify(signal)})`.execute(db);
  }

  /**
   * The device a bearer token belongs to (any environment), or undefined, with whether its key is still
   * active. Kept for PAYGATE_CACHE_TTL_MS; disabling a device, rotating or revoking its token, or revoking
   * a key drops it at once in every process (the devices and api_keys triggers of paygate_invalidate) and
   * in this one before the change is answered.
   */
  async deviceForToken(token: string): Promise<TokenDevice | undefined> {
    if (!/^pgd_[A-Za-z0-9_-]{20,100}$/.test(token)) return undefined;
    const hash = hashDeviceToken(token);
    const cached = this.#byToken.get(hash);
    if (cached) return cached;
    const row = await repo.findDeviceByTokenHash(this.db, hash);
    // the token lives as long as the key the device acts for (docs/devices.md, "Device token lifetime")
    const device = row ? { ...row, keyActive: await this.deps.merchants.keyActive(this.db, row.key_id) } : undefined;
    if (device) this.#byToken.set(hash, device);
    return device;
  }

  /** The ISO 4217 alpha-3 currency of a service (its terminal's), cached like deviceForToken. */
  async serviceCurrency(serviceId: string): Promise<string | null> {
    const cached = this.#currencies.get(serviceId);
    if (cached !== undefined) return cached;
    const currency = (await findServiceWithTerminal(this.db, serviceId))?.currency_code ?? null;
    return this.#currencies.set(serviceId, currency);
  }

}
