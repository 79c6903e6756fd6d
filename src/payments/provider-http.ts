import type { Agent } from 'node:https';
import axios from 'axios';
import type { z } from 'zod';
import { AppError } from '../errors';

export interface ProviderRequest {
  method: 'GET' | 'POST' | 'PUT' | 'PATCH';
  url: string;
  data?: unknown;
  params?: unknown;
  headers?: Record<string, string>;
}

/** Calls one provider's API and checks the answer's shape; see `providerHttp`. */
export type ProviderCall = <T>(
  action: string,
  request: ProviderRequest,
  schema: z.ZodType<T>,
) => Promise<T>;

/**
 * The HTTP client of an adapter that speaks to its provider's REST API with axios (every
 * provider without an SDK): a configurable base URL (a loopback fake in tests), no redirects,
 * and one mapping of failures: no answer, a 429 or a 5xx is PROVIDER_UNAVAILABLE (retried); another non-2xx, or a
 * 2xx of an unexpected shape, is PROVIDER_REJECTED. The message says which provider answered
 * what status, never what it said nor how a connection failed: those go to the error's `cause`,
 * which is logged and never answered (a host that answers is not always the provider's).
 */
export function providerHttp(options: {
  label: string;
  baseURL: string;
  headers: Record<string, string>;
  timeoutMs: number;
  messageOf(body: unknown): string | undefined;
  /** The TLS agent of a provider that wants the shop's client certificate (mTLS: API Pix). */
  httpsAgent?: Agent;
}): ProviderCall {
  // Axios's default instance, this shop's settings on each request: an instance of its own per
  // shop held a dozen bound functions and config objects for each of a thousand shops.
  const settings = {
    baseURL: options.baseURL,
    timeout: options.timeoutMs,
    maxRedirects: 0,
    validateStatus: () => true,
    ...(options.httpsAgent ? { httpsAgent: options.httpsAgent } : {}),
  };
  const headers = { accept: 'application/json', ...options.headers };
  return async (action, request, schema) => {
    const { status, data } = await axios
      .request({
        ...settings,
        ...request,
        headers: request.headers ? { ...headers, ...request.headers } : headers,
      })
      .catch((error: unknown) => {
        throw unreached(options.label, action, axios.isAxiosError(error) ? error.code : undefined);
      });
    return answerOf(options, action, status, data, schema);
  };
}

function answerOf<T>(
  provider: { label: string; messageOf(body: unknown): string | undefined },
  action: string,
  status: number,
  body: unknown,
  schema: z.ZodType<T>,
): T {
  const { label } = provider;
  if (status < 200 || status >= 300) {
    const transient = status === 429 || status >= 500;
    const message = provider.messageOf(body);
    throw new AppError(
      transient ? 'PROVIDER_UNAVAILABLE' : 'PROVIDER_REJECTED',
      `${label} answered ${status} to ${action}.`,
      { upstreamStatus: status, ...(message ? { cause: message.slice(0, 300) } : {}) },
    );
  }
  const parsed = schema.safeParse(body);
  if (!parsed.success) {
    throw new AppError(
      'PROVIDER_REJECTED',
      `${label}'s answer to ${action} has an unexpected shape.`,
    );
  }
  return parsed.data;
}

/**
 * A call that got no answer: PROVIDER_UNAVAILABLE (retried), unless the provider refused the
 * client certificate in the TLS handshake (an alert): not a passing failure, the certificate is
 * wrong, expired or not registered there.
 */
function unreached(label: string, action: string, code: string | undefined): AppError {
  if (code !== undefined && /^ERR_SSL_.*ALERT/.test(code)) {
    const message = `${label} refused the client certificate to ${action}.`;
    return new AppError('PROVIDER_REJECTED', message, { cause: code });
  }
  return new AppError('PROVIDER_UNAVAILABLE', `${label} could not be reached to ${action}.`, {
    cause: code ?? 'network error',
  });
}
