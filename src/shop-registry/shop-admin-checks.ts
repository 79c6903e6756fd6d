import { AppError } from '../errors';
import type { Keyring } from '../secrets/secret-box';
import type { CredentialCheck } from './ports';
import { isSimulated } from '../payments/provider-fields';
import type { ShopDocument } from './shop-document';

/* The refusals of the registry's verbs (ShopAdmin): each says what is wrong and what to do. */

export function requireKeyring(keyring: Keyring | undefined): Keyring {
  if (!keyring) {
    throw new AppError(
      'VALIDATION_FAILED',
      'SHOP_SECRET_KEYS is not set: the registry cannot keep secrets without it.',
      { details: [{ field: 'SHOP_SECRET_KEYS', problem: 'is required to add or change shops' }] },
    );
  }
  return keyring;
}

/** Refuses the sandbox in production, and credentials the platform or the provider refuse. */
export async function rejectBadCredentials(
  document: ShopDocument,
  deps: { credentials: CredentialCheck; sandboxAllowed: boolean },
): Promise<void> {
  if (isSimulated(document.provider.name) && !deps.sandboxAllowed) {
    const problem =
      'sandbox is refused under NODE_ENV=production (SANDBOX_IN_PRODUCTION=true allows it, for a staging platform)';
    throw new AppError('VALIDATION_FAILED', 'The sandbox takes no real money: not in production.', {
      details: [{ field: 'provider.name', problem }],
    });
  }
  const problems = await deps.credentials.check(document);
  if (problems.length > 0) {
    throw new AppError(
      'SHOP_CREDENTIALS_REJECTED',
      `The ${problems.map((p) => p.field).join(' and ')} refused the shop's credentials; nothing was stored.`,
      { details: problems },
    );
  }
}

export function openWorkError(id: string, work: { unreported: number; failed: number }): AppError {
  return new AppError(
    'SHOP_HAS_OPEN_WORK',
    `Shop ${id} has ${work.unreported} checkout(s) not yet reported to the platform and ${work.failed} failed delivery(ies); remove it once they are done (retry or settle the failed ones).`,
    {
      details: [
        { field: 'checkouts', problem: `${work.unreported} not yet reported` },
        { field: 'deliveries', problem: `${work.failed} failed` },
      ],
    },
  );
}

export function exists(id: string): AppError {
  return new AppError('SHOP_EXISTS', `A shop ${id} exists already.`, {
    details: [{ field: 'id', problem: 'is taken' }],
  });
}

/**
 * Refuses a document or a change that would write a connection by hand: a connected account's
 * fields are set by following a link, and a change to a connected shop's provider gives a whole
 * provider document (pasted keys instead of the connection).
 */
export function refuseHandWrittenConnection(
  provider: unknown,
  current: { connection?: unknown } | undefined,
): void {
  if (provider === null || typeof provider !== 'object') return;
  const given = provider as Record<string, unknown>;
  let problem: string | undefined;
  if (given.connection !== undefined) {
    problem = 'is set by connecting the account with a link (`shops connect`), not by a document';
  } else if (current?.connection !== undefined && given.name === undefined) {
    problem =
      'the account is connected by a link: give a whole provider document (with its name) to use pasted keys instead, or send a new link (`shops connect`)';
  }
  if (problem) {
    throw new AppError('VALIDATION_FAILED', 'The shop document is not valid.', {
      details: [{ field: 'provider.connection', problem }],
    });
  }
}
