/**
 * The "built-in tools" peer: what agents use without any MCP server (Claude Code's Grep + Read with offset/limit +
 * Edit; Copilot's grep_search + read_file with ranges; Codex's shell rg + sed -n + apply_patch). Run in process
 * behind the same Server interface and meter as the MCP servers, so replies are counted the same way (the text the
 * model receives) and a catalog is paid once per call.
 *
 * No ripgrep binary is assumed: `Grep` is a JS search with ripgrep's output format (`path:line:text`, one line per
 * match, paths relative to the root, files in path order; or `path:count` per file, like `rg -c`), optionally
 * case-insensitive, over the files a glob and a path select, with a head limit like Claude Code's. `Read` returns `cat -n` lines (number, tab, text). `Edit` replaces an exact string
 * that occurs once, as Claude Code's Edit does, and answers with the edited lines in `cat -n` form.
 */
import { readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join, relative, sep } from 'node:path';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { callRecord, countTokens, type CallRecord, type Server } from './mcp';

/** Matching lines returned at most (Claude Code's Grep has head_limit; without one a common word floods the turn). */
export const GREP_HEAD_LIMIT = 250;
/** Characters of a matching line shown (ripgrep's --max-columns is often set; long lines are cut). */
const MAX_COLUMNS = 200;
const MAX_READ_LINES = 2000;

/** Compact schemas of the three tools (descriptions as short as the hosts' own are long; counted as the catalog). */
const CATALOG = [
  {
    name: 'Grep',
    description:
      'Search file contents with a regular expression (ripgrep syntax) under path (a folder or a file; default the root). output_mode content: matching lines as path:line:text; count: path:count per file. At most head_limit lines. Use glob to filter files (e.g. "**/*.java").',
    inputSchema: {
      type: 'object',
      properties: {
        pattern: { type: 'string' },
        path: { type: 'string' },
        glob: { type: 'string' },
        output_mode: { type: 'string', enum: ['content', 'count'] },
        case_insensitive: { type: 'boolean' },
        head_limit: { type: 'number' },
      },
      required: ['pattern'],
    },
  },
  {
    name: 'Read',
    description: 'Read a file. Returns lines in cat -n format (line number, tab, text). offset is the first line (1-based), limit the number of lines (default 2000).',
    inputSchema: { type: 'object', properties: { file_path: { type: 'string' }, offset: { type: 'number' }, limit: { type: 'number' } }, required: ['file_path'] },
  },
  {
    name: 'Edit',
    description: 'Replace old_string with new_string in a file. old_string must occur exactly once and match the file exactly (read the file first).',
    inputSchema: {
      type: 'object',
      properties: { file_path: { type: 'string' }, old_string: { type: 'string' }, new_string: { type: 'string' } },
      required: ['file_path', 'old_string', 'new_string'],
    },
  },
];

/** A `**\/*.ext` glob → a test on relative paths (the only glob form the agent uses). */
function globTest(glob: string | undefined): (rel: string) => boolean {
  if (!glob) return () => true;
  const m = /^\*\*\/\*(\.[A-Za-z0-9]+)$/.exec(glob);
  if (!m) throw new Error(`Grep: unsupported glob "${glob}" (this JS grep takes **/*.ext)`);
  return (rel) => rel.endsWith(m[1]!);
}

function walk(root: string, dir = ''): string[] {
  const out: string[] = [];
  for (const e of readdirSync(join(root, dir), { withFileTypes: true }).sort((a, b) => (a.name < b.name ? -1 : 1))) {
    if (e.name === '.git' || e.name === 'node_modules') continue;
    const rel = dir ? `${dir}/${e.name}` : e.name;
    if (e.isDirectory()) out.push(...walk(root, rel));
    else if (e.isFile()) out.push(rel);
  }
  return out;
}

const text = (t: string, isError = false): CallToolResult => ({ content: [{ type: 'text', text: t }], ...(isError ? { isError: true } : {}) });

