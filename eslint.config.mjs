// @ts-check
import { readdirSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import eslint from '@eslint/js';
import tseslint from 'typescript-eslint';

const require = createRequire(import.meta.url);

/**
 * The layering of src/ (lint-layers.cjs): one row per folder and top-level file, saying what it
 * may import from the others; everything else is forbidden.
 */
const layers = require('./lint-layers.cjs');
const { LAYERS, PACKAGE_RULES } = layers;

const FILES = new Set(layers.FILES);
const INDEXED = new Set(layers.INDEXED);

/**
 * The provider folders, `src/payments/<name>/`, each one provider: read from the tree, so a new
 * provider's folder is one at once. Only the one list of providers (src/payments/providers.ts)
 * imports them; everything else reaches a provider through the list and what its descriptor
 * declares, and a provider's folder reaches no other provider's.
 */
const PROVIDER_FOLDERS = readdirSync(path.join(import.meta.dirname, 'src', 'payments'), {
  withFileTypes: true,
})
  .filter((entry) => entry.isDirectory())
  .map((entry) => entry.name);

/** The import patterns of the provider folders but `except`, as seen from `src/payments/`. */
function providerRule(except, fromPayments) {
  const others = PROVIDER_FOLDERS.filter((folder) => folder !== except);
  return {
    group: others.flatMap((folder) => [
      `**/payments/${folder}/**`,
      ...(fromPayments ? [`./${folder}/**`, `../${folder}/**`] : []),
    ]),
    message:
      "only src/payments/providers.ts imports a provider's folder (src/payments/<name>/): reach a provider through the list (PROVIDERS) and what its descriptor declares.",
  };
}

/** The lint zone of one folder: its forbidden folders and packages. */
function zone(name, files = undefined, extra = []) {
  const forbidden = Object.keys(LAYERS).filter(
    (other) => other !== name && !LAYERS[name].includes(other),
  );
  const message = `src/${name}${FILES.has(name) ? '.ts' : '/'} may import only ${LAYERS[name].join(', ') || 'no other part of src/'} (lint-layers.cjs).`;
  const packages = PACKAGE_RULES[name] ?? [];
  const groups = forbidden.flatMap((other) =>
    FILES.has(other)
      ? [`**/${other}`]
      : INDEXED.has(other)
        ? [`**/${other}`, `**/${other}/**`]
        : [`**/${other}/**`],
  );
  const within = files ?? [FILES.has(name) ? `src/${name}.ts` : `src/${name}/**`];
  if (groups.length === 0 && packages.length === 0 && extra.length === 0) {
    return { files: within, rules: {} };
  }
  return {
    files: within,
    rules: {
      'no-restricted-imports': [
        'error',
        {
          paths: packages.map((pkg) => ({
            name: pkg,
            message: `src/${name}/ gets its collaborators as parameters; it never imports ${pkg}.`,
          })),
          patterns: [...(groups.length ? [{ group: groups, message }] : []), ...extra],
        },
      ],
    },
  };
}

export default tseslint.config(
  {
    ignores: [
      'dist/',
      'coverage/',
      'node_modules/',
      'test-artifacts/',
      'jest.config.js',
      // Files that break the layering on purpose, for test/unit/project/lint-rules.test.ts.
      'test/lint-fixtures/',
    ],
  },
  eslint.configs.recommended,
  ...tseslint.configs.recommended,
  {
    languageOptions: {
      parserOptions: { projectService: true, tsconfigRootDir: import.meta.dirname },
    },
    rules: {
      '@typescript-eslint/no-floating-promises': 'error',
      '@typescript-eslint/no-misused-promises': [
        'error',
        { checksVoidReturn: { arguments: false } },
      ],
      '@typescript-eslint/no-unused-vars': [
        'error',
        { argsIgnorePattern: '^_', varsIgnorePattern: '^_' },
      ],
      'no-console': 'error',
      eqeqeq: 'error',
    },
  },
  ...Object.keys(LAYERS).flatMap((name) =>
    name === 'payments'
      ? [
          // The payments root but the list: no provider's folder.
          {
            ...zone(name, ['src/payments/*.ts'], [providerRule(undefined, true)]),
            ignores: ['src/payments/providers.ts'],
          },
          zone(name, ['src/payments/providers.ts']),
          // A provider's folder: its own files, no other provider's.
          ...PROVIDER_FOLDERS.map((folder) =>
            zone(name, [`src/payments/${folder}/**`], [providerRule(folder, true)]),
          ),
        ]
      : [zone(name, undefined, [providerRule(undefined, false)])],
  ),
  {
    // STYLE.md's functions a person can hold: over 60 lines only with a reason beside it
    // (an eslint-disable-next-line comment that says why).
    files: ['src/**/*.ts'],
    rules: {
      'max-lines-per-function': [
        'error',
        { max: 60, skipBlankLines: true, skipComments: true, IIFEs: true },
      ],
    },
  },
  {
    files: ['test/**', 'bench/**'],
    rules: {
      '@typescript-eslint/no-explicit-any': 'off',
      '@typescript-eslint/no-non-null-assertion': 'off',
      'no-console': 'off',
    },
  },
  {
    files: ['**/*.mjs', '**/*.js', '**/*.cjs'],
    ...tseslint.configs.disableTypeChecked,
  },
  {
    // CI's scripts: Node programs that report on the console.
    files: ['.ci/**/*.mjs'],
    languageOptions: {
      globals: {
        process: 'readonly',
        console: 'readonly',
        fetch: 'readonly',
        URL: 'readonly',
        setTimeout: 'readonly',
      },
    },
    rules: { 'no-console': 'off' },
  },
  {
    files: ['**/*.js', '**/*.cjs'],
    languageOptions: {
      sourceType: 'commonjs',
      globals: {
        process: 'readonly',
        module: 'writable',
        require: 'readonly',
        __dirname: 'readonly',
      },
    },
    rules: { '@typescript-eslint/no-require-imports': 'off' },
  },
);
