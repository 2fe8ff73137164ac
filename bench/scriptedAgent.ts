/**
 * A scripted coding session for the memory bench and the tests: a deterministic "model" that decides from the
 * prompt it is sent (as a real one would), and the user's side of a long session over a fixture repository.
 *
 * The model reads the newest message: a user query names an action (read, edit, break, recall, ask) and the
 * model answers with the matching be-* tool call; after a tool result it answers in one line. It records every
 * prompt it was sent, so a run can check what really went to the model (budget, pins, pairs).
 */
import type { ChatModelPort, ModelPart, ToolSpec } from '../src/core/memory/chatTurn';
import type { AssembledMessage } from '../src/core/memory/promptAssembly';

export interface SentPrompt {
  messages: AssembledMessage[];
  tools: ToolSpec[];
}

export interface ScriptedModel extends ChatModelPort {
  readonly sent: SentPrompt[];
}

function lastText(m: AssembledMessage | undefined): string {
  const p = m?.parts[0];
  return p && p.type === 'text' ? p.text : '';
}

/** `read F` · `edit F N TEXT` · `break F` · `recall ID` · `ask …` (answered from the prompt). */
export function decide(messages: AssembledMessage[]): ModelPart[] {
  const last = messages.at(-1);
  const first = last?.parts[0];
  if (first?.type === 'tool_result') {
    return [{ type: 'text', text: first.isError ? `That failed: ${first.text.slice(0, 80)}` : `Done (${first.text.length} characters of result).` }];
  }
  const q = lastText(last);
  const words = q.split(/\s+/);
  const callId = `call${messages.length}`;
  switch (words[0]) {
    case 'read':
      return [{ type: 'tool_call', callId, name: 'be-read', input: { file: `${words[1]}:ALL` } }];
    case 'edit':
      return [{ type: 'tool_call', callId, name: 'be-insert', input: { file: `${words[1]}:${words[2]}`, content: `${words.slice(3).join(' ')}\n` } }];
    case 'break':
      return [{ type: 'tool_call', callId, name: 'be-replace', input: { file: `${words[1]}:9000-9001`, content: 'never lands\n' } }];
    case 'recall':
      return [{ type: 'tool_call', callId, name: 'be-memory', input: { action: 'recall', id: words[1], budget: 4000 } }];
    default:
      return [{ type: 'text', text: `Answer to "${q.slice(0, 60)}": see the files above.` }];
  }
}

export function scriptedModel(maxInputTokens: number, count?: (text: string) => number): ScriptedModel {
  const sent: SentPrompt[] = [];
  return {
    name: 'scripted/coder',
    maxInputTokens,
    sent,
    ...(count
      ? {
          async countTokens(messages: AssembledMessage[], tools: ToolSpec[]) {
            // a provider's own count: the text of every part, a little framing, the tool schemas
            let total = count(JSON.stringify(tools));
            for (const m of messages) for (const p of m.parts) total += 4 + count(p.type === 'tool_call' ? `${p.name} ${JSON.stringify(p.input)}` : p.text);
            return total;
          },
        }
      : {}),
    async *send(messages, tools) {
      sent.push({ messages, tools });
      for (const part of decide(messages)) yield part;
    },
  };
}

export interface ScriptStep {
  query: string;
  kind: 'read' | 'edit' | 'break' | 'ask';
  file: string;
}

/** A deterministic session of `turns` user queries over `files` (relative paths): reads, edits, failures, questions. */
export function sessionScript(files: readonly string[], turns: number): ScriptStep[] {
  const steps: ScriptStep[] = [];
  for (let t = 1; t <= turns; t++) {
    const file = files[(t * 5 + Math.floor(t / files.length)) % files.length]!;
    const r = t % 10;
    if (r === 3 || r === 7) steps.push({ kind: 'edit', file, query: `edit ${file} 1 // reviewed in turn ${t}` });
    else if (r === 9) steps.push({ kind: 'break', file, query: `break ${file}` });
    else if (r === 5) steps.push({ kind: 'ask', file, query: `ask what does ${file} export, and did we change it?` });
    else steps.push({ kind: 'read', file, query: `read ${file}` });
  }
  return steps;
}
