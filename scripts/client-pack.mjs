// `npm run client:pack`: the typed client as an npm package a shop installs. Its version is the API's
// (docs/openapi.json info.version), its types are built from clients/typescript (schema.ts is generated
// from the document by `npm run client`), and the tarball is written to dist/ (its path is printed).
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';

const root = path.resolve(import.meta.dirname, '..');
const dir = path.join(root, 'clients/typescript');
const api = JSON.parse(fs.readFileSync(path.join(root, 'docs/openapi.json'), 'utf8')).info.version;
const pkgFile = path.join(dir, 'package.json');
const pkg = JSON.parse(fs.readFileSync(pkgFile, 'utf8'));
if (pkg.version !== api) {
  pkg.version = api;
  fs.writeFileSync(pkgFile, `${JSON.stringify(pkg, null, 2)}\n`);
}
fs.rmSync(path.join(dir, 'dist'), { recursive: true, force: true });
execFileSync(process.execPath, [path.join(root, 'node_modules/typescript/bin/tsc'), '-p', path.join(dir, 'tsconfig.json')], { stdio: 'inherit' });
const out = path.join(root, 'dist');
fs.mkdirSync(out, { recursive: true });
const packed = JSON.parse(execFileSync('npm', ['pack', '--json', '--pack-destination', out], { cwd: dir, encoding: 'utf8' }))[0];
process.stdout.write(`${path.join(out, packed.filename)}\n`);
