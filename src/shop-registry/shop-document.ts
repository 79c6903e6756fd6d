import { z } from 'zod';
import { ConfigError, platformSecrets } from '../config';
import { AppError, type ErrorDetail } from '../errors';
import { isConnected } from '../payments/define-provider';
import { paymentChoiceProblems, paymentDocumentSchema } from '../payments/payment-options';
import { planDocumentSchema, planProblems } from '../payments/payment-plan';
import { vendorFeeDocumentSchema } from '../payments/vendor-fee';
import {
  httpUrl,
  PROVIDER_CHOICE,
  providerApiProblem,
  providerDocumentSchema,
} from '../payments/provider-fields';
import type { ProviderName } from '../payments/providers';
import { ENV_SHOP_ID, SHOP_ID_PATTERN } from '../shop/shop-id';
import { shopFields, valueAt, type ShopField } from './shop-fields';

/* A shop's document (CONTRACT "Shops"): the admin API's body and the CLI's `--file`. */

const shopIdSchema = z
  .string()
  .regex(SHOP_ID_PATTERN, 'must be 2 to 63 characters of a-z, 0-9 and -, not starting with -')
  .refine((id) => id !== ENV_SHOP_ID, {
    message: `is the env shop's id (PLATFORM_EMAIL and the rest of the environment)`,
  });

const platformAccountSchema = z.strictObject({
  email: z.string().trim().min(1).max(320).meta({
    env: 'PLATFORM_EMAIL',
    description:
      "The Basic auth user of the shop's platform account (from the platform's support).",
  }),
  password: z.string().min(1).max(1000).meta({
    secret: true,
    env: 'PLATFORM_PASSWORD',
    description: "The Basic auth password of the shop's platform account.",
  }),
  apiKey: z.string().min(1).max(1000).meta({
    secret: true,
    env: 'PLATFORM_API_KEY',
    description: "The account's `x-dreamfactory-api-key`.",
  }),
});

/** Every field a shop of `provider` may have (shop-fields.ts `shopFields`). */
export function documentFields(provider: ProviderName): ShopField[] {
  return shopFields(documentShape, provider);
}

/** The secret values of a document, with its platform account's wire forms (`platformSecrets`). */
export function documentSecrets(document: ShopDocument): string[] {
  const values = documentFields(document.provider.name)
    .filter((field) => field.secret)
    .map((field) => valueAt(document, field.path))
    .filter((value): value is string => typeof value === 'string');
  return [...new Set([...values, ...platformSecrets(document.platform)])];
}

/**
 * Characters a terminal or a page does not show as themselves (controls, bidi and zero-width
 * format characters, lone surrogates, line separators): a name holding one could rewrite what an
 * operator reads.
 */
export const NON_PRINTABLE = /[\p{Cc}\p{Cf}\p{Cs}\p{Zl}\p{Zp}]/u;

/** 1 to 100 printable characters, counted as code points. */
const nameSchema = z
  .string()
  .trim()
  .refine((name) => !NON_PRINTABLE.test(name), {
    message: 'must be printable: no control, format (bidi, zero-width) or separator characters',
  })
  .refine((name) => [...name].length >= 1 && [...name].length <= 100, {
    message: 'must be 1 to 100 characters',
  })
  .meta({
    env: 'SHOP_NAME',
    description:
      "The shop as its customers and the admin see it: 1 to 100 printable characters. The customer's pages name it.",
  });

const siteUrlSchema = httpUrl.max(2000).meta({
  env: 'SHOP_SITE_URL',
  description:
    'The shop\'s site (an http or https URL): the customer\'s pages offer "Voltar à loja" to it. Without it they say to go back to the shop, with no link.',
});

/**
 * A shop's document besides its id, each field declared once: the patch, the merge
 * (shop-patch.ts), what is stored and shown, and the field table follow from this shape.
 */
export const documentShape = {
  name: nameSchema,
  siteUrl: siteUrlSchema.optional(),
  platform: platformAccountSchema,
  provider: providerDocumentSchema,
  /** How the shop's customers may pay; what its provider offers when absent. */
  payment: paymentDocumentSchema.optional(),
  /** A deposit now and the balance later, or a part paid two ways: paid on the connector's page. */
  plan: planDocumentSchema.optional(),
  /** The vendor's fee on its payments, instead of the deployment's (a connected shop's only). */
  vendorFee: vendorFeeDocumentSchema.optional(),
};

export const DOCUMENT_KEYS = Object.keys(documentShape) as (keyof typeof documentShape)[];

