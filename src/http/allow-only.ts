import type { RequestHandler } from 'express';
import { AppError } from '../errors';

/**
 * The last handler of a route (`.all(allowOnly('GET'))`): another method is 405 with `Allow`, not a
 * 404 that hides the route; OPTIONS is 204. GET implies HEAD, as Express serves HEAD from GET.
 */
export function allowOnly(
  ...methods: readonly ('GET' | 'POST' | 'PATCH' | 'DELETE')[]
): RequestHandler {
  const allowed = methods.includes('GET') ? [...methods, 'HEAD'] : [...methods];
  const allow = allowed.join(', ');
  return (req, res, next) => {
    res.setHeader('allow', allow);
    if (req.method === 'OPTIONS') {
      res.status(204).end();
      return;
    }
    next(new AppError('METHOD_NOT_ALLOWED', `${req.method} is not served here; use ${allow}.`));
  };
}
