import { randomUUID } from 'node:crypto';
import type { RequestHandler } from 'express';
import { runWithLogContext } from '../../tracing/log-context';

/** A caller's x-request-id kept as the request's id: short, and safe in a log line. */
export const ACCEPTABLE_REQUEST_ID = /^[A-Za-z0-9._:-]{1,128}$/;

declare module 'express-serve-static-core' {
  interface Request {
    /** The request id: the caller's x-request-id when it is sane, else a new UUID. */
    id: string;
  }
}

/** Gives every request an id, echoes it back, and makes it the log context of the request. */
export function requestContext(): RequestHandler {
  return (req, res, next) => {
    const given = req.get('x-request-id');
    req.id = given && ACCEPTABLE_REQUEST_ID.test(given) ? given : randomUUID();
    res.setHeader('x-request-id', req.id);
    runWithLogContext({ requestId: req.id }, next);
  };
}
