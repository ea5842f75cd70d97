/**
 * pino logging that never carries a secret or card data: Authorization headers and cookies are
 * redacted, request bodies are not logged at all, query strings lose their `signature` values, and a
 * card number anywhere in a logged URL (path or query) becomes [REDACTED].
 * Card data and secrets inside the application travel as `Secret` values, which log as [REDACTED].
 */
import pino, { type Logger, type LoggerOptions } from 'pino';
import { default as pretty, type PrettyOptions } from 'pino-pretty';
import { containsCardNumber, redactCardNumbers } from './security/card-numbers.js';

const SECRET_QUERY = /([?&](?:signature|card_pan|card_cvv|pan|cvv|api_key|token)=)[^&#]*/gi;

/** The order token in customer page URLs (and the customer token of the card form) is the page's credential: it is not logged either. */
const PAGE_TOKEN = /(\/(?:payment\/(?:process|bizum|tokenized|checkout|apm|dcc)|sandbox-apm\/(?:bank|phone|voucher)|card-form)\/)[^/?#]+/gi;

/** The URL as logged: secrets of the query and page tokens redacted, and every card number (redactCardNumbersInUrl). */
export function redactUrl(url: string): string {
  return redactCardNumbersInUrl(url.replace(SECRET_QUERY, '$1[REDACTED]').replace(PAGE_TOKEN, '$1[REDACTED]'));
}

function decodePart(part: string): string {
  try {
    return decodeURIComponent(part.replace(/\+/g, ' '));
  } catch {
    return part;
  }
}

/**
 * A URL with every card number in its path segments and query names and values (percent-encoded or
 * not, grouped by spaces, `+` or dashes) replaced by `[REDACTED]`, as security/card-numbers.ts defines
 * a card number (ordinary numbers stay readable). Used for every URL that is logged or echoed (the 404
 * and 405 answers).
 */
export function redactCardNumbersInUrl(url: string): string {
  if (!/\d/.test(url)) return url;
  return url.replace(/[^/?&=#;,]+/g, (part) => {
    const text = decodePart(part);
    if (!containsCardNumber(text, { anyGrouping: true })) return part;
    return encodeURIComponent(redactCardNumbers(text, () => '\u0000')).replace(/%00/g, '[REDACTED]');
  });
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
