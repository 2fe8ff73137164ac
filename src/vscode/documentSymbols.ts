/**
 * A SymbolProvider over VS Code's document symbol providers, for languages the bundled tree-sitter
 * grammars do not cover (Kotlin, Swift, Dart, Lua, …): whatever language extension is installed answers.
 * Providers register late and answer `undefined` until ready (microsoft/vscode #100660), so a few short
 * retries are made before giving up; the core then falls back to its indentation outline.
 */
import * as vscode from 'vscode';
import type { OutlineSymbol, SymbolKind, SymbolProvider } from '../core/context/types';

const KIND: Partial<Record<vscode.SymbolKind, SymbolKind>> = {
  [vscode.SymbolKind.Module]: 'module',
  [vscode.SymbolKind.Namespace]: 'module',
  [vscode.SymbolKind.Package]: 'module',
  [vscode.SymbolKind.Class]: 'class',
  [vscode.SymbolKind.Interface]: 'interface',
  [vscode.SymbolKind.Struct]: 'struct',
  [vscode.SymbolKind.Enum]: 'enum',
  [vscode.SymbolKind.TypeParameter]: 'type',
  [vscode.SymbolKind.Function]: 'function',
  [vscode.SymbolKind.Method]: 'method',
  [vscode.SymbolKind.Constructor]: 'constructor',
  [vscode.SymbolKind.Variable]: 'variable',
  [vscode.SymbolKind.Constant]: 'const',
  [vscode.SymbolKind.Key]: 'key',
  [vscode.SymbolKind.String]: 'heading', // Markdown headings are reported as strings
};

/** Fields, properties and enum members are left out, as in the tree-sitter outline. */
function toOutline(s: vscode.DocumentSymbol, depth: number): OutlineSymbol | undefined {
  const kind = KIND[s.kind];
  if (!kind) return undefined;
  const sym: OutlineSymbol = {
    kind,
    name: s.name,
    signature: s.detail ? `${s.name} ${s.detail}`.replace(/\s+/g, ' ').slice(0, 160) : s.name,
    start: s.range.start.line + 1,
    end: s.range.end.line + 1,
  };
  if (depth < 4) {
    const kids = s.children.map((c) => toOutline(c, depth + 1)).filter((c): c is OutlineSymbol => !!c);
    if (kids.length) sym.children = kids;
  }
  return sym;
}

function fromInformation(list: vscode.SymbolInformation[]): OutlineSymbol[] {
  // Old providers answer flat SymbolInformation without children (microsoft/vscode #104916).
  return list
    .map((s) => {
      const kind = KIND[s.kind];
      if (!kind) return undefined;
      const r = s.location.range;
      return { kind, name: s.name, signature: s.containerName ? `${s.containerName}.${s.name}` : s.name, start: r.start.line + 1, end: r.end.line + 1 };
    })
    .filter((s): s is OutlineSymbol => !!s);
}

export class DocumentSymbolProvider implements SymbolProvider {
  constructor(private readonly retries = 3, private readonly retryDelayMs = 150) {}

  async symbols(absPath: string): Promise<OutlineSymbol[] | undefined> {
    const uri = vscode.Uri.file(absPath);
    for (let attempt = 0; attempt <= this.retries; attempt++) {
      const result = await vscode.commands.executeCommand<(vscode.DocumentSymbol | vscode.SymbolInformation)[] | undefined>(
        'vscode.executeDocumentSymbolProvider',
        uri,
      );
      if (result && result.length) {
        if ('children' in result[0]!) {
          return (result as vscode.DocumentSymbol[]).map((s) => toOutline(s, 0)).filter((s): s is OutlineSymbol => !!s);
        }
        return fromInformation(result as vscode.SymbolInformation[]);
      }
      if (attempt < this.retries) await new Promise((r) => setTimeout(r, this.retryDelayMs));
    }
    return undefined;
  }
}
