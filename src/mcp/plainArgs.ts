/**
 * A tool's arguments checked without zod when they are plainly valid. Evaluating zod and building a tool's first
 * object schema cost the stdio CLI ~7-8 ms before its first answer, for arguments that are nearly always a few strings,
 * booleans and integers. At build time (esbuild.mjs, builtSchemas.ts) each tool's zod shape is written down as a
 * PlainShape when it holds only the kinds below; at a call, arguments that pass it are taken as zod would return them
 * (the same keys, in the shape's order). Anything else (a missing or unknown key, a wrong type, a bound not met, a
 * tool whose shape holds another kind) returns undefined: zod then judges, and words the error, as before.
 * Nothing here imports zod: the shapes are read from the schemas' own definitions.
 */

export type PlainType =
  | { kind: 'string' }
  | { kind: 'boolean' }
  | { kind: 'int'; min?: number; max?: number }
  | { kind: 'enum'; values: string[] }
  | { kind: 'object'; shape: PlainShape }
  | { kind: 'array'; items: PlainType };

/** The keys of an object schema with their types; `optional`: the key may be absent. */
export type PlainShape = Record<string, { type: PlainType; optional: boolean }>;

/** What a zod v4 schema exposes of its definition (`schema._zod.def`). */
interface ZodDef {
  type: string;
  innerType?: unknown;
  shape?: Record<string, unknown>;
  catchall?: unknown;
  element?: unknown;
  entries?: Record<string, unknown>;
  checks?: { _zod: { def: { check: string; format?: string; value?: unknown; inclusive?: boolean } } }[];
}

function defOf(schema: unknown): ZodDef | undefined {
  return (schema as { _zod?: { def?: ZodDef } } | undefined)?._zod?.def;
}

/** The plain form of a tool's zod shape, or undefined when it holds a kind this module does not check. */
export function plainShapeOf(shape: Record<string, unknown>): PlainShape | undefined {
  const out: PlainShape = {};
  for (const [key, schema] of Object.entries(shape)) {
    let def = defOf(schema);
    const optional = def?.type === 'optional';
    if (optional) def = defOf(def!.innerType);
    const type = def && plainTypeOf(def);
    if (!type) return undefined;
    out[key] = { type, optional };
  }
  return out;
}

function plainTypeOf(def: ZodDef): PlainType | undefined {
  const checks = def.checks ?? [];
  switch (def.type) {
    case 'string':
    case 'boolean':
      return checks.length === 0 ? { kind: def.type } : undefined;
    case 'number': {
      // only integers: z.number().int() (a safe integer), with inclusive bounds
      if (!checks.some((c) => c._zod.def.check === 'number_format' && c._zod.def.format === 'safeint')) return undefined;
      const int: { kind: 'int'; min?: number; max?: number } = { kind: 'int' };
      for (const { _zod: { def: c } } of checks) {
        if (c.check === 'number_format' && c.format === 'safeint') continue;
        if (typeof c.value !== 'number' || c.inclusive !== true) return undefined;
        if (c.check === 'greater_than') int.min = Math.max(int.min ?? -Infinity, c.value);
        else if (c.check === 'less_than') int.max = Math.min(int.max ?? Infinity, c.value);
        else return undefined;
      }
      return int;
    }
    case 'enum': {
      const values = Object.values(def.entries ?? {});
      return checks.length === 0 && values.every((v) => typeof v === 'string') ? { kind: 'enum', values: values as string[] } : undefined;
    }
    case 'object': {
      // a catch-all (loose or strict object) is zod's to judge
      if (checks.length || def.catchall !== undefined || !def.shape) return undefined;
      const shape = plainShapeOf(def.shape);
      return shape && { kind: 'object', shape };
    }
    case 'array': {
      const element = defOf(def.element);
      const items = checks.length === 0 && element ? plainTypeOf(element) : undefined;
      return items && { kind: 'array', items };
    }
    default:
      return undefined;
  }
}

/**
 * `args` as zod's parse of an object of `shape` returns them (a new object, keys in the shape's order), when every
 * key is known and every value plainly of its type; undefined otherwise, zod then judges (an unknown key too: a
 * strict object refuses it, another strips it).
 */
export function parsePlain(shape: PlainShape, args: Record<string, unknown>): Record<string, unknown> | undefined {
  return parseObject(shape, args);
}

/** The plain shapes of `tools` by name, for those whose shape has one (esbuild.mjs builds them into the bundles). */
export function plainShapesOf(tools: readonly { name: string; inputSchema: Record<string, unknown> }[]): Record<string, PlainShape> {
  const out: Record<string, PlainShape> = {};
  for (const t of tools) {
    const shape = plainShapeOf(t.inputSchema);
    if (shape) out[t.name] = shape;
  }
  return out;
}

function parseObject(shape: PlainShape, value: unknown): Record<string, unknown> | undefined {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return undefined;
  const input = value as Record<string, unknown>;
  for (const key in input) {
    // an unknown or inherited key: zod's (a strict object refuses it, another strips it)
    if (!Object.prototype.hasOwnProperty.call(input, key) || !Object.prototype.hasOwnProperty.call(shape, key)) return undefined;
  }
  const out: Record<string, unknown> = {};
  for (const key of Object.keys(shape)) {
    const { type, optional } = shape[key]!;
    if (!Object.prototype.hasOwnProperty.call(input, key)) {
      if (!optional) return undefined;
      continue;
    }
    const v = parseValue(type, input[key]);
    if (v === undefined) return undefined;
    out[key] = v;
  }
  return out;
}

function parseValue(type: PlainType, v: unknown): unknown {
  switch (type.kind) {
    case 'string':
      return typeof v === 'string' ? v : undefined;
    case 'boolean':
      return typeof v === 'boolean' ? v : undefined;
    case 'int':
      return typeof v === 'number' && Number.isSafeInteger(v) && (type.min === undefined || v >= type.min) && (type.max === undefined || v <= type.max) ? v : undefined;
    case 'enum':
      return typeof v === 'string' && type.values.includes(v) ? v : undefined;
    case 'object':
      return parseObject(type.shape, v);
    case 'array': {
      if (!Array.isArray(v)) return undefined;
      const out: unknown[] = [];
      for (let i = 0; i < v.length; i++) {
        if (!(i in v)) return undefined; // a hole: zod's
        const item = parseValue(type.items, v[i]);
        if (item === undefined) return undefined;
        out.push(item);
      }
      return out;
    }
  }
}
