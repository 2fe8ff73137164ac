import { strict as assert } from 'node:assert';
import { spawn } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';

const SRC = path.resolve(__dirname, '../../../src');

describe('core/files + edits: one file edited by two processes', function () {
  this.timeout(30_000);
  let tmp: string;
  beforeEach(() => (tmp = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'be-editlock-')))));
  afterEach(() => fs.rmSync(tmp, { recursive: true, force: true }));

  it('every edit each process was told succeeded is in the file (the edit holds the cross-process lock)', async () => {
    const root = path.join(tmp, 'root');
    fs.mkdirSync(root);
    fs.writeFileSync(path.join(root, 'f.txt'), 'header\n');
    const script = path.join(tmp, 'editor.ts');
    fs.writeFileSync(
      script,
      `import { NodeFileStore } from ${JSON.stringify(path.join(SRC, 'core/files/nodeFileStore'))};
       import { Sandbox } from ${JSON.stringify(path.join(SRC, 'core/files/sandbox'))};
       import { EditService } from ${JSON.stringify(path.join(SRC, 'core/edits/service'))};
       const [root, lockDir, who] = process.argv.slice(2);
       const svc = new EditService({ files: new NodeFileStore({ lockDir, syncDirectory: false }), sandbox: new Sandbox([root]) });
       (async () => {
         const acked: string[] = [];
         for (let k = 0; k < 40; k++) {
           const line = who + '-' + k;
           try { await svc.insert({ file: k % 2 ? 'f.txt:1' : 'f.txt:0', content: line, brief: true }); acked.push(line); }
           catch (e) { console.error(String(e)); }
         }
         console.log(JSON.stringify(acked));
       })();`,
    );
    const lockDir = path.join(tmp, 'locks');
    const run = (who: string) =>
      new Promise<string[]>((resolve, reject) => {
        const cp = spawn(process.execPath, ['--import', 'tsx', script, root, lockDir, who], { stdio: ['ignore', 'pipe', 'inherit'] });
        let out = '';
        cp.stdout.on('data', (d) => (out += d));
        cp.on('exit', (code) => (code === 0 ? resolve(JSON.parse(out)) : reject(new Error(`editor ${who} exited ${code}`))));
      });
    const [a, b] = await Promise.all([run('a'), run('b')]);
    const lines = new Set(fs.readFileSync(path.join(root, 'f.txt'), 'utf8').split('\n'));
    const lost = [...a, ...b].filter((l) => !lines.has(l));
    assert.deepEqual(lost, [], 'no acknowledged edit is missing');
    assert.equal(a.length + b.length, 80, 'and none was refused: the processes took turns');
  });
});
