/**
 * npm run cluster        starts the reference topology on this machine (docs/deployment.md) and prints
 *                        the gateway's URL; installs what it needs from Debian's packages when it can
 * npm run cluster:stop   stops it and removes everything it created
 * npm run cluster:status the formation's state, the proxies and where each part listens
 * npm run cluster:rejoin -- <node>   starts a data node again (after a failure); repairs it when it
 *                        cannot follow the primary (below)
 * npm run cluster:repair -- <node>   drops a data node from the formation, destroys its data directory
 *                        and creates it again from the primary (pg_autoctl drop node, create postgres)
 *
 * (run as root: the two proxy machines are network namespaces.)
 * Settings (environment): PAYGATE_CLUSTER_DIR (a directory under the system's temporary folder),
 * PAYGATE_CLUSTER_BASE_PORT (5600), PAYGATE_CLUSTER_GATEWAYS (3).
 */
import { DEFAULT_DIR, formationState, MissingRequirementsError, numberSyncStandbys, readState, rejoinNode, repairNode, startCluster, stopCluster, vipHolder } from './topology.js';

const dir = process.env.PAYGATE_CLUSTER_DIR ?? DEFAULT_DIR;
const basePort = Number(process.env.PAYGATE_CLUSTER_BASE_PORT ?? 5600);
const gateways = Number(process.env.PAYGATE_CLUSTER_GATEWAYS ?? 3);
const log = (line: string) => process.stderr.write(`cluster: ${line}\n`);

async function main(cmd: string): Promise<number> {
  if (cmd === 'start') {
    try {
      const s = await startCluster({ dir, basePort, gateways, log });
      const c = s.credentials;
      process.stdout.write(
        [
          '',
          `  gateway (load balancer)   ${s.gatewayUrl}   (the floating address, on ${vipHolder(s)})`,
          ...s.gateways.map((g) => `  gateway node ${g.n}            ${g.url}`),
          `  PostgreSQL primary        ${s.databaseUrl}   (HAProxy, follows failovers)`,
          `  PostgreSQL standbys       ${s.readDatabaseUrl}`,
          ...s.proxies.map((p) => `  ${`proxy machine ${p.name}`.padEnd(26)}${p.address}   (ip netns exec ${p.netns} ...)`),
          `  pg_auto_failover monitor  ${s.monitorUrl}`,
          `  processor simulator       ${s.simulatorUrl}`,
          `  logs                      ${s.dir}/logs`,
          '',
          ...(c
            ? [
                '  Paste into your shell to try the API:',
                '',
                `export PAYGATE_URL=${s.gatewayUrl}`,
                `export PAYGATE_API_KEY=${c.api_key}`,
                `export PAYGATE_SIGNATURE=${c.signature}`,
                `export PAYGATE_SERVICE=${c.service_uuid}`,
                '',
              ]
            : []),
          '  Stop it and remove everything it created: npm run cluster:stop',
          '',
        ].join('\n'),
      );
      process.stdout.write(`${s.gatewayUrl}\n`);
      return 0;
    } catch (err) {
      if (err instanceof MissingRequirementsError) {
        log(`cannot start: ${err.message}`);
        return 2;
      }
      log(err instanceof Error ? err.message : String(err));
      return 1;
    }
  }
  if (cmd === 'stop') {
    const stopped = await stopCluster(dir);
    log(stopped ? `stopped; ${dir} removed` : `no cluster runs in ${dir}`);
    return 0;
  }
  if (cmd === 'status') {
    const s = readState(dir);
    if (!s) {
      log(`no cluster runs in ${dir}`);
      return 1;
    }
    const nodes = await formationState(s).catch((err) => {
      log(`the monitor does not answer: ${err instanceof Error ? err.message : String(err)}`);
      return [];
    });
    for (const n of nodes) process.stdout.write(`${n.name}  127.0.0.1:${n.port}  ${n.reported} (assigned ${n.goal})${n.health === 1 ? '' : '  unhealthy'}\n`);
    if (nodes.length > 0) process.stdout.write(`number_sync_standbys ${await numberSyncStandbys(s).catch(() => '?')}\n`);
    const holder = vipHolder(s);
    for (const p of s.proxies) {
      const up = await fetch(`http://${p.address}:${s.basePort + 20}/readyz`, { signal: AbortSignal.timeout(2000) }).then(() => 'answers', () => 'does not answer');
      process.stdout.write(`proxy ${p.name}  ${p.address}  HAProxy ${up}${holder === p.name ? `  holds ${s.network.vip}` : ''}\n`);
    }
    for (const g of s.gateways) {
      const ready = await fetch(`${g.url}/readyz`).then((r) => r.status, () => 'down');
      process.stdout.write(`gateway node ${g.n}  ${g.url}  /readyz ${ready}\n`);
    }
    process.stdout.write(`gateway ${s.gatewayUrl}\n`);
    return 0;
  }
  if (cmd === 'rejoin' || cmd === 'repair') {
    const s = readState(dir);
    const name = process.argv[3];
    if (!s) {
      log(`no cluster runs in ${dir}`);
      return 1;
    }
    if (!name || !s.nodes.some((n) => n.name === name)) {
      log(`usage: cluster.ts ${cmd} <${s.nodes.map((n) => n.name).join('|')}>`);
      return 1;
    }
    try {
      if (cmd === 'repair') await repairNode(s, name, log);
      else log(`${name}: ${await rejoinNode(s, name, { log })}`);
      return 0;
    } catch (err) {
      log(err instanceof Error ? err.message : String(err));
      return 1;
    }
  }
  log('usage: cluster.ts start | stop | status | rejoin <node> | repair <node>');
  return 1;
}

main(process.argv[2] ?? 'start').then((code) => process.exit(code));
