/**
 * Purity that holds transitively (ARCHITECTURE.md, Layers): pure core never *reaches* a node/ folder or a
 * Node-bound src/core/files module at run time, through any chain of imports. The main config sees type-only
 * imports (tsPreCompilationDeps); this one cruises what runs (tsPreCompilationDeps: false erases them), because
 * dependency-cruiser's `reachable` rules take no dependency types. `npm run lint` runs both.
 */
const main = require('./.dependency-cruiser.cjs');

/** @type {import('dependency-cruiser').IConfiguration} */
module.exports = {
  forbidden: [
    {
      name: 'pure-core-stays-pure',
      severity: 'error',
      comment:
        'Pure core (src/core outside files/ and node/) never reaches, at run time, a node/ folder or a src/core/files ' +
        'module other than the pure ports (fileStore.ts, sandbox.ts and the policy tables they use) and ownNames.ts (name tests).',
      from: { path: '^src/core/', pathNot: ['^src/core/files/', '/node/'] },
      to: {
        reachable: true,
        path: ['/node/', '^src/core/files/'],
        pathNot: ['^src/core/files/(fileStore|sandbox|writePolicy|encodingRules|statePaths|workspaceKey|ownNames)\\.ts$'],
      },
    },
  ],
  options: { ...main.options, tsPreCompilationDeps: false },
};
