/** What the reference topology needs on the machine (PostgreSQL with pg_auto_failover, HAProxy, keepalived, network namespaces) and the error naming what is missing. */
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import pg from 'pg';

import { isRoot, run } from './base.js';

// ---- requirements ----------------------------------------------------------------------------------

export interface Requirements {
  pgBin: string | null;
  missing: string[];
  /** Debian packages that would provide what is missing. */
  packages: string[];
}

export function which(cmd: string): string | null {
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
export function postgresMajors(): Array<{ major: string; bin: string; autoFailover: boolean }> {
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

export class MissingRequirementsError extends Error {
  constructor(readonly requirements: Requirements) {
    super(
      `missing: ${requirements.missing.join('; ')}. ` +
        (requirements.packages.length > 0 ? `Install them with: apt-get install ${requirements.packages.join(' ')} (Debian/Ubuntu)` : ''),
    );
    this.name = 'MissingRequirementsError';
  }
}
