/**
 * The layer rules (ARCHITECTURE.md): core <- mcp <- cli / vscode, nothing points back up, no cycles; pure core does
 * no I/O and sees src/core/files only through its ports. `npm run lint` runs this and .dependency-cruiser.reach.cjs
 * (the transitive purity rule, which reuses PURE_CORE and FILE_PORTS from here); so does `npm test`.
 */

/** Pure core: src/core outside the node/ folders and outside src/core/files, save the port modules there (and ownNames.ts: name tests). */
const FILE_PORTS = '^src/core/files/(fileStore|ports|ownNames)\\.ts$';
const PURE_CORE = { path: '^src/core/', pathNot: ['^src/core/files/(?!(fileStore|ports|ownNames)\\.ts$)', '/node/'] };

/** One row per "`from` never imports `to`" rule: [name, why, from, to (paths, or a `to` object)]. */
const LAYERS = [
  ['core-stays-down', 'src/core knows nothing of VS Code, MCP or the hosts.', '^src/core/',
    ['^src/(mcp|cli|vscode)/', '^vscode$', '(^|/)@types/vscode/', '@modelcontextprotocol/']],
  ['vscode-only-in-the-extension', 'Only src/vscode may import the vscode API: core, the MCP layer and the CLI run without VS Code.',
    '^src/(core|mcp|cli)/', ['^vscode$', '(^|/)@types/vscode/']],
  ['mcp-below-hosts', 'The MCP layer is shared by both hosts: it imports neither.', '^src/mcp/', '^src/(cli|vscode)/'],
  ['hosts-apart', 'The CLI and the extension are separate composition roots: neither imports the other.',
    '^src/(cli|vscode)/', { path: '^src/(cli|vscode)/', pathNot: '^src/$1/' }],
  ['context-reads-not-edits', 'The context modes read through src/core/read (the one line model, range check and id); they never import the edit tools.',
    '^src/core/context/', '^src/core/edits/'],
  ['read-below-edits', 'src/core/read is what both be-read paths and the edit tools stand on: it imports neither edits nor context.',
    '^src/core/read/', '^src/core/(edits|context)/'],
  ['src-not-tests', 'The shipped code never imports tests, benchmarks or scripts.', '^src/', '^(test|bench|scripts)/'],
];

/** @type {import('dependency-cruiser').IConfiguration} */
module.exports = {
  forbidden: [
    {
      name: 'no-cycles',
      severity: 'error',
      comment: 'An import cycle makes load order matter and hides which module owns what.',
      from: {},
      to: { circular: true, viaOnly: { pathNot: '^node_modules' } },
    },
    ...LAYERS.map(([name, comment, from, to]) => ({
      name,
      severity: 'error',
      comment,
      from: { path: from },
      to: typeof to === 'string' || Array.isArray(to) ? { path: to } : to,
    })),
    {
      name: 'pure-core-no-io',
      severity: 'error',
      comment:
        'Pure core (src/core outside the node/ folders and files/, save its ports) does no I/O of its own: it is given ports ' +
        '(FileStore, Sandbox, walker, codec, rollback targets, journal, stores, tokenizer). Node-bound code lives in src/core/files or a node/ folder.',
      from: PURE_CORE,
      to: { dependencyTypes: ['core'], path: '^(node:)?(fs|fs/promises|child_process|worker_threads|net|http|https)$' },
    },
    {
      name: 'pure-core-imports-file-ports',
      severity: 'error',
      comment: 'Pure core imports from src/core/files only the ports (fileStore.ts, ports.ts), type-only imports included: never an implementation.',
      from: PURE_CORE,
      to: { path: '^src/core/files/', pathNot: FILE_PORTS },
    },
  ],
  options: {
    doNotFollow: { path: 'node_modules' },
    tsPreCompilationDeps: true,
    tsConfig: { fileName: 'tsconfig.json' },
    exclude: { path: '^(dist|\\.e2e|test/fixtures)/' },
  },
};
