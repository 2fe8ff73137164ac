/**
 * Our entry in a workspace `.mcp.json`, the config every VS Code Agent Host harness reads in full (Copilot, Claude
 * and Codex harnesses: microsoft/vscode#332782, "MCP migration to Copilot Agent Host Harness", 2026-08-26; extension
 * contributed servers, our `registerMcpServerDefinitionProvider`, are only partly supported there). The file has
 * Claude Code's shape: `{ "mcpServers": { <name>: { "type": "stdio", "command", "args" } } }`.
 *
 * Pure: text in, text out (the command in agentHostCommand.ts reads and writes the file). Edits go through
 * jsonc-parser, so the rest of the file (other servers, their order, comments, indentation) stays byte for byte.
 * A file that does not parse is refused, never rewritten: it may be the user's half-typed config.
 */
import { applyEdits, findNodeAtLocation, getNodeValue, modify, parseTree, printParseErrorCode, visit, type Node, type ParseError } from 'jsonc-parser';
import { SERVER_NAME, type StdioLaunch } from './clientConfig';

export const MCP_JSON = '.mcp.json';

export interface StdioEntry {
  type: 'stdio';
  command: string;
  args: string[];
}

export function agentHostEntry(launch: StdioLaunch): StdioEntry {
  return { type: 'stdio', command: launch.command, args: [...launch.args] };
}

/** `text` undefined: delete the file (it held nothing but our entry). */
export type Plan =
  | { kind: 'create' | 'add' | 'update' | 'remove'; text: string | undefined; previous?: unknown }
  | { kind: 'unchanged' | 'absent'; text?: undefined };

/*
 * Insertions are written by hand, not with jsonc-parser's `modify` + formatting options: that reformats the sibling
 * before the insertion point (`"alpha": {"url": …}` came back spread over three lines).
 */
const splice = (text: string, at: number, length: number, insert: string) => text.slice(0, at) + insert + text.slice(at + length);
const lineIndent = (text: string, offset: number) => /^[ \t]*/.exec(text.slice(text.lastIndexOf('\n', offset - 1) + 1))![0];
/** The indentation one level adds in this file (the first indented line's), two spaces when it has none. */
const indentUnit = (text: string) => /\n([ \t]+)\S/.exec(text)?.[1] ?? '  ';
const multiLine = (text: string) => text.trim().includes('\n');

/** `value` as JSON laid out like the file: one line in a one-line file, else indented from the line at `lineOf`. */
function pretty(text: string, lineOf: number, value: unknown): string {
  if (!multiLine(text)) return JSON.stringify(value);
  return JSON.stringify(value, null, indentUnit(text)).split('\n').join('\n' + lineIndent(text, lineOf));
}

/** Adds `"key": value` as the last property of the object `obj`, laid out like its siblings. */
function addProperty(text: string, obj: Node, key: string, value: unknown): string {
  const last = obj.children?.at(-1);
  if (!last) {
    // `{}` (or `{ }`): the object becomes `{ key: value }` indented from its own line
    const within = pretty(text, obj.offset, { [key]: value });
    return splice(text, obj.offset, obj.length, within);
  }
  if (!multiLine(text)) return splice(text, last.offset + last.length, 0, `,${JSON.stringify(key)}:${JSON.stringify(value)}`);
  const indent = lineIndent(text, last.offset);
  const body = JSON.stringify(value, null, indentUnit(text)).split('\n').join('\n' + indent);
  return splice(text, last.offset + last.length, 0, `,\n${indent}${JSON.stringify(key)}: ${body}`);
}

/** Parses `text` as our harnesses' config; throws a message that says what is wrong and that nothing was written. */
function parse(text: string, file: string) {
  const errors: ParseError[] = [];
  const root = parseTree(text, errors, { allowTrailingComma: true, disallowComments: false });
  if (errors.length > 0 || !root) {
    const e = errors[0];
    const where = e ? ` at offset ${e.offset}: ${printParseErrorCode(e.error)}` : '';
    throw new Error(`${file} is not valid JSON${where}; fix it first (nothing was written)`);
  }
  if (root.type !== 'object') throw new Error(`${file} holds a ${root.type}, not an object; fix it first (nothing was written)`);
  const servers = findNodeAtLocation(root, ['mcpServers']);
  if (servers && servers.type !== 'object') throw new Error(`"mcpServers" in ${file} is a ${servers.type}, not an object; fix it first (nothing was written)`);
  return { root, servers };
}

const sameJson = (a: unknown, b: unknown) => JSON.stringify(a) === JSON.stringify(b);
/** jsonc-parser builds objects without a prototype: plain ones for callers that compare or print them. */
const plain = (v: unknown): unknown => JSON.parse(JSON.stringify(v)) as unknown;

/** What registering `entry` does to the file whose text is `existing` (undefined: no file yet). */
export function planRegister(existing: string | undefined, entry: StdioEntry, file = MCP_JSON, name = SERVER_NAME): Plan {
  if (existing === undefined || existing.trim() === '') {
    return { kind: 'create', text: JSON.stringify({ mcpServers: { [name]: entry } }, null, 2) + '\n' };
  }
  const { root, servers } = parse(existing, file);
  const node = servers && findNodeAtLocation(servers, [name]);
  if (node) {
    const previous = plain(getNodeValue(node));
    if (sameJson(previous, entry)) return { kind: 'unchanged' };
    return { kind: 'update', text: splice(existing, node.offset, node.length, pretty(existing, node.parent!.offset, entry)), previous };
  }
  return { kind: 'add', text: servers ? addProperty(existing, servers, name, entry) : addProperty(existing, root, 'mcpServers', { [name]: entry }) };
}

/** Removes the property `prop` of `obj` with its comma and line, leaving its siblings' bytes alone. */
function removeProperty(text: string, obj: Node, prop: Node): string {
  const siblings = obj.children ?? [];
  const i = siblings.indexOf(prop);
  const prev = siblings[i - 1];
  const next = siblings[i + 1];
  const end = prop.offset + prop.length;
  if (next && /^\s*,\s*$/.test(text.slice(end, next.offset))) return splice(text, prop.offset, next.offset - prop.offset, '');
  if (!next && prev && /^\s*,\s*$/.test(text.slice(prev.offset + prev.length, prop.offset))) return splice(text, prev.offset + prev.length, end - prev.offset - prev.length, '');
  if (!next && !prev) return splice(text, obj.offset + 1, obj.length - 2, '');
  return applyEdits(text, modify(text, ['mcpServers', prop.children![0].value as string], undefined, {})); // comments between: let jsonc-parser keep them
}

/** What removing our entry does: only that key goes; a file left with nothing else is deleted. */
export function planRemove(existing: string | undefined, file = MCP_JSON, name = SERVER_NAME): Plan {
  if (existing === undefined || existing.trim() === '') return { kind: 'absent' };
  const { root, servers } = parse(existing, file);
  const node = servers && findNodeAtLocation(servers, [name]);
  if (!node) return { kind: 'absent' };
  const previous: unknown = plain(getNodeValue(node));
  let comments = false;
  visit(existing, { onComment: () => void (comments = true) });
  const onlyOurs = root.children?.length === 1 && servers.children?.length === 1 && !comments;
  if (onlyOurs) return { kind: 'remove', text: undefined, previous };
  return { kind: 'remove', text: removeProperty(existing, servers, node.parent!), previous };
}
