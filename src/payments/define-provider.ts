import { z } from 'zod';
import type { RedisCommands } from '../redis/redis';
import type { DeclaredFlow } from './define-connect-flow';
import type { PaymentOptions, ProviderOffer } from './payment-offer';
import type { DeclaredPages } from './provider-pages';
import type { ProviderApi } from './provider-api';
import type { ProviderModule } from './provider-module';
import type { VendorAccounts } from './vendor-accounts';

/** What a provider's pasted credentials are: none (the sandbox), or keys from its panel. */
export type CredentialKind = { kind: 'none' } | { kind: 'api-key' };

/**
 * How a shop's provider account is connected without pasted keys: `oauth` (the vendor's
 * application, tokens renewed), `subaccount` (made by the vendor's account), `connect` (a
 * connected account of the vendor's platform account).
 */
export type ConnectionKind = 'oauth' | 'subaccount' | 'connect';

/** The fields every connected provider document has, whatever the provider. */
export function connectionShape<K extends ConnectionKind>(kind: K) {
  return {
    connection: z
      .literal(kind)
      .describe(`\`${kind}\`: connected by a link (\`shops connect\`), not by pasted keys.`),
    account: z
      .string()
      .min(1)
      .max(100)
      .describe("The provider's id of the connected account (set by connecting)."),
    connectedAt: z.iso.datetime().describe('When the owner connected it (set by connecting).'),
    expiresAt: z.iso
      .datetime()
      .optional()
      .describe(
        'When its credential expires, where it does; a token that renews itself is renewed `CREDENTIAL_RENEW_BEFORE` ahead.',
      ),
  };
}

type ConnectionShape<K extends ConnectionKind> = ReturnType<typeof connectionShape<K>>;

/** A provider refused to renew a connected account's credential for good: connect again. */
export class ConnectionRevokedError extends Error {
  constructor(
    readonly provider: string,
    readonly providerError: string,
  ) {
    super(
      `${provider} refused to renew the connection (${providerError}): the shop must connect again`,
    );
    this.name = 'ConnectionRevokedError';
  }
}

export interface ConnectionSpec<N extends string, C extends FieldShape> {
  kind: ConnectionKind;
  /** Its fields besides `connection`, `account`, `connectedAt`, `expiresAt` (tokens, keys). */
  fields: C;
  secrets: readonly (keyof C & string)[];
  /** The credential's kind in `connector_credential_expiry_timestamp_seconds{kind}`. */
  credential: string;
  flow: DeclaredFlow;
  /**
   * Renews an expiring credential (OAuth tokens): the document with the new one, stored before
   * use. ConnectionRevokedError when the provider refuses for good.
   */
  renew?(
    document: ConnectedDocumentOf<N, C>,
    vendor: VendorAccounts,
    now: () => Date,
  ): Promise<ConnectedDocumentOf<N, C>>;
}

export interface ProviderEnvironment {
  redis: RedisCommands;
  prefix: string;
  /** The shop the provider account is of. */
  shop: string;
  /** The scope of the shop's data keys (src/redis/keyspace.ts `shopScope`). */
  scope: string;
  publicUrl: string;
}

/** What every provider's settings carry besides its own: the shop's payment choice. */
export interface CommonSettings {
  /** The vendor's accounts (a connected shop is served with them) and its fee. */
  vendor: VendorAccounts;
  /** A simulated provider may run under NODE_ENV=production (SANDBOX_IN_PRODUCTION=true). */
  sandboxInProduction: boolean;
  /** How customers may pay: the shop's choice, or what the provider offers. */
  payment: PaymentOptions;
  /** A pasted credential that expires (an API Pix certificate), for the expiry gauge. */
  credentialExpiry?: { kind: string; expiresAt: string };
}

type FieldShape = Record<string, z.ZodType>;

export type PastedDocumentOf<N extends string, F extends FieldShape> = z.output<
  z.ZodObject<{ name: z.ZodLiteral<N> } & F>
> & { connection?: undefined };

export type ConnectedDocumentOf<N extends string, C extends FieldShape> = [C] extends [never]
  ? never
  : z.output<z.ZodObject<{ name: z.ZodLiteral<N> } & ConnectionShape<ConnectionKind> & C>>;

export type DocumentOf<N extends string, F extends FieldShape, C extends FieldShape = never> =
  PastedDocumentOf<N, F> | ConnectedDocumentOf<N, C>;

/** One payment provider, declared once in its own folder and listed in providers.ts. */
export interface ProviderSpec<
  N extends string,
  F extends FieldShape,
  S extends { name: N },
  C extends FieldShape = never,
