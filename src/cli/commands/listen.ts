/** `paygate listen`: the notifications of a merchant, forwarded to a local URL. */
import { Command } from 'commander';
import type { Env } from '../../platform/db/schema.js';
import { ApiError } from '../../platform/errors/errors.js';
import { ListenError, listen } from '../listen.js';
import { parseCursor } from '../../modules/events/index.js';
import { envOption, print } from './shared.js';

export function listenCommand(program: Command): void {
  program
    .command('listen')
    .description("stream a merchant's notifications from a gateway as they are made, print each one, and forward it (same body and signature headers) to a local URL")
    .option('--url <url>', 'the gateway (default: $PAYGATE_URL, else http://127.0.0.1:8080)')
    .option('--api-key <key>', 'an API key of the merchant, profile all, payment or readonly (default: $PAYGATE_API_KEY)')
    .option('--forward-to <url>', 'POST each notification here, with the body and headers the gateway sends (e.g. http://localhost:3000/paygate/notify)')
    .option('--events <types>', 'only these event types, comma-separated (ORDER_NOTIFICATION, SUBSCRIPTION_PAYMENT); all by default')
    .option('--after <id>', 'resume after this event id (the id of a --json line); default: from now')
    .addOption(envOption())
    .option('--json', 'one JSON object per line: each event with its forward result')
    .action(async (o: { url?: string; apiKey?: string; forwardTo?: string; events?: string; after?: string; env: Env; json?: boolean }) => {
      const apiKey = o.apiKey ?? process.env.PAYGATE_API_KEY ?? '';
      if (!apiKey) throw new ApiError(400, 'an API key is needed: --api-key, or PAYGATE_API_KEY (npm start prints it)');
      const url = o.url ?? process.env.PAYGATE_URL ?? 'http://127.0.0.1:8080';
      for (const [name, value] of [['--url', url], ['--forward-to', o.forwardTo]] as const) {
        if (value === undefined) continue;
        let ok = false;
        try {
          ok = ['http:', 'https:'].includes(new URL(value).protocol);
        } catch {
          ok = false;
        }
        if (!ok) throw new ApiError(400, `${name} must be an http(s) URL, got "${value}"`);
      }
      if (o.after !== undefined && !parseCursor(o.after)) throw new ApiError(400, `--after must be an event id (TXID-SEQ), got "${o.after}"`);
      const stop = new AbortController();
      const onSignal = () => stop.abort();
      process.once('SIGINT', onSignal);
      process.once('SIGTERM', onSignal);
      try {
        await listen({
          url,
          apiKey,
          env: o.env,
          forwardTo: o.forwardTo ?? null,
          types: (o.events ?? '').split(',').map((x) => x.trim().toUpperCase()).filter(Boolean),
          after: o.after,
          json: !!o.json,
          out: (line) => process.stdout.write(`${line}\n`),
          note: (line) => process.stderr.write(`${line}\n`),
          signal: stop.signal,
        });
      } catch (err) {
        if (err instanceof ListenError) throw new ApiError(400, err.message);
        throw err;
      } finally {
        process.off('SIGINT', onSignal);
        process.off('SIGTERM', onSignal);
      }
    });

}
