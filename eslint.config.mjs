// Pragmatic rule set: correctness rules only (no style). Type-aware rules catch unhandled promises;
// import restrictions keep workflow code inside Temporal's deterministic sandbox (house rule 4) and
// keep platform/ free of Koa and Temporal (house rule 2).
import { builtinModules } from 'node:module';
import { defineConfig, globalIgnores } from 'eslint/config';
import tseslint from 'typescript-eslint';

const nodeGlobals = Object.fromEntries(
  [
    'require',
    'module',
    'exports',
    '__dirname',
    '__filename',
    'process',
    'console',
    'Buffer',
    'setTimeout',
    'clearTimeout',
    'setInterval',
    'clearInterval',
    'URL',
    'fetch',
  ].map((name) => [name, 'readonly']),
);

const workflowSandboxMessage =
  'Workflow code runs in the Temporal sandbox: import only @temporalio/workflow, pure helpers and `import type` (house rule 4). Do I/O in activities.';

/** Node builtins (`fs`, `fs/promises`, `crypto`, `http`, …); `node:*` is covered by a pattern. */
const builtinPaths = builtinModules
  .filter((name) => !name.startsWith('_') && !name.startsWith('node:'))
  .map((name) => ({ name, message: workflowSandboxMessage, allowTypeImports: true }));

/** The imports workflow code may not make by value (the workflow sandbox rule below). */
const workflowSandboxPatterns = [
  { group: ['node:*'], message: workflowSandboxMessage, allowTypeImports: true },
  {
    group: [
      '@temporalio/client',
      '@temporalio/worker',
      '@temporalio/activity',
      '@temporalio/testing',
      '@mikro-orm/*',
      'pg',
      'pg-*',
      'koa',
      'koa-*',
      '@koa/*',
      'meilisearch',
      'pino',
      'pino-*',
    ],
    message: workflowSandboxMessage,
    allowTypeImports: true,
  },
  {
    // Other layers do I/O; their types are fine (`import type { createActivities } …`).
    group: [
      '**/activities',
      '**/activities/**',
      '**/adapters/**',
      '**/api',
      '**/api/**',
      '**/search',
      '**/search/**',
      '**/temporal',
      '**/temporal/**',
      '**/infra/**',
      '!**/infra/search-attributes',
    ],
    message: workflowSandboxMessage,
    allowTypeImports: true,
  },
  {
    // platform/ and app/ do I/O, except the workflow registry, every `*.messages.ts` (a kind's input and
    // message descriptors, workflow-safe by their own rule below) and every `*.pure.ts` (under this
    // rule). A regex: gitignore-style groups cannot re-include files below an excluded folder.
    regex: '(^|/)(platform|app)(/(?!shared/wait-duration$|workflow-kinds$|[\\w/-]+\\.(messages|pure)$).*)?$',
    message: workflowSandboxMessage,
    allowTypeImports: true,
  },
  {
    // A module folder (modules/<m>/) holds services, routers and activities beside its workflow: from
    // workflow code, only `*.messages.ts` (workflow-safe by their own rule), `*.workflow.ts` and `*.pure.ts`
    // files (pure helpers, under this rule too) by value, the rest as types.
    regex:
      '(^|/)modules/[\\w-]+/(?![\\w/-]+\\.(messages|workflow|pure)$)|^\\./(?![\\w/-]+\\.(messages|workflow|pure)$)',
    message: workflowSandboxMessage,
    allowTypeImports: true,
  },
];

