/**
 * Arguments checked without zod (src/mcp/plainArgs.ts): what the plain check accepts, zod accepts too, and returns
 * the same object (keys and their order); what it does not, zod judges. Property-tested on every tool of the table
 * with arguments made of right and wrong values, unknown keys and nested shapes.
 */
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { z } from 'zod';
import { parsePlain, plainShapeOf, plainShapesOf, type PlainShape, type PlainType } from '../../src/mcp/plainArgs';
import { toolTable } from '../../src/mcp/tools/index';
import { createToolCaller } from '../../src/mcp/callPipeline';
import { defineTool } from '../../src/mcp/tools/common';
import type { ServerDeps } from '../../src/mcp/deps';

/** Values of `type`, mostly right ones, at times a near miss (a bound, a wrong type, a missing or extra key). */
function valueOf(type: PlainType, depth = 0): fc.Arbitrary<unknown> {
  const misses: unknown[] = [null, 1.5, -0, '', true, [], {}, 'x', 7];
  let right: fc.Arbitrary<unknown>;
  switch (type.kind) {
    case 'string':
      right = fc.string();
      break;
    case 'boolean':
      right = fc.boolean();
      break;
    case 'int': {
      const bounds = [type.min, type.max].filter((n): n is number => n !== undefined);
      right = fc.oneof(fc.integer({ min: type.min ?? -1e6, max: type.max ?? 1e6 }), fc.constantFrom(...(bounds.length ? bounds : [0])));
      misses.push(...bounds.flatMap((n) => [n - 1, n + 1, n + 0.5]), 2 ** 53, -(2 ** 53), Number.MAX_SAFE_INTEGER);
      break;
    }
    case 'enum':
      right = fc.constantFrom(...type.values);
      misses.push(type.values[0]!.toUpperCase(), ` ${type.values[0]}`);
      break;
    case 'object':
      right = argsOf(type.shape, depth + 1);
      break;
    case 'array':
      right = fc.array(valueOf(type.items, depth + 1), { maxLength: 3 });
      misses.push([null], {});
      break;
  }
  return fc.oneof({ weight: 30, arbitrary: right }, { weight: 1, arbitrary: fc.oneof(fc.constantFrom(...misses), fc.jsonValue()) });
}

function argsOf(shape: PlainShape, depth = 0): fc.Arbitrary<Record<string, unknown>> {
  const entries = Object.entries(shape).map(([k, { type }]) => [k, valueOf(type, depth)] as const);
  const known = fc.record(Object.fromEntries(entries), { requiredKeys: Object.keys(shape).filter((k) => !shape[k]!.optional) });
  return fc.oneof(
    { weight: 5, arbitrary: known },
    { weight: 1, arbitrary: fc.record(Object.fromEntries(entries), { requiredKeys: [] }) },
    { weight: 1, arbitrary: fc.tuple(known, fc.constantFrom('extra', 'preveiw', '__proto__', 'constructor'), fc.jsonValue()).map(([o, k, v]) => JSON.parse(JSON.stringify({ ...o, [k]: v })) as Record<string, unknown>) },
  );
}

describe('mcp plainArgs: arguments checked without zod', () => {
  it('every tool of the table has a plain shape (its first call needs no zod)', () => {
    const shapes = plainShapesOf(toolTable);
    assert.deepEqual(toolTable.filter((t) => !shapes[t.name]).map((t) => t.name), [], 'a tool whose shape holds another kind is checked by zod only');
  });

  for (const tool of toolTable) {
    it(`${tool.name}: what the plain check accepts, zod accepts, with the same result`, () => {
      const shape = plainShapeOf(tool.inputSchema)!;
      const object = z.object(tool.inputSchema);
      const schema = tool.allowUnknownArgs ? object : object.strict();
      let accepted = 0;
      fc.assert(
        fc.property(argsOf(shape), (args) => {
          const plain = parsePlain(shape, args);
          const parsed = schema.safeParse(args);
          if (plain === undefined) return;
          accepted++;
          assert.ok(parsed.success, `zod refuses what the plain check took: ${JSON.stringify(args)}`);
          assert.deepStrictEqual(plain, parsed.data);
          assert.equal(JSON.stringify(plain), JSON.stringify(parsed.data), 'the same keys in the same order');
          assert.notEqual(plain, args, 'a new object, as zod returns');
        }),
        { numRuns: 300 },
      );
      assert.ok(accepted >= 15, `the plain check took only ${accepted} of 300`);
    });
  }

  it('a shape with a kind it does not check has no plain form (zod judges it)', () => {
    const kinds = [
      z.string().min(1),
      z.string().refine((s) => s !== 'x'),
      z.string().transform((s) => s.length),
      z.number(),
      z.number().int().min(0, { message: 'x' }).gt(3),
      z.number().int().refine((n) => n % 2 === 0),
      z.union([z.string(), z.boolean()]),
      z.string().default('a'),
      z.string().nullable(),
      z.looseObject({ a: z.string() }),
      z.strictObject({ a: z.string() }),
      z.array(z.string()).min(1),
      z.record(z.string(), z.string()),
      z.literal('a'),
    ];
    for (const k of kinds) assert.equal(plainShapeOf({ a: k }), undefined, JSON.stringify(k._zod.def.type));
    assert.deepEqual(plainShapeOf({ a: z.number().int().min(2).max(9).optional() }), { a: { type: { kind: 'int', min: 2, max: 9 }, optional: true } });
  });

  it('the call pipeline takes plainly valid arguments past zod and leaves the rest to it, worded as before', async () => {
    let seen: unknown;
    const tool = defineTool({
      name: 'be-probe',
      title: 'Probe',
      description: 'probe',
      inputSchema: () => ({ n: z.number().int().min(1), tag: z.string().optional() }),
      annotations: {},
      handler: async (args) => ((seen = args), { n: args.n }),
    });
    const shapes = { 'be-probe': plainShapeOf(tool.inputSchema)! };
    const caller = createToolCaller({} as ServerDeps, { sessionId: 's', tools: [tool], plainShapes: shapes });
    assert.equal((await caller.call('be-probe', { tag: 't', n: 2 })).isError, undefined);
    assert.deepEqual(seen, { n: 2, tag: 't' });
    const bad = await caller.call('be-probe', { n: 0 });
    assert.equal(bad.isError, true);
    assert.match(JSON.stringify(bad.content), /n: Too small/);
    assert.equal((await caller.call('be-probe', { n: 1, extra: true })).isError, true, 'unknown arguments are refused');
    // a table of other modules under a built-in name is never checked by the built shapes
    const other = createToolCaller({} as ServerDeps, { sessionId: 's', tools: [{ ...tool, name: 'be-read' }] });
    assert.equal((await other.call('be-read', { n: 3 })).isError, undefined);
  });
});
