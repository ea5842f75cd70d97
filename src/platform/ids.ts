/** A uuid in its canonical text form (any case): what every id of the API is. */
export const UUID_RE = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** True when `v` is a uuid (checked before a value reaches a `uuid` column or parameter). */
export const isUuid = (v: string): boolean => UUID_RE.test(v);
