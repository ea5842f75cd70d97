/** The cluster's shapes and state file, and the processes under it (daemons, process groups, waits, queries); topology.ts gathers the parts. */
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import pg from 'pg';


export const ROOT = path.resolve(path.dirname(new URL(import.meta.url).pathname), '../..');

export interface ClusterOptions {
  /** Directory of everything the cluster creates (removed by stop). */
  dir: string;
  basePort: number;
  gateways: number;
  /** Settings added to every gateway node's environment. */
  gatewayEnv?: Record<string, string>;
  /** Failure detection tuned for one machine (seconds, not tens of seconds). */
  fastFailover?: boolean;
  log?: (line: string) => void;
}

export interface ClusterState {
  dir: string;
  basePort: number;
  pgBin: string;
  monitorUrl: string;
  databaseUrl: string;
  readDatabaseUrl: string;
  /** Direct URL of each data node (tests count rows on the primary this way too). */
  nodes: Array<{ name: string; port: number; pgdata: string; pid: number | null }>;
  monitorPid: number | null;
  /** Failure detection tuned for one machine (ClusterOptions.fastFailover). */
  fastFailover: boolean;
  /** The bridge, the addresses on it and the two proxy machines (network namespaces). */
  network: Network;
  proxies: Proxy[];
  simulatorPid: number | null;
  simulatorUrl: string;
  gatewayUrl: string;
  gateways: Array<{ n: number; port: number; url: string; dataDir: string; pid: number | null; env: Record<string, string> }>;
  /** The sandbox merchant the first node created. */
  credentials: { client_uuid: string; api_key: string; signature: string; service_uuid: string } | null;
}

export interface Network {
  bridge: string;
  /** The first three octets of the /24. */
  prefix: string;
  /** The address of this machine on the bridge: data nodes and gateway nodes listen on it. */
  host: string;
  /** The floating address (VRRP): on the proxy machine that holds it. */
  vip: string;
  /** Set once this cluster made them (stop removes them only then). */
  created?: boolean;
}

export interface Proxy {
  name: string;
  netns: string;
  /** The root namespace's end of its veth pair (on the bridge). */
  link: string;
  address: string;
  priority: number;
  haproxyPid: number | null;
  keepalivedPid: number | null;
}

export const DEFAULT_DIR = path.join(os.tmpdir(), 'paygate-cluster');
export const stateFile = (dir: string) => path.join(dir, 'cluster.json');
export const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
export const isRoot = () => process.getuid?.() === 0;

// ---- processes -------------------------------------------------------------------------------------

