/**
 * The options that pick the workspace and its memory directory, shared by the server and `recap` so that both
 * read them the same way (recap must find the directory the server wrote).
 */
export const WORKSPACE_OPTIONS = {
  root: { type: 'string', multiple: true },
  'memory-dir': { type: 'string' },
  'allow-root-dir': { type: 'boolean', default: false },
  help: { type: 'boolean', short: 'h', default: false },
} as const;
