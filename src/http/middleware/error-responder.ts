import type { ErrorRequestHandler, RequestHandler } from 'express';
import { ZodError } from 'zod';
import { AppError, type ErrorDetail } from '../../errors';
import { errorFields, type Logger } from '../../infra/logger';
import { isRedisUnavailable } from '../../infra/redis';

/** body-parser's error types, mapped to ours. */
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
  return undefined;
}

/** The one place an error becomes an HTTP answer: the CONTRACT shape, never a stack trace. */
export function errorResponder(logger: Logger): ErrorRequestHandler {
  return (error: unknown, req, res, next) => {
    if (res.headersSent) return next(error);
    const known = toAppError(error);
    const appError =
      known ?? new AppError('INTERNAL', 'Something went wrong; the log has the details.');
    if (known) {
      logger.log(appError.status >= 500 ? 'error' : 'warn', 'request failed', {
        code: appError.code,
        status: appError.status,
        method: req.method,
        path: req.path,
        errMessage: appError.message,
        ...(typeof appError.cause === 'string' ? { cause: appError.cause } : {}),
      });
    } else {
      logger.error('request crashed', {
        method: req.method,
        path: req.path,
        ...errorFields(error),
      });
    }
    if (appError.retryAfterMs !== undefined) {
      res.setHeader('retry-after', String(Math.ceil(appError.retryAfterMs / 1000)));
    }
    res.status(appError.status).json({
      error: {
        code: appError.code,
        message: appError.message,
        details: appError.details,
        request_id: req.id,
      },
    });
  };
}

/** Every unmatched route: a JSON 404, never Express's HTML page. */
export function notFound(): RequestHandler {
  return (req, _res, next) => {
    next(new AppError('NOT_FOUND', `No route for ${req.method} ${req.path}.`));
  };
}
