/**
 * pino logging that never carries a secret or card data: Authorization headers and cookies are
 * redacted, request bodies are not logged at all, and query strings lose their `signature` values.
 * Card data and secrets inside the application travel as `Secret` values, which log as [REDACTED].
 */
import pino, { type Logger, type LoggerOptions } from 'pino';

const SECRET_QUERY = /([?&](?:signature|card_pan|card_cvv|pan|cvv|api_key|token)=)[^&#]*/gi;

/** The order token in customer page URLs (and the customer token of the card form) is the page's credential: it is not logged either. */
const PAGE_TOKEN = /(\/(?:payment\/(?:process|bizum|tokenized|checkout)|card-form)\/)[^/?#]+/gi;

export function redactUrl(url: string): string {
  return url.replace(SECRET_QUERY, '$1[REDACTED]').replace(PAGE_TOKEN, '$1[REDACTED]');
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

export function createLogger(level: string, destination?: pino.DestinationStream): Logger {
  return destination ? pino(loggerOptions(level), destination) : pino(loggerOptions(level));
}
