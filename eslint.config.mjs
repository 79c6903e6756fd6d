// @ts-check
import eslint from '@eslint/js';
import tseslint from 'typescript-eslint';

/** Packages the use-case layers must not import (STYLE.md rule 1): they get collaborators as parameters. */
const TRANSPORTS = ['express', 'bullmq', 'axios', 'winston', 'ioredis', 'commander'];

/** Upper layers that lower ones must never import. */
const upper = (...folders) => folders.map((folder) => `**/${folder}/**`);

const restrict = (packages, folders, message) => ({
  'no-restricted-imports': [
    'error',
    {
      paths: packages.map((name) => ({ name, message })),
      patterns: folders.length ? [{ group: folders, message }] : [],
    },
  ],
});

export default tseslint.config(
  { ignores: ['dist/', 'coverage/', 'node_modules/', 'test-artifacts/', 'jest.config.js'] },
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
  {
    files: ['src/checkout/**', 'src/delivery/**', 'src/sync/**'],
    rules: restrict(
      TRANSPORTS,
      upper('http', 'jobs', 'cli', 'main'),
      'Use cases get their collaborators as parameters; they never import transports or upper layers.',
    ),
  },
  {
    files: ['src/platform/**', 'src/payments/**', 'src/infra/**', 'src/config.ts', 'src/errors.ts'],
    rules: restrict(
      [],
      upper('http', 'jobs', 'cli', 'main', 'checkout', 'delivery', 'sync'),
      'Lower layers never import upper ones.',
    ),
  },
  {
    files: ['src/http/**', 'src/jobs/**', 'src/cli/**'],
    rules: restrict([], upper('main'), 'Only main/ composes; adapters never import it.'),
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
    files: ['**/*.mjs', '**/*.js'],
    ...tseslint.configs.disableTypeChecked,
  },
  {
    files: ['**/*.js'],
    languageOptions: {
      sourceType: 'commonjs',
      globals: { process: 'readonly', module: 'writable', require: 'readonly' },
    },
    rules: { '@typescript-eslint/no-require-imports': 'off' },
  },
);
