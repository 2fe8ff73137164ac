/**
 * A FileStore over VS Code documents. A file that is open in an editor (or has unsaved changes) is read from its
 * buffer and edited through one WorkspaceEdit per write — one undo step per tool call, the user's unsaved work kept —
 * then saved according to `betterEditTools.saveAfterEdit`. Every other file goes to the atomic disk store.
 */
import * as vscode from 'vscode';
import { ToolError } from '../core/errors';
import { commonAffixes } from './commonAffixes';
import { createHash } from 'node:crypto';
import type { FileContent, FileStat, FileStore, ReadOptions, StagedWrite, WriteOptions } from '../core/files/fileStore';
import { encodeEdited, isLegacy, normalizeEncoding } from '../core/text/encoding';
import { nodeTextCodec } from '../core/text/node/codec';
import { vscodeLanguageOf } from './languageOfPath';

export type SaveAfterEdit = 'always' | 'whenNotDirty' | 'never';

const BOM = Buffer.from([0xef, 0xbb, 0xbf]);

export interface VscodeFileStoreOptions {
  saveAfterEdit(): SaveAfterEdit;
  log?: vscode.LogOutputChannel;
}

export class VscodeFileStore implements FileStore {
  constructor(
    private readonly disk: FileStore,
    private readonly options: VscodeFileStoreOptions,
  ) {}

  /** The document to route through, when the file is shown in a tab or has unsaved changes. */
  openDocument(absPath: string): vscode.TextDocument | undefined {
    const doc = vscode.workspace.textDocuments.find(
      (d) => !d.isClosed && d.uri.scheme === 'file' && samePath(d.uri.fsPath, absPath),
    );
    if (!doc) return undefined;
    if (doc.isDirty) return doc;
    const inTab = vscode.window.tabGroups.all.some((g) =>
      g.tabs.some((t) => t.input instanceof vscode.TabInputText && samePath(t.input.uri.fsPath, absPath)),
    );
    return inTab || vscode.window.visibleTextEditors.some((e) => e.document === doc) ? doc : undefined;
  }

  async read(absPath: string, opts?: ReadOptions): Promise<FileContent> {
    const doc = this.openDocument(absPath);
    if (!doc || !doc.isDirty) return this.disk.read(absPath, opts);
    // Unsaved buffer: its text is the truth. Keep the disk file's BOM so EOL/BOM detection stays right.
    const onDisk = await this.disk.stat(absPath);
    const hasBom = onDisk ? (await this.disk.read(absPath, opts)).bytes.subarray(0, 3).equals(BOM) : false;
    const text = Buffer.from(doc.getText(), 'utf8');
    const bytes = hasBom ? Buffer.concat([BOM, text]) : text;
    return { bytes, stat: { size: bytes.length, mtimeMs: onDisk?.mtimeMs ?? 0, mode: onDisk?.mode ?? 0o644 } };
  }

  /** The text of a dirty editor (what `read` serves, without the disk's BOM): the overview describes it. */
  unsaved(absPath: string): Buffer | undefined {
    const doc = this.openDocument(absPath);
    return doc?.isDirty ? Buffer.from(doc.getText(), 'utf8') : undefined;
  }

  stat(absPath: string): Promise<FileStat | undefined> {
    return this.disk.stat(absPath);
  }

  async write(absPath: string, bytes: Uint8Array, opts?: WriteOptions): Promise<FileStat> {
    const doc = this.openDocument(absPath);
    if (!doc) return this.disk.write(absPath, bytes, opts);

    const before = await this.disk.stat(absPath);
    if (opts?.expectedContent) {
      // the document is the truth here: the user may have typed since the edit read it
      let expected = Buffer.from(opts.expectedContent);
      if (expected.subarray(0, 3).equals(BOM)) expected = expected.subarray(3);
      if (expected.toString('utf8') !== doc.getText()) {
        throw new ToolError('conflict', `${absPath} changed in the editor since it was read; nothing was written. Read it again and retry.`);
      }
    } else if (opts?.expectedMtimeMs !== undefined && before && before.mtimeMs !== opts.expectedMtimeMs) {
      throw new ToolError('conflict', `${absPath} changed on disk since it was read; read it again and retry.`);
    }
    let text = Buffer.from(bytes).toString('utf8');
    if (text.charCodeAt(0) === 0xfeff) text = text.slice(1); // the editor keeps the BOM itself
    await refuseUnencodable(doc, text, absPath);
    const wasDirty = doc.isDirty;
    const edit = minimalEdit(doc, text);
    if (edit) {
      const we = new vscode.WorkspaceEdit();
      we.replace(doc.uri, edit.range, edit.text);
      const ok = await vscode.workspace.applyEdit(we);
      if (!ok) throw new ToolError('io', `VS Code refused the edit to ${absPath} (is the editor read-only?). Nothing was changed.`);
    }
    // read-back: the editor must hold exactly the text intended (its EOL applied), and the proof is its hash
    const intended = doc.eol === vscode.EndOfLine.CRLF ? text.replace(/\r?\n/g, '\r\n') : text.replace(/\r\n/g, '\n');
    const now = doc.getText();
    if (now !== intended) {
      throw new ToolError('io', `${absPath}: after the edit the editor holds other text than intended (${now.length} vs ${intended.length} characters); check the document now (undo restores it).`);
    }
    const hasBom = Buffer.from(bytes.subarray(0, 3)).equals(BOM);
    const sha256 = createHash('sha256').update(hasBom ? BOM : Buffer.alloc(0)).update(now, 'utf8').digest('hex');
    const mode = this.options.saveAfterEdit();
    if (mode === 'always' || (mode === 'whenNotDirty' && !wasDirty)) {
      if (!(await doc.save())) this.options.log?.warn(`could not save ${absPath} after the edit`);
    }
    const after = await this.disk.stat(absPath);
    const size = Buffer.byteLength(doc.getText(), 'utf8');
    return { size, mtimeMs: after?.mtimeMs ?? Date.now(), mode: after?.mode ?? 0o644, sha256 };
  }

