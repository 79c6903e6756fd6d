import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { ROOT } from '../../support/spawn-ts';

/*
 * The seam of issue 43, on the resolved module graph: only src/payments/providers.ts imports a
 * provider's folder (src/payments/<name>/), and no provider's folder another's. eslint's rule
 * (eslint.config.mjs) reads import strings as patterns; this resolves every specifier (static,
 * type, dynamic, require, re-export) to a path first, so `./stripe`, `payments/./stripe` or
 * `import('...')` cannot slip past it.
 */
const SRC = path.join(ROOT, 'src');
const PAYMENTS = path.join(SRC, 'payments');
const LIST = path.join(PAYMENTS, 'providers.ts');

const PROVIDER_FOLDERS = readdirSync(PAYMENTS, { withFileTypes: true })
  .filter((entry) => entry.isDirectory())
  .map((entry) => entry.name);

/** Every module specifier of a TypeScript text: imports, re-exports, import() and require(). */
function specifiers(text: string): string[] {
  const found: string[] = [];
  const patterns = [
    /\b(?:import|export)\b[^'";]*?\bfrom\s*['"]([^'"]+)['"]/g,
    /\bimport\s*['"]([^'"]+)['"]/g,
    /\bimport\s*\(\s*['"]([^'"]+)['"]\s*\)/g,
    /\brequire\s*\(\s*['"]([^'"]+)['"]\s*\)/g,
  ];
  for (const pattern of patterns) for (const match of text.matchAll(pattern)) found.push(match[1]!);
  return found;
}

/** The provider folder a path is in, if it is in one. */
function providerOf(file: string): string | undefined {
  const relative = path.relative(PAYMENTS, file);
  // The folder itself (its index) or anything in it.
  const [first] = relative.split(path.sep);
  return !relative.startsWith('..') && PROVIDER_FOLDERS.includes(first!) ? first : undefined;
}

/** Each import of a provider's folder by a file that may not: `<importer> -> <specifier>`. */
function seamViolations(files: ReadonlyMap<string, string>): string[] {
  const wrong: string[] = [];
  for (const [file, text] of files) {
    const own = providerOf(file);
    for (const specifier of specifiers(text)) {
      if (!specifier.startsWith('.')) continue;
      const target = providerOf(path.resolve(path.dirname(file), specifier));
      if (target === undefined || target === own || file === LIST) continue;
      wrong.push(`${path.relative(ROOT, file)} -> ${specifier}`);
    }
  }
  return wrong;
}

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) return sourceFiles(full);
    return entry.name.endsWith('.ts') ? [full] : [];
  });
}

describe("the providers' seam, on the resolved imports", () => {
  it('has provider folders, and a list that imports each of them', () => {
    expect(PROVIDER_FOLDERS.length).toBeGreaterThanOrEqual(5);
    const list = new Map([[LIST, readFileSync(LIST, 'utf8')]]);
    const reached = specifiers(list.get(LIST)!)
      .map((specifier) => providerOf(path.resolve(PAYMENTS, specifier)))
      .filter((folder) => folder !== undefined);
    expect(new Set(reached)).toEqual(new Set(PROVIDER_FOLDERS));
  });

  it('no file of src/ but the list imports a provider folder, nor a provider folder another', () => {
    const files = new Map(sourceFiles(SRC).map((file) => [file, readFileSync(file, 'utf8')]));
    expect(files.size).toBeGreaterThan(200);
    expect(seamViolations(files)).toEqual([]);
  });

  it('sees through the spellings a pattern would miss', () => {
    const at = (relative: string) => path.join(SRC, relative);
    const files = new Map([
      [at('http/routes/a.ts'), "const m = await import('../../payments/stripe/stripe-api');"],
      [at('http/routes/b.ts'), "import { x } from '../../payments/./stripe/stripe-api';"],
      [at('http/routes/c.ts'), "export * from '../..//payments/pix/pix-keys';"],
      [at('payments/d.ts'), "import type { S } from './sandbox';"],
      [at('payments/pix/e.ts'), "const s = require('../stripe/stripe-link');"],
      [at('payments/pix/f.ts'), "import { pixKey } from './pix-keys';"],
      [at('payments/g.ts'), "import { PROVIDERS } from './providers';"],
    ]);
    expect(seamViolations(files).sort()).toEqual(
      [
        'src/http/routes/a.ts -> ../../payments/stripe/stripe-api',
        'src/http/routes/b.ts -> ../../payments/./stripe/stripe-api',
        'src/http/routes/c.ts -> ../..//payments/pix/pix-keys',
        'src/payments/d.ts -> ./sandbox',
        'src/payments/pix/e.ts -> ../stripe/stripe-link',
      ].sort(),
    );
  });
});
