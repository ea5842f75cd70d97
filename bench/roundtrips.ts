/**
 * npm run bench:roundtrips: database round trips (statements sent, BEGIN and COMMIT included) per API
 * step of the money path, on PGlite and PostgreSQL, next to the targets. Counts, not timings: the same
 * on any machine. test/http/roundtrips.test.ts keeps them at or under the targets.
 */
import { createTestApp } from '../test/helpers/app.js';
import { countRoundTrips, ROUND_TRIP_TARGETS, type RoundTrips } from '../test/helpers/roundtrips.js';

const engines = (process.env.BENCH_ENGINES ?? 'postgres,pglite').split(',');
const results: Record<string, RoundTrips> = {};
for (const engine of engines) {
  process.env.PAYGATE_TEST_DB = engine;
  const t = await createTestApp();
  try {
    results[engine] = await countRoundTrips(t, await t.merchant({ isPci: true }));
  } finally {
    await t.close();
  }
}
const lines = [`| step | ${engines.join(' | ')} | target |`, `|---|${engines.map(() => '---|').join('')}---|`];
for (const step of Object.keys(ROUND_TRIP_TARGETS) as Array<keyof RoundTrips>) {
  lines.push(`| ${step} | ${engines.map((e) => results[e][step]).join(' | ')} | ≤ ${ROUND_TRIP_TARGETS[step]} |`);
}
process.stdout.write(lines.join('\n') + '\n');
process.exit(0);
