/**
 * Which invalidations reach which files: containment is the sandbox's separator-correct check (or a walk up by
 * dirname), never a `root + '/'` prefix, which misses every path on Windows and a root that is the file system root.
 */
import assert from 'node:assert/strict';
import { mkdirSync, promises as fs, realpathSync, writeFileSync } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { ContextService } from '../../../src/core/context/node/service';
import { RepoMap } from '../../../src/core/context/repoMap';
import { NodeFileStore } from '../../../src/core/files/nodeFileStore';
import { Sandbox } from '../../../src/core/files/sandbox';
import { packagedGrammars, TreeSitterParsers } from '../../../src/core/context/node/treeSitter';
import { ViewedCodeRegistry } from '../../../src/core/edits/viewedCode';
import { getTokenizer } from '../../../src/core/memory/node/tokenizer';
import { diskReader } from '../../../src/core/context/node/readWalked';
import { diskWalker } from '../../../src/core/context/node/walk';

const tokenizer = getTokenizer();

describe('core/context containment of invalidated paths', () => {
  let root: string;
  beforeEach(async () => {
    root = realpathSync(await fs.mkdtemp(path.join(os.tmpdir(), 'ctx-contain-')));
    for (const rel of ['src/a.ts', 'src/deep/b.ts', 'src2/c.ts', 'srcx.ts']) {
      mkdirSync(path.dirname(path.join(root, rel)), { recursive: true });
      writeFileSync(path.join(root, rel), `export const v${rel.length} = 1;\n`);
    }
  });
  afterEach(() => fs.rm(root, { recursive: true, force: true }));

  it('an invalidated folder re-reads the files under it, not a sibling whose name starts the same', async () => {
    const map = new RepoMap(root, { tokenizer, reader: diskReader, walker: diskWalker });
    await map.overview();
    const cold = map.stats.parsed;
    assert.equal(cold, 4);
    map.invalidate(path.join(root, 'src'));
    await map.overview();
    assert.equal(map.stats.parsed, cold + 2, 'src/a.ts and src/deep/b.ts; not src2/c.ts nor srcx.ts');
  });

  it('a root that is the file system root: the context service passes invalidations to its map', () => {
    const ctx = new ContextService({ sandbox: new Sandbox([path.parse(root).root]), files: new NodeFileStore(), viewed: new ViewedCodeRegistry(), tokenizer, parsers: new TreeSitterParsers(packagedGrammars) });
    const file = path.join(root, 'src', 'a.ts');
    const map = ctx.repoMapFor(file); // created, not walked
    assert.equal(map.root, path.parse(root).root);
    ctx.invalidate(file);
    // the map's pending invalidations (walking `/` to observe the re-read is not a unit test)
    const pending = (map as unknown as { list: { invalidated: Set<string> } }).list.invalidated;
    assert.ok(pending.has(file), 'the invalidation reached the map of the root');
  });
});
