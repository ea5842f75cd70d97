import { Amount, Bool, ExtId, Maybe, Nullable, OptionalText, Type, Uuid, envelope, signedBody } from '../../platform/http/schemas.js';
import { OrderSchema } from '../payments/index.js';
import { COMMUNICATION_TYPES, CONNECTION_STATUSES, DEVICE_REFUND_STATUSES, OPERATION_STATUSES } from './devices.domain.js';
import * as EX from './devices.examples.js';

const Text = (max: number, description?: string) => Nullable(Type.String({ maxLength: max, ...(description ? { description } : {}) }));

export const Device = Type.Object(
  {
    id: Uuid,
    identifier: Type.String({ description: 'the merchant\'s name for the device (its serial number, usually)' }),
    service_uuid: Uuid,
    terminal_id: Type.String({ description: 'TID: 8 digits assigned by the gateway' }),
    mid: Type.String({ description: 'MID: the terminal code of the service\'s terminal' }),
    active: Type.Boolean({ description: 'false: the device is disabled (no operations, its socket is refused)' }),
    configured: Type.Boolean({ description: 'true once the device has connected (always for SIMULATION)' }),
    communication: Type.Object({
      type: Type.String({ enum: [...COMMUNICATION_TYPES], description: 'SIMULATION (sandbox) or SOCKET' }),
      status: Type.String({ enum: [...CONNECTION_STATUSES] }),
    }),
    merchant: Type.Object({ uuid: Uuid }),
    properties: Type.Object({
      name: Text(100), model: Text(100), system_name: Text(100), system_version: Text(100), release: Text(100), hardware: Text(100),
    }),
    status: Type.Object({
      battery_level: Nullable(Type.Integer({ minimum: 0, maximum: 100 })),
      connection_type: Text(32),
      connection_quality: Text(32),
      charging: Nullable(Type.Boolean()),
      build_version: Text(64),
      pending_transactions: Type.Integer({ minimum: 0, description: 'operations sent to the device and not finished' }),
    }),
    created_at: Type.String({ description: 'ISO 8601 UTC' }),
    updated_at: Type.String({ description: 'ISO 8601 UTC' }),
  },
  { title: 'PhysicalDevice', description: 'A physical device (payment terminal) of the merchant', examples: [EX.DEVICE] },
);

export const DeviceOperation = Type.Object(
  {
    uuid: Uuid,
    device_id: Uuid,
    kind: Type.String({ enum: ['PAYMENT', 'PREAUTHORIZATION'] }),
    order_uuid: Uuid,
    amount: Type.Integer(),
    currency: Type.String(),
    status: Type.String({ enum: [...OPERATION_STATUSES], description: 'QUEUED → SENT → CARD_READ → APPROVED/REFUSED/FAILED; AUTHENTICATION_REQUIRED while the device must read the card again (terminal_action); or CANCELLED, TIMED_OUT' }),
    terminal_action: Nullable(Type.String({ enum: ['REQUEST_PIN', 'SWITCH_INTERFACE'], description: 'AUTHENTICATION_REQUIRED: the issuer asks for the PIN (REQUEST_PIN) or the chip (SWITCH_INTERFACE)' })),
    error: Nullable(Type.String()),
    card: Nullable(Type.Object({ bin: Nullable(Type.String()), last4: Type.String(), reading_method: Nullable(Type.String()) }, { description: 'the card read: BIN and last 4 only' })),
    deadline_at: Type.String({ description: 'ISO 8601 UTC, merchant clock: the operation fails when no card was read by then' }),
    created_at: Type.String(),
    updated_at: Type.String(),
  },
  { title: 'DeviceOperation', description: 'A payment or pre-authorization sent to a device', examples: [EX.OPERATION] },
);

export const DeviceRefund = Type.Object(
  {
    uuid: Uuid,
    device_id: Uuid,
    order_uuid: Uuid,
    amount: Nullable(Type.Integer({ description: 'minor units; null: what is left of the order when it is processed' })),
    status: Type.String({ enum: [...DEVICE_REFUND_STATUSES], description: 'QUEUED until the simulated device processes it (10 s), then REFUNDED, CANCELLED (amount 100), REFUSED (amount 200) or FAILED (error says why)' }),
    error: Nullable(Type.String()),
    created_at: Type.String(),
    updated_at: Type.String(),
  },
  { title: 'DeviceRefund', description: 'A refund sent to a SIMULATION device (J7)', examples: [{ uuid: '9a1b2c3d-4e5f-4a6b-8c7d-9e0f1a2b3c4d', device_id: EX.DEVICE.id, order_uuid: EX.OPERATION.order_uuid, amount: 1500, status: 'QUEUED', error: null, created_at: '2026-03-14T09:21:07.000Z', updated_at: '2026-03-14T09:21:07.000Z' }] },
);

const PropertiesIn = Maybe(
  Type.Object({
    name: OptionalText(100), model: OptionalText(100), system_name: OptionalText(100), system_version: OptionalText(100), release: OptionalText(100), hardware: OptionalText(100),
  }),
  { description: 'what the device is: name, model, system_name, system_version, release, hardware' },
);

