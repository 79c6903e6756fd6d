import { readFileSync } from 'node:fs';
import path from 'node:path';
import { CONFIG_VARIABLES } from '../../src/config';
import { ERROR_CATALOGUE } from '../../src/errors';
import { PROVIDER_NAMES } from '../../src/payments/providers';
import { documentFields } from '../../src/shop-registry/shop-document';
import {
  renderShopFields,
  SHOP_FIELDS_END,
  SHOP_FIELDS_START,
} from '../../src/shop-registry/shop-fields-docs';

const readme = readFileSync(path.join(__dirname, '..', '..', 'README.md'), 'utf8');

describe('README stays true', () => {
  it('documents exactly the error codes of the catalogue, with their status and retryability', () => {
    const rows = [
      ...readme.matchAll(/^\|\s*`([A-Z_]+)`\s*\|\s*(\d{3})\s*\|\s*(yes|no)\s*\|/gm),
    ].map((m) => [m[1], Number(m[2]), m[3] === 'yes']);
    const catalogue = Object.entries(ERROR_CATALOGUE).map(([code, entry]) => [
      code,
      entry.status,
      entry.retryable,
    ]);
    expect(rows).toEqual(catalogue);
  });

  it('documents every configuration variable', () => {
    for (const name of CONFIG_VARIABLES) expect(readme).toContain(`\`${name}\``);
  });

  it('shows the two commands a newcomer runs', () => {
    expect(readme).toContain('npm ci && npm run demo');
    expect(readme).toContain('npm test');
  });
});

describe("README's list of a shop document's fields", () => {
  it('is what the shop schema writes (npm run config:docs)', () => {
    const start = readme.indexOf(SHOP_FIELDS_START);
    const end = readme.indexOf(SHOP_FIELDS_END);
    expect(start).toBeGreaterThan(0);
    expect(readme.slice(start, end + SHOP_FIELDS_END.length)).toBe(renderShopFields());
  });

  it('names every field of every provider, and every secret as one', () => {
    const list = renderShopFields();
    for (const provider of PROVIDER_NAMES) {
      for (const field of documentFields(provider)) {
        const item = list.split('\n- ').find((line) => line.startsWith(`**\`${field.path}\`**`));
        expect(item).toBeDefined();
        expect(item?.includes('secret: sealed')).toBe(field.secret);
      }
    }
  });
});
