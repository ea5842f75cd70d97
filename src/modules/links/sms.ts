/**
 * SMS delivery behind one interface, so a real provider can be plugged in without touching the use
 * cases. The built-in provider is the sandbox's: it keeps what it was asked to send (tests and the
 * operator read it) and writes a log line without the message body (the body carries the payment link).
 */
import type { Logger } from 'pino';

export interface SmsMessage {
  /** E.164. */
  to: string;
  /** Alphanumeric sender id, at most 11 characters. */
  sender: string;
  text: string;
}

export interface SmsResult {
  delivered: boolean;
  /** The provider's id of the message. */
  id?: string | null;
  error?: string | null;
}

export interface SmsProvider {
  readonly name: string;
  /** True when it really reaches phones (a sandbox provider does not). */
  readonly live: boolean;
  send(msg: SmsMessage): Promise<SmsResult>;
}

/** The sandbox / log provider: records messages in memory (the newest 1000) and logs that it did. */
export class LogSmsProvider implements SmsProvider {
  readonly name = 'log';
  readonly live = false;
  readonly sent: Array<SmsMessage & { id: string; at: Date }> = [];
  #seq = 0;

  constructor(private readonly logger?: Logger) {}

  async send(msg: SmsMessage): Promise<SmsResult> {
    const id = `log-${Date.now().toString(36)}-${++this.#seq}`;
    this.sent.push({ ...msg, id, at: new Date() });
    if (this.sent.length > 1000) this.sent.shift();
    this.logger?.info({ sms: id, to: `${msg.to.slice(0, 4)}…${msg.to.slice(-3)}`, sender: msg.sender, chars: msg.text.length }, 'SMS recorded by the log provider (not sent to a phone)');
    return { delivered: true, id };
  }
}