export const RegisterBody = signedBody(
  {
    service: Uuid,
    identifier: Type.String({ minLength: 1, maxLength: 100, description: 'the merchant\'s name for the device, unique per merchant (its serial number, usually)' }),
    communication_type: Type.String({ enum: [...COMMUNICATION_TYPES], description: 'SIMULATION (sandbox only) or SOCKET' }),
    properties: PropertiesIn,
  },
  { title: 'RegisterDeviceRequest', examples: [EX.REGISTER_REQUEST] },
);

export const DeviceParams = Type.Object({ id: Uuid });
export const EnabledBody = signedBody({ enabled: Bool({ description: 'false disables the device' }) }, { title: 'DeviceEnabledRequest', examples: [{ signature: EX.signature, enabled: false }] });
export const TokenBody = signedBody({}, { title: 'RotateDeviceTokenRequest', examples: [{ signature: EX.signature }] });

export const ListQuery = Type.Object({
  identifier: Type.Optional(Type.String({ maxLength: 100 })),
  service: Type.Optional(Type.String({ format: 'uuid', description: 'the uuid of a service: its devices only' })),
  terminal_id: Type.Optional(Type.String({ maxLength: 8 })),
  communication_type: Type.Optional(Type.String({ enum: [...COMMUNICATION_TYPES, ''], description: 'SIMULATION or SOCKET (empty: any)' })),
  active: Type.Optional(Bool()),
  configured: Type.Optional(Bool()),
  created_at_from: Type.Optional(Type.String({ maxLength: 12, description: 'YYYYMMDDHHmm, merchant timezone' })),
  created_at_to: Type.Optional(Type.String({ maxLength: 12, description: 'YYYYMMDDHHmm' })),
  updated_at_from: Type.Optional(Type.String({ maxLength: 12, description: 'YYYYMMDDHHmm' })),
  updated_at_to: Type.Optional(Type.String({ maxLength: 12, description: 'YYYYMMDDHHmm' })),
});

export const SendBody = signedBody(
  {
    device: Uuid,
    amount: Amount({ description: 'minor units of the service\'s currency' }),
    description: Type.String({ minLength: 1, maxLength: 500 }),
    customer_ext_id: Type.Optional(ExtId()),
    additional: OptionalText(1000),
    url_post: OptionalText(2000, { description: 'where the final state is notified' }),
    reference: OptionalText(100),
  },
  { title: 'DevicePaymentRequest', examples: [EX.SEND_REQUEST] },
);

export const FollowUpBody = signedBody(
  { device: Uuid, order_uuid: Uuid, amount: Type.Optional(Maybe(Amount())) },
  { title: 'DeviceFollowUpRequest', examples: [{ signature: EX.signature, device: EX.DEVICE.id, order_uuid: EX.ORDER_UUID, amount: 1500 }] },
);
export const CancelBody = signedBody({ device: Uuid, order_uuid: Uuid }, { title: 'DeviceCancellationRequest', examples: [{ signature: EX.signature, device: EX.DEVICE.id, order_uuid: EX.ORDER_UUID }] });

export const DeviceResponse = envelope({ device: Device }, { title: 'DeviceResponse' });
export const DeviceTokenResponse = envelope(
  { device: Device, token: Type.String({ description: 'the device\'s bearer token: shown once, keep it on the device', examples: ['pgd_Jq3xV0m9cF2sT8kLwP5yR1nB7dH4gZ6aE0uC3iO9vXs'] }) },
  { title: 'DeviceTokenResponse' },
);
export const DevicesResponse = envelope({ devices: Type.Array(Device) }, { title: 'DevicesResponse' });

const Client = Type.Object({ uuid: Uuid }, { examples: [{ uuid: '0f8e2d1c-4b3a-4c5d-8e7f-9a0b1c2d3e4f' }] });
export const DeviceOrderResponse = envelope(
  {
    order: OrderSchema,
    client: Client,
    validation_hash: Type.String({ description: 'lowercase hex SHA-256 of the serialized order and client followed by your signature', examples: ['3b5d7f9a1c3e5b7d9f1a3c5e7b9d1f3a5c7e9b1d3f5a7c9e1b3d5f7a9c1e3b5d'] }),
    device: Device,
    operation: Type.Optional(DeviceOperation),
    refund: Type.Optional(DeviceRefund),
  },
  { title: 'DeviceOrderResponse', description: 'The order, the device, and (J3/J4) the operation sent to it or (J7 on a SIMULATION device) the refund it will process' },
);

// ---- card-present (K1–K9), device bearer token --------------------------------------------------

export const Pos = Type.Object(
  {
    device_id: Uuid,
    tid: Type.String(),
    mid: Type.String(),
    stan: Type.String(),
    rrn: Type.String({ description: '12 digits, assigned by the gateway: refer to the operation later with it' }),
    card_reading_method: Nullable(Type.String()),
    entry_mode: Nullable(Type.String({ description: 'POS entry mode (ISO 8583 field 22): 01 key entry, 03 bar code, 05 chip, 07 contactless, 90 stripe' })),
  },
  { title: 'Pos', description: 'Where and how the card of a card-present operation was read', examples: [EX.POS] },
);

