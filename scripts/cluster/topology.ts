/**
 * The reference topology on one machine (docs/deployment.md), for demos, the failover test and
 * bench:cluster. Everything it starts lives under one directory and is listed in its `cluster.json`,
 * so `stop` finds it again from another process:
 *
 *   pg_auto_failover   a monitor and three data nodes (PostgreSQL from Debian's packages), formation
 *                      `default`, number_sync_standbys 1: a commit is acknowledged once a standby has it
 *   two HAProxy        the same configuration on two "machines" (network namespaces lb1 and lb2):
 *                      postgres_primary  -> the node that answers `pg_is_in_recovery() = false`
 *                      postgres_standby  -> a standby (the primary when none is up), for stale reads
 *                      gateway (HTTP)    -> the gateway nodes whose /readyz answers 200
 *   keepalived         one next to each HAProxy (VRRP): the floating address is on the proxy machine
 *                      whose HAProxy answers, and moves to the other when it stops answering
 *   simulator          the processor simulator as a service (`paygate simulator`), shared by every node
 *   gateway nodes      `node dist/server.js` (an API process and its worker), N of them
 *
 * The network (root only: `ip netns`, a bridge, veth pairs): a bridge whose address (`host`, .1 of a /24
 * derived from `basePort`) is where the data nodes and the gateway nodes listen; the proxy machines lb1
 * (.11) and lb2 (.12) are network namespaces on that bridge; the floating address (.10) is where every
 * client of the proxies connects: the gateway nodes (PostgreSQL), merchants and the tests (HTTP).
 *
 * Ports (from `basePort`, default 5600): monitor +0, data nodes +1..+3 (on the host address and
 * loopback), PostgreSQL primary +10, standby +11 and HTTP +20 (on the floating address), simulator +21
 * (loopback), gateway nodes +30... (on the host address).
 */
