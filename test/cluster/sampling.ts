/** What the failover test samples while it runs: readiness, what the primary had on every data node, an event stream that reconnects by itself, reads from a standby. */
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import fs from 'node:fs';
import pg from 'pg';
import { Agent, request } from 'undici';
import { SseParser } from '../../src/cli/listen.js';
import { formationState, type ClusterState } from '../../scripts/cluster/topology.js';

import { sleep, type Ack } from './support.js';

// ---- readiness sampling --------------------------------------------------------------------------------

export function sampleReadiness(s: ClusterState) {
  const samples: Array<{ at: number; node: number; status: number }> = [];
  let stop = false;
  const loop = (async () => {
    while (!stop) {
      await Promise.all(
        s.gateways.map(async (g) => {
          const status = await fetch(`${g.url}/readyz`, { signal: AbortSignal.timeout(3000) }).then((r) => r.status, () => 0);
          samples.push({ at: Date.now(), node: g.n, status });
        }),
      );
      await sleep(250);
    }
  })();
  return { samples, stop: async () => ((stop = true), await loop) };
}

// ---- what the primary had: sampled on every data node, directly -----------------------------------------

/**
 * One sample of every data node, asked directly (not through the proxies): whether it takes writes (not in
 * recovery, not read-only), its synchronous_standby_names, and how many synchronous standbys stream from it
 * (pg_stat_replication, sync_state sync or quorum, state streaming). `start`/`end` bound the moment each
 * node answered. A node that refuses the connection is down (it cannot commit); one that does not answer
 * within the timeout makes the sample unknown.
 */
export interface DurabilitySample {
  start: number;
  end: number;
  /** A node took writes with no synchronous standby streaming from it. */
  exposed: boolean;
  /** ... and its synchronous_standby_names was empty: it acknowledged commits alone (wait_primary). */
  alone: boolean;
  unknown: boolean;
  nodes: string;
}

export interface ExposureWindow {
  /** First and last sample that saw it. */
  first: DurabilitySample;
  last: DurabilitySample;
  /** The samples around it that did not (null: none, or unknown). */
  before: DurabilitySample | null;
  after: DurabilitySample | null;
  alone: boolean;
  nodes: string;
}

export function sampleDurability(s: ClusterState, everyMs = 100) {
  const samples: DurabilitySample[] = [];
  const formation: Array<{ at: number; states: string }> = [];
  const clients = new Map<string, pg.Client>();
  let stop = false;
  const client = async (name: string, port: number) => {
    let c = clients.get(name);
    if (!c) {
      c = new pg.Client({ connectionString: `postgres://postgres@127.0.0.1:${port}/paygate`, connectionTimeoutMillis: 1000, query_timeout: 1000, application_name: 'failover-test-sampler' });
      c.on('error', () => clients.delete(name));
      clients.set(name, c);
      try {
        await c.connect();
      } catch (err) {
        clients.delete(name);
        c.end().catch(() => {});
        throw err;
      }
    }
    return c;
  };
  const one = async (n: ClusterState['nodes'][number]) => {
    try {
      const c = await client(n.name, n.port);
      const { rows } = await c.query<{ writable: boolean; names: string; synced: number }>(
        `select not pg_is_in_recovery() and not current_setting('transaction_read_only')::bool as writable, current_setting('synchronous_standby_names') as names,
           (select count(*) from pg_stat_replication where sync_state in ('sync', 'quorum') and state = 'streaming')::int as synced`);
      return { name: n.name, ...rows[0], state: 'up' as const };
    } catch (err) {
      const c = clients.get(n.name);
      clients.delete(n.name);
      c?.end().catch(() => {});
      const msg = err instanceof Error ? err.message : String(err);
      // refused or reset: nothing runs there, or it is starting or stopping (it commits nothing)
      const down = /ECONNREFUSED|ECONNRESET|starting up|shutting down|terminating connection|Connection terminated|not yet accepting|in recovery mode/i.test(msg);
      return { name: n.name, writable: false, names: '', synced: 0, state: down ? ('down' as const) : ('unknown' as const) };
    }
  };
  let lastFormation = 0;
  const loop = (async () => {
    while (!stop) {
      const start = Date.now();
      const rows = await Promise.all(s.nodes.map(one));
      const end = Date.now();
      const bad = rows.filter((r) => r.writable && r.synced === 0);
      samples.push({
        start, end,
        exposed: bad.length > 0,
        alone: bad.some((r) => r.names.trim() === ''),
        unknown: rows.some((r) => r.state === 'unknown'),
        nodes: rows.map((r) => `${r.name}:${r.state === 'up' ? `${r.writable ? 'rw' : 'ro'}${r.writable ? ` sync=${r.synced}${r.names.trim() === '' ? ' alone' : ''}` : ''}` : r.state}`).join(' '),
      });
      if (end - lastFormation >= 200) {
        lastFormation = end;
        // the monitor's view, for the report (it may be down: then nothing is recorded)
        formationState(s).then(
          (f) => formation.push({ at: Date.now(), states: f.map((n) => `${n.name}:${n.reported}/${n.goal}`).join(' ') }),
          () => {},
        );
      }
      await sleep(Math.max(0, everyMs - (Date.now() - start)));
    }
  })();

  /** The windows in which a node took writes without a synchronous standby, from the samples. */
  const windows = (): ExposureWindow[] => {
    const out: ExposureWindow[] = [];
    let cur: ExposureWindow | null = null;
    for (let i = 0; i < samples.length; i++) {
      const x = samples[i];
      if (x.exposed) {
        if (!cur) cur = { first: x, last: x, before: i > 0 && !samples[i - 1].unknown ? samples[i - 1] : null, after: null, alone: x.alone, nodes: x.nodes };
        else cur.last = x;
        cur.alone ||= x.alone;
      } else if (cur) {
        cur.after = x.unknown ? null : x;
        out.push(cur);
        cur = null;
      }
    }
    if (cur) out.push(cur);
    return out;
  };
  return {
    samples,
    formation,
    windows,
    stop: async () => {
      stop = true;
      await loop;
      for (const c of clients.values()) await c.end().catch(() => {});
    },
  };
}

