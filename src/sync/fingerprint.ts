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
