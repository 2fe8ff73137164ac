import assert from 'node:assert/strict';
import { compactSignature, renderStructureText } from '../../../src/core/context/render';
import type { FileStructure } from '../../../src/core/context/types';

describe('context/render: compact outline lines', () => {
  it('drops visibility modifiers, parameter defaults and initializers after a declared type', () => {
    assert.equal(
      compactSignature("constructor( readonly id: string, private readonly currency: CurrencyCode = 'EUR', createdAt: Date = new Date(), )"),
      'constructor(id: string, currency?: CurrencyCode, createdAt?: Date)',
    );
    assert.equal(compactSignature('breakdown(order: Order, codes: string[] = []): PriceBreakdown'), 'breakdown(order: Order, codes?: string[]): PriceBreakdown');
    assert.equal(compactSignature('private transition(to: OrderStatus, reason?: string): void'), 'transition(to: OrderStatus, reason?: string): void');
    assert.equal(compactSignature("const ALLOWED: Record<OrderStatus, OrderStatus[]> = { draft: ['placed', 'ca…"), 'const ALLOWED: Record<OrderStatus, OrderStatus[]>');
    assert.equal(compactSignature('function f(y: A<B, C> = new Map(), cb: (x: number) => void): void'), 'f(y?: A<B, C>, cb: (x: number) => void): void');
  });

  it('keeps what carries meaning: static, async without a Promise type, readonly in types, Python defaults as optional', () => {
    assert.equal(compactSignature('static async fromJSON(data: Record<string, unknown>): Promise<Order>'), 'static fromJSON(data: Record<string, unknown>): Promise<Order>');
    assert.equal(compactSignature('async run(): void'), 'async run(): void');
    assert.equal(compactSignature('getLines(): readonly OrderLine[]'), 'getLines(): readonly OrderLine[]');
    assert.equal(compactSignature('def f(a, b=2, *c, d: int = 3) -> int'), 'f(a, b?, *c, d?: int) -> int');
    assert.equal(compactSignature('f(a: T'), 'f(a: T'); // unbalanced: as written
  });

  it('drops the keyword that says "function": def, func (a Go method keeps its receiver type), function, const f = (…) =>', () => {
    assert.equal(compactSignature('func (c *Command) SetContext(ctx context.Context)'), '(*Command) SetContext(ctx context.Context)');
    assert.equal(compactSignature('func Map[K comparable, V any](m map[K]V) []K'), 'Map[K comparable, V any](m map[K]V) []K');
    assert.equal(compactSignature('async def aread(self) -> bytes'), 'async aread() -> bytes');
    assert.equal(compactSignature('def close(self) -> None'), 'close()');
    assert.equal(compactSignature('def __repr__(self) -> str'), '__repr__', 'a data-model method the protocol fixes');
    assert.equal(compactSignature('def __init__(self, x: int | None = None) -> None'), '__init__(x?: int)');
    assert.equal(compactSignature('const double = (x: number): number =>'), 'double(x: number): number');
    assert.equal(compactSignature('export const cors = (options?: CORSOptions): MiddlewareHandler => {'), 'cors(options?: CORSOptions): MiddlewareHandler');
    assert.equal(compactSignature('#cachedBody = (key: keyof Body) =>'), '#cachedBody(key: keyof Body)');
    assert.equal(compactSignature('async function* gen(x)'), 'async *gen(x)');
    assert.equal(compactSignature('const x = (a) + (b) =>'), 'const x = (a) + (b) =>', 'not a parameter list: as written');
  });

  it('cuts the value of a constant, not a function held in one, and strips no defaults from a call', () => {
    assert.equal(compactSignature('FRAG_SAFE = "".join([chr(i) for i in range(0x20, 0x7F) if i not in (0x20, 0x22)])'), 'FRAG_SAFE = "".join([chr(i) for i in range(…');
    assert.equal(compactSignature('DEFAULT_LIMITS = Limits(max_connections=100)'), 'DEFAULT_LIMITS = Limits(max_connections=100)');
    assert.equal(compactSignature('const MAX = 5'), 'const MAX = 5');
    assert.equal(compactSignature('f = lambda x: x + 1'), 'f = lambda x: x + 1');
  });

  it('cuts long signatures and doc lines to one short line, the line range first', () => {
    const long = `function g(${Array.from({ length: 20 }, (_, i) => `p${i}: number`).join(', ')}): void`;
    const s: FileStructure = {
      path: 'a.ts', languageId: 'typescript', source: 'tree-sitter', lines: 50, tokens: 400, imports: [], notes: [],
      symbols: [{ kind: 'function', name: 'g', signature: long, start: 10, end: 42, doc: 'x'.repeat(200) }],
    };
    const line = renderStructureText(s, { header: false });
    assert.match(line, /^10-42 g\(p0: number, .{60,}… — x{39}…$/);
    assert.ok(line.length < 180, line);
    assert.match(renderStructureText(s), /^a\.ts · typescript · 50 lines · 400 tokens\n/);
  });
});
