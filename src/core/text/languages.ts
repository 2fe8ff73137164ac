/**
 * The one language registry: per VS Code language id, the files that have it, the names it goes by,
 * how the comment/string scanner reads it (balance, func-range, tag-range), how a chip is written into it,
 * whether the repository map extracts tags from it and which tree-sitter grammar parses it.
 */
import { BASE, C, def, HASH_CODE, JS, MARKUP, str, TS, type Syntax } from './scan/syntax';

/** How a one-line comment is written: `open` before the text, `close` after it ('' for line comments). */
export interface CommentSyntax {
  open: string;
  close: string;
}

/** How the repository map's regex tag scan (context/tags.ts, context/comments.ts) reads a language. */
export interface TagRules {
  /** The comments blanked before the scan (strings are stepped over): `//`+`/* *\/` (`c`; `c-backtick` also steps
   *  over backtick strings), `#` (`hash`), Python's `#` and docstrings, PHP's `//`, `/* *\/` and `#`, Lua's `--`. */
  comments: 'c' | 'c-backtick' | 'hash' | 'python' | 'php' | 'lua';
  /** indented `name(...) {` lines are methods (languages with class bodies) */
  methods?: boolean;
  /** column-0 `type name(...) {` lines are functions (C, C++) */
  cFunctions?: boolean;
}

export interface Language {
  id: string;
  /** file extensions (lowercase, no dot) */
  extensions: readonly string[];
  /** whole file names (lowercase) of files without a useful extension */
  fileNames: readonly string[];
  /** other names for the id (Markdown fence infos, short ids): `py`, `c++`, `golang` */
  aliases: readonly string[];
  /** undefined: the scanner does not know the language (C-like scanner; not scanned in Markdown fences) */
  syntax?: Syntax;
  /** undefined: `// ` (upstream's only chip header) */
  comment?: CommentSyntax;
  /** the repository map extracts regex tags (definitions, references, imports) from it, read this way */
  tags?: TagRules;
  /** tree-sitter grammar file stem (`tree-sitter-<stem>.wasm`; context/node/treeSitter.ts knows the package it comes from) */
  grammar?: string;
}

const line = (open: string): CommentSyntax => ({ open, close: '' });
const HASH = line('# ');
const DASH = line('-- ');
const XML: CommentSyntax = { open: '<!-- ', close: ' -->' };
const BLOCK: CommentSyntax = { open: '/* ', close: ' */' };
const SEMI2 = line(';; ');
const PCT = line('% ');
const BANG = line('! ');

interface Row {
  /** space-separated extensions, file names and aliases */
  ext?: string;
  names?: string;
  alias?: string;
  syntax?: Syntax;
  comment?: CommentSyntax;
  tags?: TagRules;
  grammar?: string;
}

const words = (s: string | undefined) => (s ? s.split(' ') : []);
const CPP = def({ preprocessor: true, cppRaw: true, digitSeparator: true, typePrefixLines: true });
const JSON_SYNTAX = def({ strings: [str('"', false)] }); // comments allowed: tsconfig.json and friends are JSONC
const TRIPLE_NO_ESCAPE = [str('"""', true, ''), str('"', false), str("'", false)];
const NESTED_TRIPLE = def({ nestedComments: true, strings: TRIPLE_NO_ESCAPE });
const LINE_START_ONLY = { hashRule: 'lineStart' as const, blockComments: [], strings: [], quoteChecks: false };
const PERCENT_ONLY = def({ lineComments: ['%'], blockComments: [], strings: [], quoteChecks: false });
const LISP = def({ lineComments: [';'], blockComments: [['#|', '|#']], strings: [str('"', true)] });
const XML_SYNTAX = def({ ...MARKUP, xml: true });
const PLAIN = def({ kind: 'plain', lineComments: [], blockComments: [], strings: [], quoteChecks: false });

