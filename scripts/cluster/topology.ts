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
import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import pg from 'pg';

import { ROOT, type ClusterOptions, type ClusterState, DEFAULT_DIR, alive, daemon, killTree, stopGroup, run, until, readState, writeState } from './base.js';
import { ensureRequirements, MissingRequirementsError } from './requirements.js';
import { NODE_NAMES, stopPostmaster, startFormation } from './formation.js';
import { networkOf, checkNetworkFree, createNetwork, removeNetwork, startProxies } from './network.js';

export * from './base.js';
export * from './requirements.js';
export * from './formation.js';
export * from './network.js';

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