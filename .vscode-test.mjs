// `npm run test:vscode`: the extension-host suite (test/e2e/suite, the one the code-server e2e stage runs) in desktop
// VS Code, downloaded by @vscode/test-electron. Started by scripts/e2e/test-vscode.mjs, which builds the extension
// and the suite, creates the workspace, and skips (clearly, exit 0) where VS Code cannot be downloaded.
import { defineConfig } from '@vscode/test-cli';

export default defineConfig({
  label: 'extension host (desktop VS Code)',
  files: '.e2e/out/suite/**/*.e2e.js',
  version: process.env.VSCODE_VERSION || 'stable',
  // ours, and the fixtures the e2e stage installs beside the .vsix (scripts/e2e/ci-e2e.sh)
  extensionDevelopmentPath: ['.', 'test/e2e/lm-provider', 'test/e2e/copilot-settings'],
  workspaceFolder: process.env.BET_VSCODE_WS,
  ...(process.env.VSCODE_PATH ? { useInstallation: { fromPath: process.env.VSCODE_PATH } } : {}),
  launchArgs: ['--disable-workspace-trust', '--skip-welcome', '--skip-release-notes'],
  mocha: { ui: 'bdd', timeout: 60000, color: false },
});
