// Packages the e2e's scripted language-model provider (test/e2e/lm-provider) as a .vsix: node lm-provider-vsix.mjs OUT.vsix
import path from 'node:path';
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';

const require = createRequire(import.meta.url);
const { createVSIX } = require('@vscode/vsce');
const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');
await createVSIX({
  cwd: path.join(root, 'test', 'e2e', 'lm-provider'),
  packagePath: path.resolve(process.argv[2]),
  dependencies: false,
  allowMissingRepository: true,
  skipLicense: true,
  allowStarActivation: true,
});
