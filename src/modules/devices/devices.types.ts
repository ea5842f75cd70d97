/** The devices module's constants, inputs and the shapes its service, socket and routes share. */
import { createHash, randomBytes } from 'node:crypto';
import type { RequestContext } from '../../platform/http/types.js';
import type { MerchantsService } from '../merchants/index.js';
import type { Payments } from '../payments/index.js';
import { type CommunicationType } from './devices.domain.js';
import * as repo from './devices.repo.js';

export const SIMULATE_QUEUE = 'devices.simulate';
export const SIMULATE_REFUND_QUEUE = 'devices.simulate-refund';
export const DEADLINE_QUEUE = 'devices.deadline';
/** The NOTIFY channel of what must reach a device's socket, in whichever process holds it. */
export const DEVICE_SIGNAL_CHANNEL = 'paygate_devices';

/** What a process holding a device's socket must do (payload of DEVICE_SIGNAL_CHANNEL, JSON). */
export type DeviceSignal =
  /** Operations were queued for the device: send them. */
  | { device: string; kind: 'operations' }
  /** Tell the device to stop an operation (cancelled by the merchant, or its deadline passed). */
  | { device: string; kind: 'cancel'; operation: string }
  /** The device was disabled, its token rotated or revoked by the operator: close its socket. */
  | { device: string; kind: 'disabled' | 'token_rotated' | 'token_revoked' }
  /** The device opened a socket on the process `by`: any other process holding one for it closes it (one socket per device). */
  | { device: string; kind: 'connected'; by: string };

export interface DevicesDeps {
  payments: Payments;
  merchants: MerchantsService;
}

/** Where the socket hub delivers messages to connected devices (set by the socket route). */
export interface DeviceChannel {
  /** Sends a message to the device when its socket is open in this process; false otherwise. */
  send(deviceId: string, message: Record<string, unknown>): boolean;
  /** Whether the device's socket is open in this process. */
  holds(deviceId: string): boolean;
}

export interface RegisterInput {
  service: string;
  identifier: string;
  communication_type: CommunicationType;
  properties?: Record<string, unknown> | null;
}

export interface ListQuery {
  identifier?: string;
  service?: string;
  terminal_id?: string;
  communication_type?: string;
  active?: boolean;
  configured?: boolean;
  created_at_from?: string;
  created_at_to?: string;
  updated_at_from?: string;
  updated_at_to?: string;
}

export interface SendInput {
  device: string;
  amount: number;
  description: string;
  customer_ext_id?: string | null;
  additional?: string | null;
  url_post?: string | null;
  reference?: string | null;
}

export interface OpPayload {
  operationId: string;
}

export const ownerOf = (ctx: RequestContext): repo.Owner => ({ merchantId: ctx.merchant.id, env: ctx.env });
/** One line of a device's history (DevicesService.history). */
export interface DeviceHistoryEntry {
  uuid: string;
  /** SENT: sent to the device (J3/J4); CARD_PRESENT: the device's own call (K1–K7); REFUND: a refund sent to it (J7) */
  source: 'SENT' | 'CARD_PRESENT' | 'REFUND';
  kind: string;
  order_uuid: string;
  amount: number | null;
  currency: string | null;
  status: string | null;
  terminal_action: string | null;
  error: string | null;
  stan: string | null;
  rrn: string | null;
  card: { bin: string | null; last4: string; reading_method: string | null } | null;
  created_at: string;
  updated_at: string;
}

/** A device found by its token, and whether the key it acts for is still active (revoked: the token ended). */
export type TokenDevice = repo.DeviceRow & { keyActive: boolean };

export const hashDeviceToken = (token: string) => createHash('sha256').update(token, 'utf8').digest('hex');
export const newToken = () => `pgd_${randomBytes(32).toString('base64url')}`;
