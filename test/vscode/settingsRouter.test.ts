/**
 * The settings composer (src/vscode/activation/settings.ts) and the shell's setting reads through the vscode double:
 * a change reaches exactly the handlers of its sections, in order, one change after the other; a failing handler
 * is logged and the others still run.
 */
import { double, testLog } from './double/install';
import assert from 'node:assert/strict';
import * as vscode from 'vscode';
import { SettingsRouter } from '../../src/vscode/activation/settings';
import { createShell, readConfig } from '../../src/vscode/activation/shell';
import { liveReplyLimit } from '../../src/vscode/settings';

describe('vscode/activation/settings: the settings router (through the vscode double)', () => {
  beforeEach(() => double.reset());

  it('runs the handlers of the changed sections only, in the order they were added, each change after the last', async () => {
    const router = new SettingsRouter(testLog());
    const ran: string[] = [];
    let release!: () => void;
    const slow = new Promise<void>((r) => (release = r));
    router.on('betterEditTools.chips', async () => {
      ran.push('chips:start');
      await slow;
      ran.push('chips:end');
    });
    router.on('betterEditTools.memory', () => ran.push('memory'));
    router.on('betterEditTools', () => ran.push('all'));
    double.setSettings({ 'betterEditTools.chips.capacity': 3 });
    double.setSettings({ 'betterEditTools.memory.maxTokens': 900 });
    await new Promise((r) => setImmediate(r));
    assert.deepEqual(ran, ['chips:start'], 'the second change waits for the first');
    release();
    await router.dispatch({ affectsConfiguration: () => false });
    assert.deepEqual(ran, ['chips:start', 'chips:end', 'all', 'memory', 'all']);
    double.setSettings({ 'editor.fontSize': 20 });
    await router.dispatch({ affectsConfiguration: () => false });
    assert.equal(ran.length, 5, 'other extensions\' settings wake nobody');
    router.dispose();
  });

  it('a handler that throws is logged; the next still runs; a removed handler runs no more', async () => {
    const router = new SettingsRouter(testLog());
    const ran: string[] = [];
    router.on('betterEditTools.reply', () => {
      throw new Error('boom');
    });
    const second = router.on('betterEditTools.reply', () => ran.push('second'));
    double.setSettings({ 'betterEditTools.reply': 'json' });
    await router.dispatch({ affectsConfiguration: () => false });
    assert.deepEqual(ran, ['second']);
    assert.ok(double.recorded.logs.some((l) => l.level === 'error' && /settings betterEditTools\.reply: boom/.test(l.text)));
    second.dispose();
    double.setSettings({ 'betterEditTools.reply': 'text' });
    await router.dispatch({ affectsConfiguration: () => false });
    assert.deepEqual(ran, ['second']);
    router.dispose();
  });

  it('the shell reads betterEditTools.* as the user set them, the documented defaults otherwise', () => {
    const context = { subscriptions: [], globalStorageUri: vscode.Uri.file('/storage'), extension: { packageJSON: { version: '1.0.0' } } } as unknown as vscode.ExtensionContext;
    double.language = 'zh-cn';
    const shell = createShell(context, testLog());
    assert.equal(shell.lang, 'zh');
    assert.equal(shell.storageDir, '/storage');
    assert.deepEqual(shell.config(), { serverEnabled: true, capacity: 30, ttlDays: 0, threshold: 50, replayFormat: 'raw', saveAfterEdit: 'whenNotDirty' });
    double.settings['betterEditTools.chips.capacity'] = 7;
    double.settings['betterEditTools.saveAfterEdit'] = 'never';
    assert.equal(shell.config().capacity, 7);
    assert.equal(shell.config().saveAfterEdit, 'never');
    assert.deepEqual(readConfig((_k, fallback) => fallback), { serverEnabled: true, capacity: 30, ttlDays: 0, threshold: 50, replayFormat: 'raw', saveAfterEdit: 'whenNotDirty' });
  });

  it('the reply limit follows betterEditTools.replyMaxChars and Copilot\'s spill settings at each call', () => {
    const ours = (k: string, f: unknown) => vscode.workspace.getConfiguration('betterEditTools').get(k, f);
    const copilot = (k: string, f: unknown) => vscode.workspace.getConfiguration('github.copilot.chat.agent').get(k, f);
    const limit = liveReplyLimit(ours as never, copilot as never);
    double.settings['betterEditTools.replyMaxChars'] = 0;
    assert.equal(limit('Visual Studio Code'), undefined, '0: no limit');
    double.settings['betterEditTools.replyMaxChars'] = 5000;
    assert.equal(limit('Visual Studio Code')?.max, 5000);
  });
});
