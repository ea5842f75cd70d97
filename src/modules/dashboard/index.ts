export { DashboardService } from './dashboard.service.js';
export { installDashboardApi, installDashboardApp, listDashboardRoutes, DASHBOARD_API_PREFIX, CSV_COLUMNS } from './dashboard.routes.js';
export { ROLES, PERMISSIONS, GROUPS, API_OPERATIONS, can } from './dashboard.domain.js';
