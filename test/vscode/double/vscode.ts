/**
 * A small in-memory `vscode` module for unit tests (as copilot-chat's TestWorkspaceService): enough of the API for
 * the extension's modules — workspace (folders, configuration, documents, edits, events), window (messages with
 * scripted answers, trees, status bar, editors), commands, EventEmitter, Uri, Range, l10n, and the lm/chat/MCP
 * registrations, which it records. install.ts makes `require('vscode')` resolve here, in tests only. State lives in
 * `double` and is reset by `double.reset()` (each test file's beforeEach). Behaviour follows VS Code's where our
 * modules depend on it (EOL normalization of edits, `affectsConfiguration` by section prefix, Disposable.from).
 */
import * as path from 'node:path';
import { promises as fs } from 'node:fs';
import { CancellationTokenSource, Disposable, EndOfLine, EventEmitter, Position, Range, Selection, TabInputText, Uri, type Event } from './types';

export * from './types';

/** `{0}`-style placeholders, as vscode.l10n.t fills them (no bundle: the English text). */
export const l10n = {
  t(message: string, ...args: unknown[]): string {
    return message.replace(/\{(\d+)\}/g, (m, i: string) => (Number(i) < args.length ? String(args[Number(i)]) : m));
  },
};

export const version = '1.101.0-double';

// ---------------------------------------------------------------- documents and edits

/** An open document: text in memory, saved to disk by save() when its uri is a file. */
export class TestDocument {
  isClosed = false;
  isDirty = false;
  version = 1;
  saves = 0;
  constructor(
    readonly uri: Uri,
    private text: string,
    public languageId = 'plaintext',
    public eol: EndOfLine = text.includes('\r\n') ? EndOfLine.CRLF : EndOfLine.LF,
    public encoding?: string,
  ) {}
  get fileName(): string {
    return this.uri.fsPath;
  }
  get lineCount(): number {
    return this.text.split(/\r?\n/).length;
  }
  getText(): string {
    return this.text;
  }
  lineAt(line: number): { text: string } {
    return { text: this.text.split(/\r?\n/)[line] ?? '' };
  }
  offsetAt(p: Position): number {
    const lines = this.text.split(/(?<=\n)/);
    let offset = 0;
    for (let i = 0; i < p.line && i < lines.length; i++) offset += lines[i]!.length;
    return Math.min(offset + p.character, this.text.length);
  }
  positionAt(offset: number): Position {
    const before = this.text.slice(0, Math.max(0, Math.min(offset, this.text.length)));
    const line = (before.match(/\n/g) ?? []).length;
    return new Position(line, before.length - (before.lastIndexOf('\n') + 1));
  }
  /** The user types: the buffer changes and is dirty. */
  type(text: string): void {
    this.replaceAll(text);
    this.isDirty = true;
  }
  replaceAll(text: string): void {
    this.text = text;
    this.version++;
    double.events.changeTextDocument.fire({ document: this, contentChanges: [], reason: undefined });
  }
  async save(): Promise<boolean> {
    if (double.failSaves) return false;
    if (this.uri.scheme === 'file') await fs.writeFile(this.uri.fsPath, this.text, 'utf8');
    this.isDirty = false;
    this.saves++;
    double.events.saveTextDocument.fire(this);
    return true;
  }
}

export class WorkspaceEdit {
  readonly edits: { uri: Uri; range: Range; text: string }[] = [];
  replace(uri: Uri, range: Range, text: string): void {
    this.edits.push({ uri, range, text });
  }
  insert(uri: Uri, position: Position, text: string): void {
    this.edits.push({ uri, range: new Range(position, position), text });
  }
}

// ---------------------------------------------------------------- configuration

function configurationOf(section: string) {
  const full = (key: string) => (section ? `${section}.${key}` : key);
  return {
    get<T>(key: string, fallback?: T): T | undefined {
      const k = full(key);
      return k in double.settings ? (double.settings[k] as T) : fallback;
    },
    has(key: string): boolean {
      return full(key) in double.settings;
    },
    inspect(key: string) {
      return { key: full(key), languageIds: double.languageOverrides[full(key)] };
    },
    async update(key: string, value: unknown): Promise<void> {
      double.setSettings({ [full(key)]: value });
    },
  };
}

// ---------------------------------------------------------------- the double's state

interface Recorded {
  messages: { level: 'info' | 'warning' | 'error'; text: string; items: unknown[] }[];
  statusMessages: string[];
  clipboard: string;
  mcpProviders: { id: string; provider: any }[];
  participants: { id: string; handler: any; iconPath?: unknown; disposed: boolean }[];
  treeViews: { id: string; options: any; view: any }[];
  webviewProviders: { id: string; provider: any }[];
  contentProviders: { scheme: string; provider: any }[];
  statusBarItems: any[];
  executed: { command: string; args: unknown[] }[];
  shownDocuments: TestDocument[];
  logs: { level: string; text: string }[];
}

