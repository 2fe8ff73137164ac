/**
 * "Better Edit: Run Demo": a scripted agent session, so the product can be watched working without an agent signed
 * in. An MCP SDK client connects to the extension's own loopback server over its real transport (Streamable HTTP
 * with the bearer token), exactly as VS Code's or any agent's client does, and makes the calls an agent would: a
 * pinned goal, a new file, reads, a large call that fails (its content becomes a chip), a deletion (a chip too).
 * Then the UI takes over as a user would: the Chips view, Insert at Cursor of the failed call's text into the open
 * demo file, and the Token Window showing the session's memory.
 */
import * as path from 'node:path';
import * as vscode from 'vscode';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { SERVER_VERSION } from '../mcp/server';
import type { CommandContext } from './commandContext';

export interface DemoOptions {
  /** false: no confirmation (tests). */
  confirm?: boolean;
  /** Pause between steps so a person can follow (default 1200 ms; tests pass 0). */
  stepMs?: number;
}

export interface DemoResult {
  sessionId: string;
  file: string;
  failedChipId: string;
  deletedChipId: string;
  /** 1-based line where the failed call's text was inserted. */
  insertedAtLine: number;
  steps: string[];
}

export const DEMO_FILE = 'better-edit-demo.ts';
/** The demo session's token budget: small enough that its calls fill the Token Window and evict the oldest. */
export const DEMO_BUDGET = 1000; // small enough that the (compact) replies of the scripted session fill it and slide

const DEMO_SOURCE = [
  '// Better Edit Tools demo file: written and edited by "Better Edit: Run Demo". Safe to delete.',
  'export interface Order {',
  '  id: string;',
  '  amount: number;',
  '  quantity: number;',
  '}',
  '',
  'export function total(orders: Order[]): number {',
  '  return orders.reduce((sum, o) => sum + o.amount * o.quantity, 0);',
  '}',
  '',
  'export function legacyTax(amount: number): number {',
  '  // Superseded by taxFor(); the demo deletes this function (it stays recoverable as a chip).',
  '  return amount * 0.2;',
  '}',
  '',
  'export const CURRENCY = "EUR";',
  '',
].join('\n');
/** legacyTax(), lines 12-16 of DEMO_SOURCE (with the blank line after it). */
const LEGACY_RANGE = '12-16';

/** What the agent meant to write: a long function, sent to a range that does not exist, so the call fails. */
const TAX_FOR = [
  '/** VAT by country, rounded to cents. */',
  'export function taxFor(order: Order, country: string): number {',
  '  const rates: Record<string, number> = {',
  '    DE: 0.19,',
  '    FR: 0.2,',
  '    IT: 0.22,',
  '    NL: 0.21,',
  '    ES: 0.21,',
  '  };',
  '  const rate = rates[country];',
  '  if (rate === undefined) throw new RangeError(`no VAT rate for ${country}`);',
  '  const net = order.amount * order.quantity;',
  '  return Math.round(net * rate * 100) / 100;',
  '}',
  '',
  '', // a blank line before CURRENCY, where the cursor is
].join('\n');

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** The tool's result, or its error text when the call failed. */
async function callTool(client: Client, name: string, args: Record<string, unknown>): Promise<{ ok: boolean; data: Record<string, unknown>; text: string }> {
  const r = (await client.callTool({ name, arguments: args })) as CallToolResult;
  const text = r.content.map((c) => (c.type === 'text' ? c.text : '')).join('\n');
  return { ok: r.isError !== true, data: (r.structuredContent as Record<string, unknown>) ?? {}, text };
}

