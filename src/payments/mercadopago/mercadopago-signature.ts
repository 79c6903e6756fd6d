import { createHmac, timingSafeEqual } from 'node:crypto';

/** How far a notification's `ts` may be from now: Mercado Pago signs each delivery anew. */
export const SIGNATURE_WINDOW_MS = 10 * 60_000;

/**
 * The manifest Mercado Pago signs: `id:<data.id>;request-id:<x-request-id>;ts:<ts>;`. Its docs
 * ask for `data.id` in lower case when it is alphanumeric (payment ids are digits, so the case
 * only matters for other topics); we sign and verify it that way.
 */
export function signatureManifest(dataId: string, requestId: string, ts: string): string {
  const id = /^[a-z0-9]+$/i.test(dataId) ? dataId.toLowerCase() : dataId;
  return `id:${id};request-id:${requestId};ts:${ts};`;
}

/** The `x-signature` header for a notification: `ts=<ts>,v1=<hex HMAC-SHA256>`. */
export function signNotification(
  secret: string,
  parts: { dataId: string; requestId: string; ts: string },
): string {
  const v1 = createHmac('sha256', secret)
    .update(signatureManifest(parts.dataId, parts.requestId, parts.ts))
    .digest('hex');
  return `ts=${parts.ts},v1=${v1}`;
}

/**
 * `ts` as milliseconds. Sources disagree on its unit (the docs' examples are in milliseconds,
 * some integrations read seconds): a value below 10^11 is taken as seconds, anything else as ms.
 */
export function signatureTimeMs(ts: string): number | undefined {
  if (!/^\d{1,16}$/.test(ts)) return undefined;
  const value = Number(ts);
  return value < 1e11 ? value * 1000 : value;
}

/**
 * Whether `header` (x-signature) signs this notification with `secret`, within the window.
 * Constant-time comparison; any malformed part is a plain false.
 */
export function verifyNotification(
  secret: string,
  header: string | undefined,
  parts: { dataId: string; requestId: string },
  nowMs: number,
): boolean {
  if (!header) return false;
  const fields = new Map(
    header.split(',').map((part) => {
      const [key, ...rest] = part.trim().split('=');
      return [key ?? '', rest.join('=')] as const;
    }),
  );
  const ts = fields.get('ts') ?? '';
  const given = fields.get('v1') ?? '';
  const atMs = signatureTimeMs(ts);
  if (atMs === undefined || Math.abs(nowMs - atMs) > SIGNATURE_WINDOW_MS) return false;
  if (!/^[0-9a-f]{64}$/i.test(given)) return false;
  const expected = createHmac('sha256', secret)
    .update(signatureManifest(parts.dataId, parts.requestId, ts))
    .digest();
  return timingSafeEqual(expected, Buffer.from(given, 'hex'));
}
