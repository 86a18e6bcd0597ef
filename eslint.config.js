// Lint rules for every package: typescript-eslint's recommended set, plus the few
// house rules that catch real mistakes here. Formatting is Prettier's job, not ESLint's.
import js from '@eslint/js';
import globals from 'globals';
import tseslint from 'typescript-eslint';

export default tseslint.config(
  { ignores: ['**/node_modules/**', '**/dist/**', '**/captures/**', 'coverage/**'] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    languageOptions: { globals: { ...globals.node } },
    rules: {
      // `any` is sometimes the honest type at a JSON boundary; prefer `unknown` but do not forbid it.
      '@typescript-eslint/no-explicit-any': 'off',
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_', caughtErrors: 'none' }],
      // Declaration merging and `namespace` are not used; `require` only in generated fake-CLI scripts (strings).
      'no-constant-condition': ['error', { checkLoops: false }],
      eqeqeq: ['error', 'always'],
      'no-console': 'off',
    },
  },
  {
    files: ['apps/bridge/dashboard/src/**/*.ts'],
    languageOptions: { globals: { ...globals.browser } },
  },
);
