export { DashboardService } from './dashboard.service.js';
export { installDashboardApi, listDashboardRoutes, DASHBOARD_API_PREFIX } from './dashboard.routes.js';
export { installDashboardApp } from './dashboard.app.js';
export { CSV_COLUMNS } from './routes/payments.js';
export { ROLES, PERMISSIONS, GROUPS, API_OPERATIONS, can } from './dashboard.domain.js';
