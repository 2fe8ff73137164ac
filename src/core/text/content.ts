/**
 * Content given by an agent → lines. Rule: split on "\n"; a trailing "\n" terminates the last line, every
 * further "\n" is an empty line; one trailing "\r" is stripped from each line (line endings come from the file).
 *   ""        → []                (nothing)
 *   "x"       → ["x"]
 *   "x\n"     → ["x"]
 *   "x\n\n\n" → ["x", "", ""]    (upstream dropped the trailing empty lines: a flaw)
 *   "\n"      → [""]              (one empty line)
 */
export function contentToLines(content: string): string[] {
  if (content === '') return [];
  const parts = content.split('\n');
  if (parts[parts.length - 1] === '') parts.pop();
  for (let i = 0; i < parts.length; i++) {
    const p = parts[i];
    if (p.endsWith('\r')) parts[i] = p.slice(0, -1);
  }
  return parts;
}

/** The line ending the content itself mostly uses, if it has any (used only by files that have none). */
export function contentEol(content: string): '\n' | '\r\n' | undefined {
  let lf = 0;
  let crlf = 0;
  for (let i = content.indexOf('\n'); i !== -1; i = content.indexOf('\n', i + 1)) {
    if (i > 0 && content.charCodeAt(i - 1) === 13) crlf++;
    else lf++;
  }
  if (lf + crlf === 0) return undefined;
  return crlf * 2 > lf + crlf ? '\r\n' : '\n';
}
