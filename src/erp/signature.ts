import { createHmac, timingSafeEqual } from 'node:crypto';
import { shopOrEnv } from '../shop/shop-id';

/** The header every webhook delivery carries. */
export const SIGNATURE_HEADER = 'X-Connector-Signature';

/** The header naming a registry shop's deliveries (also signed, inside the signature header). */
export const SHOP_HEADER = 'X-Connector-Shop';

/** What is signed: `<t>.<raw body>`, or `<t>.<shop>.<raw body>` for a registry shop's delivery. */
function signedText(unixSeconds: number | string, rawBody: string, shop?: string): string {
  return shop === undefined ? `${unixSeconds}.${rawBody}` : `${unixSeconds}.${shop}.${rawBody}`;
}

/**
 * `t=<unix seconds>,v1=<hex HMAC-SHA256 of "<t>.<raw body>">`, the scheme payment webhooks made familiar:
 * the timestamp is signed with the body, so a captured delivery cannot be replayed later. A
 * registry shop's delivery says its shop in the header and under the HMAC,
 * `t=<t>,shop=<shop>,v1=<HMAC of "<t>.<shop>.<raw body>">`, so a delivery of one shop cannot be
 * passed off as another's.
 */
export function signatureHeader(
  secret: string,
  rawBody: string,
  unixSeconds: number,
  shop?: string,
): string {
  const v1 = createHmac('sha256', secret)
    .update(signedText(unixSeconds, rawBody, shop))
    .digest('hex');
  return shop === undefined
    ? `t=${unixSeconds},v1=${v1}`
    : `t=${unixSeconds},shop=${shop},v1=${v1}`;
}

/**
 * What an ERP runs on a delivery (README shows it): the shop the header signs (`default` for the
 * env shop's, which it does not name) when it signs this exact raw body with `secret` and its
 * timestamp is within `toleranceSeconds` of `nowSeconds`; undefined when it does not.
 */
export function verifySignature(
  secret: string,
  rawBody: string,
  header: string | undefined,
  nowSeconds = Math.floor(Date.now() / 1000),
  toleranceSeconds = 300,
): string | undefined {
  const fields = new Map(
    (header ?? '').split(',').map((part) => {
      const eq = part.indexOf('=');
      return [part.slice(0, eq).trim(), part.slice(eq + 1).trim()] as const;
    }),
  );
  const t = Number(fields.get('t'));
  const given = fields.get('v1') ?? '';
  const shop = fields.get('shop');
  if (!Number.isInteger(t) || Math.abs(nowSeconds - t) > toleranceSeconds) return undefined;
  const expected = createHmac('sha256', secret)
    .update(signedText(t, rawBody, shop))
    .digest('hex');
  const valid =
    given.length === expected.length && timingSafeEqual(Buffer.from(given), Buffer.from(expected));
  return valid ? shopOrEnv(shop) : undefined;
}
