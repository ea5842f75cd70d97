/**
 * The operation ledger of a connector (the connector kit): ONE implementation of what every connector
 * keeps about what it sent, configured per connector by a small descriptor of its tables.
 *
 *  - operations: every operation is recorded by our reference (the transaction uuid) BEFORE anything is
 *    sent, so a reference without a row was never sent (the reconciler's `lookup` answers "not found")
 *    and a row is what may exist at the provider. Recording is idempotent by reference: a retried step
 *    keeps the row it wrote (and so the provider ids it drew). The provider's ids are saved once it names
 *    them (`providerId`: the provider's id of the payment, or the order number we drew for it;
 *    `actionId`: the id of a capture, void or refund), and operations are found by reference or by
 *    those ids (a notification names only the provider's);
 *  - card on file: the network transaction id of a card's first payment, per provider account and the
 *    card's keyed fingerprint (never the number), with its network and date where the provider gives
 *    them; the first one kept stays;
 *  - events: the notifications and webhooks received, once by their event id (a replay is recognised).
 *
 * Every method is one statement on the root connection, never inside a business transaction, and never
 * while a request to the provider is in flight. Statements are written once per ledger and sent as
 * prepared statements.
 *
 * Tables. The first connectors keep the tables they were released with (redsys_operations,
 * checkout_operations, paypal_operations and their cof and webhook tables: a rolling upgrade runs the
 * previous release on them), described column by column. A new connector uses the shared tables of
 * migration 1100 (`connector_operations`, `connector_cof`, `connector_events`, keyed by the connector's
 * name), with its own fields in `data` (jsonb): its descriptor is only `sharedLedger('<name>')`.
 */
import { CompiledQuery } from 'kysely';
import type { Executor } from '../../platform/db/database.js';
import type { TerminalRefRecord } from './outcomes.js';

/** What the ledger keeps of an operation. `data`: the connector's own fields. */
export interface LedgerOperation<X extends Record<string, unknown> = Record<string, unknown>> {
  reference: string;
  /** The connector's word for it (`payment`, `refund`; Redsys: its transaction type). */
  kind: string;
  amount: number;
  currency: string;
  /** The provider account it went through (merchant code, processing channel, client id). */
  account: string;
  /** The provider's id of the payment (or the order number drawn for it). */
  providerId: string | null;
  /** The provider's id of a capture, void or refund. */
  actionId: string | null;
  /** The payment a follow-up refers to. */
  originalReference: string | null;
  terminalRef: TerminalRefRecord | null;
  /** When it was recorded (real time), before it was sent. */
  createdAt: Date | null;
  data: Partial<X>;
}

export type NewOperation<X extends Record<string, unknown> = Record<string, unknown>> = Pick<LedgerOperation<X>, 'reference' | 'kind' | 'amount' | 'currency' | 'account' | 'originalReference' | 'terminalRef'> & {
  providerId?: string | null;
  data?: Partial<X>;
};

/** A network transaction id kept for a card (with the network and date some providers require). */
export interface CardOnFile {
  id: string;
  network: string | null;
  date: string | null;
}

export interface ReceivedEvent {
  eventId: string;
  type: string;
  /** The provider's id the event is about (payment, capture...). */
  resourceId: string;
  /** Our operation it settles, when one was found. */
  reference: string | null;
  outcome: string;
}

type OperationColumn = 'kind' | 'account' | 'providerId' | 'actionId';

/**
 * Where a connector's ledger lives. `shared`: the tables of migration 1100, keyed by `connector`, the
 * connector's own fields in `data`. Otherwise: a table of the connector's own, its columns named here
 * (a field without a column is not kept) and its own fields in columns of their own (`extras`).
 */
export interface LedgerDescriptor {
  connector: string;
  operations: {
    table: string;
    shared?: boolean;
    /** Column of each standard field, when it is not the shared table's (`kind`, `account`, `provider_id`, `action_id`); null: none. */
    columns?: Partial<Record<OperationColumn, string | null>>;
    /** The connector's fields kept in columns of their own (`json`: a jsonb column). */
    extras?: Record<string, { column: string; json?: boolean }>;
  };
  cof?: {
    table: string;
    shared?: boolean;
    columns?: Partial<Record<'account' | 'id' | 'network' | 'date', string | null>>;
    /** The network column takes '' for none (not null). */
    blankNetwork?: boolean;
  };
  events?: {
    table: string;
    shared?: boolean;
    columns?: Partial<Record<'type' | 'resourceId', string>>;
  };
}

