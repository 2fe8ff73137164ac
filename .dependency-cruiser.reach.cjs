/**
 * Purity that holds transitively (ARCHITECTURE.md, Layers): pure core never *reaches* a node/ folder or a
 * Node-bound src/core/files module at run time, through any chain of imports. The main config sees type-only
 * imports (tsPreCompilationDeps); this one cruises what runs (tsPreCompilationDeps: false erases them), because
 * dependency-cruiser's `reachable` rules take no dependency types. `npm run lint` runs both, with no known list.
 */
const main = require('./.dependency-cruiser.cjs');

const pure = main.forbidden.find((r) => r.name === 'pure-core-no-io').from;
const ports = main.forbidden.find((r) => r.name === 'pure-core-imports-file-ports').to;

/** @type {import('dependency-cruiser').IConfiguration} */
module.exports = {
  forbidden: [
    {
      name: 'pure-core-stays-pure',
      severity: 'error',
      comment:
        'Pure core never reaches, at run time, a node/ folder or a src/core/files module other than the ports: what it ' +
        'needs of the disk, a worker or a journal is given to it (mapPorts.ts, TextCodec, RollbackTargets, BatchJournal, ports.ts).',
      from: pure,
      to: { reachable: true, path: ['/node/', ports.path], pathNot: ports.pathNot },
    },
  ],
  options: { ...main.options, tsPreCompilationDeps: false },
};
