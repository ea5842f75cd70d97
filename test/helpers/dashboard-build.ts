/**
 * vitest globalSetup: builds the dashboard web app (dist/dashboard) when its sources changed since the
 * last build, so the HTTP and browser tests serve the current app with no extra command; and the
 * gateway's bundle (dist/server.js, dist/worker.js, dist/cli.js) when a source is newer, so the gateway
 * processes the end-to-end tests start run the current code without each compiling it
 * (test/helpers/server.ts).
 */
// @ts-expect-error: a plain JavaScript build script without type declarations
import { buildDashboard } from '../../scripts/build-dashboard.mjs';
// @ts-expect-error: a plain JavaScript build script without type declarations
import { build, isStale } from '../../scripts/build.mjs';

export default async function setup() {
  if (isStale()) await build();
  await buildDashboard({ quiet: true });
}
