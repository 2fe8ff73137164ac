/**
 * The tools' zod shapes are built at a tool's first use, not when the tool modules load: tools/list answers from
 * the prebuilt JSON schemas (builtSchemas.ts), and building them all at every bundle evaluation cost a start ~10 ms.
 * The shapes built late validate as before: the listing computed from them matches the JSON schemas built into
 * the bundle (catalog and protocol tests), and the call tests run through them.
 */
import assert from 'node:assert/strict';
import { z } from 'zod';
import { defineTool } from '../../src/mcp/tools/common';
import { toolTable } from '../../src/mcp/tools/index';
import { listedSchemasOf } from '../../src/mcp/listing';
import { createToolCaller } from '../../src/mcp/callPipeline';
import type { ServerDeps } from '../../src/mcp/deps';

describe('mcp tools: zod shapes built at first use', () => {
  it('defineTool builds a shape at its first read, once, and not before', async () => {
    let inputs = 0;
    let outputs = 0;
    const tool = defineTool({
      name: 'be-probe',
      title: 'Probe',
      description: 'probe',
      inputSchema: () => (inputs++, { n: z.number().int().min(1) }),
      outputSchema: () => (outputs++, { n: z.number() }),
      annotations: {},
      handler: async (args) => ({ n: args.n }),
    });
    assert.equal(inputs + outputs, 0, 'nothing built when the module is defined');
    assert.equal(tool.inputSchema, tool.inputSchema);
    assert.equal(tool.outputSchema, tool.outputSchema);
    assert.deepEqual([inputs, outputs], [1, 1]);
    assert.deepEqual({ ...tool }.inputSchema, tool.inputSchema, 'a copy of the module carries the same shape');

    // and it validates through the call pipeline as a shape written eagerly would
    const caller = createToolCaller({} as ServerDeps, { sessionId: 's', tools: [tool] });
    assert.equal((await caller.call('be-probe', { n: 2 })).isError, undefined);
    const bad = await caller.call('be-probe', { n: 0 });
    assert.equal(bad.isError, true);
    assert.match(JSON.stringify(bad.content), /n: Too small/);
    assert.equal((await caller.call('be-probe', { n: 1, extra: true })).isError, true, 'unknown arguments are refused');
    assert.equal(inputs, 1);
  });

  it('loading the tool table builds no tool shape: each is built when first read', () => {
    for (const t of toolTable) {
      for (const key of ['inputSchema', 'outputSchema'] as const) {
        const d = Object.getOwnPropertyDescriptor(t, key);
        if (key === 'outputSchema' && d === undefined) continue;
        assert.ok(d?.get, `${t.name}.${key} is built on first use, not at module load`);
        assert.equal(d.enumerable, true);
      }
    }
    // the listing computed from the late shapes: every tool, with its listed arguments
    const listed = listedSchemasOf(toolTable);
    assert.deepEqual(Object.keys(listed), toolTable.map((t) => t.name));
    assert.ok((listed['be-replace'].input.properties as Record<string, unknown>).file);
  });
});

describe('mcp tools: warming the schemas at an idle moment', () => {
  it('warm() builds each named tool\'s shape and parses its example, running no handler and telling no observer', async () => {
    let inputs = 0;
    let handled = 0;
    const heard: string[] = [];
    const probe = (name: string) =>
      defineTool({
        name,
        title: name,
        description: name,
        example: { n: 1 },
        inputSchema: () => (inputs++, { n: z.number().int().min(1) }),
        annotations: {},
        handler: async (args) => (handled++, { n: args.n }),
      });
    const observer = { onToolCall: () => void heard.push('call'), onToolResult: () => void heard.push('result') };
    const caller = createToolCaller({} as ServerDeps, { sessionId: 's', tools: [probe('be-a'), probe('be-b')], observers: [observer] });
    caller.warm(['be-a', 'be-unknown']);
    assert.deepEqual([inputs, handled, heard], [1, 0, []], 'only be-a built; nothing ran, nothing heard');
    caller.warm();
    assert.equal(inputs, 2, 'all tools: be-b built now, be-a not again');
    // the warmed shape is the one calls use (built once), and it still refuses a bad argument
    assert.equal((await caller.call('be-a', { n: 0 })).isError, true);
    assert.equal(inputs, 2);
  });

  it('every tool of the table has an example its own schema accepts, so warm() exercises each parser', () => {
    for (const t of toolTable) {
      assert.ok(t.example, `${t.name} has an example`);
      const parsed = z.object(t.inputSchema).strict().safeParse(t.example);
      assert.ok(parsed.success, `${t.name}'s example parses: ${parsed.success ? '' : parsed.error.message}`);
    }
  });
});
