import { strict as assert } from 'node:assert';
import { defaultLockDir } from '../../../src/core/files/lockDir';

describe('core/files defaultLockDir', () => {
  it('sits beside the chips under the user cache (the same for every host of the user), never in a workspace', () => {
    assert.equal(defaultLockDir({}, 'linux', '/home/u'), '/home/u/.cache/better-edit-tools-mcp/locks');
    assert.equal(defaultLockDir({ XDG_CACHE_HOME: '/c' }, 'linux', '/home/u'), '/c/better-edit-tools-mcp/locks');
    assert.equal(defaultLockDir({ XDG_CACHE_HOME: 'relative' }, 'darwin', '/Users/u'), '/Users/u/.cache/better-edit-tools-mcp/locks');
    assert.equal(defaultLockDir({ LOCALAPPDATA: 'C:\\Users\\u\\AppData\\Local' }, 'win32', 'C:\\Users\\u'), 'C:\\Users\\u\\AppData\\Local\\better-edit-tools-mcp\\locks');
    // no home at all: a per-app folder in /tmp (the lock store refuses it unless it belongs to this user)
    assert.equal(defaultLockDir({}, 'linux', ''), '/tmp/better-edit-tools-mcp-locks');
  });
});
