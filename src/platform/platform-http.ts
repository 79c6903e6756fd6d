import axios, { type AxiosInstance, type AxiosRequestConfig } from 'axios';
import { Agent as HttpAgent } from 'node:http';
import { Agent as HttpsAgent } from 'node:https';
import { setTimeout as sleep } from 'node:timers/promises';
import type { ZodType } from 'zod';
import { AppError } from '../errors';
import type { Logger } from '../infra/logger';
import { packageVersion } from '../infra/package-version';
import { answerOf, describeNetworkFailure, type PlatformAnswer } from './answer-classification';
import { unexpectedFields } from './documented-schemas';

export interface PlatformHttpOptions {
  baseUrl: string;
  email: string;
  password: string;
  apiKey: string;
  timeoutMs: number;
  logger: Logger;
  /**
   * Extra attempts of idempotent GETs on a transient failure; 0 by default, since under the
   * queues retries belong to the jobs. The CLI opts in. POSTs and PUTs never retry here.
   */
  getRetries?: number;
  /** First delay between GET attempts; it grows fourfold, with jitter. */
  getRetryBaseMs?: number;
  /** A Retry-After longer than this is not waited out here: the caller gets the error. */
  getRetryMaxWaitMs?: number;
  /** Largest answer accepted, in bytes. */
  maxResponseBytes?: number;
}

export interface PlatformRequest {
  method: 'GET' | 'POST' | 'PUT';
  path: string;
  query?: Record<string, string | number>;
  body?: unknown;
  idempotencyKey?: string;
  /** The path's pattern for logs, e.g. `/services/:id` (the path itself when absent). */
  route?: string;
}

const USER_AGENT = `checkout-connector/${packageVersion()}`;
/** Connections to one platform origin, for all shops of the process together. */
const MAX_SOCKETS = 256;
/** Bounds the memory of warned fields whatever the platform sends. */
const MAX_WARNED_FIELDS = 10_000;
/**
 * Walking a whole service for fields the documentation does not name costs more CPU than the
 * rest of a checkout's platform call: every answer of a route is looked at until this many,
 * then one in SAMPLE_EVERY (a new field still shows within a few dozen checkouts).
 */
const LOOK_AT_FIRST = 100;
const SAMPLE_EVERY = 20;

let transport: AxiosInstance | undefined;

/**
 * The one axios instance and keep-alive pool of every PlatformHttp in the process: each shop's
 * client adds its base URL and credentials to each request, so a thousand shops hold one pool.
 */
function sharedTransport(): AxiosInstance {
  const agentOptions = { keepAlive: true, maxSockets: MAX_SOCKETS };
  transport ??= axios.create({
    httpAgent: new HttpAgent(agentOptions),
    httpsAgent: new HttpsAgent(agentOptions),
    maxRedirects: 0,
    responseType: 'text',
    transformResponse: [(data: unknown) => data],
    validateStatus: () => true,
  });
  return transport;
}

/**
 * HTTP to the platform: auth headers, a hard deadline per request, JSON parsing by hand (so
 * a broken body is a typed error), and errors that keep method, path, status and code only —
 * never the AxiosError, which carries the request headers.
 */
export class PlatformHttp {
  /** This client's part of every request: where, how long, how much, as whom. */
  private readonly request: Pick<AxiosRequestConfig, 'baseURL' | 'timeout' | 'maxContentLength'> & {
    headers: Record<string, string>;
  };
  private readonly logger: Logger;
  private readonly timeoutMs: number;
  private readonly getRetries: number;
  private readonly getRetryBaseMs: number;
  private readonly getRetryMaxWaitMs: number;
  /** Fields already warned about, so a shape the platform keeps sending is logged once. */
  private readonly warnedFields = new Set<string>();
  private readonly answersSeen = new Map<string, number>();

  constructor(options: PlatformHttpOptions) {
    this.logger = options.logger;
    this.timeoutMs = options.timeoutMs;
    this.getRetries = options.getRetries ?? 0;
    this.getRetryBaseMs = options.getRetryBaseMs ?? 250;
    this.getRetryMaxWaitMs = options.getRetryMaxWaitMs ?? 5000;
    const basic = Buffer.from(`${options.email}:${options.password}`).toString('base64');
    this.request = {
      baseURL: options.baseUrl,
      timeout: options.timeoutMs,
      maxContentLength: options.maxResponseBytes ?? 20 * 1024 * 1024,
      headers: {
        authorization: `Basic ${basic}`,
        'x-dreamfactory-api-key': options.apiKey,
        accept: 'application/json',
        'user-agent': USER_AGENT,
      },
    };
  }

