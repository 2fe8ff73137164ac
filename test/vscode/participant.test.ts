/**
 * `@better-edit` (src/vscode/chat/participant.ts) through the vscode double: a scripted language model, real
 * services over a temp workspace, the memory, recall archive and turn log the extension gives it.
 */
import { double, testLog } from './double/install';
import assert from 'node:assert/strict';
import { promises as fs } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import * as vscode from 'vscode';
import { MemoryRegistry } from '../../src/core/memory/node/registry';
import { RecallStore } from '../../src/core/memory/node/recallStore';
import { TurnLog } from '../../src/core/memory/node/turnLog';
import { BetterEditParticipant, PARTICIPANT_ID, registerChatParticipant, type ParticipantDeps } from '../../src/vscode/chat/participant';
import { createServices, type Services } from '../../src/mcp/services';
import { memoryDeps } from '../core/memory/memoryDeps';

type Part = vscode.LanguageModelTextPart | vscode.LanguageModelToolCallPart;

/** A language model that answers each request with the next scripted parts, and keeps what it was sent. */
function scriptedModel(script: Part[][]) {
  const sent: vscode.LanguageModelChatMessage[][] = [];
  const model = {
    vendor: 'test',
    id: 'scripted',
    name: 'scripted',
    family: 'test',
    version: '1',
    maxInputTokens: 20_000,
    countTokens: async (v: string | vscode.LanguageModelChatMessage) => Math.ceil(JSON.stringify(v).length / 4),
    sendRequest: async (messages: vscode.LanguageModelChatMessage[]) => {
      sent.push(messages);
      const parts = script.shift() ?? [new vscode.LanguageModelTextPart('done')];
      return {
        stream: (async function* () {
          for (const p of parts) yield p;
        })(),
        text: (async function* () {})(),
      };
    },
  };
  return { model: model as unknown as vscode.LanguageModelChat, sent };
}

function request(prompt: string, model: vscode.LanguageModelChat, command?: string): vscode.ChatRequest {
  return { prompt, command, references: [], model, toolReferences: [], toolInvocationToken: undefined } as unknown as vscode.ChatRequest;
}

function output() {
  const md: string[] = [];
  const progress: string[] = [];
  return { md, progress, stream: { markdown: (s: string) => void md.push(s), progress: (s: string) => void progress.push(s) } as unknown as vscode.ChatResponseStream };
}

const token = () => new vscode.CancellationTokenSource().token;
/** The history of a conversation whose earlier answer (ours) named `sessionId` (the double's turn is constructible). */
const ResponseTurn = vscode.ChatResponseTurn as unknown as new (response: unknown[], result: vscode.ChatResult, participant: string) => vscode.ChatResponseTurn;
const historyOf = (sessionId: string) => ({ history: [new ResponseTurn([], { metadata: { sessionId } }, PARTICIPANT_ID)] }) as unknown as vscode.ChatContext;
const noHistory = { history: [] } as unknown as vscode.ChatContext;

