import assert from 'node:assert/strict';
import { ChatMemory } from '../../../src/core/memory/chatMemory';
import { PromptSummarizer, type Complete } from '../../../src/core/memory/summarizer';
import { memoryDeps } from './memoryDeps';

async function until(cond: () => boolean): Promise<void> {
  for (let i = 0; i < 100 && !cond(); i++) await new Promise((r) => setTimeout(r, 5));
  assert.ok(cond(), 'condition not reached');
}

function fill(memory: ChatMemory): void {
  for (let i = 0; i < 40; i++) {
    memory.add({ kind: 'tool_call', id: `c${i}`, tool: 'be-read', content: `be-read src/f${i}.ts:1-9`, references: [{ path: `src/f${i}.ts`, start: 1, end: 9 }] });
    memory.add({ kind: 'tool_result', id: `r${i}`, pairId: `c${i}`, content: 'export const value = compute();\n'.repeat(30) });
  }
}

describe('core/memory/PromptSummarizer (LM condensing with extractive fallback)', () => {
  const options = { maxTokens: 2500, reserveRatio: 0, recentKeep: 2, summaryEvery: 800 };

  it('applies the model summary when it arrives; the extractive one meanwhile', async () => {
    const prompts: string[] = [];
    const complete: Complete = async (prompt) => {
      prompts.push(prompt);
      return '- reads of src/f*.ts lines 1-9 returned constants\n* nothing failed';
    };
    const memory = new ChatMemory(options, { ...memoryDeps, summarizer: new PromptSummarizer(complete) });
    const changes: boolean[] = [];
    memory.onDidChange((c) => c.summaryChanged && changes.push(true));
    fill(memory);
    assert.ok(prompts.length > 0, 'the model was asked');
    assert.match(prompts[0]!, /- \[c0,r0\] be-read src\/f0\.ts:1-9 → ok/);
    await until(() => memory.summary().startsWith('- reads of src/f*.ts lines 1-9 returned constants\n- nothing failed\n'));
    assert.ok(changes.length > 0);
    const s = memory.stats();
    assert.ok(s.usedTokens <= s.usableTokens);
  });

  it('falls back to the extractive summary when the model fails or answers nothing', async () => {
    for (const complete of [async () => Promise.reject(new Error('no model')), async () => '  \n']) {
      const memory = new ChatMemory(options, { ...memoryDeps, summarizer: new PromptSummarizer(complete as Complete) });
      fill(memory);
      await new Promise((r) => setTimeout(r, 20));
      assert.match(memory.summary(), /^- earlier: \d+ messages evicted/);
    }
  });

  it('ignores a model summary larger than the summary budget', async () => {
    const memory = new ChatMemory({ ...options, summaryMaxTokens: 200 }, { ...memoryDeps, summarizer: new PromptSummarizer(async () => '- word '.repeat(2000)) });
    fill(memory);
    await new Promise((r) => setTimeout(r, 20));
    assert.ok(memory.stats().summaryTokens <= 200);
    assert.match(memory.summary(), /earlier: /);
  });
});
