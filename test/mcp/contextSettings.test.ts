/** One table for the context settings: package.json, the VS Code settings reader and the servers' defaults follow it. */
import assert from 'node:assert/strict';
import { getEncoding } from 'js-tiktoken';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { DEFAULT_CONTEXT_SETTINGS } from '../../src/core/context/node/service';
import { CONTEXT_SETTINGS, type ContextSettingKey } from '../../src/core/context/settingsTable';
import { contextSettings, type SettingGetter } from '../../src/vscode/settings';
import { memoryClient, textOf, tmpWorkspace, type Workspace } from './helpers';
import { assertContributedAsTable } from '../settingsContributed';

const keys = Object.keys(CONTEXT_SETTINGS) as ContextSettingKey[];
const only = (key: string, value: unknown): SettingGetter => ((k: string, fallback: unknown) => (k === key ? value : fallback)) as SettingGetter;
/** The ContextSettings field each setting sets. */
const FIELD = { defaultReadMode: 'defaultMode', autoFullMaxTokens: 'autoThresholdTokens', pageTokens: 'pageTokens', overviewBudget: 'overviewBudget' } as const;

describe('context settings table', () => {
  it("package.json contributes exactly the table's context settings, each with its type, bounds or values, and default", () => {
    assertContributedAsTable('betterEditTools.context.', CONTEXT_SETTINGS);
  });

  it('the reader takes every value the Settings UI accepts and falls back to the default outside it; the servers default to the table', () => {
    for (const key of keys) {
      const l = CONTEXT_SETTINGS[key];
      const field = FIELD[key];
      assert.equal(contextSettings(only(`context.${key}`, undefined))[field], l.default, `${key} default`);
      assert.equal(DEFAULT_CONTEXT_SETTINGS[field], l.default, `${key}: the context service's default`);
      const good: unknown[] = l.type === 'number' ? [l.min, l.max, l.default] : [...l.values];
      for (const v of good) assert.equal(contextSettings(only(`context.${key}`, v))[field], v, `${key}=${String(v)}`);
      const bad: unknown[] = l.type === 'number' ? [l.min - 1, l.max + 1, l.min + 0.5, '8000', NaN] : ['overview', 1, null];
      for (const v of bad) assert.equal(contextSettings(only(`context.${key}`, v))[field], l.default, `${key}=${String(v)} falls back`);
    }
  });

  describe('pages at both bounds of pageTokens, as the model sees them', function () {
    this.timeout(60_000);
    let ws: Workspace;
    before(async () => {
      ws = await tmpWorkspace();
      await ws.write('long.ts', Array.from({ length: 3000 }, (_, i) => `export const value${i} = compute(${i}, "${'x'.repeat(i % 40)}");`).join('\n') + '\n');
    });
    after(() => ws?.dispose());

    for (const pageTokens of [CONTEXT_SETTINGS.pageTokens.min, CONTEXT_SETTINGS.pageTokens.default]) {
      it(`pageTokens ${pageTokens}: every page of a full read, header included, is at most ${pageTokens} tokens`, async () => {
        const enc = getEncoding('o200k_base');
        const c = await memoryClient(ws, { reply: 'text' }, { context: { watch: false, settings: { pageTokens } } });
        try {
          let args: Record<string, unknown> | undefined = { file: 'long.ts', mode: 'full' };
          let pages = 0;
          while (args && pages < 5) {
            const r = (await c.client.callTool({ name: 'be-read', arguments: args })) as CallToolResult;
            const view = textOf(r);
            const tokens = enc.encode(view).length;
            assert.ok(tokens <= pageTokens, `page ${pages + 1} is ${tokens} tokens`);
            assert.ok(tokens > pageTokens / 2, `page ${pages + 1} is only ${tokens} tokens`);
            const next = / next: be-read (\{.*\})$/m.exec(view.split('\n', 1)[0]!);
            args = next ? (JSON.parse(next[1]!) as Record<string, unknown>) : undefined;
            pages++;
          }
          assert.equal(pages, 5);
        } finally {
          await c.close();
        }
      });
    }
  });
});
