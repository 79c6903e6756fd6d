import { z } from 'zod';
import type { VendorAccounts } from '../payments/vendor-accounts';
import { feeFixed, feePercent, vendorFeeOf } from '../payments/vendor-fee';
import { PROVIDER_LIST } from '../payments/providers';
import { secret } from './env-values';

/** A decimal variable (`2.5`, `0.50`) checked by a number schema. */
function decimal(schema: z.ZodType<number, number>) {
  return z
    .string()
    .regex(/^\d+(\.\d+)?$/, 'must be a decimal number such as 2.5')
    .transform(Number)
    .pipe(schema);
}

/** `30d`, `720h`: days or hours, as milliseconds. */
const DAYS = /^(\d+)(d|h)$/;
const renewBefore = z
  .string()
  .regex(DAYS, 'must be days or hours, such as 30d or 720h')
  .transform((text) => {
    const [, digits = '0', unit = 'd'] = DAYS.exec(text) ?? [];
    return Number(digits) * (unit === 'd' ? 86_400_000 : 3_600_000);
  })
  .refine(
    (ms) => ms >= 8 * 86_400_000 && ms <= 150 * 86_400_000,
    'must be 8d to 150d: a token is renewed more than 7 days ahead, when ConnectorCredentialExpiringSoon would warn',
  );

/** The connect flows the providers declare (their descriptor's `connection.flow`). */
const FLOWS = PROVIDER_LIST.flatMap((provider) =>
  provider.connection ? [{ provider, flow: provider.connection.flow }] : [],
);

/** Each vendor account's variables, as its provider's flow declares them (secrets flagged). */
function vendorVariables(): Record<string, z.ZodType> {
  const shape: Record<string, z.ZodType> = {};
  for (const { flow } of FLOWS) {
    for (const [name, declared] of Object.entries(flow.vendor.variables)) {
      const schema = declared as z.ZodType;
      const listed = (flow.vendor.secrets as readonly string[]).includes(name);
      shape[name] = listed ? secret(schema) : schema;
    }
  }
  return shape;
}

/** The vendor's accounts, as each connect flow declares them, and its fee (CONTRACT "Connect"). */
export const connectShape = {
  ...vendorVariables(),
  VENDOR_FEE_PERCENT: decimal(feePercent)
    .prefault('0')
    .describe(
      'Your fee on each payment of a connected shop: a percent of the amount (`2.5`, at most two decimals), rounded half up to the centavo; a shop\'s document may say its own (`"vendorFee"`).',
    ),
  VENDOR_FEE_FIXED: decimal(feeFixed)
    .prefault('0')
    .describe('Reais added to your fee on each payment of a connected shop (`0.50`).'),
  CREDENTIAL_RENEW_BEFORE: renewBefore
    .prefault('30d')
    .describe(
      "How long before its expiry a connected shop's token is renewed (`30d`, `720h`; 8d to 150d: the alert warns 7 days ahead). One process renews it, whatever the number running.",
    ),
};

type ConnectEnv = Record<string, unknown> & {
  VENDOR_FEE_PERCENT: number;
  VENDOR_FEE_FIXED: number;
  CREDENTIAL_RENEW_BEFORE: number;
};

export function connectIssues(env: Record<string, unknown>, ctx: z.RefinementCtx): void {
  for (const { flow } of FLOWS) {
    for (const { variable, problem } of flow.vendor.problems(env)) {
      ctx.addIssue({ code: 'custom', path: [variable], message: problem });
    }
  }
}

/** The vendor's accounts and fee, as the registry and the connect routes use them. */
export function vendorAccountsFrom(env: ConnectEnv): VendorAccounts {
  const accounts: Record<string, unknown> = {};
  for (const { provider, flow } of FLOWS) {
    const account = flow.vendor.from(env);
    if (account !== undefined) accounts[provider.name] = account;
  }
  return {
    accounts,
    fee: vendorFeeOf({ percent: env.VENDOR_FEE_PERCENT, fixed: env.VENDOR_FEE_FIXED }),
    renewBeforeMs: env.CREDENTIAL_RENEW_BEFORE,
  };
}

/** The env shop's provider variables the vendor's accounts read too, for `connector shops`. */
export const VENDOR_READS = FLOWS.flatMap(({ provider, flow }) =>
  (flow.vendor.reads ?? []).map((field) => (provider.variables as Record<string, unknown>)[field]),
).filter((variable): variable is string => typeof variable === 'string');
