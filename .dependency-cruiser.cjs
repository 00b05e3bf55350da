/** @type {import('dependency-cruiser').IConfiguration} */
module.exports = {
  forbidden: [
    {
      name: 'platform-imports-no-module',
      severity: 'error',
      comment:
        'platform/ (orm, outbox, HTTP kit, Temporal adapter, config, logger, shared helpers) is what every module uses: it imports no feature (modules/, the features still in domain/), no composition (app/, api/ outside platform/http) and no engine code. What platform types by the declarations of the modules is an interface the modules extend (declaration merging), and what it reads at run time the composition registers (issue 25).',
      from: {
        path: '^platform/',
      },
      to: { path: '^(modules|app|api|activities|workflows|search|adapters)/|^domain/[a-z-]+/' },
    },
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
        'domain/ and platform/ depend on nothing above them: no api/, app/, search/ or Temporal adapter imports (put ports in platform/).',
      // Module declarations (domain/<feature>/<feature>.module.ts, domain/modules.ts) are the exception: they name the
      // feature's routers and activities (issue 25: defineModule). Nothing in the core imports them.
      from: {
        path: '^(domain|platform)/',
        pathNot: ['^domain/[a-z-]+/[a-z-]+\\.module\\.ts$', '^platform/(http|temporal)/'],
      },
      to: { path: '^(api|search|app|platform/(http|temporal))/' },
    },
    {
      name: 'adapters-below-the-engines',
      severity: 'error',
      comment:
        'adapters/ implement ports by talking to an outside system (SMTP, IMAP, S3, cloud drives, AI, SMS, registry, webhooks): they import the port declarations (platform/ports/) and shared helpers of platform/, never a module, api/, app/, platform/temporal/, search/ or bin/. The features pick and use the adapters, so an adapter that imported a feature would close a module-level cycle.',
      from: { path: '^adapters/' },
      to: { path: '^(api|platform/(http|temporal)|app|search|bin|modules)/' },
    },
    {
      name: 'ports-are-declarations',
      severity: 'error',
      comment:
        'A port declaration (platform/ports/*.port.ts: the interface an adapter implements, its settings and errors) imports only the core and other port declarations: no service, entity, router or adapter.',
      from: { path: '^platform/ports/' },
      to: {
        path: '^(api|platform/(http|temporal|orm|outbox|intake)|app|search|bin|adapters|modules)/',
      },
    },
    {
      name: 'adapters-not-services',
      severity: 'error',
      comment:
        'An adapter knows its port, not the features behind it: no domain service or entity (take what it needs as a parameter).',
      from: { path: '^adapters/' },
      to: { path: '^domain/.+\\.(service|entity)\\.ts$' },
    },
    {
      name: 'features-not-adapters',
      severity: 'error',
      comment:
        'Feature code depends on ports, not on their implementations: only the factories that choose an adapter from the configuration import adapters/ (the composition roots api/bootstrap.ts and bin/ may too).',
      from: {
        path: '^(domain|modules)/',
        pathNot: [
          // createMessagingDeps: the SMTP transport and the SMS gateway AppConfig configures.
          '^modules/email/messaging-deps\\.ts$',
          // smsGatewayFromConfig: the SMS gateway alone, for the API (no SMTP pool).
          '^modules/messaging/sms-gateway\\.ts$',
          // createAccountTransports (one pooled SMTP transport per mailbox row) and testEmailAccount (its probes).
          '^modules/email/account-transports\\.ts$',
          // fileStorageFor / localStorageFor: the S3 or local store FILE_STORAGE selects.
          '^modules/files/storage-factory\\.ts$',
          // providerFor: the OneDrive or Google Drive provider, built once per config.
          '^modules/files/cloud\\.service\\.ts$',
          // Not factories: the outbox subscriber and the retry attempt call the HTTP sender directly (no sender
          // port is injected yet; their deps take only the fetch it uses). Listed so that no other file joins them.
          '^modules/webhooks/(subscriber|attempts)\\.ts$',
          '^modules/[a-z-]+/__tests__/',
        ],
      },
      to: { path: '^adapters/' },
    },
    {
      name: 'core-not-modules',
      severity: 'error',
      comment:
        'The module list (domain/modules.ts) and module files compose the features: only composition files (the route table, createActivities, buildSubscribers, bin/, tests) import them, never a domain service.',
      from: {
        path: '^(domain|modules)/',
        pathNot:
          '^(app/(modules|subscribers)|platform/module|(domain|modules)/[a-z-]+/[a-z-]+\\.module)\\.ts$|^modules/[a-z-]+/__tests__/',
      },
      to: { path: '^(app/modules|(domain|modules)/[a-z-]+/[a-z-]+\\.module|search/search\\.module)\\.ts$' },
    },
    {
      name: 'module-public-surface',
      severity: 'error',
      comment:
        'Outside its folder, a module under modules/ is imported through its index.ts (its public surface; a module whose users it also uses splits it into index.<part>.ts files, so that one part does not close an import cycle through the rest), a declaration file the registries read by suffix (*.module, *.resource, *.events, *.kind, *.messages, *.workflow) or a pure helper (*.pure, deterministic and import-free by the sandbox rule). Tests and benches may reach inside.',
      from: { path: '^(api|app|domain|platform|search|bin|infra|scripts)/' },
      to: {
        path: '^modules/([a-z-]+)/',
        pathNot: [
          '^modules/([a-z-]+)/(index|index\\.[a-z]+|[a-z-]+\\.(module|resource|events|kind|messages|workflow|pure))\\.ts$',
        ],
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
          '^modules/[a-z-]+/(index|index\\.[a-z]+|[a-z-]+\\.(module|resource|events|kind|messages|workflow|pure))\\.ts$',
        ],
      },
    },
    {
      name: 'workflows-not-temporal-adapters',
      severity: 'error',
      comment:
        'Workflow code runs in the sandbox: it never imports the Temporal client adapters of temporal/ (clients, codec, workflow port adapter).',
      from: { path: '^modules/[a-z-]+/[a-z-]+\\.workflow\\.ts$' },
      to: { path: '^platform/temporal/' },
    },
    {
      name: 'api-not-activities',
      severity: 'error',
      comment: 'The API talks to domain services and the Temporal client, never to activity implementations.',
      from: { path: '^(api|platform/http)/' },
      to: { path: '^app/activities\\.ts$|\\.activities\\.ts$|^modules/automations/actions/' },
    },
    {
      name: 'activities-not-api',
      severity: 'error',
      comment:
        'Temporal activities (`*.activities.ts`, the automation actions) call services; request schemas live beside them, routers and HTTP helpers (api/, `*.router.ts`) are never imported here.',
      from: { path: '\\.activities\\.ts$|^modules/automations/actions/' },
      to: { path: '^api/|\\.router\\.ts$' },
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