import { execFileSync, spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
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
const stateFile = (dir: string) => path.join(dir, 'cluster.json');
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const isRoot = () => process.getuid?.() === 0;

// ---- requirements ----------------------------------------------------------------------------------

export interface Requirements {
  pgBin: string | null;
  missing: string[];
  /** Debian packages that would provide what is missing. */
  packages: string[];
}

function which(cmd: string): string | null {
  for (const dir of (process.env.PATH ?? '').split(':').concat(['/usr/sbin', '/sbin'])) {
    const p = path.join(dir, cmd);
    try {
      fs.accessSync(p, fs.constants.X_OK);
      return p;
    } catch {
      // not here
    }
  }
  return null;
}

/** PostgreSQL majors installed, highest first, with whether pg_auto_failover's extension is there. */
function postgresMajors(): Array<{ major: string; bin: string; autoFailover: boolean }> {
  const base = '/usr/lib/postgresql';
  if (!fs.existsSync(base)) return [];
  return fs
    .readdirSync(base)
    .filter((d) => /^\d+$/.test(d) && fs.existsSync(path.join(base, d, 'bin', 'postgres')))
    .sort((a, b) => Number(b) - Number(a))
    .map((major) => ({ major, bin: path.join(base, major, 'bin'), autoFailover: fs.existsSync(path.join(base, major, 'lib', 'pgautofailover.so')) }));
}

export function checkRequirements(): Requirements {
  const missing: string[] = [];
  const packages = new Set<string>();
  const majors = postgresMajors();
  const withExt = majors.find((m) => m.autoFailover);
  if (majors.length === 0) {
    missing.push('PostgreSQL server binaries (/usr/lib/postgresql/<major>/bin/postgres)');
    packages.add('postgresql');
  }
  if (!withExt) {
    missing.push(`the pg_auto_failover extension for PostgreSQL ${majors[0]?.major ?? '<major>'} (pgautofailover.so)`);
    packages.add(`postgresql-${majors[0]?.major ?? '15'}-auto-failover`);
  }
  if (!which('pg_autoctl')) {
    missing.push('pg_autoctl');
    packages.add('pg-auto-failover-cli');
  }
  if (!which('haproxy')) {
    missing.push('haproxy');
    packages.add('haproxy');
  }
  if (!which('keepalived')) {
    missing.push('keepalived (the floating address of the two proxies)');
    packages.add('keepalived');
  }
  if (!which('ip')) {
    missing.push('ip (network namespaces, a bridge and veth pairs for the two proxy machines)');
    packages.add('iproute2');
  }
  if (!which('bash')) {
    missing.push('bash (keepalived\'s check of HAProxy)');
    packages.add('bash');
  }
  if (!isRoot()) {
    // not a package: the proxy machines are network namespaces, and only root may make them
    missing.push('root (the two proxy machines and their floating address are network namespaces on a bridge: ip netns, ip link)');
  } else if (which('ip')) {
    const probe = `paygate-probe-${process.pid}`;
    try {
      execFileSync('ip', ['netns', 'add', probe], { stdio: 'pipe' });
      execFileSync('ip', ['netns', 'del', probe], { stdio: 'pipe' });
    } catch (err) {
      const why = err instanceof Error && 'stderr' in err ? String((err as { stderr: Buffer }).stderr).trim() : String(err);
      missing.push(`network namespaces (ip netns add failed here: ${why}; a container needs CAP_SYS_ADMIN and CAP_NET_ADMIN)`);
    }
  }
  if (isRoot() && !which('setpriv')) {
    missing.push('setpriv (to run PostgreSQL as the postgres user)');
    packages.add('util-linux');
  }
  if (isRoot()) {
    try {
      execFileSync('id', ['postgres'], { stdio: 'ignore' });
    } catch {
      missing.push('the system user "postgres" (PostgreSQL refuses to run as root)');
      packages.add('postgresql-common');
    }
  }
  return { pgBin: withExt?.bin ?? null, missing, packages: [...packages] };
}

/**
 * Installs what is missing from Debian's packages when this process may (root, apt-get present).
 * Returns the requirements after trying; `missing` is empty when everything is there.
 */
export function ensureRequirements(log: (l: string) => void = () => {}): Requirements {
  let req = checkRequirements();
  if (req.missing.length === 0) return req;
  if (!isRoot() || !which('apt-get')) return req;
  const install = (pkgs: string[]) => {
    log(`installing from Debian's packages: ${pkgs.join(' ')}`);
    execFileSync('apt-get', ['install', '-y', '--no-install-recommends', ...pkgs], { stdio: ['ignore', 'ignore', 'pipe'], env: { ...process.env, DEBIAN_FRONTEND: 'noninteractive' } });
  };
  try {
    install(req.packages);
  } catch {
    try {
      log('apt-get update');
      execFileSync('apt-get', ['update'], { stdio: 'ignore' });
      install(req.packages);
    } catch (err) {
      log(`apt-get failed: ${err instanceof Error ? err.message.split('\n')[0] : String(err)}`);
    }
  }
  req = checkRequirements();
  return req;
}

// ---- processes -------------------------------------------------------------------------------------

function alive(pid: number | null): boolean {
  if (!pid) return false;
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

/** Starts a detached process in a group of its own (so the whole tree can be killed at once). */
function daemon(cmd: string, args: string[], opts: { env?: Record<string, string>; logFile: string; cwd?: string; asPostgres?: boolean }): number {
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

async function stopGroup(pid: number | null, ms = 15_000): Promise<void> {
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
async function run(cmd: string, args: string[], opts: { env?: Record<string, string>; asPostgres?: boolean; logFile: string }): Promise<void> {
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

async function until<T>(what: string, fn: () => Promise<T | null | undefined | false>, ms: number, every = 200): Promise<T> {
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

async function query<R extends pg.QueryResultRow>(url: string, text: string, values: unknown[] = []): Promise<R[]> {
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

function writeState(s: ClusterState): void {
  fs.writeFileSync(stateFile(s.dir), JSON.stringify(s, null, 2) + '\n');
}

// ---- the formation ---------------------------------------------------------------------------------

function autoctlEnv(s: Pick<ClusterState, 'dir' | 'pgBin'>): Record<string, string> {
  const x = path.join(s.dir, 'pg', 'xdg');
  return {
    XDG_CONFIG_HOME: path.join(x, 'config'),
    XDG_DATA_HOME: path.join(x, 'data'),
    XDG_RUNTIME_DIR: path.join(x, 'run'),
    PATH: `${s.pgBin}:${process.env.PATH ?? '/usr/bin:/bin'}`,
    PGHOST: '127.0.0.1',
  };
}

const NODE_NAMES = ['node1', 'node2', 'node3'];

/** The monitor's view of the formation: each node's name, port, reported and assigned state. */
export async function formationState(s: ClusterState): Promise<Array<{ name: string; port: number; reported: string; goal: string; health: number }>> {
  const rows = await query<{ nodename: string; nodeport: number; reportedstate: string; goalstate: string; health: number }>(
    s.monitorUrl,
    'select nodename, nodeport, reportedstate::text, goalstate::text, health from pgautofailover.node order by nodeid',
  );
  return rows.map((r) => ({ name: r.nodename, port: r.nodeport, reported: r.reportedstate, goal: r.goalstate, health: r.health }));
}

/** The node the monitor has settled as primary (reported and assigned), or null during a failover. */
export async function primaryNode(s: ClusterState): Promise<string | null> {
  const nodes = await formationState(s);
  return nodes.find((n) => n.reported === n.goal && ['primary', 'single', 'wait_primary'].includes(n.reported))?.name ?? null;
}

/**
 * True once the formation has one primary and every other node is a secondary (and, with `sync`, one
 * synchronous standby is required: number_sync_standbys 1).
 */
export async function formationSettled(s: ClusterState, opts: { sync?: boolean } = {}): Promise<boolean> {
  if (opts.sync && (await numberSyncStandbys(s)) !== 1) return false;
  const nodes = await formationState(s);
  const primary = nodes.filter((n) => n.reported === 'primary' && n.goal === 'primary');
  const secondaries = nodes.filter((n) => n.reported === 'secondary' && n.goal === 'secondary');
  return nodes.length === NODE_NAMES.length && primary.length === 1 && secondaries.length === NODE_NAMES.length - 1;
}

function startKeeper(s: ClusterState, node: ClusterState['nodes'][number]): void {
  node.pid = daemon('pg_autoctl', ['run', '--pgdata', node.pgdata], { env: autoctlEnv(s), logFile: path.join(s.dir, 'logs', `${node.name}.log`), asPostgres: true });
}

/** kill -9 of a data node: its keeper, its PostgreSQL and every backend (what losing its machine looks like). */
export function killNode(s: ClusterState, name: string): void {
  const node = s.nodes.find((n) => n.name === name);
  if (!node) throw new Error(`no node ${name}`);
  killTree(node.pid);
  node.pid = null;
  writeState(s);
}

/** kill -9 of the monitor (its pg_autoctl and its PostgreSQL): the formation keeps serving, no failover can happen. */
export function killMonitor(s: ClusterState): void {
  killTree(s.monitorPid);
  s.monitorPid = null;
  writeState(s);
}

/** Starts the monitor again (`pg_autoctl run` on its data directory). */
export function restartMonitor(s: ClusterState): void {
  s.monitorPid = daemon('pg_autoctl', ['run', '--pgdata', path.join(s.dir, 'pg', 'monitor')], { env: autoctlEnv(s), logFile: path.join(s.dir, 'logs', 'monitor.log'), asPostgres: true });
  writeState(s);
}

/**
 * Starts a data node's keeper again (it rejoins as a standby of the current primary, or takes part in
 * the election when there is none). Returns where its log was, for rejoinNode.
 */
export function restartNode(s: ClusterState, name: string): number {
  const node = s.nodes.find((n) => n.name === name);
  if (!node) throw new Error(`no node ${name}`);
  const logFile = path.join(s.dir, 'logs', `${name}.log`);
  const from = fs.existsSync(logFile) ? fs.statSync(logFile).size : 0;
  // a postmaster killed with -9 leaves its pid file; the keeper handles it
  startKeeper(s, node);
  writeState(s);
  return from;
}

/** Stops a PostgreSQL whose keeper is gone (its postmaster can outlive its group), from its pid file. */
async function stopPostmaster(pgdata: string): Promise<void> {
  try {
    const pid = Number(fs.readFileSync(path.join(pgdata, 'postmaster.pid'), 'utf8').split('\n')[0]);
    if (alive(pid)) {
      process.kill(pid, 'SIGQUIT');
      const deadline = Date.now() + 5000;
      while (alive(pid) && Date.now() < deadline) await sleep(100);
      if (alive(pid)) process.kill(pid, 'SIGKILL');
    }
  } catch {
    // no pid file: not running
  }
}

/** What a data node's PostgreSQL said that means it cannot follow the primary without a new copy. */
const CANNOT_REJOIN = /requested timeline \d+ does not contain minimum recovery point|requested timeline \d+ is not a child of this server's history|could not start WAL streaming: ERROR:\s+requested starting point \S+ is ahead of the WAL flush position/;

/**
 * Repairs a data node that cannot rejoin (docs/deployment.md, "Repairing a data node"): stops its keeper,
 * drops it from the monitor and destroys its data directory (`pg_autoctl drop node --destroy`), then
 * creates it again (`pg_autoctl create postgres`: a new copy of the primary with pg_basebackup), and waits
 * until it is a secondary. Refused while no other node is a settled primary (its copy would be the
 * only one left) and while the monitor cannot be reached (it decides who the node follows).
 */
export async function repairNode(s: ClusterState, name: string, log: (l: string) => void = () => {}, ms = 180_000): Promise<void> {
  const node = s.nodes.find((n) => n.name === name);
  if (!node) throw new Error(`no node ${name}`);
  const nodes = await formationState(s);
  const primary = nodes.find((n) => n.name !== name && n.reported === n.goal && ['primary', 'wait_primary', 'single'].includes(n.reported));
  if (!primary) throw new Error(`${name} is not repaired: no other node is a settled primary to copy (${nodes.map((n) => `${n.name} ${n.reported}/${n.goal}`).join(', ')})`);
  const env = autoctlEnv(s);
  const logFile = path.join(s.dir, 'logs', `${name}.log`);
  log(`repairing ${name}: dropping it from the formation and destroying its data directory`);
  // its data directory is about to be destroyed: no need to stop it gently
  killTree(node.pid);
  node.pid = null;
  writeState(s);
  await stopPostmaster(node.pgdata);
  // the pid file of the keeper just killed (`drop node` trips over a stale one)
  const files = (base: string) => path.join(base, 'pg_autoctl', node.pgdata);
  fs.rmSync(path.join(files(env.XDG_RUNTIME_DIR), 'pg_autoctl.pid'), { force: true });
  let dropped = false;
  if (fs.existsSync(node.pgdata)) {
    try {
      await run('pg_autoctl', ['drop', 'node', '--destroy', '--pgdata', node.pgdata], { env, asPostgres: true, logFile });
      dropped = true;
    } catch (err) {
      log(`pg_autoctl drop node --destroy failed (${err instanceof Error ? err.message.split('\n')[0] : String(err)}): dropping it on the monitor`);
    }
  }
  if (!dropped && (await formationState(s)).some((n) => n.name === name)) {
    // nothing usable on disk, but the monitor still lists it: drop it there, then remove its files
    await run('pg_autoctl', ['drop', 'node', '--monitor', s.monitorUrl, '--formation', 'default', '--name', name, '--force'], { env, asPostgres: true, logFile });
  }
  fs.rmSync(node.pgdata, { recursive: true, force: true });
  for (const base of [env.XDG_CONFIG_HOME, env.XDG_DATA_HOME, env.XDG_RUNTIME_DIR]) fs.rmSync(files(base), { recursive: true, force: true });
  // pg_basebackup starts with a spread checkpoint (minutes on a busy primary); one made now leaves it little to write
  await query(`postgres://postgres@127.0.0.1:${s.nodes.find((n) => n.name === primary.name)!.port}/postgres`, 'checkpoint').catch(() => {});
  log(`repairing ${name}: creating it again from ${primary.name} (pg_basebackup)`);
  await createDataNode(s, node);
  await until(`${name} to be a secondary again`, async () => (await formationState(s)).some((n) => n.name === name && n.reported === 'secondary' && n.goal === 'secondary'), ms, 500);
  // dropping a node makes the monitor lower number_sync_standbys to what the remaining standbys allow
  // (0 with one standby left): ask for one synchronous standby again
  await setNumberSyncStandbys(s, 1);
  log(`${name} repaired: a secondary of ${(await primaryNode(s)) ?? '?'}, number_sync_standbys ${await numberSyncStandbys(s)}`);
}

/** The formation's number_sync_standbys (the monitor's setting). */
export async function numberSyncStandbys(s: ClusterState): Promise<number> {
  const [r] = await query<{ n: number }>(s.monitorUrl, `select number_sync_standbys as n from pgautofailover.formation where formationid = 'default'`);
  return Number(r.n);
}

async function setNumberSyncStandbys(s: ClusterState, n: number): Promise<void> {
  if ((await numberSyncStandbys(s)) === n) return;
  await run('pg_autoctl', ['set', 'formation', 'number-sync-standbys', String(n), '--monitor', s.monitorUrl], { env: autoctlEnv(s), asPostgres: true, logFile: path.join(s.dir, 'logs', 'monitor.log') });
}

/**
 * Brings a data node back: starts its keeper again (pg_auto_failover rejoins it as a standby, with
 * pg_rewind when it was a primary) and waits until it is a secondary. If it cannot (its PostgreSQL says
 * its history cannot follow the primary's, e.g. an old primary after two failovers, or it is still not
 * a secondary after `ms`), it is repaired (repairNode). Returns what was done.
 */
export async function rejoinNode(
  s: ClusterState,
  name: string,
  opts: { log?: (l: string) => void; ms?: number; /** where its log was when its keeper was started again (restartNode) */ logFrom?: number } = {},
): Promise<'rejoined' | 'repaired'> {
  const log = opts.log ?? (() => {});
  const ms = opts.ms ?? 120_000;
  const node = s.nodes.find((n) => n.name === name);
  if (!node) throw new Error(`no node ${name}`);
  const logFile = path.join(s.dir, 'logs', `${name}.log`);
  let from = opts.logFrom ?? (fs.existsSync(logFile) ? fs.statSync(logFile).size : 0);
  if (!alive(node.pid)) from = restartNode(s, name);
  const deadline = Date.now() + ms;
  while (Date.now() < deadline) {
    const me = (await formationState(s).catch(() => [])).find((n) => n.name === name);
    if (me && me.reported === 'secondary' && me.goal === 'secondary') return 'rejoined';
    const said = readFrom(logFile, from).match(CANNOT_REJOIN);
    if (said) {
      log(`${name} cannot rejoin: "${said[0]}"`);
      break;
    }
    await sleep(500);
  }
  if (Date.now() >= deadline) log(`${name} is not a secondary ${Math.round(ms / 1000)} s after it started again`);
  await repairNode(s, name, log);
  return 'repaired';
}

function readFrom(file: string, offset: number): string {
  try {
    const fd = fs.openSync(file, 'r');
    try {
      const size = fs.fstatSync(fd).size;
      const buf = Buffer.alloc(Math.max(0, size - offset));
      fs.readSync(fd, buf, 0, buf.length, offset);
      return buf.toString('utf8');
    } finally {
      fs.closeSync(fd);
    }
  } catch {
    return '';
  }
}

/**
 * `pg_autoctl create postgres` of a data node (the first one initializes the database, the others clone
 * the primary with pg_basebackup and join as standbys), then its keeper. It listens on loopback (the
 * monitor, the other nodes) and on the host address (the proxies), whose subnet may connect.
 */
async function createDataNode(s: ClusterState, node: ClusterState['nodes'][number]): Promise<void> {
  const env = autoctlEnv(s);
  const logFile = path.join(s.dir, 'logs', `${node.name}.log`);
  await run('pg_autoctl', [
    'create', 'postgres', '--pgdata', node.pgdata, '--pgport', String(node.port), '--hostname', '127.0.0.1', '--listen', `127.0.0.1,${s.network.host}`,
    '--name', node.name, '--auth', 'trust', '--no-ssl', '--pgctl', path.join(s.pgBin, 'pg_ctl'), '--dbname', 'paygate', '--monitor', s.monitorUrl,
  ], { env, asPostgres: true, logFile });
  if (s.fastFailover) await run('pg_autoctl', ['config', 'set', '--pgdata', node.pgdata, 'timeout.network_partition_timeout', '3'], { env, asPostgres: true, logFile });
  // the proxies' health checks and sessions come from the proxy machines' addresses
  const hba = path.join(node.pgdata, 'pg_hba.conf');
  const line = `host all all ${s.network.prefix}.0/24 trust # the proxy machines (scripts/cluster)`;
  if (!fs.readFileSync(hba, 'utf8').includes(line)) {
    fs.appendFileSync(hba, `${line}\n`);
    try {
      // `create` may have left PostgreSQL running: read the file again (else it reads it when it starts)
      await run(path.join(s.pgBin, 'pg_ctl'), ['reload', '-D', node.pgdata], { asPostgres: true, logFile });
    } catch {
      // not running
    }
  }
  startKeeper(s, node);
  writeState(s);
}

async function startFormation(s: ClusterState, fast: boolean, log: (l: string) => void): Promise<void> {
  const pgDir = path.join(s.dir, 'pg');
  fs.mkdirSync(path.join(pgDir, 'xdg', 'run'), { recursive: true, mode: 0o700 });
  if (isRoot()) execFileSync('chown', ['-R', 'postgres:', pgDir]);
  const env = autoctlEnv(s);
  const pgctl = path.join(s.pgBin, 'pg_ctl');
  const logFile = (n: string) => path.join(s.dir, 'logs', `${n}.log`);
  s.fastFailover = fast;

  log('pg_auto_failover: creating the monitor');
  const monitorData = path.join(pgDir, 'monitor');
  await run('pg_autoctl', ['create', 'monitor', '--pgdata', monitorData, '--pgport', String(s.basePort), '--hostname', '127.0.0.1', '--auth', 'trust', '--no-ssl', '--pgctl', pgctl], { env, asPostgres: true, logFile: logFile('monitor') });
  s.monitorPid = daemon('pg_autoctl', ['run', '--pgdata', monitorData], { env, logFile: logFile('monitor'), asPostgres: true });
  writeState(s);
  const superMonitor = `postgres://postgres@127.0.0.1:${s.basePort}/pg_auto_failover`;
  await until('the monitor', () => query(superMonitor, 'select 1').then(() => true), 60_000);
  if (fast) {
    // seconds instead of tens of seconds on one machine (defaults: 5 s checks, 20 s unhealthy, 30 s demote);
    // primary_demote_timeout stays above the keepers' network_partition_timeout (set below)
    for (const [k, v] of Object.entries({
      health_check_period: 1000, health_check_timeout: 1000, health_check_max_retries: 1, health_check_retry_delay: 500,
      node_considered_unhealthy_timeout: 3000, primary_demote_timeout: 4000, startup_grace_period: 2000,
    })) await query(superMonitor, `alter system set pgautofailover.${k} = ${v}`);
    await query(superMonitor, 'select pg_reload_conf()');
  }

  const createNode = (node: ClusterState['nodes'][number]) => createDataNode(s, node);
  log('pg_auto_failover: creating node1 (the first primary)');
  await createNode(s.nodes[0]);
  await until('node1 to be the primary', async () => (await formationState(s)).some((n) => n.name === 'node1' && n.reported === 'single'), 120_000);
  for (const node of s.nodes.slice(1)) {
    log(`pg_auto_failover: creating ${node.name} (a standby)`);
    await createNode(node);
  }
  await until('two standbys', () => formationSettled(s), 180_000);
  await setNumberSyncStandbys(s, 1);
  const primaryPort = s.nodes[0].port;
  await until('synchronous replication', async () => {
    const [r] = await query<{ names: string }>(`postgres://postgres@127.0.0.1:${primaryPort}/paygate`, "select current_setting('synchronous_standby_names') as names");
    return /^ANY 1 /.test(r.names);
  }, 60_000);
  log('pg_auto_failover: formation ready (3 data nodes, number_sync_standbys 1)');
}

// ---- HAProxy ----------------------------------------------------------------------------------------

/** A PostgreSQL startup message (user postgres, database postgres), one query, and Terminate, in hex. */
function checkPackets(queryText: string): string {
  const startupBody = Buffer.concat([
    Buffer.from([0, 3, 0, 0]),
    Buffer.from('user\0postgres\0database\0postgres\0application_name\0haproxy-check\0\0', 'latin1'),
  ]);
  const len = (n: number) => {
    const b = Buffer.alloc(4);
    b.writeUInt32BE(n);
    return b;
  };
  const q = Buffer.from(`${queryText}\0`, 'latin1');
  return Buffer.concat([len(startupBody.length + 4), startupBody, Buffer.from('Q'), len(q.length + 4), q, Buffer.from('X'), len(4)]).toString('hex');
}
/** A DataRow of one column whose value is the one byte `v` (`t` or `f`). */
const oneByteRow = (v: 't' | 'f') => `440000000b000100000001${Buffer.from(v).toString('hex')}`;

function envelopeFile(dir: string, name: string, code: number, message: string, details: string): string {
  const file = path.join(dir, `${name}.json`);
  // HAProxy log-format: the date in the contract's format (the proxy's timezone)
  fs.writeFileSync(file, `{"message":"${message}","code":${code},"current_time":"%[date,ltime(%Y-%m-%dT%H:%M:%S%z)]","details":"${details}"}\n`);
  return file;
}

/** HAProxy's configuration on proxy machine `proxy` (the same on both but for its admin socket). */
export function haproxyConfig(s: ClusterState, proxy: Proxy): string {
  const dir = path.join(s.dir, 'haproxy');
  fs.mkdirSync(path.join(dir, proxy.name), { recursive: true });
  const noNode = envelopeFile(dir, 'no-node', 503, 'Service Unavailable', 'No gateway node is ready; retry later');
  const lost = envelopeFile(dir, 'lost', 503, 'Service Unavailable', 'The gateway node handling this request stopped before it answered; the request may or may not have been done: retry it with the same Idempotency-Key');
  // writable: not in recovery, and not read-only (pg_auto_failover promotes a standby with writes still
  // blocked until the old primary is known to be gone)
  const primaryCheck = checkPackets("select pg_is_in_recovery() or current_setting('transaction_read_only')::bool");
  // a standby serves stale reads while it streams from the primary; the gateway bounds the staleness itself
  const standbyCheck = checkPackets("select pg_is_in_recovery() and exists (select 1 from pg_stat_wal_receiver where status = 'streaming')");
  const host = s.network.host;
  const pgServers = (extra: string) => s.nodes.map((n) => `  server ${n.name} ${host}:${n.port} check${extra}`).join('\n');
  return `# generated by scripts/cluster (paygate's reference topology on one machine): proxy machine ${proxy.name}
# Both proxy machines run this configuration; clients connect to the floating address (${s.network.vip}),
# which keepalived keeps on the machine whose HAProxy answers. It binds every address of its machine.
global
  maxconn 4000
  log stdout format short local0 notice
  stats socket ${adminSocket(s, proxy.name)} mode 600 level admin

defaults
  log global
  timeout connect 1s
  timeout check 1s

# PostgreSQL: the node that says it is not in recovery. A failed check closes every session to that
# node (on-marked-down shutdown-sessions): connections to a lost primary fail at once, not after TCP
# timeouts, and the gateway reconnects to the new primary as soon as one passes the check.
listen postgres_primary
  mode tcp
  bind :${s.basePort + 10}
  # long: the gateway's listening connections (LISTEN) are idle for long; its pool closes idle ones itself
  timeout client 24h
  timeout server 24h
  option tcp-check
  tcp-check connect
  tcp-check send-binary ${primaryCheck}
  tcp-check expect binary ${oneByteRow('f')}
  default-server inter 500ms fall 2 rise 1 on-marked-down shutdown-sessions
${pgServers('')}

# PostgreSQL standbys that stream from the primary (reads that may be stale); the primary when none is.
listen postgres_standby
  mode tcp
  bind :${s.basePort + 11}
  balance leastconn
  # long: the gateway's listening connections (LISTEN) are idle for long; its pool closes idle ones itself
  timeout client 24h
  timeout server 24h
  option tcp-check
  tcp-check connect
  tcp-check send-binary ${standbyCheck}
  tcp-check expect binary ${oneByteRow('t')}
  default-server inter 1s fall 2 rise 1 on-marked-down shutdown-sessions
${pgServers('')}
${s.nodes.map((n) => `  server ${n.name}_primary ${host}:${n.port} backup track postgres_primary/${n.name}`).join('\n')}

# HTTP: the gateway nodes whose /readyz answers 200 (database reachable, writable, migrated).
frontend gateway
  mode http
  bind :${s.basePort + 20}
  timeout client 75s
  option forwardfor
  default_backend gateway_nodes

backend gateway_nodes
  mode http
  balance roundrobin
  timeout server 75s
  option httpchk GET /readyz
  http-check expect status 200
  # a request that never reached a node goes to another; one that reached a node is only retried
  # elsewhere when it cannot have changed anything (not a POST)
  retries 2
  option redispatch 1
  retry-on conn-failure empty-response response-timeout
  http-request disable-l7-retry if METH_POST
  # answers made by the proxy are in the gateway's error envelope: no node ready, or the node died
  # while answering (outcome unknown: retry with the same Idempotency-Key)
  http-request return status 503 content-type application/json lf-file ${noNode} hdr Retry-After 1 if { nbsrv(gateway_nodes) lt 1 }
  http-error status 502 content-type application/json lf-file ${lost}
  http-error status 503 content-type application/json lf-file ${noNode}
  http-error status 504 content-type application/json lf-file ${lost}
  http-after-response set-status 503 if { status 502 } || { status 504 }
  default-server inter 1s fall 2 rise 1
${s.gateways.map((g) => `  server gw${g.n} ${host}:${g.port} check`).join('\n')}

# What keepalived asks, every second, on this machine's loopback: does this HAProxy answer?
frontend health
  mode http
  bind 127.0.0.1:${healthPort(s)}
  timeout client 5s
  monitor-uri /healthz
`;
}

const adminSocket = (s: Pick<ClusterState, 'dir'>, proxy: string) => path.join(s.dir, 'haproxy', proxy, 'admin.sock');
const healthPort = (s: Pick<ClusterState, 'basePort'>) => s.basePort + 22;

/** Sends a command to the admin socket of the HAProxy of proxy machine `proxy` (e.g. `disable server ...`). */
export function haproxyCommand(s: ClusterState, proxy: string, command: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const sock = net.connect(adminSocket(s, proxy));
    let out = '';
    sock.on('data', (d) => (out += d));
    sock.on('end', () => resolve(out));
    sock.on('error', reject);
    sock.end(`${command}\n`);
  });
}

// ---- the network: a bridge, two proxy machines (network namespaces) and the floating address ----------

/** The /24 of a cluster: 10.<high byte of basePort>.<low byte>.0, so that clusters on other base ports do not meet. */
export function networkOf(basePort: number): { network: Network; proxies: Proxy[] } {
  const prefix = `10.${(basePort >> 8) & 255}.${basePort & 255}`;
  const tag = `pgc${basePort}`;
  return {
    network: { bridge: tag, prefix, host: `${prefix}.1`, vip: `${prefix}.10` },
    proxies: ['lb1', 'lb2'].map((name, i) => ({
      name, netns: `paygate-${basePort}-${name}`, link: `${tag}${name}`, address: `${prefix}.${11 + i}`, priority: 150 - 50 * i, haproxyPid: null, keepalivedPid: null,
    })),
  };
}

const ip = (...args: string[]) => execFileSync('ip', args, { stdio: 'pipe' }).toString();
const ipQuiet = (...args: string[]) => {
  try {
    ip(...args);
  } catch {
    // not there
  }
};

/** Processes running in network namespace `netns` (none when it does not exist). */
function netnsPids(netns: string): number[] {
  try {
    return ip('netns', 'pids', netns).split('\n').filter(Boolean).map(Number);
  } catch {
    return [];
  }
}

/**
 * Creates the bridge with this machine's address on it, and each proxy machine: a network namespace with
 * its loopback up and one end of a veth pair on the bridge. Leftovers of a cluster on the same base port
 * that nothing runs in any more are removed first; a namespace something still runs in is an error.
 */
function checkNetworkFree(s: ClusterState): void {
  for (const p of s.proxies) {
    const pids = netnsPids(p.netns);
    if (pids.length > 0) throw new Error(`network namespace ${p.netns} is in use (processes ${pids.join(', ')}): a cluster on base port ${s.basePort} runs; stop it or choose another PAYGATE_CLUSTER_BASE_PORT`);
  }
}

function createNetwork(s: ClusterState): void {
  const { network, proxies } = s;
  checkNetworkFree(s);
  removeNetwork(s);
  // from here on it is this cluster's (stopCluster removes it)
  s.network.created = true;
  writeState(s);
  const route = (() => {
    try {
      return ip('route', 'get', network.vip);
    } catch {
      return '';
    }
  })();
  if (/ dev (?!lo\b)\S+/.test(route) && !/via/.test(route) && !route.includes(network.bridge)) {
    throw new Error(`${network.prefix}.0/24 is already a network of this machine (${route.trim()}): choose another PAYGATE_CLUSTER_BASE_PORT`);
  }
  ip('link', 'add', network.bridge, 'type', 'bridge');
  ip('addr', 'add', `${network.host}/24`, 'dev', network.bridge);
  ip('link', 'set', network.bridge, 'up');
  for (const p of proxies) {
    ip('netns', 'add', p.netns);
    ip('-n', p.netns, 'link', 'set', 'lo', 'up');
    ip('link', 'add', p.link, 'type', 'veth', 'peer', 'name', 'lan0', 'netns', p.netns);
    ip('link', 'set', p.link, 'master', network.bridge, 'up');
    ip('-n', p.netns, 'addr', 'add', `${p.address}/24`, 'dev', 'lan0');
    ip('-n', p.netns, 'link', 'set', 'lan0', 'up');
  }
}

/** Removes the proxy machines' namespaces (which removes their veth pairs) and the bridge. */
function removeNetwork(s: Pick<ClusterState, 'network' | 'proxies'>): void {
  for (const p of s.proxies) {
    ipQuiet('netns', 'del', p.netns);
    ipQuiet('link', 'del', p.link);
  }
  ipQuiet('link', 'del', s.network.bridge);
}

/** The proxy machine that holds the floating address (null: none, e.g. during a takeover). */
export function vipHolder(s: ClusterState): string | null {
  for (const p of s.proxies) {
    try {
      if (ip('-n', p.netns, '-o', '-4', 'addr', 'show', 'dev', 'lan0').includes(` ${s.network.vip}/`)) return p.name;
    } catch {
      // the machine is gone
    }
  }
  return null;
}

/**
 * keepalived's configuration on proxy machine `p`: VRRP with the other machine (unicast over the
 * bridge), the floating address on `lan0`, and the check of its own HAProxy every second: a machine
 * whose HAProxy does not answer gives up the address at once (FAULT), and the other takes it over. Both
 * start as BACKUP with `nopreempt`: the address does not move back when the first HAProxy returns (each
 * move drops the connections through it).
 */
function keepalivedConfig(s: ClusterState, p: Proxy): string {
  const dir = path.join(s.dir, 'haproxy', p.name);
  const check = path.join(dir, 'check-haproxy.sh');
  fs.writeFileSync(
    check,
    `#!/bin/bash
# keepalived's check: this machine's HAProxy answers its monitor URI (exit 0) or not
exec 3<>/dev/tcp/127.0.0.1/${healthPort(s)} || exit 1
printf 'GET /healthz HTTP/1.0\\r\\n\\r\\n' >&3
read -r -t 1 status <&3 && [[ "$status" == *" 200 "* ]]
`,
    { mode: 0o755 },
  );
  const peers = s.proxies.filter((x) => x !== p).map((x) => `    ${x.address}`).join('\n');
  return `# generated by scripts/cluster: keepalived on proxy machine ${p.name}
global_defs {
  router_id paygate_${s.basePort}_${p.name}
  script_user root
  enable_script_security
  vrrp_garp_master_delay 1
  vrrp_garp_master_repeat 3
}

vrrp_script haproxy_answers {
  script "${check}"
  interval 1
  timeout 1
  fall 1
  rise 2
}

vrrp_instance paygate {
  state BACKUP
  nopreempt
  interface lan0
  virtual_router_id ${(s.basePort % 254) + 1}
  priority ${p.priority}
  advert_int 1
  unicast_src_ip ${p.address}
  unicast_peer {
${peers}
  }
  virtual_ipaddress {
    ${s.network.vip}/24 dev lan0
  }
  track_script {
    haproxy_answers
  }
}
`;
}

/** Starts (or starts again) the HAProxy of proxy machine `name`, in its namespace. */
export async function startProxyHaproxy(s: ClusterState, name: string): Promise<void> {
  const p = s.proxies.find((x) => x.name === name)!;
  const cfg = path.join(s.dir, 'haproxy', p.name, 'haproxy.cfg');
  fs.writeFileSync(cfg, haproxyConfig(s, p));
  await run('haproxy', ['-c', '-q', '-f', cfg], { logFile: path.join(s.dir, 'logs', `haproxy-${p.name}.log`) });
  // `ip netns exec` enters the namespace and execs HAProxy: the pid is HAProxy's
  p.haproxyPid = daemon('ip', ['netns', 'exec', p.netns, 'haproxy', '-db', '-f', cfg], { logFile: path.join(s.dir, 'logs', `haproxy-${p.name}.log`) });
  writeState(s);
  await until(`HAProxy on ${p.name}`, () => fetch(`http://${p.address}:${s.basePort + 20}/readyz`, { signal: AbortSignal.timeout(2000) }).then(() => true), 30_000);
}

/** Starts (or starts again) the keepalived of proxy machine `name`, in its namespace. */
export function startProxyKeepalived(s: ClusterState, name: string): void {
  const p = s.proxies.find((x) => x.name === name)!;
  const dir = path.join(s.dir, 'haproxy', p.name);
  const cfg = path.join(dir, 'keepalived.conf');
  fs.writeFileSync(cfg, keepalivedConfig(s, p), { mode: 0o644 });
  // -P: VRRP only; -n -l: in the foreground, logging to its log file; its own pid files
  p.keepalivedPid = daemon('keepalived', [
    '--namespace', p.netns, '-P', '-n', '-l', '-D', '-f', cfg, '-p', path.join(dir, 'keepalived.pid'), '-r', path.join(dir, 'vrrp.pid'),
  ], { logFile: path.join(s.dir, 'logs', `keepalived-${p.name}.log`) });
  writeState(s);
}

async function startProxies(s: ClusterState, log: (l: string) => void): Promise<void> {
  for (const p of s.proxies) await startProxyHaproxy(s, p.name);
  // the first machine takes the address (after VRRP's master-down interval, ~3 s), then the second joins as backup
  startProxyKeepalived(s, s.proxies[0].name);
  await until(`the floating address on ${s.proxies[0].name}`, async () => vipHolder(s) === s.proxies[0].name, 30_000);
  for (const p of s.proxies.slice(1)) startProxyKeepalived(s, p.name);
  await until('HAProxy to reach the primary through the floating address', () => query(s.databaseUrl, 'select 1').then(() => true), 30_000);
  log(`HAProxy on ${s.proxies.map((p) => `${p.name} (${p.address})`).join(' and ')}, keepalived's floating address ${s.network.vip} on ${vipHolder(s)}: PostgreSQL primary on ${s.basePort + 10}, standbys on ${s.basePort + 11}, gateway on ${s.basePort + 20}`);
}

/**
 * Loss of a proxy: `haproxy` is HAProxy killed with -9 (keepalived on that machine sees it and gives the
 * address up); `machine` is the whole proxy machine gone at once (HAProxy and keepalived with -9: the
 * other machine takes the address when VRRP advertisements stop).
 */
export function killProxy(s: ClusterState, name: string, what: 'haproxy' | 'machine'): void {
  const p = s.proxies.find((x) => x.name === name);
  if (!p) throw new Error(`no proxy machine ${name}`);
  killTree(p.haproxyPid);
  p.haproxyPid = null;
  if (what === 'machine') {
    killTree(p.keepalivedPid);
    p.keepalivedPid = null;
  }
  writeState(s);
}

// ---- the simulator and the gateway nodes -------------------------------------------------------------

async function startSimulator(s: ClusterState, latencyMs: number): Promise<void> {
  s.simulatorPid = daemon(process.execPath, ['bin/paygate.js', 'simulator', '--port', String(s.basePort + 21), '--latency-ms', String(latencyMs)], {
    logFile: path.join(s.dir, 'logs', 'simulator.log'),
  });
  writeState(s);
  await until('the simulator', () => fetch(`${s.simulatorUrl}/healthz`).then((r) => r.ok), 60_000);
}

function gatewayEnvOf(s: ClusterState, vault: { keys: string; fingerprint: string }, extra: Record<string, string>, n: number, dataDir: string, port: number): Record<string, string> {
  return {
    DATABASE_URL: s.databaseUrl,
    PAYGATE_READ_DATABASE_URL: s.readDatabaseUrl,
    PAYGATE_SIMULATOR_URL: s.simulatorUrl,
    PAYGATE_VAULT_KEYS: vault.keys,
    PAYGATE_VAULT_FINGERPRINT_KEY: vault.fingerprint,
    PAYGATE_DATA_DIR: dataDir,
    PAYGATE_PUBLIC_URL: s.gatewayUrl,
    // the proxy machines' addresses (X-Forwarded-For comes from them)
    PAYGATE_TRUST_PROXY: s.proxies.map((p) => p.address).join(','),
    PAYGATE_BOOTSTRAP_SANDBOX: n === 1 ? 'true' : 'false',
    // the sandbox over plain HTTP on the bridge's private addresses (the floating address is not loopback)
    PAYGATE_SANDBOX_HTTP_ANY_ADDRESS: 'true',
    // sandbox notifications to receivers on this machine's loopback, as when the nodes listened there
    PAYGATE_OUTGOING_SANDBOX_LOOPBACK: 'true',
    PAYGATE_LOG_FORMAT: 'json',
    PAYGATE_LOG_LEVEL: 'warn',
    PAYGATE_DB_CONNECT_TIMEOUT_MS: '2000',
    // nothing acknowledged while the primary takes writes alone (wait_primary): docs/deployment.md
    PAYGATE_REQUIRE_SYNC_STANDBY: 'true',
    HOST: s.network.host,
    PORT: String(port),
    ...extra,
  };
}

/** The node options `npm start` gives the gateway (package.json). */
function startNodeArgs(): string[] {
  const start: string = JSON.parse(fs.readFileSync(path.join(ROOT, 'package.json'), 'utf8')).scripts?.start ?? '';
  const m = / node ((?:--\S+ )*)dist\/server\.js/.exec(start);
  return m ? m[1].split(' ').filter(Boolean) : [];
}

/** Starts (or starts again) gateway node `n` and waits until it is ready. */
export async function startGatewayNode(s: ClusterState, n: number): Promise<void> {
  const g = s.gateways.find((x) => x.n === n)!;
  g.pid = daemon(process.execPath, [...startNodeArgs(), 'dist/server.js'], { env: g.env, logFile: path.join(s.dir, 'logs', `gateway${n}.log`) });
  writeState(s);
  await until(`gateway node ${n}`, () => fetch(`${g.url}/readyz`).then((r) => r.status === 200), 120_000);
}

/** kill -9 of a gateway node: its API process and its worker process. */
export function killGatewayNode(s: ClusterState, n: number): void {
  const g = s.gateways.find((x) => x.n === n)!;
  killTree(g.pid);
  g.pid = null;
  writeState(s);
}

// ---- start and stop ----------------------------------------------------------------------------------

export async function startCluster(opts: ClusterOptions): Promise<ClusterState> {
  const log = opts.log ?? (() => {});
  const existing = readState(opts.dir);
  if (existing) throw new Error(`a cluster already runs in ${opts.dir} (its gateway: ${existing.gatewayUrl}); stop it first (npm run cluster:stop)`);
  const req = ensureRequirements(log);
  if (req.missing.length > 0 || !req.pgBin) {
    throw new MissingRequirementsError(req);
  }
  fs.mkdirSync(path.join(opts.dir, 'logs'), { recursive: true });
  fs.chmodSync(opts.dir, 0o755);
  const p = opts.basePort;
  const net_ = networkOf(p);
  const s: ClusterState = {
    dir: opts.dir,
    basePort: p,
    pgBin: req.pgBin,
    monitorUrl: `postgres://autoctl_node@127.0.0.1:${p}/pg_auto_failover?sslmode=disable`,
    databaseUrl: `postgres://postgres@${net_.network.vip}:${p + 10}/paygate`,
    readDatabaseUrl: `postgres://postgres@${net_.network.vip}:${p + 11}/paygate`,
    nodes: NODE_NAMES.map((name, i) => ({ name, port: p + 1 + i, pgdata: path.join(opts.dir, 'pg', name), pid: null })),
    monitorPid: null,
    fastFailover: opts.fastFailover ?? true,
    ...net_,
    simulatorPid: null,
    simulatorUrl: `http://127.0.0.1:${p + 21}`,
    gatewayUrl: `http://${net_.network.vip}:${p + 20}`,
    gateways: [],
    credentials: null,
  };
  const vault = { keys: `k1:${randomBytes(32).toString('base64')}`, fingerprint: randomBytes(32).toString('base64') };
  for (let n = 1; n <= opts.gateways; n++) {
    const port = p + 29 + n;
    const dataDir = path.join(opts.dir, `gateway${n}`);
    s.gateways.push({ n, port, url: `http://${net_.network.host}:${port}`, dataDir, pid: null, env: gatewayEnvOf(s, vault, opts.gatewayEnv ?? {}, n, dataDir, port) });
  }
  // before anything is made (a failed start removes what it made, and nothing of another cluster)
  checkNetworkFree(s);
  writeState(s);
  try {
    createNetwork(s);
    writeState(s);
    await startFormation(s, opts.fastFailover ?? true, log);
    await startProxies(s, log);
    log('building the gateway (dist/) unless it is up to date');
    await run(process.execPath, ['scripts/build.mjs', '--if-stale'], { logFile: path.join(s.dir, 'logs', 'build.log') });
    await startSimulator(s, Number(opts.gatewayEnv?.PAYGATE_SIMULATOR_LATENCY_MS ?? 0));
    // the first node migrates the database and creates the sandbox merchant; the others then start together
    await startGatewayNode(s, 1);
    await Promise.all(s.gateways.slice(1).map((g) => startGatewayNode(s, g.n)));
    const creds = path.join(s.gateways[0].dataDir, 'sandbox-credentials.json');
    if (fs.existsSync(creds)) s.credentials = JSON.parse(fs.readFileSync(creds, 'utf8'));
    writeState(s);
    await until('the load balancer to see the gateway nodes', () => fetch(`${s.gatewayUrl}/readyz`).then((r) => r.status === 200), 30_000);
    log(`${s.gateways.length} gateway node(s) ready behind ${s.gatewayUrl}`);
    return s;
  } catch (err) {
    await stopCluster(opts.dir).catch(() => {});
    throw err;
  }
}

export class MissingRequirementsError extends Error {
  constructor(readonly requirements: Requirements) {
    super(
      `missing: ${requirements.missing.join('; ')}. ` +
        (requirements.packages.length > 0 ? `Install them with: apt-get install ${requirements.packages.join(' ')} (Debian/Ubuntu)` : ''),
    );
    this.name = 'MissingRequirementsError';
  }
}

/**
 * Stops everything the cluster in `dir` started and removes the directory. `immediate`: kill -9 of
 * everything instead of a clean stop (the failover test, whose cluster is thrown away).
 */
export async function stopCluster(dir = DEFAULT_DIR, opts: { immediate?: boolean } = {}): Promise<boolean> {
  const s = readState(dir);
  if (!s) {
    if (fs.existsSync(dir)) fs.rmSync(dir, { recursive: true, force: true });
    return false;
  }
  if (opts.immediate) {
    for (const pid of [...s.gateways.map((g) => g.pid), ...(s.proxies ?? []).flatMap((p) => [p.keepalivedPid, p.haproxyPid]), s.simulatorPid, ...s.nodes.map((n) => n.pid), s.monitorPid]) killTree(pid);
  }
  await Promise.all(s.gateways.map((g) => stopGroup(g.pid)));
  await Promise.all((s.proxies ?? []).map(async (p) => {
    await stopGroup(p.keepalivedPid, 5000);
    await stopGroup(p.haproxyPid, 5000);
  }));
  await stopGroup(s.simulatorPid, 5000);
  await Promise.all(s.nodes.map((n) => stopGroup(n.pid)));
  await stopGroup(s.monitorPid);
  // a postmaster whose keeper was killed may outlive its group: stop it from its pid file
  for (const pgdata of [...s.nodes.map((n) => n.pgdata), path.join(dir, 'pg', 'monitor')]) await stopPostmaster(pgdata);
  // a postmaster killed with -9 leaves its socket and lock file in the system's socket directory: remove
  // ours (their lock names a data directory of this cluster and a process that is gone)
  for (const sockDir of ['/var/run/postgresql', '/run/postgresql', os.tmpdir()]) {
    let names: string[] = [];
    try {
      names = fs.readdirSync(sockDir).filter((n) => /^\.s\.PGSQL\.\d+\.lock$/.test(n));
    } catch {
      continue;
    }
    for (const lockName of names) {
      const lockPath = path.join(sockDir, lockName);
      try {
        const [pid, dataDir] = fs.readFileSync(lockPath, 'utf8').split('\n');
        if (!dataDir?.startsWith(dir + path.sep) || alive(Number(pid))) continue;
        fs.rmSync(lockPath, { force: true });
        fs.rmSync(lockPath.replace(/\.lock$/, ''), { force: true });
      } catch {
        // not ours, or gone
      }
    }
  }
  if (s.network?.created) removeNetwork(s);
  if (opts.immediate) {
    // five PostgreSQL data directories take seconds to delete: renamed at once (the name is free again)
    // and deleted by an rm of its own that outlives this process
    const doomed = `${dir}.removing-${process.pid}`;
    fs.renameSync(dir, doomed);
    spawn('rm', ['-rf', doomed], { detached: true, stdio: 'ignore' }).unref();
    return true;
  }
  fs.rmSync(dir, { recursive: true, force: true });
  return true;
}