export async function runDemo(ctx: CommandContext, opts: DemoOptions = {}): Promise<DemoResult | undefined> {
  const root = ctx.roots()[0];
  if (!root) {
    void vscode.window.showWarningMessage(vscode.l10n.t('Open a folder first: the demo writes {0} into it.', DEMO_FILE));
    return undefined;
  }
  const file = path.join(root, DEMO_FILE);
  if (opts.confirm !== false) {
    const run = vscode.l10n.t('Run Demo');
    const answer = await vscode.window.showInformationMessage(
      vscode.l10n.t('The demo writes {0} in {1} and edits it through the MCP server, as an agent would. Run it?', DEMO_FILE, root),
      { modal: true },
      run,
    );
    if (answer !== run) return undefined;
  }
  const pause = () => sleep(opts.stepMs ?? 1200);
  return vscode.window.withProgress(
    { location: vscode.ProgressLocation.Notification, title: vscode.l10n.t('Better Edit demo'), cancellable: false },
    async (progress) => {
      const steps: string[] = [];
      const step = (message: string) => {
        steps.push(message);
        progress.report({ message });
        ctx.log.info(`demo: ${message}`);
      };
      const handle = await ctx.host.ensureStarted();
      const transport = new StreamableHTTPClientTransport(new URL(handle.url), {
        requestInit: { headers: { Authorization: `Bearer ${handle.token}` } },
      });
      const client = new Client({ name: 'better-edit-demo', version: SERVER_VERSION });
      try {
        await client.connect(transport);
        const sessionId = transport.sessionId ?? '';
        step(vscode.l10n.t('connected to {0} (session {1})', handle.url, sessionId.slice(0, 8)));

        const must = async (name: string, args: Record<string, unknown>) => {
          const r = await callTool(client, name, args);
          if (!r.ok) throw new Error(`${name}: ${r.text}`);
          return { ...r.data, text: r.text } as Record<string, unknown>;
        };
        step(vscode.l10n.t('be-memory: pin the goal'));
        await must('be-memory', { action: 'add', kind: 'constraint', content: `Demo goal: add taxFor() to ${DEMO_FILE}; keep total() unchanged.` });
        // The session exists now: the Token Window shows it. A small budget (what its "Set" does) lets the few calls
        // of the demo fill the window and slide it: evictions, fingerprints and a running summary appear.
        ctx.memory?.peek(sessionId)?.setBudget({ maxTokens: DEMO_BUDGET });
        await vscode.commands.executeCommand('betterEditTools.showTokenWindow', sessionId);
        await pause();
        step(vscode.l10n.t('be-write {0}', DEMO_FILE));
        await must('be-write', { file: DEMO_FILE, content: DEMO_SOURCE });
        await pause();
        step(vscode.l10n.t('be-read: structure, then lines 8-10'));
        await must('be-read', { file: DEMO_FILE, mode: 'structure' });
        await must('be-read', { file: `${DEMO_FILE}:8-10` });
        await must('be-overview', { budget: 512 });
        await pause();

        step(vscode.l10n.t('be-replace with a large content and a wrong range: the call fails, its content becomes a chip'));
        const failed = await callTool(client, 'be-replace', { file: `${DEMO_FILE}:90-99`, content: TAX_FOR });
        const failedChipId = /chip:\/\/([0-9a-f]{6,12})/.exec(failed.text)?.[1];
        if (failed.ok || !failedChipId) throw new Error(`the failed be-replace did not save a chip: ${failed.text}`);
        await vscode.commands.executeCommand('betterEditTools.chips.focus');
        await pause();

        step(vscode.l10n.t('be-delete legacyTax(): the deleted text becomes a chip'));
        const deleted = await must('be-delete', { file: `${DEMO_FILE}:${LEGACY_RANGE}` });
        const deletedChipId = String(deleted.chip_id ?? /chip:\/\/([0-9a-f]{6,12})/.exec(String(deleted.text))?.[1] ?? '');
        await pause();

        step(vscode.l10n.t('Insert at Cursor: the failed call\'s text goes into the open file'));
        const doc = await vscode.workspace.openTextDocument(vscode.Uri.file(file));
        const editor = await vscode.window.showTextDocument(doc, { preview: false });
        // The cursor on the CURRENCY line: the chip's text lands there, where legacyTax() was.
        let cursorLine = 0;
        while (cursorLine < doc.lineCount - 1 && !doc.lineAt(cursorLine).text.startsWith('export const CURRENCY')) cursorLine++;
        editor.selection = new vscode.Selection(cursorLine, 0, cursorLine, 0);
        editor.revealRange(new vscode.Range(cursorLine, 0, cursorLine, 0), vscode.TextEditorRevealType.InCenter);
        const chip = await ctx.services().chips.get(failedChipId);
        if (!chip) throw new Error(`chip ${failedChipId} is not in the store`);
        const inserted = await vscode.commands.executeCommand<boolean>('betterEditTools.chips.insertAtCursor', chip);
        if (!inserted) throw new Error('Insert at Cursor did not insert the chip');
        await pause();

        step(vscode.l10n.t('be-read the result; the Token Window shows the session'));
        await must('be-read', { file: DEMO_FILE, mode: 'full' });
        await vscode.commands.executeCommand('betterEditTools.showTokenWindow', sessionId);
        const result: DemoResult = { sessionId, file, failedChipId, deletedChipId, insertedAtLine: cursorLine + 1, steps };
        ctx.log.info(`demo finished: ${JSON.stringify(result)}`);
        void vscode.window.showInformationMessage(
          vscode.l10n.t('Demo done: chip {0} (the failed call) was inserted at line {1}; chip {2} keeps the deleted legacyTax(). Ctrl+Z undoes the insert.',
            failedChipId, cursorLine + 1, deletedChipId));
        return result;
      } catch (err) {
        const message = err instanceof Error ? err.message : String(err);
        ctx.log.error(`demo failed after "${steps.at(-1) ?? 'start'}": ${message}`);
        void vscode.window.showErrorMessage(vscode.l10n.t('The demo stopped: {0}', message));
        throw err;
      } finally {
        await client.close().catch(() => undefined);
      }
    },
  );
}
