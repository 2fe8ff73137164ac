/**
 * File extension → VS Code language id. Used to pick a comment syntax, a balance scanner and a
 * tree-sitter grammar. Unknown extensions give 'plaintext'.
 */
const BY_EXTENSION: Record<string, string> = {
  ts: 'typescript', mts: 'typescript', cts: 'typescript',
  tsx: 'typescriptreact',
  js: 'javascript', mjs: 'javascript', cjs: 'javascript',
  jsx: 'javascriptreact',
  py: 'python', pyi: 'python', pyw: 'python',
  sh: 'shellscript', bash: 'shellscript', zsh: 'shellscript', ksh: 'shellscript',
  go: 'go',
  rs: 'rust',
  java: 'java',
  kt: 'kotlin', kts: 'kotlin',
  scala: 'scala',
  swift: 'swift',
  c: 'c', h: 'c',
  cc: 'cpp', cpp: 'cpp', cxx: 'cpp', hpp: 'cpp', hh: 'cpp', hxx: 'cpp', ino: 'cpp',
  cs: 'csharp',
  fs: 'fsharp',
  rb: 'ruby',
  php: 'php',
  pl: 'perl', pm: 'perl',
  lua: 'lua',
  r: 'r',
  dart: 'dart',
  html: 'html', htm: 'html', xhtml: 'html',
  xml: 'xml', xsd: 'xml', xsl: 'xml', svg: 'xml', plist: 'xml', csproj: 'xml',
  vue: 'vue',
  svelte: 'svelte',
  css: 'css', scss: 'scss', less: 'less',
  md: 'markdown', markdown: 'markdown',
  json: 'json', jsonc: 'jsonc', json5: 'json5',
  yaml: 'yaml', yml: 'yaml',
  toml: 'toml',
  ini: 'ini',
  sql: 'sql',
  ps1: 'powershell', psm1: 'powershell',
  bat: 'bat', cmd: 'bat',
  dockerfile: 'dockerfile',
  makefile: 'makefile', mk: 'makefile',
  txt: 'plaintext',
};

/** Whole file names that carry no (useful) extension. */
const BY_NAME: Record<string, string> = {
  dockerfile: 'dockerfile',
  makefile: 'makefile',
  gnumakefile: 'makefile',
  '.bashrc': 'shellscript',
  '.zshrc': 'shellscript',
  '.profile': 'shellscript',
};

export function languageIdFromPath(path: string): string {
  const base = path.replace(/\\/g, '/').split('/').pop() ?? '';
  const lower = base.toLowerCase();
  const byName = BY_NAME[lower];
  if (byName) return byName;
  const dot = lower.lastIndexOf('.');
  if (dot < 0) return 'plaintext';
  return BY_EXTENSION[lower.slice(dot + 1)] ?? 'plaintext';
}
