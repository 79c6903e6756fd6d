import { providerSecretVariables } from '../payments/provider-fields';

/**
 * Variables whose values are secrets: never logged, never echoed in an error, and kept in the
 * Kubernetes Secret rather than the ConfigMap (.ci/manifests-check.mjs reads this list).
 */
export const SECRET_VARIABLES = [
  'PLATFORM_PASSWORD',
  'PLATFORM_API_KEY',
  'CHECKOUT_ROUTE_TOKEN',
  'DASHBOARD_PASSWORD',
  ...providerSecretVariables(),
  'ERP_WEBHOOK_SECRET',
  'SHOP_SECRET_KEYS',
  'ADMIN_TOKEN',
  'REDIS_SENTINEL_PASSWORD',
];
