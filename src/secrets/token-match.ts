import { createHash, timingSafeEqual } from 'node:crypto';

const digest = (text: string): Buffer => createHash('sha256').update(text).digest();

/**
 * Whether a presented secret (a token, `user:password`) is this one: SHA-256 digests compared in
 * constant time, so neither the length nor the content leaks through timing.
 */
export function secretMatcher(secret: string): (given: string | undefined) => boolean {
  const expected = digest(secret);
  return (given) => given !== undefined && timingSafeEqual(digest(given), expected);
}
