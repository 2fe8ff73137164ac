/**
 * File path → VS Code language id. Used to pick a comment syntax, a balance scanner and a
 * tree-sitter grammar. Unknown files give 'plaintext'. The one mapping for the whole code base.
 */
const BY_EXTENSION: Record<string, string> = {
  js: 'javascript', mjs: 'javascript', cjs: 'javascript', jsx: 'javascriptreact', ts: 'typescript', mts: 'typescript',
  cts: 'typescript', tsx: 'typescriptreact', json: 'json', jsonc: 'jsonc', json5: 'json5', c: 'c', h: 'c',
  cc: 'cpp', cpp: 'cpp', cxx: 'cpp', hpp: 'cpp', hh: 'cpp', hxx: 'cpp', ino: 'cpp', cu: 'cuda-cpp', m: 'objective-c',
  mm: 'objective-cpp', cs: 'csharp', java: 'java', kt: 'kotlin', kts: 'kotlin', scala: 'scala', sc: 'scala',
  groovy: 'groovy', gradle: 'groovy', swift: 'swift', dart: 'dart', go: 'go', rs: 'rust', php: 'php', css: 'css',
  scss: 'scss', less: 'less', py: 'python', pyi: 'python', pyw: 'python', sh: 'shellscript', bash: 'shellscript',
  zsh: 'shellscript', ksh: 'shellscript', rb: 'ruby', rake: 'ruby', gemspec: 'ruby', pl: 'perl', pm: 'perl',
  r: 'r', jl: 'julia', ex: 'elixir', exs: 'elixir', yaml: 'yaml', yml: 'yaml', toml: 'toml', mk: 'makefile',
  ini: 'ini', cfg: 'ini', properties: 'properties', env: 'properties', ps1: 'powershell', psm1: 'powershell',
  sql: 'sql', lua: 'lua', hs: 'haskell', elm: 'elm', clj: 'clojure', cljs: 'clojure', edn: 'clojure', scm: 'scheme',
  ss: 'scheme', lisp: 'lisp', el: 'lisp', erl: 'erlang', hrl: 'erlang', tex: 'latex', sty: 'latex', html: 'html',
  htm: 'html', xhtml: 'html', vue: 'vue', svelte: 'svelte', astro: 'astro', xml: 'xml', xsd: 'xml', xsl: 'xsl',
  xslt: 'xsl', svg: 'xml', plist: 'xml', csproj: 'xml', md: 'markdown', markdown: 'markdown', mdx: 'markdown',
  txt: 'plaintext', log: 'plaintext', zig: 'c', d: 'c', v: 'c', proto: 'c',
  fs: 'fsharp', fsx: 'fsharp', bat: 'bat', cmd: 'bat',
};

/** Whole file names that carry no (useful) extension. */
const BY_NAME: Record<string, string> = {
  makefile: 'makefile', gnumakefile: 'makefile', dockerfile: 'dockerfile', containerfile: 'dockerfile',
  '.bashrc': 'shellscript', '.zshrc': 'shellscript', '.profile': 'shellscript', '.bash_profile': 'shellscript',
  gemfile: 'ruby', rakefile: 'ruby', '.gitignore': 'ini', '.env': 'properties', cmakelists: 'plaintext',
};

export function languageIdFromPath(path: string): string {
  const base = path.replace(/\\/g, '/').split('/').pop() ?? '';
  const lower = base.toLowerCase();
  const byName = BY_NAME[lower];
  if (byName) return byName;
  if (lower.startsWith('dockerfile')) return 'dockerfile';
  const dot = lower.lastIndexOf('.');
  if (dot < 0) return 'plaintext';
  return BY_EXTENSION[lower.slice(dot + 1)] ?? 'plaintext';
}
