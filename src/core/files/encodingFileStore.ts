/**
 * A FileStore that edits legacy encodings in place (text/encoding.ts): a file that is not UTF-8 (by BOM, by the
 * configured encoding, or by a guess) is read as UTF-8 for the tools and written back in its own encoding, the
 * untouched lines byte for byte. UTF-8 files pass straight through (no copy). Every check under the lock is made on
 * the raw bytes too: the inner store compares the disk with the raw bytes the UTF-8 edit was computed from.
 */
import { ToolError } from '../errors';
import { decodeLossless, detectEncoding, encodeEdited, isLegacy, normalizeEncoding } from '../text/encoding';
import { nodeTextCodec as codec } from '../text/node/codec';
import type { FileContent, FileStat, FileStore, ReadOptions, StagedWrite, WriteOptions } from './fileStore';

/** The encoding configured for a path (VS Code files.encoding, CLI --encoding), if any. */
export type EncodingResolver = (absPath: string) => string | undefined;

/** Files read in a legacy encoding, remembered so their writes are encoded (bounded: the oldest is forgotten). */
const MAX_REMEMBERED = 4096;

export class EncodingFileStore implements FileStore {
  private readonly legacy = new Map<string, string>();

  /** the raw file's size is checked (a decoded text is checked by the loader after) */
  readonly readChecksSize?: boolean;

  constructor(
    private readonly inner: FileStore,
    private readonly configured: EncodingResolver = () => undefined,
  ) {
    this.readChecksSize = inner.readChecksSize;
  }

  async read(absPath: string, opts?: ReadOptions): Promise<FileContent> {
    const content = await this.inner.read(absPath, opts);
    const encoding = await detectEncoding(codec, content.bytes, this.configured(absPath));
    if (!isLegacy(encoding)) {
      this.legacy.delete(absPath);
      return content;
    }
    const bytes = await decodeLossless(codec, content.bytes, encoding, absPath);
    this.remember(absPath, encoding);
    return { bytes, stat: content.stat, encoding };
  }

  stat(absPath: string): Promise<FileStat | undefined> {
    return this.inner.stat(absPath);
  }

  write(absPath: string, bytes: Uint8Array, opts?: WriteOptions): Promise<FileStat> {
    return this.writeParts(absPath, [bytes], opts);
  }

  async writeParts(absPath: string, parts: readonly Uint8Array[], opts: WriteOptions = {}): Promise<FileStat> {
    const encoding = this.encodingForWrite(absPath, opts);
    if (!encoding) return this.inner.writeParts ? this.inner.writeParts(absPath, parts, opts) : this.inner.write(absPath, Buffer.concat(parts), opts);
    return this.withLock(absPath, async () => {
      const { raw, next } = await this.encoded(absPath, parts, opts, encoding);
      // the digest is of the re-encoded bytes on disk, not of the UTF-8 ones given
      const { sha256OfGiven: _given, ...stat } = await this.inner.write(absPath, next, { ...reencoded(opts), expectedContent: raw });
      return stat;
    });
  }

  async stage(absPath: string, parts: readonly Uint8Array[], opts: WriteOptions = {}): Promise<StagedWrite> {
    if (!this.inner.stage) throw new ToolError('invalid_argument', 'this file store cannot stage writes');
    const encoding = this.encodingForWrite(absPath, opts);
    if (!encoding) return this.inner.stage(absPath, parts, opts);
    return this.withLock(absPath, async () => {
      const { raw, next } = await this.encoded(absPath, parts, opts, encoding);
      const staged = await this.inner.stage!(absPath, [next], { ...reencoded(opts), expectedContent: raw });
      return {
        target: staged.target,
        tempPath: staged.tempPath,
        before: staged.before,
        get after() {
          return staged.after;
        },
        // the digest is of the re-encoded bytes on disk, not of the UTF-8 ones given; no syncFolder offered, so the
        // options never skip the folder's sync here
        commit: async (commitOpts) => {
          const { sha256OfGiven: _given, ...stat } = await staged.commit(commitOpts);
          return stat;
        },
        discard: () => staged.discard(),
        revert: () => staged.revert(),
      };
    });
  }

  async remove(absPath: string): Promise<void> {
    this.legacy.delete(absPath);
    await this.inner.remove(absPath);
  }

  lock<T>(absPath: string, fn: () => Promise<T>): Promise<T> {
    return this.withLock(absPath, fn);
  }

  lockAll<T>(absPaths: readonly string[], fn: () => Promise<T>): Promise<T> {
    if (this.inner.lockAll) return this.inner.lockAll(absPaths, fn);
    return [...new Set(absPaths)].sort().reduceRight<() => Promise<T>>((inner, p) => () => this.withLock(p, inner), fn)();
  }

  async recover(): Promise<void> {
    await this.inner.recover?.();
  }

  release(bytes: Uint8Array): void {
    this.inner.release?.(bytes);
  }

  // ---------------------------------------------------------------- internals

  private withLock<T>(absPath: string, fn: () => Promise<T>): Promise<T> {
    return this.inner.lock ? this.inner.lock(absPath, fn) : fn();
  }

  private remember(absPath: string, encoding: string): void {
    this.legacy.delete(absPath);
    this.legacy.set(absPath, encoding);
    if (this.legacy.size > MAX_REMEMBERED) this.legacy.delete(this.legacy.keys().next().value as string);
  }

  /** A file read in a legacy encoding keeps it; a new file takes the configured one; else UTF-8 (no encoding). */
  private encodingForWrite(absPath: string, opts: WriteOptions): string | undefined {
    const known = this.legacy.get(absPath);
    if (known) return known;
    if (opts.expectedContent !== null) return undefined;
    const conf = normalizeEncoding(this.configured(absPath));
    return isLegacy(conf) ? conf : undefined;
  }

  /** Under the lock: the raw bytes now on disk (checked against the UTF-8 the edit was made from) and the new raw bytes. */
  private async encoded(absPath: string, parts: readonly Uint8Array[], opts: WriteOptions, encoding: string): Promise<{ raw: Buffer | null; next: Buffer }> {
    let raw: Buffer | null = null;
    if (opts.expectedContent !== null) {
      try {
        raw = (await this.inner.read(absPath)).bytes;
      } catch (e) {
        if (!(e instanceof ToolError && e.code === 'not_found')) throw e;
      }
    }
    const oldUtf8 = raw ? await decodeLossless(codec, raw, encoding, absPath) : null;
    if (opts.expectedContent !== undefined) {
      const expected = opts.expectedContent;
      const same = expected === null ? raw === null : oldUtf8 !== null && oldUtf8.equals(expected);
      if (!same) {
        throw new ToolError('conflict', `${absPath} was changed by someone else since it was read; nothing was written. Re-read the file and retry.`);
      }
    }
    const next = await encodeEdited(codec, raw, oldUtf8, Buffer.concat(parts), encoding, absPath);
    return { raw, next };
  }
}

/** The options of a write whose bytes are re-encoded: a digest of them is not one of the bytes given. */
function reencoded(opts: WriteOptions): WriteOptions {
  const onRenamed = opts.onRenamed;
  return onRenamed ? { ...opts, onRenamed: (w) => onRenamed({ ...w, ofGiven: false }) } : opts;
}