function emptyRecord(): Recorded {
  return { messages: [], statusMessages: [], clipboard: '', mcpProviders: [], participants: [], treeViews: [], webviewProviders: [], contentProviders: [], statusBarItems: [], executed: [], shownDocuments: [], logs: [] };
}

function newEvents() {
  return {
    changeConfiguration: new EventEmitter<{ affectsConfiguration(section: string): boolean }>(),
    changeWorkspaceFolders: new EventEmitter<{ added: unknown[]; removed: unknown[] }>(),
    changeTextDocument: new EventEmitter<{ document: TestDocument; contentChanges: unknown[]; reason: undefined }>(),
    closeTextDocument: new EventEmitter<TestDocument>(),
    saveTextDocument: new EventEmitter<TestDocument>(),
    changeActiveTextEditor: new EventEmitter<unknown>(),
    changeVisibleTextEditors: new EventEmitter<unknown>(),
    fileCreated: new EventEmitter<Uri>(),
    fileChanged: new EventEmitter<Uri>(),
    fileDeleted: new EventEmitter<Uri>(),
  };
}

type Answer = string | undefined | ((message: string, items: unknown[]) => unknown);

export const double = {
  settings: {} as Record<string, unknown>,
  languageOverrides: {} as Record<string, string[] | undefined>,
  folders: [] as { uri: Uri; name: string; index: number }[],
  documents: [] as TestDocument[],
  /** Documents shown in a tab (VscodeFileStore routes edits of these through the editor). */
  tabs: [] as Uri[],
  visibleEditors: [] as { document: TestDocument; selection: Selection; setDecorations(type: unknown, ranges: Range[]): void }[],
  activeEditor: undefined as undefined | { document: TestDocument; selection: Selection },
  commands: new Map<string, (...args: any[]) => unknown>(),
  /** What showInformation/Warning/ErrorMessage, showQuickPick and showInputBox answer next (FIFO; else undefined). */
  answers: [] as Answer[],
  /** applyEdit answers false (a read-only editor). */
  refuseEdits: false,
  failSaves: false,
  language: 'en',
  /** Hosts without the chat or MCP provider API: set before registering. */
  noChatApi: false,
  noMcpApi: false,
  /** Cursor's `vscode.cursor.mcp` (registerServer/unregisterServer); absent in VS Code. */
  cursorMcp: undefined as unknown,
  events: newEvents(),
  recorded: emptyRecord(),

  reset(): void {
    this.settings = {};
    this.languageOverrides = {};
    this.folders = [];
    this.documents = [];
    this.tabs = [];
    this.visibleEditors = [];
    this.activeEditor = undefined;
    this.commands = new Map();
    this.answers = [];
    this.refuseEdits = false;
    this.failSaves = false;
    this.language = 'en';
    this.noChatApi = false;
    this.noMcpApi = false;
    this.cursorMcp = undefined;
    this.events = newEvents();
    this.recorded = emptyRecord();
  },
  /** Changes settings (full keys, `betterEditTools.chips.capacity`) and fires onDidChangeConfiguration. */
  setSettings(values: Record<string, unknown>): void {
    Object.assign(this.settings, values);
    const keys = Object.keys(values);
    this.events.changeConfiguration.fire({ affectsConfiguration: (section: string) => keys.some((k) => k === section || k.startsWith(`${section}.`)) });
  },
  /** Replaces the workspace folders and fires onDidChangeWorkspaceFolders. */
  setFolders(paths: string[], fire = true): void {
    this.folders = paths.map((p, index) => ({ uri: Uri.file(p), name: path.basename(p), index }));
    if (fire) this.events.changeWorkspaceFolders.fire({ added: [], removed: [] });
  },
  /** Opens a document (optionally in a tab and a visible editor) with `text`, else the file's bytes. */
  async open(file: string, o: { text?: string; tab?: boolean; visible?: boolean; languageId?: string; encoding?: string } = {}): Promise<TestDocument> {
    const uri = Uri.file(file);
    const text = o.text ?? (await fs.readFile(file, 'utf8'));
    const doc = new TestDocument(uri, text, o.languageId, undefined, o.encoding);
    this.documents.push(doc);
    if (o.tab !== false) this.tabs.push(uri);
    if (o.visible) {
      const editor = { document: doc, selection: new Selection(0, 0, 0, 0), decorations: [] as Range[][], setDecorations: (_t: unknown, r: Range[]) => editor.decorations.push(r) };
      this.visibleEditors.push(editor);
      this.activeEditor = editor;
    }
    return doc;
  },
  close(doc: TestDocument): void {
    doc.isClosed = true;
    this.documents = this.documents.filter((d) => d !== doc);
    this.tabs = this.tabs.filter((u) => u.toString() !== doc.uri.toString());
    this.visibleEditors = this.visibleEditors.filter((e) => e.document !== doc);
    if (this.activeEditor?.document === doc) this.activeEditor = undefined;
    this.events.closeTextDocument.fire(doc);
  },
  nextAnswer(message: string, items: unknown[]): unknown {
    const a = this.answers.shift();
    return typeof a === 'function' ? a(message, items) : a;
  },
};

