/**
 * The wire serializer of decisions §1: compact JSON as the reference service emits it, with `/` escaped
 * as `\/` and every non-ASCII UTF-16 code unit as a lowercase `\uXXXX` escape (so characters above
 * U+FFFF become surrogate pairs). JSON.parse reads the result unchanged. validation_hash is computed over
 * exactly these bytes.
 */

const NEEDS_ESCAPE = /[\/\u0080-\uffff]/;
const ESCAPE_ALL = /[\/\u0080-\uffff]/g;

function escapeChar(ch: string): string {
  if (ch === '/') return '\\/';
  return '\\u' + ch.charCodeAt(0).toString(16).padStart(4, '0');
}

/** Escapes an already serialized JSON text the reference way. */
export function escapeJsonText(json: string): string {
  // `/` and non-ASCII characters can only occur inside JSON strings, so a global replace is exact.
  return NEEDS_ESCAPE.test(json) ? json.replace(ESCAPE_ALL, escapeChar) : json;
}

/** Serializes a value as the reference service does. */
export function toWireJson(value: unknown): string {
  const text = JSON.stringify(value, replacer);
  return escapeJsonText(text === undefined ? 'null' : text);
}

function replacer(_key: string, value: unknown): unknown {
  if (typeof value === 'bigint') return Number(value);
  return value;
}
