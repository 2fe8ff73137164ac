/**
 * What the outline extraction (src/core/context/extract.ts) finds, pinned in every language where the outline
 * nests: members of classes, namespaces, modules and impls, decorators that start a member's range, and doc
 * comments found among a declaration's previous siblings (read from the child list the walk holds, not asked of
 * the tree). The worker and the in-thread parse share this code, so outlinePool.test.ts cannot catch a change
 * here: these expected rows were taken from the extraction before it read siblings from the child list.
 */
import { strict as assert } from 'node:assert';
import { packagedGrammars, TreeSitterParsers } from '../../../src/core/context/node/treeSitter';
import { treeSitterOutline } from '../../../src/core/context/treeOutline';
import type { OutlineSymbol } from '../../../src/core/context/types';

/** One row per symbol: kind, name, line range, "doc", exported; members indented under their container. */
function rows(symbols: OutlineSymbol[], depth = 0): string[] {
  return symbols.flatMap((s) => [
    `${'  '.repeat(depth)}${s.kind} ${s.name} ${s.start}-${s.end}${s.doc ? ` "${s.doc}"` : ''}${s.exported ? ' exported' : ''}`,
    ...rows(s.children ?? [], depth + 1),
  ]);
}

const CASES: { file: string; languageId: string; text: string; rows: string[] }[] = [
  {
    file: 'A.java',
    languageId: 'java',
    text: `package p;

/** Outer type. */
public class A {
  /** Nested type. */
  static class B {
    /** Runs. */
    @Override
    public void run() {}
  }

  // Plain comment.
  int size() { return 0; }
}
`,
    rows: [
      "class A 4-14 \"Outer type.\"",
      "  class B 6-10 \"Nested type.\"",
      "    method run 8-9 \"Runs.\"",
      "  method size 13-13 \"Plain comment.\"",
    ],
  },
  {
    file: 'a.c',
    languageId: 'c',
    text: `#include <stdio.h>

/*
 * A record.
 */
struct record {
  int id;
};

/* Makes a record. */
/* Second line. */
static int make(struct record *r) {
  return r->id;
}

// Declared here.
int later(void);
`,
    rows: [
      "struct record 6-8 \"A record.\"",
      "function make 12-14 \"Makes a record.\"",
      "function later 17-17 \"Declared here.\"",
    ],
  },
  {
    file: 'a.cpp',
    languageId: 'cpp',
    text: `namespace ns {
/// A widget.
class Widget {
 public:
  /// Draws it.
  void draw();
  class Part {
    int size();
  };
};
}  // namespace ns
`,
    rows: [
      "module ns 1-11",
      "  class Widget 3-10 \"A widget.\"",
      "    method draw 6-6 \"Draws it.\"",
    ],
  },
  {
    file: 'a.cs',
    languageId: 'csharp',
    text: `namespace N
{
    /// <summary>A thing.</summary>
    public class Thing
    {
        /// <summary>Makes it.</summary>
        [Obsolete]
        public void Make() { }

        public class Part
        {
            public int Size() { return 1; }
        }
    }
}
`,
    rows: [
      "module N 1-15",
      "  class Thing 4-14 \"A thing.\"",
      "    method Make 7-8 \"Makes it.\"",
      "    class Part 10-13",
      "      method Size 12-12",
    ],
  },
  {
    file: 'a.go',
    languageId: 'go',
    text: `package main

// Point is a point.
type Point struct {
	X int
}

type (
	// Name is a name.
	Name string
)

// Norm returns the norm.
func (p Point) Norm() int { return p.X }
`,
    rows: [
      "struct Point 4-6 \"Point is a point.\"",
      "type Name 10-10 \"Name is a name.\"",
      "method (Point).Norm 14-14 \"Norm returns the norm.\"",
    ],
  },
  {
    file: 'a.py',
    languageId: 'python',
    text: `import os


class Outer:
    """The outer class."""

    # A nested class.
    class Inner:
        def method(self):
            """Does a thing."""
            return 1

    @property
    # the name
    def name(self):
        return "x"

    @staticmethod
    def make():
        pass


@decorator
def top():
    """Top level."""
`,
    rows: [
      "class Outer 4-20 \"The outer class.\"",
      "  class Inner 8-11 \"A nested class.\"",
      "    method method 9-11 \"Does a thing.\"",
      "  method name 13-16",
      "  method make 18-20",
      "function top 23-25 \"Top level.\"",
    ],
  },
  {
    file: 'a.rb',
    languageId: 'ruby',
    text: `module Outer
  # The first class.
  class First
    # Runs it.
    def run
    end
  end
end
`,
    rows: [
      "module Outer 1-8",
      "  class First 3-7 \"The first class.\"",
      "    method run 5-6 \"Runs it.\"",
    ],
  },
  {
    file: 'a.rs',
    languageId: 'rust',
    text: `/// A shape.
pub struct Shape {
    w: u32,
}

impl Shape {
    /// The area.
    #[inline]
    pub fn area(&self) -> u32 {
        self.w
    }
}

mod inner {
    /// Helper.
    pub fn help() {}
}
`,
    rows: [
      "struct Shape 2-4 \"A shape.\"",
      "impl Shape 6-12",
      "  method area 9-11",
      "module inner 14-17",
      "  function help 16-16 \"Helper.\"",
    ],
  },
  {
    file: 'a.ts',
    languageId: 'typescript',
    text: `import { Injectable } from './di';

/** The service. */
@Injectable()
export class Service {
  /** Counts calls. */
  count = 0;

  // Loads one item.
  @Memo()
  @Trace('load')
  async load(id: string): Promise<Item> {
    return this.repo.get(id);
  }

  /** Handles a failure. */
  onError = (err: Error) => {
    console.error(err);
  };

  static Inner = class {
    run(): void {}
  };
}

export namespace Shapes {
  /** A point. */
  export class Point {
    constructor(readonly x: number) {}
    /** Length. */
    norm(): number { return this.x; }
  }
}
`,
    rows: [
      "class Service 4-24 \"The service.\" exported",
      "  method load 10-14 \"Loads one item.\"",
      "  method onError 17-19 \"Handles a failure.\"",
      "module Shapes 26-33 exported",
      "  class Point 28-32 \"A point.\" exported",
      "    constructor constructor 29-29",
      "    method norm 31-31 \"Length.\"",
    ],
  },
];

describe('core/context outline extraction: nesting, decorators and doc comments', () => {
  const parsers = new TreeSitterParsers(packagedGrammars);
  for (const c of CASES) {
    it(`${c.file}`, async () => {
      const ex = await treeSitterOutline(c.text, c.languageId, parsers);
      assert.deepEqual(rows(ex!.symbols), c.rows);
    });
  }
});
