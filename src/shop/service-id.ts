import { z } from 'zod';

/*
 * The one range of a platform service id, from the route to the store (CONTRACT "One range for
 * `service_id`"): an integer of 1 to 15 digits, taken from here by every entry of an id, so
 * nothing is accepted that the store cannot read back; 15 digits stay exact in a number (2^53 has 16).
 */

const SERVICE_ID_MAX_DIGITS = 15;
export const MAX_SERVICE_ID = 10 ** SERVICE_ID_MAX_DIGITS - 1;
/** As the store's fields and keys hold it. */
export const SERVICE_ID_TEXT = /^\d{1,15}$/;
/** What every refusal of an id says it must be. */
export const SERVICE_ID_RULE = `a positive integer of at most ${SERVICE_ID_MAX_DIGITS} digits`;

export const serviceIdSchema = z.number().int().min(1).max(MAX_SERVICE_ID);

export function isServiceId(value: unknown): value is number {
  return (
    Number.isSafeInteger(value) && (value as number) >= 1 && (value as number) <= MAX_SERVICE_ID
  );
}

/** The service id that `text` writes out (leading zeros allowed), or undefined. */
export function serviceIdOfText(text: string): number | undefined {
  if (!SERVICE_ID_TEXT.test(text)) return undefined;
  const id = Number(text);
  return id >= 1 ? id : undefined;
}