function outputChannel(name: string) {
  const log = (level: string) => (text: string) => void double.recorded.logs.push({ level, text: `[${name}] ${text}` });
  return { name, trace: log('trace'), debug: log('debug'), info: log('info'), warn: log('warn'), error: log('error'), appendLine: log('info'), show: () => undefined, dispose: () => undefined };
}

/** The extension's log channel in tests: records into double.recorded.logs. */
export function testLog(name = 'test'): any {
  return outputChannel(name);
}

// ---------------------------------------------------------------- namespaces

const event = <T>(pick: (e: ReturnType<typeof newEvents>) => EventEmitter<T>): Event<T> => (l, t, d) => pick(double.events).event(l, t, d);

export const workspace = {
  get workspaceFolders() {
    return double.folders.length ? double.folders : undefined;
  },
  get textDocuments() {
    return double.documents;
  },
  getConfiguration: (section = '') => configurationOf(section),
  onDidChangeConfiguration: event((e) => e.changeConfiguration),
  onDidChangeWorkspaceFolders: event((e) => e.changeWorkspaceFolders),
  onDidChangeTextDocument: event((e) => e.changeTextDocument),
  onDidCloseTextDocument: event((e) => e.closeTextDocument),
  onDidSaveTextDocument: event((e) => e.saveTextDocument),
  createFileSystemWatcher: () => ({
    onDidCreate: event((e) => e.fileCreated),
    onDidChange: event((e) => e.fileChanged),
    onDidDelete: event((e) => e.fileDeleted),
    dispose: () => undefined,
  }),
  registerTextDocumentContentProvider(scheme: string, provider: unknown): Disposable {
    double.recorded.contentProviders.push({ scheme, provider });
    return new Disposable(() => (double.recorded.contentProviders = double.recorded.contentProviders.filter((p) => p.provider !== provider)));
  },
  asRelativePath(p: Uri | string): string {
    const abs = typeof p === 'string' ? p : p.fsPath;
    const folder = double.folders.find((f) => abs.startsWith(f.uri.fsPath + path.sep));
    return folder ? path.relative(folder.uri.fsPath, abs) : abs;
  },
  async openTextDocument(uri: Uri): Promise<TestDocument> {
    const open = double.documents.find((d) => d.uri.toString() === uri.toString());
    if (open) return open;
    const text = uri.scheme === 'file' ? await fs.readFile(uri.fsPath, 'utf8') : String((await double.recorded.contentProviders.find((p) => p.scheme === uri.scheme)?.provider.provideTextDocumentContent(uri)) ?? '');
    const doc = new TestDocument(uri, text);
    double.documents.push(doc);
    return doc;
  },
  /** Applies replaces in reverse order per document, inserted EOLs normalized to the document's (as VS Code does). */
  async applyEdit(edit: WorkspaceEdit): Promise<boolean> {
    if (double.refuseEdits) return false;
    for (const e of [...edit.edits].reverse()) {
      const doc = double.documents.find((d) => d.uri.toString() === e.uri.toString());
      if (!doc) return false;
      const text = doc.getText();
      const eol = doc.eol === EndOfLine.CRLF ? '\r\n' : '\n';
      const insert = e.text.replace(/\r?\n/g, eol);
      doc.replaceAll(text.slice(0, doc.offsetAt(e.range.start)) + insert + text.slice(doc.offsetAt(e.range.end)));
      doc.isDirty = true;
    }
    return true;
  },
  fs: {
    createDirectory: (uri: Uri) => fs.mkdir(uri.fsPath, { recursive: true }),
    writeFile: (uri: Uri, bytes: Uint8Array) => fs.writeFile(uri.fsPath, bytes),
    readFile: async (uri: Uri) => new Uint8Array(await fs.readFile(uri.fsPath)),
  },
};

function message(level: 'info' | 'warning' | 'error') {
  return async (text: string, ...rest: unknown[]) => {
    const items = rest.filter((r) => typeof r === 'string' || (typeof r === 'object' && r !== null && 'title' in r));
    double.recorded.messages.push({ level, text, items });
    return double.nextAnswer(text, items);
  };
}

