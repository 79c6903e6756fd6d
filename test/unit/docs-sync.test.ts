import { readFileSync } from 'node:fs';
import path from 'node:path';
import { CONFIG_VARIABLES } from '../../src/config';
import { ERROR_CATALOGUE } from '../../src/errors';

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
