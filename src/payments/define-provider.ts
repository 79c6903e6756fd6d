import { z } from 'zod';
import type { RedisCommands } from '../infra/redis';
import type { PaymentOptions, ProviderOffer } from './payment-offer';
import type { ProviderApi } from './provider-api';
import type { ProviderModule } from './provider-module';

/**
 * What a provider's credentials are. Pasted keys today; `oauth` (tokens the connector refreshes)
 * and `client-certificate` (mutual TLS) are the kinds that come next.
 */
export type CredentialKind =
  | { kind: 'none' }
  | { kind: 'api-key' }
  | { kind: 'oauth'; tokenUrl: string; scopes: readonly string[] }
  | { kind: 'client-certificate' };

/** What every provider module is built with. */
export interface ProviderEnvironment {
  redis: RedisCommands;
  prefix: string;
  /** The shop the provider account is of. */
  shop: string;
  /** The scope of the shop's data keys (src/infra/keyspace.ts `shopScope`). */
  scope: string;
  publicUrl: string;
}

/** What every provider's settings carry besides its own: the shop's payment choice. */
export interface CommonSettings {
  /** A simulated provider may run under NODE_ENV=production (SANDBOX_IN_PRODUCTION=true). */
  sandboxInProduction: boolean;
  /** How customers may pay: the shop's choice, or what the provider offers. */
  payment: PaymentOptions;
}

type FieldShape = Record<string, z.ZodType>;

/** A provider's part of a shop's document: its name and its fields. */
export type DocumentOf<N extends string, F extends FieldShape> = z.output<
  z.ZodObject<{ name: z.ZodLiteral<N> } & F>
>;

/** One payment provider, declared once in its own folder and listed in providers.ts. */
export interface ProviderSpec<N extends string, F extends FieldShape, S extends { name: N }> {
  name: N;
  /** As people name it, in messages, with its spaces and capitals. */
  label: string;
  credential: CredentialKind;
  /** Its fields in a shop's document (`"provider": {"name": ..., <field>: ...}`). */
  fields: F;
  /** The fields that are secrets: stored encrypted, never shown nor logged. */
  secrets: readonly (keyof F & string)[];
  /** The variable that sets each field for the env shop (`<NAME>_SECRET_KEY`...). */
  variables: { readonly [K in keyof F]: string };
  /** Its official API hosts per environment; none for a provider the connector plays itself. */
  api?: ProviderApi;
  /** Payments are simulated: in production only with SANDBOX_IN_PRODUCTION=true. */
  simulated?: boolean;
  /** What customers may pay with it, and why no more. */
  offer: ProviderOffer;
  /** The settings its adapter is built with, from its document (`apiUrl` resolved). */
  settings(document: DocumentOf<N, F>, common: CommonSettings): S & CommonSettings;
  /** The adapter, with its start warnings. */
  build(settings: S & CommonSettings, environment: ProviderEnvironment): ProviderModule;
}

/** A field of a provider as a table row, for what iterates every field of every provider. */
export interface FieldRow {
  field: string;
  schema: z.ZodType;
  secret: boolean;
  variable: string;
}

export interface ProviderDescriptor<
  N extends string,
  F extends FieldShape,
  S extends { name: N },
> extends ProviderSpec<N, F, S> {
  /** Its part of a shop's document, unknown fields refused. */
  document: z.ZodObject<{ name: z.ZodLiteral<N> } & F, z.core.$strict>;
  rows: readonly FieldRow[];
}

/** A provider's descriptor, with its document schema and field table derived. */
export function defineProvider<N extends string, F extends FieldShape, S extends { name: N }>(
  spec: ProviderSpec<N, F, S>,
): ProviderDescriptor<N, F, S> {
  const secrets = new Set<string>(spec.secrets);
  const variables: Record<string, string> = spec.variables;
  const rows = Object.entries(spec.fields).map(([field, schema]) => ({
    field,
    schema,
    secret: secrets.has(field),
    variable: variables[field] ?? '',
  }));
  const shape: { name: z.ZodLiteral<N> } & F = { name: z.literal(spec.name), ...spec.fields };
  return { ...spec, document: z.strictObject(shape), rows };
}
