/** @type {import('dependency-cruiser').IConfiguration} */
module.exports = {
  forbidden: [
    {
      name: 'no-circular',
      severity: 'error',
      comment: 'Import cycles couple modules that should be independent and make load order matter.',
      from: {},
      to: { circular: true },
    },
    {
      name: 'domain-is-the-core',
      severity: 'error',
      comment:
        'domain/ depends on nothing above it: no api/, activities/, workflows/, search/ or temporal/ imports (put ports in domain/).',
      // Module declarations (domain/<feature>/<feature>.module.ts, domain/modules.ts) are the exception: they name the
      // feature's routers and activities (issue 25: defineModule). Nothing in the core imports them.
      from: { path: '^domain/', pathNot: '^domain/(modules|[a-z-]+/[a-z-]+\\.module)\\.ts$' },
      to: { path: '^(api|activities|workflows|search|temporal)/' },
    },
    {
      name: 'core-not-modules',
      severity: 'error',
      comment:
        'The module list (domain/modules.ts) and module files compose the features: only composition files (the route table, createActivities, buildSubscribers, bin/, tests) import them, never a domain service.',
      from: {
        path: '^(domain|modules)/',
        pathNot:
          '^(domain/(modules|module|outbox/subscribers)|(domain|modules)/[a-z-]+/[a-z-]+\\.module)\\.ts$|^modules/[a-z-]+/__tests__/',
      },
      to: { path: '^(domain/modules|(domain|modules)/[a-z-]+/[a-z-]+\\.module|search/search\\.module)\\.ts$' },
    },
    {
      name: 'module-public-surface',
      severity: 'error',
      comment:
        'Outside its folder, a module under modules/ is imported through its index.ts (its public surface) or a declaration file the registries read by suffix (*.module, *.resource, *.events, *.kind, *.messages, *.workflow). Tests and benches may reach inside.',
      from: { path: '^(api|domain|activities|workflows|search|temporal|bin|infra|scripts)/' },
      to: {
        path: '^modules/([a-z-]+)/',
        pathNot: ['^modules/([a-z-]+)/(index|[a-z-]+\\.(module|resource|events|kind|messages|workflow))\\.ts$'],
      },
    },
    {
      name: 'module-inside-stays-inside',
      severity: 'error',
      comment:
        "The same rule between modules: modules/A reaches modules/B only through B/index.ts or B's declaration files.",
      from: { path: '^modules/([a-z-]+)/', pathNot: '^modules/[a-z-]+/__tests__/' },
      to: {
        path: '^modules/',
        pathNot: [
          '^modules/$1/',
          '^modules/[a-z-]+/(index|[a-z-]+\\.(module|resource|events|kind|messages|workflow))\\.ts$',
        ],
      },
    },
    {
      name: 'workflows-not-temporal-adapters',
      severity: 'error',
      comment:
        'Workflow code runs in the sandbox: it never imports the Temporal client adapters of temporal/ (clients, codec, workflow port adapter).',
      from: { path: '^(workflows/|modules/[a-z-]+/[a-z-]+\\.workflow\\.ts$)' },
      to: { path: '^temporal/' },
    },
    {
      name: 'api-not-activities',
      severity: 'error',
      comment: 'The API talks to domain services and the Temporal client, never to activity implementations.',
      from: { path: '^api/' },
      to: { path: '^activities/' },
    },
    {
      name: 'activities-not-api',
      severity: 'error',
      comment:
        'Temporal activities call domain services; request schemas and HTTP helpers live in domain/ (schemas) or api/ (HTTP only), never imported here.',
      from: { path: '^activities/' },
      to: { path: '^api/' },
    },
  ],
  options: {
    doNotFollow: { path: 'node_modules' },
    exclude: { path: '^(node_modules|\\.data|\\.tools|coverage|dist)/' },
    tsPreCompilationDeps: true,
    tsConfig: { fileName: 'tsconfig.json' },
    enhancedResolveOptions: {
      exportsFields: ['exports'],
      conditionNames: ['import', 'require', 'node', 'default', 'types'],
    },
    reporterOptions: { text: { highlightFocused: true } },
  },
};
