/** `paygate checkout`: checkout configurations of a merchant. */
import { Command } from 'commander';
import { CHECKOUT_METHODS, presentCheckout } from '../../modules/checkouts/index.js';
import { loadMerchantOrFail, print, withPlatform } from './shared.js';

export function checkoutCommands(program: Command): void {
  const checkout = program.command('checkout').description('checkout configurations of a merchant');
  checkout
    .command('create')
    .description('create a checkout configuration (orders use it with extra_data.checkout.uuid)')
    .requiredOption('--merchant <uuid>', 'merchant uuid')
    .requiredOption('--name <name>', 'name of the configuration')
    .option('--methods <list>', `comma-separated payment methods: ${CHECKOUT_METHODS.join(', ')}`, 'PAYMENT_CARD')
    .option('--default <method>', 'the suggested method (one of --methods)')
    .option('--theme <type>', 'light or dark')
    .option('--font <name>', 'font name (e.g. Georgia)')
    .option('--description <text>', 'description shown on the pages')
    .option('--order-number <text>', 'order number shown on the pages')
    .option('--json', 'JSON output')
    .action(async (o) => {
      await withPlatform(async (p, m) => {
        const owner = await loadMerchantOrFail(p, m, o.merchant);
        const c = await m.checkouts.createFor(p.database.db, { merchantId: owner.id, env: owner.env }, {
          name: o.name,
          payment_methods: String(o.methods).split(',').map((x) => x.trim()).filter(Boolean),
          default_payment_method: o.default ?? null,
          customization: { theme_type: o.theme ?? null, font: o.font ?? null, description: o.description ?? null, payment_details: { order_number: o.orderNumber ?? null } },
        }, p.clock.now());
        const out = { ...presentCheckout(c, p.config.timezone), client_uuid: owner.id, env: owner.env };
        print(!!o.json, out, () => `checkout ${c.id} (${c.name}): ${c.payment_methods.join(', ') || 'every method the service can take'}`);
      });
    });
  checkout
    .command('list')
    .description("list a merchant's checkout configurations, oldest first")
    .requiredOption('--merchant <uuid>', 'merchant uuid')
    .option('--json', 'JSON output')
    .action(async (o) => {
      await withPlatform(async (p, m) => {
        const owner = await loadMerchantOrFail(p, m, o.merchant);
        const list = (await m.checkouts.listFor(p.database.db, { merchantId: owner.id, env: owner.env })).map((c) => presentCheckout(c, p.config.timezone));
        print(!!o.json, { client_uuid: owner.id, env: owner.env, checkouts: list }, () =>
          list.length === 0 ? 'no checkouts' : list.map((c) => `${c.uuid}  ${c.name}  ${c.payment_methods.join(',')}${c.default_payment_method ? ` (default ${c.default_payment_method})` : ''}`).join('\n'),
        );
      });
    });
}
