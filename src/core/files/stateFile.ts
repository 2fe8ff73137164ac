/**
 * Reading a state file (a chip, the counter, a lock, a saved memory session) that anyone with access to the
 * directory may have replaced: a FIFO would block a plain readFile forever, a directory or a device is not ours,
 * and a foreign 300 MB file would stall the start. So: lstat first (nothing that is not a regular file is
 * opened), refuse what is over `maxBytes` without reading it, open with O_NOFOLLOW | O_NONBLOCK (a FIFO swapped
 * in after the lstat does not block the open) and check again with fstat on the open handle.
 */
import { promises as fs } from 'node:fs';
import { errnoCode, errorText } from '../errors';
import { fileKind, READ_FLAGS } from './regularFile';

export type StateFileRead =
  /** `bytes`: the size read (the text's UTF-8 length differs where the file is not valid UTF-8). */
  | { ok: true; text: string; bytes: number }
  /** `missing`: ENOENT (deleted meanwhile); `skipped`: not a regular file or too large; `error`: I/O error. */
  | { ok: false; kind: 'missing' | 'skipped' | 'error'; reason: string };

export async function readStateFile(file: string, maxBytes: number): Promise<StateFileRead> {
  let st;
  try {
    st = await fs.lstat(file);
  } catch (err) {
    return errnoCode(err) === 'ENOENT'
      ? { ok: false, kind: 'missing', reason: 'it no longer exists' }
      : { ok: false, kind: 'error', reason: `cannot stat it (${errorText(err)})` };
  }
  if (!st.isFile()) return { ok: false, kind: 'skipped', reason: `it is ${fileKind(st)}, not a regular file; it was not opened` };
  if (st.size > maxBytes) return { ok: false, kind: 'skipped', reason: tooLarge(st.size, maxBytes) };
  let handle: fs.FileHandle | undefined;
  try {
    handle = await fs.open(file, READ_FLAGS);
    const hst = await handle.stat();
    if (!hst.isFile()) return { ok: false, kind: 'skipped', reason: `it became ${fileKind(hst)}; it was not read` };
    if (hst.size > maxBytes) return { ok: false, kind: 'skipped', reason: tooLarge(hst.size, maxBytes) };
    // Read at most maxBytes + 1: a file growing under us is caught, never read without bound. A short read is the
    // end of a regular file: the read that finds it is the one that filled the buffer (no second call to see 0).
    const buf = Buffer.allocUnsafe(Math.min(hst.size, maxBytes) + 1);
    let n = 0;
    for (;;) {
      const want = buf.length - n;
      const { bytesRead } = await handle.read(buf, n, want, n);
      n += bytesRead;
      if (bytesRead < want || n === buf.length) break;
    }
    if (n > maxBytes) return { ok: false, kind: 'skipped', reason: tooLarge(n, maxBytes) };
    return { ok: true, text: buf.toString('utf8', 0, n), bytes: n };
  } catch (err) {
    return readFailure(err);
  } finally {
    // read-only: nothing waits for the close (none of its errors matters)
    void handle?.close().catch(() => undefined);
  }
}

/**
 * `length` bytes of a state file from `offset` (fewer at its end), with the same checks as a whole read: only a
 * regular file is opened, never through a link, never blocked on. For a record whose place an index knows.
 */
export async function readStateRange(file: string, offset: number, length: number): Promise<StateFileRead> {
  let handle: fs.FileHandle | undefined;
  try {
    handle = await fs.open(file, READ_FLAGS);
    const st = await handle.stat();
    if (!st.isFile()) return { ok: false, kind: 'skipped', reason: `it is ${fileKind(st)}, not a regular file; it was not read` };
    const buf = Buffer.allocUnsafe(Math.max(0, Math.min(length, st.size - offset)));
    let n = 0;
    while (n < buf.length) {
      const { bytesRead } = await handle.read(buf, n, buf.length - n, offset + n);
      if (bytesRead === 0) break;
      n += bytesRead;
    }
    return { ok: true, text: buf.toString('utf8', 0, n), bytes: n };
  } catch (err) {
    return readFailure(err);
  } finally {
    void handle?.close().catch(() => undefined);
  }
}

function readFailure(err: unknown): StateFileRead {
  const code = errnoCode(err);
  if (code === 'ENOENT') return { ok: false, kind: 'missing', reason: 'it no longer exists' };
  if (code === 'ELOOP') return { ok: false, kind: 'skipped', reason: 'it became a symbolic link; it was not followed' };
  return { ok: false, kind: 'error', reason: `cannot read it (${errorText(err)})` };
}

function tooLarge(size: number, max: number): string {
  return `it is ${size} bytes, over the ${max}-byte limit for this kind of file; it was not loaded`;
}
