import type { Request, RequestHandler } from 'express';
import helmet from 'helmet';
import { AppError, type ErrorCode } from '../../errors';
import type { Logger } from '../../infra/logger';
import { hasBody } from './body-parsers';

/**
 * The writes the dashboard offers, relative to its mount: retry and clean, of one job or of every
 * job in a state. Adding jobs, editing their data, promoting, pausing, emptying, obliterating:
 * refused, so no one with the dashboard's password can make the platform hear of a payment the
 * checkout record does not hold, or lose a queued notification wholesale.
 */
const OFFERED_WRITES: readonly RegExp[] = [
  /^\/api\/queues\/[^/]+\/(retry|clean)\/(failed|completed|delayed|wait|waiting|active|paused|prioritized|waiting-children)$/,
  /^\/api\/queues\/[^/]+\/[^/]+\/(retry|clean)$/,
];

const READS = new Set(['GET', 'HEAD']);

/**
 * bull-board's UI: its own scripts, styles and fonts from 'self', inline styles (React sets them,
 * and its theme, our local font stacks, is a style element), no other host (its page's Google
 * Fonts link is dropped, src/http/dashboard/offline-page.ts), and nothing may frame it.
 */
export function dashboardHeaders(): RequestHandler {
  return helmet({
    contentSecurityPolicy: {
      useDefaults: false,
      directives: {
        defaultSrc: ["'self'"],
        scriptSrc: ["'self'"],
        styleSrc: ["'self'", "'unsafe-inline'"],
        fontSrc: ["'self'"],
        imgSrc: ["'self'", 'data:'],
        connectSrc: ["'self'"],
        objectSrc: ["'none'"],
        baseUri: ["'self'"],
        formAction: ["'self'"],
        frameAncestors: ["'none'"],
      },
    },
    crossOriginEmbedderPolicy: false,
  });
}

function sameOrigin(req: Request, publicOrigin: string): boolean {
  const origin = req.get('origin');
  if (origin === undefined) return false;
  const site = req.get('sec-fetch-site');
  if (site !== undefined && site !== 'same-origin') return false;
  return origin === publicOrigin || origin === `${req.protocol}://${req.get('host') ?? ''}`;
}

/**
 * After basic auth: reads pass; a write must come from the dashboard's own page (Origin, and
 * Sec-Fetch-Site where the browser sends it), carry JSON or nothing, and be one the dashboard
 * offers. Every write that passes is logged at info with the operator and its answer.
 */
export function dashboardWriteGuard(options: {
  publicUrl: string;
  operator: string;
  logger: Logger;
}): RequestHandler {
  const publicOrigin = new URL(options.publicUrl).origin;
  return (req, res, next) => {
    if (READS.has(req.method)) return next();
    if (!sameOrigin(req, publicOrigin)) {
      return next(
        new AppError('FORBIDDEN', 'Dashboard writes must come from the dashboard itself.', {
          details: [{ field: 'origin', problem: 'missing, or not this dashboard' }],
        }),
      );
    }
    if (hasBody(req) && !req.is('application/json')) {
      return next(new AppError('UNSUPPORTED_MEDIA_TYPE', 'Dashboard writes take JSON or no body.'));
    }
    if (req.method !== 'PUT' || !OFFERED_WRITES.some((pattern) => pattern.test(req.path))) {
      return next(
        new AppError('FORBIDDEN', 'The dashboard offers retry and clean only.', {
          details: [{ field: 'action', problem: `${req.method} ${req.path} is not offered` }],
        }),
      );
    }
    res.on('finish', () =>
      options.logger.info('dashboard write', {
        operator: options.operator,
        method: req.method,
        path: req.path,
        status: res.statusCode,
      }),
    );
    next();
  };
}

const CODE_FOR_STATUS: Record<number, ErrorCode> = {
  401: 'UNAUTHORIZED',
  403: 'FORBIDDEN',
  404: 'NOT_FOUND',
  405: 'METHOD_NOT_ALLOWED',
  413: 'PAYLOAD_TOO_LARGE',
  415: 'UNSUPPORTED_MEDIA_TYPE',
  429: 'RATE_LIMITED',
};
const codeForStatus = (status: number): ErrorCode =>
  CODE_FOR_STATUS[status] ?? (status >= 500 ? 'INTERNAL' : 'VALIDATION_FAILED');

/**
 * bull-board answers its API errors as `{error: {key}}` (a translation key its UI reads), and
 * an unexpected one with the thrown message and, in development, the stack. Each becomes the
 * CONTRACT shape, keeping `key` for the UI and dropping message and stack; a 5xx is logged.
 */
export function dashboardErrorShape(logger: Logger): RequestHandler {
  return (req, res, next) => {
    const json = res.json.bind(res);
    res.json = (body: unknown) => {
      const error = (body as { error?: unknown } | null)?.error;
      if (res.statusCode < 400 || typeof error !== 'object' || error === null) return json(body);
      const key = String((error as { key?: unknown }).key ?? 'ERRORS.UNKNOWN');
      const code = codeForStatus(res.statusCode);
      if (res.statusCode >= 500) {
        logger.error('dashboard request failed', {
          method: req.method,
          path: req.path,
          status: res.statusCode,
          key,
          errMessage: String((body as { message?: unknown }).message ?? ''),
        });
      }
      return json({
        error: {
          key,
          code,
          message: `The dashboard could not do this (${key}).`,
          details: [],
          request_id: req.id,
        },
      });
    };
    next();
  };
}
