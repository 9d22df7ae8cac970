// ESLint 9 flat config: typescript-eslint's strictTypeChecked over src, test, scripts and bin, type-aware through
// tsconfig.eslint.json (the build's tsconfig.json covers src only). Formatting is Prettier's job (`npm run lint:format`).
import js from '@eslint/js';
import { defineConfig } from 'eslint/config';
import globals from 'globals';
import tseslint from 'typescript-eslint';

export default defineConfig(
  {
    // examples/ are projects of their own, type-checked against the packed package by `npm run example`.
    ignores: ['dist/', 'coverage/', 'demo/', 'node_modules/', 'test/bench/tmp/', 'examples/'],
  },
  js.configs.recommended,
  tseslint.configs.strictTypeChecked,
  {
    languageOptions: {
      ecmaVersion: 2023,
      sourceType: 'module',
      globals: globals.node,
      parserOptions: {
        project: './tsconfig.eslint.json',
        tsconfigRootDir: import.meta.dirname,
      },
    },
    linterOptions: {
      reportUnusedDisableDirectives: 'error',
    },
    rules: {
      // Messages and file names interpolate counts, ports and milliseconds everywhere; numbers print as expected.
      '@typescript-eslint/restrict-template-expressions': ['error', { allowNumber: true }],
      // One-line handlers are written as `() => resolve()`; the void result of an arrow shorthand is never used.
      '@typescript-eslint/no-confusing-void-expression': ['error', { ignoreArrowShorthand: true }],
      // Indexed reads are `T | undefined` (noUncheckedIndexedAccess); the code asserts an index it has just bounds-checked with `!`.
      '@typescript-eslint/no-non-null-assertion': 'off',
      // As only-throw-error allows `throw` of an `unknown` by default: a promise may reject with a caught error or an
      // AbortSignal's reason (`any` by the DOM standard, and passed on as is, as fetch and timers/promises do).
      '@typescript-eslint/prefer-promise-reject-errors': ['error', { allowThrowingUnknown: true }],
      // Callbacks whose signature is fixed by Node or a library name the parameters they ignore with a leading underscore.
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_', caughtErrors: 'all' }],
    },
  },
  {
    // House rule: no function over 80 lines (tests group cases in long describe blocks). File length is no rule: files split by concern.
    files: ['src/**/*.ts'],
    rules: {
      'max-lines-per-function': ['error', { max: 80 }],
    },
  },
  {
    files: ['**/*.js', '**/*.mjs'],
    rules: {
      // Plain JS scripts (bin, bench, demo, fault report, build comparison) carry no type annotations and checkJs is off, so every
      // JSON.parse result and untyped parameter is `any`: these rules could only be met by rewriting them in TypeScript.
      '@typescript-eslint/no-unsafe-argument': 'off',
      '@typescript-eslint/no-unsafe-assignment': 'off',
      '@typescript-eslint/no-unsafe-call': 'off',
      '@typescript-eslint/no-unsafe-member-access': 'off',
      '@typescript-eslint/no-unsafe-return': 'off',
    },
  },
  {
    // The one CommonJS file: dependency-cruiser reads its config with require().
    files: ['**/*.cjs'],
    languageOptions: { sourceType: 'commonjs' },
  },
);
