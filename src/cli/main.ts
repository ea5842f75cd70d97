/**
 * `paygate`: the operator command. It reads the same configuration as the server (DATABASE_URL,
 * PAYGATE_DATA_DIR, ...). With `--json` every command prints one JSON object on stdout.
 */
import { Command } from 'commander';
import { ConfigError, CONFIG_VARIABLES } from '../config/config.js';
import { ApiError } from '../platform/errors/errors.js';
import { checkoutCommands } from './commands/checkout.js';
import { connectorCommands, simulatorCommands } from './commands/connectors.js';
import { deviceCommands } from './commands/devices.js';
import { listenCommand } from './commands/listen.js';
import { merchantCommands } from './commands/merchants.js';
import { operationCommands } from './commands/operations.js';
import { sandboxCommands } from './commands/sandbox.js';
import { serverCommands } from './commands/server.js';
import { vaultCommands } from './commands/vault.js';
import { routingCommands } from './commands/routing.js';

/** The `paygate` command: every command group of commands/, in the order the help lists them. */
export function buildCli(): Command {
  const program = new Command('paygate')
    .description('paygate operator command')
    .showHelpAfterError('(run paygate --help for the commands)')
    .addHelpText('after', `\nSettings (environment variables):\n${CONFIG_VARIABLES.map(([k, v]) => `  ${k.padEnd(36)} ${v}`).join('\n')}\n`);
  serverCommands(program);
  merchantCommands(program);
  checkoutCommands(program);
  deviceCommands(program);
  connectorCommands(program);
  vaultCommands(program);
  routingCommands(program);
  operationCommands(program);
  simulatorCommands(program);
  sandboxCommands(program);
  listenCommand(program);
  return program;
}

/** Edit distance of two words (the nearest command to a mistyped one). */
function distance(a: string, b: string): number {
  const d = Array.from({ length: a.length + 1 }, (_, i) => [i, ...Array<number>(b.length).fill(0)]);
  for (let j = 1; j <= b.length; j++) d[0][j] = j;
  for (let i = 1; i <= a.length; i++) {
    for (let j = 1; j <= b.length; j++) d[i][j] = Math.min(d[i - 1][j] + 1, d[i][j - 1] + 1, d[i - 1][j - 1] + (a[i - 1] === b[j - 1] ? 0 : 1));
  }
  return d[a.length][b.length];
}

/**
 * The first word of `argv` that names no command where a command is expected (`paygate nosuch`,
 * `paygate vault nosuch`, `paygate help nosuch`, also with `--help`, which would otherwise print the
 * whole help and succeed), with the nearest command, or null when every command word is known.
 */
export function unknownCommand(program: Command, argv: string[]): { word: string; path: string; nearest: string | null } | null {
  let cmd = program;
  let path = 'paygate';
  const words = argv.filter((a) => !a.startsWith('-'));
  if (words[0] === 'help') words.shift();
  for (const w of words) {
    if (cmd.commands.length === 0) return null;
    const next = cmd.commands.find((c) => c.name() === w || c.aliases().includes(w));
    if (!next) {
      const names = cmd.commands.map((c) => c.name()).filter((n) => n !== 'help');
      const scored = names.map((n) => ({ n, d: distance(w, n) })).sort((x, y) => x.d - y.d);
      const best = scored[0];
      return { word: w, path, nearest: best && best.d <= Math.max(2, Math.floor(w.length / 3)) ? best.n : null };
    }
    cmd = next;
    path += ` ${w}`;
  }
  return null;
}

export async function runCli(argv: string[]): Promise<number> {
  try {
    const program = buildCli();
    const unknown = unknownCommand(program, argv);
    if (unknown) {
      process.stderr.write(`error: unknown command '${unknown.word}'${unknown.nearest ? ` (did you mean ${unknown.path} ${unknown.nearest}?)` : ''}
(run ${unknown.path} --help for the commands)
`);
      return 1;
    }
    await program.parseAsync(argv, { from: 'user' });
    return 0;
  } catch (err) {
    if (err instanceof ConfigError) process.stderr.write(`${err.message}\n`);
    else if (err instanceof ApiError) process.stderr.write(`error: ${err.details}\n`);
    else process.stderr.write(`error: ${err instanceof Error ? err.message : String(err)}\n`);
    return 1;
  }
}

const entry = process.argv[1] ?? '';
if (entry.endsWith('cli/main.ts')) {
  runCli(process.argv.slice(2)).then((code) => {
    if (code !== 0) process.exit(code);
  });
}
