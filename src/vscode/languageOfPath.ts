/**
 * The language id VS Code gives a file it has not opened, so that `[lang]` settings (files.encoding) apply as VS
 * Code applies them: `files.associations` first, then what the installed extensions contribute (exact file names,
 * then the longest matching extension). Our own language table differs from VS Code's (it calls `.h` C, VS Code
 * calls it C++; it has no `log` or `ini`), so it is only the fallback when no extension claims the file.
 */
import * as path from 'node:path';
import ignore from 'ignore';
import * as vscode from 'vscode';
import { languageIdFromPath } from '../core/text/language';

interface ContributedLanguage {
  id?: unknown;
  extensions?: unknown;
  filenames?: unknown;
}

const strings = (v: unknown): string[] => (Array.isArray(v) ? v.filter((x): x is string => typeof x === 'string') : []);

/**
 * files.associations: keys are globs, matched against the workspace-relative path when they hold a '/' and against
 * the file name otherwise (gitignore matching, as `--encoding` rules use: `*.h` anywhere, `legacy/**` under a folder).
 */
function associated(uri: vscode.Uri): string | undefined {
  const map = vscode.workspace.getConfiguration('files', uri).get<Record<string, string>>('associations') ?? {};
  const rel = vscode.workspace.asRelativePath(uri, false).replace(/\\/g, '/');
  const base = path.basename(uri.fsPath);
  let found: string | undefined;
  for (const [glob, id] of Object.entries(map)) {
    if (typeof id !== 'string' || !glob) continue;
    const subject = glob.includes('/') ? rel : base;
    if (path.isAbsolute(subject) || subject.startsWith('..')) continue; // outside the folders: not matched here
    try {
      if (ignore().add(glob).ignores(subject)) found = id;
    } catch {
      // a glob `ignore` cannot read: VS Code may still match it; not ours to guess
    }
  }
  return found;
}

/** The language VS Code would pick for `absPath` by its name. */
export function vscodeLanguageOf(absPath: string): string {
  const uri = vscode.Uri.file(absPath);
  const byAssociation = associated(uri);
  if (byAssociation) return byAssociation;
  const base = path.basename(absPath).toLowerCase();
  let best: { id: string; length: number } | undefined;
  for (const ext of vscode.extensions.all) {
    const languages = (ext.packageJSON?.contributes?.languages ?? []) as ContributedLanguage[];
    for (const lang of Array.isArray(languages) ? languages : []) {
      if (typeof lang.id !== 'string') continue;
      if (strings(lang.filenames).some((f) => f.toLowerCase() === base)) return lang.id;
      for (const e of strings(lang.extensions)) {
        const suffix = e.toLowerCase();
        if (base.endsWith(suffix) && (!best || suffix.length > best.length)) best = { id: lang.id, length: suffix.length };
      }
    }
  }
  return best?.id ?? languageIdFromPath(absPath);
}
