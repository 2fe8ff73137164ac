/**
 * A `vscode.lm` chat model as the chat turn's ChatModelPort: our assembled messages become LanguageModelChatMessages
 * (text, tool call and tool result parts; User/Assistant roles only, as the finalized API has), the response stream
 * becomes text and tool-call parts, and the model's own `countTokens` is the final check before anything is sent.
 */
import * as vscode from 'vscode';
import type { ChatModelPort, ModelPart, ToolSpec } from '../../core/memory/chatTurn';
import type { AssembledMessage } from '../../core/memory/promptAssembly';

export function toChatMessages(messages: AssembledMessage[]): vscode.LanguageModelChatMessage[] {
  return messages.map((m) => {
    const parts = m.parts.map((p) => {
      switch (p.type) {
        case 'text':
          return new vscode.LanguageModelTextPart(p.text);
        case 'tool_call':
          return new vscode.LanguageModelToolCallPart(p.callId, p.name, p.input);
        case 'tool_result':
          return new vscode.LanguageModelToolResultPart(p.callId, [new vscode.LanguageModelTextPart(p.isError ? `ERROR: ${p.text}` : p.text)]);
      }
    });
    return m.role === 'assistant'
      ? vscode.LanguageModelChatMessage.Assistant(parts as (vscode.LanguageModelTextPart | vscode.LanguageModelToolCallPart)[])
      : vscode.LanguageModelChatMessage.User(parts as (vscode.LanguageModelTextPart | vscode.LanguageModelToolResultPart)[]);
  });
}

function tokenOf(signal: AbortSignal | undefined): { token: vscode.CancellationToken; dispose(): void } {
  const source = new vscode.CancellationTokenSource();
  const abort = () => source.cancel();
  if (signal?.aborted) source.cancel();
  signal?.addEventListener('abort', abort);
  return { token: source.token, dispose: () => (signal?.removeEventListener('abort', abort), source.dispose()) };
}

export function chatModelPort(model: vscode.LanguageModelChat): ChatModelPort {
  const tools = (specs: ToolSpec[]): vscode.LanguageModelChatTool[] => specs.map((s) => ({ name: s.name, description: s.description, inputSchema: s.inputSchema }));
  return {
    name: `${model.vendor}/${model.id}`,
    maxInputTokens: model.maxInputTokens,
    async countTokens(messages, specs, signal) {
      const { token, dispose } = tokenOf(signal);
      try {
        let total = await model.countTokens(JSON.stringify(specs), token);
        for (const m of toChatMessages(messages)) total += await model.countTokens(m, token);
        return total;
      } finally {
        dispose();
      }
    },
    async *send(messages, specs, signal): AsyncIterable<ModelPart> {
      const { token, dispose } = tokenOf(signal);
      try {
        const response = await model.sendRequest(toChatMessages(messages), { tools: tools(specs), toolMode: vscode.LanguageModelChatToolMode.Auto }, token);
        for await (const part of response.stream) {
          if (part instanceof vscode.LanguageModelTextPart) yield { type: 'text', text: part.value };
          else if (part instanceof vscode.LanguageModelToolCallPart) yield { type: 'tool_call', callId: part.callId, name: part.name, input: (part.input ?? {}) as Record<string, unknown> };
        }
      } finally {
        dispose();
      }
    },
  };
}
