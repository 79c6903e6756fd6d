import type { ErrorRequestHandler, RequestHandler } from 'express';
import { ZodError } from 'zod';
import { AppError, type ErrorDetail } from '../../errors';
import { errorFields, type Logger } from '../../infra/logger';
import { isRedisUnavailable } from '../../redis/redis';
import { loggedPath } from '../logged-path';

const BODY_ERRORS: Record<string, () => AppError> = {
  'entity.parse.failed': () =>
    new AppError('MALFORMED_JSON', 'The request body is not valid JSON.'),
  'entity.too.large': () => new AppError('PAYLOAD_TOO_LARGE', 'The request body is too large.'),
  'encoding.unsupported': () =>
    new AppError('UNSUPPORTED_MEDIA_TYPE', 'The request body encoding is not supported.'),
  'charset.unsupported': () =>
    new AppError('UNSUPPORTED_MEDIA_TYPE', 'The request body charset is not supported.'),
  'parameters.too.many': () => new AppError('PAYLOAD_TOO_LARGE', 'The form has too many fields.'),
  'request.size.invalid': () =>
    new AppError('VALIDATION_FAILED', 'The body length does not match Content-Length.'),
  'request.aborted': () => new AppError('VALIDATION_FAILED', 'The request was aborted.'),
};

/** zod issues as error details, naming the field and never echoing the value. */
export function zodDetails(error: ZodError): ErrorDetail[] {
  return error.issues.map((issue) => ({
    field: issue.path.join('.') || '(body)',
    problem: issue.message,
  }));
}

function toAppError(error: unknown): AppError | undefined {
  if (error instanceof AppError) return error;
  if (error instanceof ZodError) {
    return new AppError('VALIDATION_FAILED', 'The request is invalid.', {
      details: zodDetails(error),
    });
  }
  if (isRedisUnavailable(error)) {
    return new AppError(
      'REDIS_UNAVAILABLE',
      'The connector cannot reach Redis right now; try again shortly.',
      { cause: (error as Error).message },
    );
  }
  const type = (error as { type?: unknown } | null)?.type;
  if (typeof type === 'string' && BODY_ERRORS[type]) return BODY_ERRORS[type]();
  return fromClientErrorStatus(error);
}

/**
 * Whatever Express, its router or the body parsers reject as the client's fault (they mark such
 * errors with a 4xx `status`: a path that does not decode, a body whose Content-Encoding does not
 * inflate...): a 4xx of ours, never a 500.
 */
function fromClientErrorStatus(error: unknown): AppError | undefined {
  const status = (error as { status?: unknown; statusCode?: unknown } | null)?.status;
  if (typeof status !== 'number' || status < 400 || status >= 500) return undefined;
  if (status === 413) return new AppError('PAYLOAD_TOO_LARGE', 'The request body is too large.');
  if (status === 415) {
    return new AppError('UNSUPPORTED_MEDIA_TYPE', 'The request body cannot be handled.');
  }
  // A path that does not decode: the router's message quotes the segment (a link's token, say).
  if (error instanceof URIError)
    return new AppError('VALIDATION_FAILED', 'The path could not be read.');
  return new AppError('VALIDATION_FAILED', 'The request could not be read.', {
    cause: error instanceof Error ? error.message.slice(0, 200) : undefined,
  });
}

/** An error as the connector answers it: the CONTRACT shape, never a stack trace. */
export interface ErrorAnswer {
  status: number;
  body: {
    error: { code: string; message: string; details: ErrorDetail[]; request_id: string };
  };
  retryAfterSeconds?: number;
}

/**
 * The one place an error becomes an answer (Express's error handler and the checkout route's
 * front door both use it): a known error is logged as `warn` (a 5xx as `error`, a routine one
 * as `info`), anything else as `request crashed` with its stack, and answered INTERNAL. The
 * path is logged as `loggedPath` writes it (never a link's token).
 */
export function errorAnswer(
  error: unknown,
  logger: Logger,
  request: { method: string; path: string; id: string },
): ErrorAnswer {
  const known = toAppError(error);
  const fields = { method: request.method, path: loggedPath(request.path) };
  if (known) logKnown(logger, known, fields);
  else logger.error('request crashed', { ...fields, ...errorFields(error) });
  const appError =
    known ?? new AppError('INTERNAL', 'Something went wrong; the log has the details.');
  const { code, message, details, retryAfterMs } = appError;
  return {
    status: appError.status,
    body: { error: { code, message, details, request_id: request.id } },
    ...(retryAfterMs === undefined ? {} : { retryAfterSeconds: Math.ceil(retryAfterMs / 1000) }),
  };
}

function logKnown(logger: Logger, known: AppError, request: { method: string; path: string }) {
  const level = known.status >= 500 ? 'error' : known.routine ? 'info' : 'warn';
  logger.log(level, 'request failed', {
    code: known.code,
    status: known.status,
    ...request,
    errMessage: known.message,
    ...(typeof known.cause === 'string' ? { cause: known.cause } : {}),
  });
}

export function errorResponder(logger: Logger): ErrorRequestHandler {
  return (error: unknown, req, res, next) => {
    if (res.headersSent) return next(error);
    const answer = errorAnswer(error, logger, { method: req.method, path: req.path, id: req.id });
    // A body left unread (refused before it was read): close rather than drain it for keep-alive.
    if (!req.complete) res.setHeader('connection', 'close');
    if (answer.retryAfterSeconds !== undefined) {
      res.setHeader('retry-after', String(answer.retryAfterSeconds));
    }
    res.status(answer.status).json(answer.body);
  };
}

/** Every unmatched route: a JSON 404, never Express's HTML page. */
export function notFound(): RequestHandler {
  return (req, _res, next) => {
    // Its message is logged too: the path as every log line writes it.
    next(new AppError('NOT_FOUND', `No route for ${req.method} ${loggedPath(req.path)}.`));
  };
}
