import { createHash, randomBytes } from 'node:crypto';
import { z } from 'zod';
import { AppError } from '../../errors';
import { ConnectionRevokedError } from '../define-provider';
import { providerHttp } from '../provider-http';
import type { MercadoPagoApplication } from './mercadopago-vendor';
import { MERCADOPAGO_API } from './mercadopago-api';

/**
 * Mercado Pago's OAuth for marketplaces (its developer docs, "OAuth" and "Authorization code
 * with PKCE"): the owner authorizes the vendor's application at
 * `MERCADOPAGO_AUTH_URL/authorization`, Mercado Pago sends the browser back to our callback with
 * a code, and `POST /oauth/token` exchanges it (with the PKCE verifier) for an access token of
 * the owner's account, valid `expires_in` seconds (180 days), and a refresh token that is good
 * for one renewal only.
 */

type Application = MercadoPagoApplication;

/** What a token answer gives the shop's document (`account` is the owner's user id). */
export interface MercadoPagoGrant {
  accessToken: string;
  refreshToken: string;
  publicKey: string;
  account: string;
  expiresAt: string;
}

const tokenAnswer = z.looseObject({
  access_token: z.string().regex(/^(APP_USR|TEST)-[\w-]+$/),
  refresh_token: z.string().min(1),
  public_key: z.string().min(1),
  user_id: z.union([z.number(), z.string()]).transform(String),
  expires_in: z.number().int().positive(),
});

/** A PKCE pair (RFC 7636, S256): the verifier kept by us, the challenge sent to Mercado Pago. */
export function pkcePair(): { verifier: string; challenge: string } {
  const verifier = randomBytes(48).toString('base64url');
  const challenge = createHash('sha256').update(verifier).digest('base64url');
  return { verifier, challenge };
}

export function authorizationUrl(
  application: Application,
  request: { redirectUri: string; state: string; challenge: string },
): string {
  const url = new URL(`${application.authUrl}/authorization`);
  url.search = new URLSearchParams({
    client_id: application.clientId,
    response_type: 'code',
    platform_id: 'mp',
    state: request.state,
    redirect_uri: request.redirectUri,
    code_challenge: request.challenge,
    code_challenge_method: 'S256',
  }).toString();
  return url.toString();
}

function tokenCall(application: Application) {
  return providerHttp({
    label: MERCADOPAGO_API.label,
    baseURL: application.apiUrl,
    timeoutMs: 20_000,
    headers: {},
    messageOf: (body) => {
      const error = (body as { error?: unknown; message?: unknown } | null) ?? {};
      const said = error.error ?? error.message;
      return typeof said === 'string' ? said : undefined;
    },
  });
}

function grantOf(answer: z.output<typeof tokenAnswer>, now: Date): MercadoPagoGrant {
  return {
    accessToken: answer.access_token,
    refreshToken: answer.refresh_token,
    publicKey: answer.public_key,
    account: answer.user_id,
    expiresAt: new Date(now.getTime() + answer.expires_in * 1000).toISOString(),
  };
}

export async function exchangeCode(
  application: Application,
  request: { code: string; verifier: string; redirectUri: string },
  now: () => Date,
): Promise<MercadoPagoGrant> {
  const answer = await tokenCall(application)(
    'exchange the authorization code',
    {
      method: 'POST',
      url: '/oauth/token',
      data: {
        grant_type: 'authorization_code',
        client_id: application.clientId,
        client_secret: application.clientSecret,
        code: request.code,
        redirect_uri: request.redirectUri,
        code_verifier: request.verifier,
      },
    },
    tokenAnswer,
  );
  return grantOf(answer, now());
}

/**
 * Renews the owner's tokens with the refresh token, which Mercado Pago then no longer takes:
 * the new pair must be stored before anything else. A 400 `invalid_grant` is final:
 * ConnectionRevokedError. Anything else (unreachable, 5xx, the application refused) may be tried again.
 */
export async function refreshGrant(
  application: Application,
  refreshToken: string,
  now: () => Date,
): Promise<MercadoPagoGrant> {
  try {
    const answer = await tokenCall(application)(
      'renew the access token',
      {
        method: 'POST',
        url: '/oauth/token',
        data: {
          grant_type: 'refresh_token',
          client_id: application.clientId,
          client_secret: application.clientSecret,
          refresh_token: refreshToken,
        },
      },
      tokenAnswer,
    );
    return grantOf(answer, now());
  } catch (error) {
    // Only the grant's own refusal is the shop's to fix: `invalid_client` is the vendor's
    // application (its secret changed), which no owner's new link would mend.
    if (
      error instanceof AppError &&
      error.code === 'PROVIDER_REJECTED' &&
      error.upstreamStatus === 400 &&
      error.cause === 'invalid_grant'
    ) {
      throw new ConnectionRevokedError(MERCADOPAGO_API.label, 'invalid_grant');
    }
    throw error;
  }
}
