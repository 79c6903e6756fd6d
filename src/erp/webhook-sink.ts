import axios, { type AxiosInstance } from 'axios';
import { AppError } from '../errors';
import type { Log } from '../log';
import {
  classifyStatus,
  describeNetworkFailure,
  parseRetryAfterMs,
} from '../platform/answer-classification';
import { textOf } from '../platform/schemas';
import type { ErpPayment, ErpSink, SinkReceipt } from '../sync/ports';
import { SHOP_HEADER, SIGNATURE_HEADER, signatureHeader } from './signature';

export interface WebhookSinkOptions {
  url: string;
  secret: string;
  timeoutMs: number;
  log: Log;
  /** A registry shop's id: named in `X-Connector-Shop` and signed (the env shop's: undefined). */
  shop?: string;
  /** Seconds since the epoch (tests pin it). */
  now?: () => number;
}

/** The longest ERP order code taken from an answer (the platform's own limit is not documented). */
const MAX_CODE_LENGTH = 255;

/** `{"internal_code": "..."}` from a 2xx answer; anything else is no code (and no failure). */
function codeFrom(data: unknown): string | undefined {
  if (!data || typeof data !== 'object') return undefined;
  const code = textOf((data as { internal_code?: unknown }).internal_code)?.trim();
  return code && code.length <= MAX_CODE_LENGTH ? code : undefined;
}

/**
 * ERP_SINK=webhook: POSTs each service as JSON to the ERP, signed (`X-Connector-Signature`),
 * with `X-Connector-Delivery` the same on every attempt of one version and `X-Connector-Event:
 * service` (a payment record: `payment`). A 2xx delivers; its
 * `internal_code`, when given, is the ERP order to link. Other answers fail as the platform's
 * do: 408/425/429/5xx and network errors are retried, 3xx/401/403/404 too (with an error logged:
 * a person must fix the secret or the URL), any other 4xx fails for good. The secret and the
 * URL's credentials never reach a log or an error.
 */
export class WebhookSink implements ErpSink {
  readonly kind = 'webhook';
  private readonly http: AxiosInstance;

  constructor(private readonly options: WebhookSinkOptions) {
    this.http = axios.create({
      timeout: options.timeoutMs,
      maxRedirects: 0,
      validateStatus: () => true,
      // The body is sent as signed, byte for byte.
      transformRequest: [(data: unknown) => data],
      responseType: 'json',
    });
  }

  async deliver(delivery: {
    serviceId: number;
    sent: unknown;
    deliveryId: string;
  }): Promise<SinkReceipt> {
    const data = await this.post(delivery.sent, delivery.deliveryId, 'service', {
      serviceId: delivery.serviceId,
    });
    return { internalCode: codeFrom(data) };
  }

  /** A payment record, to the same URL, signed alike, `X-Connector-Event: payment`. */
  async deliverPayment(delivery: { record: ErpPayment; deliveryId: string }): Promise<void> {
    await this.post(delivery.record, delivery.deliveryId, 'payment', {
      checkoutId: delivery.record.checkout_id,
      event: delivery.record.event,
    });
  }

  /** POSTs one delivery; its answer's body on a 2xx, else the failure as the class says. */
  private async post(
    body: unknown,
    deliveryId: string,
    event: 'service' | 'payment',
    about: Record<string, unknown>,
  ): Promise<unknown> {
    const response = await this.send(JSON.stringify(body), deliveryId, event);
    const answer = classifyStatus(response.status);
    if (answer === 'success') return response.data as unknown;
    const message = `ERP webhook answered ${response.status}.`;
    if (answer === 'transient') {
      throw new AppError('ERP_UNAVAILABLE', message, {
        upstreamStatus: response.status,
        retryAfterMs: parseRetryAfterMs(response.headers['retry-after']),
      });
    }
    // 3xx, 401, 403, 404: a person can fix the secret or the URL while the queue retries.
    const misconfigured = answer === 'misconfigured';
    if (misconfigured) {
      this.options.log.error(
        'the ERP webhook refuses the connector: check ERP_WEBHOOK_URL and ERP_WEBHOOK_SECRET',
        { status: response.status, ...about },
      );
    }
    throw new AppError('ERP_REJECTED', message, {
      upstreamStatus: response.status,
      retryable: misconfigured,
    });
  }

  /** The signed POST, whatever its answer; no answer at all is ERP_UNAVAILABLE. */
  private async send(raw: string, deliveryId: string, event: 'service' | 'payment') {
    const { shop, secret } = this.options;
    const now = this.options.now?.() ?? Math.floor(Date.now() / 1000);
    try {
      return await this.http.post(this.options.url, raw, {
        headers: {
          'content-type': 'application/json',
          accept: 'application/json',
          [SIGNATURE_HEADER]: signatureHeader(secret, raw, now, shop),
          'X-Connector-Delivery': deliveryId,
          'X-Connector-Event': event,
          ...(shop === undefined ? {} : { [SHOP_HEADER]: shop }),
        },
      });
    } catch (error) {
      const code = (error as { code?: string }).code;
      throw new AppError('ERP_UNAVAILABLE', `ERP webhook: ${describeNetworkFailure(code)}.`);
    }
  }
}
