/**
 * The be-apply journal as read at recovery: untrusted input. Anyone who can write the journal folder (a shared
 * `--history-dir`, another user's mistake, an attacker) may have planted one, so its shape is checked field by field
 * and a temp it names is only ever one of ours: in its target's own folder, in the temp-name form of the journal's
 * owner for that target's name (tempFiles.ts). The sandbox checks happen later, at the moment of use (journal.ts).
 */
import * as path from 'node:path';
import type { ProcessOwner } from '../../../files/processIdentity';
import { tempBaseName, tempOwner } from '../../../files/tempFiles';

export interface JournalFileEntry {
  target: string;
  temp?: string;
  /** null: the batch created the file */
  before_sha256: string | null;
  after_sha256: string;
  offset: number;
  inserted_length: number;
  removed_b64: string;
}

export interface JournalFile {
  v: 1;
  id: string;
  owner: ProcessOwner;
  created_ms: number;
  files: JournalFileEntry[];
}

/**
 * The journal of a batch still staging: written before the first temp exists, it names the temp of each target,
 * so a crash while staging leaves no temp the next start does not find (it removes them; nothing was renamed yet).
 * The full journal (JournalFile) replaces it under the same name once every temp is staged.
 */
export interface StagingJournal {
  v: 1;
  id: string;
  owner: ProcessOwner;
  created_ms: number;
  staging: true;
  files: { target: string; temp: string }[];
}

export const JOURNAL_NAME_RE = /^apply-([0-9a-f]{12})\.json$/;
/** A journal holds each file's removed bytes (base64): bounded well above any batch be-apply accepts. */
export const MAX_JOURNAL_BYTES = 256 * 1024 * 1024;
const MAX_FILES = 10_000;
const SHA_RE = /^[0-9a-f]{64}$/;
const B64_RE = /^[A-Za-z0-9+/]*={0,2}$/;

const isObj = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);
const isCount = (v: unknown): v is number => typeof v === 'number' && Number.isSafeInteger(v) && v >= 0;
const isAbs = (v: unknown): v is string => typeof v === 'string' && v.length > 0 && v.length < 4096 && !v.includes('\0') && path.isAbsolute(v) && path.normalize(v) === v;

/** The journal in `text` (file `name`), or why it is not one. */
export function parseJournal(text: string, name: string): JournalFile | StagingJournal | string {
  let raw: unknown;
  try {
    raw = JSON.parse(text);
  } catch {
    return 'it is not JSON';
  }
  if (!isObj(raw) || raw.v !== 1) return 'it is not a version-1 journal';
  const m = JOURNAL_NAME_RE.exec(name);
  if (!m || raw.id !== m[1]) return 'its id does not match its file name';
  const owner = raw.owner;
  if (!isObj(owner) || !isCount(owner.pid) || owner.pid === 0 || !isCount(owner.start)) return 'its owner is not a pid and a start time';
  if (!isCount(raw.created_ms)) return 'its created_ms is not a time';
  if (!Array.isArray(raw.files) || raw.files.length === 0 || raw.files.length > MAX_FILES) return `its files are not a list of 1 to ${MAX_FILES} entries`;
  const seen = new Set<string>();
  if (raw.staging === true) {
    const temps: StagingJournal['files'] = [];
    for (const [i, e] of (raw.files as unknown[]).entries()) {
      if (!isObj(e) || !isAbs(e.target) || !isAbs(e.temp)) return `entry ${i} has no absolute, normalised target and temp`;
      if (seen.has(e.target)) return `entry ${i} names ${e.target} twice`;
      seen.add(e.target);
      temps.push({ target: e.target, temp: e.temp });
    }
    return { v: 1, id: m[1], owner: { pid: owner.pid, start: owner.start }, created_ms: raw.created_ms, staging: true, files: temps };
  }
  const files: JournalFileEntry[] = [];
  for (const [i, e] of (raw.files as unknown[]).entries()) {
    const bad = `entry ${i} `;
    if (!isObj(e) || !isAbs(e.target)) return `${bad}has no absolute, normalised target`;
    if (seen.has(e.target)) return `${bad}names ${e.target} twice`;
    seen.add(e.target);
    if (e.temp !== undefined && !isAbs(e.temp)) return `${bad}has a temp that is not an absolute, normalised path`;
    if (e.before_sha256 !== null && !(typeof e.before_sha256 === 'string' && SHA_RE.test(e.before_sha256))) return `${bad}has no before_sha256`;
    if (typeof e.after_sha256 !== 'string' || !SHA_RE.test(e.after_sha256)) return `${bad}has no after_sha256`;
    if (!isCount(e.offset) || !isCount(e.inserted_length)) return `${bad}has no offset / inserted_length`;
    if (typeof e.removed_b64 !== 'string' || e.removed_b64.length % 4 !== 0 || !B64_RE.test(e.removed_b64)) return `${bad}has no removed_b64`;
    files.push({
      target: e.target,
      ...(e.temp !== undefined ? { temp: e.temp as string } : {}),
      before_sha256: e.before_sha256,
      after_sha256: e.after_sha256,
      offset: e.offset,
      inserted_length: e.inserted_length,
      removed_b64: e.removed_b64,
    });
  }
  return { v: 1, id: m[1], owner: { pid: owner.pid, start: owner.start }, created_ms: raw.created_ms, files };
}

/**
 * Is `temp` a temp the journal's owner staged for `target`: the same folder, and the name tempBaseName gives that
 * target's name for that owner (only the random part differs)? Anything else is never read nor removed.
 */
export function isOwnTemp(target: string, temp: string, owner: ProcessOwner): boolean {
  if (path.dirname(temp) !== path.dirname(target)) return false;
  const name = path.basename(temp);
  const recorded = tempOwner(name);
  if (!recorded || recorded.pid !== owner.pid || recorded.start !== owner.start) return false;
  const expected = tempBaseName(path.basename(target), owner);
  // `<prefix><12 hex>.tmp`: compare all but the random part
  const cut = expected.length - '000000000000.tmp'.length;
  return name.length === expected.length && name.slice(0, cut) === expected.slice(0, cut) && /^[0-9a-f]{12}\.tmp$/.test(name.slice(cut));
}
