/**
 * EditService: the be-* operations over a sandbox and a FileStore, one module each in ops/, over one shared
 * EditContext (context.ts). Each edit is a byte splice on the file's buffer (see text/splice.ts): lines outside
 * the range keep their bytes, the BOM and the final-newline state stay, the write is whole-or-nothing, and every
 * landed edit records its inverse splice in the edit history (editPath.ts, the path every edit takes).
 */
import { renderChip } from '../chips/render';
import type { ChipSink } from '../chips/types';
import { systemClock, type Clock } from '../clock';
import type { FileStore } from '../files/fileStore';
import { KeyedMutex as FileLocks } from '../util/mutex';
import type { SandboxPort } from '../files/ports';
import type { EditHistory } from '../history/types';
import { DEFAULT_LIMITS, type ChipRenderer, type EditContext, type EditLimits, type SymbolLocator } from './editContext';
import type { Lang } from './messages';
import { balanceReport } from './ops/balance';
import { deleteLines } from './ops/delete';
import { functionRange } from './ops/funcRange';
import { insertLines } from './ops/insert';
import { insertChip } from './ops/insertChip';
import { readLines } from './ops/read';
import { replaceLines } from './ops/replace';
import { tagRange } from './ops/tagRange';
import { runTrx } from './ops/trx';
import { writeFile } from './ops/write';
import { ViewedCodeRegistry } from './viewedCode';
import { EditedIndexCache } from '../read/editedIndex';

export { DEFAULT_LIMITS, type ChipRenderer, type EditLimits, type SymbolLocator } from './editContext';

export interface EditServiceDeps {
  files: FileStore;
  sandbox: SandboxPort;
  chips?: ChipSink;
  history?: EditHistory;
  /** The clock of the default viewed_code_id registry (ids expire after 24 h). */
  clock?: Clock;
  lang?: Lang;
  /** Shared viewed_code_id records (one per service by default). */
  viewed?: ViewedCodeRegistry;
  limits?: Partial<EditLimits>;
  /** How chips are rendered for be-insert-chip (default: core/chips/render.ts renderChip). */
  renderChip?: ChipRenderer;
  /** Function ranges from a syntax tree (tree-sitter, core/context); the brace/indent analyzers answer otherwise. */
  symbols?: SymbolLocator;
}

/** An operation of ops/* with the shared context bound: what callers of EditService see. */
type Bound<Op> = Op extends (ctx: EditContext, args: infer A) => infer R ? (args: A) => R : never;

export class EditService {
  readonly viewed: ViewedCodeRegistry;
  /** The line index each big file's last edit derived: its next edit's, and a read's of the same bytes. */
  readonly editedIndex: EditedIndexCache;
  /** be-read: numbered lines of a range or a target, with the viewed_code_id later edits check. */
  readonly read: Bound<typeof readLines>;
  /** be-replace: lines S-E become the content (viewed_code_id and `old` checked when given). */
  readonly replace: Bound<typeof replaceLines>;
  /** be-insert: the content goes after line N (`:0` is the top). */
  readonly insert: Bound<typeof insertLines>;
  /** be-delete: lines S-E go; their text is kept as a chip. */
  readonly delete: Bound<typeof deleteLines>;
  /** be-write: a whole file, created or replaced, keeping its line ending and BOM. */
  readonly write: Bound<typeof writeFile>;
  /** be-func-range: the function (else block) around a line. */
  readonly funcRange: Bound<typeof functionRange>;
  /** be-tag-range: the paired tag around a line. */
  readonly tagRange: Bound<typeof tagRange>;
  /** be-balance: the bracket, tag and quote report of a file. */
  readonly balance: Bound<typeof balanceReport>;
  /** be-insert-chip: a chip's (or a file's) text inserted after a line; without arguments, the chip list. */
  readonly insertChip: Bound<typeof insertChip>;
  /** be-trx: commit, roll back, show or review the edit history. */
  readonly trx: Bound<typeof runTrx>;

  constructor(deps: EditServiceDeps) {
    this.viewed = deps.viewed ?? new ViewedCodeRegistry({ clock: deps.clock ?? systemClock });
    this.editedIndex = new EditedIndexCache((bytes) => deps.files.release?.(bytes));
    const ctx: EditContext = {
      files: deps.files,
      sandbox: deps.sandbox,
      chips: deps.chips,
      history: deps.history,
      viewed: this.viewed,
      limits: { ...DEFAULT_LIMITS, ...deps.limits },
      lang: deps.lang ?? 'en',
      renderChip: deps.renderChip ?? renderChip,
      symbols: deps.symbols,
      locks: new FileLocks(),
      editedIndex: this.editedIndex,
    };
    const bind = <A, R>(op: (ctx: EditContext, args: A) => R) => (args: A) => op(ctx, args);
    this.read = bind(readLines);
    this.replace = bind(replaceLines);
    this.insert = bind(insertLines);
    this.delete = bind(deleteLines);
    this.write = bind(writeFile);
    this.funcRange = bind(functionRange);
    this.tagRange = bind(tagRange);
    this.balance = bind(balanceReport);
    this.insertChip = bind(insertChip);
    this.trx = bind(runTrx);
  }
}
