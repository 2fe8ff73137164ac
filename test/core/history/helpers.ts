/** A tiny fs-based FileStore for history tests (the real NodeFileStore belongs to the core helper). */
import { promises as fs } from 'node:fs';
import * as path from 'node:path';
import { ToolError } from '../../../src/core/errors';
import type { FileContent, FileStat, FileStore, WriteOptions } from '../../../src/core/files/fileStore';

const toStat = (s: { size: number; mtimeMs: number; mode: number }): FileStat => ({ size: s.size, mtimeMs: s.mtimeMs, mode: s.mode & 0o7777 });

export class FsFileStore implements FileStore {
  writes = 0;
  async read(absPath: string): Promise<FileContent> {
    try {
      const bytes = await fs.readFile(absPath);
      return { bytes, stat: toStat(await fs.stat(absPath)) };
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === 'ENOENT') throw new ToolError('not_found', `${absPath} does not exist`);
      throw new ToolError('io', String(err));
    }
  }
  async stat(absPath: string): Promise<FileStat | undefined> {
    try {
      return toStat(await fs.stat(absPath));
    } catch {
      return undefined;
    }
  }
  async write(absPath: string, bytes: Uint8Array, opts: WriteOptions = {}): Promise<FileStat> {
    if (opts.expectedMtimeMs !== undefined) {
      const now = await this.stat(absPath);
      if (now && now.mtimeMs !== opts.expectedMtimeMs) throw new ToolError('conflict', `${absPath} changed`);
    }
    if (opts.mkdirs) await fs.mkdir(path.dirname(absPath), { recursive: true });
    const tmp = `${absPath}.tmp-${process.pid}-${Math.random()}`;
    await fs.writeFile(tmp, bytes);
    await fs.rename(tmp, absPath);
    this.writes++;
    return toStat(await fs.stat(absPath));
  }
  async remove(absPath: string): Promise<void> {
    await fs.unlink(absPath);
  }
}
