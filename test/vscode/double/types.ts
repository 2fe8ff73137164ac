/** The value classes and enums of the vscode double (./vscode.ts re-exports them): no state of their own. */
import * as path from 'node:path';

// ---------------------------------------------------------------- basics

export class Disposable {
  private done = false;
  constructor(private readonly fn: () => unknown) {}
  static from(...items: { dispose(): unknown }[]): Disposable {
    return new Disposable(() => items.forEach((d) => d.dispose()));
  }
  dispose(): void {
    if (this.done) return;
    this.done = true;
    this.fn();
  }
}

export type Event<T> = (listener: (e: T) => unknown, thisArg?: unknown, disposables?: Disposable[]) => Disposable;

export class EventEmitter<T> {
  private listeners: ((e: T) => unknown)[] = [];
  readonly event: Event<T> = (listener, thisArg, disposables) => {
    const bound = thisArg ? listener.bind(thisArg) : listener;
    this.listeners.push(bound);
    const d = new Disposable(() => (this.listeners = this.listeners.filter((l) => l !== bound)));
    disposables?.push(d);
    return d;
  };
  fire(e: T): void {
    for (const l of [...this.listeners]) l(e);
  }
  get listenerCount(): number {
    return this.listeners.length;
  }
  dispose(): void {
    this.listeners = [];
  }
}

export class CancellationTokenSource {
  private readonly emitter = new EventEmitter<void>();
  readonly token = { isCancellationRequested: false, onCancellationRequested: this.emitter.event };
  cancel(): void {
    if (this.token.isCancellationRequested) return;
    this.token.isCancellationRequested = true;
    this.emitter.fire();
  }
  dispose(): void {
    this.emitter.dispose();
  }
}

export class Uri {
  private constructor(
    readonly scheme: string,
    readonly authority: string,
    readonly path: string,
    readonly query: string,
    readonly fragment: string,
  ) {}
  static file(p: string): Uri {
    return new Uri('file', '', path.resolve(p), '', '');
  }
  static parse(value: string): Uri {
    const u = new URL(value);
    return new Uri(u.protocol.replace(/:$/, ''), u.host, decodeURIComponent(u.pathname), u.search.replace(/^\?/, ''), u.hash.replace(/^#/, ''));
  }
  static from(c: { scheme: string; authority?: string; path?: string; query?: string; fragment?: string }): Uri {
    return new Uri(c.scheme, c.authority ?? '', c.path ?? '', c.query ?? '', c.fragment ?? '');
  }
  static joinPath(base: Uri, ...parts: string[]): Uri {
    return new Uri(base.scheme, base.authority, path.posix.join(base.path, ...parts), base.query, base.fragment);
  }
  get fsPath(): string {
    return this.path;
  }
  with(c: { scheme?: string; path?: string; query?: string; fragment?: string }): Uri {
    return new Uri(c.scheme ?? this.scheme, this.authority, c.path ?? this.path, c.query ?? this.query, c.fragment ?? this.fragment);
  }
  toString(): string {
    return `${this.scheme}://${this.authority}${this.path}${this.query ? `?${this.query}` : ''}${this.fragment ? `#${this.fragment}` : ''}`;
  }
}

export class Position {
  constructor(
    readonly line: number,
    readonly character: number,
  ) {}
}

export class Range {
  readonly start: Position;
  readonly end: Position;
  constructor(a: Position | number, b: Position | number, c?: number, d?: number) {
    if (typeof a === 'number') {
      this.start = new Position(a, b as number);
      this.end = new Position(c!, d!);
    } else {
      this.start = a;
      this.end = b as Position;
    }
  }
}

export class Selection extends Range {
  get active(): Position {
    return this.end;
  }
}

export class Location {
  constructor(
    readonly uri: Uri,
    readonly range: Range,
  ) {}
}

export enum EndOfLine {
  LF = 1,
  CRLF = 2,
}
export enum StatusBarAlignment {
  Left = 1,
  Right = 2,
}
export enum TreeItemCollapsibleState {
  None = 0,
  Collapsed = 1,
  Expanded = 2,
}
export enum OverviewRulerLane {
  Left = 1,
  Center = 2,
  Right = 4,
  Full = 7,
}
export enum ProgressLocation {
  SourceControl = 1,
  Window = 10,
  Notification = 15,
}
export enum TextEditorRevealType {
  Default = 0,
  InCenter = 1,
}
export enum LanguageModelChatToolMode {
  Auto = 1,
  Required = 2,
}
export enum SymbolKind {
  File, Module, Namespace, Package, Class, Method, Property, Field, Constructor, Enum, Interface, Function, Variable,
  Constant, String, Number, Boolean, Array, Object, Key, Null, EnumMember, Struct, Event, Operator, TypeParameter,
}

export class ThemeIcon {
  constructor(
    readonly id: string,
    readonly color?: ThemeColor,
  ) {}
}
export class ThemeColor {
  constructor(readonly id: string) {}
}
export class MarkdownString {
  value: string;
  constructor(value = '', readonly supportThemeIcons = false) {
    this.value = value;
  }
  appendMarkdown(v: string): this {
    this.value += v;
    return this;
  }
  appendText(v: string): this {
    this.value += v;
    return this;
  }
  appendCodeblock(code: string, lang = ''): this {
    this.value += `\n\`\`\`${lang}\n${code}\n\`\`\`\n`;
    return this;
  }
}
export class TreeItem {
  id?: string;
  description?: string;
  tooltip?: unknown;
  iconPath?: unknown;
  contextValue?: string;
  command?: unknown;
  constructor(
    public label: string,
    public collapsibleState: TreeItemCollapsibleState = TreeItemCollapsibleState.None,
  ) {}
}
export class TabInputText {
  constructor(readonly uri: Uri) {}
}

// ---------------------------------------------------------------- language models, chat, MCP

export class LanguageModelTextPart {
  constructor(readonly value: string) {}
}
export class LanguageModelToolCallPart {
  constructor(
    readonly callId: string,
    readonly name: string,
    readonly input: object,
  ) {}
}
export class LanguageModelToolResultPart {
  constructor(
    readonly callId: string,
    readonly content: unknown[],
  ) {}
}
export class LanguageModelChatMessage {
  constructor(
    readonly role: 'user' | 'assistant',
    readonly content: unknown[],
  ) {}
  static User(content: unknown[] | string) {
    return new LanguageModelChatMessage('user', typeof content === 'string' ? [new LanguageModelTextPart(content)] : content);
  }
  static Assistant(content: unknown[] | string) {
    return new LanguageModelChatMessage('assistant', typeof content === 'string' ? [new LanguageModelTextPart(content)] : content);
  }
}
export class ChatRequestTurn {
  constructor(
    readonly prompt: string,
    readonly command: string | undefined,
    readonly references: unknown[],
    readonly participant: string,
  ) {}
}
export class ChatResponseTurn {
  constructor(
    readonly response: unknown[],
    readonly result: { metadata?: unknown },
    readonly participant: string,
    readonly command?: string,
  ) {}
}
export class McpHttpServerDefinition {
  constructor(
    public label: string,
    public uri: Uri,
    public headers: Record<string, string> = {},
    public version?: string,
  ) {}
}
