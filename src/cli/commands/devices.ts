/** `paygate device`: physical devices (payment terminals), docs/devices.md. */
import { Command, Option } from 'commander';
import { ApiError } from '../../platform/errors/errors.js';
import { print, withPlatform } from './shared.js';

export function deviceCommands(program: Command): void {
  const devices = program.command('device').description('physical devices (payment terminals), docs/devices.md');
  devices
    .command('register')
    .description('register a device for a service; prints its bearer token once')
    .requiredOption('--key <key id>', 'the API key (id) the device acts for (key create prints it)')
    .requiredOption('--service <uuid>', "a service of the key's merchant")
    .requiredOption('--identifier <text>', "the merchant's name for the device (its serial number, usually)")
    .addOption(new Option('--communication <type>', 'SOCKET, or SIMULATION (sandbox only)').choices(['SOCKET', 'SIMULATION']).default('SOCKET'))
    .option('--name <text>', 'display name')
    .option('--model <text>', 'model')
    .option('--json', 'JSON output')
    .action(async (o) => {
      await withPlatform(async (p, m) => {
        const ctx = await m.merchants.contextForKey(o.key);
        const r = await m.devices.register(ctx, { service: o.service, identifier: o.identifier, communication_type: o.communication, properties: { name: o.name, model: o.model } });
        print(!!o.json, { ...r, env: ctx.env }, () => `device ${r.device.id} (TID ${r.device.terminal_id}, MID ${r.device.mid}, ${r.device.communication.type})\ntoken  ${r.token}`);
      });
    });
  devices
    .command('list')
    .description("list the devices of the key's merchant")
    .requiredOption('--key <key id>', 'an API key (id) of the merchant')
    .option('--json', 'JSON output')
    .action(async (o) => {
      await withPlatform(async (p, m) => {
        const ctx = await m.merchants.contextForKey(o.key);
        const list = await m.devices.list(ctx, {});
        print(!!o.json, { client_uuid: ctx.merchant.id, env: ctx.env, devices: list }, () =>
          list.length === 0 ? 'no devices' : list.map((d) => `${d.id}  ${d.identifier}  TID ${d.terminal_id}  ${d.communication.type} ${d.communication.status}${d.active ? '' : ' (disabled)'}`).join('\n'),
        );
      });
    });

  devices
    .command('revoke-token')
    .description("end a device's bearer token at once (its socket closes); the merchant gives it a new one by rotating it")
    .argument('<device>', 'device id')
    .option('--json', 'JSON output')
    .action(async (id: string, o) => {
      await withPlatform(async (_p, m) => {
        if (!(await m.devices.revokeToken(id))) throw new ApiError(404, `device ${id} not found`);
        print(!!o.json, { device: id.toLowerCase(), token_revoked: true }, () => `token of device ${id.toLowerCase()} revoked`);
      });
    });
}
