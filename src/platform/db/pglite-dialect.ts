/**
 * Kysely dialect for PGlite. PGlite is one connection, so the driver hands it out to one user at a time
 * behind a mutex: a transaction holds the connection from BEGIN to COMMIT and concurrent requests queue
 * behind it instead of interleaving their statements. Asking for the connection again from inside a
 * transaction's own async context would wait forever; that is a bug in the caller (it used the root
 * database instead of the transaction), so it fails loudly instead of hanging. API requests go before
 * queued background work (see PriorityMutex).
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

/**
 * The lock of the one connection, with two waiting lines: API work (requests) and background work (the
 * job loops, marked with `backgroundScope`). When the connection is released it goes to the API line
 * first, so a request waits for the transaction in progress, not behind a backlog of background
 * statements; the background line still gets one turn after every FOREGROUND_BURST grants to the API
 * line while both wait, so background work goes on under steady API load. Each line is first come,
 * first served.
 */
export class PriorityMutex {
  static readonly FOREGROUND_BURST = 8;
  #held = false;
  readonly #foreground: Array<() => void> = [];
  readonly #background: Array<() => void> = [];
  #passedOver = 0;

  get waiting(): number {
    return this.#foreground.length + this.#background.length;
  }

  lock(background = false): Promise<() => void> {
    return new Promise((resolve) => {
      let released = false;
      const grant = () =>
        resolve(() => {
          if (released) return;
          released = true;
          this.#next();
        });
      if (!this.#held) {
        this.#held = true;
        grant();
      } else (background ? this.#background : this.#foreground).push(grant);
    });
  }

  #next(): void {
    let next: (() => void) | undefined;
    if (this.#foreground.length > 0 && (this.#background.length === 0 || this.#passedOver < PriorityMutex.FOREGROUND_BURST)) {
      next = this.#foreground.shift();
      if (this.#background.length > 0) this.#passedOver++;
    } else if (this.#background.length > 0) {
      next = this.#background.shift();
      this.#passedOver = 0;
    }
    if (next) next();
    else this.#held = false;
  }
}

/**
 * Marks the async context of background work (the job loops) on the embedded database: its statements
 * and transactions wait in the background line of the connection's lock.
 */
export const backgroundScope = new AsyncLocalStorage<true>();

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
    private readonly stats: { roundTrips: number; statements?: Set<string> },
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
    this.stats.statements?.add(compiled.sql);
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
  readonly #mutex = new PriorityMutex();
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
    this.#release = await this.#mutex.lock(backgroundScope.getStore() === true);
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
