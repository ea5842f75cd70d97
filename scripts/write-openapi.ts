/** `npm run openapi`: regenerates docs/openapi.json (and docs/dashboard-openapi.json) from the route schemas. */
import fs from 'node:fs';
import { openDatabase } from '../src/platform/db/database.js';
import { generateDocuments, stableJson } from './openapi.js';

const database = await openDatabase({ databaseUrl: null, inMemory: true });
const docs = await generateDocuments(database);
fs.writeFileSync('docs/openapi.json', stableJson(docs.api));
fs.writeFileSync('docs/dashboard-openapi.json', stableJson(docs.dashboard));
await database.close();
process.stdout.write('docs/openapi.json and docs/dashboard-openapi.json written\n');
