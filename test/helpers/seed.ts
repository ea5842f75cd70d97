/**
 * One seed for every random and property-based test of a run: PAYGATE_TEST_SEED when set (to replay a
 * failing run), else a fresh one. Each random test file calls `useTestSeed(import.meta.url)` at the top:
 * it prints the seed with the command that replays it and seeds fast-check (fc.configureGlobal), and
 * `rng()` gives a seeded generator for hand-written random data.
 */
import path from 'node:path';
import fc from 'fast-check';

function readSeed(): number {
  const raw = process.env.PAYGATE_TEST_SEED;
  if (raw !== undefined && raw !== '') {
    const n = Number(raw);
    if (!Number.isInteger(n) || n < 0 || n > 0xffffffff) throw new Error(`PAYGATE_TEST_SEED=${raw}: expected an integer between 0 and 4294967295`);
    return n;
  }
  // a fresh seed per run; the value is printed, so any run can be replayed
  const seed = (Date.now() ^ (process.pid << 10)) >>> 0;
  process.env.PAYGATE_TEST_SEED = String(seed);
  return seed;
}

export const TEST_SEED = readSeed();

/** mulberry32: a small seeded generator of numbers in [0, 1). */
export function rng(seed: number = TEST_SEED): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** Seeds fast-check for this file and prints the seed (and how to replay it). Returns the seed. */
export function useTestSeed(file: string): number {
  fc.configureGlobal({ ...fc.readConfigureGlobal(), seed: TEST_SEED });
  const name = path.basename(file.startsWith('file:') ? new URL(file).pathname : file);
  process.stdout.write(`random test seed ${TEST_SEED} in ${name} (PAYGATE_TEST_SEED=${TEST_SEED} to replay)\n`);
  return TEST_SEED;
}
