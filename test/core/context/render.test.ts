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
    assert.equal(compactSignature('function f(y: A<B, C> = new Map(), cb: (x: number) => void): void'), 'function f(y?: A<B, C>, cb: (x: number) => void): void');
  });

  it('keeps what carries meaning: static, async without a Promise type, readonly in types, arrow functions, Python defaults as optional', () => {
    assert.equal(compactSignature('static async fromJSON(data: Record<string, unknown>): Promise<Order>'), 'static fromJSON(data: Record<string, unknown>): Promise<Order>');
    assert.equal(compactSignature('async run(): void'), 'async run(): void');
    assert.equal(compactSignature('getLines(): readonly OrderLine[]'), 'getLines(): readonly OrderLine[]');
    assert.equal(compactSignature('const double = (x: number): number =>'), 'const double = (x: number): number =>');
    assert.equal(compactSignature('def f(a, b=2, *c, d: int = 3) -> int'), 'def f(a, b?, *c, d?: int) -> int');
    assert.equal(compactSignature('f(a: T'), 'f(a: T'); // unbalanced: as written
  });

  it('cuts long signatures and doc lines to one short line, keeping the @L range', () => {
    const long = `function g(${Array.from({ length: 20 }, (_, i) => `p${i}: number`).join(', ')}): void`;
    const s: FileStructure = {
      path: 'a.ts', languageId: 'typescript', source: 'tree-sitter', lines: 50, tokens: 400, imports: [], notes: [],
      symbols: [{ kind: 'function', name: 'g', signature: long, start: 10, end: 42, doc: 'x'.repeat(200) }],
    };
    const line = renderStructureText(s, { header: false });
    assert.match(line, /^function g\(p0: number, .{60,}… @L10-42 — x{47}…$/);
    assert.ok(line.length < 180, line);
    assert.match(renderStructureText(s), /^a\.ts · typescript · 50 lines · 400 tokens\n/);
  });
});
