/**
 * The embedded database (PGlite) belongs to one process at a time: opening its directory from a second
 * process would work on a copy that the first never sees (or damage the files). The owner holds
 * `<data dir>/paygate.lock`, a small JSON file with its pid, host, start time and (once listening) URL,
 * created atomically and removed on close or exit. A lock whose process is gone (same host, pid not
 * running, or our own pid after a container restart) is stale and taken over.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';

export interface LockInfo {
  pid: number;
  hostname: string;
  started_at: string;
  /** what holds it: `gateway` (npm start / paygate serve) or `cli` */
  holder: string;
  /** the gateway's address once it listens */
  url?: string | null;
}

export const LOCK_FILE = 'paygate.lock';

export class DataDirLockedError extends Error {
  constructor(
    readonly dataDir: string,
    readonly lockPath: string,
    readonly info: LockInfo,
  ) {
    const who =
      info.holder === 'gateway'
        ? `a running paygate gateway (pid ${info.pid}${info.url ? `, ${info.url}` : ''}, started ${info.started_at})`
        : `another paygate command (pid ${info.pid}, started ${info.started_at})`;
    super(
      `the embedded database in ${dataDir} is in use by ${who}. Only one process at a time can open it: ` +
        (info.holder === 'gateway'
          ? 'stop the gateway (Ctrl-C) and run this again, or do it through the running gateway (its API) instead. '
          : 'wait for it to finish and run this again. ') +
        `If no such process runs any more, delete ${lockPath}. (With PostgreSQL, DATABASE_URL, any number of processes can share the database.)`,
    );
    this.name = 'DataDirLockedError';
  }
}

export interface DataDirLock {
  readonly path: string;
  /** Records the gateway's URL in the lock (shown to anyone refused). */
  setUrl(url: string): void;
  release(): void;
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
  // an exited process its parent has not reaped yet (a zombie) holds nothing
  try {
    const stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
    return stat.slice(stat.lastIndexOf(')') + 2, stat.lastIndexOf(')') + 3) !== 'Z';
  } catch {
    return true;
  }
}

function readLock(lockPath: string): LockInfo | null {
  try {
    const info = JSON.parse(fs.readFileSync(lockPath, 'utf8')) as LockInfo;
    return typeof info.pid === 'number' ? info : null;
  } catch {
    return null;
  }
}

/** The live holder of the data directory's lock, or null (no lock, or a stale one). */
export function lockHolder(dataDir: string): LockInfo | null {
  const info = readLock(path.join(dataDir, LOCK_FILE));
  if (!info) return null;
  return isStale(info) ? null : info;
}

function isStale(info: LockInfo): boolean {
  if (info.hostname !== os.hostname()) return false; // another machine sharing the directory: cannot tell
  if (info.pid === process.pid) return true; // our own pid: a previous life of this process (container restart)
  return !alive(info.pid);
}

/** Takes the lock of `dataDir` or throws DataDirLockedError naming the holder. */
export function acquireDataDirLock(dataDir: string, holder: string): DataDirLock {
  fs.mkdirSync(dataDir, { recursive: true });
  const lockPath = path.join(dataDir, LOCK_FILE);
  const info: LockInfo = { pid: process.pid, hostname: os.hostname(), started_at: new Date().toISOString(), holder, url: null };
  for (let attempt = 0; ; attempt++) {
    try {
      const fd = fs.openSync(lockPath, 'wx', 0o644);
      fs.writeSync(fd, JSON.stringify(info) + '\n');
      fs.closeSync(fd);
      break;
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
      const current = readLock(lockPath);
      // a lock being written right now reads as null: give the writer a moment
      if (!current && attempt < 20) {
        Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 25);
        continue;
      }
      if (current && !isStale(current)) throw new DataDirLockedError(dataDir, lockPath, current);
      if (attempt >= 25) throw new Error(`cannot take the lock ${lockPath}`);
      fs.rmSync(lockPath, { force: true }); // stale: its process is gone
    }
  }
  let released = false;
  const ours = () => readLock(lockPath)?.pid === process.pid;
  const release = () => {
    if (released) return;
    released = true;
    process.off('exit', release);
    try {
      if (ours()) fs.rmSync(lockPath, { force: true });
    } catch {
      // already gone
    }
  };
  process.on('exit', release);
  return {
    path: lockPath,
    setUrl(url: string) {
      if (released || !ours()) return;
      fs.writeFileSync(lockPath, JSON.stringify({ ...info, url }) + '\n');
    },
    release,
  };
}
