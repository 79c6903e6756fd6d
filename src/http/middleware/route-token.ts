import type { IncomingHttpHeaders, IncomingMessage } from 'node:http';
import type { Request } from 'express';

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
