import { createHash } from 'node:crypto';
import { dateTextOf, statusCodeOf } from '../platform/schemas';

/** The status dates a fingerprint covers (docs/platform.md: the light list items carry them). */
const STATUS_DATES = [
  'created_date',
  'budgeted_date',
  'purchased_date',
  'authorized_date',
  'finished_date',
] as const;

/**
 * A service's version as the sync sees it: its id, status code and status dates, which the
 * light list items carry, so a pass needs no detail to tell what changed. Dates are read as
 * the platform's dates (either of its formats gives the same fingerprint). 16 hex digits.
 */
export function serviceFingerprint(service: { id: unknown; status?: unknown }): string {
  const status =
    service.status && typeof service.status === 'object'
      ? (service.status as Record<string, unknown>)
      : {};
  const parts = [
    String(service.id),
    String(statusCodeOf(service.status) ?? ''),
    ...STATUS_DATES.map((field) => dateTextOf(status[field]) ?? ''),
  ];
  return createHash('sha1').update(parts.join('|')).digest('hex').slice(0, 16);
}

/**
 * A service's version with what the connector adds to it (a planned order's payment): a balance
 * paid later is a new version, delivered again; a service without one keeps its fingerprint.
 */
export function deliveredFingerprint(
  fingerprint: string,
  payment: Record<string, unknown> | undefined,
): string {
  if (!payment) return fingerprint;
  const digest = createHash('sha1').update(JSON.stringify(payment)).digest('hex').slice(0, 8);
  return `${fingerprint}-${digest}`;
}

/** Whether a delivered fingerprint covers a planned order's payment. */
export function hasPayment(fingerprint: string): boolean {
  return fingerprint.includes('-');
}

/** The service as the ERP gets it: the platform's, and the connector's payment of a plan. */
export function withConnectorPayment(
  sent: unknown,
  payment: Record<string, unknown> | undefined,
): unknown {
  if (!payment || !sent || typeof sent !== 'object' || Array.isArray(sent)) return sent;
  return { ...(sent as Record<string, unknown>), connector_payment: payment };
}
