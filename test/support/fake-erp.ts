import { createHmac, timingSafeEqual } from 'node:crypto';
import type { RequestListener } from 'node:http';
import { text } from 'node:stream/consumers';
import { LoopbackFake } from './loopback-server';

/** One delivery as the fake ERP received it. */
export interface ErpDelivery {
  serviceId: number | undefined;
  body: unknown;
  raw: string;
  deliveryId: string | undefined;
  signature: string | undefined;
  verified: boolean;
  /** The shop the signature vouches for (`default` without one), when it verified. */
  shop: string | undefined;
  /** The `X-Connector-Shop` header as sent. */
  shopHeader: string | undefined;
  /** `X-Connector-Event`: `service`, or `payment` (a payment record). */
  event: string | undefined;
  /** The W3C `traceparent`, when the connector traces. */
  traceparent: string | undefined;
  answered: number;
  at: number;
}

/**
 * An ERP's webhook endpoint, written from docs/erp-sync.md, "Verifying a delivery" section (not from the
 * connector's code): it checks `X-Connector-Signature` (t=<unix s>,v1=<hex HMAC-SHA256 of
 * "<t>.<raw body>">, or with `shop=<id>` of "<t>.<shop>.<raw body>"; five minutes of tolerance)
 * with its own HMAC, answers 401 when it does not verify (or when `X-Connector-Shop` is not the
 * shop signed), and otherwise 200 `{"internal_code": "ERP-<id>"}`. `down` answers 503; `codes` off
 * answers `{}`; a service in `refuse` is answered 422.
 */
export class FakeErp extends LoopbackFake {
  readonly received: ErpDelivery[] = [];
  down = false;
  codes = true;
  /** Services this ERP refuses with 422 (its own validation says no). */
  readonly refuse = new Set<number>();

  constructor(private readonly secret: string) {
    super();
  }

  accepted(serviceId?: number): ErpDelivery[] {
    return this.received.filter(
      (d) => d.answered === 200 && (serviceId === undefined || d.serviceId === serviceId),
    );
  }

  /**
   * The payment records accepted (`X-Connector-Event: payment`), of one checkout and one event
   * (`paid`, `refund`, `chargeback`, `late_payment`) when given.
   */
  payments(checkoutId?: string, event?: string): ErpDelivery[] {
    return this.received.filter((d) => {
      const body = d.body as { checkout_id?: string; event?: string } | undefined;
      return (
        d.answered === 200 &&
        d.event === 'payment' &&
        (checkoutId === undefined || body?.checkout_id === checkoutId) &&
        (event === undefined || body?.event === event)
      );
    });
  }

  /** The incidents' records accepted: the payment records of events other than `paid`. */
  incidents(checkoutId?: string): ErpDelivery[] {
    return this.payments(checkoutId).filter(
      (d) => (d.body as { event?: string } | undefined)?.event !== 'paid',
    );
  }

  /** The shop the header signs this body for (`default` when it names none), or undefined. */
  private verify(raw: string, header: string | undefined): string | undefined {
    const parts = Object.fromEntries(
      (header ?? '').split(',').map((kv) => kv.split('=', 2) as [string, string]),
    );
    const t = Number(parts.t);
    if (!Number.isInteger(t) || Math.abs(Date.now() / 1000 - t) > 300) return undefined;
    const signed = parts.shop ? `${parts.t}.${parts.shop}.${raw}` : `${parts.t}.${raw}`;
    const expected = createHmac('sha256', this.secret).update(signed).digest();
    const given = Buffer.from(parts.v1 ?? '', 'hex');
    const valid = given.length === expected.length && timingSafeEqual(given, expected);
    return valid ? (parts.shop ?? 'default') : undefined;
  }

  protected buildApp(): RequestListener {
    return (req, res) => {
      void text(req).then((raw) => {
        let body: unknown;
        try {
          body = JSON.parse(raw);
        } catch {
          body = undefined;
        }
        const signature = req.headers['x-connector-signature'] as string | undefined;
        const shopHeader = req.headers['x-connector-shop'] as string | undefined;
        const shop = this.verify(raw, signature);
        const verified = shop !== undefined && (shopHeader ?? 'default') === shop;
        const id = (body as { id?: unknown } | undefined)?.id;
        const serviceId =
          typeof id === 'number' ? id : typeof id === 'string' ? Number(id) : undefined;
        const refused = serviceId !== undefined && this.refuse.has(serviceId);
        const answered: number = this.down ? 503 : !verified ? 401 : refused ? 422 : 200;
        this.received.push({
          serviceId,
          body,
          raw,
          deliveryId: req.headers['x-connector-delivery'] as string | undefined,
          signature,
          verified,
          shop,
          shopHeader,
          event: req.headers['x-connector-event'] as string | undefined,
          traceparent: req.headers.traceparent as string | undefined,
          answered,
          at: Date.now(),
        });
        res.writeHead(answered, { 'content-type': 'application/json' });
        res.end(
          JSON.stringify(
            answered === 200
              ? this.codes
                ? { internal_code: `ERP-${serviceId}` }
                : {}
              : {
                  error:
                    answered === 401
                      ? 'bad signature'
                      : answered === 422
                        ? 'invalid order'
                        : 'down',
                },
          ),
        );
      });
    };
  }
}
