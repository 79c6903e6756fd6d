import { z } from 'zod';
import { PROVIDERS, type ProviderName } from '../payments/providers';

/** One field of a shop's document, as everything that walks a document sees it. */
export interface ShopField {
  /** Its path in the document: `name`, `platform.password`, `provider.accessToken`, `payment.methods`. */
  path: string;
  /** Stored sealed with the shop's data key, never shown, never logged. */
  secret: boolean;
  /** The variable that sets it for the env shop, when one does. */
  env?: string;
  /** What it is, for the docs (docs/shops.md, "The shop document's fields", generated). */
  description: string;
}

interface FieldMeta {
  secret?: boolean;
  env?: string;
  description?: string;
}

/** What a field's schema says of it (zod's metadata), through optional and transform wrappers. */
function metaOf(schema: z.ZodType): FieldMeta {
  let inner: unknown = schema;
  for (let depth = 0; depth < 8 && inner; depth++) {
    const meta = (inner as z.ZodType).meta() as FieldMeta | undefined;
    if (meta) return meta;
    const def = (inner as { def?: { innerType?: unknown; in?: unknown } }).def;
    inner = def?.innerType ?? def?.in;
  }
  return {};
}

/** A field of the document's own (`name`), or of a part, from its schema and metadata. */
function fieldOf(path: string, schema: z.ZodType): ShopField {
  const meta = metaOf(schema);
  return {
    path,
    secret: meta.secret === true,
    ...(meta.env ? { env: meta.env } : {}),
    description: meta.description ?? schema.description ?? '',
  };
}

/**
 * Every field a shop of `provider` may have, in document order, from the document's shape: a
 * field of its own (`name`) as it is, a part (`platform`, `payment`) field by field, and the
 * provider's part from its descriptor (src/payments/<name>/). What is secret, and the variable
 * that sets it for the env shop, are the schemas' metadata (`.meta({ secret, env,
 * description })`). Sealing, opening, the view, the audit trail's field names, the secrets
 * handed to the logger and the docs all walk this list: a field is declared once.
 */
export function shopFields(shape: Record<string, z.ZodType>, provider: ProviderName): ShopField[] {
  return Object.entries(shape).flatMap(([key, schema]): ShopField[] => {
    if (key === 'provider') {
      return [
        {
          path: 'provider.name',
          secret: false,
          env: 'PAYMENT_PROVIDER',
          description: "Its payment provider; the fields below it are that provider's.",
        },
        // Its pasted fields, then those a connection adds (a field both have, once).
        ...[
          ...PROVIDERS[provider].rows,
          ...PROVIDERS[provider].connectedRows.filter(
            (row) => !PROVIDERS[provider].rows.some((pasted) => pasted.field === row.field),
          ),
        ].map((row) => ({
          path: `provider.${row.field}`,
          secret: row.secret,
          ...(row.variable ? { env: row.variables.join('+') } : {}),
          description: row.schema.description ?? '',
        })),
      ];
    }
    const inner = schema instanceof z.ZodOptional ? (schema.unwrap() as z.ZodType) : schema;
    if (inner instanceof z.ZodObject) {
      return Object.entries(inner.shape as Record<string, z.ZodType>).map(([field, part]) =>
        fieldOf(`${key}.${field}`, part),
      );
    }
    return [fieldOf(key, schema)];
  });
}

type Part = Record<string, unknown>;

/** The value at a field's path; undefined where the document has none. */
export function valueAt(document: object, path: string): unknown {
  const [head = '', field] = path.split('.');
  const value = (document as Part)[head];
  if (field === undefined) return value;
  return typeof value === 'object' && value !== null ? (value as Part)[field] : undefined;
}

/**
 * A copy of `document` with each of `fields` present replaced by `map(path, value)`, or left out
 * where that is undefined (its parts copied, never changed in place); a field the document lacks
 * stays absent.
 */
export function mapFields<T extends object>(
  document: T,
  fields: readonly ShopField[],
  map: (path: string, value: unknown) => unknown,
): T {
  const copy: Part = { ...(document as Part) };
  for (const { path } of fields) {
    const value = valueAt(document, path);
    if (value === undefined) continue;
    const [head = '', field] = path.split('.');
    const mapped = map(path, value);
    if (field === undefined) {
      if (mapped === undefined) delete copy[head];
      else copy[head] = mapped;
      continue;
    }
    if (copy[head] === (document as Part)[head]) copy[head] = { ...(copy[head] as Part) };
    if (mapped === undefined) delete (copy[head] as Part)[field];
    else (copy[head] as Part)[field] = mapped;
  }
  return copy as T;
}

/** The fields `document` sets, by path: what an add records in the audit trail. */
export function fieldsSet(document: object, fields: readonly ShopField[]): string[] {
  return fields.filter(({ path }) => valueAt(document, path) !== undefined).map((f) => f.path);
}
