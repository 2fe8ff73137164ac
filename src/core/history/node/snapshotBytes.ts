/**
 * A snapshot's removed bytes, read back for a rollback or a revert: only from regular files (a FIFO put there must
 * not hang anything), and checked against the length its record names.
 */
import { Buffer } from 'node:buffer';
import * as path from 'node:path';
import { errorText, ToolError } from '../../errors';
import { readRegularFile } from '../../files/regularFile';
import type { Entry, GroupSnapshotFile, SnapshotFile } from '../snapshotFile';

/** The bytes the snapshot's edit removed, read from `dir` and checked against the recorded length. */
export async function loadRemoved(dir: string, entry: Entry): Promise<Buffer> {
  try {
    if (entry.binName) {
      const bytes = await readRegularFile(path.join(dir, entry.binName));
      if (bytes.length !== entry.meta.removed_length) throw new Error(`${entry.binName} has ${bytes.length} bytes, expected ${entry.meta.removed_length}`);
      return bytes;
    }
    const raw = JSON.parse((await readRegularFile(path.join(dir, entry.jsonName))).toString('utf8')) as SnapshotFile | GroupSnapshotFile;
    // a batch's file (v 3): this entry's part of it
    const parsed = raw.v === 3 ? (Array.isArray(raw.parts) ? raw.parts : []).find((p) => p && p.id === entry.meta.id && p.seq === entry.meta.seq) : raw;
    if (!parsed) throw new Error(`${entry.jsonName} no longer holds it`);
    const bytes = Buffer.from(parsed.removed_b64 ?? '', 'base64');
    if (bytes.length !== entry.meta.removed_length) throw new Error(`${entry.jsonName} holds ${bytes.length} removed bytes, expected ${entry.meta.removed_length}`);
    return bytes;
  } catch (err) {
    throw new ToolError('io', `Rollback stopped at snapshot ${entry.meta.id}: its stored data cannot be read (${errorText(err)}).`);
  }
}
