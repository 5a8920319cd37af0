// Flat config shared by every workspace: type-checked rules and the one-way import direction of STYLE.md.
import js from '@eslint/js';
import tseslint from 'typescript-eslint';
import globals from 'globals';

// The engine's declared surface (packages/engine/package.json `exports`): use cases, runtime entry
// points, the engine handle, errors, env, log and the SQL helper. Anything else is internal.
const ENGINE_SURFACE = ['(runs|meshes|ops|services|approvals|users|audit|tokens|webhooks|schedules|runtime|policy)/[^/]+', 'tools/(registry|trail|secrets)', 'security/(env|json-guard)', 'assistant/(ask|env)', 'events/subscribe', 'engine', 'errors', 'env', 'log', 'sql'];
const engineDeepImports = {
  regex: `^@trellis/engine(/(?!(${ENGINE_SURFACE.join('|')})$).*)?$`,
  message: 'import the engine through its exports (packages/engine/package.json): a use case, a runtime entry point, errors, env, log or sql',
};

const layer = (name, banned, extra = []) => ({
  files: [`${name}/**/*.ts`, `${name}/**/*.tsx`],
  rules: {
    'no-restricted-imports': [
      'error',
      { patterns: [...banned.map((b) => ({ group: [`${b}`, `${b}/*`], message: `${name} must not import ${b} (STYLE.md import direction)` })), ...extra] },
    ],
  },
});

// Inside the engine, lower layers never import higher ones (docs/architecture.md). Type-only
// imports are allowed: they are erased and cannot order modules (madge skips them too, .madgerc).
const USE_CASES = ['runs', 'meshes', 'ops', 'services', 'approvals', 'users', 'assistant', 'webhooks', 'schedules'];
const ENGINE_LAYERS = [['kernel'], ['events'], ['plan'], ['lifecycle'], ['members'], ['process'], USE_CASES, ['runtime']];
const engineLayers = ENGINE_LAYERS.slice(0, -1).map((folders, i) => {
  const above = ENGINE_LAYERS.slice(i + 1).flat();
  return {
    files: folders.map((f) => `packages/engine/src/${f}/**/*.ts`),
    // Tests drive a layer from the top (start a run, wait for it), so they may import any layer.
    ignores: ['**/*.test.ts', '**/test/**'],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          patterns: [
            { group: ['@trellis/api', '@trellis/api/*', '@trellis/web', '@trellis/web/*'], message: 'packages/engine must not import the api or the web app (STYLE.md import direction)' },
            { group: above.map((f) => `**/${f}/*`), allowTypeImports: true, message: `${folders.join('/')}/ must not import a higher engine layer (${above.join(', ')}): see docs/architecture.md` },
          ],
        },
      ],
    },
  };
});

// Raw SQL in the engine names statuses through kernel/statuses.ts (checked against the unions of
// @trellis/db/schema/statuses) and gives rows() a row schema (kernel/sql.ts). Tests may trust a type.
const STATUS_WORDS = 'pending|running|done|dead|lost|parked|cancelled|filtered|queued|failed|stalled|waiting|claimed|expired|approved|rejected';
const engineQueries = {
  files: ['packages/engine/src/**/*.ts'],
  ignores: ['**/*.test.ts'],
  rules: {
    'no-restricted-syntax': [
      'error',
      {
        selector: `TaggedTemplateExpression[tag.name='sql'] TemplateElement[value.raw=/\\bstatus\\s*(=|<>|!=|(not\\s+)?in\\s*\\()\\s*'(${STATUS_WORDS})'/i]`,
        message: 'name a status through kernel/statuses.ts (msgStatus, runStatuses, …), so a misspelt status does not compile',
      },
      {
        selector: "CallExpression[callee.name='rows'][arguments.length=2]",
        message: 'give rows() its row schema (kernel/sql.ts), so the rows are checked rather than trusted',
      },
    ],
  },
};

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
  ...engineLayers,
  engineQueries,
  layer('packages/api', ['@trellis/web'], [engineDeepImports]),
  layer('packages/cli', ['@trellis/api', '@trellis/web'], [engineDeepImports]),
  layer('packages/entries', ['@trellis/api', '@trellis/web'], [engineDeepImports]),
  layer('workers', ['@trellis/api', '@trellis/web'], [engineDeepImports]),
  layer('apps/web', [], [engineDeepImports]),
  layer('scripts', [], [engineDeepImports]),
  {
    files: ['**/*.ts', '**/*.tsx'],
    ignores: ['**/env.ts', 'scripts/**', '**/*.test.ts', '**/test/**', 'e2e/**'],
    rules: {
      'no-restricted-properties': ['error', { object: 'process', property: 'env', message: 'read configuration through env.ts' }],
    },
  },
);
