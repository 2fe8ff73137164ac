/**
 * The layer rules (ARCHITECTURE.md): core <- mcp <- cli / vscode, nothing points back up, no cycles.
 * `npm run lint` runs this; so does `npm test`.
 */
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
    {
      name: 'core-stays-down',
      severity: 'error',
      comment: 'src/core knows nothing of VS Code, MCP or the hosts.',
      from: { path: '^src/core/' },
      to: { path: ['^src/(mcp|cli|vscode)/', '^vscode$', '(^|/)@types/vscode/', '@modelcontextprotocol/'] },
    },
    {
      name: 'vscode-only-in-the-extension',
      severity: 'error',
      comment: 'Only src/vscode may import the vscode API: core, the MCP layer and the CLI run without VS Code.',
      from: { path: '^src/(core|mcp|cli)/' },
      to: { path: ['^vscode$', '(^|/)@types/vscode/'] },
    },
    {
      name: 'mcp-below-hosts',
      severity: 'error',
      comment: 'The MCP layer is shared by both hosts: it imports neither.',
      from: { path: '^src/mcp/' },
      to: { path: '^src/(cli|vscode)/' },
    },
    {
      name: 'hosts-apart',
      severity: 'error',
      comment: 'The CLI and the extension are separate composition roots: neither imports the other.',
      from: { path: '^src/(cli|vscode)/' },
      to: { path: '^src/(cli|vscode)/', pathNot: '^src/$1/' },
    },
    {
      name: 'pure-core-no-io',
      severity: 'error',
      comment:
        'Pure core (src/core outside files/ and the node/ folders) does no I/O of its own: it is given ports ' +
        '(FileStore, Sandbox, stores, tokenizer, grammar locator). Node-bound code lives in src/core/files or a node/ folder.',
      from: { path: '^src/core/', pathNot: ['^src/core/files/', '/node/'] },
      to: { dependencyTypes: ['core'], path: '^(node:)?(fs|fs/promises|child_process|worker_threads|net|http|https)$' },
    },
    {
      name: 'context-reads-not-edits',
      severity: 'error',
      comment: 'The context modes read through src/core/read (the one line model, range check and id); they never import the edit tools.',
      from: { path: '^src/core/context/' },
      to: { path: '^src/core/edits/' },
    },
    {
      name: 'read-below-edits',
      severity: 'error',
      comment: 'src/core/read is what both be-read paths and the edit tools stand on: it imports neither edits nor context.',
      from: { path: '^src/core/read/' },
      to: { path: '^src/core/(edits|context)/' },
    },
    {
      name: 'src-not-tests',
      severity: 'error',
      from: { path: '^src/' },
      to: { path: '^(test|bench|scripts)/' },
    },
  ],
  options: {
    doNotFollow: { path: 'node_modules' },
    tsPreCompilationDeps: true,
    tsConfig: { fileName: 'tsconfig.json' },
    exclude: { path: '^(dist|\\.e2e|test/fixtures)/' },
  },
};
