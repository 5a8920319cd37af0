// Flat config shared by every workspace: type-checked rules and the one-way import direction of STYLE.md.
import js from '@eslint/js';
import tseslint from 'typescript-eslint';
import globals from 'globals';

const layer = (name, banned) => ({
  files: [`${name}/**/*.ts`, `${name}/**/*.tsx`],
  rules: {
    'no-restricted-imports': [
      'error',
      { patterns: banned.map((b) => ({ group: [`${b}`, `${b}/*`], message: `${name} must not import ${b} (STYLE.md import direction)` })) },
    ],
  },
});

export default tseslint.config(
  { ignores: ['**/node_modules/**', '**/.next/**', '**/dist/**', '**/drizzle/**', '**/*.config.*', '**/next-env.d.ts', '**/test-results/**'] },
  js.configs.recommended,
  ...tseslint.configs.recommendedTypeChecked,
  {
    languageOptions: {
      globals: { ...globals.node },
      parserOptions: { projectService: true, tsconfigRootDir: import.meta.dirname },
    },
    rules: {
      '@typescript-eslint/no-floating-promises': 'error',
      '@typescript-eslint/consistent-type-imports': 'error',
      '@typescript-eslint/no-non-null-assertion': 'error',
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
    },
  },
  { files: ['**/*.js', '**/*.mjs'], ...tseslint.configs.disableTypeChecked },
  layer('packages/mesh', ['@trellis/db', '@trellis/engine', '@trellis/api', '@trellis/web', 'node:*', 'react']),
  layer('packages/db', ['@trellis/engine', '@trellis/api', '@trellis/web']),
  layer('packages/engine', ['@trellis/api', '@trellis/web']),
  layer('packages/api', ['@trellis/web']),
  layer('packages/cli', ['@trellis/api', '@trellis/web']),
  layer('workers', ['@trellis/api', '@trellis/web']),
  {
    files: ['**/*.ts', '**/*.tsx'],
    ignores: ['**/env.ts', 'scripts/**', '**/*.test.ts', '**/test/**', 'e2e/**'],
    rules: {
      'no-restricted-properties': ['error', { object: 'process', property: 'env', message: 'read configuration through env.ts' }],
    },
  },
);
