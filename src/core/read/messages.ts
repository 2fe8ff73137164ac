/**
 * Every sentence loading and reading a file says to an agent (be-read in every mode, and the edit tools' loads).
 * edits/messages.ts re-exports them, so the edit operations still find all their wording in one module.
 */

// ------------------------------------------------------------------ loading a file

export const loadMessages = {
  tooLarge: (display: string, size: number, limit: number) =>
    `${display} is ${size} bytes, over the ${limit}-byte limit of these tools; edit it with another tool.`,
  notFound: (display: string, root: string | undefined) =>
    `file not found: ${display}. Check the path (relative paths start at ${root}); to create a file use be-write.`,
  vanished: (display: string) => `file not found: ${display}`,
  tooLargeToAnalyze: (display: string, size: number, limit: number) =>
    `${display} is ${size} bytes, over the ${limit}-byte limit for structural analysis; use line numbers.`,
  lineOutOfRange: (line: number, total: number, display: string) => `target line ${line} out of range (1..${total}) in ${display}`,
};

// ------------------------------------------------------------------ be-read

export const readMessages = {
  startOutOfRange: (start: number, total: number, display: string) =>
    `read: start line ${start} is out of range (1..${total}) for ${display}; ask for lines 1-${total} or use ${display}:ALL.`,
  endPastFile: (end: number, start: number, total: number) =>
    `end line ${end} is past the end of the file; showing lines ${start}-${total}`,
  lineTooLarge: (line: number, display: string, bytes: number, limit: number) =>
    `line ${line} of ${display} alone is ${bytes} bytes, over the ${limit}-byte ` +
    'read limit (a minified or generated file?); it cannot be shown. Use brief for metadata, or another tool.',
  rangeTooLarge: (o: { display: string; range: string; bytes: number; lines: number; limit: number; total: number; suggest: string }) =>
    `${o.display}${o.range} is ${o.bytes} bytes (${o.lines} lines), over the ` +
    `${o.limit}-byte read limit. The file has ${o.total} lines; read a range, e.g. ` +
    `${o.suggest}, or use brief for metadata only.`,
  mixedEol: (crlf: number, lf: number) =>
    `file has mixed line endings (${crlf} CRLF, ${lf} LF); edits keep each untouched line's own ending`,
};

