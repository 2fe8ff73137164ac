/**
 * A cold refresh's reads, described on two threads: this one and a RecordDescriber (node/recordsPool.ts: one
 * worker). One loop on this thread does all of this thread's share, in slices that yield (util/slices.ts): it
 * reads every file, keeps filling the describer's next batch while the describer has fewer than two in hand (so
 * that it never waits for the end of a slice here), describes the other files itself, and applies the describer's
 * answers record by record. Each record lands at its file's index: the result is the same as one thread's, and a
 * batch the describer fails is described here.
 */
import { described, type FileRecord, type FileRecords } from './fileRecords';
import type { WalkedFile } from './mapPorts';
import { fromRecordData, type RecordData, type RecordDescriber } from './recordData';
import { Slices } from '../util/slices';

/** A batch for the describer: this many files at most, and it closes once it holds this many bytes. */
const BATCH_FILES = 64;
const BATCH_BYTES = 256 * 1024;
/** Batches the describer holds at once: one it works on, one waiting. */
const IN_HAND = 2;

interface Batch {
  at: number[];
  recs: FileRecord[];
  bytes: Buffer[];
  size: number;
}

const emptyBatch = (): Batch => ({ at: [], recs: [], bytes: [], size: 0 });

export async function readShared(files: readonly WalkedFile[], records: FileRecords, describer: RecordDescriber): Promise<(FileRecord | undefined)[]> {
  const out: (FileRecord | undefined)[] = new Array(files.length);
  const slices = new Slices();
  /** Answered batches (data undefined: the describer failed it), applied here in order of arrival. */
  const answered: { batch: Batch; data: RecordData[] | undefined; next: number }[] = [];
  let inHand = 0;
  let failed = false;
  let filling = emptyBatch();
  let wake: (() => void) | undefined;
  const send = () => {
    const batch = filling;
    filling = emptyBatch();
    inHand++;
    describer.describe(batch.recs.map((rec, k) => ({ rel: rec.rel, bytes: batch.bytes[k]! }))).then(
      (data) => answered.push({ batch, data, next: 0 }),
      () => {
        failed = true; // this thread reads the rest
        answered.push({ batch, data: undefined, next: 0 });
      },
    ).finally(() => {
      inHand--;
      wake?.();
    });
  };
  let i = 0;
  for (;;) {
    const head = answered[0];
    if (head) {
      const k = head.next++;
      const rec = head.batch.recs[k]!;
      const data = head.data?.[k];
      out[head.batch.at[k]!] = data ? fromRecordData(rec, data) : described(rec, head.batch.bytes[k]!);
      if (head.next === head.batch.recs.length) answered.shift();
    } else if (i < files.length) {
      const f = files[i]!;
      if (!failed && inHand < IN_HAND) {
        const loaded = records.loadSync(f)!;
        if (!loaded.bytes) out[i] = loaded.rec;
        else {
          filling.at.push(i);
          filling.recs.push(loaded.rec!);
          filling.bytes.push(loaded.bytes);
          filling.size += loaded.bytes.length;
          if (filling.at.length >= BATCH_FILES || filling.size >= BATCH_BYTES) send();
        }
      } else {
        out[i] = records.readSync(f)!.rec;
      }
      i++;
    } else if (filling.at.length) {
      if (!failed) send();
      else {
        answered.push({ batch: filling, data: undefined, next: 0 }); // described here: the describer is asked no more
        filling = emptyBatch();
      }
    } else if (inHand) {
      await new Promise<void>((resolve) => (wake = resolve));
      wake = undefined;
    } else {
      return out;
    }
    const due = slices.tick();
    if (due) await due;
  }
}