const TAGS_C: TagRules = { comments: 'c' };
const TAGS_C_BT: TagRules = { comments: 'c-backtick' };
const TAGS_C_METHODS: TagRules = { comments: 'c', methods: true };
const TAGS_C_BT_METHODS: TagRules = { comments: 'c-backtick', methods: true };
const TAGS_C_FUNCTIONS: TagRules = { comments: 'c', cFunctions: true };
const TAGS_HASH: TagRules = { comments: 'hash' };
const TAGS_PY: TagRules = { comments: 'python' };
const TAGS_PHP_METHODS: TagRules = { comments: 'php', methods: true };
const TAGS_LUA: TagRules = { comments: 'lua' };

const ROWS: Record<string, Row> = {
  javascript: { ext: 'js mjs cjs', alias: 'js mjs', syntax: JS, tags: TAGS_C_BT_METHODS, grammar: 'javascript' },
  // the javascript grammar includes JSX
  javascriptreact: { ext: 'jsx', alias: 'jsx', syntax: JS, tags: TAGS_C_BT_METHODS, grammar: 'javascript' },
  typescript: { ext: 'ts mts cts', alias: 'ts', syntax: TS, tags: TAGS_C_BT_METHODS, grammar: 'typescript' },
  typescriptreact: { ext: 'tsx', alias: 'tsx', syntax: JS, tags: TAGS_C_BT_METHODS, grammar: 'tsx' },
  json: { ext: 'json', syntax: JSON_SYNTAX },
  jsonc: { ext: 'jsonc', syntax: JSON_SYNTAX },
  json5: { ext: 'json5', syntax: def({}) },
  c: { ext: 'c h zig d v proto', alias: 'zig d', syntax: C, tags: TAGS_C_FUNCTIONS, grammar: 'c' },
  cpp: { ext: 'cc cpp cxx hpp hh hxx ino', alias: 'c++', syntax: CPP, tags: TAGS_C_FUNCTIONS, grammar: 'cpp' },
  'cuda-cpp': { ext: 'cu', syntax: CPP },
  'objective-c': { ext: 'm', alias: 'objc', syntax: C },
  'objective-cpp': { ext: 'mm', syntax: def({ preprocessor: true, cppRaw: true, typePrefixLines: true }) },
  csharp: {
    ext: 'cs',
    alias: 'cs c#',
    syntax: def({ preprocessor: true, csharpVerbatim: true, typePrefixLines: true, bracketAttributes: true, strings: [str('"""', true, ''), str('"', false), str("'", false)] }),
    tags: TAGS_C_METHODS,
    grammar: 'c-sharp',
  },
  java: { ext: 'java', syntax: def({ typePrefixLines: true, strings: [str('"""', true), str('"', false), str("'", false)] }), tags: TAGS_C_METHODS, grammar: 'java' },
  kotlin: { ext: 'kt kts', alias: 'kt', syntax: NESTED_TRIPLE, tags: TAGS_C_BT_METHODS },
  scala: { ext: 'scala sc', syntax: NESTED_TRIPLE, tags: TAGS_C_BT_METHODS },
  groovy: { ext: 'groovy gradle', syntax: def({ strings: [str('"""', true), str("'''", true), str('"', false), str("'", false)] }) },
  swift: { ext: 'swift', syntax: def({ nestedComments: true, strings: [str('"""', true), str('"', false)] }), tags: TAGS_C_BT_METHODS },
  dart: { ext: 'dart', syntax: def({ strings: [str('"""', true), str("'''", true), str('"', false), str("'", false)] }), tags: TAGS_C_BT_METHODS },
  go: { ext: 'go', alias: 'golang', syntax: def({ strings: [str('`', true, ''), str('"', false), str("'", false)] }), tags: TAGS_C_BT, grammar: 'go' },
  rust: { ext: 'rs', alias: 'rs', syntax: def({ nestedComments: true, rust: true, charTick: true, strings: [str('"', true)] }), tags: TAGS_C, grammar: 'rust' },
  php: {
    ext: 'php',
    syntax: def({ lineComments: ['//', '#'], hashRule: 'notAttribute', heredoc: 'php', strings: [str('"', true), str("'", true), str('`', true)] }),
    tags: TAGS_PHP_METHODS,
    grammar: 'php',
  },
  css: { ext: 'css', syntax: def({ lineComments: [] }), comment: BLOCK },
  scss: { ext: 'scss', syntax: def({ slashAfterColon: true }), comment: BLOCK },
  less: { ext: 'less', syntax: def({ slashAfterColon: true }), comment: BLOCK },
  python: {
    ext: 'py pyi pyw',
    alias: 'py',
    syntax: def({ ...HASH_CODE, strings: [str('"""', true), str("'''", true), str('"', false), str("'", false)] }),
    comment: HASH,
    tags: TAGS_PY,
    grammar: 'python',
  },
  shellscript: {
    ext: 'sh bash zsh ksh',
    names: '.bashrc .zshrc .profile .bash_profile',
    alias: 'bash sh zsh shell fish',
    syntax: def({ ...HASH_CODE, hashRule: 'wordStart', heredoc: 'sh', shellStrings: true, shellCase: true, strings: [str('"', true), str("'", true, ''), str('`', true)] }),
    comment: HASH,
    tags: TAGS_HASH,
    grammar: 'bash',
  },
  ruby: {
    ext: 'rb rake gemspec',
    names: 'gemfile rakefile',
    alias: 'rb',
    syntax: def({ ...HASH_CODE, heredoc: 'ruby', lineStartBlocks: [['=begin', '=end']], endMarkers: ['__END__'], strings: [str('"', true), str("'", true), str('`', true)] }),
    comment: HASH,
    tags: TAGS_HASH,
    grammar: 'ruby',
  },
  perl: {
    ext: 'pl pm',
    alias: 'pl',
    syntax: def({
      ...HASH_CODE,
      hashRule: 'wordStart',
      heredoc: 'ruby',
      perl: true,
      regex: true,
      lineStartBlocks: [['=', '=cut']],
      endMarkers: ['__END__', '__DATA__'],
      strings: [str('"', true), str("'", true)],
      quoteChecks: false,
    }),
    comment: HASH,
    tags: TAGS_HASH,
  },
  r: { ext: 'r', syntax: def({ ...HASH_CODE, strings: [str('"', true), str("'", true), str('`', true)] }), comment: HASH, tags: TAGS_HASH },
  julia: { ext: 'jl', syntax: def({ ...HASH_CODE, blockComments: [['#=', '=#']], nestedComments: true, strings: [str('"""', true), str('"', true)] }), comment: HASH },
  elixir: { ext: 'ex exs', syntax: def({ ...HASH_CODE, strings: [str('"""', true), str("'''", true), str('"', true), str("'", true)] }), comment: HASH },
  yaml: { ext: 'yaml yml', alias: 'yml', syntax: def({ ...HASH_CODE, hashRule: 'wordStart', yamlQuotes: true, strings: [str('"', true), str("'", true, '', true)] }), comment: HASH },
  toml: { ext: 'toml', syntax: def({ ...HASH_CODE, strings: [str('"""', true), str("'''", true, ''), str('"', false), str("'", false, '')] }), comment: HASH },
  makefile: { ext: 'mk', names: 'makefile gnumakefile', syntax: def({ ...HASH_CODE, strings: [], quoteChecks: false }), comment: HASH },
  dockerfile: { names: 'dockerfile containerfile', syntax: def({ ...HASH_CODE, ...LINE_START_ONLY }), comment: HASH },
  ini: { ext: 'ini cfg', syntax: def({ lineComments: [';', '#'], ...LINE_START_ONLY }), comment: line('; ') },
  // VS Code's id for .gitignore files; `;` is no comment there and `!` negates a pattern
  ignore: { names: '.gitignore', alias: 'gitignore', syntax: def({ ...HASH_CODE, ...LINE_START_ONLY }), comment: HASH },
  properties: { ext: 'properties env', names: '.env', alias: 'dotenv', syntax: def({ lineComments: ['#', '!'], ...LINE_START_ONLY }), comment: HASH },
  powershell: { ext: 'ps1 psm1', alias: 'ps1', syntax: def({ ...HASH_CODE, blockComments: [['<#', '#>']], strings: [str('"', true, '`', true), str("'", true, '', true)] }), comment: HASH },
  sql: {
    ext: 'sql',
    alias: 'postgres mysql plsql',
    syntax: def({ lineComments: ['--'], sqlDollar: true, strings: [str("'", true, '', true), str('"', true, '', true), str('`', false, '')] }),
    comment: DASH,
  },
  lua: { ext: 'lua', syntax: def({ lineComments: ['--'], blockComments: [], luaLong: true }), comment: DASH, tags: TAGS_LUA },
  haskell: { ext: 'hs', syntax: def({ lineComments: ['--'], blockComments: [['{-', '-}']], nestedComments: true, charTick: true, strings: [str('"', false)] }), comment: DASH },
  elm: {
    ext: 'elm',
    syntax: def({ lineComments: ['--'], blockComments: [['{-', '-}']], nestedComments: true, charTick: true, strings: [str('"""', true), str('"', false)] }),
    comment: DASH,
  },
  fsharp: { ext: 'fs fsx', syntax: def({ blockComments: [['(*', '*)']], nestedComments: true, charTick: true, strings: [str('"""', true, ''), str('"', true)] }), tags: TAGS_C },
  ocaml: { syntax: def({ lineComments: [], blockComments: [['(*', '*)']], nestedComments: true, charTick: true, strings: [str('"', true)] }) },
  vb: { syntax: def({ lineComments: ["'"], blockComments: [], strings: [str('"', false, '', true)] }), comment: line("' ") },
  bat: { ext: 'bat cmd', syntax: def({ lineComments: ['::', 'REM ', 'rem ', '@REM ', '@rem '], ...LINE_START_ONLY }), comment: line('REM ') },
  coffeescript: { syntax: def({ lineComments: ['#'], blockComments: [['###', '###']], strings: [str('"""', true), str("'''", true), str('"', true), str("'", true)] }), comment: HASH },
  clojure: { ext: 'clj cljs edn', syntax: def({ lineComments: [';'], blockComments: [], strings: [str('"', true)] }), comment: SEMI2 },
  scheme: { ext: 'scm ss', syntax: LISP, comment: SEMI2 },
  lisp: { ext: 'lisp el', syntax: LISP, comment: SEMI2 },
  erlang: { ext: 'erl hrl', syntax: def({ lineComments: ['%'], blockComments: [], strings: [str('"', true), str("'", false)] }), comment: PCT },
  latex: { ext: 'tex sty', syntax: PERCENT_ONLY, comment: PCT },
  tex: { syntax: PERCENT_ONLY, comment: PCT },
  html: { ext: 'html htm xhtml', alias: 'htm xhtml', syntax: MARKUP, comment: XML },
  vue: { ext: 'vue', syntax: MARKUP, comment: XML, tags: TAGS_C_BT },
  svelte: { ext: 'svelte', syntax: MARKUP, comment: XML, tags: TAGS_C_BT },
  astro: { ext: 'astro', syntax: MARKUP },
  xml: { ext: 'xml xsd svg plist csproj', syntax: XML_SYNTAX, comment: XML },
  xsl: { ext: 'xsl xslt', syntax: XML_SYNTAX, comment: XML },
  svg: { syntax: XML_SYNTAX, comment: XML },
  markdown: {
    ext: 'md markdown mdx',
    alias: 'md',
    syntax: def({ kind: 'markdown', lineComments: [], blockComments: [['<!--', '-->']], strings: [], quoteChecks: false }),
    comment: XML,
  },
  plaintext: { ext: 'txt log', alias: 'text txt jade pug restructuredtext', syntax: PLAIN },
  'git-commit': { syntax: PLAIN, comment: HASH },
  // known to chips only
  perl6: { comment: HASH }, raku: { comment: HASH }, nim: { comment: HASH }, cmake: { comment: HASH },
  terraform: { comment: HASH }, ada: { comment: DASH }, purescript: { comment: DASH }, razor: { comment: XML },
  bibtex: { comment: PCT }, matlab: { comment: PCT }, prolog: { comment: PCT },
  fortran: { comment: BANG }, 'fortran-modern': { comment: BANG }, vim: { comment: line('" ') },
};