function documentSchema<I extends z.ZodType<string>>(id: I) {
  return z.strictObject({ id, ...documentShape }).superRefine((document, ctx) => {
    if (document.vendorFee !== undefined && !isConnected(document.provider)) {
      ctx.addIssue({
        code: 'custom',
        path: ['vendorFee'],
        message:
          "is taken only from a provider account connected by a link (`shops connect`): with pasted keys the vendor's fee cannot be collected",
      });
    }
    for (const { part, problem } of paymentChoiceProblems(
      document.provider.name,
      document.payment ?? {},
    )) {
      ctx.addIssue({ code: 'custom', path: ['payment', part], message: problem });
    }
    for (const { part, problem } of planProblems(
      document.provider.name,
      document.plan,
      document.payment ?? {},
    )) {
      ctx.addIssue({ code: 'custom', path: ['plan', part], message: problem });
    }
  });
}

const shopDocumentSchema = documentSchema(shopIdSchema);

/**
 * The env shop's document, from the environment (config's EnvShopConfig): the same schema, under
 * the env shop's id, each problem naming its variable (a ConfigError: exit 78 at start).
 */
export function shopDocumentFromEnv(env: {
  /** SHOP_NAME; the env shop's id without it. */
  name?: string;
  siteUrl?: string;
  platform: ShopDocument['platform'];
  providerDocument: ShopDocument['provider'];
  payment: NonNullable<ShopDocument['payment']>;
  plan?: Record<string, unknown>;
}): ShopDocument {
  const parsed = documentSchema(z.literal(ENV_SHOP_ID)).safeParse({
    id: ENV_SHOP_ID,
    name: env.name ?? ENV_SHOP_ID,
    ...(env.siteUrl === undefined ? {} : { siteUrl: env.siteUrl }),
    platform: env.platform,
    provider: env.providerDocument,
    ...(Object.keys(env.payment).length > 0 ? { payment: env.payment } : {}),
    ...(env.plan ? { plan: env.plan } : {}),
  });
  if (parsed.success) return parsed.data;
  const fields = new Map(
    documentFields(env.providerDocument.name).map((field) => [field.path, field.env]),
  );
  throw new ConfigError(
    parsed.error.issues.map((issue) => {
      const path = issue.path.map(String).join('.');
      // A part's own field (plan.deposit.percent) is set by its part's variable.
      const variable = fields.get(path) ?? fields.get(issue.path.slice(0, 2).map(String).join('.'));
      return `${variable ?? path}: ${issue.message}`;
    }),
  );
}

export type ShopDocument = z.output<typeof shopDocumentSchema>;

/** The zod issues of a document as the API's details: one per field, unknown fields named. */
export function detailsOf(error: z.ZodError, base: string[] = []): ErrorDetail[] {
  return error.issues.flatMap((issue) => {
    const at = [...base, ...issue.path.map(String)].join('.');
    if (issue.code === 'unrecognized_keys') {
      return issue.keys.map((key) => ({
        field: at ? `${at}.${key}` : key,
        problem: 'is not a field of a shop document',
      }));
    }
    if (issue.code === 'invalid_union' && at.endsWith('provider')) {
      return [{ field: `${at}.name`, problem: `must be ${PROVIDER_CHOICE}` }];
    }
    return [{ field: at || '(document)', problem: issue.message }];
  });
}

export function invalid(details: ErrorDetail[]): AppError {
  return new AppError('VALIDATION_FAILED', 'The shop document is not valid.', { details });
}

/** A whole document, checked (`apiOrigins`: PROVIDER_API_ORIGINS); VALIDATION_FAILED naming every problem. */
export function parseShopDocument(input: unknown, apiOrigins: readonly string[]): ShopDocument {
  const parsed = shopDocumentSchema.safeParse(input);
  if (!parsed.success) throw invalid(detailsOf(parsed.error));
  const found = providerApiProblem(parsed.data.provider, apiOrigins);
  if (found) throw invalid([{ field: `provider.${found.field}`, problem: found.problem }]);
  return parsed.data;
}

/**
 * Why a stored shop is not served here, or undefined: a shop stored earlier may hold an `apiUrl`
 * PROVIDER_API_ORIGINS no longer allows. It is kept as stored; the listings say why.
 */
export function unservedBecause(
  provider: { name: string; apiUrl?: string; tokenUrl?: string },
  apiOrigins: readonly string[],
): string | undefined {
  const found = providerApiProblem(provider, apiOrigins);
  if (!found) return undefined;
  const origin = URL.canParse(found.url) ? new URL(found.url).origin : '(unreadable)';
  return `provider.${found.field} (${origin}) ${found.problem}`;
}

export function refuseUnservable(
  provider: { name: string; apiUrl?: string; tokenUrl?: string },
  apiOrigins: readonly string[],
): void {
  const problem = unservedBecause(provider, apiOrigins);
  if (problem) throw new Error(`not served: ${problem}`);
}

/** Which fields a change touches, for the audit trail: paths, never values. */
export function changedFields(before: ShopDocument, after: ShopDocument): string[] {
  const paths = new Set(
    [...documentFields(before.provider.name), ...documentFields(after.provider.name)].map(
      (field) => field.path,
    ),
  );
  return [...paths].filter(
    (path) => JSON.stringify(valueAt(before, path)) !== JSON.stringify(valueAt(after, path)),
  );
}