  /**
   * be-apply: a file not open goes to the disk store's staged write (journaled); an open document's edit is applied
   * at commit through a WorkspaceEdit, and put back by revert if a later file of the batch fails.
   */
  async stage(absPath: string, parts: readonly Uint8Array[], opts: WriteOptions = {}): Promise<StagedWrite> {
    if (!this.openDocument(absPath)) {
      if (!this.disk.stage) throw new ToolError('invalid_argument', 'this file store cannot stage writes');
      return this.disk.stage(absPath, parts, opts);
    }
    const after = Buffer.concat(parts);
    const before = opts.expectedContent;
    return {
      target: absPath,
      before,
      after,
      commit: () => this.write(absPath, after, opts),
      discard: async () => undefined,
      revert: async () => {
        if (before) await this.write(absPath, before, { expectedContent: after });
      },
    };
  }

  remove(absPath: string): Promise<void> {
    return this.disk.remove(absPath);
  }

  /** The disk store's lock (shared with stdio servers): an edit routed through a document holds it too. */
  lock<T>(absPath: string, fn: () => Promise<T>): Promise<T> {
    return this.disk.lock ? this.disk.lock(absPath, fn) : fn();
  }

  async recover(): Promise<void> {
    await this.disk.recover?.();
  }
}

/** One replace covering only what differs (common prefix and suffix kept), so cursors and folding elsewhere stay. */
export function minimalEdit(doc: vscode.TextDocument, newText: string): { range: vscode.Range; text: string } | undefined {
  const old = doc.getText();
  if (old === newText) return undefined;
  const eol = doc.eol === vscode.EndOfLine.CRLF ? '\r\n' : '\n';
  // The editor normalizes inserted EOLs to the document's; compare in that form.
  const target = eol === '\r\n' ? newText.replace(/\r?\n/g, '\r\n') : newText.replace(/\r\n/g, '\n');
  const { prefix, suffix } = commonAffixes(old, target);
  const range = new vscode.Range(doc.positionAt(prefix), doc.positionAt(old.length - suffix));
  return { range, text: target.slice(prefix, target.length - suffix) };
}

/**
 * The encoding VS Code would use for a file: an open document's own (TextDocument.encoding, VS Code 1.98+, feature
 * detected), else `files.encoding` for the file and its language as VS Code names it (`[lang]` overrides,
 * languageOfPath.ts). UTF-8 counts as "not configured": a UTF-8 file needs no decoding, and one that is not valid
 * UTF-8 is better guessed than corrupted.
 */
export function vscodeEncodingFor(absPath: string): string | undefined {
  const doc = vscode.workspace.textDocuments.find((d) => !d.isClosed && d.uri.scheme === 'file' && samePath(d.uri.fsPath, absPath));
  const own = (doc as { encoding?: unknown } | undefined)?.encoding;
  if (typeof own === 'string' && own !== '') return own === 'utf8' || own === 'utf8bom' ? undefined : own;
  const uri = vscode.Uri.file(absPath);
  // the language of a closed file costs 0.5-2 ms to look up (figure in legacy-encoding.e2e.ts): looked up only
  // when some `[lang]` sets an encoding
  const overridden = vscode.workspace.getConfiguration('files', uri).inspect('encoding')?.languageIds?.length;
  const languageId = doc?.languageId ?? (overridden ? vscodeLanguageOf(absPath) : undefined);
  const configured = vscode.workspace.getConfiguration('files', languageId ? { uri, languageId } : uri).get<string>('encoding');
  return configured && configured !== 'utf8' && configured !== 'utf8bom' ? configured : undefined;
}

/**
 * VS Code saves a document in its own encoding and puts a substitute for what that encoding lacks: text a legacy
 * encoding cannot hold is refused before the edit, as the disk store refuses it (nothing changes, not even the buffer).
 */
async function refuseUnencodable(doc: vscode.TextDocument, text: string, label: string): Promise<void> {
  const encoding = normalizeEncoding((doc as { encoding?: unknown }).encoding as string | undefined);
  if (isLegacy(encoding)) await encodeEdited(nodeTextCodec, null, null, Buffer.from(text, 'utf8'), encoding, label);
}

function samePath(a: string, b: string): boolean {
  return process.platform === 'win32' || process.platform === 'darwin' ? a.toLowerCase() === b.toLowerCase() : a === b;
}