/** The descriptor of a connector on the shared tables (migration 1100): what a new connector uses. */
export function sharedLedger(connector: string): LedgerDescriptor {
  return {
    connector,
    operations: { table: 'connector_operations', shared: true },
    cof: { table: 'connector_cof', shared: true },
    events: { table: 'connector_events', shared: true },
  };
}

const SHARED_OPERATION_COLUMNS: Record<OperationColumn, string> = { kind: 'kind', account: 'account', providerId: 'provider_id', actionId: 'action_id' };
const IDENT = /^[a-z_][a-z0-9_]*$/;

function ident(name: string): string {
  if (!IDENT.test(name)) throw new Error(`ledger: ${name} is not a column or table name`);
  return name;
}

/** Statement text with `?` placeholders numbered from `start`. */
function numbered(text: string, start = 1): string {
  let n = start;
  return text.replace(/\?/g, () => `$${n++}`);
}

interface Row {
  reference: string;
  kind: string;
  amount: number | string;
  currency: string;
  account: string;
  provider_id: string | null;
  action_id: string | null;
  original_reference: string | null;
  terminal_ref: TerminalRefRecord | null;
  created_at: Date | string | null;
  data?: Record<string, unknown> | null;
  [extra: string]: unknown;
}

export class Ledger<X extends Record<string, unknown> = Record<string, unknown>> {
  readonly descriptor: LedgerDescriptor;
  readonly #db: () => Executor;
  readonly #ops: { table: string; shared: boolean; col: Record<OperationColumn, string | null>; extras: Array<[string, { column: string; json?: boolean }]>; select: string; scope: string };
  readonly #text = new Map<string, string>();

  constructor(descriptor: LedgerDescriptor, db: () => Executor) {
    this.descriptor = descriptor;
    this.#db = db;
    const o = descriptor.operations;
    const shared = !!o.shared;
    const col = { ...(shared ? SHARED_OPERATION_COLUMNS : { kind: 'kind', account: null, providerId: null, actionId: null }), ...o.columns } as Record<OperationColumn, string | null>;
    const extras = shared ? [] : Object.entries(o.extras ?? {});
    for (const c of [o.table, ...Object.values(col).filter((x): x is string => !!x), ...extras.map(([, e]) => e.column)]) ident(c);
    const as = (c: string | null, name: string) => (c ? (c === name ? c : `${c} as ${name}`) : `null as ${name}`);
    const select = [
      'reference', as(col.kind, 'kind'), 'amount', 'currency', as(col.account, 'account'), as(col.providerId, 'provider_id'), as(col.actionId, 'action_id'),
      'original_reference', 'terminal_ref', 'created_at', ...(shared ? ['data'] : extras.map(([k, e]) => `${e.column} as "x:${k}"`)),
    ].join(', ');
    this.#ops = { table: o.table, shared, col, extras, select, scope: shared ? 'connector = ? and ' : '' };
  }

