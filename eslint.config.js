/**
 * ESLint (`npm run lint`, part of `./quire.sh test`): the recommended rules of ESLint and typescript-eslint
 * plus the type-aware rules that find real bugs in a server full of async code (a promise nobody
 * awaits, a promise where a callback's result is ignored, await on a non-promise). Layout is the
 * formatter's job (Biome, biome.json), so no stylistic rules here.
 *
 * Not enabled, measured on the code base (issue 12): the whole `recommendedTypeChecked` set reports ~500
 * findings that are style, not bugs (require-await 111, no-unsafe-* on JSON.parse results ~240,
 * unbound-method 35 on method references passed knowingly, no-unnecessary-type-assertion 54).
 * Without type information the lint costs ~15 s CPU; with it ~45 s (building the TypeScript program).
 */
import js from '@eslint/js';
import { defineConfig, globalIgnores } from 'eslint/config';
import globals from 'globals';
import tseslint from 'typescript-eslint';

export default defineConfig(
  globalIgnores(['dist/', 'coverage/', 'data/', 'scratch/', '.scratch-*/', '.bench/', 'bench/results/', 'fuzz/results/', 'fuzz/.cache/']),
  js.configs.recommended,
  tseslint.configs.recommended,
  {
    languageOptions: { globals: globals.node },
    rules: {
      // Control characters in regexes are what the code means: it strips or refuses them in names and text.
      'no-control-regex': 'off',
      // Style, not bugs (measured: each finding on the code base was a deliberate initial value or a
      // rethrown error whose message says everything the caller gets).
      'no-useless-assignment': 'off',
      'preserve-caught-error': 'off',
      // `let x; … closure reads x …; x = …` is how a callback refers to what is built after it; and one
      // `let { a, b }` where only b is reassigned stays one declaration.
      'prefer-const': ['error', { destructuring: 'all', ignoreReadBeforeAssign: true }],
      // `_name` marks a value left out on purpose (a rest sibling, an unused callback parameter).
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_', caughtErrors: 'none', ignoreRestSiblings: true }],
    },
  },
  {
    // Type-aware rules on the TypeScript files, all of which tsconfig.json includes. One program built
    // from tsconfig.json: measured 44 s CPU for the whole lint against 59 s with the project service.
    files: ['**/*.ts'],
    ignores: ['portal/**'],
    languageOptions: { parserOptions: { project: './tsconfig.json', tsconfigRootDir: import.meta.dirname } },
    rules: {
      '@typescript-eslint/no-floating-promises': 'error',
      '@typescript-eslint/no-misused-promises': ['error', { checksVoidReturn: { arguments: false, attributes: false } }],
      '@typescript-eslint/await-thenable': 'error',
    },
  },
  {
    // The portal (browser code, Preact + Vite): its own program (portal/tsconfig.json: DOM, JSX), the same bug-finding rules.
    files: ['portal/**/*.ts', 'portal/**/*.tsx'],
    languageOptions: { globals: globals.browser, parserOptions: { project: './portal/tsconfig.json', tsconfigRootDir: import.meta.dirname } },
    rules: {
      '@typescript-eslint/no-floating-promises': 'error',
      '@typescript-eslint/no-misused-promises': ['error', { checksVoidReturn: { arguments: false, attributes: false } }],
      '@typescript-eslint/await-thenable': 'error',
    },
  },
  {
    // Tests read JSON answers and PDF object trees whose shape is the point of the assertion.
    files: ['test/**', 'bench/**', 'fuzz/**'],
    rules: { '@typescript-eslint/no-explicit-any': 'off' },
  },
  {
    // XML 1.0 NameStartChar includes U+200C-U+200D (ZWNJ, ZWJ): a range in the class, not a joined character.
    files: ['src/engines/pdf-edit/document/xml.ts'],
    rules: { 'no-misleading-character-class': 'off' },
  },
);
