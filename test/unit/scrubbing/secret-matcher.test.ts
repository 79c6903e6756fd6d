import { createRedactor, REDACTED, SecretBook } from '../../../src/scrubbing/redact';
import { SecretMatcher } from '../../../src/scrubbing/secret-matcher';

/** The stretches any occurrence of any secret covers, merged where they overlap: by indexOf. */
function stretchesByBruteForce(text: string, secrets: readonly string[]): number[] {
  const found: [number, number][] = [];
  for (const secret of secrets.filter((s) => s.length > 0)) {
    for (let at = text.indexOf(secret); at >= 0; at = text.indexOf(secret, at + 1)) {
      found.push([at, at + secret.length]);
    }
  }
  found.sort((a, b) => a[0] - b[0]);
  const merged: number[] = [];
  for (const [start, end] of found) {
    const last = merged.length - 1;
    if (last > 0 && (merged[last] as number) > start) {
      merged[last] = Math.max(merged[last] as number, end);
    } else merged.push(start, end);
  }
  return merged;
}

/** A seeded generator, so a failure repeats. */
function seeded(seed: number): (below: number) => number {
  let state = seed;
  return (below) => {
    state = (Math.imul(state, 1103515245) + 12345) & 0x7fffffff;
    return state % below;
  };
}

const scrub = (secrets: string[], text: string) =>
  SecretMatcher.build(secrets).replace(text, REDACTED);

describe('SecretMatcher', () => {
  it('replaces every occurrence and leaves text without secrets as it is', () => {
    expect(scrub(['s3cret'], 'a s3cret, then s3cret again')).toBe(
      `a ${REDACTED}, then ${REDACTED} again`,
    );
    expect(scrub(['s3cret'], 'nothing to see')).toBe('nothing to see');
    expect(scrub([], 'no secrets at all')).toBe('no secrets at all');
    expect(scrub(['', 'abcd'], 'abcd')).toBe(REDACTED);
    expect(scrub(['abcd'], 'abcdabcd')).toBe(`${REDACTED}${REDACTED}`);
  });

  it('replaces a secret inside another whole, and the inner one alone where it is alone', () => {
    const secrets = ['inner-key', 'outer-inner-key-tail'];
    expect(scrub(secrets, 'x outer-inner-key-tail y')).toBe(`x ${REDACTED} y`);
    expect(scrub(secrets, 'x inner-key y outer-inner-key')).toBe(
      `x ${REDACTED} y outer-${REDACTED}`,
    );
    // A secret that is a prefix of another.
    expect(scrub(['abcd', 'abcdef'], 'abcdefg abcdxy')).toBe(`${REDACTED}g ${REDACTED}xy`);
  });

  it('covers overlapping secrets together, so no piece of either is left', () => {
    expect(scrub(['abcdef', 'defghi'], '<abcdefghi>')).toBe(`<${REDACTED}>`);
    expect(scrub(['bc', 'abcde'], 'xabcdex')).toBe(`x${REDACTED}x`);
    expect(scrub(['aaaa'], 'aaaaaa b aaa')).toBe(`${REDACTED} b aaa`);
  });

  it('matches code units exactly, whatever the script', () => {
    const secrets = ['senha-ção-forte', 'chave-🔑-42', 'パスワード99'];
    expect(scrub(secrets, 'a senha-ção-forte b chave-🔑-42 c パスワード99')).toBe(
      `a ${REDACTED} b ${REDACTED} c ${REDACTED}`,
    );
    // A combining mark after a secret does not hide it (a grapheme-based matcher would miss it).
    expect(scrub(['abcd1234'], 'x abcd1234\u0301 y')).toBe(`x ${REDACTED}\u0301 y`);
    expect(scrub(['abcd1234'], 'abcd1234\u200d🙂')).toBe(`${REDACTED}\u200d🙂`);
    // Exact units: the decomposed spelling of another secret's text is not that secret.
    expect(scrub(['ação-1234'], 'ac\u0327a\u0303o-1234')).toBe('ac\u0327a\u0303o-1234');
    // Half of a surrogate pair in a secret still matches those units.
    expect(scrub(['\ude00-tail'], '\ud83d\ude00-tail')).toBe(`\ud83d${REDACTED}`);
  });

  it('finds what a brute-force search finds, on random secrets and texts', () => {
    const random = seeded(29);
    const alphabet = ['a', 'b', 'c', '\u0301', '\ud83d', '\ude00'];
    const pick = (length: number) =>
      Array.from({ length }, () => alphabet[random(alphabet.length)]).join('');
    for (let round = 0; round < 5000; round++) {
      const secrets = Array.from({ length: 1 + random(6) }, () => pick(1 + random(5)));
      const text = pick(random(40));
      expect([round, SecretMatcher.build(secrets).find(text)]).toEqual([
        round,
        stretchesByBruteForce(text, secrets),
      ]);
    }
  });

  it('finds any of 50,000 realistic secrets among them all', () => {
    const random = seeded(7);
    const chars = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789';
    const key = (length: number) =>
      Array.from({ length }, () => chars[random(chars.length)]).join('');
    const secrets: string[] = [];
    for (let shop = 0; shop < 10_000; shop++) {
      const password = key(20);
      secrets.push(
        password,
        key(32),
        Buffer.from(`loja-${shop}@example.com:${password}`).toString('base64'),
        `APP_USR-${key(16)}-112609-${key(32)}-${random(1e9)}`,
        key(64),
      );
    }
    const matcher = SecretMatcher.build(secrets);
    const chosen = [secrets[3], secrets[24_999], secrets[49_999], secrets[12_345]] as string[];
    const text = `{"a":"${chosen[0]}","b":"x${chosen[1]}y ${key(300)}","c":[${chosen[2]}${chosen[3]}]}`;
    expect(matcher.find(text)).toEqual(stretchesByBruteForce(text, secrets));
    expect(matcher.replace(text, REDACTED)).not.toMatch(
      new RegExp(chosen.map((s) => s.replace(/[+/=]/g, '\\$&')).join('|')),
    );
    expect(matcher.replace(text, REDACTED).split(REDACTED)).toHaveLength(5);
  });
});

describe('createRedactor over a SecretBook', () => {
  it('scrubs a secret added after the first line from the next line on', () => {
    const book = new SecretBook(['first-secret']);
    const redact = createRedactor(book);
    expect(redact({ message: 'first-secret and later-secret' })).toEqual({
      message: `${REDACTED} and later-secret`,
    });
    for (let shop = 0; shop < 1000; shop++) book.add([`shop-${shop}-password`]);
    book.add(['later-secret']);
    expect(redact({ message: 'first-secret and later-secret', shop: 'shop-999-password' })).toEqual(
      { message: `${REDACTED} and ${REDACTED}`, shop: REDACTED },
    );
  });
});