export default defineConfig(
  globalIgnores(['node_modules/', '.tools/', '.data/', 'dist/', 'coverage/', 'sdk/typescript/schema.ts']),

  ...tseslint.configs.recommended,

  {
    files: ['**/*.ts'],
    languageOptions: {
      parserOptions: {
        projectService: true,
        tsconfigRootDir: import.meta.dirname,
      },
    },
    rules: {
      '@typescript-eslint/no-floating-promises': 'error',
      '@typescript-eslint/no-misused-promises': 'error',
      '@typescript-eslint/no-explicit-any': 'warn',
      '@typescript-eslint/no-unused-vars': [
        'warn',
        { argsIgnorePattern: '^_', varsIgnorePattern: '^_', caughtErrorsIgnorePattern: '^_', ignoreRestSiblings: true },
      ],
      '@typescript-eslint/no-empty-object-type': 'off',
      '@typescript-eslint/no-namespace': 'off',
      'no-debugger': 'error',
      // Prettier formats (printWidth 120, `npm run format:check` in npm test); it never breaks string
      // literals, so those are exempt here, every other line (comments included) stays within 120.
      'max-len': [
        'error',
        { code: 120, ignoreStrings: true, ignoreTemplateLiterals: true, ignoreRegExpLiterals: true, ignoreUrls: true },
      ],
    },
  },

  {
    // Workflow code: workflows/ and every module's `*.workflow.ts`; and every `*.pure.ts` (a deterministic helper that
    // workflow code imports by value), so that the suffix stays honest.
    files: ['workflows/**/*.ts', 'modules/**/*.workflow.ts', '**/*.pure.ts'],
    rules: {
      '@typescript-eslint/no-restricted-imports': [
        'error',
        {
          paths: builtinPaths,
          patterns: workflowSandboxPatterns,
        },
      ],
    },
  },

  {
    // adapters/ implement domain ports with outside systems; like domain/, no Koa and no Temporal (those adapters
    // live in api/ and temporal/).
    files: ['adapters/**/*.ts'],
    rules: {
      '@typescript-eslint/no-restricted-imports': [
        'error',
        {
          patterns: [
            {
              group: ['koa', 'koa-*', '@koa/*', '@temporalio/*'],
              message:
                'adapters/ never import Koa or @temporalio/*: they implement a domain port for one outside system.',
            },
          ],
        },
      ],
    },
  },

  {
    files: ['platform/**/*.ts'],
    // platform/http is the Koa kit and platform/temporal the Temporal client adapters: the rest of platform/ imports
    // neither Koa nor Temporal (house rule 2). A `*.pure.ts` is under the (stricter) workflow sandbox rule above instead.
    ignores: ['platform/http/**', 'platform/temporal/**', '**/*.pure.ts'],
    rules: {
      '@typescript-eslint/no-restricted-imports': [
        'error',
        {
          patterns: [
            {
              group: ['koa', 'koa-*', '@koa/*'],
              message:
                'platform/ (outside http/ and temporal/) never imports Koa or @temporalio/* (house rule 2): take what you need as a parameter or port.',
            },
            {
              regex: '^@temporalio/(?!workflow$)',
              message:
                'platform/ (outside http/ and temporal/) never imports Koa or @temporalio/* (house rule 2): take what you need as a parameter or port.',
            },
            {
              // The message descriptor types (SignalDefinition, …) are the port's vocabulary; the
              // descriptors themselves are defined in `*.messages.ts` only (their own rule below).
              group: ['@temporalio/workflow'],
              message:
                'platform/ imports @temporalio/workflow for types only; define signals, updates and queries in a `<kind>.messages.ts`.',
              allowTypeImports: true,
            },
          ],
        },
      ],
    },
  },

  {
    // A `*.pure.ts` in platform/: the workflow sandbox rule, and its relative imports by value are
    // other `*.pure.ts` or `*.messages.ts` files only (the regexes above see no sibling such as '../config').
    files: ['platform/**/*.pure.ts'],
    rules: {
      '@typescript-eslint/no-restricted-imports': [
        'error',
        {
          paths: builtinPaths,
          patterns: [
            ...workflowSandboxPatterns,
            {
              regex: '^\\.\\.?/(?!.*\\.(messages|pure)$)',
              message: workflowSandboxMessage,
              allowTypeImports: true,
            },
          ],
        },
      ],
    },
  },

  {
    // A workflow kind's input and message descriptors, shared by the workflow (sandbox) and its
    // callers: defineSignal/defineUpdate/defineQuery from @temporalio/workflow, everything else types.
    files: ['**/*.messages.ts'],
    rules: {
      '@typescript-eslint/no-restricted-imports': [
        'error',
        {
          patterns: [
            {
              regex: '^(?!@temporalio/workflow$)',
              message:
                'A `*.messages.ts` file is workflow-safe: it imports only @temporalio/workflow, and types (`import type`).',
              allowTypeImports: true,
            },
          ],
        },
      ],
    },
  },

  {
    // Generated migrations are outside tsconfig's `include`: lint them without type information.
    files: ['migrations/**/*.ts'],
    extends: [tseslint.configs.disableTypeChecked],
  },

  {
    // Config files and scripts are plain JS outside tsconfig: no type-aware linting there.
    files: ['**/*.js', '**/*.mjs', '**/*.cjs'],
    extends: [tseslint.configs.disableTypeChecked],
    languageOptions: { globals: nodeGlobals },
  },
  {
    files: ['**/*.cjs', 'jest.config.js'],
    languageOptions: { sourceType: 'commonjs' },
    rules: { '@typescript-eslint/no-require-imports': 'off' },
  },
);
