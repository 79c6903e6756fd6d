import { z } from 'zod';

/*
 * Every assumption about the shape of the platform's answers lives here (PLATFORM.md marks
 * them [doc], [seen] or [ours]). Two kinds of schema:
 * - the *read* schemas (`serviceSchema`, `serviceListSchema`) parse strictly only what the
 *   connector uses: ids, the status code, paging, the priced lines. A mismatch there is
 *   PLATFORM_BAD_RESPONSE. Every other field passes through exactly as the platform sent it.
 * - the *documented* schemas describe every block as PLATFORM.md knows it. They never reject an
 *   answer: `unexpectedFields` compares an answer with them, and the client logs what differs
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
const codeLike = z.union([z.string(), z.number().transform(String)]);

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

const price = { price: decimalLike.nullish() };
const priceAndQuantity = { ...price, quantity: decimalLike.nullish() };
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

// ---- Documented schemas: every known block, for the warnings only. ----

const optionalDate = platformDate.nullish();
const text = z.string().nullish();

export const serviceStatusSchema = z.looseObject({
  code: intLike,
  created_date: optionalDate,
  budgeted_date: optionalDate,
  purchased_date: optionalDate,
  authorized_date: optionalDate,
  finished_date: optionalDate,
});

/** GET /services with its light items: id, ERP code, status; no prices or parts [seen]. */
export const documentedServiceListSchema = z.looseObject({
  resource: z.array(
    z.looseObject({
      id: intLike,
      internal_code: codeLike.nullish(),
      status: serviceStatusSchema.nullish(),
    }),
  ),
});

const countedBy = (key: 'diameter' | 'thickness') =>
  z.array(z.looseObject({ [key]: decimalLike.nullish(), quantity: decimalLike.nullish() }));

const material = {
  internal_code: codeLike.nullish(),
  ...priceAndQuantity,
  description: text,
  thickness: decimalLike.nullish(),
};

/**
 * [ours] ServicePartInfo is not in the public reference; it is modelled on the platform's JSON
 * part import format, with the types its guide writes (PLATFORM.md): dimensions `c` (length)
 * and `l` (width) in mm, edge tapes on each side (a name or null), the board material, and
 * optional machining whose `startSide` and drill `corner` are numbers, `direction` and `face`
 * strings. More machining attributes exist (vertical drills...): unknown fields pass.
 */
export const servicePartSchema = z.looseObject({
  quantity: decimalLike.nullish(),
  c: decimalLike.nullish(),
  l: decimalLike.nullish(),
  function: text,
  complement: text,
  material: codeLike.nullish(),
  c1: text,
  c2: text,
  l1: text,
  l2: text,
  machining: z
    .looseObject({
      x: decimalLike.nullish(),
      y: decimalLike.nullish(),
      z: decimalLike.nullish(),
      startSide: decimalLike.nullish(),
      horizontalDrills: z
        .array(
          z.looseObject({
            corner: decimalLike.nullish(),
            direction: text,
            x: decimalLike.nullish(),
            y: decimalLike.nullish(),
            z: decimalLike.nullish(),
            depth: decimalLike.nullish(),
            diameter: decimalLike.nullish(),
            face: text,
          }),
        )
        .nullish(),
    })
    .nullish(),
});

/** GET /services/:id with every block PLATFORM.md knows [doc fields; `parts` per SPEC.md]. */
export const documentedServiceSchema = z.looseObject({
  id: intLike,
  internal_code: codeLike.nullish(),
  observation: text,
  status: serviceStatusSchema.nullish(),
  client: z.looseObject({ internal_code: codeLike.nullish() }).nullish(),
  labour: z
    .looseObject({
      cutting: z.looseObject(priceAndQuantity).nullish(),
      edging: z.looseObject(priceAndQuantity).nullish(),
      machining: z
        .looseObject({
          ...price,
          resume: z
            .looseObject({
              drills: countedBy('diameter').nullish(),
              rip: countedBy('thickness').nullish(),
              filister: countedBy('thickness').nullish(),
            })
            .nullish(),
        })
        .nullish(),
      packing: z.looseObject(price).nullish(),
      delivery: z.looseObject(price).nullish(),
    })
    .nullish(),
  materials: z
    .looseObject({
      boards: z
        .array(
          z.looseObject({
            ...material,
            parts: intLike.nullish(),
            length: decimalLike.nullish(),
            width: decimalLike.nullish(),
          }),
        )
        .nullish(),
      edges: z
        .array(
          z.looseObject({
            ...material,
            width: decimalLike.nullish(),
            unit: text,
            applied: decimalLike.nullish(),
          }),
        )
        .nullish(),
      components: z.array(z.looseObject({ ...material, unit: text })).nullish(),
    })
    .nullish(),
  parts: z.array(servicePartSchema).nullish(),
});

/** One field of an answer that is not what the documentation says, e.g. `parts[].c`. */
export interface UnexpectedField {
  field: string;
  problem: string;
}

/**
 * Where `value` differs from the documented `schema`: the path of each field with array
 * indices folded (`parts[].machining`), and the problem. Never the value itself.
 */
export function unexpectedFields(schema: z.ZodType, value: unknown): UnexpectedField[] {
  const result = schema.safeParse(value);
  if (result.success) return [];
  const seen = new Set<string>();
  const fields: UnexpectedField[] = [];
  for (const issue of result.error.issues) {
    const field = fieldPath(issue.path);
    if (seen.has(field)) continue;
    seen.add(field);
    fields.push({ field, problem: issue.message });
  }
  return fields;
}

function fieldPath(path: readonly PropertyKey[]): string {
  let text = '';
  for (const key of path) {
    if (typeof key === 'number') text += '[]';
    else text += text === '' ? String(key) : `.${String(key)}`;
  }
  return text || '(body)';
}

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

export type ServiceStatus = z.output<typeof serviceStatusSchema>;
export type ServiceListItem = z.output<typeof serviceListItemSchema>;
export type ServiceIdentity = z.output<typeof serviceIdentitySchema>;
/** A service as read: typed where the connector uses it, every other field as it came. */
export type Service = z.output<typeof serviceSchema>;
export type ServicePartInfo = z.output<typeof servicePartSchema>;