describe('vscode/chat/participant (through the vscode double)', () => {
  let base: string;
  let root: string;
  let services: Services;
  let registry: MemoryRegistry;
  let recall: RecallStore;
  let turns: TurnLog;
  let deps: ParticipantDeps;

  beforeEach(async () => {
    double.reset();
    base = await fs.realpath(await fs.mkdtemp(path.join(os.tmpdir(), 'bet-participant-')));
    root = path.join(base, 'ws');
    await fs.mkdir(root);
    await fs.writeFile(path.join(root, 'a.ts'), 'export const answer = 41;\n');
    registry = new MemoryRegistry({ deps: memoryDeps });
    recall = new RecallStore({ dir: path.join(base, 'recall') });
    await recall.attach(registry);
    turns = new TurnLog(100);
    services = await createServices({ roots: [root], chipDir: path.join(base, 'chips'), historyDir: path.join(base, 'history'), memory: registry, recall });
    deps = { memory: () => ({ registry, recall, turns }), serverDeps: services.deps, reserveRatio: () => 0.15, log: testLog(), lang: 'en' };
  });
  afterEach(async () => {
    await services.close();
    recall.dispose();
    await registry.dispose();
    await fs.rm(base, { recursive: true, force: true });
  });

  it('registers with the chat API (id, icon) and is disposed with the extension; without the API it says so', () => {
    const context = { subscriptions: [] as { dispose(): void }[], extensionUri: vscode.Uri.file('/ext') } as unknown as vscode.ExtensionContext;
    const p = registerChatParticipant(context, deps);
    assert.ok(p instanceof BetterEditParticipant);
    assert.equal(double.recorded.participants[0]!.id, PARTICIPANT_ID);
    assert.match(String(double.recorded.participants[0]!.iconPath), /\/ext\/media\/icon\.svg$/);
    for (const d of context.subscriptions) d.dispose();
    assert.equal(double.recorded.participants[0]!.disposed, true);

    double.reset();
    double.noChatApi = true;
    assert.equal(registerChatParticipant(context, deps), undefined);
    assert.ok(double.recorded.logs.some((l) => /chat participants are not available/.test(l.text)));
  });

  it('a tool call runs in process and its result is in the next request of the same turn, and in the memory', async () => {
    const file = path.join(root, 'a.ts');
    const { model, sent } = scriptedModel([
      [new vscode.LanguageModelTextPart('Reading. '), new vscode.LanguageModelToolCallPart('c1', 'be-read', { file: `${file}:1` })],
      [new vscode.LanguageModelTextPart('It is 41.')],
    ]);
    const out = output();
    const p = new BetterEditParticipant(deps);
    const r = (await p.handler(request('what is the answer in a.ts?', model), noHistory, out.stream, token())) as vscode.ChatResult;
    assert.equal(r.errorDetails, undefined);
    const sessionId = (r.metadata as { sessionId: string }).sessionId;
    assert.match(sessionId, /^chat-/);
    assert.equal(sent.length, 2, 'one request per round');
    const results = sent[1]!.flatMap((m) => m.content).filter((c): c is vscode.LanguageModelToolResultPart => c instanceof vscode.LanguageModelToolResultPart);
    assert.equal(results.length, 1, 'the second request carries the tool result');
    assert.equal(results[0]!.callId, sent[1]!.flatMap((m) => m.content).find((c) => c instanceof vscode.LanguageModelToolCallPart)!.callId);
    assert.match((results[0]!.content[0] as vscode.LanguageModelTextPart).value, /export const answer = 41;/);
    assert.deepEqual(out.md, ['Reading. ', 'It is 41.']);
    assert.match(out.progress[0]!, /^be-read /);
    const kinds = registry.get(sessionId).visibleMessages().map((m) => m.kind);
    assert.deepEqual(kinds, ['user_query', 'assistant', 'tool_call', 'tool_result', 'assistant']);
    assert.equal((r.metadata as { turn?: number }).turn, 1);
    assert.deepEqual(p.sessionIds(), [sessionId]);
  });

  it('a later request of the conversation continues its session (named in the earlier result)', async () => {
    const p = new BetterEditParticipant(deps);
    const first = (await p.handler(request('hello', scriptedModel([]).model), noHistory, output().stream, token())) as vscode.ChatResult;
    const sessionId = (first.metadata as { sessionId: string }).sessionId;
    const again = (await p.handler(request('again', scriptedModel([]).model), historyOf(sessionId), output().stream, token())) as vscode.ChatResult;
    assert.equal((again.metadata as { sessionId: string }).sessionId, sessionId);
    assert.equal(registry.get(sessionId).visibleMessages().filter((m) => m.kind === 'user_query').length, 2);
    assert.equal(turns.list(sessionId).length, 2);
  });

  it('/pin keeps a constraint pinned, /forget evicts an id (it stays recallable), /window lists them', async () => {
    const p = new BetterEditParticipant(deps);
    const model = scriptedModel([]).model;
    const s = 'chat-fixed';
    const usage = output();
    await p.handler(request('', model, 'pin'), historyOf(s), usage.stream, token());
    assert.match(usage.md[0]!, /Usage: `\/pin/);
    const pinned = output();
    await p.handler(request('money in integer cents', model, 'pin'), historyOf(s), pinned.stream, token());
    const pin = registry.get(s).visibleMessages().find((m) => m.pinned)!;
    assert.equal(pin.content, 'money in integer cents');
    assert.match(pinned.md[0]!, new RegExp(`Pinned as ${pin.id}`));
    const win = output();
    await p.handler(request('', model, 'window'), historyOf(s), win.stream, token());
    assert.match(win.md[0]!, new RegExp(`\`${pin.id}\` money in integer cents`));
    const forget = output();
    await p.handler(request(pin.id, model, 'forget'), historyOf(s), forget.stream, token());
    assert.match(forget.md[0]!, new RegExp(`Forgot ${pin.id}`));
    assert.equal(registry.get(s).get(pin.id), undefined);
    await recall.flush();
    assert.equal((await recall.recall(s, pin.id))?.content, 'money in integer cents');
    const unknown = output();
    await p.handler(request('m999', model, 'forget'), historyOf(s), unknown.stream, token());
    assert.match(unknown.md[0]!, /No message "m999"/);
  });

  it('tool sessions are bounded: the least recently used conversation goes first', async () => {
    const p = new BetterEditParticipant({ ...deps, maxSessions: 2 });
    for (const s of ['chat-a', 'chat-b', 'chat-a', 'chat-c']) await p.handler(request('hi', scriptedModel([]).model), historyOf(s), output().stream, token());
    assert.deepEqual(p.sessionIds(), ['chat-a', 'chat-c']);
  });

  it('an idle tool session is dropped at the next request; its conversation gets a new one when it returns', async () => {
    let now = 1_000_000;
    const p = new BetterEditParticipant({ ...deps, idleMs: 60_000, now: () => now });
    await p.handler(request('hi', scriptedModel([]).model), historyOf('chat-old'), output().stream, token());
    now += 61_000;
    await p.handler(request('hi', scriptedModel([]).model), historyOf('chat-new'), output().stream, token());
    assert.deepEqual(p.sessionIds(), ['chat-new']);
    now += 30_000;
    p.prune();
    assert.deepEqual(p.sessionIds(), ['chat-new'], 'not idle long enough');
    await p.handler(request('back', scriptedModel([]).model), historyOf('chat-old'), output().stream, token());
    assert.deepEqual(p.sessionIds(), ['chat-new', 'chat-old']);
    p.dispose();
    assert.deepEqual(p.sessionIds(), []);
  });

  it('writes to the memory it is given at each request (the memory follows the workspace folders)', async () => {
    const other = new MemoryRegistry({ deps: memoryDeps });
    let current = registry;
    const p = new BetterEditParticipant({ ...deps, memory: () => ({ registry: current, recall, turns }) });
    await p.handler(request('one', scriptedModel([]).model), historyOf('chat-x'), output().stream, token());
    current = other;
    await p.handler(request('two', scriptedModel([]).model), historyOf('chat-x'), output().stream, token());
    assert.deepEqual(other.get('chat-x').visibleMessages().filter((m) => m.kind === 'user_query').map((m) => m.content), ['two']);
    await other.dispose();
  });

  it('a model failure is the result\'s error, logged; the turn is recorded as failed', async () => {
    const model = { ...(scriptedModel([]).model as object), sendRequest: async () => Promise.reject(new Error('quota exceeded')) } as unknown as vscode.LanguageModelChat;
    const p = new BetterEditParticipant(deps);
    const r = (await p.handler(request('hi', model), historyOf('chat-err'), output().stream, token())) as vscode.ChatResult;
    assert.equal(r.errorDetails?.message, 'quota exceeded');
    assert.ok(double.recorded.logs.some((l) => l.level === 'error' && /quota exceeded/.test(l.text)));
    assert.equal(turns.list('chat-err').at(-1)?.error, 'quota exceeded');
  });
});
