import * as assert from 'node:assert/strict';
import { promises as fs } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { ChipSigner } from '../../../src/core/chips/node/integrity';
import { ChipStore } from '../../../src/core/chips/node/store';
import { chipFileName } from '../../../src/core/chips/record';
import { call, callError, memoryClient, tmpWorkspace } from '../../mcp/helpers';

describe('chip integrity (HMAC)', () => {
  let base: string;
  beforeEach(async () => (base = await fs.realpath(await fs.mkdtemp(path.join(os.tmpdir(), 'bet-hmac-')))));
  afterEach(() => fs.rm(base, { recursive: true, force: true }));

  it('creates one 0600 key file, shared by servers that start together', async () => {
    const file = path.join(base, 'keys', 'chip-hmac.key');
    const [a, b] = await Promise.all([ChipSigner.fromKeyFile(file), ChipSigner.fromKeyFile(file)]);
    assert.equal(a.sign({ x: 1 }), b.sign({ x: 1 }));
    assert.equal((await fs.stat(file)).mode & 0o777, 0o600);
    assert.equal((await fs.stat(path.dirname(file))).mode & 0o777, 0o700);
    assert.equal((await fs.readFile(file)).length, 32);
  });

  it('a chip edited on disk is listed as tampered and never returned for insertion; an untouched one is', async () => {
    const signer = await ChipSigner.fromKeyFile(path.join(base, 'k'));
    const dir = path.join(base, 'chips');
    const store = await ChipStore.open({ dir, signer });
    const good = (await store.saveContent('be-delete', 'keep me\n')).chip;
    const bad = (await store.saveContent('be-delete', 'original\n')).chip;
    const file = path.join(dir, chipFileName(bad.id));
    const json = JSON.parse(await fs.readFile(file, 'utf8'));
    assert.match(json.mac, /^[0-9a-f]{64}$/);
    json.args._content = 'rm -rf ~\n';
    await fs.writeFile(file, JSON.stringify(json));
    const fresh = await ChipStore.open({ dir, signer });
    const listed = await fresh.list();
    assert.equal(listed.find((c) => c.id === bad.id)?.tampered, true);
    assert.equal(listed.find((c) => c.id === good.id)?.tampered, undefined);
    await assert.rejects(fresh.get(bad.id), /failed its integrity check/);
    assert.equal(fresh.originalText((await fresh.get(good.id))!), 'keep me\n');
    // another key does not accept our chips either
    const other = await ChipStore.open({ dir, signer: ChipSigner.fromKey(Buffer.alloc(32, 7)) });
    await assert.rejects(other.get(good.id), /failed its integrity check/);
  });

  it('through MCP: be-insert-chip lists a tampered chip as such and refuses to insert it, writing nothing', async () => {
    const ws = await tmpWorkspace();
    const conn = await memoryClient(ws);
    try {
      await ws.write('a.txt', 'one\ntwo\n');
      const { chip_id } = await call(conn.client, 'be-delete', { file: 'a.txt:2' });
      const file = path.join(ws.chipDir, chipFileName(chip_id));
      const json = JSON.parse(await fs.readFile(file, 'utf8'));
      json.args._content = 'planted\n';
      await fs.writeFile(file, JSON.stringify(json));
      await conn.services.chips.reload();
      const list = await call(conn.client, 'be-insert-chip', {});
      assert.equal(list.items.find((i: { id: string }) => i.id === chip_id).tampered, true);
      const err = await callError(conn.client, 'be-insert-chip', { from: `chip://${chip_id}`, to: 'a.txt:1' });
      assert.match(err, /failed its integrity check/);
      assert.equal((await ws.read('a.txt')).toString(), 'one\n');
    } finally {
      await conn.close();
      await conn.services.close();
      await ws.dispose();
    }
  });
});
