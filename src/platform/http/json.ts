/**
 * The wire serializer of decisions §1: compact JSON as the reference service emits it, with `/` escaped
 * as `\/` and every non-ASCII UTF-16 code unit as a lowercase `\uXXXX` escape (so characters above
 * U+FFFF become surrogate pairs). JSON.parse reads the result unchanged. validation_hash is computed over
 * exactly these bytes.
 *
 * On the hot path of every response: JSON.stringify runs without a replacer (a replacer function takes
 * it off its fast path; amounts are numbers, never bigints), `/` is escaped with a plain replaceAll, and
 * the regular expression runs only when there is non-ASCII text.
 */

const NON_ASCII = /[\u0080-\uffff]/;
const NON_ASCII_ALL = /[\u0080-\uffff]/g;

function escapeNonAscii(ch: string): string {
  return '\\u' + ch.charCodeAt(0).toString(16).padStart(4, '0');
}

/** Escapes an already serialized JSON text the reference way. */
export function escapeJsonText(json: string): string {
  // `/` and non-ASCII characters can only occur inside JSON strings, so a global replace is exact.
  const slashes = json.includes('/') ? json.replaceAll('/', '\\/') : json;
  return NON_ASCII.test(slashes) ? slashes.replace(NON_ASCII_ALL, escapeNonAscii) : slashes;
}

/** Serializes a value as the reference service does. */
export function toWireJson(value: unknown): string {
  const text = JSON.stringify(value);
  return escapeJsonText(text === undefined ? 'null' : text);
}

/**
 * Serializes `value` as `toWireJson` does, with the array field `key` (which `value` holds as `[]`) filled
 * with `rawItems`: already serialized JSON values, comma separated, in plain JSON.stringify form. For
 * long lists built as text (`GET /orders`); the items get the same wire escaping as the rest.
 */
export function toWireJsonWithRawArray(value: Record<string, unknown>, key: string, rawItems: string): string {
  if (!Array.isArray(value[key]) || (value[key] as unknown[]).length !== 0) throw new Error(`${key} must be an empty array placeholder`);
  const text = toWireJson(value);
  const marker = `${JSON.stringify(key)}:[]`;
  const at = text.indexOf(marker);
  if (at < 0) throw new Error(`${key} not found in the serialized value`);
  return `${text.slice(0, at + marker.length - 1)}${escapeJsonText(rawItems)}${text.slice(at + marker.length - 1)}`;
}

/**
 * `toWireJson({ ...head, ...inner, ...tail })` where `inner` is given already serialized (`innerWire`,
 * the wire text of a non-empty object): an answer whose middle was serialized once for a hash is not
 * serialized again. `head` and `tail` must be non-empty and share no key with `inner`.
 */
export function toWireJsonAround(head: Record<string, unknown>, innerWire: string, tail: Record<string, unknown>): string {
  const h = toWireJson(head);
  const t = toWireJson(tail);
  if (h.length < 3 || t.length < 3 || innerWire.length < 3 || innerWire[0] !== '{' || innerWire[innerWire.length - 1] !== '}') {
    throw new Error('toWireJsonAround needs three non-empty objects');
  }
  return `${h.slice(0, -1)},${innerWire.slice(1, -1)},${t.slice(1)}`;
}
