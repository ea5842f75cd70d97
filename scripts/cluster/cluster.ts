/**
 * npm run cluster        starts the reference topology on this machine (docs/deployment.md) and prints
 *                        the gateway's URL; installs what it needs from Debian's packages when it can
 * npm run cluster:stop   stops it and removes everything it created
 * npm run cluster:status the formation's state and where each part listens
 *
 * Settings (environment): PAYGATE_CLUSTER_DIR (a directory under the system's temporary folder),
 * PAYGATE_CLUSTER_BASE_PORT (5600), PAYGATE_CLUSTER_GATEWAYS (3).
 */
import { DEFAULT_DIR, formationState, MissingRequirementsError, readState, startCluster, stopCluster } from './topology.js';

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
          `  gateway (load balancer)   ${s.gatewayUrl}`,
          ...s.gateways.map((g) => `  gateway node ${g.n}            ${g.url}`),
          `  PostgreSQL primary        ${s.databaseUrl}   (HAProxy, follows failovers)`,
          `  PostgreSQL standbys       ${s.readDatabaseUrl}`,
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
    for (const g of s.gateways) {
      const ready = await fetch(`${g.url}/readyz`).then((r) => r.status, () => 'down');
      process.stdout.write(`gateway node ${g.n}  ${g.url}  /readyz ${ready}\n`);
    }
    process.stdout.write(`gateway ${s.gatewayUrl}\n`);
    return 0;
  }
  log('usage: cluster.ts start | stop | status');
  return 1;
}

main(process.argv[2] ?? 'start').then((code) => process.exit(code));
