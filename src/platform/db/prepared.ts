/** Names of prepared statements, shared by the PostgreSQL pool and the PGlite driver. */
import { createHash } from 'node:crypto';

/** Distinct statements prepared by this process; past this many, new shapes are sent unnamed. */
const MAX_PREPARED = 2000;
const statementNames = new Map<string, string>();

/**
 * The name of a statement's prepared form: a stable hash of its text, so every connection of every
 * process gives the same statement the same name (it is prepared on a connection the first time the
 * name is used there). Null when the statement should not be prepared.
 */
export function preparedName(text: string): string | null {
  let name = statementNames.get(text);
  if (name) return name;
  if (statementNames.size >= MAX_PREPARED) return null;
  name = `pg_${createHash('sha1').update(text).digest('base64url').slice(0, 20)}`;
  statementNames.set(text, name);
  return name;
}
