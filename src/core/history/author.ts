/**
 * Who makes an edit: the MCP session (id + the client's name) whose tool call is running. The server runs each
 * tool handler inside run(); the history reads current() when it records, so the edit path below the tool layer
 * needs no extra parameter. One instance per composed server (no module-level state).
 */
import { AsyncLocalStorage } from 'node:async_hooks';

export interface EditAuthor {
  /** MCP session id (HTTP), a per-process id (stdio), or the UI's own session */
  session: string;
  /** the MCP client's name from its initialize request (e.g. "claude-code"), when it gave one */
  client?: string;
}

export class EditAuthors {
  private readonly storage = new AsyncLocalStorage<EditAuthor>();

  run<T>(author: EditAuthor, fn: () => Promise<T>): Promise<T> {
    return this.storage.run(author, fn);
  }

  current(): EditAuthor | undefined {
    return this.storage.getStore();
  }
}

/** "claude-code (session 1a2b3c4d)": how a message names an author. */
export function describeAuthor(a: { session?: string; client?: string }): string {
  const session = a.session ? `session ${a.session.length >= 32 ? a.session.slice(0, 8) : a.session}` : 'an unknown session';
  return a.client ? `${a.client} (${session})` : session;
}
