import type { IncomingHttpHeaders, IncomingMessage } from 'node:http';
import type { Request, RequestHandler } from 'express';
import { AppError } from '../../errors';
import { secretMatcher } from '../../secrets/token-match';

/** The token of `Authorization: Bearer <t>`, when there is one. */
export function bearerToken(headers: IncomingHttpHeaders): string | undefined {
  return /^Bearer\s+(\S+)$/i.exec(headers.authorization ?? '')?.[1];
}

/** The token from `Authorization: Bearer` or `X-Api-Key`, in that order. */
export function headerToken(headers: IncomingHttpHeaders): string | undefined {
  const apiKey = headers['x-api-key'];
  return bearerToken(headers) ?? (typeof apiKey === 'string' ? apiKey : undefined);
}

/** The token from `Authorization: Bearer`, `X-Api-Key` or `?token=`, in that order. */
export function presentedToken(req: Request): string | undefined {
  const query = typeof req.query.token === 'string' ? req.query.token : undefined;
  return headerToken(req.headers) ?? query;
}

/**
 * `presentedToken` read from the request as it arrives, before Express parsed its query (for the
 * tracing's judgement of a caller, src/http/authenticated-callers.ts): a header's, or one `?token=`.
 */
export function presentedTokenOf(req: IncomingMessage): string | undefined {
  const given = headerToken(req.headers);
  const query = req.url?.indexOf('?') ?? -1;
  if (given !== undefined || query === -1) return given;
  const tokens = new URLSearchParams((req.url ?? '').slice(query + 1)).getAll('token');
  return tokens.length === 1 ? tokens[0] : undefined;
}

/** Whether a request carries the shared token (digests compared in constant time). */
export function routeTokenMatcher(token: string): (req: Request) => boolean {
  const matches = secretMatcher(token);
  return (req) => matches(presentedToken(req));
}

/** Refuses requests without the shared token; compares digests in constant time. */
export function requireRouteToken(token: string): RequestHandler {
  const matches = secretMatcher(token);
  return (req, _res, next) => {
    const given = presentedToken(req);
    if (given === undefined) {
      return next(
        new AppError(
          'UNAUTHORIZED',
          'A token is required: Authorization: Bearer, X-Api-Key or ?token=.',
        ),
      );
    }
    if (!matches(given)) {
      return next(new AppError('UNAUTHORIZED', 'The token is not valid.'));
    }
    next();
  };
}
