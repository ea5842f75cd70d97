/**
 * The reference device: a small program that speaks the device socket protocol the way a payment
 * terminal would (docs/devices.md). Device makers can read it as a working example; the tests use it.
 *
 *   tsx scripts/reference-device.ts --url ws://127.0.0.1:8080/v1/sandbox/device/socket --token pgd_... \
 *     [--pan 4548812049400004 --expiry 4912] [--method ICC|NFC|...] [--pin 041234FFFFFFFFFF]
 *
 * Run as a program, it reports its status, then answers every operation it is sent with the card given
 * (a cancellation when no card is given) and prints each result. When the issuer asks for strong
 * customer authentication it reads the card again as asked: with the PIN (REQUEST_PIN, when --pin is
 * given) or by chip (SWITCH_INTERFACE). When the connection drops it connects again (backing off up to
 * 30 s) and the gateway sends it whatever is still open; it stops when the gateway closes the socket for
 * good (device disabled, token rotated, or refused).
 */
import WebSocket from 'ws';

export interface Message {
  type: string;
  [k: string]: any;
}

/** Close codes after which connecting again with the same token is pointless. */
const FINAL_CLOSE_CODES = new Set([4001, 4002]);

export class ReferenceDevice {
  readonly received: Message[] = [];
  #ws: WebSocket | null = null;
  #waiters: Array<{ match: (m: Message) => boolean; resolve: (m: Message) => void }> = [];
  /** Messages no waiter has taken yet. */
  #unclaimed: Message[] = [];
  /** Resolves with the close code when the current connection ends. */
  closed: Promise<number> = Promise.resolve(0);

  constructor(
    private readonly url: string,
    private readonly token: string,
  ) {}

  /** Opens the socket; resolves with the gateway's `hello`. Rejects when the gateway refuses the token. */
  connect(): Promise<Message> {
    const hello = this.next((m) => m.type === 'hello');
    return new Promise((resolve, reject) => {
      const ws = new WebSocket(this.url, { headers: { authorization: `Bearer ${this.token}` } });
      this.#ws = ws;
      this.closed = new Promise((r) => ws.once('close', (code) => r(code)));
      ws.on('message', (data) => {
        const msg = JSON.parse(data.toString()) as Message;
        this.received.push(msg);
        const i = this.#waiters.findIndex((w) => w.match(msg));
        if (i >= 0) this.#waiters.splice(i, 1)[0].resolve(msg);
        else this.#unclaimed.push(msg);
      });
      ws.once('unexpected-response', (_req, res) => reject(new Error(`refused: HTTP ${res.statusCode}`)));
      ws.once('error', reject);
      ws.once('open', () => hello.then(resolve, reject));
    });
  }