/**
 * Acknowledged writes against the windows. `certain`: the write was sent after a sample had seen the
 * window and answered before a later sample still saw it (its commit happened inside: [first.end,
 * last.start]), so it was acknowledged while its primary had no synchronous standby, unless the state
 * changed and changed back between two samples (the sampling interval, ~100 ms, is the resolution).
 * `edge`: the write overlaps the window only within the sampling resolution (it may have committed just
 * before the window opened or just after it closed): reported, not counted as a failure.
 */
export function acknowledgedWithoutStandby(acks: Ack[], windows: ExposureWindow[]) {
  const certain: Array<Ack & { window: ExposureWindow }> = [];
  const edge: Array<Ack & { window: ExposureWindow }> = [];
  for (const a of acks) {
    for (const w of windows) {
      if (a.sent >= w.first.end && a.at <= w.last.start) {
        certain.push({ ...a, window: w });
        break;
      }
      const from = w.before?.start ?? w.first.start;
      const to = w.after?.end ?? w.last.end;
      if (a.at > from && a.sent < to) {
        edge.push({ ...a, window: w });
        break;
      }
    }
  }
  return { certain, edge };
}

// ---- an event stream that reconnects by itself (as `paygate listen` does) --------------------------------

export function followStream(base: string, apiKey: string) {
  const ids = new Set<string>();
  let lastId: string | undefined;
  let reconnects = 0;
  const ctl = new AbortController();
  const streamAgent = new Agent({ pipelining: 0 });
  const done = (async () => {
    while (!ctl.signal.aborted) {
      try {
        const res = await request(`${base}/v1/sandbox/events/stream`, {
          headers: { authorization: `Basic ${Buffer.from(`${apiKey}:`).toString('base64')}`, accept: 'text/event-stream', ...(lastId ? { 'last-event-id': lastId } : {}) },
          signal: ctl.signal,
          dispatcher: streamAgent,
          bodyTimeout: 40_000,
        });
        if (res.statusCode !== 200) {
          await res.body.text().catch(() => '');
          throw new Error(`HTTP ${res.statusCode}`);
        }
        const parser = new SseParser();
        const decoder = new TextDecoder();
        for await (const chunk of res.body) {
          for (const m of parser.push(decoder.decode(chunk as Uint8Array, { stream: true }))) {
            if (m.id) lastId = m.id;
            if (m.event !== 'ready') ids.add(JSON.parse(m.data).uuid);
          }
        }
      } catch {
        // dropped (a node died, the proxy closed it): reconnect from the last event seen
      }
      if (ctl.signal.aborted) break;
      reconnects++;
      await sleep(500);
    }
  })();
  return { ids, reconnects: () => reconnects, close: async () => (ctl.abort(), await done.catch(() => {}), await streamAgent.destroy().catch(() => {})) };
}

// ---- reads from a standby -------------------------------------------------------------------------------

/** Waits until every gateway node's API process sends lists to the standby (its metrics say so). */
export async function readsOnStandby(s: ClusterState, ms = 30_000): Promise<string[]> {
  const deadline = Date.now() + ms;
  let states: string[] = [];
  while (Date.now() < deadline) {
    states = await Promise.all(
      s.gateways.map(async (g) => {
        const text = await fetch(`${g.url}/metrics`).then((r) => r.text(), () => '');
        const inUse = /^paygate_read_standby_in_use (\d)/m.exec(text)?.[1] ?? '?';
        const stale = /^paygate_read_standby_staleness_seconds (\S+)/m.exec(text)?.[1] ?? '-';
        return `node ${g.n}: standby ${inUse === '1' ? 'in use' : 'not in use'}, at most ${stale} s behind`;
      }),
    );
    if (states.every((x) => x.includes('standby in use'))) break;
    await sleep(500);
  }
  return states;
}
