/** `npm run openapi`: regenerates docs/openapi.json from the route schemas. */
import fs from 'node:fs';
import { openDatabase } from '../src/platform/db/database.js';
import { generateOpenApi, stableJson } from './openapi.js';

const database = await openDatabase({ databaseUrl: null, inMemory: true });
const doc = await generateOpenApi(database);
fs.writeFileSync('docs/openapi.json', stableJson(doc));
await database.close();
process.stdout.write('docs/openapi.json written\n');