  /** The next message matching `match` (one already received and not yet taken counts). */
  next(match: (m: Message) => boolean): Promise<Message> {
    const i = this.#unclaimed.findIndex(match);
    if (i >= 0) return Promise.resolve(this.#unclaimed.splice(i, 1)[0]);
    return new Promise((resolve) => this.#waiters.push({ match, resolve }));
  }

  nextOperation(): Promise<Message> {
    return this.next((m) => m.type === 'operation');
  }

  send(message: Message): void {
    this.#ws!.send(JSON.stringify(message));
  }

  /** Reports its battery and connection. */
  async status(status: Record<string, unknown>): Promise<Message> {
    const ack = this.next((m) => m.type === 'status_saved' || m.type === 'error');
    this.send({ type: 'status', status });
    return ack;
  }

  /**
   * Reports the card read for an operation; resolves with the gateway's result (or error). A result with
   * operation status AUTHENTICATION_REQUIRED asks for the card again (`terminal_action`): call `card`
   * again for the same operation, with the PIN (REQUEST_PIN) or method ICC (SWITCH_INTERFACE).
   */
  async card(operationUuid: string, card: { pan?: string; expiration_date?: string; track2?: string }, opts: { method?: string; pin?: { block: string; format: number } | null } = {}): Promise<Message> {
    const answer = this.next((m) => (m.type === 'result' && m.operation?.uuid === operationUuid) || (m.type === 'error' && m.operation_uuid === operationUuid));
    this.send({ type: 'card', operation_uuid: operationUuid, card, card_reading_method: opts.method ?? 'ICC', pin: opts.pin ?? null });
    return answer;
  }

  /** The customer cancelled on the terminal. */
  async cancel(operationUuid: string, reason = 'Cancelled by the customer'): Promise<Message> {
    const answer = this.next((m) => (m.type === 'result' && m.operation?.uuid === operationUuid) || (m.type === 'error' && m.operation_uuid === operationUuid));
    this.send({ type: 'cancel', operation_uuid: operationUuid, reason });
    return answer;
  }

  /** Goes offline (the connection drops). */
  close(): Promise<void> {
    return new Promise((resolve) => {
      const ws = this.#ws;
      if (!ws || ws.readyState === ws.CLOSED) return resolve();
      ws.once('close', () => resolve());
      ws.terminate();
    });
  }
}

interface CardArgs {
  pan: string | undefined;
  expiry: string;
  method: string;
  pin: string | undefined;
}

/** Answers one operation: the card (again as the issuer asks, when it asks for SCA), or a cancellation. */
async function answer(device: ReferenceDevice, operation: Message, args: CardArgs): Promise<Message> {
  if (!args.pan) return device.cancel(operation.uuid);
  const card = { pan: args.pan, expiration_date: args.expiry };
  const pin = args.pin ? { block: args.pin, format: 0 } : null;
  let action: string | null = operation.terminal_action ?? null;
  for (let attempt = 0; attempt < 3; attempt++) {
    const method = action === 'SWITCH_INTERFACE' ? 'ICC' : args.method;
    if (action === 'REQUEST_PIN' && !pin) return device.cancel(operation.uuid, 'The cardholder has no PIN to enter');
    const r = await device.card(operation.uuid, card, { method, pin: action === 'REQUEST_PIN' || args.method !== 'NFC' ? pin : null });
    if (r.type !== 'result' || r.operation.status !== 'AUTHENTICATION_REQUIRED') return r;
    action = r.operation.terminal_action;
    process.stdout.write(`operation ${operation.uuid}: the issuer asks for ${action}\n`);
  }
  return device.cancel(operation.uuid, 'Strong customer authentication could not be completed');
}

async function main(argv: string[]) {
  const arg = (name: string) => {
    const i = argv.indexOf(`--${name}`);
    return i >= 0 ? argv[i + 1] : undefined;
  };
  const url = arg('url');
  const token = arg('token') ?? process.env.PAYGATE_DEVICE_TOKEN;
  if (!url || !token) {
    process.stderr.write('usage: reference-device --url WS_URL --token DEVICE_TOKEN [--pan PAN --expiry YYMM] [--method ICC] [--pin BLOCK]\n');
    process.exit(2);
  }
  const args: CardArgs = { pan: arg('pan'), expiry: arg('expiry') ?? '4912', method: arg('method') ?? 'ICC', pin: arg('pin') };
  let backoff = 1000;
  for (;;) {
    const device = new ReferenceDevice(url, token);
    let hello: Message;
    try {
      hello = await device.connect();
    } catch (err) {
      if (/HTTP 4\d\d/.test((err as Error).message)) throw err; // refused: the token is wrong or the device disabled
      process.stderr.write(`cannot connect (${(err as Error).message}); trying again in ${backoff / 1000} s\n`);
      await new Promise((r) => setTimeout(r, backoff));
      backoff = Math.min(30_000, backoff * 2);
      continue;
    }
    backoff = 1000;
    process.stdout.write(`connected as ${hello.device.identifier} (TID ${hello.device.terminal_id})\n`);
    await device.status({ battery_level: 100, connection_type: 'ETHERNET', connection_quality: 'GOOD', charging: true, build_version: 'reference-1' });
    const code = await Promise.race([
      device.closed,
      (async () => {
        for (;;) {
          const { operation } = await device.nextOperation();
          process.stdout.write(`operation ${operation.uuid}: ${operation.kind} ${operation.amount} ${operation.currency}\n`);
          const r = await answer(device, operation, args);
          process.stdout.write(`${JSON.stringify(r.type === 'result' ? { status: r.operation.status, error: r.operation.error } : r)}\n`);
        }
      })(),
    ]);
    if (FINAL_CLOSE_CODES.has(code as number)) {
      process.stdout.write(`the gateway closed the connection for good (${code})\n`);
      return;
    }
    process.stderr.write(`connection lost (${code}); connecting again\n`);
  }
}

if (process.argv[1] && /reference-device\.[tj]s$/.test(process.argv[1])) {
  main(process.argv.slice(2)).catch((err) => {
    process.stderr.write(`${err.message}\n`);
    process.exit(1);
  });
}
