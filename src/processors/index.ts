export * from './connector.js';
export { ProcessorRegistry, guarded, NO_PARTIAL_CAPTURE } from './registry.js';
export type { RegistryOptions } from './registry.js';
export { SimulatorConnector } from './simulator.js';
export type { Fault, FaultKind, SimulatorOptions } from './simulator.js';
export { TEST_CARDS, TEST_CVV, BIZUM_PHONES, luhnValid, cardExpired, decideHolderMatch } from './simulator.rules.js';
export * from './apms.js';
export { decideApmStart, decideApmComplete } from './sandbox-apm.js';
