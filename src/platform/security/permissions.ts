/**
 * Who may do what: the D3 groups of dashboard users and the permissions of each (one table, like the
 * order states). Pure, no IO. The dashboard checks a permission on every route; other modules (the
 * virtual terminal) ask `can` before acting for a user.
 */

/** The D3 groups, as stored on dashboard users. */
export const GROUPS = ['MANAGER', 'USER', 'VIEWER', 'MANUAL PAYMENT', 'BATCH', 'PAYMENTS'] as const;
export type Group = (typeof GROUPS)[number];

/**
 * Everything a dashboard API route may need besides a signed-in user. A route names exactly one; the
 * server checks it on every request (the web app only hides what the server would refuse).
 */
export const PERMISSIONS = [
  'payments.read', // the overview, the payments list, an order's detail, its notifications, the CSV export
  'payments.refund', // B12 full or partial refund (and J7 on a device)
  'payments.capture', // B9 confirm and B8 cancel a DEFERRED order (and J5/J6 on a device)
  'payments.expire', // C1 expire an open order
  'payments.metadata', // C4 metadata on a transaction
  'notifications.resend', // send a notification again
  'cards.read', // customers, their accounts, addresses, profiles and stored sources (BIN and last 4 only)
  'customers.manage', // create and change customers and their data, delete a source, verify a holder
  'moto.read', // MoTo payments and campaigns, their certificates
  'moto.create', // send a MoTo campaign (G1, G2)
  'manual.create', // virtual terminal (B11 through the gateway's card form, B10), payment links (B1, B2)
  'payouts.create', // B15 payouts
  'batch.read', // batch files: list, progress, results
  'batch.create', // batch files: upload (H1, H2)
  'subscriptions.read', // products, plans, subscriptions and their charges
  'subscriptions.manage', // create products, plans, subscriptions; remove and cancel them
  'devices.read', // devices and their card-present operations
  'devices.operate', // send a payment or a pre-authorization to a device (J3, J4)
  'risk.read', // security lists, their items and services, the antifraud rules
  'risk.manage', // change security lists and the antifraud rules
  'terminals.manage', // services, terminals and devices (register, enable, token)
  'developers.read', // API keys, url_post deliveries, request logs
  'developers.keys', // create and revoke API keys
  'users.manage', // list, invite, change group, disable
  'audit.read', // the audit log and its export
  'settings.manage', // templates, checkout, page settings, wallets, the test clock, child merchants
  'reconciliation.read', // settlement reports, their matches and exceptions, payouts, bank statements, their exports
  'reconciliation.import', // import settlement reports and bank statements, fetch a connector's report
  'disputes.read', // disputes, their evidence, history and deadlines, the dispute ratio
  'disputes.respond', // enter and import disputes, add evidence, submit or accept them
  'routing.read', // routing profiles, trying one on a hypothetical payment, the services' health and circuits
  'routing.manage', // create, change and delete routing profiles
] as const;
export type Permission = (typeof PERMISSIONS)[number];

const OPERATIONS: Permission[] = ['payments.read', 'payments.refund', 'payments.capture', 'payments.expire', 'payments.metadata', 'notifications.resend'];

/**
 * The role table: the permissions of each group (api.md D3).
 *  - MANAGER: all sections and configuration;
 *  - USER: operations, terminals and services (and what they act on: customers, subscriptions, devices,
 *    the risk lists to read);
 *  - VIEWER: operations and MoTo payments, read-only;
 *  - MANUAL PAYMENT: manual payments (virtual terminal, links, campaigns, devices) and operations;
 *  - BATCH: batch payments (create and list);
 *  - PAYMENTS: every payment type, the order view, the card list without sensitive data (no refunds,
 *    captures or cancellations: those are operations).
 * Reconciliation (ours): MANAGER and USER read and import it (it is operations' work), VIEWER reads it.
 * Disputes (ours): MANAGER and USER answer them, VIEWER reads them.
 * Routing (ours): read and tried by those who manage services (MANAGER, USER), changed by MANAGER only.
 */
export const ROLES: Readonly<Record<Group, readonly Permission[]>> = {
  MANAGER: PERMISSIONS,
  USER: [...OPERATIONS, 'cards.read', 'customers.manage', 'moto.read', 'subscriptions.read', 'subscriptions.manage', 'devices.read', 'devices.operate', 'risk.read', 'terminals.manage', 'reconciliation.read', 'reconciliation.import', 'disputes.read', 'disputes.respond', 'routing.read'],
  VIEWER: ['payments.read', 'moto.read', 'subscriptions.read', 'devices.read', 'reconciliation.read', 'disputes.read'],
  'MANUAL PAYMENT': [...OPERATIONS, 'manual.create', 'moto.read', 'moto.create', 'devices.read', 'devices.operate'],
  BATCH: ['batch.read', 'batch.create'],
  PAYMENTS: ['payments.read', 'cards.read', 'moto.read', 'moto.create', 'manual.create', 'batch.read', 'batch.create', 'subscriptions.read', 'subscriptions.manage', 'devices.read', 'devices.operate'],
};

export function isGroup(v: string): v is Group {
  return (GROUPS as readonly string[]).includes(v);
}

/** May a user of `group` do what `permission` covers? An unknown group may do nothing. */
export function can(group: string, permission: Permission): boolean {
  return isGroup(group) && ROLES[group].includes(permission);
}

export function permissionsOf(group: string): Permission[] {
  return isGroup(group) ? [...ROLES[group]] : [];
}