export const window = {
  get activeTextEditor() {
    return double.activeEditor;
  },
  get visibleTextEditors() {
    return double.visibleEditors;
  },
  get tabGroups() {
    return { all: [{ tabs: double.tabs.map((uri) => ({ input: new TabInputText(uri) })) }] };
  },
  onDidChangeActiveTextEditor: event((e) => e.changeActiveTextEditor),
  onDidChangeVisibleTextEditors: event((e) => e.changeVisibleTextEditors),
  createOutputChannel: (name: string) => outputChannel(name),
  showInformationMessage: message('info'),
  showWarningMessage: message('warning'),
  showErrorMessage: message('error'),
  async showQuickPick(items: unknown[] | Promise<unknown[]>, options?: unknown) {
    const list = await items;
    return double.nextAnswer(String((options as { placeHolder?: string } | undefined)?.placeHolder ?? ''), list);
  },
  async showInputBox(options?: { prompt?: string }) {
    return double.nextAnswer(options?.prompt ?? '', []);
  },
  setStatusBarMessage(text: string): Disposable {
    double.recorded.statusMessages.push(text);
    return new Disposable(() => undefined);
  },
  async showTextDocument(doc: TestDocument) {
    double.recorded.shownDocuments.push(doc);
    return { document: doc, selection: new Selection(0, 0, 0, 0) };
  },
  async withProgress<T>(_o: unknown, task: (p: { report(v: unknown): void }, token: unknown) => Promise<T>): Promise<T> {
    return task({ report: () => undefined }, new CancellationTokenSource().token);
  },
  createTreeView(id: string, options: any) {
    const view = { badge: undefined as unknown, message: undefined as string | undefined, visible: true, dispose: () => undefined, reveal: async () => undefined };
    double.recorded.treeViews.push({ id, options, view });
    return view;
  },
  createStatusBarItem(id?: string) {
    const item = { id, text: '', tooltip: '' as unknown, name: '', command: undefined as unknown, backgroundColor: undefined as unknown, visible: false, show() { item.visible = true; }, hide() { item.visible = false; }, dispose() { item.visible = false; } };
    double.recorded.statusBarItems.push(item);
    return item;
  },
  createTextEditorDecorationType: () => ({ key: 'decoration', dispose: () => undefined }),
  registerWebviewViewProvider(id: string, provider: unknown): Disposable {
    double.recorded.webviewProviders.push({ id, provider });
    return new Disposable(() => (double.recorded.webviewProviders = double.recorded.webviewProviders.filter((p) => p.provider !== provider)));
  },
};

export const commands = {
  registerCommand(id: string, fn: (...args: any[]) => unknown): Disposable {
    if (double.commands.has(id)) throw new Error(`command '${id}' already exists`);
    double.commands.set(id, fn);
    return new Disposable(() => double.commands.delete(id));
  },
  async executeCommand(id: string, ...args: unknown[]): Promise<unknown> {
    double.recorded.executed.push({ command: id, args });
    const fn = double.commands.get(id);
    return fn ? fn(...args) : undefined; // built-ins (setContext, focus) are recorded only
  },
  async getCommands(): Promise<string[]> {
    return [...double.commands.keys()];
  },
};

export const env = {
  get language() {
    return double.language;
  },
  appName: 'Visual Studio Code (double)',
  clipboard: {
    async writeText(text: string) {
      double.recorded.clipboard = text;
    },
    async readText() {
      return double.recorded.clipboard;
    },
  },
};

// ---------------------------------------------------------------- lm, chat (registrations recorded)

export const lm = {
  get registerMcpServerDefinitionProvider() {
    if (double.noMcpApi) return undefined;
    return (id: string, provider: unknown): Disposable => {
      const entry = { id, provider };
      double.recorded.mcpProviders.push(entry);
      return new Disposable(() => (double.recorded.mcpProviders = double.recorded.mcpProviders.filter((p) => p !== entry)));
    };
  },
  selectChatModels: async () => [],
};

export const chat = {
  get createChatParticipant() {
    if (double.noChatApi) return undefined;
    return (id: string, handler: unknown) => {
      const entry = { id, handler, iconPath: undefined as unknown, disposed: false };
      double.recorded.participants.push(entry);
      return {
        id,
        get iconPath() {
          return entry.iconPath;
        },
        set iconPath(v: unknown) {
          entry.iconPath = v;
        },
        dispose: () => void (entry.disposed = true),
      };
    };
  },
};

/** Cursor's extension API (only what double.cursorMcp sets). */
export const cursor = {
  get mcp() {
    return double.cursorMcp;
  },
};

export const extensions = { all: [] as unknown[], getExtension: () => undefined };
