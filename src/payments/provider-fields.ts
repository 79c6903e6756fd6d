import { z } from 'zod';
import { CROSS_FIELD } from './define-provider';
import { paymentOptionsOf, type PaymentChoice } from './payment-options';
import { apiUrlProblem } from './provider-hosts';
import { NO_VENDOR, type VendorAccounts } from './vendor-accounts';
import {
  PROVIDER_LIST,
  PROVIDER_NAMES,
  PROVIDERS,
  settingsFor,
  type DocumentMap,
  type ProviderName,
  type SettingsMap,
} from './providers';

/**
 * Each provider's settings, derived from its descriptor (src/payments/providers.ts): the
 * environment's variables (`<NAME>_SECRET_KEY`) and a registry shop's document
 * (`"provider": {"name": ..., "secretKey": ...}`) are checked by the same field schemas.
 */

export { httpUrl } from './provider-hosts';
export { PROVIDER_NAMES, type ProviderName } from './providers';

/** The providers as a choice says them: `a, b or c`, in the list's order. */
export const PROVIDER_CHOICE = `${PROVIDER_NAMES.slice(0, -1).join(', ')} or ${PROVIDER_NAMES.at(-1)}`;

/** The list's items as zod wants a union's options: at least one. */
function nonEmpty<T>(items: readonly T[]): [T, ...T[]] {
  const [first, ...rest] = items;
  if (first === undefined) throw new Error('no payment provider is listed');
  return [first, ...rest];
}

/** The `provider` of a shop's document: its name and that provider's fields, nothing else. */
export const providerDocumentSchema = z.discriminatedUnion(
  'name',
  // Each a strict object, or (a provider that can be connected) a union of two told apart by
  // `connection`: zod reads the nested union's `name` as its options'.
  nonEmpty(PROVIDER_LIST.map((provider) => provider.document)) as [
    z.ZodObject<{ name: z.ZodLiteral<string> }>,
  ],
) as z.ZodType<ProviderDocument>;

export type ProviderDocument = DocumentMap[ProviderName];

/** A shop's provider as the adapters are built with it (src/payments/build-provider.ts). */
export type ProviderSettings = SettingsMap[ProviderName];

/** A provider document's fields that name a host its secrets are sent to. */
const URL_FIELDS = ['apiUrl', 'tokenUrl'] as const;

/**
 * What is wrong with a provider document's `apiUrl` (or `tokenUrl`, where the provider has one:
 * the API Pix sends its client secret there) in this deployment (`listed`: the origins of
 * PROVIDER_API_ORIGINS): the first field whose host is not allowed, or undefined.
 */
export function providerApiProblem(
  provider: { name: string; apiUrl?: string; tokenUrl?: string },
  listed: readonly string[],
): { field: (typeof URL_FIELDS)[number]; url: string; problem: string } | undefined {
  const api = PROVIDER_LIST.find((descriptor) => descriptor.name === provider.name)?.api;
  if (!api) return undefined;
  for (const field of URL_FIELDS) {
    const url = provider[field];
    if (url === undefined) continue;
    const problem = apiUrlProblem(api, url, listed);
    if (problem) return { field, url, problem };
  }
  return undefined;
}

/** Whether a provider only simulates payments (the sandbox): refused in production unless allowed. */
export function isSimulated(name: ProviderName): boolean {
  return PROVIDERS[name].simulated !== undefined;
}

/** The settings a provider document (a registry shop's) stands for, with the shop's payment choice. */
export function providerSettingsOf(
  document: ProviderDocument,
  sandboxInProduction: boolean,
  choice: PaymentChoice = {},
  vendor: VendorAccounts = NO_VENDOR,
): ProviderSettings {
  const common = {
    vendor,
    sandboxInProduction: isSimulated(document.name) && sandboxInProduction,
    payment: paymentOptionsOf(document.name, choice),
  };
  return settingsFor(document.name, document, common);
}

/** The variable of a provider's field, as its descriptor names it (`<NAME>_WEBHOOK_SECRET`). */
export function providerVariable(name: ProviderName, field: string): string {
  const row = PROVIDERS[name].rows.find((candidate) => candidate.field === field);
  // A field the provider does not have: the variable it would be, which nothing sets.
  return (
    row?.variable ??
    `${name.toUpperCase()}_${field.replace(/[A-Z]/g, (c) => `_${c}`).toUpperCase()}`
  );
}

/** The variables a provider cannot do without (its fields that are not optional). */
export function requiredProviderVariables(name: ProviderName): string[] {
  return PROVIDERS[name].rows
    .filter((row) => !row.schema.safeParse(undefined).success)
    .map((row) => row.variable);
}

/** The provider document the environment's variables stand for (checked by the same schema). */
export function providerDocumentFromEnv(
  name: ProviderName,
  env: Record<string, unknown>,
): ProviderDocument {
  return providerDocumentSchema.parse(envDocumentInput(name, env));
}

/**
 * What the document's own rules say of the environment's variables, each problem on the variable
 * of its field (a certificate without its key: PIX_CERT_FILE); the fields' own schemas checked
 * each variable already.
 */
export function providerEnvProblems(
  name: ProviderName,
  env: Record<string, unknown>,
): Array<{ variable: string; problem: string }> {
  const parsed = providerDocumentSchema.safeParse(envDocumentInput(name, env));
  const crossField = (parsed.error?.issues ?? []).filter(
    (issue) => issue.code === 'custom' && issue.params?.['crossField'] === CROSS_FIELD.crossField,
  );
  return crossField.map((issue) => ({
    variable: providerVariable(name, String(issue.path[0] ?? 'name')),
    problem: issue.message,
  }));
}

function envDocumentInput(name: ProviderName, env: Record<string, unknown>): object {
  const fields = PROVIDERS[name].rows.flatMap((row) => {
    // A field kept in files: the contents the config read, one after the other (a certificate,
    // then its key), each ending its line.
    const values = row.variables.map((variable) => env[variable]).filter((v) => v !== undefined);
    if (values.length === 0) return [];
    const value =
      row.file === 'pem' ? values.map((v) => `${String(v).trimEnd()}\n`).join('') : values[0];
    return [[row.field, value]];
  });
  return { name, ...Object.fromEntries(fields) };
}