const BY_ID = new Map<string, Language>();
const BY_ALIAS = new Map<string, Language>();
const BY_EXTENSION = new Map<string, string>();
const BY_NAME = new Map<string, string>();
for (const [id, row] of Object.entries(ROWS)) {
  const lang: Language = {
    id,
    extensions: words(row.ext),
    fileNames: words(row.names),
    aliases: words(row.alias),
    syntax: row.syntax,
    comment: row.comment,
    tags: row.tags,
    grammar: row.grammar,
  };
  BY_ID.set(id, lang);
  for (const a of lang.aliases) BY_ALIAS.set(a, lang);
  for (const e of lang.extensions) BY_EXTENSION.set(e, id);
  for (const n of lang.fileNames) BY_NAME.set(n, id);
}

/** The language of exactly this id (case-sensitive, as VS Code ids are), or undefined. */
export function languageById(id: string): Language | undefined {
  return BY_ID.get(id);
}

/** The language of an id or alias in any case (`Python`, `py`, `c++`), or undefined. */
export function resolveLanguage(idOrAlias: string): Language | undefined {
  const key = (idOrAlias || '').toLowerCase();
  return BY_ID.get(key) ?? BY_ALIAS.get(key);
}

/** File path → language id; unknown files give 'plaintext'. */
export function languageIdFromPath(path: string): string {
  const base = path.replace(/\\/g, '/').split('/').pop() ?? '';
  const lower = base.toLowerCase();
  const byName = BY_NAME.get(lower);
  if (byName) return byName;
  if (lower.startsWith('dockerfile')) return 'dockerfile';
  const dot = lower.lastIndexOf('.');
  if (dot < 0) return 'plaintext';
  return BY_EXTENSION.get(lower.slice(dot + 1)) ?? 'plaintext';
}

