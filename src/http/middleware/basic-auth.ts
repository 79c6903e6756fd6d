import { createHash, timingSafeEqual } from 'node:crypto';
import type { RequestHandler } from 'express';
import { AppError } from '../../errors';

const digest = (text: string): Buffer => createHash('sha256').update(text).digest();

/** HTTP Basic authentication against one user; the browser asks for credentials on 401. */
export function basicAuth(user: string, password: string, realm: string): RequestHandler {
  const expected = digest(`${user}:${password}`);
  return (req, res, next) => {
    const match = /^Basic\s+([A-Za-z0-9+/=]+)$/i.exec(req.get('authorization') ?? '');
    const given = match?.[1] ? Buffer.from(match[1], 'base64').toString('utf8') : undefined;
    if (given !== undefined && timingSafeEqual(digest(given), expected)) return next();
    res.setHeader('www-authenticate', `Basic realm="${realm}", charset="UTF-8"`);
    next(new AppError('UNAUTHORIZED', 'Dashboard credentials are required.'));
  };
}
