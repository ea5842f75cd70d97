/** `paygate connector certify` and a `<name>-simulator` command for every production connector. */
import { Command } from 'commander';
import { ApiError } from '../../platform/errors/errors.js';
import { CONNECTORS } from '../../processors/connectors.js';
import { listen } from '../listen.js';
import { print, withPlatform, type Out } from './shared.js';

export function connectorCommands(program: Command): void {
  const connector = program.command('connector').description('production connectors');
  connector
    .command('certify')
    .description("run the provider's test cards and flows against its test environment with a terminal's test credentials (approval, query, refund, decline, capture, void, stored credential, 3-D Secure): what passed, what the provider answered, what to fix")
    .requiredOption('--terminal <uuid>', 'the terminal (its type names the connector, its credentials the test account)')
    .option('--url <url>', "the provider's base URL (default: its test environment)")
    .option('--json', 'JSON output')
    .action(async (o: { terminal: string; url?: string; json?: boolean }) => {
      const { certifyTerminal, certifyReport } = await import('../certify.js');
      const r = await withPlatform((p, m) => certifyTerminal(p, m.services, { terminal: o.terminal, url: o.url ?? null }));
      print(!!o.json, r as unknown as Out, () => certifyReport(r));
      if (!r.passed) process.exitCode = 1;
    });
}

/** A `<name>-simulator` command for every production connector (src/processors/connectors.ts). */
export function simulatorCommands(program: Command): void {
  // a `<name>-simulator` command for every production connector (src/processors/connectors.ts)
  for (const decl of CONNECTORS) {
    const cmd = program
      .command(`${decl.name}-simulator`)
      .description(decl.simulator.description)
      .option('--port <n>', 'port to listen on', String(decl.simulator.port))
      .option('--host <addr>', 'address to listen on', '127.0.0.1');
    for (const opt of decl.simulator.options ?? []) cmd.option(opt.flags, opt.description, opt.default);
    if (decl.notifications?.via === 'webhook') cmd.option('--webhook-url <url>', `where its webhooks go: the gateway's /v1/processor/${decl.name}/webhook (none: not sent)`);
    cmd.option('--latency-ms <n>', 'delay before every answer', '0').action(async (o: Record<string, string | undefined>) => {
      if (o.webhookUrl !== undefined && !/^https?:\/\/\S+$/.test(o.webhookUrl)) throw new ApiError(400, '--webhook-url must be an http(s) URL');
      const sims = await decl.simulator.load();
      let terminal;
      try {
        terminal = sims.demoTerminal(o);
      } catch (err) {
        throw new ApiError(400, (err as Error).message);
      }
      const sim = sims.create({ terminal, latencyMs: Number(o.latencyMs) || 0, webhookUrl: o.webhookUrl ?? null });
      const url = await sim.listen(Number(o.port), o.host);
      const type = decl.serviceTypes[0];
      process.stdout.write(`${decl.label} simulator at ${url}\n  ${decl.url.env}=${url}\n  ${type} terminal ${terminal.code ? `code ${terminal.code}, ` : ''}credentials ${JSON.stringify(terminal.credentials)}\n`);
      await new Promise<void>((resolve) => {
        process.once('SIGINT', resolve);
        process.once('SIGTERM', resolve);
      });
      await sim.close();
    });
  }
}
