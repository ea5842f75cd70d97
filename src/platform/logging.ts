/**
 * pino logging that never carries a secret or card data: Authorization headers and cookies are
 * redacted, request bodies are not logged at all, and query strings lose their `signature` values.
 * Card data and secrets inside the application travel as `Secret` values, which log as [REDACTED].
 */
import pino, { type Logger, type LoggerOptions } from 'pino';
import { default as pretty, type PrettyOptions } from 'pino-pretty';

const SECRET_QUERY = /([?&](?:signature|card_pan|card_cvv|pan|cvv|api_key|token)=)[^&#]*/gi;

/** The order token in customer page URLs (and the customer token of the card form) is the page's credential: it is not logged either. */
const PAGE_TOKEN = /(\/(?:payment\/(?:process|bizum|tokenized|checkout|apm|dcc)|sandbox-apm\/(?:bank|phone|voucher)|card-form)\/)[^/?#]+/gi;

/** A run of 13 to 19 digits (a card number's length) anywhere in a URL: its path, its query. */
const DIGIT_RUN = /(?<![0-9])[0-9]{13,19}(?![0-9])/g;

function luhn(digits: string): boolean {
  let sum = 0;
  for (let i = 0; i < digits.length; i++) {
    let x = digits.charCodeAt(digits.length - 1 - i) - 48;
    if (i % 2 === 1) {
      x *= 2;
      if (x > 9) x -= 9;
    }
    sum += x;
  }
  return sum % 10 === 0;
}

/** The URL as logged: secrets of the query and page tokens redacted, and any digit run that could be a card number (Luhn-valid, 13 to 19 digits). */
export function redactUrl(url: string): string {
  return url
    .replace(SECRET_QUERY, '$1[REDACTED]')
    .replace(PAGE_TOKEN, '$1[REDACTED]')
    .replace(DIGIT_RUN, (run) => (luhn(run) ? '[REDACTED]' : run));
}

export function loggerOptions(level: string): LoggerOptions {
  return {
    level,
    redact: {
      paths: [
        'req.headers.authorization',
        'req.headers.cookie',
        'headers.authorization',
        '*.signature',
        '*.card_pan',
        '*.card_cvv',
        '*.api_key',
        '*.password',
      ],
      censor: '[REDACTED]',
    },
    serializers: {
      req(req: { method: string; url: string; id?: string; ip?: string }) {
        return { method: req.method, url: redactUrl(req.url), id: req.id, ip: req.ip };
      },
    },
  };
}

/** Human-readable when asked, or (auto) when stdout is a terminal; JSON lines otherwise. */
export function wantsPretty(format: 'auto' | 'json' | 'pretty' = 'json', stream: { isTTY?: boolean } = process.stdout): boolean {
  return format === 'pretty' || (format === 'auto' && !!stream.isTTY);
}

/**
 * The console line of a request (pretty logs): `POST /v1/sandbox/payment 200 12 ms <request id>`, the
 * URL redacted as in the JSON logs. JSON logs keep Fastify's structured request records instead.
 */
export function requestLine(req: { method: string; url: string; id: string }, status: number, elapsedMs: number): string {
  return `${req.method} ${redactUrl(req.url)} ${status} ${Math.round(elapsedMs)} ms ${req.id}`;
}

/** The one line of the migrations applied at start: how many, the first and the last. */
export function migrationsLine(applied: string[]): string {
  return `migrations applied: ${applied.length}${applied.length > 1 ? ` (${applied[0]} … ${applied[applied.length - 1]})` : ` (${applied[0]})`}`;
}

/** The options of the pretty (terminal) output: one line per record (errors keep their stack). */
export function prettyOptions(destination: unknown, colorize: boolean): PrettyOptions {
  return { colorize, sync: true, singleLine: true, translateTime: 'SYS:HH:MM:ss.l', ignore: 'pid,hostname,reqId,applied', destination: destination ?? 1 } as PrettyOptions;
}

export function createLogger(level: string, destination?: pino.DestinationStream, format: 'auto' | 'json' | 'pretty' = 'json'): Logger {
  if (wantsPretty(format, (destination as { isTTY?: boolean } | undefined) ?? process.stdout)) {
    // the same redaction applies: the pretty stream only formats what pino already censored
    const stream = pretty(prettyOptions(destination, !!((destination as { isTTY?: boolean } | undefined) ?? process.stdout).isTTY));
    return pino(loggerOptions(level), stream);
  }
  return destination ? pino(loggerOptions(level), destination) : pino(loggerOptions(level));
}