> {
  name: N;
  /** As people name it, in messages, with its spaces and capitals. */
  label: string;
  credential: CredentialKind;
  /** How a shop's account is connected without pasted keys, where the provider allows it. */
  connection?: ConnectionSpec<N, C>;
  /** Its fields in a shop's document (`"provider": {"name": ..., <field>: ...}`). */
  fields: F;
  /** The fields that are secrets: stored encrypted, never shown nor logged. */
  secrets: readonly (keyof F & string)[];
  /**
   * The variable that sets each field for the env shop (`<NAME>_SECRET_KEY`...); a field kept in
   * files (a certificate) names its file variables, whose contents make the field, in `files`.
   */
  variables: { readonly [K in keyof F]: string | FileVariables };
  /**
   * Cross-field rules of a pasted document (one field or another, one field given another): a
   * problem per field, checked wherever the document is (the admin API, the env shop, `migrate`).
   */
  check?(document: PastedDocumentOf<N, F>): Array<{ field: keyof F & string; problem: string }>;
  /** Its official API hosts per environment; none for a provider the connector plays itself. */
  api?: ProviderApi;
  /** Payments are simulated: in production only with SANDBOX_IN_PRODUCTION=true, said. */
  simulated?: { inProduction: string; pageNotice: string };
  /**
   * What the provider appends to the webhook URL it is given (the API Pix appends `/pix` to
   * `/webhooks/pix/<shop>`): its calls also arrive at `/webhooks/<name>/<shop>/<suffix>`.
   */
  webhookSuffix?: string;
  /** Pages of its own the connector serves (a payment page): their paths and routes. */
  pages?: DeclaredPages;
  /** What customers may pay with it, and why no more. */
  offer: ProviderOffer;
  /** The settings its adapter is built with, from its document (`apiUrl` resolved). */
  settings(document: DocumentOf<N, F, C>, common: CommonSettings): S & CommonSettings;
  /** The adapter, what its pages read and the customer pages' banner, if any. */
  build(settings: S & CommonSettings, environment: ProviderEnvironment): ProviderModule;
}

/**
 * A field the env shop reads from files, each variable naming one (a certificate, then its key):
 * their contents, one after the other (`pem`), or the one file in base64 (`base64`: PKCS#12).
 */
export interface FileVariables {
  /** Each file's variable, with what the file holds (its variable's description). */
  files: readonly [FileVariable, ...FileVariable[]];
  encoding: 'pem' | 'base64';
}

export interface FileVariable {
  name: string;
  description: string;
}

/** A field of a provider as a table row, for what iterates every field of every provider. */
export interface FieldRow {
  field: string;
  schema: z.ZodType;
  secret: boolean;
  /** The variable that sets it for the env shop (the first file's, for a field kept in files). */
  variable: string;
  /** Every variable that sets it: the one, or its files'. */
  variables: readonly string[];
  /** How its files make the field, for a field kept in files. */
  file?: FileVariables['encoding'];
  /** What each of its files holds, for a field kept in files (as `variables`). */
  fileDescriptions?: readonly string[];
}

export interface ProviderDescriptor<
  N extends string,
  F extends FieldShape,
  S extends { name: N },
  C extends FieldShape = never,
> extends ProviderSpec<N, F, S, C> {
  /** Its part of a shop's document: pasted keys, or a connected account's (by `connection`). */
  document: z.ZodType<DocumentOf<N, F, C>>;
  /** Its pasted fields, each with the variable that sets it for the env shop. */
  rows: readonly FieldRow[];
  /** The fields a connection adds (no variable: the env shop is never connected). */
  connectedRows: readonly FieldRow[];
}

function rowsOf(
  fields: FieldShape,
  secretList: readonly string[],
  variables: Record<string, string | FileVariables>,
): FieldRow[] {
  const secrets = new Set(secretList);
  return Object.entries(fields).map(([field, schema]) => {
    const named = variables[field] ?? '';
    const row = { field, schema, secret: secrets.has(field) };
    if (typeof named === 'string') return { ...row, variable: named, variables: [named] };
    const names = named.files.map((file) => file.name);
    return {
      ...row,
      variable: named.files[0].name,
      variables: names,
      file: named.encoding,
      fileDescriptions: named.files.map((file) => file.description),
    };
  });
}

/** Marks the issues of a descriptor's `check` (its rules across fields) among a schema's. */
export const CROSS_FIELD = { crossField: true } as const;

/** A provider's descriptor, with its document schema and field tables derived. */
export function defineProvider<
  N extends string,
  F extends FieldShape,
  S extends { name: N },
  C extends FieldShape = never,
>(spec: ProviderSpec<N, F, S, C>): ProviderDescriptor<N, F, S, C> {
  const rows = rowsOf(spec.fields, spec.secrets, spec.variables);
  const checked = <T extends z.ZodObject>(schema: T): T =>
    spec.check === undefined
      ? schema
      : schema.superRefine((document, context) => {
          for (const { field, problem } of spec.check?.(document as PastedDocumentOf<N, F>) ?? [])
            context.addIssue({
              code: 'custom',
              path: [field],
              message: problem,
              params: CROSS_FIELD,
            });
        });
  const pasted = z.strictObject({ name: z.literal(spec.name), ...spec.fields });
  const { connection } = spec;
  if (!connection) {
    const document = checked(pasted) as z.ZodType<DocumentOf<N, F, C>>;
    return { ...spec, document, rows, connectedRows: [] };
  }
  const connectedShape = { ...connectionShape(connection.kind), ...connection.fields };
  const connectedRows = rowsOf(connectedShape, connection.secrets, {});
  const connected = z.strictObject({ name: z.literal(spec.name), ...connectedShape });
  const document = z.discriminatedUnion('connection', [
    checked(pasted.extend({ connection: z.undefined().optional() })),
    connected,
  ]) as z.ZodType<DocumentOf<N, F, C>>;
  return { ...spec, document, rows, connectedRows };
}

export function isConnected<D extends { connection?: unknown }>(
  document: D,
): document is D & {
  connection: ConnectionKind;
  account: string;
  connectedAt: string;
  expiresAt?: string;
} {
  return typeof document.connection === 'string';
}
