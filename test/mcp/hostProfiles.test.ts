/** Host profiles: the limit each client gets, the overrides, the CLI flag and the VS Code settings seam. */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import * as path from 'node:path';
import { parseCli } from '../../src/cli/args';
import { parseReplyMaxChars, profileFor, replyLimitFor } from '../../src/mcp/hostProfiles';
import { measureFor, splitIntoPages } from '../../src/mcp/replyFit';
import { liveReplyLimit, REPLY_MAX_CHARS_SETTING, replyMaxCharsSetting, type SettingGetter } from '../../src/vscode/settings';

const getter = (values: Record<string, unknown>): SettingGetter => ((key: string, fallback: unknown) => (key in values ? values[key] : fallback)) as SettingGetter;

describe('host profiles', () => {
  it('knows each client by the name it sends, and gives others the safe default', () => {
    assert.deepEqual(replyLimitFor('Visual Studio Code'), { unit: 'chars', max: 8192, source: 'vscode-copilot' });
    assert.deepEqual(replyLimitFor('Visual Studio Code - Insiders'), { unit: 'chars', max: 8192, source: 'vscode-copilot' });
    assert.deepEqual(replyLimitFor('code-server'), { unit: 'chars', max: 8192, source: 'vscode-copilot' });
    assert.equal(replyLimitFor('code-server', { copilot: { enabled: true, thresholdBytes: 4096 } })?.max, 4096, 'code-server follows the Copilot settings');
    assert.deepEqual(replyLimitFor('claude-code'), { unit: 'tokens', max: 20_000, source: 'claude-code' });
    assert.deepEqual(replyLimitFor('codex-mcp-client'), { unit: 'bytes', max: 10_000, source: 'codex' });
    assert.deepEqual(replyLimitFor('github-copilot-cli'), { unit: 'bytes', max: 10_000, source: 'copilot-cli' });
    assert.equal(profileFor('cursor-vscode').id, 'cursor');
    assert.equal(profileFor('opencode').id, 'opencode');
    assert.deepEqual(replyLimitFor('some-agent'), { unit: 'chars', max: 8192, source: 'unknown' });
    assert.deepEqual(replyLimitFor(undefined), { unit: 'chars', max: 8192, source: 'unknown' });
  });

  it('an override wins over every profile; none is no limit', () => {
    assert.deepEqual(replyLimitFor('claude-code', { override: 50_000 }), { unit: 'chars', max: 50_000, source: 'override' });
    assert.equal(replyLimitFor('Visual Studio Code', { override: 'none' }), undefined);
    assert.deepEqual(replyLimitFor('x', { override: 10 }), { unit: 'chars', max: 1024, source: 'override' });
  });

  it("follows Copilot's spill settings for VS Code only", () => {
    assert.equal(replyLimitFor('Visual Studio Code', { copilot: { enabled: true, thresholdBytes: 20_000 } })?.max, 20_000);
    assert.equal(replyLimitFor('Visual Studio Code', { copilot: { enabled: false, thresholdBytes: 20_000 } }), undefined);
    assert.equal(replyLimitFor('claude-code', { copilot: { enabled: false, thresholdBytes: 20_000 } })?.max, 20_000 /* its tokens */);
  });

  it('--reply-max-chars takes N, 0 or none, auto, and refuses anything else clearly', () => {
    assert.equal(parseCli([], {}).replyMaxChars, 'auto');
    assert.equal(parseCli(['--reply-max-chars', '20000'], {}).replyMaxChars, 20_000);
    assert.equal(parseCli(['--reply-max-chars', '0'], {}).replyMaxChars, 'none');
    assert.equal(parseCli(['--reply-max-chars', 'none'], {}).replyMaxChars, 'none');
    assert.equal(parseReplyMaxChars('auto'), 'auto');
    for (const bad of ['-5', '12k', '100', '']) assert.throws(() => parseCli([`--reply-max-chars=${bad}`], {}), /--reply-max-chars must be/);
  });

  it('the VS Code limit follows a settings change at the next call, without a new session', () => {
    const ours: Record<string, unknown> = {};
    const copilot: Record<string, unknown> = {};
    const limit = liveReplyLimit(getter(ours), getter(copilot));
    assert.equal(limit('Visual Studio Code')?.max, 8192);
    copilot['largeToolResultsToDisk.thresholdBytes'] = 30_000;
    assert.equal(limit('Visual Studio Code')?.max, 30_000);
    copilot['largeToolResultsToDisk.enabled'] = false;
    assert.equal(limit('Visual Studio Code'), undefined);
    ours.replyMaxChars = 4096;
    assert.deepEqual(limit('Visual Studio Code'), { unit: 'chars', max: 4096, source: 'override' });
    ours.replyMaxChars = 0;
    assert.equal(limit('claude-code'), undefined);
    ours.replyMaxChars = 'lots'; // a hand-edited wrong value: the default (the host profile)
    assert.equal(replyMaxCharsSetting(getter(ours)), 'auto');
  });

  it('package.json contributes betterEditTools.replyMaxChars as its table says', () => {
    const pkg = JSON.parse(readFileSync(path.join(__dirname, '..', '..', 'package.json'), 'utf8'));
    const p = pkg.contributes.configuration.properties['betterEditTools.replyMaxChars'];
    const l = REPLY_MAX_CHARS_SETTING;
    assert.deepEqual({ type: p.type, minimum: p.minimum, maximum: p.maximum, default: p.default }, { type: 'integer', minimum: l.min, maximum: l.max, default: l.default });
    for (const nls of ['package.nls.json', 'package.nls.zh-cn.json']) {
      const texts = JSON.parse(readFileSync(path.join(__dirname, '..', '..', nls), 'utf8'));
      assert.ok(texts['betterEditTools.config.replyMaxChars'], nls);
    }
  });

  it('pages of a text are whole lines within the room, and a longer line is split, nothing lost', () => {
    const measure = measureFor({ unit: 'bytes', max: 100, source: 't' });
    const text = ['short', '数'.repeat(80), 'a'.repeat(30), '', 'tail'].join('\n');
    const pages = splitIntoPages(text, 100, measure);
    for (const p of pages) assert.ok(measure(p.text) <= 100, p.text);
    assert.equal(pages.map((p) => p.text + (p.splitLine ? '' : '\n')).join('').slice(0, -1), text);
  });
});
