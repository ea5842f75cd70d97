/**
 * The database killed in the middle of a request, in process and on either engine: from `down()` on,
 * every statement and every new transaction of the app fails as a statement does when the primary dies
 * (SQLSTATE 57P01, "terminating connection"), which the gateway answers 503; `up()` brings it back.
 * `loseNextCommitAck()` models the primary dying while it commits: the next transaction commits, then
 * its acknowledgement is lost (the caller gets the connection error) and the database is down.
 */
import type { KyselyPlugin } from 'kysely';
import type { Database, Tx } from '../../src/platform/db/database.js';

export interface DatabaseOutage {
  down(): void;
  up(): void;
  loseNextCommitAck(): void;
  readonly isDown: boolean;
  /** Puts the database back as it was (no fault). */
  restore(): void;
}

export function killedDatabase(): Error {
  return Object.assign(new Error('terminating connection due to administrator command'), { code: '57P01' });
}

export function databaseOutage(database: Database): DatabaseOutage {
  let down = false;
  let loseAck = false;
  const plugin: KyselyPlugin = {
    transformQuery(args) {
      if (down) throw killedDatabase();
      return args.node;
    },
    transformResult: async (args) => args.result,
  };
  // builders and sql templates go through the plugin; compiled statements sent as they are
  // (`executeQuery`, the one-statement paths) through the proxy
  const faulty = <K extends object>(k: K): K =>
    new Proxy(k, {
      get(t, prop, recv) {
        if (prop === 'executeQuery') {
          return (...args: unknown[]) => {
            if (down) return Promise.reject(killedDatabase());
            return (Reflect.get(t, prop, recv) as (...a: unknown[]) => unknown).apply(t, args);
          };
        }
        const v = Reflect.get(t, prop, recv);
        return typeof v === 'function' ? v.bind(t) : v;
      },
    });
  const target = database as { db: Database['db']; transaction: Database['transaction'] };
  const original = { db: database.db, transaction: database.transaction };
  target.db = faulty(original.db.withPlugin(plugin));
  target.transaction = async <T>(fn: (trx: Tx) => Promise<T>): Promise<T> => {
    if (down) throw killedDatabase();
    const result = await original.transaction.call<Database, [(trx: Tx) => Promise<T>], Promise<T>>(database, (trx: Tx) => fn(faulty(trx.withPlugin(plugin) as Tx)));
    if (loseAck) {
      loseAck = false;
      down = true;
      throw killedDatabase();
    }
    return result;
  };
  return {
    down: () => void (down = true),
    up: () => void (down = false),
    loseNextCommitAck: () => void (loseAck = true),
    get isDown() {
      return down;
    },
    restore() {
      down = false;
      loseAck = false;
      target.db = original.db;
      target.transaction = original.transaction;
    },
  };
}