  /** Sends one request; a non-2xx answer or a network failure becomes an AppError. */
  async send(request: PlatformRequest): Promise<PlatformAnswer> {
    const attempts = request.method === 'GET' ? 1 + this.getRetries : 1;
    for (let attempt = 1; ; attempt += 1) {
      try {
        return await this.sendOnce(request);
      } catch (error) {
        const waitMs = this.retryDelayMs(error, attempt, attempts);
        if (waitMs === undefined) throw error;
        this.logger.warn('platform request retrying', {
          method: request.method,
          path: request.path,
          attempt,
          waitMs,
          code: (error as AppError).code,
        });
        await sleep(waitMs);
      }
    }
  }

  /**
   * Sends, then reads the JSON answer with `schema` (a mismatch is PLATFORM_BAD_RESPONSE naming
   * the field); fields the `documented` schema does not name are warned of once, kept as sent.
   */
  async sendAndParse<T>(
    request: PlatformRequest,
    schema: ZodType<T>,
    documented?: ZodType,
  ): Promise<T> {
    return (await this.sendAndRead(request, schema, documented)).data;
  }

  /** As `sendAndParse`, keeping the body as the platform sent it beside what was read of it. */
  async sendAndRead<T>(
    request: PlatformRequest,
    schema: ZodType<T>,
    documented?: ZodType,
  ): Promise<{ data: T; sent: unknown }> {
    const answer = await this.send(request);
    const result = schema.safeParse(answer.body);
    if (result.success) {
      if (documented) this.warnUnexpected(request, documented, answer.body);
      return { data: result.data, sent: answer.body };
    }
    const details = result.error.issues.slice(0, 10).map((issue) => ({
      field: issue.path.join('.') || '(body)',
      problem: issue.message,
    }));
    throw new AppError(
      'PLATFORM_BAD_RESPONSE',
      `The platform's answer to ${request.method} ${request.path} has an unexpected shape at ${details[0]?.field ?? '(body)'}.`,
      { details },
    );
  }

  private warnUnexpected(request: PlatformRequest, documented: ZodType, body: unknown): void {
    const where = `${request.method} ${request.route ?? request.path}`;
    const seen = (this.answersSeen.get(where) ?? 0) + 1;
    this.answersSeen.set(where, seen);
    if (seen > LOOK_AT_FIRST && seen % SAMPLE_EVERY !== 0) return;
    const fresh = unexpectedFields(documented, body).filter((field) => {
      const key = `${where} ${field.field}`;
      if (this.warnedFields.has(key) || this.warnedFields.size >= MAX_WARNED_FIELDS) return false;
      this.warnedFields.add(key);
      return true;
    });
    if (fresh.length === 0) return;
    this.logger.warn('platform answer has unexpected fields', {
      request: where,
      // The first answer seen with these fields, e.g. /services/1002: `services get` shows it.
      path: request.path,
      fields: fresh,
      handling: 'kept as sent; the checkout reads only ids, status and prices',
    });
  }

  private retryDelayMs(error: unknown, attempt: number, attempts: number): number | undefined {
    const transient = error instanceof AppError && error.code === 'PLATFORM_UNAVAILABLE';
    if (!transient || attempt >= attempts) return undefined;
    const backoff = this.getRetryBaseMs * 4 ** (attempt - 1);
    const jittered = backoff / 2 + Math.random() * (backoff / 2);
    const waitMs = error.retryAfterMs ?? jittered;
    return waitMs <= this.getRetryMaxWaitMs ? Math.round(waitMs) : undefined;
  }

  private async sendOnce(request: PlatformRequest): Promise<PlatformAnswer> {
    const started = Date.now();
    const response = await this.transmit(request, started);
    const { status } = response;
    this.logger.debug('platform answered', {
      method: request.method,
      path: request.path,
      status,
      durationMs: Date.now() - started,
    });
    return answerOf(request, status, response.data, response.headers['retry-after']);
  }

  /** The platform's answer, whatever its status; no answer at all is PLATFORM_UNAVAILABLE. */
  private async transmit(request: PlatformRequest, started: number) {
    try {
      return await sharedTransport().request<string>({
        ...this.request,
        method: request.method,
        url: request.path,
        params: request.query,
        data: request.body,
        headers: request.idempotencyKey
          ? { ...this.request.headers, 'idempotency-key': request.idempotencyKey }
          : this.request.headers,
        // The socket timeout above misses a server that drips bytes; this is the hard deadline.
        signal: AbortSignal.timeout(this.timeoutMs),
      });
    } catch (error) {
      const code = axios.isAxiosError(error) ? error.code : undefined;
      this.logger.debug('platform request failed', {
        method: request.method,
        path: request.path,
        code,
        durationMs: Date.now() - started,
      });
      throw new AppError(
        'PLATFORM_UNAVAILABLE',
        `The platform could not be reached (${describeNetworkFailure(code)}) on ${request.method} ${request.path}.`,
      );
    }
  }
}
