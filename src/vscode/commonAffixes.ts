/** Pure text helpers for the VS Code FileStore (no vscode import, unit-tested). */
/** Lengths of the common prefix and suffix, not splitting a CRLF or a surrogate pair. */
export function commonAffixes(a: string, b: string): { prefix: number; suffix: number } {
  const max = Math.min(a.length, b.length);
  let prefix = 0;
  while (prefix < max && a.charCodeAt(prefix) === b.charCodeAt(prefix)) prefix++;
  while (prefix > 0 && (isLowSurrogate(a.charCodeAt(prefix)) || (a[prefix - 1] === '\r' && a[prefix] === '\n'))) prefix--;
  let suffix = 0;
  while (suffix < max - prefix && a.charCodeAt(a.length - 1 - suffix) === b.charCodeAt(b.length - 1 - suffix)) suffix++;
  while (suffix > 0 && (isLowSurrogate(a.charCodeAt(a.length - suffix)) || (a[a.length - suffix] === '\n' && a[a.length - suffix - 1] === '\r'))) suffix--;
  return { prefix, suffix };
}

function isLowSurrogate(c: number): boolean {
  return c >= 0xdc00 && c <= 0xdfff;
}

