import { hash, timingSafeEqual } from 'node:crypto';

/** SHA-256 in one call (no Hash object: the checkout route matches its token twice a request). */
const digest = (text: string) => hash('sha256', text, 'buffer');

/**
 * Whether a presented secret (a token, `user:password`) is this one: SHA-256 digests compared in
 * constant time, so neither the length nor the content leaks through timing.
 */
export function secretMatcher(secret: string): (given: string | undefined) => boolean {
  const expected = digest(secret);
  return (given) => given !== undefined && timingSafeEqual(digest(given), expected);
}
