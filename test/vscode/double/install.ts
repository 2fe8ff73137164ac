/**
 * Makes `require('vscode')` resolve to the in-memory double (./vscode.ts), in this test process only: the
 * extension's modules import `vscode` as in VS Code and get the double. Import this first in a test file.
 */
import Module from 'node:module';
import * as path from 'node:path';

const DOUBLE = path.join(__dirname, 'vscode.ts');
type Resolve = (request: string, ...rest: unknown[]) => string;
const mod = Module as unknown as { _resolveFilename: Resolve; __betVscodeDouble?: true };
if (!mod.__betVscodeDouble) {
  const original = mod._resolveFilename;
  mod._resolveFilename = function (request: string, ...rest: unknown[]) {
    return request === 'vscode' ? DOUBLE : original.call(this, request, ...rest);
  };
  mod.__betVscodeDouble = true;
}

export { double, testLog } from './vscode';