const Stan = Type.String({ pattern: '^[0-9]{1,12}$', description: 'the terminal\'s trace number: unique per device and day' });
const Rrn = Type.String({ pattern: '^[0-9]{12}$', description: 'the rrn the gateway gave the payment' });

export const CardPresentBody = Type.Object(
  {
    card: Type.Object(
      {
        track2: OptionalText(40, { description: 'track 2 equivalent data; or pan and expiration_date' }),
        pan: Maybe(Type.String({ pattern: '^[0-9]{12,19}$' })),
        expiration_date: Maybe(Type.String({ pattern: '^[0-9]{4}$', description: 'YYMM' })),
      },
      { description: 'the card read: track2, or pan and expiration_date. Never stored: only BIN and last 4 are kept' },
    ),
    amount: Amount(),
    currency: Type.String({ pattern: '^[A-Za-z]{3}$', description: 'ISO 4217 alpha-3: the currency of the device\'s service' }),
    mid: OptionalText(32, { description: 'when given, the device\'s MID' }),
    stan: Maybe(Stan, { description: 'the terminal\'s trace number, unique per device and day; when absent the gateway assigns one (6 digits, unique per device and day) and answers it in `pos.stan`' }),
    card_reading_method: Maybe(Type.String({ enum: ['KEY_ENTRY', 'BAR_CODE', 'MAGNETIC_STRIPE', 'ICC', 'NFC'] })),
    emv_data: OptionalText(4096, { description: 'encrypted chip data (not used by the sandbox)' }),
    card_sequence_number: Maybe(Type.String({ pattern: '^[0-9]{3}$', description: '3 digits' })),
    pin: Type.Object(
      {
        block: Maybe(Type.String({ pattern: '^[0-9A-Fa-f]{16}([0-9A-Fa-f]{16})?$', description: 'ISO 9564 PIN block (16 hex digits for format 0, 32 for format 4); empty when no PIN was entered. Never stored or logged' })),
        format: Maybe(Type.Integer({ enum: [0, 4] })),
      },
    ),
    device: Type.Object({ serial_number: OptionalText(100), model: OptionalText(100) }),
    sca: Maybe(Type.Object(
      { original_order_uuid: Maybe(Uuid) },
      { description: 'the repeat of a payment the issuer asked SCA for: `original_order_uuid` is that order (AUTHENTICATION_REQUIRED), which this call continues' },
    )),
  },
  { title: 'CardPresentPaymentRequest', examples: [EX.CARD_PRESENT_REQUEST] },
);

export const ByRrnBody = Type.Object(
  { mid: OptionalText(32), stan: Stan, rrn: Rrn, tid: Type.String({ maxLength: 8 }), amount: Type.Optional(Maybe(Amount())) },
  { title: 'CardPresentFollowUpRequest', examples: [{ mid: EX.DEVICE.mid, stan: '000124', rrn: EX.POS.rrn, tid: EX.DEVICE.terminal_id, amount: 1500 }] },
);
export const VoidBody = Type.Object(
  { stan: Stan, mid: Type.String({ maxLength: 32 }), device: Type.Object({ serial_number: OptionalText(100), model: OptionalText(100) }) },
  { title: 'CardPresentVoidRequest', examples: [{ stan: '000123', mid: EX.DEVICE.mid, device: { serial_number: 'PAX-A920-0001', model: 'A920' } }] },
);
export const SyncQuery = Type.Object({ tid: Type.String({ maxLength: 8 }), mid: Type.String({ maxLength: 32 }), serialNumber: Type.String({ maxLength: 100 }) });
export const ServiceHeaders = Type.Object({ 'x-service-mid': Type.String({ maxLength: 32, description: 'the device\'s MID' }), 'x-service-tid': Type.String({ maxLength: 8, description: 'the device\'s TID' }) });
export const StanParams = Type.Object({ stan: Type.String({ maxLength: 12 }) });
export const RrnParams = Type.Object({ rrn: Type.String({ maxLength: 12 }) });

export const CardPresentResponse = envelope(
  { order: OrderSchema, client: Client, validation_hash: Type.String({ examples: ['3b5d7f9a1c3e5b7d9f1a3c5e7b9d1f3a5c7e9b1d3f5a7c9e1b3d5f7a9c1e3b5d'] }), pos: Pos },
  { title: 'CardPresentResponse', description: 'The order of a card-present operation and where the card was read' },
);
export const SyncResponse = envelope(
  {
    mid: Type.String({ examples: [EX.DEVICE.mid] }),
    tid: Type.String({ examples: [EX.DEVICE.terminal_id] }),
    serial_number: Type.String({ examples: ['PAX-A920-0001'] }),
    service_uuid: Uuid,
    emv_config: Type.String({ description: 'the EMV configuration of the device, JSON text', examples: ['{"currency":"EUR","contactless_cvm_limit":5000}'] }),
  },
  { title: 'CardPresentSyncResponse' },
);
