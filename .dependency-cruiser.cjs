// dependency-cruiser rules for src (run: `depcruise src --config .dependency-cruiser.cjs`).
// The stack, top to bottom: cli → commands → export → {pagination, output} → http → rate → {context, errors, time, json}.
// `rate` is the rate budget (governors, windows, waits, the stores shared by processes); context.ts carries the budget and names its type only.
// Inside export/: plan → run → state → manifest → files (each room imports only the rooms after it); run → destinations → files.
// export/plan/ turns one ExportOptions (the flag table's rows under their option names) into a frozen plan and runs it.
// Arrows point down: a module may import its own floor and the floors below it, never one above.
// `sandbox` stands beside the stack: only the two doors' sandbox starters (`commands/sandbox/`, `library/sandbox.ts`) start it, and it reuses only the ground floor.
// The library's door (src/index.ts, the package's exports, and library/ behind it) stands beside commands/: both doors turn
// their options into the same ExportOptions and plan and run through export/plan/; neither imports the other.
// Type-only imports count too (tsPreCompilationDeps), since a type import ties a module to another floor as surely as a value import.

/** The ground floor: shared by every floor, imports nothing above itself. */
const GROUND = '^src/(context\\.ts|errors\\.ts|endpoints\\.ts|path-family\\.ts|secrets\\.ts|time/|http/redact\\.ts)';

