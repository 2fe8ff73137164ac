// A scripted LanguageModelChatProvider for the e2e suite (the same decisions as bench/scriptedAgent.ts): it reads
// the newest message of each request and answers with the matching be-* tool call, or one line after a result.
// It counts tokens its own way (ceil(chars / 3): more than o200k, so the participant must fit the model's count),
// and records every request: its size by that count, the model limit, whether the pinned constraint was in it.
const vscode = require('vscode');

const MAX_INPUT = 3500; // small enough that 30 turns of compact text replies make the window slide
const PIN = 'PINNED-E2E: never edit README.md';
const requests = [];

const countText = (text) => Math.ceil(text.length / 3);

function partText(p) {
  if (p instanceof vscode.LanguageModelTextPart) return p.value;
  if (p instanceof vscode.LanguageModelToolCallPart) return `${p.name} ${JSON.stringify(p.input)}`;
  if (p instanceof vscode.LanguageModelToolResultPart) return p.content.map(partText).join('');
  return '';
}

function messageText(m) {
  if (typeof m === 'string') return m;
  return (m.content || []).map(partText).join('\n');
}

function decide(messages) {
  const last = messages[messages.length - 1];
  const first = last && last.content && last.content[0];
  if (first instanceof vscode.LanguageModelToolResultPart) {
    const text = first.content.map(partText).join('');
    return [new vscode.LanguageModelTextPart(`Done (${text.length} characters of result).`)];
  }
  const q = messageText(last).trim();
  const words = q.split(/\s+/);
  const callId = `call${requests.length}`;
  switch (words[0]) {
    case 'read':
      return [new vscode.LanguageModelToolCallPart(callId, 'be-read', { file: `${words[1]}:ALL` })];
    case 'edit':
      return [new vscode.LanguageModelToolCallPart(callId, 'be-insert', { file: `${words[1]}:${words[2]}`, content: `${words.slice(3).join(' ')}\n` })];
    case 'recall':
      return [new vscode.LanguageModelToolCallPart(callId, 'be-memory', { action: 'recall', id: words[1], budget: 2000 })];
    default:
      return [new vscode.LanguageModelTextPart(`Answer to "${q.slice(0, 40)}".`)];
  }
}

function activate(context) {
  const provider = {
    provideLanguageModelChatInformation() {
      return [{ id: 'coder', name: 'Scripted Coder', family: 'scripted', version: '1', maxInputTokens: MAX_INPUT, maxOutputTokens: 1000, capabilities: { toolCalling: true } }];
    },
    async provideLanguageModelChatResponse(model, messages, options, progress) {
      const tokens = messages.reduce((s, m) => s + countText(messageText(m)), 0) + countText(JSON.stringify(options.tools || []));
      const last = messages[messages.length - 1];
      const lastFirst = last && last.content && last.content[0];
      requests.push({
        tokens,
        maxInputTokens: MAX_INPUT,
        hasPin: messages.some((m) => messageText(m).includes(PIN)),
        last: messageText(last).slice(0, 4000),
        lastIsToolResult: lastFirst instanceof vscode.LanguageModelToolResultPart,
        tools: (options.tools || []).map((t) => t.name),
      });
      for (const part of decide(messages)) progress.report(part);
    },
    async provideTokenCount(model, text) {
      return countText(messageText(text));
    },
  };
  context.subscriptions.push(
    vscode.lm.registerLanguageModelChatProvider('be-scripted', provider),
    vscode.commands.registerCommand('beScripted.requests', () => requests.slice()),
  );
}

module.exports = { activate, deactivate() {}, PIN };
