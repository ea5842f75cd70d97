/**
 * The reference topology on one machine (docs/deployment.md), for demos, the failover test and
 * bench:cluster. Everything it starts lives under one directory and is listed in its `cluster.json`,
 * so `stop` finds it again from another process:
 *
 *   pg_auto_failover   a monitor and three data nodes (PostgreSQL from Debian's packages), formation
 *                      `default`, number_sync_standbys 1: a commit is acknowledged once a standby has it
 *   HAProxy            postgres_primary  -> the node that answers `pg_is_in_recovery() = false`
 *                      postgres_standby  -> a standby (the primary when none is up), for stale reads
 *                      gateway (HTTP)    -> the gateway nodes whose /readyz answers 200
 *   simulator          the processor simulator as a service (`paygate simulator`), shared by every node
 *   gateway nodes      `node dist/server.js` (an API process and its worker), N of them
 *
 * Ports (from `basePort`, default 5600): monitor +0, data nodes +1..+3, PostgreSQL primary +10, standby
 * +11, HTTP load balancer +20, simulator +21, gateway nodes +30...
 */
import { execFileSync, spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
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
  haproxyPid: number | null;
  simulatorPid: number | null;
  simulatorUrl: string;
  gatewayUrl: string;
  gateways: Array<{ n: number; port: number; url: string; dataDir: string; pid: number | null; env: Record<string, string> }>;
  /** The sandbox merchant the first node created. */
  credentials: { client_uuid: string; api_key: string; signature: string; service_uuid: string } | null;
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

async function stopGroup(pid: number | null, ms = 15_000): Promise<void> {
  if (!pid || !alive(pid)) return;
  killGroup(pid, 'SIGTERM');
  const deadline = Date.now() + ms;
  while (alive(pid) && Date.now() < deadline) await sleep(100);
  killGroup(pid, 'SIGKILL');
}

function run(cmd: string, args: string[], opts: { env?: Record<string, string>; asPostgres?: boolean; logFile: string }): void {
  const [file, argv] = opts.asPostgres && isRoot() ? ['setpriv', ['--reuid=postgres', '--regid=postgres', '--init-groups', cmd, ...args]] : [cmd, args];
  const out = fs.openSync(opts.logFile, 'a');
  try {
    execFileSync(file, argv, { stdio: ['ignore', out, out], env: { ...process.env, ...opts.env }, cwd: ROOT });
  } catch (err) {
    const tail = fs.readFileSync(opts.logFile, 'utf8').split('\n').slice(-15).join('\n');
    throw new Error(`${cmd} ${args.slice(0, 2).join(' ')} failed (${opts.logFile}):\n${tail}`, { cause: err });
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

/** True once the formation has one primary and every other node is a secondary. */
export async function formationSettled(s: ClusterState): Promise<boolean> {
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
  killGroup(node.pid, 'SIGKILL');
  node.pid = null;
  writeState(s);
}

/** Starts a data node's keeper again (it rejoins as a standby of the current primary). */
export function restartNode(s: ClusterState, name: string): void {
  const node = s.nodes.find((n) => n.name === name);
  if (!node) throw new Error(`no node ${name}`);
  // a postmaster killed with -9 leaves its pid file; the keeper handles it, but its shared memory may
  // linger for a moment: the keeper retries
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

  log('pg_auto_failover: creating the monitor');
  const monitorData = path.join(pgDir, 'monitor');
  run('pg_autoctl', ['create', 'monitor', '--pgdata', monitorData, '--pgport', String(s.basePort), '--hostname', '127.0.0.1', '--auth', 'trust', '--no-ssl', '--pgctl', pgctl], { env, asPostgres: true, logFile: logFile('monitor') });
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

  const createNode = (node: ClusterState['nodes'][number]) => {
    run('pg_autoctl', [
      'create', 'postgres', '--pgdata', node.pgdata, '--pgport', String(node.port), '--hostname', '127.0.0.1', '--listen', '127.0.0.1',
      '--name', node.name, '--auth', 'trust', '--no-ssl', '--pgctl', pgctl, '--dbname', 'paygate', '--monitor', s.monitorUrl,
    ], { env, asPostgres: true, logFile: logFile(node.name) });
    if (fast) run('pg_autoctl', ['config', 'set', '--pgdata', node.pgdata, 'timeout.network_partition_timeout', '3'], { env, asPostgres: true, logFile: logFile(node.name) });
    startKeeper(s, node);
    writeState(s);
  };
  log('pg_auto_failover: creating node1 (the first primary)');
  createNode(s.nodes[0]);
  await until('node1 to be the primary', async () => (await formationState(s)).some((n) => n.name === 'node1' && n.reported === 'single'), 120_000);
  for (const node of s.nodes.slice(1)) {
    log(`pg_auto_failover: creating ${node.name} (a standby)`);
    createNode(node);
  }
  await until('two standbys', () => formationSettled(s), 180_000);
  run('pg_autoctl', ['set', 'formation', 'number-sync-standbys', '1', '--monitor', s.monitorUrl], { env, asPostgres: true, logFile: logFile('monitor') });
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

export function haproxyConfig(s: ClusterState): string {
  const dir = path.join(s.dir, 'haproxy');
  fs.mkdirSync(dir, { recursive: true });
  const noNode = envelopeFile(dir, 'no-node', 503, 'Service Unavailable', 'No gateway node is ready; retry later');
  const lost = envelopeFile(dir, 'lost', 503, 'Service Unavailable', 'The gateway node handling this request stopped before it answered; the request may or may not have been done: retry it with the same Idempotency-Key');
  // writable: not in recovery, and not read-only (pg_auto_failover promotes a standby with writes still
  // blocked until the old primary is known to be gone)
  const primaryCheck = checkPackets("select pg_is_in_recovery() or current_setting('transaction_read_only')::bool");
  // a standby serves stale reads while it streams from the primary; the gateway bounds the staleness itself
  const standbyCheck = checkPackets("select pg_is_in_recovery() and exists (select 1 from pg_stat_wal_receiver where status = 'streaming')");
  const pgServers = (extra: string) => s.nodes.map((n) => `  server ${n.name} 127.0.0.1:${n.port} check${extra}`).join('\n');
  return `# generated by scripts/cluster (paygate's reference topology on one machine)
global
  maxconn 4000
  log stdout format short local0 notice
  stats socket ${path.join(dir, 'admin.sock')} mode 600 level admin

defaults
  log global
  timeout connect 1s
  timeout check 1s

# PostgreSQL: the node that says it is not in recovery. A failed check closes every session to that
# node (on-marked-down shutdown-sessions): connections to a lost primary fail at once, not after TCP
# timeouts, and the gateway reconnects to the new primary as soon as one passes the check.
listen postgres_primary
  mode tcp
  bind 127.0.0.1:${s.basePort + 10}
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
  bind 127.0.0.1:${s.basePort + 11}
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
${s.nodes.map((n) => `  server ${n.name}_primary 127.0.0.1:${n.port} backup track postgres_primary/${n.name}`).join('\n')}

# HTTP: the gateway nodes whose /readyz answers 200 (database reachable, writable, migrated).
frontend gateway
  mode http
  bind 127.0.0.1:${s.basePort + 20}
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
${s.gateways.map((g) => `  server gw${g.n} 127.0.0.1:${g.port} check`).join('\n')}
`;
}

async function startHaproxy(s: ClusterState, log: (l: string) => void): Promise<void> {
  const cfg = path.join(s.dir, 'haproxy', 'haproxy.cfg');
  fs.mkdirSync(path.dirname(cfg), { recursive: true });
  fs.writeFileSync(cfg, haproxyConfig(s));
  run('haproxy', ['-c', '-q', '-f', cfg], { logFile: path.join(s.dir, 'logs', 'haproxy.log') });
  s.haproxyPid = daemon('haproxy', ['-db', '-f', cfg], { logFile: path.join(s.dir, 'logs', 'haproxy.log') });
  writeState(s);
  await until('HAProxy to reach the primary', () => query(s.databaseUrl, 'select 1').then(() => true), 30_000);
  log(`HAProxy: PostgreSQL primary on ${s.basePort + 10}, standbys on ${s.basePort + 11}, gateway on ${s.basePort + 20}`);
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
    PAYGATE_TRUST_PROXY: '127.0.0.1',
    PAYGATE_BOOTSTRAP_SANDBOX: n === 1 ? 'true' : 'false',
    PAYGATE_LOG_FORMAT: 'json',
    PAYGATE_LOG_LEVEL: 'warn',
    PAYGATE_DB_CONNECT_TIMEOUT_MS: '2000',
    // nothing acknowledged while the primary takes writes alone (wait_primary): docs/deployment.md
    PAYGATE_REQUIRE_SYNC_STANDBY: 'true',
    HOST: '127.0.0.1',
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
  killGroup(g.pid, 'SIGKILL');
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
  const s: ClusterState = {
    dir: opts.dir,
    basePort: p,
    pgBin: req.pgBin,
    monitorUrl: `postgres://autoctl_node@127.0.0.1:${p}/pg_auto_failover?sslmode=disable`,
    databaseUrl: `postgres://postgres@127.0.0.1:${p + 10}/paygate`,
    readDatabaseUrl: `postgres://postgres@127.0.0.1:${p + 11}/paygate`,
    nodes: NODE_NAMES.map((name, i) => ({ name, port: p + 1 + i, pgdata: path.join(opts.dir, 'pg', name), pid: null })),
    monitorPid: null,
    haproxyPid: null,
    simulatorPid: null,
    simulatorUrl: `http://127.0.0.1:${p + 21}`,
    gatewayUrl: `http://127.0.0.1:${p + 20}`,
    gateways: [],
    credentials: null,
  };
  const vault = { keys: `k1:${randomBytes(32).toString('base64')}`, fingerprint: randomBytes(32).toString('base64') };
  for (let n = 1; n <= opts.gateways; n++) {
    const port = p + 29 + n;
    const dataDir = path.join(opts.dir, `gateway${n}`);
    s.gateways.push({ n, port, url: `http://127.0.0.1:${port}`, dataDir, pid: null, env: gatewayEnvOf(s, vault, opts.gatewayEnv ?? {}, n, dataDir, port) });
  }
  writeState(s);
  try {
    await startFormation(s, opts.fastFailover ?? true, log);
    await startHaproxy(s, log);
    log('building the gateway (dist/)');
    execFileSync(process.execPath, ['scripts/build.mjs'], { cwd: ROOT, stdio: 'ignore' });
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

/** Stops everything the cluster in `dir` started and removes the directory. */
export async function stopCluster(dir = DEFAULT_DIR): Promise<boolean> {
  const s = readState(dir);
  if (!s) {
    if (fs.existsSync(dir)) fs.rmSync(dir, { recursive: true, force: true });
    return false;
  }
  await Promise.all(s.gateways.map((g) => stopGroup(g.pid)));
  await stopGroup(s.haproxyPid, 5000);
  await stopGroup(s.simulatorPid, 5000);
  await Promise.all(s.nodes.map((n) => stopGroup(n.pid)));
  await stopGroup(s.monitorPid);
  // a postmaster whose keeper was killed may outlive its group: stop it from its pid file
  for (const pgdata of [...s.nodes.map((n) => n.pgdata), path.join(dir, 'pg', 'monitor')]) {
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
  fs.rmSync(dir, { recursive: true, force: true });
  return true;
}
