/** Test doubles for the ChipSink / EditHistory ports, and a temp workspace with an EditService. */
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import type { ChipRecord, ChipSaveResult, ChipSink } from '../../../src/core/chips/types';
import type { EditHistory, EditRecordInput, RecordResult, RollbackResult } from '../../../src/core/history/types';
import type { FileStore } from '../../../src/core/files/fileStore';
import { NodeFileStore } from '../../../src/core/files/nodeFileStore';
import { Sandbox } from '../../../src/core/files/sandbox';
import { EditService, type EditServiceDeps } from '../../../src/core/edits/service';
import { ToolError } from '../../../src/core/errors';

export class MemoryChips implements ChipSink {
  chips: ChipRecord[] = [];
  private n = 0;
  async saveFailedCall(tool: string, args: unknown, errMsg: string): Promise<ChipSaveResult | undefined> {
    return { chip: this.make(tool, args as Record<string, unknown>, errMsg), evicted: [] };
  }
  async saveContent(tool: string, content: string, where?: { file?: string; range?: { start: number; end: number } }) {
    const chip = this.make(tool, { _content: content });
    if (where?.file) chip.file = where.file;
    if (where?.range) chip.range = where.range;
    return { chip, evicted: [] };
  }
  private make(tool: string, args: Record<string, unknown>, err?: string): ChipRecord {
    const id = (++this.n).toString(16).padStart(6, '0');
    const text = typeof args._content === 'string' ? args._content : JSON.stringify(args);
    const chip: ChipRecord = {
      id, tool, args, created_at: 0, seq: this.n, created_ms: 0, size: Buffer.byteLength(text), preview: text.slice(0, 80),
    };
    if (err) chip.err_msg = err;
    this.chips.push(chip);
    return chip;
  }
  async get(id: string) {
    return this.chips.find((c) => c.id === id);
  }
  async list() {
    return [...this.chips];
  }
  async delete(id: string) {
    const before = this.chips.length;
    this.chips = this.chips.filter((c) => c.id !== id);
    return this.chips.length < before;
  }
  originalText(chip: ChipRecord): string | undefined {
    const a = chip.args;
    if (typeof a._content === 'string') return a._content;
    if (typeof a.content === 'string') return a.content;
    return undefined;
  }
}

/** Records inverse splices in memory; rollback applies them (no conflict check: the real store has one). */
export class MemoryHistory implements EditHistory {
  records: (EditRecordInput & { id: string })[] = [];
  constructor(private readonly files: FileStore) {}
  async record(input: EditRecordInput): Promise<RecordResult> {
    const id = (this.records.length + 1).toString(16).padStart(6, 'a');
    this.records.push({ ...input, id });
    return { id };
  }
  async rollback(step: number): Promise<RollbackResult> {
    const restored: RollbackResult['restored'] = [];
    for (let i = 0; i < step && this.records.length; i++) {
      const r = this.records.pop()!;
      if (r.created) {
        await this.files.remove(r.file);
        restored.push({ id: r.id, file: r.file, action: 'deleted' });
        continue;
      }
      const cur = (await this.files.read(r.file)).bytes;
      const back = Buffer.concat([cur.subarray(0, r.offset), r.removed, cur.subarray(r.offset + r.insertedLength)]);
      await this.files.write(r.file, back);
      restored.push({ id: r.id, file: r.file, action: 'restored' });
    }
    return { status: 'ok', rolled_back: restored.length, restored };
  }
  async commit() {
    const committed = this.records.length;
    this.records = [];
    return { committed };
  }
  async status() {
    return { queue: { used: this.records.length, max: 30, bytes: 0, max_bytes: 0 }, snapshots: [] };
  }
}

/** A FileStore whose writes can be made to fail. */
export class FlakyStore extends NodeFileStore {
  failWrites = false;
  override async writeParts(p: string, parts: readonly Uint8Array[], o?: Parameters<NodeFileStore['write']>[2]) {
    if (this.failWrites) throw new ToolError('io', `write ${p}: disk full (simulated)`);
    return super.writeParts(p, parts, o);
  }
  override async stage(p: string, parts: readonly Uint8Array[], o?: Parameters<NodeFileStore['write']>[2]) {
    if (this.failWrites) throw new ToolError('io', `write ${p}: disk full (simulated)`);
    return super.stage(p, parts, o);
  }
}

export interface Workspace {
  tmp: string;
  root: string;
  outside: string;
  files: FlakyStore;
  chips: MemoryChips;
  history: MemoryHistory;
  svc: EditService;
  p(rel: string): string;
  write(rel: string, content: string | Buffer, mode?: number): string;
  read(rel: string): string;
  bytes(rel: string): Buffer;
  cleanup(): void;
}

export function workspace(extra: Partial<EditServiceDeps> = {}): Workspace {
  const tmp = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'be-edits-')));
  const root = path.join(tmp, 'root');
  const outside = path.join(tmp, 'outside');
  fs.mkdirSync(root);
  fs.mkdirSync(outside);
  const files = new FlakyStore();
  const chips = new MemoryChips();
  const history = new MemoryHistory(files);
  const svc = new EditService({ files, sandbox: new Sandbox([root]), chips, history, ...extra });
  const p = (rel: string) => path.join(root, rel);
  return {
    tmp, root, outside, files, chips, history, svc, p,
    write(rel, content, mode) {
      const f = p(rel);
      fs.mkdirSync(path.dirname(f), { recursive: true });
      fs.writeFileSync(f, content);
      if (mode !== undefined) fs.chmodSync(f, mode);
      return f;
    },
    read: (rel) => fs.readFileSync(p(rel), 'utf8'),
    bytes: (rel) => fs.readFileSync(p(rel)),
    cleanup: () => fs.rmSync(tmp, { recursive: true, force: true }),
  };
}

export async function rejectsCode(p: Promise<unknown>, code: string, re?: RegExp): Promise<ToolError> {
  let err: unknown;
  try {
    await p;
  } catch (e) {
    err = e;
  }
  if (!(err instanceof ToolError)) throw new Error(`expected ToolError(${code}), got ${String(err)}`);
  if (err.code !== code) throw new Error(`expected code ${code}, got ${err.code}: ${err.message}`);
  if (re && !re.test(err.message)) throw new Error(`message ${JSON.stringify(err.message)} does not match ${re}`);
  return err;
}
