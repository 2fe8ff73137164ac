/**
 * A second parse for TypeScript the grammar trips on (tree-sitter-typescript 0.23, the build VS Code ships):
 *  - a member list of generic call signatures without semicolons: `<K extends keyof E>(key: K): E[K]` on the
 *    next line is read as a comparison, the interface ends early and the rest of the file can become ERROR;
 *  - `export type * from './types'` (TypeScript 5.0).
 * Only lines inside the regions that did not parse are touched, and only within a line (a `;` at the end of the
 * line before a signature, `type` blanked): line numbers stay exact. The caller keeps the second tree only when
 * it has fewer errors.
 */
import type { Node, Tree } from '@vscode/tree-sitter-wasm';

const MAX_TROUBLE_NODES = 200;

/** 0-based rows covered by ERROR nodes, plus the row of and after each MISSING node. */
function troubleRows(root: Node): Set<number> {
  const rows = new Set<number>();
  let seen = 0;
  const visit = (n: Node): void => {
    if (seen >= MAX_TROUBLE_NODES) return;
    if (n.isError || n.isMissing) {
      seen++;
      const last = n.isMissing ? n.startPosition.row + 1 : n.endPosition.row;
      for (let r = n.startPosition.row; r <= last; r++) rows.add(r);
      if (n.isMissing) return;
    }
    if (!n.hasError) return;
    for (const c of n.children) if (c) visit(c);
  };
  visit(root);
  return rows;
}

/** The number of ERROR and MISSING nodes (to compare two parses). */
export function errorCount(root: Node): number {
  let count = 0;
  const visit = (n: Node): void => {
    if (n.isError || n.isMissing) count++;
    if (!n.hasError) return;
    for (const c of n.children) if (c) visit(c);
  };
  visit(root);
  return count;
}

/** A line that can end a type member (`…: E[K]`, `…): void`), not one that continues it (`=>`, `|`, `,`, `(`). */
const ENDS_MEMBER = /(?:[\w$\])'"`}?]|[^=]>)\s*$/;
const SKIPPABLE = /^\s*(?:$|\/\/|\/\*|\*)/;

/** The repaired text, or undefined when nothing in the error regions matched a known grammar gap. */
export function repairedTypeScript(text: string, tree: Tree): string | undefined {
  const rows = troubleRows(tree.rootNode);
  if (!rows.size) return undefined;
  const lines = text.split('\n');
  let changed = false;
  for (const r of [...rows].sort((a, b) => a - b)) {
    const line = lines[r];
    if (line === undefined) continue;
    const typeStar = /^(\s*export\s+)type(\s+\*\s+(?:as\s+[\w$]+\s+)?from\b)/.exec(line);
    if (typeStar) {
      lines[r] = typeStar[1] + '    ' + line.slice(typeStar[0].length - typeStar[2]!.length);
      changed = true;
      continue;
    }
    if (!/^\s*</.test(line)) continue;
    let p = r - 1;
    while (p >= 0 && SKIPPABLE.test(lines[p]!)) p--;
    if (p < 0 || !ENDS_MEMBER.test(lines[p]!)) continue;
    const prev = lines[p]!;
    const cr = prev.endsWith('\r') ? '\r' : '';
    lines[p] = prev.slice(0, prev.length - cr.length) + ';' + cr;
    changed = true;
  }
  return changed ? lines.join('\n') : undefined;
}
