import { z } from 'zod';
import {
  detailsOf,
  DOCUMENT_KEYS,
  documentShape,
  invalid,
  parseShopDocument,
  type ShopDocument,
} from './shop-document';

/**
 * A change (PATCH, `shops update`): any key of the document but its id. A field is given whole;
 * a part (an object) gives the fields that change, checked once merged into the whole document;
 * null removes what the document may lack (an optional part, a field of a part).
 */
const shopPatchSchema = z.strictObject(
  Object.fromEntries(
    DOCUMENT_KEYS.map((key) => {
      const schema: z.ZodType = documentShape[key];
      const optional = schema.safeParse(undefined).success;
      const inner = schema instanceof z.ZodOptional ? (schema.unwrap() as z.ZodType) : schema;
      const part = inner instanceof z.ZodObject || inner instanceof z.ZodDiscriminatedUnion;
      const given = part ? z.looseObject({}) : inner;
      return [key, (optional ? given.nullable() : given).optional()];
    }),
  ),
);

/** Each key as given: a field's value, a part's changed fields, or null. */
type ShopPatch = Partial<Record<(typeof DOCUMENT_KEYS)[number], unknown>>;

export function parseShopPatch(input: unknown): ShopPatch {
  const parsed = shopPatchSchema.safeParse(input);
  if (!parsed.success) throw invalid(detailsOf(parsed.error));
  if (DOCUMENT_KEYS.every((key) => parsed.data[key] === undefined)) {
    const keys = DOCUMENT_KEYS.join(', ').replace(/, (\w+)$/, ' or $1');
    throw invalid([{ field: '(document)', problem: `changes nothing: give ${keys}` }]);
  }
  return parsed.data;
}

type Part = Record<string, unknown>;

/**
 * What a change makes of one key: unchanged when not given; removed when null; a field
 * replaced; a part merged field by field (`{"apiUrl": null}` removes one), or replaced whole when
 * it names another `name` (another provider's fields).
 */
function changed(now: unknown, change: unknown): unknown {
  if (change === undefined) return now;
  if (change === null || typeof change !== 'object') return change ?? undefined;
  const given = change as Part;
  const current = (now ?? {}) as Part;
  if (given.name !== undefined && current.name !== undefined && given.name !== current.name)
    return given;
  return Object.fromEntries(
    Object.entries({ ...current, ...given }).filter(([, value]) => value !== null),
  );
}

/** The document a change makes of `current`, checked whole. */
export function applyShopPatch(
  current: ShopDocument,
  patch: ShopPatch,
  apiOrigins: readonly string[],
): ShopDocument {
  const next: Part = { id: current.id };
  for (const key of DOCUMENT_KEYS) {
    const value = changed(current[key], patch[key]);
    if (value !== undefined) next[key] = value;
  }
  return parseShopDocument(next, apiOrigins);
}
