// @better-edit in the real extension host: a scripted LanguageModelChatProvider (test/e2e/lm-provider, installed
// next to the .vsix) is the model; a 30-turn session is typed into VS Code's own chat view (workbench.action.chat.open),
// so requests, history and the picked model come from the workbench as they would for a user.
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import * as vscode from 'vscode';
import type { ExtensionApi } from '../../../src/vscode/extension';
import { EXT_ID, until } from '../support/host';

const PIN = 'PINNED-E2E: never edit README.md';

interface SeenRequest {
  tokens: number;
  maxInputTokens: number;
  hasPin: boolean;
  last: string;
  lastIsToolResult: boolean;
  tools: string[];
}

function stream(out: string[]): vscode.ChatResponseStream {
  const noop = () => undefined;
  return {
    markdown: (s: string | vscode.MarkdownString) => void out.push(typeof s === 'string' ? s : s.value),
    progress: (s: string) => void out.push(`[progress] ${s}`),
    anchor: noop,
    button: noop,
    filetree: noop,
    reference: noop,
    push: noop,
  } as unknown as vscode.ChatResponseStream;
}

describe('@better-edit chat participant on a scripted language model', function () {
  this.timeout(240_000);
  let api: ExtensionApi;
  let model: vscode.LanguageModelChat;
  let sessionId: string | undefined;
  const folder = () => vscode.workspace.workspaceFolders![0]!.uri.fsPath;

  before(async () => {
    const ext = vscode.extensions.getExtension<ExtensionApi>(EXT_ID);
    assert.ok(ext, 'our extension is installed');
    api = await ext.activate();
    assert.ok(api.participant, '@better-edit is registered (the host has the chat API)');
    model = await until('the scripted model', async () => (await vscode.lm.selectChatModels({ vendor: 'be-scripted' }))[0], 60000);
    fs.mkdirSync(path.join(folder(), 'chat'), { recursive: true });
    fs.writeFileSync(path.join(folder(), 'chat', 'log.txt'), Array.from({ length: 10 }, (_, i) => `entry ${i + 1}`).join('\n') + '\n');
  });

  /** Types `@better-edit <text>` into the chat view and waits until the participant's turn for it is done. */
  async function chat(text: string): Promise<void> {
    const known = new Map(api.turns.sessionIds().map((s) => [s, api.turns.list(s).length]));
    await vscode.commands.executeCommand('workbench.action.chat.open', { query: `@better-edit ${text}`, modelSelector: { vendor: 'be-scripted' } });
    await until(`the turn for "${text}"`, () => {
      for (const s of api.turns.sessionIds()) {
        const list = api.turns.list(s);
        if (list.length > (known.get(s) ?? 0) && list.at(-1)!.done) {
          if (sessionId !== undefined && s !== sessionId) throw new Error(`the chat view started another session (${s}, expected ${sessionId})`);
          sessionId = s;
          return true;
        }
      }
      return undefined;
    }, 60000);
  }

  async function ask(prompt: string, command?: string): Promise<{ out: string[]; result: vscode.ChatResult }> {
    const history = sessionId
      ? [new (vscode.ChatResponseTurn as unknown as new (...a: unknown[]) => vscode.ChatResponseTurn)([], { metadata: { sessionId } }, 'betterEditTools.chat')]
      : [];
    const request = { prompt, command, references: [], toolReferences: [], toolInvocationToken: undefined, model } as unknown as vscode.ChatRequest;
    const out: string[] = [];
    const source = new vscode.CancellationTokenSource();
    const result = (await api.participant!.handler(request, { history } as vscode.ChatContext, stream(out), source.token)) ?? {};
    sessionId = (result.metadata as { sessionId: string }).sessionId;
    return { out, result };
  }

  it('runs 30 turns typed in the chat view: no prompt over the model limit (as the model counts), the pin in every prompt', async () => {
    await chat(`/pin ${PIN}`);
    assert.ok(api.memory.get(sessionId!).visibleMessages().some((m) => m.pinned && m.content === PIN), '/pin from the chat view pinned it');
    const files = ['src/greet.ts', 'src/math.py', 'src/notes.txt', 'chat/log.txt', 'README.md'];
    for (let t = 1; t <= 30; t++) {
      const file = files[t % files.length]!;
      const q = t % 6 === 0 ? `edit chat/log.txt 1 turn ${t} was here` : t % 7 === 0 ? `ask about ${file}` : `read ${file}`;
      await chat(q);
      const last = api.turns.list(sessionId!).at(-1)!;
      assert.equal(last.error, undefined, `turn ${t}: ${last.error}`);
      assert.equal(last.model, 'be-scripted/coder', 'the chat view sent it to the scripted model');
    }
    const seen = (await vscode.commands.executeCommand<SeenRequest[]>('beScripted.requests'))!;
    assert.ok(seen.length >= 50, `${seen.length} requests`);
    for (const [i, s] of seen.entries()) {
      assert.ok(s.tokens <= s.maxInputTokens, `request ${i}: ${s.tokens} tokens > ${s.maxInputTokens}`);
      assert.ok(s.hasPin, `request ${i} lacks the pinned constraint`);
      assert.ok(s.tools.includes('be-read') && s.tools.includes('be-memory'), 'our tools are offered');
    }
    const memory = api.memory.get(sessionId!);
    assert.ok(memory.stats().evictions > 0, 'the window slid during the session');
    assert.match(fs.readFileSync(path.join(folder(), 'chat', 'log.txt'), 'utf8'), /turn 30 was here/, 'edits landed through the MCP server');
    const turns = api.turns.list(sessionId!).filter((t) => t.requests.length > 0);
    assert.ok(turns.length >= 30, `${turns.length} turns`);
    assert.ok(turns.every((t) => t.requests.every((r) => r.tokens.total <= r.limit && (r.modelTokens ?? 0) <= r.limit)));
    assert.ok(turns.some((t) => t.slidOut.length > 0 && t.slidOut.every((s) => s.reason.length > 0)));
  });

  it('recalls an evicted tool result by id through be-memory (asked in the chat view)', async () => {
    const memory = api.memory.get(sessionId!);
    const fp = [...memory.fingerprints()].reverse().find((f) => f.kind === 'tool_result' && f.tool === 'be-read');
    assert.ok(fp, 'a read result slid out');
    const before = ((await vscode.commands.executeCommand<SeenRequest[]>('beScripted.requests')) ?? []).length;
    await chat(`recall ${fp.id}`);
    const seen = (await vscode.commands.executeCommand<SeenRequest[]>('beScripted.requests'))!.slice(before);
    const answer = seen.find((s) => s.lastIsToolResult);
    assert.ok(answer, 'the model got the recall result');
    assert.match(answer.last, new RegExp(`"id":"${fp.id}"`));
    assert.match(answer.last, /"in_window":false/);
  });

  it('/forget and /window answer in the chat', async () => {
    const memory = api.memory.get(sessionId!);
    const victim = memory.visibleMessages().find((m) => !m.pinned && m.kind === 'user_query')!;
    const f = await ask(victim.id, 'forget');
    assert.match(f.out.join(''), new RegExp(`Forgot ${victim.id}`));
    const w = await ask('', 'window');
    assert.match(w.out.join(''), new RegExp(PIN.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')));
    await api.turns.flush();
    await api.memory.flush();
  });
});
