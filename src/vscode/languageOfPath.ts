/**
 * The language id VS Code gives a file it has not opened, so that `[lang]` settings (files.encoding) apply as VS
 * Code applies them: `files.associations` first, then what the installed extensions contribute (exact file names,
 * then the longest matching extension). Our own language table differs from VS Code's (it calls `.h` C, VS Code
 * calls it C++; it has no `log` or `ini`), so it is only the fallback when no extension claims the file.
 */
import * as path from 'node:path';
import ignore from 'ignore';
import * as vscode from 'vscode';
import { languageIdFromPath } from '../core/text/languages';

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
const matchers = new Map<string, ReturnType<typeof ignore>>(); // one per glob of the user's settings (a handful)
function matcher(glob: string): ReturnType<typeof ignore> {
  let m = matchers.get(glob);
  if (!m) {
    if (matchers.size >= 256) matchers.clear();
    m = ignore().add(glob);
    matchers.set(glob, m);
  }
  return m;
}

function associated(uri: vscode.Uri): string | undefined {
  const map = vscode.workspace.getConfiguration('files', uri).get<Record<string, string>>('associations') ?? {};
  if (Object.keys(map).length === 0) return undefined;
  const rel = vscode.workspace.asRelativePath(uri, false).replace(/\\/g, '/');
  const base = path.basename(uri.fsPath);
  let found: string | undefined;
  for (const [glob, id] of Object.entries(map)) {
    if (typeof id !== 'string' || !glob) continue;
    const subject = glob.includes('/') ? rel : base;
    if (path.isAbsolute(subject) || subject.startsWith('..')) continue; // outside the folders: not matched here
    try {
      if (matcher(glob).ignores(subject)) found = id;
    } catch {
      // a glob `ignore` cannot read: VS Code may still match it; not ours to guess
    }
  }
  return found;
}

interface NameRules {
  id: string;
  filenames: string[];
  extensions: string[];
}

/**
 * An extension's language rules, lower-cased once per manifest (VS Code hands out the same packageJSON object for an
 * extension on every `vscode.extensions.all`; a memo keyed by it is forgotten with it).
 */
const rulesOf = new WeakMap<object, NameRules[]>();
function nameRules(manifest: { contributes?: { languages?: unknown } } | undefined): NameRules[] {
  if (!manifest || typeof manifest !== 'object') return [];
  let rules = rulesOf.get(manifest);
  if (!rules) {
    const languages = manifest.contributes?.languages;
    rules = (Array.isArray(languages) ? (languages as ContributedLanguage[]) : [])
      .filter((l): l is ContributedLanguage & { id: string } => typeof l?.id === 'string')
      .map((l) => ({ id: l.id, filenames: strings(l.filenames).map((f) => f.toLowerCase()), extensions: strings(l.extensions).map((e) => e.toLowerCase()) }));
    rulesOf.set(manifest, rules);
  }
  return rules;
}

/** The language VS Code would pick for `absPath` by its name. */
export function vscodeLanguageOf(absPath: string): string {
  const byAssociation = associated(vscode.Uri.file(absPath));
  if (byAssociation) return byAssociation;
  const base = path.basename(absPath).toLowerCase();
  let best: { id: string; length: number } | undefined;
  for (const ext of vscode.extensions.all) {
    for (const lang of nameRules(ext.packageJSON)) {
      if (lang.filenames.includes(base)) return lang.id;
      for (const suffix of lang.extensions) {
        if (base.endsWith(suffix) && (!best || suffix.length > best.length)) best = { id: lang.id, length: suffix.length };
      }
    }
  }
  return best?.id ?? languageIdFromPath(absPath);
}
