/**
 * The read-back proof of an edit result: the first 16 hex digits of the sha256 of the file as read back after the
 * write. The store compares it with the bytes intended and throws when they differ, so a value here means "equal".
 */
import type { FileStat } from '../files/fileStore';

export const READ_BACK_HEX = 16;

export function readBack(result: { sha256?: string }, stat: FileStat | undefined): void {
  if (stat?.sha256) result.sha256 = stat.sha256.slice(0, READ_BACK_HEX);
}
