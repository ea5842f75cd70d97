/**
 * vitest globalSetup: builds the dashboard web app (dist/dashboard) when its sources changed since the
 * last build, so the HTTP and browser tests serve the current app with no extra command.
 */
// @ts-expect-error: a plain JavaScript build script without type declarations
import { buildDashboard } from '../../scripts/build-dashboard.mjs';

export default async function setup() {
  await buildDashboard({ quiet: true });
}
