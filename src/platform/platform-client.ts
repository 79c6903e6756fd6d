import type { ZodType } from 'zod';
import { AppError } from '../errors';
import { PlatformHttp, type PlatformHttpOptions } from './platform-http';
import {
  serviceIdentitySchema,
  serviceListSchema,
  serviceSchema,
  type ServiceIdentity,
  type Service,
  type ServiceListItem,
} from './schemas';
import { documentedServiceListSchema, documentedServiceSchema } from './documented-schemas';

/** Filters passed through to GET /services as given (`status`, `internal_code`, dates...). */
export type ServiceFilters = Record<string, string | number>;

export interface ServicePage {
  items: ServiceListItem[];
  /** Offset of the next page; null on the last one. */
  next: number | null;
  count: number | undefined;
}

/** What every payment call carries: the service, and the key that makes retries safe. */
export interface PaymentCall {
  serviceId: number;
  /** Sent as the Idempotency-Key header; the same on every attempt of one notification. */
  idempotencyKey?: string;
}

export type ServiceLookup<T = Service> =
  | {
      found: true;
      service: T;
      /** The answer as the platform sent it (numbers as strings stay strings): for the ERP. */
      sent: unknown;
    }
  | { found: false };

export interface PlatformClientOptions extends PlatformHttpOptions {
  /** Page size of `iterateServices` when the caller does not choose one. */
  pageSize?: number;
}

/** Ids are positive integers [doc]; anything else is refused before a request is made. */
function servicePath(id: number): string {
  if (!Number.isSafeInteger(id) || id <= 0) {
    throw new AppError('VALIDATION_FAILED', 'service_id must be a positive integer.', {
      details: [{ field: 'service_id', problem: 'must be a positive integer' }],
    });
  }
  return `/services/${id}`;
}

function isNotFound(error: unknown): boolean {
  return error instanceof AppError && error.upstreamStatus === 404;
}

/**
 * The platform's API as the connector uses it. The one home of the platform's paths and
 * bodies; docs/platform.md lists which are documented and which are our assumptions.
 */
export class PlatformClient {
  private readonly http: PlatformHttp;
  private readonly pageSize: number;

  constructor(options: PlatformClientOptions) {
    this.http = new PlatformHttp(options);
    this.pageSize = options.pageSize ?? 50;
  }

  /** One page of GET /services. */
  async listServices(
    filters: ServiceFilters,
    page: { limit: number; offset: number },
  ): Promise<ServicePage> {
    const body = await this.http.sendAndParse(
      {
        method: 'GET',
        path: '/services',
        query: { ...filters, limit: page.limit, offset: page.offset },
      },
      serviceListSchema,
      documentedServiceListSchema,
    );
    return {
      items: body.resource,
      next: body.meta.next ?? null,
      count: body.meta.count ?? undefined,
    };
  }

  /**
   * Every page of services matching `filters`, following `meta.next`; only one page is held at a
   * time. Stops with PLATFORM_PAGINATION_LOOP if the platform repeats an offset.
   */
  async *iterateServicePages(
    filters: ServiceFilters = {},
    options: { pageSize?: number; startOffset?: number } = {},
  ): AsyncGenerator<ServicePage & { offset: number }> {
    const limit = options.pageSize ?? this.pageSize;
    const seen = new Set<number>();
    let offset: number | null = options.startOffset ?? 0;
    while (offset !== null) {
      if (seen.has(offset)) {
        throw new AppError(
          'PLATFORM_PAGINATION_LOOP',
          `The platform sent offset ${offset} again; listing stopped to avoid an endless loop.`,
        );
      }
      seen.add(offset);
      const page = await this.listServices(filters, { limit, offset });
      yield { ...page, offset };
      offset = page.next;
    }
  }

  /** Every service matching `filters`, one at a time, over `iterateServicePages`. */
  async *iterateServices(
    filters: ServiceFilters = {},
    options: {
      pageSize?: number;
      startOffset?: number;
      onPage?: (page: ServicePage, offset: number) => void;
    } = {},
  ): AsyncGenerator<ServiceListItem> {
    for await (const page of this.iterateServicePages(filters, options)) {
      options.onPage?.(page, page.offset);
      yield* page.items;
    }
  }

  /** GET /services/:id; a 404 is `{ found: false }`, not an exception. */
  getService(id: number): Promise<ServiceLookup> {
    return this.readService(id, serviceSchema);
  }

  /**
   * GET /services/:id for the ERP: the answer as the platform sent it, reading only its id and
   * status (a service whose priced lines the checkout could not read still reaches the ERP).
   */
  getServiceAsSent(id: number): Promise<ServiceLookup<ServiceIdentity>> {
    return this.readService(id, serviceIdentitySchema);
  }

  /** GET /services/:id read through `schema`, the answer kept as sent; a 404 is not found. */
  private async readService<T>(id: number, schema: ZodType<T>): Promise<ServiceLookup<T>> {
    try {
      const { data, sent } = await this.http.sendAndRead(
        { method: 'GET', path: servicePath(id), route: '/services/:id' },
        schema,
        documentedServiceSchema,
      );
      return { found: true, service: data, sent };
    } catch (error) {
      if (isNotFound(error)) return { found: false };
      throw error;
    }
  }

  /** PUT /services/:id with the ERP order code [doc]; false when the service does not exist. */
  async linkService(id: number, internalCode: string): Promise<boolean> {
    try {
      await this.http.send({
        method: 'PUT',
        path: servicePath(id),
        body: { internal_code: internalCode },
      });
      return true;
    } catch (error) {
      if (isNotFound(error)) return false;
      throw error;
    }
  }

  /** POST /payment/checkout-url. [ours] body: `{service_id, checkout_url}`. */
  postCheckoutUrl(input: PaymentCall & { checkoutUrl: string }): Promise<void> {
    return this.postPayment('checkout-url', input, { checkout_url: input.checkoutUrl });
  }

  /** POST /payment/finish-checkout. [ours] body: `{service_id, transaction_id}`. */
  finishCheckout(input: PaymentCall & { transactionId: string }): Promise<void> {
    return this.postPayment('finish-checkout', input, { transaction_id: input.transactionId });
  }

  /** POST /payment/cancel-checkout. [ours] body: `{service_id, reason}`. */
  cancelCheckout(input: PaymentCall & { reason: string }): Promise<void> {
    return this.postPayment('cancel-checkout', input, { reason: input.reason });
  }

  private async postPayment(
    endpoint: 'checkout-url' | 'finish-checkout' | 'cancel-checkout',
    call: PaymentCall,
    fields: Record<string, string>,
  ): Promise<void> {
    await this.http.send({
      method: 'POST',
      path: `/payment/${endpoint}`,
      body: { service_id: call.serviceId, ...fields },
      idempotencyKey: call.idempotencyKey,
    });
  }
}