export function builtinServer(root: string): Server {
  const catalogTokens = countTokens(JSON.stringify(CATALOG));
  const files = walk(root);
  const abs = (p: string) => (p.startsWith(root) ? p : join(root, p));
  const rel = (p: string) => relative(root, abs(p)).split(sep).join('/');
  let records: CallRecord[] = [];

  const tools: Record<string, (a: Record<string, unknown>) => CallToolResult> = {
    Grep(a) {
      const re = new RegExp(String(a.pattern), a.case_insensitive ? 'i' : '');
      const limit = typeof a.head_limit === 'number' ? a.head_limit : GREP_HEAD_LIMIT;
      const select = globTest(a.glob as string | undefined);
      const under = a.path === undefined ? undefined : rel(String(a.path));
      const mode = a.output_mode ?? 'content';
      const out: string[] = [];
      let total = 0;
      for (const f of files.filter((f) => select(f) && (under === undefined || under === '' || f === under || f.startsWith(`${under}/`)))) {
        const lines = readFileSync(join(root, f), 'utf8').split('\n');
        let inFile = 0;
        lines.forEach((l, i) => {
          if (!re.test(l)) return;
          inFile++;
          if (mode !== 'content') return;
          total++;
          if (out.length < limit) out.push(`${f}:${i + 1}:${l.length > MAX_COLUMNS ? `${l.slice(0, MAX_COLUMNS)}…` : l}`);
        });
        // rg -c: path:count per file with matches (path order)
        if (mode === 'count' && inFile > 0 && ++total <= limit) out.push(`${f}:${inFile}`);
      }
      if (total === 0) return text('No matches found');
      return text(`${out.join('\n')}${total > out.length ? `\n[${total - out.length} more matching lines not shown]` : ''}`);
    },
    Read(a) {
      const path = abs(String(a.file_path));
      if (!statSync(path, { throwIfNoEntry: false })?.isFile()) return text(`File does not exist: ${rel(path)}`, true);
      const lines = readFileSync(path, 'utf8').split('\n');
      if (lines.at(-1) === '') lines.pop();
      const from = Math.max(1, Math.floor(Number(a.offset ?? 1)));
      const n = Math.min(MAX_READ_LINES, Math.floor(Number(a.limit ?? MAX_READ_LINES)));
      const shown = lines.slice(from - 1, from - 1 + n).map((l, i) => `${String(from + i).padStart(6)}\t${l}`);
      return text(shown.join('\n'));
    },
    Edit(a) {
      const path = abs(String(a.file_path));
      const old = String(a.old_string);
      const body = readFileSync(path, 'utf8');
      const count = body.split(old).length - 1;
      if (count !== 1) return text(`old_string found ${count} times in ${rel(path)} (must be exactly once)`, true);
      const at = body.indexOf(old);
      const next = body.slice(0, at) + String(a.new_string) + body.slice(at + old.length);
      writeFileSync(path, next);
      const first = body.slice(0, at).split('\n').length;
      const edited = next.split('\n').slice(first - 1, first - 1 + String(a.new_string).split('\n').length);
      const snippet = edited.map((l, i) => `${String(first + i).padStart(6)}\t${l}`);
      return text(`The file ${rel(path)} has been updated. Edited lines (cat -n):\n${snippet.join('\n')}`);
    },
  };

  return {
    name: 'built-in tools',
    catalogTokens,
    async call(tool, args, label) {
      const fn = tools[tool];
      if (!fn) throw new Error(`built-in tools: no tool ${tool}`);
      const result = fn(args);
      const view = (result.content ?? []).map((p) => (p.type === 'text' ? p.text : '')).join('\n');
      records.push(callRecord(tool, args, label, view, result.isError === true));
      return { result, view };
    },
    take() {
      const out = records;
      records = [];
      return out;
    },
    close: async () => {},
  };
}
