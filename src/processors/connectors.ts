/**
 * THE list of production connectors (the connector kit, kit/declaration.ts). Everything that names
 * connectors reads it: the app registers each for its service types and lets the outgoing client reach
 * its configured host, the configuration reads each one's `PAYGATE_<NAME>_URL`, the services module
 * checks and tests production terminals' credentials with it, the notification and webhook routes find
 * the connector and the headers it needs, the CLI has a `<name>-simulator` command for each, and the
 * test harnesses are built from it. A new connector is added here, and nowhere else outside its folder.
 */
import { CHECKOUT } from './checkout/declaration.js';
import { CLEARHAUS } from './clearhaus/declaration.js';
import { CREDORAX } from './credorax/declaration.js';
import { CYBERSOURCE } from './cybersource/declaration.js';
import type { ConnectorDeclaration } from './kit/declaration.js';
import { NUVEI } from './nuvei/declaration.js';
import { PAYPAL } from './paypal/declaration.js';
import { REDSYS } from './redsys/declaration.js';
import { TRUSTPAYMENTS } from './trustpayments/declaration.js';
import { WORLDPAY } from './worldpay/declaration.js';

/** A declaration whatever its terminal type (what `credentials.open` gives is what `testCredentials` takes). */
// eslint-disable-next-line @typescript-eslint/no-explicit-any
export type AnyConnectorDeclaration = ConnectorDeclaration<any>;

export const CONNECTORS: readonly AnyConnectorDeclaration[] = [REDSYS, CHECKOUT, PAYPAL, CYBERSOURCE, WORLDPAY, NUVEI, CREDORAX, TRUSTPAYMENTS, CLEARHAUS];

/** The declaration of a connector by its name (`/v1/processor/<name>/...`). */
export function declarationNamed(name: string): AnyConnectorDeclaration | null {
  return CONNECTORS.find((c) => c.name === name) ?? null;
}

/** The declaration of the connector production sends a service type through. */
export function declarationOfType(serviceType: string): AnyConnectorDeclaration | null {
  return CONNECTORS.find((c) => c.serviceTypes.includes(serviceType)) ?? null;
}
