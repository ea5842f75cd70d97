/** `paygate sandbox`: sandbox tools for the operator; a sandbox service's behaviour in the simulator (docs/payments.md). */
import { Command, InvalidArgumentError, Option } from 'commander';
import { OUTAGES, SOFT_DECLINES, type BehaviourInput } from '../../processors/sandbox-behaviour.js';
import { print, withPlatform } from './shared.js';

const number = (v: string) => {
  const n = Number(v);
  if (v.trim() === '' || !Number.isFinite(n)) throw new InvalidArgumentError(`not a number: ${v}`);
  return n;
};

export function sandboxCommands(program: Command): void {
  const sandbox = program.command('sandbox').description('sandbox tools');
  sandbox
    .command('behaviour')
    .description("show or set a sandbox service's behaviour in the simulator (approval rate by BIN range, outage, latency); set options replace it")
    .argument('<service>', 'sandbox service uuid')
    .option('--approve-rate <rate>', 'share (0 to 1) of the payments the test cards approve that the service approves, for --bin-from..--bin-to', number)
    .option('--bin-from <bin>', 'first BIN (six digits) of the range --approve-rate applies to', '000000')
    .option('--bin-to <bin>', 'last BIN (six digits) of the range --approve-rate applies to', '999999')
    .addOption(new Option('--soft-decline <error>', 'the decline of a payment the draw refuses').choices([...SOFT_DECLINES]))
    .addOption(new Option('--outage <kind>', 'none; refuse: the connection is refused; timeout: no answer').choices([...OUTAGES]))
    .option('--latency-ms <ms>', 'milliseconds added before every money operation', number)
    .option('--reset', 'remove the behaviour: the test cards alone')
    .option('--json', 'JSON output')
    .action(async (service: string, o) => {
      const setting = o.approveRate !== undefined || o.softDecline !== undefined || o.outage !== undefined || o.latencyMs !== undefined;
      if (setting && o.reset) throw new Error('--reset cannot be combined with other settings');
      const input: BehaviourInput | null | undefined = o.reset
        ? null
        : setting
          ? {
              approval: o.approveRate === undefined ? [] : [{ bin_from: o.binFrom, bin_to: o.binTo, approve_rate: o.approveRate }],
              soft_decline: o.softDecline,
              outage: o.outage,
              latency_ms: o.latencyMs,
            }
          : undefined;
      await withPlatform(async (_p, m) => {
        const b = await m.services.sandboxBehaviours.operate(service, input);
        print(!!o.json, { sandbox_behaviour: b }, () =>
          [
            `service ${b.service_uuid}${b.updated ? ` (set ${b.updated})` : ' (no behaviour set: the test cards)'}`,
            ...b.approval.map((r) => `approve ${r.approve_rate} of BINs ${r.bin_from}..${r.bin_to}`),
            `soft decline ${b.soft_decline}, outage ${b.outage}, latency ${b.latency_ms} ms`,
          ].join('\n'),
        );
      });
    });
}
