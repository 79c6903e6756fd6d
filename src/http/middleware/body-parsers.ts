import express, { type RequestHandler } from 'express';

/** The largest body a form or JSON route takes: far above any legitimate call it receives. */
export const FORM_BODY_LIMIT = '100kb';
/** The same limit in bytes (body-parser reads '100kb' as 100 x 1024). */
export const FORM_BODY_LIMIT_BYTES = 100 * 1024;

/**
 * A JSON or form body, read by the route that needs it, after its token check: an unauthenticated
 * client never has a body read into memory, and each route states its own limit.
 */
export function jsonOrFormBody(limit: string = FORM_BODY_LIMIT): RequestHandler[] {
  return [
    express.json({ limit }),
    express.urlencoded({ extended: false, limit, parameterLimit: 100 }),
  ];
}