export function alive(pid: number | null): boolean {
  if (!pid) return false;
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

/** Starts a detached process in a group of its own (so the whole tree can be killed at once). */
export function daemon(cmd: string, args: string[], opts: { env?: Record<string, string>; logFile: string; cwd?: string; asPostgres?: boolean }): number {
  const out = fs.openSync(opts.logFile, 'a');
  const [file, argv] = opts.asPostgres && isRoot() ? ['setpriv', ['--reuid=postgres', '--regid=postgres', '--init-groups', cmd, ...args]] : [cmd, args];
  const child = spawn(file, argv, { detached: true, stdio: ['ignore', out, out], env: { ...process.env, ...opts.env }, cwd: opts.cwd ?? ROOT });
  fs.closeSync(out);
  child.unref();
  return child.pid!;
}

/** Signals a process group (the process and everything it started). */
export function killGroup(pid: number | null, signal: NodeJS.Signals): void {
  if (!pid) return;
  try {
    process.kill(-pid, signal);
  } catch {
    // gone
  }
}

/**
 * kill -9 of everything a process started, as if its machine stopped: the process, its process group,
 * and every descendant (PostgreSQL's backends and background workers each call setsid(), so they are in
 * groups of their own and would otherwise outlive their postmaster for as long as they take to notice).
 * Everything is stopped (SIGSTOP) first so that nothing restarts anything meanwhile.
 */
export function killTree(pid: number | null): void {
  if (!pid) return;
  const children = new Map<number, number[]>();
  for (const name of fs.readdirSync('/proc')) {
    if (!/^\d+$/.test(name)) continue;
    try {
      // pid (comm) state ppid pgrp ...: comm may contain spaces and parentheses
      const stat = fs.readFileSync(`/proc/${name}/stat`, 'utf8');
      const [, ppid, pgrp] = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      for (const parent of new Set([Number(ppid), Number(pgrp) === pid && Number(name) !== pid ? pid : -1])) {
        if (parent > 0) children.set(parent, [...(children.get(parent) ?? []), Number(name)]);
      }
    } catch {
      // gone meanwhile
    }
  }
  const all = new Set<number>();
  const visit = (p: number) => {
    if (all.has(p)) return;
    all.add(p);
    for (const c of children.get(p) ?? []) visit(c);
  };
  visit(pid);
  for (const signal of ['SIGSTOP', 'SIGKILL'] as const) {
    for (const p of all) {
      try {
        process.kill(p, signal);
      } catch {
        // gone
      }
    }
  }
  killGroup(pid, 'SIGKILL');
}

export async function stopGroup(pid: number | null, ms = 15_000): Promise<void> {
  if (!pid || !alive(pid)) return;
  killGroup(pid, 'SIGTERM');
  const deadline = Date.now() + ms;
  while (alive(pid) && Date.now() < deadline) await sleep(100);
  killGroup(pid, 'SIGKILL');
}

/**
 * Runs a command to its end, its output appended to `logFile`, without blocking this process (the
 * failover test keeps its load and its sampling going while a node is re-created).
 */
export async function run(cmd: string, args: string[], opts: { env?: Record<string, string>; asPostgres?: boolean; logFile: string }): Promise<void> {
  const [file, argv] = opts.asPostgres && isRoot() ? ['setpriv', ['--reuid=postgres', '--regid=postgres', '--init-groups', cmd, ...args]] : [cmd, args];
  const out = fs.openSync(opts.logFile, 'a');
  try {
    const code = await new Promise<number | string>((resolve) => {
      const child = spawn(file, argv, { stdio: ['ignore', out, out], env: { ...process.env, ...opts.env }, cwd: ROOT });
      child.on('error', (err) => resolve(err.message));
      child.on('exit', (c, signal) => resolve(c ?? String(signal)));
    });
    if (code !== 0) {
      const tail = fs.readFileSync(opts.logFile, 'utf8').split('\n').slice(-15).join('\n');
      throw new Error(`${cmd} ${args.slice(0, 2).join(' ')} failed (${code}; ${opts.logFile}):\n${tail}`);
    }
  } finally {
    fs.closeSync(out);
  }
}

export async function until<T>(what: string, fn: () => Promise<T | null | undefined | false>, ms: number, every = 200): Promise<T> {
  const deadline = Date.now() + ms;
  let last: unknown = null;
  for (;;) {
    try {
      const v = await fn();
      if (v) return v;
    } catch (err) {
      last = err;
    }
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}${last ? `: ${last instanceof Error ? last.message : String(last)}` : ''}`);
    await sleep(every);
  }
}

export async function query<R extends pg.QueryResultRow>(url: string, text: string, values: unknown[] = []): Promise<R[]> {
  const c = new pg.Client({ connectionString: url, connectionTimeoutMillis: 2000 });
  c.on('error', () => {});
  await c.connect();
  try {
    return (await c.query<R>(text, values)).rows;
  } finally {
    await c.end().catch(() => {});
  }
}

// ---- state -----------------------------------------------------------------------------------------

export function readState(dir = DEFAULT_DIR): ClusterState | null {
  try {
    return JSON.parse(fs.readFileSync(stateFile(dir), 'utf8')) as ClusterState;
  } catch {
    return null;
  }
}

export function writeState(s: ClusterState): void {
  fs.writeFileSync(stateFile(s.dir), JSON.stringify(s, null, 2) + '\n');
}