/** @type {import('dependency-cruiser').IConfiguration} */
module.exports = {
  forbidden: [
    {
      name: 'no-circular',
      severity: 'error',
      comment:
        'An import cycle ties its modules into one unit that cannot be tested or moved alone: break it by moving the shared part down a floor.',
      from: {},
      to: { circular: true },
    },
    {
      name: 'no-orphans',
      severity: 'error',
      comment: 'A module of src that nothing imports (and that is not the CLI entry point) is dead code: use it or delete it.',
      from: { path: '^src/', orphan: true, pathNot: ['^src/cli/main\\.ts$', '^src/index\\.ts$', '\\.d\\.ts$'] },
      to: {},
    },
    {
      name: 'not-to-unresolvable',
      severity: 'error',
      comment: 'An import that resolves to no file or installed package fails at run time.',
      from: {},
      to: { couldNotResolve: true },
    },
    {
      name: 'not-to-dev-dep',
      severity: 'error',
      comment: 'src ships in the package; devDependencies are not installed for users, so src may import only dependencies and Node built-ins.',
      from: { path: '^src/' },
      to: { dependencyTypes: ['npm-dev'], dependencyTypesNot: ['type-only'] },
    },
    {
      name: 'ground-errors-time',
      severity: 'error',
      comment: 'Ground floor: errors.ts and time/ are imported by every floor, so they import nothing of src but each other.',
      from: { path: '^src/(errors\\.ts$|time/)' },
      to: { path: '^src/', pathNot: '^src/(errors\\.ts$|time/)' },
    },
    {
      name: 'ground-json',
      comment:
        'Ground floor: json/ (JSON values that keep number literals, and the Members a page hands the formats) is shared by pagination/ and output/, so it imports only itself and errors.ts.',
      severity: 'error',
      from: { path: '^src/json/' },
      to: { path: '^src/', pathNot: '^src/(json/|errors\\.ts$)' },
    },
    {
      name: 'ground-context',
      severity: 'error',
      comment:
        'Ground floor: context.ts (the injected clock, streams, fetch and its FetchLike type, secrets service) may import only time/, errors.ts, secrets.ts, ' +
        'and the type of the rate budget it carries (rate/budget.ts; type-only, see context-names-the-budget-type).',
      from: { path: '^src/context\\.ts$' },
      to: { path: '^src/', pathNot: '^src/(context\\.ts$|errors\\.ts$|secrets\\.ts$|time/|rate/budget\\.ts$)' },
    },
    {
      name: 'context-names-the-budget-type',
      severity: 'error',
      comment:
        'context.ts names the type of `ctx.rateBudget` and nothing more of rate/: a value import would load the rate floor with the ground floor ' +
        '(cli/main.ts and the test world make the budget).',
      from: { path: '^src/context\\.ts$' },
      to: { path: '^src/rate/', dependencyTypesNot: ['type-only'] },
    },
    {
      name: 'rate-above-ground',
      severity: 'error',
      comment:
        'rate/ (the rate budget) is the floor between the ground and http/: it imports only itself, errors.ts, time/, endpoints.ts, path-family.ts and json/. ' +
        'Not context.ts, which names rate/budget.ts (a cycle), nor config/: cli/main.ts hands the file store its folder.',
      from: { path: '^src/rate/' },
      to: { path: '^src/', pathNot: '^src/(rate/|errors\\.ts$|time/|endpoints\\.ts$|path-family\\.ts$|json/)' },
    },
    {
      name: 'rate-through-its-index',
      severity: 'error',
      comment:
        'Above rate/, the budget is used through rate/index.ts, its narrow interface; only cli/main.ts (and library/context.ts, for the library) makes the process budget ' +
        '(rate/budget.ts, light enough for --help) and loads the file store (rate/store-file.ts), and context.ts names the budget type.',
      from: { path: '^src/', pathNot: '^src/(rate/|cli/main\\.ts$|context\\.ts$|library/context\\.ts$)' },
      to: { path: '^src/rate/', pathNot: '^src/rate/index\\.ts$' },
    },
    {
      name: 'ground-secrets',
      severity: 'error',
      comment:
        "Ground floor: secrets.ts (the Context's secrets service) and the text scrubbing it uses, http/redact.ts, import nothing of src but each other: " +
        'every floor, the error line of cli/ included, reaches them through the Context.',
      from: { path: '^src/(secrets\\.ts|http/redact\\.ts)$' },
      to: { path: '^src/', pathNot: '^src/(secrets\\.ts|http/redact\\.ts)$' },
    },
    {
      name: 'ground-endpoints',
      severity: 'error',
      comment:
        'Ground floor: endpoints.ts and path-family.ts (the current path family, rows of the same shape) are shared by the stack and the sandbox, so they import only each other, errors.ts and time/.',
      from: { path: '^src/(endpoints\\.ts|path-family\\.ts)$' },
      to: { path: '^src/', pathNot: '^src/(endpoints\\.ts$|path-family\\.ts$|errors\\.ts$|time/)' },
    },
    {
      name: 'ground-format-names',
      severity: 'error',
      comment:
        'Ground floor: format-names.ts, the names of the output formats (their definitions are output/formats/), is read by config/ and `--help`, so it imports nothing.',
      from: { path: '^src/format-names\\.ts$' },
      to: { path: '^src/' },
    },
    {
      name: 'http-below-pagination',
      severity: 'error',
      comment:
        'http/ is the floor above rate/: it sends requests and knows nothing of pages, output, the export run, commands, CLI, config, io or the sandbox.',
      from: { path: '^src/http/' },
      to: { path: '^src/(pagination|output|export|commands|cli|config|io|sandbox)/' },
    },
    {
      name: 'pagination-below-export',
      severity: 'error',
      comment:
        'pagination/ walks pages over http/ and the ground floor; it knows nothing of output, the export run, commands, CLI, config, io or the sandbox.',
      from: { path: '^src/pagination/' },
      to: { path: '^src/(output|export|commands|cli|config|io|sandbox)/' },
    },
    {
      name: 'output-below-export',
      severity: 'error',
      comment:
        'output/ turns items into bytes (io/ and the ground floor only); it knows nothing of pages, HTTP, the export run, commands, CLI, config or the sandbox.',
      from: { path: '^src/output/' },
      to: { path: '^src/(pagination|http|export|commands|cli|config|sandbox)/' },
    },
    {
      name: 'io-below-output',
      severity: 'error',
      comment: 'io/ (file and terminal helpers) serves output/ and the floors above; it imports none of them, nor config/ or the sandbox.',
      from: { path: '^src/io/' },
      to: { path: '^src/(pagination|output|export|commands|cli|config|sandbox)/' },
    },
    {
      name: 'config-below-commands',
      severity: 'error',
      comment:
        'config/ stores settings for commands/; it imports none of the export stack (export, output, pagination), commands, CLI or the sandbox. ' +
        'The names of the output formats it needs (flag choices, the stored `format` setting) are the ground-floor format-names.ts, not output/.',
      from: { path: '^src/config/' },
      to: { path: '^src/(export|commands|cli|sandbox|output|pagination)/' },
    },
    {
      name: 'export-below-commands',
      severity: 'error',
      comment:
        'export/ runs an export from resolved options; commands/ resolves them from config/, so export/ imports no commands, CLI, config or sandbox, ' +
        'save config/flags.ts, the flag table that names the options and their units (pure data and its checks).',
      from: { path: '^src/export/' },
      to: { path: '^src/(commands|cli|sandbox|config)/', pathNot: '^src/config/flags\\.ts$' },
    },
    {
      name: 'export-plan-on-top',
      severity: 'error',
      comment: 'export/plan/ is the top room of export/: it plans from options, then hands the plan to the run; no other room of export/ imports it.',
      from: { path: '^src/export/(run|state|manifest|files|destinations)/' },
      to: { path: '^src/export/plan/' },
    },
    {
      name: 'export-files-bottom',
      severity: 'error',
      comment:
        'export/files/ (the output file, its sidecar, lock, checkpoint and compression) is the bottom room of export/: it imports no other room of export/.',
      from: { path: '^src/export/files/' },
      to: { path: '^src/export/(run|state|manifest|destinations)/' },
    },
    {
      name: 'export-destinations-above-files',
      severity: 'error',
      comment:
        'export/destinations/ (database tables and Parquet behind the one Destination interface) uses export/files/ only: the run opens it, never the other way round.',
      from: { path: '^src/export/destinations/' },
      to: { path: '^src/export/(run|state|manifest)/' },
    },
    {
      name: 'database-drivers-only-in-destinations',
      severity: 'error',
      comment:
        'pg, pg-copy-streams and @duckdb/node-api are optional dependencies, loaded on first use by export/destinations/ only: --help and file exports never load them.',
      from: { path: '^src/', pathNot: '^src/export/destinations/' },
      to: { path: 'node_modules/(pg|pg-copy-streams|@duckdb/[^/]+)/' },
    },
    {
      name: 'export-manifest-above-files',
      severity: 'error',
      comment:
        'export/manifest/ (manifests, counting items, verify) reads the files of export/files/ only; it knows nothing of the run or the incremental state.',
      from: { path: '^src/export/manifest/' },
      to: { path: '^src/export/(run|state)/' },
    },
    {
      name: 'export-state-below-run',
      severity: 'error',
      comment: 'export/state/ (the state file and its watermarks) may use export/files/ and export/manifest/, never the run that uses it.',
      from: { path: '^src/export/state/' },
      to: { path: '^src/export/run/' },
    },
    {
      name: 'only-top-imports-top',
      severity: 'error',
      comment:
        'cli/ and commands/ are the command line: nothing else imports them, the library door and export/plan/ included ' +
        '(the library passes its options to export/plan/ as the command line does, and starts the sandbox through sandbox/serve.ts).',
      from: { path: '^src/', pathNot: '^src/(cli|commands)/' },
      to: { path: '^src/(cli|commands)/' },
    },
    {
      name: 'door-is-the-top',
      severity: 'error',
      comment:
        'src/index.ts is what the package exports and nothing else: no module of src imports it; library/ is behind it, imported only by it ' +
        'and by itself, and imports no cli/.',
      from: { path: '^src/', pathNot: '^src/(index\\.ts$|library/)' },
      to: { path: '^src/(index\\.ts$|library/)' },
    },
    {
      name: 'library-below-cli',
      severity: 'error',
      comment: 'The library never reads argv or the process: cli/ is the command line only.',
      from: { path: '^src/(index\\.ts$|library/)' },
      to: { path: '^src/cli/' },
    },
    {
      name: 'commands-below-cli',
      severity: 'error',
      comment: "commands/ holds each command's behaviour (runX); cli/ parses argv and calls it, never the other way round.",
      from: { path: '^src/commands/' },
      to: { path: '^src/cli/' },
    },
    {
      name: 'sandbox-beside-stack',
      severity: 'error',
      comment:
        'The sandbox stands beside the stack: it may import only sandbox/ and the ground floor it shares with the client (endpoints, time, errors, context).',
      from: { path: '^src/sandbox/' },
      to: { path: '^src/', pathNot: ['^src/sandbox/', GROUND] },
    },
    {
      name: 'sandbox-only-from-its-command',
      severity: 'error',
      comment:
        "Only the sandbox command (commands/sandbox/, which shows its switches in `sandbox --help`) and the library's startSandbox() " +
        '(library/sandbox.ts) start the sandbox; the export path never imports it (tests may).',
      from: { path: '^src/', pathNot: '^src/(sandbox/|commands/sandbox/|library/sandbox\\.ts$)' },
      to: { path: '^src/sandbox/' },
    },
  ],
  options: {
    doNotFollow: { path: 'node_modules' },
    tsPreCompilationDeps: true,
    tsConfig: { fileName: 'tsconfig.json' },
    enhancedResolveOptions: {
      exportsFields: ['exports'],
      conditionNames: ['import', 'require', 'node', 'default', 'types'],
      mainFields: ['module', 'main', 'types', 'typings'],
    },
    reporterOptions: {
      text: { highlightFocused: true },
    },
  },
};
