/**
 * The device channel: a WebSocket at `/v1/device/socket` (and `/v1/sandbox/device/socket`) that a SOCKET
 * device opens with `Authorization: Bearer DEVICE_TOKEN`. The gateway sends it operations; it reports
 * what it read, cancellations on the terminal and its status. JSON text frames; see docs/devices.md.
 *
 * Several gateway processes: a device's socket is held by the process it connected to. What must reach
 * it is announced on the `paygate_devices` NOTIFY channel by whichever process (or worker) caused it;
 * this hub listens and acts for the sockets it holds. It also looks for queued operations of its devices
 * every `PAYGATE_DEVICE_POLL_MS`, so a notification lost (listener reconnecting) only delays delivery.
 *
 * Messages are never logged: a `card` message carries track 2 or a PAN and a PIN block.
 */
import { randomUUID } from 'node:crypto';
import type { IncomingMessage } from 'node:http';
import type { Duplex } from 'node:stream';
import type { FastifyInstance } from 'fastify';
import { WebSocketServer, type WebSocket } from 'ws';
import { ApiError } from '../../platform/errors/errors.js';
import { containsCardNumber, findCardNumber } from '../../platform/http/pan-guard.js';
import type { Platform } from '../../platform/index.js';
import type { DeviceReport } from '../../processors/index.js';
import { CARD_READING_METHODS } from './devices.domain.js';
import type { DevicesService } from './devices.service.js';
import { DEVICE_SIGNAL_CHANNEL, type DeviceSignal } from './devices.types.js';

export const SOCKET_PATH = /^\/v1(\/sandbox)?\/device\/socket\/?(\?.*)?$/;
/** Largest frame a device may send. */
const MAX_FRAME = 16 * 1024;
/** Close codes the gateway uses (4000–4999 are the application's). */
export const CLOSE_CODES = { REPLACED: 4000, DISABLED: 4001, TOKEN_ROTATED: 4002, KEY_REVOKED: 4003, TOKEN_REVOKED: 4004 } as const;

function refuse(socket: Duplex, status: number, reason: string): void {
  socket.write(`HTTP/1.1 ${status} ${reason}\r\nConnection: close\r\nContent-Type: application/json\r\n\r\n${JSON.stringify({ message: reason, code: status, details: reason })}`);
  socket.destroy();
}

function parseSignal(payload: string): DeviceSignal | null {
  try {
    const s = JSON.parse(payload) as DeviceSignal;
    return s && typeof s.device === 'string' && typeof s.kind === 'string' ? s : null;
  } catch {
    return null;
  }
}

