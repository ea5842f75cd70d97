#!/usr/bin/env node
// The `paygate` operator command: runs the compiled build (dist/cli.js), building it first when it is
// missing or older than the sources.
import { build, isStale } from '../scripts/build.mjs';

if (isStale()) await build();
// the gateway serves the dashboard web app: built (when its sources changed) before `paygate serve`
if (process.argv[2] === 'serve') await (await import('../scripts/build-dashboard.mjs')).buildDashboard({ quiet: true });
const { runCli } = await import('../dist/cli.js');
const code = await runCli(process.argv.slice(2));
if (code !== 0) process.exit(code);
