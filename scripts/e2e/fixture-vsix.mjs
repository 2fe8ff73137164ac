// Packages one of the e2e's fixture extensions (a folder under test/e2e) as a .vsix: node fixture-vsix.mjs NAME OUT.vsix
//   lm-provider       the scripted language-model provider the @better-edit tests pick
//   copilot-settings  Copilot Chat's two largeToolResultsToDisk settings with its defaults, nothing else (Copilot
//                     Chat itself cannot be installed in the e2e: no Marketplace). Keys, types and defaults as in
//                     microsoft/vscode-copilot-chat package.json, contributes.configuration (March 2026):
//                     github.copilot.chat.agent.largeToolResultsToDisk.enabled (boolean, true) and
//                     github.copilot.chat.agent.largeToolResultsToDisk.thresholdBytes (number, 8192)
import path from 'node:path';
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';

const require = createRequire(import.meta.url);
const { createVSIX } = require('@vscode/vsce');
const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');
const [name, out] = process.argv.slice(2);
if (!['lm-provider', 'copilot-settings'].includes(name) || !out) {
  console.error('usage: node fixture-vsix.mjs lm-provider|copilot-settings OUT.vsix');
  process.exit(2);
}
await createVSIX({
  cwd: path.join(root, 'test', 'e2e', name),
  packagePath: path.resolve(out),
  dependencies: false,
  allowMissingRepository: true,
  skipLicense: true,
  allowStarActivation: true,
});
