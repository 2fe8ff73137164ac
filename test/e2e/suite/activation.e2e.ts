// Activation cost in the real extension host (runs first: files are loaded in name order). The extension
// measures itself: bundle evaluation (from a banner esbuild puts first in dist/extension.js) and activate().
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import * as vscode from 'vscode';
import type { ExtensionApi } from '../../../src/vscode/extension';

const GOALS = { bundleBytes: 1.5 * 1024 * 1024, moduleEvalMs: 40, activationMs: 50 };

describe('activation cost', () => {
  it('bundle size, module evaluation and activate() are printed and within their goals', async () => {
    const ext = vscode.extensions.getExtension<ExtensionApi>('better-edit-tools.better-edit-tools');
    assert.ok(ext);
    const api = await ext.activate();
    const bytes = fs.statSync(path.join(ext.extensionPath, 'dist', 'extension.js')).size;
    const { moduleEvalMs, activateMs } = api.timings;
    assert.equal(typeof moduleEvalMs, 'number', 'the installed dist/extension.js carries the load-time banner');
    const total = moduleEvalMs! + activateMs;
    console.log(`figure: dist/extension.js = ${(bytes / 1024).toFixed(0)} KB (goal <= ${GOALS.bundleBytes / 1024} KB)`);
    console.log(`figure: extension module evaluation = ${moduleEvalMs!.toFixed(1)} ms (goal <= ${GOALS.moduleEvalMs} ms)`);
    console.log(`figure: activate() until resolved = ${activateMs.toFixed(1)} ms`);
    console.log(`figure: activation (module evaluation + activate()) = ${total.toFixed(1)} ms (goal <= ${GOALS.activationMs} ms)`);
    assert.ok(bytes <= GOALS.bundleBytes, `bundle ${bytes} bytes`);
    // Startup runs beside the whole workbench on a shared CI machine: the timing goals get 2x headroom here;
    // scripts/e2e/measure.mjs checks the module load on a quiet process against the goal itself.
    assert.ok(moduleEvalMs! <= 2 * GOALS.moduleEvalMs, `module evaluation ${moduleEvalMs} ms`);
    assert.ok(total <= 2 * GOALS.activationMs, `activation ${total} ms`);
  });
});
