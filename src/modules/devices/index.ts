/**
 * Physical devices (payment terminals): the registry, operations sent to a device (J1–J7), the device
 * socket and the simulated device. The only file other modules import.
 *
 *   const devices = new DevicesService(p, { payments, merchants });
 *   devices.registerJobs();                               // the simulated device and operation deadlines
 *   registerApi(app, devicesRoutes(devices, payments));  // J1–J7, register, enable, rotate token
 *   installDeviceSocket(app, devices, platform);         // WebSocket /v1/device/socket, cross-process delivery
 */
export { DevicesService } from './devices.service.js';
export { SIMULATE_QUEUE, DEADLINE_QUEUE, DEVICE_SIGNAL_CHANNEL, hashDeviceToken } from './devices.types.js';
export type { DevicesDeps, DeviceChannel, DeviceSignal, DeviceHistoryEntry } from './devices.types.js';
export { devicesRoutes } from './devices.routes.js';
export { CardPresentService } from './card-present.service.js';
export { cardPresentRoutes } from './card-present.routes.js';
export { installDeviceSocket, SOCKET_PATH, CLOSE_CODES } from './devices.socket.js';
export {
  DEVICE_TABLE, OPERATION_TABLE, OPERATION_STATUSES, OPERATION_TIMEOUT_MS, SIMULATION_DELAY_MS, COMMUNICATION_TYPES,
  deviceTransition, operationTransition, canOperation, eventForOrder, readCard, pinBlockProblem, posOf, operationMessage, newRrn,
} from './devices.domain.js';
export type { OperationStatus, CommunicationType, PresentedDevice, PresentedOperation } from './devices.domain.js';
