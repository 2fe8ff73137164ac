/**
 * The one error type core operations throw. `code` lets the MCP layer and the VS Code layer react
 * (save a chip, show a conflict) without parsing messages; `message` is written for an agent:
 * what was wrong, what was expected, how to recover.
 */
export type ToolErrorCode =
  | 'invalid_argument' // bad path grammar, range out of bounds, wrong value
  | 'not_found' // file, chip or snapshot does not exist
  | 'outside_roots' // sandbox refusal
  | 'binary_file' // NUL bytes / not text
  | 'encoding' // not valid UTF-8
  | 'too_large' // over a size limit
  | 'conflict' // stale viewed_code_id, file changed since snapshot, old text mismatch
  | 'io'; // the file system failed

export class ToolError extends Error {
  constructor(
    readonly code: ToolErrorCode,
    message: string,
    /** Extra machine-readable facts (valid range, roots, what changed). */
    readonly details?: Record<string, unknown>,
  ) {
    super(message);
    this.name = 'ToolError';
  }
}

export function isToolError(e: unknown): e is ToolError {
  return e instanceof ToolError;
}

/** The errno code of a Node.js system error (`ENOENT`, `EEXIST`, …), or undefined for anything else. */
export function errnoCode(err: unknown): string | undefined {
  return typeof err === 'object' && err !== null && 'code' in err ? String((err as { code: unknown }).code) : undefined;
}

/** The message of an error, or the value as text. */
export function errorText(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}
