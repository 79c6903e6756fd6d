import type { DoctorConfig } from '../config/doctor-config';
import { ConfigError } from '../config';
import { AppError, errorMessage } from '../errors';
import { SecretBoxError } from '../secrets/secret-box';
import type { CredentialCheck } from '../shop-registry/ports';
import type { ShopAdmin } from '../shop-registry/shop-admin';
import { shopDocumentFromEnv } from '../shop-registry/shop-document';
import { ENV_SHOP_ID } from '../shop/shop-id';
import type { CliIo } from './cli-io';
import { fail, ok, skip, warn, type Finding } from './doctor-findings';

/** Shops checked at once: each is a read of the platform and one of its provider. */
const AT_ONCE = 4;

type ShopView = Awaited<ReturnType<ShopAdmin['list']>>[number];

/** Every shop served, by the check `shops add` and `shops verify` run. Reads only. */
export async function checkShops(
  io: CliIo,
  config: DoctorConfig,
  redisAnswers: boolean,
): Promise<Finding[]> {
  if (!config.shops) {
    const found = 'not checked: a variable the registry needs is wrong (a FAIL line above)';
    return [skip('shops', found, 'correct it')];
  }
  if (!redisAnswers) {
    const found =
      "not checked: Redis cannot be used, and the registry and the providers' check need it";
    return [skip('shops', found, 'see the redis line')];
  }
  const access = await io.adapters.openShops({
    ...config.shops,
    platform: config.platform ?? config.shops.platform,
    // Doctor's lines are its answer: the log says only what went wrong, unless asked for more.
    log: { ...config.shops.log, level: io.env.LOG_LEVEL ?? 'error' },
    stderr: io.stderr,
  });
  try {
    const views = await access.admin.list();
    return [
      ...(await envShop(access.credentials, config)),
      ...(await registryShops(access.admin, views, config)),
      ...(views.length === 0 && config.envShop === 'none' ? [NO_SHOP] : []),
    ];
  } finally {
    await access.close();
  }
}

const NO_SHOP = warn(
  'shops',
  'none: no env shop (PLATFORM_EMAIL is unset) and the registry is empty',
  "add one with `connector shops add <id> --file <document.json>`, or set PLATFORM_EMAIL and the env shop's variables",
);

async function envShop(credentials: CredentialCheck, config: DoctorConfig): Promise<Finding[]> {
  const subject = `shop ${ENV_SHOP_ID}`;
  const shop = config.envShop;
  // Without PLATFORM_EMAIL there is none; with wrong variables, their lines say so.
  if (shop === 'none' || shop === 'invalid') return [];
  const provider = shop.providerDocument.name;
  const platformLine = 'see the platform line';
  if (!config.platform)
    return [
      skip(subject, `${provider} not checked: its check reads the platform first`, platformLine),
    ];
  let document;
  try {
    document = shopDocumentFromEnv(shop);
  } catch (error) {
    if (!(error instanceof ConfigError)) throw error;
    return error.problems.map((problem) => fail(subject, problem, 'correct that variable'));
  }
  try {
    const refused = (await credentials.check(document)).filter((p) => p.field === 'provider');
    if (refused.length === 0) return [ok(subject, `${provider} accepts its credentials`)];
    const fix = `give the env shop keys ${provider} accepts (its ${provider.toUpperCase()}_* variables)`;
    return refused.map((problem) => fail(subject, problem.problem, fix));
  } catch (error) {
    if (!(error instanceof AppError && error.code === 'PLATFORM_UNAVAILABLE'))
      return [notChecked(subject, error)];
    return [
      skip(subject, `${provider} not checked: the platform did not answer first`, platformLine),
    ];
  }
}

