import { SecretBook } from '../../../src/scrubbing/secret-book';
import { SecretScanner } from '../../../src/scrubbing/secret-scanner';

const R = '[redacted]';

/** Five secrets of one shop, as the registry hands them over when it opens the shop. */
const shopSecrets = (shop: number) =>
  ['password', 'api-key', 'basic', 'access-token', 'webhook'].map(
    (kind) => `${kind}-${shop}-${(shop * 7919).toString(36)}`,
  );

describe('SecretScanner', () => {
  it('keeps up with shops opened one at a time, each followed by a line, without rebuilding all', () => {
    const book = new SecretBook();
    const scanner = new SecretScanner(book);
    const shops = 2000;
    for (let shop = 0; shop < shops; shop++) {
      book.add(shopSecrets(shop));
      const [password, , , token] = shopSecrets(shop);
      // The line after each opening, as the registry's "shop served" at LOG_LEVEL=info.
      expect(scanner.replace(`shop served ${password} ${token}`, R)).toBe(`shop served ${R} ${R}`);
    }
    // One build over every value after each shop would take 5 * 2000 * 2001 / 2 = 10 million.
    const values = shops * 5;
    expect(scanner.builtValues).toBeLessThanOrEqual(values * (Math.log2(shops) + 1));
    expect(scanner.automata).toBeLessThanOrEqual(Math.log2(shops) + 1);
    expect(scanner.replace(`old ${shopSecrets(3)[2]} new ${shopSecrets(1999)[4]}`, R)).toBe(
      `old ${R} new ${R}`,
    );
  });

  it('merges into one automaton once the book is still, and still finds every secret', () => {
    const book = new SecretBook();
    const scanner = new SecretScanner(book);
    for (let shop = 0; shop < 100; shop++) {
      book.add(shopSecrets(shop));
      scanner.replace('shop served', R);
    }
    expect(scanner.automata).toBeGreaterThan(1);
    for (let line = 0; line < 300; line++) scanner.replace('an ordinary line', R);
    expect(scanner.automata).toBe(1);
    const text = shopSecrets(0)[0] + ' ' + shopSecrets(99)[3] + ' ' + shopSecrets(50)[1];
    expect(scanner.replace(text, R)).toBe(`${R} ${R} ${R}`);
  });

  it('covers secrets that overlap across automata as one stretch', () => {
    const book = new SecretBook(['abcdef-1', 'unrelated-1']);
    const scanner = new SecretScanner(book);
    expect(scanner.replace('x', R)).toBe('x');
    book.add(['ef-1-ghij']);
    expect(scanner.replace('<abcdef-1-ghij> and <ef-1-ghij>', R)).toBe(`<${R}> and <${R}>`);
    expect(scanner.automata).toBe(2);
  });

  it('scans with nothing when the book is empty', () => {
    const scanner = new SecretScanner(new SecretBook(['abc']));
    expect(scanner.replace('abc abcd', R)).toBe('abc abcd');
    expect(scanner.automata).toBe(0);
  });
});
