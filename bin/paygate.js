#!/usr/bin/env node
// The `paygate` operator command. Runs the TypeScript sources through tsx.
import { register } from 'tsx/esm/api';

register();
const { runCli } = await import('../src/cli/main.ts');
const code = await runCli(process.argv.slice(2));
if (code !== 0) process.exit(code);
