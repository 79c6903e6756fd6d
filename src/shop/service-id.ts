import { z } from 'zod';

/*
 * The one range of a platform service id, from the route to the store (CONTRACT "One range for
 * `service_id`"): an integer of 1 to 15 digits. Every entry of an id (the checkout route, the
 * CLI, job data) takes it from here, so nothing is accepted that the store cannot read back;
 * 15 digits also keep every id exact in a JavaScript number (2^53 has 16).
 */

/** The most digits a service id has. */
export const SERVICE_ID_MAX_DIGITS = 15;

/** The largest service id: 15 nines. */
export const MAX_SERVICE_ID = 10 ** SERVICE_ID_MAX_DIGITS - 1;

/** A service id written out: 1 to 15 digits (the store's fields and keys hold it so). */
export const SERVICE_ID_TEXT = /^\d{1,15}$/;

/** What every refusal of an id says it must be. */
export const SERVICE_ID_RULE = `a positive integer of at most ${SERVICE_ID_MAX_DIGITS} digits`;

/** A service id in job data and other typed input. */
export const serviceIdSchema = z.number().int().min(1).max(MAX_SERVICE_ID);

/** Whether `value` is a service id of the range. */
export function isServiceId(value: unknown): value is number {
  return (
    Number.isSafeInteger(value) && (value as number) >= 1 && (value as number) <= MAX_SERVICE_ID
  );
}

/** The service id that `text` writes out (digits only, leading zeros allowed), or undefined. */
export function serviceIdOfText(text: string): number | undefined {
  if (!SERVICE_ID_TEXT.test(text)) return undefined;
  const id = Number(text);
  return id >= 1 ? id : undefined;
}
