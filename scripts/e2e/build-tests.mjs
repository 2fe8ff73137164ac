// Bundles the e2e suite (test/e2e/suite/*.ts) to CommonJS for the extension host; mocha and vscode stay external.
import { build } from 'esbuild';
import { readdirSync, rmSync } from 'node:fs';
import path from 'node:path';

const out = process.argv[2];
const src = path.resolve(process.env.E2E_TESTS_SRC || 'test/e2e/suite');
rmSync(out, { recursive: true, force: true });
await build({
  entryPoints: readdirSync(src).filter((f) => f.endsWith('.ts')).map((f) => path.join(src, f)),
  outdir: out,
  bundle: true,
  platform: 'node',
  format: 'cjs',
  target: 'node20',
  sourcemap: 'inline',
  external: ['vscode', 'mocha'],
  logLevel: 'warning',
});