async function registryShops(
  admin: ShopAdmin,
  views: ShopView[],
  config: DoctorConfig,
): Promise<Finding[]> {
  if (views.length === 0) return [];
  if (config.shops?.shops.secretKeys === undefined) {
    const ids = views.map((view) => view.id);
    return [
      fail(
        'shops',
        `SHOP_SECRET_KEYS is not set, and the registry holds ${ids.length} shop(s) whose secrets it encrypts (${ids.slice(0, 5).join(', ')}${ids.length > 5 ? ', ...' : ''})`,
        'set SHOP_SECRET_KEYS to the keyring they were added with: the server refuses to start without it',
      ),
    ];
  }
  const results: Finding[][] = new Array<Finding[]>(views.length);
  let next = 0;
  const worker = async (): Promise<void> => {
    for (let index = next++; index < views.length; index = next++) {
      const view = views[index] as ShopView;
      results[index] = await registryShop(admin, view, config.platform !== undefined);
    }
  };
  await Promise.all(Array.from({ length: Math.min(AT_ONCE, views.length) }, worker));
  const findings = results.flat();
  if (!config.platform) {
    findings.push(
      skip(
        'shops',
        "the registry shops' credentials not checked: they are checked against PLATFORM_BASE_URL",
        'see the platform line',
      ),
    );
  }
  return findings;
}

/** One registry shop: served as stored, its secrets open, its platform account and provider. */
async function registryShop(
  admin: ShopAdmin,
  view: ShopView,
  platformKnown: boolean,
): Promise<Finding[]> {
  const subject = `shop ${view.id}`;
  if (view.problem)
    return [fail(subject, `not served: ${view.problem}`, `change it with ${changeOf(view)}`)];
  try {
    await admin.platformAccount(view.id);
  } catch (error) {
    return [unopened(subject, error)];
  }
  const connected = connectionFindings(view);
  if (connected.some((finding) => finding.mark === 'FAIL')) return connected;
  const state = view.enabled ? '' : 'disabled; ';
  if (!platformKnown) return [ok(subject, `${state}its secrets open with SHOP_SECRET_KEYS`)];
  try {
    const { problems } = await admin.verify(view.id);
    if (problems.length > 0) return problems.map((problem) => credentialRefused(view, problem));
    const found = `${state}its secrets open with SHOP_SECRET_KEYS; the platform and ${view.provider.name} accept its credentials`;
    return [...connected, ok(subject, found)];
  } catch (error) {
    return [notChecked(subject, error)];
  }
}

const changeOf = (view: ShopView) => `\`connector shops update ${view.id} --file <change.json>\``;

function unopened(subject: string, error: unknown): Finding {
  if (!(error instanceof SecretBoxError)) return notChecked(subject, error);
  return fail(
    subject,
    `its secrets do not open with SHOP_SECRET_KEYS: ${error.message}`,
    error.unknownKeyId
      ? `add key ${error.unknownKeyId} back to SHOP_SECRET_KEYS (or run \`connector shops rekey\` where it is held)`
      : 'its record is damaged: restore it, or remove the shop and add it again',
  );
}

function credentialRefused(view: ShopView, problem: { field: string; problem: string }): Finding {
  const change = changeOf(view);
  return fail(
    `shop ${view.id}`,
    problem.problem,
    problem.field === 'platform'
      ? `give it the platform account's right credentials: ${change} with its "platform"`
      : `give it keys ${view.provider.name} accepts: ${change} with its "provider"`,
  );
}

/** How long ahead an expiring credential is said (the alert's: 14 days). */
const EXPIRY_WARNING_MS = 14 * 86_400_000;

/** Must be connected again, or a credential expires soon (renewed 30 days ahead). */
function connectionFindings(view: ShopView): Finding[] {
  const subject = `shop ${view.id}`;
  const link = `send the owner a new link: \`connector shops connect ${view.id} --provider ${view.provider.name}\``;
  if (view.needs_reconnect) {
    return [
      fail(
        subject,
        `must connect again since ${view.needs_reconnect.since} (${view.needs_reconnect.reason}): its route answers 503 SHOP_NEEDS_RECONNECT`,
        link,
      ),
    ];
  }
  const expiresAt = Date.parse(view.provider.expiresAt ?? '');
  if (Number.isFinite(expiresAt) && expiresAt - Date.now() < EXPIRY_WARNING_MS) {
    const days = Math.max(0, Math.floor((expiresAt - Date.now()) / 86_400_000));
    return [warn(subject, `its ${view.provider.name} credential expires in ${days} day(s)`, link)];
  }
  return [];
}

function notChecked(subject: string, error: unknown): Finding {
  return fail(
    subject,
    `its credentials could not be checked: ${errorMessage(error)}`,
    'try again once the service named answers; if it lasts, check its address and the network',
  );
}
