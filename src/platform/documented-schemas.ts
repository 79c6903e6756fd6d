import { z } from 'zod';
import { codeLike, decimalLike, intLike, platformDate, price, priceAndQuantity } from './schemas';

/*
 * The *documented* schemas (see schemas.ts): every block of the platform's answers as
 * docs/platform.md knows it. They never reject an answer: `unexpectedFields` compares an answer
 * with them, and the client logs what differs once as a warning.
 */

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
 * part import format, with the types its guide writes (docs/platform.md): dimensions `c` (length)
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

/** GET /services/:id with every block docs/platform.md knows [doc fields; `parts` per the spec]. */
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

export type ServiceStatus = z.output<typeof serviceStatusSchema>;
export type ServicePartInfo = z.output<typeof servicePartSchema>;