/** Serves device sockets on the app's HTTP server (when it listens). */
export function installDeviceSocket(app: FastifyInstance, service: DevicesService, p: Pick<Platform, 'database' | 'config' | 'logger'> & { invalidation?: Platform['invalidation'] }): void {
  const logger = p.logger;
  /** This hub, in the signals it sends. */
  const hubId = randomUUID();
  const wss = new WebSocketServer({ noServer: true, maxPayload: MAX_FRAME });
  const sockets = new Map<string, WebSocket>();
  const send = (ws: WebSocket, message: Record<string, unknown>) => {
    if (ws.readyState === ws.OPEN) ws.send(JSON.stringify(message));
  };
  service.useChannel({
    send(deviceId, message) {
      const ws = sockets.get(deviceId);
      if (!ws || ws.readyState !== ws.OPEN) return false;
      ws.send(JSON.stringify(message));
      return true;
    },
    holds(deviceId) {
      const ws = sockets.get(deviceId);
      return !!ws && ws.readyState === ws.OPEN;
    },
  });

  // ---- what other processes (and this one) announce -------------------------------------------------
  let deliveries: Promise<unknown> = Promise.resolve();
  /** Delivers queued operations of `ids`, one delivery round at a time (a burst of signals queues up). */
  const deliver = (ids: string[]) => {
    if (ids.length === 0) return deliveries;
    deliveries = deliveries
      .then(() => service.deliverQueued(ids))
      .catch((err) => logger.error({ err: { message: (err as Error).message } }, 'devices: delivering queued operations failed'));
    return deliveries;
  };
  const onSignal = (payload: string | null) => {
    if (payload === null) {
      // the listener reconnected: notifications may have been missed
      void deliver([...sockets.keys()]);
      return;
    }
    const s = parseSignal(payload);
    if (!s) return;
    const ws = sockets.get(s.device);
    if (!ws) return; // not this process's device
    switch (s.kind) {
      case 'operations':
        void deliver([s.device]);
        return;
      case 'cancel':
        return send(ws, { type: 'cancel', operation_uuid: s.operation });
      case 'disabled':
        send(ws, { type: 'disabled' });
        return ws.close(CLOSE_CODES.DISABLED, 'the device was disabled');
      case 'token_rotated':
        return ws.close(CLOSE_CODES.TOKEN_ROTATED, 'the device token was rotated: connect with the new token');
      case 'token_revoked':
        return ws.close(CLOSE_CODES.TOKEN_REVOKED, 'the device token was revoked');
      case 'connected':
        if (s.by === hubId) return;
        // the device connected to another process: this socket is the stale one (not a disconnection)
        sockets.delete(s.device);
        return ws.close(CLOSE_CODES.REPLACED, 'replaced by a new connection');
    }
  };
  let stopListening: (() => Promise<void>) | null = null;
  let poll: NodeJS.Timeout | null = null;
  app.addHook('onReady', async () => {
    if (p.config.deviceListen && p.database.listen) stopListening = await p.database.listen(DEVICE_SIGNAL_CHANNEL, onSignal);
    // the durable fallback: the rows are the truth (transport plumbing, not business timing)
    poll = setInterval(() => {
      if (sockets.size > 0) void deliver([...sockets.keys()]);
    }, p.config.devicePollMs);
    poll.unref();
  });

  // ---- connections -----------------------------------------------------------------------------------
  async function onUpgrade(req: IncomingMessage, socket: Duplex, head: Buffer) {
    const m = SOCKET_PATH.exec(req.url ?? '');
    if (!m) return refuse(socket, 404, 'Not Found');
    const env = m[1] ? 'sandbox' : 'production';
    const auth = /^bearer\s+(\S+)$/i.exec(String(req.headers.authorization ?? ''));
    const device = auth ? await service.deviceForToken(auth[1]) : undefined;
    if (!device || !device.keyActive) return refuse(socket, 401, 'Unauthorized');
    if (device.env !== env) return refuse(socket, 403, 'Unauthenticated');
    if (!device.active) return refuse(socket, 403, 'Unauthenticated');
    if (device.communication_type !== 'SOCKET') return refuse(socket, 400, 'Bad Request');
    wss.handleUpgrade(req, socket, head, (ws) => {
      void onConnection(ws, device.id);
    });
  }

  async function onConnection(ws: WebSocket, deviceId: string) {
    const previous = sockets.get(deviceId);
    sockets.set(deviceId, ws);
    if (previous) previous.close(CLOSE_CODES.REPLACED, 'replaced by a new connection');
    ws.on('close', () => {
      if (sockets.get(deviceId) !== ws) return;
      sockets.delete(deviceId);
      service.disconnected(deviceId).catch((err) => logger.error({ err: { message: err.message }, device: deviceId }, 'devices: could not record a disconnection'));
    });
    ws.on('message', (data, isBinary) => {
      void onMessage(ws, deviceId, isBinary ? null : data.toString());
    });
    try {
      await service.tell({ device: deviceId, kind: 'connected', by: hubId });
      const { device, open } = await service.connected(deviceId);
      send(ws, { type: 'hello', device });
      await service.deliverWaiting(deviceId, open);
    } catch (err) {
      logger.error({ err: { message: (err as Error).message }, device: deviceId }, 'devices: socket setup failed');
      ws.close(1011, 'internal error');
    }
  }

  async function onMessage(ws: WebSocket, deviceId: string, text: string | null) {
    let msg: Record<string, any>;
    try {
      msg = text === null ? null : JSON.parse(text);
    } catch {
      msg = null as any;
    }
    if (!msg || typeof msg !== 'object' || Array.isArray(msg) || typeof msg.type !== 'string') {
      return send(ws, { type: 'error', details: 'each message is a JSON object with a "type"' });
    }
    const ref = typeof msg.operation_uuid === 'string' ? msg.operation_uuid : null;
    try {
      switch (msg.type) {
        case 'ping':
          return send(ws, { type: 'pong' });
        case 'status': {
          if (!msg.status || typeof msg.status !== 'object' || Array.isArray(msg.status)) return send(ws, { type: 'error', details: 'status must be an object' });
          // what a device reports is stored and shown: never a card number (the API's guard, pan-guard.ts)
          const hit = findCardNumber(msg.status);
          if (hit) return send(ws, { type: 'error', code: 400, details: `status.${hit} must not contain a card number` });
          await service.reportStatus(deviceId, msg.status);
          return send(ws, { type: 'status_saved' });
        }
        case 'card':
        case 'cancel': {
          if (!ref) return send(ws, { type: 'error', details: 'operation_uuid is required' });
          if (msg.type === 'cancel' && typeof msg.reason === 'string' && containsCardNumber(msg.reason)) {
            return send(ws, { type: 'error', operation_uuid: ref, code: 400, details: 'reason must not contain a card number' });
          }
          if (msg.type === 'card' && msg.card_reading_method !== undefined && msg.card_reading_method !== null && !(CARD_READING_METHODS as readonly string[]).includes(msg.card_reading_method)) {
            return send(ws, { type: 'error', operation_uuid: ref, code: 400, details: `card_reading_method must be one of ${CARD_READING_METHODS.join(', ')}` });
          }
          const report: DeviceReport =
            msg.type === 'cancel'
              ? { kind: 'CANCELLED', reason: typeof msg.reason === 'string' ? msg.reason : 'Cancelled on the device' }
              : {
                  kind: 'CARD',
                  card: msg.card && typeof msg.card === 'object' ? { track2: str(msg.card.track2), pan: str(msg.card.pan), expiration_date: str(msg.card.expiration_date) } : {},
                  card_reading_method: msg.card_reading_method ?? 'ICC',
                  pin: msg.pin && typeof msg.pin === 'object' ? { block: msg.pin.block, format: msg.pin.format } : null,
                };
          msg = {}; // the card data goes no further than the report
          const operation = await service.report(deviceId, ref, report);
          return send(ws, { type: 'result', operation });
        }
        default:
          return send(ws, { type: 'error', details: `unknown message type (status, card, cancel, ping)` });
      }
    } catch (err) {
      if (err instanceof ApiError && err.status < 500) return send(ws, { type: 'error', operation_uuid: ref, code: err.status, details: err.details });
      logger.error({ err: { message: (err as Error).message }, device: deviceId }, 'devices: a device message failed');
      return send(ws, { type: 'error', operation_uuid: ref, code: 500, details: 'The gateway could not process the message; the operation is settled later' });
    }
  }

  // ---- a key revoked (in any process: the api_keys trigger of paygate_invalidate): the sockets of the
  // devices that act for it close, as their tokens ended (docs/devices.md, "Device token lifetime")
  const stopKeyWatch = p.invalidation?.onInvalidate((table) => {
    if (sockets.size === 0 || (table !== null && !table.endsWith('.api_keys'))) return;
    service
      .devicesOfRevokedKeys([...sockets.keys()])
      .then((ended) => {
        for (const id of ended) sockets.get(id)?.close(CLOSE_CODES.KEY_REVOKED, 'the API key the device acts for was revoked');
      })
      .catch((err) => logger.warn({ err: { message: (err as Error).message } }, 'devices: could not check the keys of connected devices'));
  });

  app.server.on('upgrade', (req, socket, head) => {
    onUpgrade(req, socket, head).catch(() => refuse(socket, 500, 'Internal Server Error'));
  });
  app.addHook('preClose', async () => {
    if (poll) clearInterval(poll);
    stopKeyWatch?.();
    const open = [...sockets.values()];
    sockets.clear(); // closing at shutdown is not a device going offline
    for (const ws of open) ws.terminate();
    wss.close();
    await stopListening?.();
    stopListening = null;
    await deliveries;
  });
}

function str(v: unknown): string | undefined {
  return typeof v === 'string' ? v : undefined;
}
