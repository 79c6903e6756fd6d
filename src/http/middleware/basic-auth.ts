import type { Request, RequestHandler } from 'express';
import { AppError } from '../../errors';
import { secretMatcher } from '../../secrets/token-match';

/** Whether a request carries these Basic credentials (digests compared in constant time). */
export function basicCredentialsMatcher(user: string, password: string): (req: Request) => boolean {
  const matches = secretMatcher(`${user}:${password}`);
  return (req) => {
    const match = /^Basic\s+([A-Za-z0-9+/=]+)$/i.exec(req.get('authorization') ?? '');
    return matches(match?.[1] ? Buffer.from(match[1], 'base64').toString('utf8') : undefined);
  };
}

/** HTTP Basic authentication against one user; the browser asks for credentials on 401. */
export function basicAuth(user: string, password: string, realm: string): RequestHandler {
  const matches = basicCredentialsMatcher(user, password);
  return (req, res, next) => {
    if (matches(req)) return next();
    res.setHeader('www-authenticate', `Basic realm="${realm}", charset="UTF-8"`);
    // A browser asks without credentials first, then shows its prompt: not a warning. Wrong
    // credentials are, and are said to be, without telling whether the user or the password was.
    const routine = req.get('authorization') === undefined;
    const message = routine
      ? 'Dashboard credentials are required.'
      : 'Dashboard credentials were not accepted.';
    next(new AppError('UNAUTHORIZED', message, { routine }));
  };
}
