/**
 * Generated inputs for the scale figures (bench/context/scale.ts) and the event-loop reliability test: a C file of
 * a given size, a folder of realistic TypeScript of a given line count (this repository's src/ and the fixture,
 * copied until the count is reached), and a folder of many small files.
 */
import { mkdirSync, mkdtempSync, readFileSync, readdirSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';

const REPO = join(__dirname, '../..');
const FIXTURE = join(__dirname, '../fixtures/order-service');

/** One C translation unit's worth of code: structs, an enum, macros, functions with loops and switches. */
function cChunk(i: number): string {
  return `/*
 * Module ${i}: buffers and the records kept in them.
 * The functions below are what a real C file holds: loops, switches, error paths.
 */
#define BUF_${i}_MAX (4096 * ${(i % 7) + 1})
#define BUF_${i}_OK(b) ((b) != NULL && (b)->len <= BUF_${i}_MAX)

enum state_${i} { S${i}_IDLE, S${i}_READING, S${i}_WRITING, S${i}_DONE };

struct record_${i} {
  unsigned long id;
  char name[64];
  double weight;
  struct record_${i} *next;
};

typedef struct {
  struct record_${i} *head;
  size_t len;
  enum state_${i} state;
} buffer_${i}_t;

static int record_${i}_compare(const struct record_${i} *a, const struct record_${i} *b) {
  if (a->id < b->id) return -1;
  if (a->id > b->id) return 1;
  return strcmp(a->name, b->name);
}

int buffer_${i}_push(buffer_${i}_t *buf, unsigned long id, const char *name, double weight) {
  struct record_${i} *r;
  if (!BUF_${i}_OK(buf)) return -EINVAL;
  r = malloc(sizeof *r);
  if (r == NULL) return -ENOMEM;
  r->id = id;
  strncpy(r->name, name, sizeof r->name - 1);
  r->name[sizeof r->name - 1] = '\\0';
  r->weight = weight * ${(i % 5) + 1}.5;
  r->next = buf->head;
  buf->head = r;
  buf->len++;
  return 0;
}

size_t buffer_${i}_drain(buffer_${i}_t *buf, double *total) {
  size_t n = 0;
  struct record_${i} *r = buf->head, *next;
  *total = 0;
  while (r != NULL) {
    next = r->next;
    switch (buf->state) {
    case S${i}_IDLE:
    case S${i}_READING:
      *total += r->weight;
      break;
    case S${i}_WRITING:
      *total -= r->weight / 2;
      break;
    default:
      break;
    }
    free(r);
    r = next;
    n++;
  }
  buf->head = NULL;
  buf->len = 0;
  buf->state = S${i}_DONE;
  return n;
}

`;
}

/** A C file of about `bytes` bytes (never more), starting with its includes. */
export function cSource(bytes: number): string {
  const parts: string[] = ['#include <errno.h>\n#include <stdlib.h>\n#include <string.h>\n\n'];
  let size = parts[0]!.length;
  for (let i = 0; ; i++) {
    const c = cChunk(i);
    if (size + c.length > bytes) break;
    parts.push(c);
    size += c.length;
  }
  return parts.join('');
}

/**
 * A TypeScript data module of about `bytes` bytes (never more): an interface, one exported table of records as a
 * formatter writes it (generated tables, fixtures, JSON kept as code), and a function that reads it.
 */
export function dataSource(bytes: number): string {
  const head = `/** Generated: do not edit. */\nexport interface Item {\n  id: number;\n  name: string;\n  tags: string[];\n  price: number;\n}\n\nexport const items: Item[] = [\n`;
  const tail = `];\n\nexport function itemById(id: number): Item | undefined {\n  return items.find((item) => item.id === id);\n}\n`;
  const rows: string[] = [];
  let size = head.length + tail.length;
  for (let i = 0; ; i++) {
    const row = `  {\n    "id": ${i},\n    "name": "item ${i} of the catalogue",\n    "tags": ["t${i % 7}", "t${i % 13}"],\n    "price": ${(i * 0.37).toFixed(2)}\n  },\n`;
    if (size + row.length > bytes) break;
    rows.push(row);
    size += row.length;
  }
  return head + rows.join('') + tail;
}

/** A Go file of about `bytes` bytes (never more), as gofmt writes it: types with documented methods. */
export function goSource(bytes: number): string {
  const head = 'package big\n\nimport (\n\t"fmt"\n\t"strings"\n)\n\n';
  const parts = [head];
  let size = head.length;
  for (let i = 0; ; i++) {
    const c =
      `// Item${i} describes thing ${i}.\ntype Item${i} struct {\n\tID   int\n\tName string\n}\n\n` +
      `// Describe${i} returns a text.\nfunc (it *Item${i}) Describe${i}(prefix string) string {\n\tif it.ID > ${i} {\n\t\treturn fmt.Sprintf("%s-%d", prefix, it.ID)\n\t}\n` +
      `\tparts := []string{prefix, it.Name}\n\tfor k := 0; k < 3; k++ {\n\t\tparts = append(parts, strings.Repeat("x", k))\n\t}\n\treturn strings.Join(parts, ",")\n}\n\n`;
    if (size + c.length > bytes) break;
    parts.push(c);
    size += c.length;
  }
  return parts.join('');
}

/** A Rust file of about `bytes` bytes (never more), as rustfmt writes it: structs with documented impl blocks. */
export function rustSource(bytes: number): string {
  const head = 'use std::fmt;\n\n';
  const parts = [head];
  let size = head.length;
  for (let i = 0; ; i++) {
    const c =
      `/// Item${i} describes thing ${i}.\npub struct Item${i} {\n    pub id: u32,\n    pub name: String,\n}\n\n` +
      `impl Item${i} {\n    /// Describe returns a text.\n    pub fn describe(&self, prefix: &str) -> String {\n        if self.id > ${i} {\n            return format!("{}-{}", prefix, self.id);\n        }\n` +
      `        let mut parts = vec![prefix.to_string(), self.name.clone()];\n        for k in 0..3 {\n            parts.push("x".repeat(k));\n        }\n        parts.join(",")\n    }\n}\n\n`;
    if (size + c.length > bytes) break;
    parts.push(c);
    size += c.length;
  }
  return parts.join('');
}

/**
 * A Java file of about `bytes` bytes (never more), as generated code looks (one outer class, nested message classes
 * with fields, a constructor, documented methods that throw, a builder): everything inside one top-level class.
 */
export function javaSource(bytes: number): string {
  const head = 'package big;\n\nimport java.io.IOException;\nimport java.util.ArrayList;\nimport java.util.List;\n\npublic final class Big {\n  private Big() {}\n\n';
  const tail = '}\n';
  const parts = [head];
  let size = head.length + tail.length;
  for (let i = 0; ; i++) {
    const c =
      `  /** Item${i} describes thing ${i}. */\n  public static final class Item${i} {\n    private final int id;\n    private final List<String> tags = new ArrayList<>();\n\n` +
      `    public Item${i}(int id) {\n      this.id = id;\n    }\n\n` +
      `    /** Describes item ${i}. */\n    public String describe(String prefix) throws IOException {\n      if (id > ${i}) {\n        return prefix + "-" + id;\n      }\n` +
      `      List<String> parts = new ArrayList<>();\n      for (int k = 0; k < 3; k++) {\n        parts.add("x".repeat(k));\n      }\n      return String.join(",", parts);\n    }\n  }\n\n`;
    if (size + c.length > bytes) break;
    parts.push(c);
    size += c.length;
  }
  return parts.join('') + tail;
}

/** Replicate realistic TypeScript (this repository's src/ and the fixture) under a new temp folder until `targetLines`. */
export function generateFolder(targetLines: number): { root: string; lines: number; files: number } {
  const root = mkdtempSync(join(tmpdir(), 'bench-ctx-big-'));
  const sources: { rel: string; text: string; lines: number }[] = [];
  const collect = (dir: string, base: string) => {
    for (const e of readdirSync(dir, { withFileTypes: true })) {
      const p = join(dir, e.name);
      if (e.isDirectory()) collect(p, base);
      else if (/\.ts$/.test(e.name)) {
        const text = readFileSync(p, 'utf8');
        sources.push({ rel: relative(base, p), text, lines: text.split('\n').length });
      }
    }
  };
  collect(join(REPO, 'src'), REPO);
  collect(FIXTURE, FIXTURE);
  sources.sort((a, b) => (a.rel < b.rel ? -1 : 1));
  let lines = 0;
  let files = 0;
  for (let copy = 0; lines < targetLines; copy++) {
    for (const s of sources) {
      if (lines >= targetLines) break;
      const dest = join(root, `pkg${copy}`, s.rel);
      mkdirSync(join(dest, '..'), { recursive: true });
      writeFileSync(dest, s.text);
      lines += s.lines;
      files++;
    }
  }
  return { root, lines, files };
}

/**
 * `count` small source files (about 12 lines each, 100 to a folder) that define and use each other's names, so the
 * graph has edges: what a monorepo of generated code or a vendored tree looks like to the walk.
 */
export function generateManyFiles(count: number): { root: string; lines: number; files: number } {
  const root = mkdtempSync(join(tmpdir(), 'bench-ctx-many-'));
  let lines = 0;
  for (let i = 0; i < count; i++) {
    const dir = join(root, `d${Math.floor(i / 10_000)}`, `s${Math.floor(i / 100) % 100}`);
    if (i % 100 === 0) mkdirSync(dir, { recursive: true });
    const uses = `helper${(i * 7919) % count}`;
    const text =
      `// Part ${i} of the generated tree.\n` +
      `import { ${uses} } from './lib';\n\n` +
      `export function helper${i}(value: number): number {\n` +
      `  const scaled = ${uses}(value) * ${(i % 9) + 1};\n` +
      `  return scaled + ${i};\n}\n\n` +
      `export class Widget${i} {\n` +
      `  constructor(readonly size = helper${i}(1)) {}\n}\n`;
    writeFileSync(join(dir, `f${i}.ts`), text);
    lines += 12;
  }
  return { root, lines, files: count };
}
