import { readFileSync } from 'node:fs';
import path from 'node:path';
import { CONFIG_VARIABLES } from '../../../src/config';
import { ERROR_CATALOGUE } from '../../../src/errors';
import { PROVIDER_NAMES } from '../../../src/payments/providers';
import { documentFields } from '../../../src/shop-registry/shop-document';

const ROOT = path.join(__dirname, '..', '..', '..');
const read = (file: string) => readFileSync(path.join(ROOT, file), 'utf8');

describe('the docs stay true', () => {
  it('docs/reference/error-codes.md lists exactly the catalogue, with status and retryability', () => {
    const items = [
      ...read('docs/reference/error-codes.md').matchAll(
        /^- `([A-Z_]+)` \((\d{3}), (retryable|not retryable)\):/gm,
      ),
    ].map((m) => [m[1], Number(m[2]), m[3] === 'retryable']);
    const catalogue = Object.entries(ERROR_CATALOGUE).map(([code, entry]) => [
      code,
      entry.status,
      entry.retryable,
    ]);
    expect(items).toEqual(catalogue);
  });

  it('docs/reference/configuration.md documents every configuration variable', () => {
    const page = read('docs/reference/configuration.md');
    for (const name of CONFIG_VARIABLES) expect(page).toContain(`\`${name}\``);
  });

  it('README shows the two commands a newcomer runs', () => {
    const readme = read('README.md');
    expect(readme).toContain('npm ci && npm run demo');
    expect(readme).toContain('npm test');
  });
});

// That the list is what the shop schema writes: docs-generated.test.ts (npm run docs:check).
describe("docs/shops.md's list of a shop document's fields", () => {
  it('names every field of every provider, and every secret as one', () => {
    const page = read('docs/shops.md');
    const list = page.slice(
      page.indexOf('<!-- shop-fields:start'),
      page.indexOf('<!-- shop-fields:end'),
    );
    for (const provider of PROVIDER_NAMES) {
      for (const field of documentFields(provider)) {
        const item = list.split('\n- ').find((line) => line.startsWith(`**\`${field.path}\`**`));
        expect(item).toBeDefined();
        expect(item?.includes('secret: sealed')).toBe(field.secret);
      }
    }
  });
});
