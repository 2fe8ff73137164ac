/**
 * Fast, regex-based tags for the repository map: the names a file defines, the identifiers it uses
 * (with counts), its relative imports, and a ≤30-character summary. Tree-sitter gives better outlines
 * but is 4–12× slower (measured on the bench repositories); the map only needs names, and must handle a million lines in seconds.
 */
import { isCodeLanguage, tagRules } from '../text/languages';
import { clip } from './extract';
import { blankComments } from './comments';
import { flatCopy, internName, NameCounts, NO_COUNTS } from './nameCounts';

export interface FileTags {
  defs: string[];
  /** Identifier → number of occurrences (only identifiers of 3+ characters that are not keywords). */
  refs: NameCounts;
  /** Relative import specifiers (`./price`, `../lib/money`), resolved later against the file list. */
  imports: string[];
  summary: string;
  /** Exported / public names, most useful first (for the summary and the map's symbol list). */
  exported: string[];
}

export { isCodeLanguage };

const KEYWORDS = new Set(
  ('abstract and any array as assert async await bool boolean break byte case catch char class const constructor continue ' +
    'def default defer del delete do double elif else end enum except export extends extern false final finally float ' +
    'for from func function get global goto if impl implements import in init int interface is isinstance lambda len let ' +
    'long loop match mod module mut namespace native new nil none not null number object of or package pass print private ' +
    'protected pub public raise readonly ref return self set short static str string struct super switch this throw throws ' +
    'trait true try type typeof undefined union unsafe use using var void volatile where while with yield require ' +
    'include define ifdef ifndef endif elsif unless then fn usize isize u8 u16 u32 u64 i8 i16 i32 i64 f32 f64 vec ' +
    'chan go map range select fallthrough uint int32 int64 float32 float64 error args kwargs cls console log').split(' '),
);

// Declarations: `class X`, `def x`, `func (r T) X`, `fn x`, `const x =`, `type X`, …
const DEF_RE =
  /(?:^|[\s;(])(?:export\s+)?(?:default\s+)?(?:abstract\s+|async\s+|pub(?:\([^)]*\))?\s+|static\s+|final\s+|sealed\s+|data\s+|open\s+)*(class|interface|enum|struct|trait|type|function\*?|def|func(?:\s*\([^)]*\))?|fn|module|namespace|record|object|const|let|var|val|macro_rules!)\s+([A-Za-z_$][\w$]*)/gm;