/** The scanner syntax for a language id or alias; unknown ids get upstream's C-like scanner. */
export function syntaxFor(idOrAlias: string): Syntax {
  return resolveLanguage(idOrAlias)?.syntax ?? BASE;
}

/** The scanner syntax of a language the scanner knows (a Markdown fence info), else undefined. */
export function knownSyntax(idOrAlias: string): Syntax | undefined {
  return resolveLanguage(idOrAlias)?.syntax;
}

const SLASH = line('// ');
/** How a chip's header comment is written in a language; unknown languages get `// `. */
export function commentSyntax(idOrAlias: string): CommentSyntax {
  return resolveLanguage(idOrAlias)?.comment ?? SLASH;
}

/** How the repository map's tag scan reads files of this id, or undefined when it extracts no tags from them. */
export function tagRules(id: string): TagRules | undefined {
  return languageById(id)?.tags;
}

/** The repository map extracts regex tags from files of this id. */
export function isCodeLanguage(id: string): boolean {
  return languageById(id)?.tags !== undefined;
}

/** Language id → tree-sitter grammar stem, for every language that has a grammar (no prototype: `toString` is none). */
/** True when the registry bundles a tree-sitter grammar for `languageId` (pure: no file is looked at). */
export function hasGrammar(languageId: string): boolean {
  return BY_ID.get(languageId)?.grammar !== undefined;
}

export function grammarStems(): Record<string, string> {
  const out: Record<string, string> = Object.create(null);
  for (const lang of BY_ID.values()) if (lang.grammar) out[lang.id] = lang.grammar;
  return out;
}
