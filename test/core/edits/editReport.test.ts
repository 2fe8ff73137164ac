/** The balance line of an edit on a file over maxWholeBalanceBytes (src/core/edits/editReport.ts), en and zh. */
import { strict as assert } from 'node:assert';
import { workspace } from './helpers';
import { quickBalance } from '../../../src/core/edits/balance';
import { warmEditReport } from '../../../src/core/edits/warmUp';

const FILE = 'function f() {\n  return g(1);\n}\n' + '// filler line\n'.repeat(10);

describe('core/edits the balance line of a large file', () => {
  for (const lang of ['en', 'zh'] as const) {
    it(`${lang}: unchanged, changed, and skipped when the edit itself is over the limit`, async () => {
      const w = workspace({ lang, limits: { maxWholeBalanceBytes: 60 } });
      try {
        w.write('big.ts', FILE);
        const same = (await w.svc.replace({ file: 'big.ts:2', content: '  return g(2);' })).balance;
        const changed = (await w.svc.replace({ file: 'big.ts:2', content: '  return g(2;' })).balance;
        const skipped = (await w.svc.replace({ file: 'big.ts:2', content: 'x'.repeat(61) })).balance;
        if (lang === 'en') {
          assert.equal(same, 'balance: unchanged by this edit (edited lines checked; file over 60 bytes)');
          assert.match(changed, /^balance: this edit changes bracket balance \(replaced lines: OK; new lines: unbalanced \(\(\) missing 1\); file over 60 bytes, not checked whole\)$/);
          assert.equal(skipped, 'balance: skipped (file and edit over 60 bytes)');
        } else {
          assert.equal(same, '符号闭合快速检查：修改未改变括号平衡（仅检查修改的行，文件超过 60 字节）');
          assert.match(changed, /^符号闭合快速检查：修改改变了括号平衡（修改前的行：OK；修改后：unbalanced \(\(\) missing 1\)；文件超过 60 字节，未检查全文）$/);
          assert.equal(skipped, '符号闭合快速检查：已跳过（文件与修改内容均超过 60 字节）');
        }
      } finally {
        w.cleanup();
      }
    });
  }
});

describe('warmEditReport (the idle warm-up of an edit report)', () => {
  it('scans a balanced made-up file in each language asked, in memory', () => {
    assert.equal(warmEditReport(), quickBalance('', 'typescript'), 'the made-up file is balanced');
    assert.equal(warmEditReport(['python', 'go']), quickBalance('', 'go'));
  });
});
