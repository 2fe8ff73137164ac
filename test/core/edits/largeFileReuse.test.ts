import { strict as assert } from 'node:assert';
import { workspace, type Workspace } from './helpers';

describe('core/edits on a large file (read buffers are reused between edits)', () => {
  let ws: Workspace;
  beforeEach(() => (ws = workspace()));
  afterEach(() => ws.cleanup());

  it('a sequence of replace/insert/delete gives exactly the model result after every step', async () => {
    const lines: string[] = [];
    for (let i = 1; i <= 20_000; i++) lines.push(`line ${i} ${'x'.repeat(40)}`);
    ws.write('big.txt', lines.join('\n') + '\n'); // ~1 MB: above the reuse threshold
    const model = [...lines];
    for (let k = 0; k < 12; k++) {
      const at = 1000 + k * 997;
      if (k % 3 === 0) {
        await ws.svc.replace({ file: `big.txt:${at}`, content: `replaced ${k}` });
        model.splice(at - 1, 1, `replaced ${k}`);
      } else if (k % 3 === 1) {
        await ws.svc.insert({ file: `big.txt:${at}`, content: `inserted ${k}\nand ${k}` });
        model.splice(at, 0, `inserted ${k}`, `and ${k}`);
      } else {
        await ws.svc.delete({ file: `big.txt:${at}-${at + 2}` });
        model.splice(at - 1, 3);
      }
      assert.equal(ws.read('big.txt'), model.join('\n') + '\n', `after step ${k}`);
    }
  });
});
