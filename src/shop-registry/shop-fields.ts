import { z } from 'zod';
import { PROVIDERS, type ProviderName } from '../payments/providers';

/** One field of a shop's document, as everything that walks a document sees it. */
export interface ShopField {
  /** `name`, `platform.password`, `provider.accessToken`... */
  path: string;
  /** Stored sealed with the shop's data key, never shown, never logged. */
  secret: boolean;
  /** The variable that sets it for the env shop. */
  env?: string;
  description: string;
}

type FieldMeta = Partial<Omit<ShopField, 'path'>>;

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
 * Every field a shop of `provider` may have, in document order: a part (`platform`) field by
 * field, the provider's from its descriptor, the rest from the schemas' `.meta({ secret, env,
 * description })`. Sealing, the view, the audit, the logger's secrets and the docs walk this list.
 */
export function shopFields(shape: Record<string, z.ZodType>, provider: ProviderName): ShopField[] {
  const { rows, connectedRows } = PROVIDERS[provider];
  const pasted = new Set(rows.map((row) => row.field));
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
        ...[...rows, ...connectedRows.filter((row) => !pasted.has(row.field))].map((row) => ({
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

export function valueAt(document: object, path: string): unknown {
  const [head = '', field] = path.split('.');
  const value = (document as Part)[head];
  if (field === undefined) return value;
  return typeof value === 'object' && value !== null ? (value as Part)[field] : undefined;
}

/** A copy of `document` with each field present mapped, or left out where `map` gives undefined. */
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

/** The paths of the fields `document` sets: what an add records in the audit trail. */
export function fieldsSet(document: object, fields: readonly ShopField[]): string[] {
  return fields.filter(({ path }) => valueAt(document, path) !== undefined).map((f) => f.path);
}
