import { strict as assert } from 'node:assert';
import { KeyedMutex, Mutex } from '../../../src/core/util/mutex';

const tick = () => new Promise((r) => setTimeout(r, 1));

describe('core/util in-process locks', () => {
  it('Mutex runs one piece of work at a time, in call order, and a failure does not stop the next', async () => {
    const m = new Mutex();
    const log: string[] = [];
    const job = (name: string, fail = false) => async () => {
      log.push(`${name}+`);
      await tick();
      log.push(`${name}-`);
      if (fail) throw new Error(name);
      return name;
    };
    const results = await Promise.allSettled([m.run(job('a')), m.run(job('b', true)), m.run(job('c'))]);
    assert.deepEqual(log, ['a+', 'a-', 'b+', 'b-', 'c+', 'c-']);
    assert.deepEqual(results.map((r) => r.status), ['fulfilled', 'rejected', 'fulfilled']);
  });

  it('KeyedMutex serialises one key, runs different keys in parallel, and forgets an idle key', async () => {
    const m = new KeyedMutex();
    const log: string[] = [];
    const job = (name: string) => async () => {
      log.push(`${name}+`);
      await tick();
      log.push(`${name}-`);
    };
    await Promise.all([m.run('x', job('x1')), m.run('y', job('y1')), m.run('x', job('x2'))]);
    assert.ok(log.indexOf('x1-') < log.indexOf('x2+'), log.join(' '));
    assert.ok(log.indexOf('y1+') < log.indexOf('x1-'), log.join(' '));
    await assert.rejects(m.run('x', async () => Promise.reject(new Error('boom'))), /boom/);
    assert.equal(await m.run('x', async () => 'after'), 'after');
    assert.equal((m as unknown as { tails: Map<string, unknown> }).tails.size, 0);
  });
});
