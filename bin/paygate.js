#!/usr/bin/env node
// The `paygate` operator command: runs the compiled build (dist/cli.js), building it first when it is
// missing or older than the sources.
import { build, isStale } from '../scripts/build.mjs';

if (isStale()) await build();
const { runCli } = await import('../dist/cli.js');
const code = await runCli(process.argv.slice(2));
if (code !== 0) process.exit(code);
