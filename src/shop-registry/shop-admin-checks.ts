import { AppError } from '../errors';
import type { Keyring } from '../secrets/secret-box';
import type { CredentialCheck } from './ports';
import { isSimulated } from '../payments/provider-fields';
import type { ShopDocument } from './shop-document';

/* The refusals of the registry's verbs (ShopAdmin): each says what is wrong and what to do. */

/** SHOP_SECRET_KEYS, or a refusal saying it is needed: the registry keeps no secret without it. */
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

/**
 * Refuses a document whose provider may not serve here (the sandbox in production) or whose
 * credentials the platform or the provider refuse; nothing is stored then.
 */
export async function rejectBadCredentials(
  document: ShopDocument,
  deps: { credentials: CredentialCheck; sandboxAllowed: boolean },
): Promise<void> {
  if (isSimulated(document.provider.name) && !deps.sandboxAllowed) {
    throw new AppError('VALIDATION_FAILED', 'The sandbox takes no real money: not in production.', {
      details: [
        {
          field: 'provider.name',
          problem:
            'sandbox is refused under NODE_ENV=production (SANDBOX_IN_PRODUCTION=true allows it, for a staging platform)',
        },
      ],
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

/** The refusal to remove a shop with work not done: what is left, and what to do about it. */
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
