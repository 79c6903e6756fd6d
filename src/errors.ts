/** A code no retry can help, and one a retry may. */
const final = (status: number, text: string) => ({ status, retryable: false, text });
const retryable = (status: number, text: string) => ({ status, retryable: true, text });

/** Every error code, its HTTP status and whether a retry can help; README's table is kept in sync by a test. */
export const ERROR_CATALOGUE = {
  VALIDATION_FAILED: final(400, 'The request has a missing or invalid field.'),
  INVALID_SERVICE_ID: final(
    400,
    '`service_id` is not a service id: a positive integer of at most 15 digits (JSON number, or digits in a string, a form or the query).',
  ),
  MALFORMED_JSON: final(400, 'The body is not valid JSON.'),
  UNAUTHORIZED: final(401, 'Missing or wrong token.'),
  FORBIDDEN: final(
    403,
    'The dashboard refuses this: a cross-site write, or an action it does not offer.',
  ),
  NOT_FOUND: final(404, 'No such route or resource.'),
  METHOD_NOT_ALLOWED: final(
    405,
    'The path exists but not for this method; `Allow` lists the methods it serves.',
  ),
  UNKNOWN_PROVIDER: final(404, 'No payment provider of that name is configured.'),
  SHOP_NOT_FOUND: retryable(
    404,
    'No shop of that id is served (never added, or removed); a job of such a shop waits for it.',
  ),
  SHOP_DISABLED: final(
    403,
    'The shop is disabled: it takes no new checkout (what it has in flight still completes).',
  ),
  SHOP_NEEDS_RECONNECT: retryable(
    503,
    "The shop's provider account must be connected again (its provider refused to renew the connection): no checkout is started until the owner follows a new link (`connector shops connect`).",
  ),
  CONNECT_LINK_INVALID: final(
    404,
    'The connect link is unknown, used or expired: ask for a new one (`connector shops connect`).',
  ),
  CONNECT_OTHER_BROWSER: final(
    400,
    "A connect callback (the provider's redirect back) came to a browser other than the one that pressed the link's button: nothing changed; the owner opens the link again in one browser.",
  ),
  CONNECT_NOT_CONFIGURED: final(
    409,
    'This deployment has no vendor account to connect that provider with (its variables, such as `MERCADOPAGO_CLIENT_ID`, are unset), or the provider cannot be connected.',
  ),
  SHOP_EXISTS: final(409, "A shop of that id exists already (the id `default` is the env shop's)."),
  SHOP_HAS_OPEN_WORK: retryable(
    409,
    'The shop has open checkouts or undelivered finish/cancel; it can be removed once they are done.',
  ),
  SHOP_CHANGED: retryable(
    409,
    'The shop was changed by another request meanwhile, again and again; try again.',
  ),
  SHOP_CREDENTIALS_REJECTED: final(
    422,
    "The platform or the payment provider refused the shop's credentials; `details` says which. Nothing was stored.",
  ),
  CHECKOUT_ALREADY_PAID: final(409, 'The service was already paid; no new checkout is opened.'),
  CHECKOUT_UNREADABLE: retryable(
    409,
    'A checkout record of the service does not read as a checkout (data no version of the store wrote); a person mends or deletes it (`connector checkout status --unreadable`), then a retry works.',
  ),
  PAYLOAD_TOO_LARGE: final(413, 'The body exceeds the size limit.'),
  UNSUPPORTED_MEDIA_TYPE: final(415, 'The body encoding or charset is not supported.'),
  EXPECTATION_FAILED: final(
    417,
    'The request carries an `Expect` other than `100-continue`, the only one served.',
  ),
  RATE_LIMITED: retryable(
    429,
    'Too many requests from this address; `Retry-After` says when to try again.',
  ),
  PLATFORM_UNAVAILABLE: retryable(
    503,
    'The platform timed out, refused, or answered 408/425/429/5xx.',
  ),
  PLATFORM_REJECTED: final(
    502,
    'The platform refused the request (a 3xx, or a 4xx other than 408/425/429).',
  ),
  PLATFORM_BAD_RESPONSE: final(502, 'The platform answered with a body the connector cannot read.'),
  PLATFORM_PAGINATION_LOOP: final(502, 'The platform repeated a page offset; listing stopped.'),
  PROVIDER_UNAVAILABLE: retryable(
    503,
    'The payment provider timed out, refused, or answered 429/5xx.',
  ),
  PROVIDER_REJECTED: final(
    502,
    'The payment provider refused the request (its message is in the log).',
  ),
  ERP_UNAVAILABLE: retryable(
    503,
    'The ERP (webhook or export folder) timed out, refused, answered 408/425/429/5xx, or could not be written.',
  ),
  ERP_REJECTED: final(
    502,
    'The ERP webhook refused the service: a 4xx other than 401/403/404/408/425/429 fails for good; 3xx, 401, 403 and 404 are retried while a person fixes the URL or secret.',
  ),
  WEBHOOK_SIGNATURE_INVALID: final(
    400,
    'A webhook whose signature, secret or timestamp does not verify; nothing changed.',
  ),
  NOTIFICATION_MISMATCH: final(
    422,
    'A finish/cancel job names no checkout, or one whose record holds another outcome.',
  ),
  REDIS_UNAVAILABLE: retryable(503, 'Redis does not answer; nothing was recorded, try again.'),
  INTERNAL: final(500, 'An unexpected error; the log has the details.'),
};

export type ErrorCode = keyof typeof ERROR_CATALOGUE;

/** One problem with one field, as shown in `error.details`. */
export interface ErrorDetail {
  field: string;
  problem: string;
}

export interface AppErrorOptions {
  details?: ErrorDetail[];
  /** Overrides the catalogue's default, e.g. a 4xx that is known to be transient. */
  retryable?: boolean;
  /** How long the other side asked us to wait (Retry-After), when it said. */
  retryAfterMs?: number;
  /** Upstream HTTP status, when the error came from an HTTP answer. */
  upstreamStatus?: number;
  /** A secret-free cause; never a raw AxiosError (it carries request headers). */
  cause?: unknown;
  /** Part of normal use (a browser asking for credentials before it sends them): logged as `info`. */
  routine?: boolean;
}

/** An error the connector understands: a catalogued code, a safe message, and whether retrying can help. */
export class AppError extends Error {
  readonly code: ErrorCode;
  readonly details: ErrorDetail[];
  readonly retryable: boolean;
  readonly retryAfterMs: number | undefined;
  readonly upstreamStatus: number | undefined;
  readonly routine: boolean;

  constructor(code: ErrorCode, message: string, options: AppErrorOptions = {}) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.name = 'AppError';
    this.code = code;
    this.details = options.details ?? [];
    this.retryable = options.retryable ?? ERROR_CATALOGUE[code].retryable;
    this.retryAfterMs = options.retryAfterMs;
    this.upstreamStatus = options.upstreamStatus;
    this.routine = options.routine ?? false;
  }

  get status(): number {
    return ERROR_CATALOGUE[this.code].status;
  }
}

/** What went wrong, in one line: an Error's message, or anything else written out. */
export function errorMessage(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
