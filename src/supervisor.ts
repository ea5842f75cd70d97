/**
 * Worker processes started and watched by the API process (`npm start` on PostgreSQL): each is a
 * `src/worker` process forked with the same runtime flags and environment. A worker that exits is
 * started again (after 1 s, doubling up to 30 s while it keeps failing fast); on shutdown each is asked
 * to stop (SIGTERM) and killed if it has not after 15 s.
 */
import { fork, type ChildProcess } from 'node:child_process';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Logger } from 'pino';

export interface Supervisor {
  readonly pids: number[];
  stop(): Promise<void>;
}

export function superviseWorkers(count: number, logger: Logger): Supervisor {
  const here = fileURLToPath(import.meta.url);
  const entry = path.join(path.dirname(here), `worker${path.extname(here)}`);
  const slots: Array<{ proc: ChildProcess | null; delay: number; timer: NodeJS.Timeout | null }> = [];
  let stopping = false;

  const spawn = (slot: (typeof slots)[number], n: number) => {
    const started = Date.now();
    const proc = fork(entry, [], { env: process.env, execArgv: process.execArgv, stdio: 'inherit' });
    slot.proc = proc;
    logger.info({ worker: n, pid: proc.pid }, 'worker process started');
    proc.on('exit', (code, signal) => {
      slot.proc = null;
      if (stopping) return;
      if (Date.now() - started > 60_000) slot.delay = 1000;
      logger.error({ worker: n, pid: proc.pid, code, signal, restart_in_ms: slot.delay }, 'worker process exited; starting it again');
      slot.timer = setTimeout(() => {
        slot.timer = null;
        if (!stopping) spawn(slot, n);
      }, slot.delay);
      slot.delay = Math.min(30_000, slot.delay * 2);
    });
  };

  for (let i = 0; i < count; i++) {
    const slot = { proc: null, delay: 1000, timer: null };
    slots.push(slot);
    spawn(slot, i + 1);
  }

  return {
    get pids() {
      return slots.map((s) => s.proc?.pid).filter((p): p is number => typeof p === 'number');
    },
    async stop() {
      stopping = true;
      await Promise.all(
        slots.map(async (slot) => {
          if (slot.timer) clearTimeout(slot.timer);
          const proc = slot.proc;
          if (!proc || proc.exitCode !== null) return;
          const exited = new Promise<void>((r) => proc.once('exit', () => r()));
          proc.kill('SIGTERM');
          const kill = setTimeout(() => proc.kill('SIGKILL'), 15_000);
          await exited;
          clearTimeout(kill);
        }),
      );
    },
  };
}
