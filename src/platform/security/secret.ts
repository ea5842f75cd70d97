/**
 * A value that must never reach a log, an error message or a response by accident. JSON.stringify,
 * String(), template literals and util.inspect all see `[REDACTED]`; only `reveal()` gives the value.
 */
import { inspect } from 'node:util';

const REDACTED = '[REDACTED]';

export class Secret<T = string> {
  readonly #value: T;

  constructor(value: T) {
    this.#value = value;
  }

  reveal(): T {
    return this.#value;
  }

  toJSON(): string {
    return REDACTED;
  }

  toString(): string {
    return REDACTED;
  }

  [Symbol.toPrimitive](): string {
    return REDACTED;
  }

  [inspect.custom](): string {
    return REDACTED;
  }
}

export const secret = <T>(value: T) => new Secret(value);
