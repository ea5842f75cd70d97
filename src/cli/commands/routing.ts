/** `paygate routing`: the operator's side of routing: the BIN table (docs/routing.md "BIN facts"). */
import fs from 'node:fs';
import { Command } from 'commander';
import { ApiError } from '../../platform/errors/errors.js';
import { print, withPlatform } from './shared.js';

export function routingCommands(program: Command): void {
  const routing = program.command('routing').description('routing: the BIN table of issuer countries and card types (docs/routing.md)');

  routing
    .command('import-bins')
    .description('replace the BIN table with a CSV file (BIN_FROM,BIN_TO[,BRAND,CARD_TYPE,ISSUER_COUNTRY]); all or nothing')
    .argument('<file>', 'the CSV file')
    .option('--json', 'JSON output')
    .action(async (file: string, o: { json?: boolean }) => {
      await withPlatform(async (_p, m) => {
        const out = await m.routing.importBins(fs.createReadStream(file), file).catch((err: unknown) => {
          // a refused file: every line's problem, then the error itself
          const lines = err instanceof ApiError ? (err.extra?.errors as Array<{ line: number; msg: string }> | undefined) : undefined;
          for (const l of lines ?? []) process.stderr.write(`line ${l.line}: ${l.msg}\n`);
          throw err;
        });
        print(!!o.json, out, () => `${out.ranges} BIN ranges imported from ${file} (the table was replaced)`);
      });
    });
}