  /** Runs a statement (written once per shape; `?` numbered in order). */
  async #run<R>(key: string, make: () => string, params: unknown[]): Promise<R[]> {
    let text = this.#text.get(key);
    if (!text) this.#text.set(key, (text = numbered(make())));
    const r = await this.#db().executeQuery<R>(CompiledQuery.raw(text, params));
    return r.rows as R[];
  }

  #scope(): unknown[] {
    return this.#ops.shared ? [this.descriptor.connector] : [];
  }

  #toOperation(r: Row): LedgerOperation<X> {
    let data: Record<string, unknown> = {};
    if (this.#ops.shared) data = r.data ?? {};
    else for (const [k] of this.#ops.extras) if (r[`x:${k}`] !== null && r[`x:${k}`] !== undefined) data[k] = r[`x:${k}`];
    return {
      reference: r.reference, kind: r.kind, amount: Number(r.amount), currency: r.currency, account: r.account,
      providerId: r.provider_id, actionId: r.action_id, originalReference: r.original_reference, terminalRef: r.terminal_ref ?? null,
      createdAt: r.created_at ? new Date(r.created_at) : null, data: data as Partial<X>,
    };
  }

  /**
   * The terminals of the connector's latest operations, newest first, each once: a provider whose
   * notifications are encrypted under a terminal's key, naming nothing before they are opened (SIBS),
   * tries them in turn.
   */
  async recentTerminals(limit = 20): Promise<TerminalRefRecord[]> {
    const { table, scope } = this.#ops;
    const rows = await this.#run<{ terminal_ref: TerminalRefRecord | null }>('recentTerminals', () => `select terminal_ref from ${table} where ${scope}terminal_ref is not null order by created_at desc limit 500`, this.#scope());
    const seen = new Map<string, TerminalRefRecord>();
    for (const r of rows) {
      if (!r.terminal_ref) continue;
      const key = JSON.stringify([r.terminal_ref.serviceType ?? null, r.terminal_ref.serviceId ?? null, r.terminal_ref.terminalId ?? null]);
      if (!seen.has(key)) seen.set(key, r.terminal_ref);
      if (seen.size >= limit) break;
    }
    return [...seen.values()];
  }

  /** The operation recorded under our reference; null: it was never sent. */
  async find(reference: string): Promise<LedgerOperation<X> | null> {
    const { table, select, scope } = this.#ops;
    const rows = await this.#run<Row>('find', () => `select ${select} from ${table} where ${scope}reference = ?`, [...this.#scope(), reference]);
    return rows[0] ? this.#toOperation(rows[0]) : null;
  }

  /**
   * The operations carrying any of these provider ids (a notification names only the provider's), oldest
   * first; `account` narrows them to one provider account. `data` keys are the connector's own fields.
   */
  async findByIds(ids: { providerId?: string | null; actionId?: string | null; data?: Record<string, string | null | undefined> }, account?: string): Promise<Array<LedgerOperation<X>>> {
    const { table, select, scope, col, shared } = this.#ops;
    const terms: Array<[string, string]> = [];
    if (ids.providerId && col.providerId) terms.push([col.providerId, ids.providerId]);
    if (ids.actionId && col.actionId) terms.push([col.actionId, ids.actionId]);
    for (const [k, v] of Object.entries(ids.data ?? {})) {
      if (!v) continue;
      if (shared) terms.push([`data->>'${ident(k)}'`, v]);
      else {
        const e = this.#ops.extras.find(([name]) => name === k)?.[1];
        if (!e) throw new Error(`ledger ${this.descriptor.connector}: no field ${k}`);
        terms.push([e.column, v]);
      }
    }
    if (terms.length === 0) return [];
    const byAccount = account !== undefined && col.account ? `${col.account} = ? and ` : '';
    const key = `ids:${byAccount ? 'a:' : ''}${terms.map(([c]) => c).join(',')}`;
    const rows = await this.#run<Row>(key, () => `select ${select} from ${table} where ${scope}${byAccount}(${terms.map(([c]) => `${c} = ?`).join(' or ')}) order by created_at`, [
      ...this.#scope(), ...(byAccount ? [account] : []), ...terms.map(([, v]) => v),
    ]);
    return rows.map((r) => this.#toOperation(r));
  }

  /**
   * Records an operation before it is sent; idempotent by reference (a reference recorded before keeps
   * its row, and what it drew). `draw`: the provider id is ours to draw (Redsys's order number), drawn
   * again when another payment took it.
   */
  async record(op: NewOperation<X>, draw?: () => string): Promise<LedgerOperation<X>> {
    const { table, select, col, shared, extras } = this.#ops;
    const names = [...(shared ? ['connector'] : []), 'reference', col.kind!, 'amount', 'currency'];
    if (col.account) names.push(col.account);
    if (col.providerId) names.push(col.providerId);
    names.push('original_reference', 'terminal_ref');
    const extraCols = extras.filter(([k]) => op.data?.[k] !== undefined);
    if (shared) names.push('data');
    else names.push(...extraCols.map(([, e]) => e.column));
    const key = `record:${extraCols.map(([k]) => k).join(',')}`;
    for (let attempt = 0; attempt < 20; attempt++) {
      const providerId = op.providerId ?? (draw ? draw() : null);
      const params: unknown[] = [...this.#scope(), op.reference, op.kind, op.amount, op.currency];
      if (col.account) params.push(op.account);
      if (col.providerId) params.push(providerId);
      params.push(op.originalReference, op.terminalRef ? JSON.stringify(op.terminalRef) : null);
      if (shared) params.push(JSON.stringify(op.data ?? {}));
      else for (const [k, e] of extraCols) params.push(e.json ? JSON.stringify(op.data![k]) : op.data![k]);
      const rows = await this.#run<Row>(key, () => `insert into ${table} (${names.join(', ')}) values (${names.map(() => '?').join(', ')}) on conflict do nothing returning ${select}`, params);
      if (rows[0]) return this.#toOperation(rows[0]);
      const existing = await this.find(op.reference);
      if (existing) return existing;
      if (!draw || op.providerId) throw new Error(`${this.descriptor.connector}: the operation could not be recorded`);
    }
    throw new Error(`${this.descriptor.connector}: no free provider id after 20 draws`);
  }

  /** Keeps the provider's ids of an operation, and fields of the connector's own, once known. */
  async save(reference: string, ids: { providerId?: string | null; actionId?: string | null; data?: Partial<X> }): Promise<void> {
    const { table, col, shared, scope } = this.#ops;
    const set: string[] = [];
    const params: unknown[] = [];
    if (ids.providerId && col.providerId) {
      set.push(`${col.providerId} = ?`);
      params.push(ids.providerId);
    }
    if (ids.actionId && col.actionId) {
      set.push(`${col.actionId} = ?`);
      params.push(ids.actionId);
    }
    const data = Object.entries(ids.data ?? {}).filter(([, v]) => v !== undefined);
    if (data.length > 0) {
      if (shared) {
        set.push('data = data || ?::jsonb');
        params.push(JSON.stringify(Object.fromEntries(data)));
      } else {
        for (const [k, v] of data) {
          const e = this.#ops.extras.find(([name]) => name === k)?.[1];
          if (!e) throw new Error(`ledger ${this.descriptor.connector}: no field ${k}`);
          set.push(`${e.column} = ?`);
          params.push(e.json ? JSON.stringify(v) : v);
        }
      }
    }
    if (set.length === 0) return;
    const key = `save:${set.join(',')}`;
    // the SET's placeholders come first, then the scope and the reference
    await this.#run(key, () => `update ${table} set ${set.join(', ')} where ${scope}reference = ?`, [...params, ...this.#scope(), reference]);
  }

  // ---- card on file ------------------------------------------------------------------------------------

  #cof() {
    const c = this.descriptor.cof;
    if (!c) throw new Error(`ledger ${this.descriptor.connector}: no card-on-file table`);
    const col = { account: 'account', id: 'network_transaction_id', network: 'network', date: 'network_date', ...(c.shared ? {} : { network: null, date: null }), ...c.columns };
    for (const x of [c.table, ...Object.values(col).filter((v): v is string => !!v)]) ident(x);
    return { ...c, col, scope: c.shared ? 'connector = ? and ' : '' };
  }

  /** The network transaction id kept for a card under a provider account. */
  async findCof(account: string, fingerprint: string): Promise<CardOnFile | null> {
    const c = this.#cof();
    const rows = await this.#run<{ id: string; network: string | null; date: string | null }>('cof:find', () =>
      `select ${c.col.id} as id, ${c.col.network ?? 'null'} as network, ${c.col.date ?? 'null'} as date from ${c.table} where ${c.scope}${c.col.account} = ? and card_fingerprint = ?`,
    [...(c.shared ? [this.descriptor.connector] : []), account, fingerprint]);
    const r = rows[0];
    return r ? { id: r.id, network: r.network || null, date: r.date ?? null } : null;
  }

  /** Keeps the first network transaction id of a card (a later one does not replace it). */
  async keepCof(account: string, fingerprint: string, cof: { id: string; network?: string | null; date?: string | null }): Promise<void> {
    const c = this.#cof();
    const names = [...(c.shared ? ['connector'] : []), c.col.account, 'card_fingerprint', c.col.id, ...(c.col.network ? [c.col.network] : []), ...(c.col.date ? [c.col.date] : [])];
    const params: unknown[] = [...(c.shared ? [this.descriptor.connector] : []), account, fingerprint, cof.id];
    if (c.col.network) params.push(cof.network ?? (c.blankNetwork ? '' : null));
    if (c.col.date) params.push(cof.date ?? null);
    await this.#run('cof:keep', () => `insert into ${c.table} (${names.join(', ')}) values (${names.map(() => '?').join(', ')}) on conflict do nothing`, params);
  }

  // ---- notifications and webhooks received -------------------------------------------------------------

  /** Records a verified event; false when its id was received before (a replay). */
  async recordEvent(e: ReceivedEvent): Promise<boolean> {
    const ev = this.descriptor.events;
    if (!ev) throw new Error(`ledger ${this.descriptor.connector}: no events table`);
    const col = { type: 'type', resourceId: 'resource_id', ...ev.columns };
    const names = [...(ev.shared ? ['connector'] : []), 'event_id', ident(col.type), ident(col.resourceId), 'reference', 'outcome'];
    const rows = await this.#run<{ event_id: string }>('event', () => `insert into ${ident(ev.table)} (${names.join(', ')}) values (${names.map(() => '?').join(', ')}) on conflict do nothing returning event_id`, [
      ...(ev.shared ? [this.descriptor.connector] : []), e.eventId, e.type, e.resourceId, e.reference, e.outcome,
    ]);
    return rows.length > 0;
  }
}
