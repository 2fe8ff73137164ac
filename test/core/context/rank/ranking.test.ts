import { strict as assert } from 'node:assert';
import { mkdtempSync, mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { RepoMap } from '../../../../src/core/context/repoMap';
import { relevance, relevanceSteps, type RankDoc, type RelevanceScratch } from '../../../../src/core/context/rank/bm25';
import { runSync } from '../../../../src/core/util/slices';
import { queryWords } from '../../../../src/core/context/rank/words';
import { extractTags, summarize } from '../../../../src/core/context/tags';
import { getTokenizer } from '../../../../src/core/memory/node/tokenizer';
import { diskReader } from '../../../../src/core/context/node/readWalked';
import { diskWalker } from '../../../../src/core/context/node/walk';

const tk = getTokenizer();

function repo(files: Record<string, string>): string {
  const root = mkdtempSync(join(tmpdir(), 'ctx-rank-'));
  for (const [rel, text] of Object.entries(files)) {
    mkdirSync(dirname(join(root, rel)), { recursive: true });
    writeFileSync(join(root, rel), text);
  }
  return root;
}

const doc = (rel: string, defs: string[] = [], summary = ''): RankDoc => ({ rel, summary, tags: { defs } });
const scores = (docs: RankDoc[], q: string) => relevance(docs, queryWords(q));

describe('context/rank BM25F relevance', () => {
  it('scores the same with arrays kept from an earlier query (larger, smaller, or taken by a run in between)', () => {
    const docs = [doc('src/cookie.ts', ['cookieJar', 'parseCookie']), doc('src/a.ts', ['cookieJar']), doc('src/b.ts', [], 'Cookie helpers'), doc('src/flags.ts', ['flagSet'])];
    const scratch: RelevanceScratch = {};
    for (const [d, q] of [[docs, 'cookie jar parse'], [docs.slice(0, 2), 'cookie'], [docs, 'flag set cookie helpers'], [docs, 'jar']] as const) {
      const fresh = runSync(relevanceSteps(d, queryWords(q)));
      assert.deepEqual(runSync(relevanceSteps(d, queryWords(q), scratch)), fresh, q);
      assert.ok(scratch.tf, 'kept for the next query');
    }
    // a run that starts while another holds the arrays makes its own; both score as without them
    const first = relevanceSteps(docs, queryWords('cookie jar'), scratch);
    first.next();
    first.next();
    assert.deepEqual(runSync(relevanceSteps(docs, queryWords('flag'), scratch)), runSync(relevanceSteps(docs, queryWords('flag'))));
    assert.deepEqual(runSync(first), runSync(relevanceSteps(docs, queryWords('cookie jar'))));
  });

  it('a rare word counts more than a word every file has', () => {
    const docs = [doc('src/middleware/cookie.ts'), ...['cors', 'etag', 'logger', 'timing'].map((m) => doc(`src/middleware/${m}.ts`)), doc('src/other.ts')];
    const s = scores(docs, 'cookie middleware');
    assert.ok(s.get('src/middleware/cookie.ts')! > 2 * s.get('src/middleware/cors.ts')!, JSON.stringify([...s]));
    assert.equal(s.has('src/other.ts'), false);
  });

  it('a path word outweighs a defined name, a defined name a summary word', () => {
    const s = scores([doc('src/cookie.ts'), doc('src/a.ts', ['cookieJar']), doc('src/b.ts', [], 'Cookie helpers'), doc('src/c.ts'), doc('src/d.ts')], 'cookie');
    assert.ok(s.get('src/cookie.ts')! > s.get('src/a.ts')!);
    assert.ok(s.get('src/a.ts')! > s.get('src/b.ts')!);
  });

  it('repeating a word saturates: fifty names with "flag" count less than twice two such names', () => {
    const names = (n: number) => Array.from({ length: n }, (_, i) => `flagHelper${'abcdefghijklmnopqrstuvwxyz'[i % 26]}${i >= 26 ? 'x' : ''}`);
    const s = scores([doc('command.go', names(50)), doc('group.go', names(2)), doc('args.go', ['Parse']), doc('cobra.go', ['Run'])], 'flags');
    assert.ok(s.get('command.go')! > s.get('group.go')!);
    assert.ok(s.get('command.go')! < 2 * s.get('group.go')!, JSON.stringify([...s]));
  });

  it('a name made of several query words (mergePath for "merging paths") beats a file with many names matching one word each', () => {
    const docs = [
      doc('src/utils/url.ts', ['mergePath', 'getQueryParam', 'routeOf']),
      doc('src/router/node.ts', ['insertPath', 'routeTable', 'mergeParams', 'matchPath']),
      ...['a', 'b', 'c', 'd', 'e', 'f'].map((x) => doc(`src/${x}.ts`, [`${x}Handler`])),
    ];
    const s = scores(docs, 'merging route paths');
    assert.ok(s.get('src/utils/url.ts')! > s.get('src/router/node.ts')!, JSON.stringify([...s]));
    // a name that shares one word only gets no bonus: the same file without mergePath falls behind
    const without = scores([{ ...docs[0]!, tags: { defs: ['mergeHelper', 'pathOf'] } }, ...docs.slice(1)], 'merging route paths');
    assert.ok(without.get('src/utils/url.ts')! < without.get('src/router/node.ts')!, JSON.stringify([...without]));
  });

  it('stems: "recovering" finds recovery, "configuration" finds _config, an exact stem beats a shared prefix', () => {
    const docs = [doc('recovery.go'), doc('router.go'), doc('httpx/_config.py'), doc('httpx/_models.py'), doc('configurator.go')];
    assert.deepEqual([...scores(docs, 'recovering').keys()], ['recovery.go']);
    const c = scores(docs, 'configuration');
    assert.ok(c.has('httpx/_config.py'));
    assert.ok(c.get('configurator.go')! > c.get('httpx/_config.py')!, 'configur = configur beats config ~ configur');
  });
});

describe('context/rank overview order on fixture repositories', () => {
  const roots: string[] = [];
  after(() => roots.forEach((r) => rmSync(r, { recursive: true, force: true })));
  const mapOf = (files: Record<string, string>) => {
    const root = repo(files);
    roots.push(root);
    return new RepoMap(root, { tokenizer: tk, reader: diskReader, walker: diskWalker });
  };

  it('"recovering" and "configuration" find recovery.go and _config.py ahead of the hub', async () => {
    const go = mapOf({
      'router.go': 'package web\n\ntype Router struct{}\n\nfunc NewRouter() *Router { return &Router{} }\n',
      'recovery.go': 'package web\n\nfunc Recoverer(r *Router) {}\n',
      'logger.go': 'package web\n\nfunc Logger(r *Router) { NewRouter() }\n',
      'static.go': 'package web\n\nfunc Static(r *Router) { NewRouter() }\n',
    });
    assert.equal((await go.overview({ query: 'recovering after a crash' })).ranked[0]!.path, 'recovery.go');
    const py = mapOf({
      'pkg/_models.py': 'class Request:\n    pass\n\nclass Response:\n    pass\n',
      'pkg/_config.py': 'from ._models import Request\n\nclass Timeout:\n    def __init__(self, r: Request):\n        pass\n',
      'pkg/_client.py': 'from ._models import Request, Response\n\ndef send(r: Request) -> Response:\n    pass\n',
    });
    assert.equal((await py.overview({ query: 'reject values in the configuration' })).ranked[0]!.path, 'pkg/_config.py');
  });

  it('a hub everybody uses ranks below a file whose names match', async () => {
    const files: Record<string, string> = {
      // the hub's names match the query too, less closely (names, not its path)
      'src/core.ts': 'export class Context {}\nexport function cookieValue(c: Context): string { return "" }\nexport function serializeHeader(c: Context) {}\n',
      'src/utils/cookie.ts': "import { Context } from '../core';\nexport function serialize(name: string): string { return name }\nexport function parse(s: string) {}\n",
    };
    for (const m of ['cors', 'etag', 'logger', 'timing', 'cache', 'jwt']) {
      files[`src/middleware/${m}.ts`] = `import { Context, cookieValue, serializeHeader } from '../core';\nexport function ${m}(c: Context) { cookieValue(c); serializeHeader(c); }\n`;
    }
    const r = await mapOf(files).overview({ query: 'serialize cookie with an empty name' });
    const order = r.ranked.map((f) => f.path);
    assert.equal(order[0], 'src/utils/cookie.ts', r.text);
    assert.ok(order.indexOf('src/core.ts') > 0, r.text);
  });

  it('the file that defines the central class is shown whatever the query', async () => {
    const files: Record<string, string> = {
      'src/application.ts': 'export class Application {\n  use(): void {}\n}\n',
    };
    for (let i = 0; i < 30; i++) {
      files[`src/widgets/widget${i}.ts`] = `import { Application } from '../application';\n/** Widget ${i}. */\nexport function widgetPanel${i}(app: Application) { return app }\n`;
    }
    const map = mapOf(files);
    const r = await map.overview({ query: 'widget panel', budget: 200 });
    assert.ok(r.shownFiles < 30, 'the budget cuts the list');
    assert.ok(r.ranked.some((f) => f.path === 'src/application.ts'), r.text);
    assert.match(r.text, /src\/application\.ts/);
  });

  it('a tight budget drops the folder tree before the files lose their symbols', async () => {
    const files: Record<string, string> = {};
    ['accounting', 'billing', 'catalogue', 'delivery', 'engagement', 'fulfilment'].forEach((d, i) =>
      ['internal', 'external'].forEach((s, j) => (files[`${d}/${s}/m${i}${j}.ts`] = `export function run${i}${j}() {}\nexport function helper${i}${j}() {}\n`)),
    );
    // 360 tokens: twelve files with their symbols fit without the tree, or with a one-level tree without symbols.
    const r = await mapOf(files).overview({ budget: 360, query: 'run' });
    assert.equal(r.shownFiles, 12, r.text);
    assert.ok(!/modules:/.test(r.text), r.text);
    assert.match(r.text, /m00\.ts 2L — run00, helper00 · run00/);
  });
});

describe('context/rank tags: summaries and names', () => {
  it('summaries skip licence and copyright headers', () => {
    const go = '// Copyright 2013-2023 The Authors\n//\n// Licensed under the Apache License, Version 2.0 (the "License");\n// you may not use this file except in compliance.\n\n// Package cobra builds commands.\npackage cobra\n';
    assert.equal(summarize(go, 'go'), 'Package cobra builds commands.');
    const ts = '/*\n * MIT License\n * Copyright (c) 2021 Someone\n * Permission is hereby granted, free of charge\n */\n/** Cookie parsing. */\nexport {}\n';
    assert.equal(summarize(ts, 'typescript'), 'Cookie parsing.');
    const ts2 = '/**\n * Copyright (c) 2021 Someone\n * you may not use this file except as allowed\n */\n/** Cookie parsing. */\nexport {}\n';
    assert.equal(summarize(ts2, 'typescript'), 'Cookie parsing.');
    const py = '# SPDX-License-Identifier: BSD-3-Clause\n# Redistribution and use in source and binary forms\n\n"""HTTP client."""\n';
    assert.equal(summarize(py, 'python'), 'HTTP client.');
    // a file without a licence keeps its first comment
    assert.equal(summarize('// Router: matches paths.\nexport {}\n', 'typescript'), 'Router: matches paths.');
  });

  it('words inside comments and docstrings are never taken as names; strings are not comments', () => {
    const ts = [
      '// class Ghost was removed; see function phantom',
      '/* interface Spectre {} */',
      'const url = "http://example.com"; export function afterUrl() {}',
      'export function real(): void {}',
    ].join('\n');
    const t = extractTags(ts, 'typescript');
    assert.deepEqual(t.defs.sort(), ['afterUrl', 'real', 'url']);
    assert.equal(t.refs.has('Ghost'), false);
    assert.equal(t.refs.has('removed'), false);
    const py = 'def send():\n    """Like the old def resend(), but class Sender is gone."""\n    # def retry(): no\n    return "#notacomment"\n';
    assert.deepEqual(extractTags(py, 'python').defs, ['send']);
    const go = 'package x\n\n// func Hidden() is gone\nfunc Visible() {}\n';
    assert.deepEqual(extractTags(go, 'go').defs, ['Visible']);
  });
});
