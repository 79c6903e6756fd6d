import type { PlatformAccount, PlatformHostConfig } from '../config';
import { AppError, errorMessage } from '../errors';
import type { Logger } from '../infra/logger';
import { PlatformClient } from '../platform/platform-client';
import { fail, ok, type Finding } from './doctor-findings';

const SUBJECT = 'platform';

/** The env shop's platform account, checked once as adding a shop checks one (no retry). */
export async function checkPlatform(
  host: PlatformHostConfig,
  account: PlatformAccount,
  logger: Logger,
): Promise<Finding> {
  const client = new PlatformClient({ ...host, ...account, logger, getRetries: 0 });
  try {
    await client.listServices({}, { limit: 1, offset: 0 });
    return ok(
      SUBJECT,
      `${host.baseUrl} accepts PLATFORM_EMAIL's account (${account.email}): GET /services answered`,
    );
  } catch (error) {
    return platformRefusal(error, host.baseUrl, account.email);
  }
}

function platformRefusal(error: unknown, baseUrl: string, email: string): Finding {
  const status = error instanceof AppError ? error.upstreamStatus : undefined;
  const code = error instanceof AppError ? error.code : undefined;
  if (code === 'PLATFORM_REJECTED' && (status === 401 || status === 403)) {
    return fail(
      SUBJECT,
      `${baseUrl} refused PLATFORM_EMAIL's account ${email} (HTTP ${status})`,
      "check PLATFORM_EMAIL, PLATFORM_PASSWORD and PLATFORM_API_KEY (the platform's support gives them)",
    );
  }
  if (code === 'PLATFORM_REJECTED' || code === 'PLATFORM_BAD_RESPONSE') {
    return fail(
      SUBJECT,
      `${baseUrl} answered GET /services ${status === undefined ? 'with something other than a list of services' : `with HTTP ${status}`}`,
      'PLATFORM_BASE_URL must be the platform API host itself, e.g. https://apis.cortecloud.com.br',
    );
  }
  return unreachable(error, baseUrl);
}

/** The platform not answering (a network failure, a 5xx, a 429): nothing to fix here but wait. */
export function unreachable(error: unknown, baseUrl: string): Finding {
  const status = error instanceof AppError ? error.upstreamStatus : undefined;
  if (status !== undefined) {
    return fail(
      SUBJECT,
      `${baseUrl} answered HTTP ${status}: the platform is not available now`,
      "try again later; if it lasts, ask the platform's support",
    );
  }
  const reason = /\(([^)]+)\)/.exec(errorMessage(error))?.[1] ?? errorMessage(error);
  return fail(
    SUBJECT,
    `${baseUrl} could not be reached (${reason})`,
    'check PLATFORM_BASE_URL, and that this machine reaches it (DNS, proxy, firewall)',
  );
}
