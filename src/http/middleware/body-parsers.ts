import type { IncomingMessage } from 'node:http';
import express, { type RequestHandler } from 'express';

/** The largest body a form or JSON route takes (100 kB): far above any legitimate call. */
export const FORM_BODY_LIMIT_BYTES = 100 * 1024;

/** Whether a request says it has a body (chunked, or a non-zero Content-Length). */
export function hasBody(req: IncomingMessage): boolean {
  const length = req.headers['content-length'];
  return req.headers['transfer-encoding'] !== undefined || (length !== undefined && length !== '0');
}

/**
 * A JSON or form body, read by the route that needs it, after its token check: an unauthenticated
 * client never has a body read into memory, and each route states its own limit.
 */
export function jsonOrFormBody(limit: number | string = FORM_BODY_LIMIT_BYTES): RequestHandler[] {
  return [
    express.json({ limit }),
    express.urlencoded({ extended: false, limit, parameterLimit: 100 }),
  ];
}
