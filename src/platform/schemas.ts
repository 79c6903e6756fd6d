import { z } from 'zod';

/*
 * Every assumption about the shape of the platform's answers lives here (docs/platform.md marks
 * them [doc], [seen] or [ours]). Two kinds of schema:
 * - the *read* schemas (`serviceSchema`, `serviceListSchema`) parse strictly only what the
 *   connector uses: ids, the status code, paging, the priced lines. A mismatch there is
 *   PLATFORM_BAD_RESPONSE. Every other field passes through exactly as the platform sent it.
 * - the *documented* schemas describe every block as docs/platform.md knows it. They never reject
 *   an answer: `unexpectedFields` compares an answer with them, and the client logs what differs
 *   once as a warning. Numbers may arrive as numeric strings (DreamFactory often does that).
 */

/** An integer, or a string of digits. */
export const intLike = z.union([
  z.number().int(),
  z
    .string()
    .regex(/^-?\d+$/, 'expected an integer')
    .transform(Number),
]);

/** A decimal number, or a string holding one ("12.50"). */
export const decimalLike = z.union([
  z.number(),
  z
    .string()
    .regex(/^-?\d+(\.\d+)?$/, 'expected a number')
    .transform(Number),
]);

/** A code the platform or the ERP chose: a string, though numbers are seen too. */
export const codeLike = z.union([z.string(), z.number().transform(String)]);

/**
 * [ours] Dates without a zone ("YYYY-MM-DD HH:MM:SS", seen in real answers) are Brasília time,
 * UTC-03:00 all year since 2019. ISO-8601 with a zone (the reference example) is taken as is.
 * Either way the result is an ISO-8601 UTC string.
 */
export const PLATFORM_LOCAL_OFFSET = '-03:00';
const ZONELESS = /^(\d{4}-\d{2}-\d{2})[ T](\d{2}:\d{2}(?::\d{2}(?:\.\d+)?)?)$/;
const DATE_ONLY = /^\d{4}-\d{2}-\d{2}$/;

/** A platform date as ISO-8601 UTC, or undefined when the text is not a date. */
export function platformDateIso(text: string): string | undefined {
  const zoneless = ZONELESS.exec(text);
  const iso = zoneless
    ? `${zoneless[1]}T${zoneless[2]}${PLATFORM_LOCAL_OFFSET}`
    : DATE_ONLY.test(text)
      ? `${text}T00:00:00${PLATFORM_LOCAL_OFFSET}`
      : text;
  const date = new Date(iso);
  return Number.isNaN(date.getTime()) ? undefined : date.toISOString();
}

export const platformDate = z.string().transform((text, ctx) => {
  const iso = platformDateIso(text);
  if (iso === undefined) {
    ctx.addIssue({ code: 'custom', message: 'expected a date' });
    return z.NEVER;
  }
  return iso;
});

/** Status codes with known names [doc names, seen codes]; others are valid too. */
export const SERVICE_STATUS_NAMES: Readonly<Record<number, string>> = {
  4: 'quote generated',
  6: 'approved',
  7: 'sent to production',
  9: 'produced',
};

// ---- Read schemas: what the connector uses, parsed strictly; the rest passes through. ----

export const price = { price: decimalLike.nullish() };
export const priceAndQuantity = { ...price, quantity: decimalLike.nullish() };
const pricedItems = z.array(z.looseObject(priceAndQuantity)).nullish();

/** GET /services/:id as the checkout reads it: the id, the status code and the priced lines. */
export const serviceSchema = z.looseObject({
  id: intLike,
  status: z.looseObject({ code: intLike }).nullish(),
  labour: z
    .looseObject({
      cutting: z.looseObject(price).nullish(),
      edging: z.looseObject(price).nullish(),
      machining: z.looseObject(price).nullish(),
      packing: z.looseObject(price).nullish(),
      delivery: z.looseObject(price).nullish(),
    })
    .nullish(),
  materials: z
    .looseObject({ boards: pricedItems, edges: pricedItems, components: pricedItems })
    .nullish(),
});

/**
 * GET /services/:id as the ERP sync reads it: the id and the status; the rest goes to the ERP as
 * the platform sent it, unread (a service whose prices are odd still reaches the ERP).
 */
export const serviceIdentitySchema = z.looseObject({
  id: intLike,
  status: z.looseObject({ code: intLike }).nullish(),
});

/** One item of GET /services as read: only the id is required to make sense. */
export const serviceListItemSchema = z.looseObject({ id: intLike });

/** GET /services: items in `resource`, paging in `meta` [doc meta.next, seen resource]. */
export const serviceListSchema = z.looseObject({
  resource: z.array(serviceListItemSchema),
  meta: z.looseObject({
    count: intLike.nullish(),
    // A missing `next` is read as the last page.
    next: intLike.nullish(),
  }),
});

// ---- Reading fields that pass through as they came. ----

/** A field shown as text: strings as they are, numbers written out, anything else undefined. */
export function textOf(value: unknown): string | undefined {
  if (typeof value === 'string') return value;
  if (typeof value === 'number' && Number.isFinite(value)) return String(value);
  return undefined;
}

/** A status code read from a status block that passed through; undefined when unreadable. */
export function statusCodeOf(status: unknown): number | undefined {
  if (!status || typeof status !== 'object') return undefined;
  const code = intLike.safeParse((status as { code?: unknown }).code);
  return code.success ? code.data : undefined;
}

/** A platform date as ISO-8601 UTC when it reads as one; otherwise its text as it came. */
export function dateTextOf(value: unknown): string | undefined {
  return (typeof value === 'string' ? platformDateIso(value) : undefined) ?? textOf(value);
}

/** DreamFactory's error body [seen]. */
export const platformErrorSchema = z.looseObject({
  error: z.looseObject({
    message: z.string().optional(),
    code: z.union([z.string(), z.number()]).optional(),
    status_code: z.number().optional(),
  }),
});

export type ServiceListItem = z.output<typeof serviceListItemSchema>;
export type ServiceIdentity = z.output<typeof serviceIdentitySchema>;
/** A service as read: typed where the connector uses it, every other field as it came. */
export type Service = z.output<typeof serviceSchema>;
