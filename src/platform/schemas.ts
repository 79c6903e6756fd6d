import { z } from 'zod';

/*
 * Every assumption about the shape of the platform's answers lives here (PLATFORM.md marks
 * them [doc], [seen] or [ours]). Schemas are lenient: unknown fields pass through, optional
 * blocks may be missing, numbers may arrive as numeric strings (DreamFactory often does that).
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

export const platformDate = z.string().transform((text, ctx) => {
  const zoneless = ZONELESS.exec(text);
  const iso = zoneless
    ? `${zoneless[1]}T${zoneless[2]}${PLATFORM_LOCAL_OFFSET}`
    : DATE_ONLY.test(text)
      ? `${text}T00:00:00${PLATFORM_LOCAL_OFFSET}`
      : text;
  const date = new Date(iso);
  if (Number.isNaN(date.getTime())) {
    ctx.addIssue({ code: 'custom', message: 'expected a date' });
    return z.NEVER;
  }
  return date.toISOString();
});

const optionalDate = platformDate.nullish();

/** Status codes with known names [doc names, seen codes]; others are valid too. */
export const SERVICE_STATUS_NAMES: Readonly<Record<number, string>> = {
  4: 'quote generated',
  6: 'approved',
  7: 'sent to production',
  9: 'produced',
};

export const serviceStatusSchema = z.looseObject({
  code: intLike,
  created_date: optionalDate,
  budgeted_date: optionalDate,
  purchased_date: optionalDate,
  authorized_date: optionalDate,
  finished_date: optionalDate,
});

/** One item of GET /services: light, no prices or parts [seen]. */
export const serviceListItemSchema = z.looseObject({
  id: intLike,
  internal_code: codeLike.nullish(),
  status: serviceStatusSchema.nullish(),
});

/** GET /services: items in `resource`, paging in `meta` [doc meta.next, seen resource]. */
export const serviceListSchema = z.looseObject({
  resource: z.array(serviceListItemSchema),
  meta: z.looseObject({
    count: intLike.nullish(),
    // A missing `next` is read as the last page.
    next: intLike.nullish(),
  }),
});

const priced = { price: decimalLike.nullish() };
const pricedQuantity = { ...priced, quantity: decimalLike.nullish() };
const countedBy = (key: 'diameter' | 'thickness') =>
  z.array(z.looseObject({ [key]: decimalLike.nullish(), quantity: decimalLike.nullish() }));

export const labourSchema = z.looseObject({
  cutting: z.looseObject(pricedQuantity).nullish(),
  edging: z.looseObject(pricedQuantity).nullish(),
  machining: z
    .looseObject({
      ...priced,
      resume: z
        .looseObject({
          drills: countedBy('diameter').nullish(),
          rip: countedBy('thickness').nullish(),
          filister: countedBy('thickness').nullish(),
        })
        .nullish(),
    })
    .nullish(),
  packing: z.looseObject(priced).nullish(),
  delivery: z.looseObject(priced).nullish(),
});

const material = {
  internal_code: codeLike.nullish(),
  ...pricedQuantity,
  description: z.string().nullish(),
  thickness: decimalLike.nullish(),
};

export const materialsSchema = z.looseObject({
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
        unit: z.string().nullish(),
        applied: decimalLike.nullish(),
      }),
    )
    .nullish(),
  components: z.array(z.looseObject({ ...material, unit: z.string().nullish() })).nullish(),
});

/**
 * [ours] ServicePartInfo is not in the public reference; it is modelled on the platform's JSON
 * part import format: dimensions `c` (length) and `l` (width) in mm, edge tapes on each side,
 * the board material, and optional machining with horizontal drills.
 */
export const servicePartSchema = z.looseObject({
  quantity: intLike.nullish(),
  c: decimalLike.nullish(),
  l: decimalLike.nullish(),
  function: z.string().nullish(),
  complement: z.string().nullish(),
  material: codeLike.nullish(),
  c1: z.string().nullish(),
  c2: z.string().nullish(),
  l1: z.string().nullish(),
  l2: z.string().nullish(),
  machining: z
    .looseObject({
      x: decimalLike.nullish(),
      y: decimalLike.nullish(),
      z: decimalLike.nullish(),
      startSide: z.string().nullish(),
      horizontalDrills: z
        .array(
          z.looseObject({
            corner: z.string().nullish(),
            direction: z.string().nullish(),
            x: decimalLike.nullish(),
            y: decimalLike.nullish(),
            z: decimalLike.nullish(),
            depth: decimalLike.nullish(),
            diameter: decimalLike.nullish(),
            face: z.string().nullish(),
          }),
        )
        .nullish(),
    })
    .nullish(),
});

/** GET /services/:id [doc fields; `parts` per SPEC.md]. */
export const serviceSchema = z.looseObject({
  id: intLike,
  internal_code: codeLike.nullish(),
  observation: z.string().nullish(),
  status: serviceStatusSchema.nullish(),
  client: z.looseObject({ internal_code: codeLike.nullish() }).nullish(),
  labour: labourSchema.nullish(),
  materials: materialsSchema.nullish(),
  parts: z.array(servicePartSchema).nullish(),
});

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
export type Service = z.output<typeof serviceSchema>;
export type ServicePartInfo = z.output<typeof servicePartSchema>;
