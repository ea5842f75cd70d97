/**
 * Kysely dialect for PGlite. PGlite is one connection, so the driver hands it out to one user at a time
 * behind a mutex: a transaction holds the connection from BEGIN to COMMIT and concurrent requests queue
 * behind it instead of interleaving their statements. Asking for the connection again from inside a
 * transaction's own async context would wait forever; that is a bug in the caller (it used the root
 * database instead of the transaction), so it fails loudly instead of hanging.
 */
import { AsyncLocalStorage } from 'node:async_hooks';
import { parse as pgliteParse, protocol, type PGlite } from '@electric-sql/pglite';
import { preparedName } from './prepared.js';
import {
  CompiledQuery,
  PostgresAdapter,
  PostgresIntrospector,
  PostgresQueryCompiler,
  type DatabaseConnection,
  type Dialect,
  type Driver,
  type Kysely,
  type QueryResult,
} from 'kysely';

class Mutex {
  #tail: Promise<void> = Promise.resolve();
  #waiting = 0;

  get waiting(): number {
    return this.#waiting;
  }

  async lock(): Promise<() => void> {
    let release!: () => void;
    const next = new Promise<void>((r) => (release = r));
    const prev = this.#tail;
    this.#tail = prev.then(() => next);
    this.#waiting++;
    await prev;
    this.#waiting--;
    return release;
  }
}

/** Marks the async context of a running transaction (set by Database.transaction). */
export const transactionScope = new AsyncLocalStorage<true>();

function concat(parts: Uint8Array[]): Uint8Array {
  const out = new Uint8Array(parts.reduce((n, p) => n + p.length, 0));
  let at = 0;
  for (const p of parts) {
    out.set(p, at);
    at += p.length;
  }
  return out;
}

/**
 * Named prepared statements on PGlite. Its `query()` parses, plans and describes a statement on every
 * call, in six calls into the database; a prepared statement is parsed and described once (its
 * parameter types kept here), then each call is one message: bind, describe, execute, sync. Results are
 * read by PGlite's own parser, so rows are what `query()` returns.
 */
/** Parameter types of the statements prepared on each PGlite client (its statements outlive a dialect). */
const preparedOn = new WeakMap<PGlite, Map<string, number[]>>();

class PGlitePrepared {
  readonly #paramTypes: Map<string, number[]>;

  constructor(private readonly client: PGlite) {
    let known = preparedOn.get(client);
    if (!known) preparedOn.set(client, (known = new Map()));
    this.#paramTypes = known;
  }

  async query<R>(name: string, text: string, params: readonly unknown[]): Promise<{ rows: R[]; affectedRows?: number }> {
    const { serialize } = protocol;
    let types = this.#paramTypes.get(name);
    if (!types) {
      const described = await this.client.execProtocol(concat([serialize.parse({ name, text }), serialize.describe({ type: 'S', name }), serialize.sync()]), { syncToFs: false });
      types = pgliteParse.parseDescribeStatementResults(described.messages);
      this.#paramTypes.set(name, types);
    }
    const serializers = this.client.serializers;
    const values = params.map((v, i) => {
      if (v === null || v === undefined) return null;
      const serializer = serializers[types![i]];
      return serializer ? serializer(v) : String(v);
    });
    const r = await this.client.execProtocol(
      concat([serialize.bind({ statement: name, values }), serialize.describe({ type: 'P' }), serialize.execute({}), serialize.sync()]),
    );
    return pgliteParse.parseResults(r.messages, this.client.parsers)[0] as unknown as { rows: R[]; affectedRows?: number };
  }
}

class PGliteConnection implements DatabaseConnection {
  readonly #prepared: PGlitePrepared | null;

  constructor(
    private readonly client: PGlite,
    private readonly stats: { roundTrips: number },
    prepare: boolean,
  ) {
    this.#prepared = prepare ? new PGlitePrepared(client) : null;
  }

  async executeQuery<R>(compiled: CompiledQuery): Promise<QueryResult<R>> {
    this.stats.roundTrips++;
    if (compiled.parameters.length === 0) {
      // Simple protocol: allows several statements (migrations), like pg does without parameters.
      const results = await this.client.exec(compiled.sql);
      const last = results[results.length - 1];
      const affected = results.reduce((n, r) => n + (r.affectedRows ?? 0), 0);
      return { rows: (last?.rows ?? []) as R[], numAffectedRows: BigInt(affected) };
    }
    const name = this.#prepared ? preparedName(compiled.sql) : null;
    const res = name
      ? await this.#prepared!.query<R>(name, compiled.sql, compiled.parameters)
      : await this.client.query<R>(compiled.sql, compiled.parameters as unknown[]);
    return {
      rows: res.rows,
      numAffectedRows: res.affectedRows !== undefined ? BigInt(res.affectedRows) : undefined,
    };
  }

  // eslint-disable-next-line require-yield
  async *streamQuery<R>(): AsyncIterableIterator<QueryResult<R>> {
    throw new Error('PGlite does not support streaming');
  }
}

class PGliteDriver implements Driver {
  readonly #mutex = new Mutex();
  readonly #connection: PGliteConnection;
  #release: (() => void) | null = null;

  constructor(
    private readonly client: PGlite,
    stats: { roundTrips: number },
    prepare: boolean,
  ) {
    this.#connection = new PGliteConnection(client, stats, prepare);
  }

  async init(): Promise<void> {
    await this.client.waitReady;
  }

  async acquireConnection(): Promise<DatabaseConnection> {
    if (transactionScope.getStore()) {
      throw new Error('database used outside its transaction: pass the transaction (trx) down instead of the root db');
    }
    this.#release = await this.#mutex.lock();
    return this.#connection;
  }

  async beginTransaction(connection: DatabaseConnection): Promise<void> {
    await connection.executeQuery(CompiledQuery.raw('BEGIN'));
  }

  async commitTransaction(connection: DatabaseConnection): Promise<void> {
    await connection.executeQuery(CompiledQuery.raw('COMMIT'));
  }

  async rollbackTransaction(connection: DatabaseConnection): Promise<void> {
    await connection.executeQuery(CompiledQuery.raw('ROLLBACK'));
  }

  async releaseConnection(): Promise<void> {
    const release = this.#release;
    this.#release = null;
    release?.();
  }

  async destroy(): Promise<void> {
    await this.client.close();
  }
}

export class PGliteDialect implements Dialect {
  constructor(
    private readonly client: PGlite,
    private readonly stats: { roundTrips: number } = { roundTrips: 0 },
    private readonly prepare = true,
  ) {}
  createAdapter() {
    return new PostgresAdapter();
  }
  createDriver(): Driver {
    return new PGliteDriver(this.client, this.stats, this.prepare);
  }
  createIntrospector(db: Kysely<any>) {
    return new PostgresIntrospector(db);
  }
  createQueryCompiler() {
    return new PostgresQueryCompiler();
  }
}