// Methods in class bodies (TS/JS/Java/C#/PHP): an indented `name(...) {` or `name(...): T {`.
const METHOD_RE =
  /^[ \t]+(?:(?:public|private|protected|static|async|readonly|override|abstract|final|virtual|get|set|function)\s+)*(?:[\w<>[\],.?]+\s+)?([A-Za-z_$][\w$]*)\s*\([^;{}]*\)\s*(?::\s*[^{;=]+)?(?:throws [\w., ]+)?\s*\{\s*$/gm;
/** METHOD_RE anchored at a given line start (sticky), for methodNames. */
const METHOD_AT = new RegExp(METHOD_RE.source, 'my');
/** An indented line's start: the line break before it (or the text's start) and its first space or tab. */
const INDENTED_LINE = /(?:^|[\n\r\u2028\u2029])[ \t]/g;
/** What `\s*$` needs after a method's `{`: white space up to a line break or the end. */
const BLANK_TO_LINE_END = /[^\S\n\r\u2028\u2029]*(?:[\n\r\u2028\u2029]|$)/y;

/**
 * The names METHOD_RE finds, in its order, trying it only at indented line starts that can begin a match: nothing
 * in a match before its final `{` may be a `{` or a `;`, so the first `{` after the line start must end its line
 * and come before the first `;`. Run over every position of a 1M-line folder the expression took ~0.4 s.
 */
export function methodNames(text: string): string[] {
  const names: string[] = [];
  let from = 0; // where the last match ended: the next starts at or after it
  let brace = -1;
  let braceEndsLine = false;
  let semi = -1;
  INDENTED_LINE.lastIndex = 0;
  for (let m = INDENTED_LINE.exec(text); m; m = INDENTED_LINE.exec(text)) {
    const start = m.index === 0 && m[0].length === 1 ? 0 : m.index + 1;
    INDENTED_LINE.lastIndex = start + 1;
    if (start < from) continue;
    if (brace < start) {
      brace = text.indexOf('{', start);
      if (brace < 0) break;
      BLANK_TO_LINE_END.lastIndex = brace + 1;
      braceEndsLine = BLANK_TO_LINE_END.test(text);
    }
    if (!braceEndsLine) continue;
    if (semi < start && semi !== Infinity) {
      semi = text.indexOf(';', start);
      if (semi < 0) semi = Infinity;
    }
    if (semi < brace) continue;
    METHOD_AT.lastIndex = start;
    const hit = METHOD_AT.exec(text);
    if (!hit) continue;
    names.push(hit[1]!);
    from = METHOD_AT.lastIndex;
  }
  return names;
}
// C/C++ functions at column 0: `int order_total(const struct order *o) {`
const C_FUNC_RE = /^[A-Za-z_][\w\s*&:<>,]*?[\s*&]([A-Za-z_][\w:~]*)\s*\([^;]*\)\s*(?:const\s*)?\{?\s*$/gm;
const IMPORT_RE = /(?:from\s+|import\s+|require\s*\(\s*|import\s*\(\s*)['"](\.{1,2}\/[^'"]+)['"]/g;
const EXPORT_RE = /^export\s+(?:default\s+)?(?:abstract\s+|async\s+)*(?:class|interface|enum|type|function\*?|const|let|var|namespace)\s+([A-Za-z_$][\w$]*)/gm;

export function extractTags(text: string, languageId: string): FileTags {
  const summary = flatCopy(summarize(text, languageId));
  const rules = tagRules(languageId);
  if (!rules) return { defs: [], refs: NO_COUNTS, imports: [], summary, exported: [] };
  const tags = { defs: [] as string[], refs: new Map<string, number>(), imports: [] as string[], summary, exported: [] as string[] };
  text = blankComments(text, languageId); // a word in a comment or docstring is neither a definition nor a use

  const defs = new Set<string>();
  for (const m of text.matchAll(DEF_RE)) {
    const kw = m[1]!;
    // Local `const x` inside functions is noise; keep `const/let/var/val` only at the start of a line.
    if (/^(const|let|var|val)$/.test(kw)) {
      const lineStart = text.lastIndexOf('\n', m.index) + 1;
      const before = text.slice(lineStart, m.index + m[0].indexOf(kw));
      if (!/^\s*(export\s+)?(default\s+)?$/.test(before) || /^\s+/.test(before)) continue;
    }
    defs.add(m[2]!);
  }
  if (rules.methods) {
    for (const name of methodNames(text)) if (!KEYWORDS.has(name)) defs.add(name);
  }
  if (rules.cFunctions) {
    for (const m of text.matchAll(C_FUNC_RE)) {
      const name = m[1]!.split('::').pop()!;
      if (!KEYWORDS.has(name)) defs.add(name);
    }
  }
  tags.defs = [...defs].map(internName);

  countIdentifiers(text, tags.refs);
  for (const m of text.matchAll(IMPORT_RE)) tags.imports.push(internName(m[1]!));
  for (const m of text.matchAll(EXPORT_RE)) tags.exported.push(m[1]!);
  if (!tags.exported.length) {
    // Languages without `export`: public top-level names (capitalised in Go, `pub` in Rust, classes elsewhere).
    for (const m of text.matchAll(/^(?:pub\s+)?(?:class|struct|interface|trait|enum|def|fn|func|module)\s+([A-Za-z_]\w*)/gm)) {
      if (!m[1]!.startsWith('_')) tags.exported.push(m[1]!);
    }
  }
  if (!tags.summary && tags.exported.length) tags.summary = flatCopy(clip(tags.exported.slice(0, 4).join(', '), 30));
  return { ...tags, refs: new NameCounts(tags.refs) };
}

/** 1: may start an identifier ([A-Za-z_$]); 2: may only continue one ([0-9]). */
const IDENT_CHAR = new Uint8Array(128);
for (let c = 0; c < 128; c++) {
  const ch = String.fromCharCode(c);
  if (/[A-Za-z_$]/.test(ch)) IDENT_CHAR[c] = 1;
  else if (/[0-9]/.test(ch)) IDENT_CHAR[c] = 2;
}

/**
 * Counts the identifiers of 3+ characters that are not keywords, as `/[A-Za-z_$][\w$]*\/g` finds them (a digit
 * run starts none, the letters after it do: `0x1F` holds `x1F`), by character codes: a match object per identifier
 * made a third of the tag scan's time.
 */
export function countIdentifiers(text: string, refs: Map<string, number>): void {
  const n = text.length;
  for (let i = 0; i < n; ) {
    const c = text.charCodeAt(i);
    if (c >= 128 || IDENT_CHAR[c] !== 1) {
      i++;
      continue;
    }
    const start = i++;
    for (let d = text.charCodeAt(i); i < n && d < 128 && IDENT_CHAR[d] !== 0; d = text.charCodeAt(++i));
    if (i - start < 3) continue;
    const id = text.slice(start, i);
    if (KEYWORDS.has(id)) continue;
    refs.set(id, (refs.get(id) ?? 0) + 1);
  }
}

/** A word the tag scan never counts as a use (a keyword of some language, or too common to say anything). */
export function isTagKeyword(word: string): boolean {
  return KEYWORDS.has(word);
}

const NOISE_COMMENT = /^(copyright|\(c\)|spdx|license|eslint|@ts-|prettier|jshint|tslint|-\*-|noqa|pylint|type:|vim:|#!|use strict|generated|@flow|@jsx|nolint|go:build|\+build)/i;

/**
 * At most 30 characters: the file's leading doc comment or docstring, else its first comment, else its
 * first Markdown heading; '' when nothing fits (the caller may fall back to exported names).
 */
export function summarize(text: string, languageId: string): string {
  const head = text.slice(0, 4000).split(/\r?\n/).slice(0, 60);
  if (languageId === 'markdown') {
    const h = head.find((l) => /^#{1,6}\s+\S/.test(l));
    return h ? clip(h.replace(/^#+\s+/, '').trim(), 30) : '';
  }
  let inBlock = false;
  let inLicence = false; // a licence header: skipped to its blank line or the end of its block comment
  for (const raw of head) {
    const line = raw.trim();
    if (!line) inLicence = false;
    if (!line || line.startsWith('#!')) continue;
    let isComment = inBlock;
    if (inBlock) {
      if (/(\*\/|"""|'''|=end)$/.test(line)) inBlock = false;
    } else if (/^(\/\*|"""|'''|=begin)/.test(line)) {
      isComment = true;
      inBlock = !/(\*\/|"""|''')$/.test(line.slice(3)) && line !== '=begin' ? true : line === '"""' || line === "'''" || line === '/**' || line === '/*';
    } else if (/^(\/\/|#(?!include|define|pragma|if|import)|--|;;|\*)/.test(line)) {
      isComment = true;
    } else if (/^(package|import|from|use|using|require|#include|#pragma|namespace|<\?php|'use strict'|"use strict")/.test(line)) {
      continue;
    }
    if (!isComment) return '';
    const text = line
      .replace(/^(\/\*\*?|\*\/|\*|\/\/[/!]?|#+|--|;;|"""|'''|=begin)\s*/, '')
      .replace(/(\*\/|"""|''')\s*$/, '')
      .replace(/^@(file|fileoverview|module|overview|brief|description)\s*/i, '')
      .trim();
    if (LICENCE.test(text)) inLicence = true;
    if (inLicence) inLicence = !/(\*\/|"""|''')$/.test(line);
    else if (text && !NOISE_COMMENT.test(text) && !/^[-=*#/\s]+$/.test(text)) return clip(text, 30);
  }
  return '';
}
/** The first line of a licence header (its later lines are skipped with it). */
const LICENCE = /^(copyright\b|(the )?(mit|bsd|apache|gnu|mozilla|isc)\b.*licen[cs]e|\(c\)|\u00a9|licen[cs]ed\b|spdx-license|permission is hereby granted|this (file|program|library) is (free software|licen[cs]ed|part of))/i;
