/**
 * Loading a file for an edit, shared by EditService and be-apply: resolve it in the sandbox, refuse what is too
 * large or not text, and build the line model. The store has decoded a legacy encoding already (the bytes here
 * are UTF-8); `encoding` names the one on disk.
 */
import { ToolError } from '../errors';
import type { FileStat, FileStore } from '../files/fileStore';
import type { SandboxPort } from '../files/ports';
import { languageIdFromPath } from '../text/languages';
import { TextBuffer } from '../text/lines';
import { assertText } from '../text/validate';
import { loadMessages } from './messages';

export interface LoadedText {
  abs: string;
  display: string;
  doc: TextBuffer;
  stat: FileStat;
  languageId: string;
  /** The file's encoding on disk when it is not UTF-8 (e.g. 'gb18030'). */
  encoding?: string;
}

export interface LoadPorts {
  files: FileStore;
  /** Only resolution and display: a read needs no write policy. */
  sandbox: Pick<SandboxPort, 'resolve' | 'display' | 'roots'>;
  maxFileBytes: number;
  /** Builds the line index of the bytes read (a cache reuses a big file's; default a new TextBuffer). */
  index?: (abs: string, bytes: Buffer) => TextBuffer;
}

export function checkFileSize(display: string, size: number, limit: number): void {
  if (size > limit) {
    throw new ToolError('too_large', loadMessages.tooLarge(display, size, limit), { size, limit });
  }
}

/** `resolved`: the sandbox-resolved path when the caller has it (and holds its lock). */
export async function loadText(ports: LoadPorts, pathInput: string, resolved?: string): Promise<LoadedText> {
  const { files, sandbox, maxFileBytes } = ports;
  const abs = resolved ?? (await sandbox.resolve(pathInput));
  const display = sandbox.display(abs);
  // a store whose read checks existence and size from its own descriptor is not asked for a stat first
  const checked = files.readChecksSize === true;
  if (!checked) {
    const st = await files.stat(abs);
    if (!st) throw new ToolError('not_found', loadMessages.notFound(display, sandbox.roots[0]));
    checkFileSize(display, st.size, maxFileBytes);
  }
  let content;
  try {
    content = await files.read(abs, { maxBytes: maxFileBytes });
  } catch (e) {
    if (e instanceof ToolError && e.code === 'not_found') {
      throw new ToolError('not_found', checked ? loadMessages.notFound(display, sandbox.roots[0]) : loadMessages.vanished(display));
    }
    const size = e instanceof ToolError && e.code === 'too_large' ? (e.details as { size?: unknown } | undefined)?.size : undefined;
    if (checked && typeof size === 'number') checkFileSize(display, size, maxFileBytes);
    throw e;
  }
  checkFileSize(display, content.bytes.length, maxFileBytes);
  assertText(content.bytes, display);
  const doc = ports.index ? ports.index(abs, content.bytes) : new TextBuffer(content.bytes);
  const loaded: LoadedText = { abs, display, doc, stat: content.stat, languageId: languageIdFromPath(abs) };
  if (content.encoding && content.encoding !== 'utf8') loaded.encoding = content.encoding;
  return loaded;
}
