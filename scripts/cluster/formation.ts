/** The pg_auto_failover formation: its nodes' keepers and monitor, their state, killing, restarting, repairing and rejoining them. */
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import pg from 'pg';

import { type ClusterState, sleep, isRoot, alive, daemon, killTree, run, until, query, writeState } from './base.js';

// ---- the formation ---------------------------------------------------------------------------------

export function autoctlEnv(s: Pick<ClusterState, 'dir' | 'pgBin'>): Record<string, string> {
  const x = path.join(s.dir, 'pg', 'xdg');
  return {
    XDG_CONFIG_HOME: path.join(x, 'config'),
    XDG_DATA_HOME: path.join(x, 'data'),
    XDG_RUNTIME_DIR: path.join(x, 'run'),
    PATH: `${s.pgBin}:${process.env.PATH ?? '/usr/bin:/bin'}`,
    PGHOST: '127.0.0.1',
  };
}

export const NODE_NAMES = ['node1', 'node2', 'node3'];

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

export function startKeeper(s: ClusterState, node: ClusterState['nodes'][number]): void {
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
export async function stopPostmaster(pgdata: string): Promise<void> {
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
export const CANNOT_REJOIN = /requested timeline \d+ does not contain minimum recovery point|requested timeline \d+ is not a child of this server's history|could not start WAL streaming: ERROR:\s+requested starting point \S+ is ahead of the WAL flush position/;

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

export async function setNumberSyncStandbys(s: ClusterState, n: number): Promise<void> {
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

export function readFrom(file: string, offset: number): string {
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
export async function createDataNode(s: ClusterState, node: ClusterState['nodes'][number]): Promise<void> {
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

export async function startFormation(s: ClusterState, fast: boolean, log: (l: string) => void): Promise<void> {
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
