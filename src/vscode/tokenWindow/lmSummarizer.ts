/**
 * A ChatMemory summarizer backed by `vscode.lm` (optional, behind a setting): condensing asks a chat
 * model the user already has; per-eviction lines stay extractive; any failure (no model, no consent,
 * quota, timeout) falls back to the extractive summary. Wire it with
 * `MemoryRegistry.open({ …, deps: { summarizer: lmSummarizer() } })`.
 */
import * as vscode from 'vscode';
import { PromptSummarizer, type Complete } from '../../core/memory/summarizer';

/** Small, fast models first; any available chat model otherwise. */
const PREFERRED: vscode.LanguageModelChatSelector[] = [{ family: 'gpt-4o-mini' }, { family: 'gpt-4.1-mini' }, {}];

export function vscodeLmComplete(selectors: vscode.LanguageModelChatSelector[] = PREFERRED): Complete {
  return async (prompt, signal) => {
    let model: vscode.LanguageModelChat | undefined;
    for (const selector of selectors) {
      [model] = await vscode.lm.selectChatModels(selector);
      if (model) break;
    }
    if (!model) throw new Error('no language model available');
    const cts = new vscode.CancellationTokenSource();
    signal?.addEventListener('abort', () => cts.cancel());
    try {
      const response = await model.sendRequest(
        [vscode.LanguageModelChatMessage.User(prompt)],
        { justification: vscode.l10n.t('Better Edit Tools condenses the evicted part of an agent session into a short summary.') },
        cts.token,
      );
      let text = '';
      for await (const chunk of response.text) text += chunk;
      return text;
    } finally {
      cts.dispose();
    }
  };
}

export function lmSummarizer(timeoutMs = 20_000): PromptSummarizer {
  return new PromptSummarizer(vscodeLmComplete(), timeoutMs);
}
