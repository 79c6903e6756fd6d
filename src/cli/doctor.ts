import { Command } from 'commander';
import { readDoctorConfig, type DoctorConfig } from '../config/doctor-config';
import type { ConfigProblem } from '../config/env-values';
import { envShopShape } from '../config/env-shop-config';
import { platformShape } from '../config/platform-config';
import { redisShape } from '../config/redis-config';
import { errorMessage } from '../errors';
import { createLogger } from '../infra/logger';
import { ENV_SHOP_ID } from '../shop/shop-id';
import { CliFailure, EXIT, formatOption, write, type CliIo } from './cli-io';
import {
  anyFailed,
  fail,
  findingsJson,
  findingsTable,
  ok,
  warn,
  withoutSecrets,
  type Finding,
} from './doctor-findings';
import { checkPlatform } from './doctor-platform';
import { checkRedis } from './doctor-redis';
import { checkShops } from './doctor-shops';

const HELP = `
Checks, in this order (a line a finding: ok, warn, FAIL, or skip when a FAIL stops a check):
  config     every variable, read as the server reads it at start (it exits 78 on a wrong one);
             a warning when PIX_WATCH_DAYS outlasts CHECKOUT_RETENTION_DAYS
  redis      REDIS_URL answers (one attempt, 3 s), its topology, version and role,
             maxmemory-policy noeviction, appendonly
  platform   the env shop's account (PLATFORM_EMAIL...): one read of PLATFORM_BASE_URL
  shop <id>  the env shop's provider; each registry shop's secrets open with SHOP_SECRET_KEYS,
             and its platform account and provider accept its credentials (as \`shops verify\`)
A FAIL is what keeps the connector from working or the server from starting; a warn, what it
works with but should not. Doctor only reads: it writes nothing to Redis, the platform or a
provider.

Exit codes: 0 nothing failed (warnings allowed), 1 a check failed, 2 usage.
`;

/** `connector doctor`: a wrong variable is a finding, never exit 78 (CONTRACT "The first hour"). */
export function doctorCommand(io: CliIo): Command {
  return new Command('doctor')
    .description(
      "check this configuration as an operator would: Redis and its settings, the platform's credentials, each shop's provider",
    )
    .addOption(formatOption(['table', 'json'], 'table (a line a finding) or json'))
    .addHelpText('after', HELP)
    .action(async (options: { format: 'table' | 'json' }) => {
      const config = readDoctorConfig(io.env);
      const findings = withoutSecrets(await diagnose(io, config), config.secrets);
      await write(
        io.stdout,
        options.format === 'json' ? findingsJson(findings) : findingsTable(findings),
      );
      if (anyFailed(findings)) {
        const failed = findings.filter((finding) => finding.mark === 'FAIL').length;
        throw new CliFailure(
          `${failed} check(s) failed: fix the FAIL lines, then run doctor again`,
          EXIT.failure,
        );
      }
    });
}

/** Every finding, section by section: each section's wrong variables first, then its check. */
async function diagnose(io: CliIo, config: DoctorConfig): Promise<Finding[]> {
  const problems = (subject: string) =>
    config.problems
      .filter((problem) => subjectOf(problem.variable) === subject)
      .map((problem) => configFinding(subject, problem));
  const logger = createLogger({
    ...config.log,
    level: io.env.LOG_LEVEL ?? 'error',
    secrets: config.secrets,
    stream: io.stderr,
    component: 'doctor',
  });
  const [redis, platform] = await Promise.all([
    config.redis
      ? checkRedis(config.redis, config.redisShown, config.env === 'production')
      : { reachable: false, findings: [] },
    platformFindings(config, logger),
  ]);
  const shops = await checkShops(io, config, redis.reachable).catch((error: unknown) => [
    fail(
      'shops',
      `not checked: ${errorMessage(error)}`,
      'try again; if it lasts, run with LOG_LEVEL=debug',
    ),
  ]);
  return [
    ...problems('config'),
    ...watchFindings(config),
    ...problems('redis'),
    ...redis.findings,
    ...problems('platform'),
    ...platform,
    ...problems('shops'),
    ...problems(`shop ${ENV_SHOP_ID}`),
    ...shops,
  ];
}

async function platformFindings(
  config: DoctorConfig,
  logger: ReturnType<typeof createLogger>,
): Promise<Finding[]> {
  if (!config.platform) return [];
  if (config.platformAccount) {
    return [await checkPlatform(config.platform, config.platformAccount, logger)];
  }
  if (config.envShop !== 'none') return [];
  return [
    ok(
      'platform',
      `PLATFORM_BASE_URL ${config.platform.baseUrl}; no env shop (PLATFORM_EMAIL is unset): each registry shop's account is checked on its line`,
    ),
  ];
}

/** The Pix watch reads a checkout's record: one kept shorter than the watch ends it early. */
function watchFindings({ kept }: DoctorConfig): Finding[] {
  if (!kept || kept.PIX_WATCH_DAYS <= kept.CHECKOUT_RETENTION_DAYS) return [];
  const { PIX_WATCH_DAYS: watch, CHECKOUT_RETENTION_DAYS: retention } = kept;
  return [
    warn(
      'config',
      `PIX_WATCH_DAYS ${watch} is longer than CHECKOUT_RETENTION_DAYS ${retention}: a paid Pix leaves the watch when its record goes, before a MED return may come`,
      `set CHECKOUT_RETENTION_DAYS=${watch} or more (or PIX_WATCH_DAYS=${retention})`,
    ),
  ];
}

const REDIS_VARIABLES = new Set(Object.keys(redisShape));
const PLATFORM_VARIABLES = new Set(Object.keys(platformShape));
const ENV_SHOP_VARIABLES = new Set(Object.keys(envShopShape));

/** Which line a variable's problem is said on: the check it keeps from running. */
function subjectOf(variable: string): string {
  if (REDIS_VARIABLES.has(variable)) return 'redis';
  if (PLATFORM_VARIABLES.has(variable)) return 'platform';
  if (variable === 'SHOP_SECRET_KEYS') return 'shops';
  if (ENV_SHOP_VARIABLES.has(variable)) return `shop ${ENV_SHOP_ID}`;
  return 'config';
}

function configFinding(subject: string, { variable, problem }: ConfigProblem): Finding {
  const where = 'docs/reference/configuration.md describes it';
  if (problem.startsWith('is required')) {
    const why = problem.slice('is required'.length);
    const found = `${variable} is not set${why ? ` (required${why})` : ''}`;
    return fail(subject, found, `set ${variable} (${where})`);
  }
  return fail(subject, `${variable}: ${problem}`, `correct ${variable} (${where})`);
}
