/**
 * The typed client is an npm package a shop installs (issue 30 item 15): `npm run client:pack` builds it
 * from the OpenAPI document's types with the API's version; the tarball installs into a fresh project
 * (offline: its one dependency comes from this repository's node_modules) and a call type-checks there.
 */
import { execFile } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterAll, describe, expect, it } from 'vitest';

const run = promisify(execFile);
const root = path.resolve(import.meta.dirname, '../..');
const shop = fs.mkdtempSync(path.join(os.tmpdir(), 'paygate-shop-'));
afterAll(() => fs.rmSync(shop, { recursive: true, force: true }));

const SHOP_TS = `import { createPaygateClient, type Schema } from '@paygate/client';

const paygate = createPaygateClient({ baseUrl: 'https://gateway.example/v1/sandbox', apiKey: 'key' });
export async function pay(): Promise<Schema<'Order'> | undefined> {
  const created = await paygate.POST('/payment', { body: { signature: 's', amount: 1050, operative: 'AUTHORIZATION', secure: false, description: 'Order 42' } });
  // @ts-expect-error operative is one of the contract's values
  await paygate.POST('/payment', { body: { signature: 's', amount: 1050, operative: 'SELL', description: 'x' } });
  return created.data?.order;
}
`;

describe('the typed client as an npm package', () => {
  it('is versioned with the API, packs, installs into a shop project and type-checks a call', async () => {
    const api = JSON.parse(fs.readFileSync(path.join(root, 'docs/openapi.json'), 'utf8')).info.version;
    const pkg = JSON.parse(fs.readFileSync(path.join(root, 'clients/typescript/package.json'), 'utf8'));
    expect(pkg).toMatchObject({ name: '@paygate/client', version: api, types: './dist/index.d.ts' });
    expect(Object.keys(pkg.dependencies)).toEqual(['openapi-fetch']);

    const { stdout } = await run('npm', ['run', '--silent', 'client:pack'], { cwd: root, timeout: 120_000 });
    const tarball = stdout.trim().split('\n').pop()!;
    expect(path.basename(tarball)).toBe(`paygate-client-${api}.tgz`);
    // openapi-fetch and its helper from this repository, so the install needs no network
    for (const dep of ['openapi-fetch', 'openapi-typescript-helpers']) await run('npm', ['pack', '--silent', path.join(root, 'node_modules', dep), '--pack-destination', shop], { cwd: shop });
    fs.writeFileSync(path.join(shop, 'package.json'), JSON.stringify({ name: 'shop', version: '1.0.0', type: 'module', private: true }));
    const deps = fs.readdirSync(shop).filter((f) => f.endsWith('.tgz')).map((f) => `./${f}`);
    await run('npm', ['install', '--offline', '--no-audit', '--no-fund', tarball, ...deps], { cwd: shop, timeout: 120_000 });
    const installed = JSON.parse(fs.readFileSync(path.join(shop, 'node_modules/@paygate/client/package.json'), 'utf8'));
    expect(installed.version).toBe(api);
    expect(fs.existsSync(path.join(shop, 'node_modules/@paygate/client/dist/schema.d.ts'))).toBe(true);

    fs.writeFileSync(path.join(shop, 'shop.ts'), SHOP_TS);
    fs.writeFileSync(path.join(shop, 'tsconfig.json'), JSON.stringify({ compilerOptions: { target: 'ES2022', module: 'NodeNext', moduleResolution: 'NodeNext', lib: ['ES2023', 'DOM'], strict: true, noEmit: true, types: [] }, files: ['shop.ts'] }));
    await run(process.execPath, [path.join(root, 'node_modules/typescript/bin/tsc'), '-p', 'tsconfig.json'], { cwd: shop, timeout: 120_000 });
    // the package's runtime loads in Node
    const { stdout: loaded } = await run(process.execPath, ['--input-type=module', '-e', "import('@paygate/client').then((m) => console.log(typeof m.createPaygateClient))"], { cwd: shop });
    expect(loaded.trim()).toBe('function');
  }, 180_000);
});
