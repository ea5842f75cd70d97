/**
 * `paygate <unknown command>` is an error naming the nearest command, with a non-zero exit: it printed the
 * whole help and exited 0 when `--help` came with it (commander answers --help first).
 */
import { describe, expect, it } from 'vitest';
import { buildCli, runCli, unknownCommand } from '../../src/cli/main.js';

describe('an unknown command', () => {
  it('is found wherever a command is expected, with the nearest one', () => {
    const program = buildCli();
    expect(unknownCommand(program, ['migrat'])).toEqual({ word: 'migrat', path: 'paygate', nearest: 'migrate' });
    expect(unknownCommand(program, ['nosuch', '--help'])).toEqual({ word: 'nosuch', path: 'paygate', nearest: null });
    expect(unknownCommand(program, ['help', 'sevre'])).toMatchObject({ word: 'sevre', nearest: 'serve' });
    expect(unknownCommand(program, ['vault', 'rotat'])).toEqual({ word: 'rotat', path: 'paygate vault', nearest: 'rotate' });
    // known commands, their options and arguments are not taken for commands
    expect(unknownCommand(program, ['migrate', '--json'])).toBeNull();
    expect(unknownCommand(program, ['merchant', 'create', '--name', 'Shop'])).toBeNull();
    expect(unknownCommand(program, ['--help'])).toBeNull();
    expect(unknownCommand(program, [])).toBeNull();
  });

  it('exits non-zero with one line of error, not the whole help', async () => {
    const written: string[] = [];
    const write = process.stderr.write.bind(process.stderr);
    (process.stderr as any).write = (s: string) => (written.push(String(s)), true);
    try {
      expect(await runCli(['nosuch', '--help'])).toBe(1);
      expect(await runCli(['migrat'])).toBe(1);
    } finally {
      (process.stderr as any).write = write;
    }
    expect(written.join('')).toBe("error: unknown command 'nosuch'\n(run paygate --help for the commands)\nerror: unknown command 'migrat' (did you mean paygate migrate?)\n(run paygate --help for the commands)\n");
  });
});
