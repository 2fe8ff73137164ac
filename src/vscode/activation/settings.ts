/**
 * The settings composer: one onDidChangeConfiguration listener; each composer asks here for the sections it
 * follows. Handlers run one after the other, in the order they were added (a recomposition finishes before the
 * next handler reads the composition).
 */
import * as vscode from 'vscode';

export type SettingHandler = () => unknown;

export class SettingsRouter implements vscode.Disposable {
  private readonly handlers: { section: string; run: SettingHandler }[] = [];
  private readonly subscription: vscode.Disposable;
  private queue: Promise<void> = Promise.resolve();

  constructor(private readonly log?: vscode.LogOutputChannel) {
    this.subscription = vscode.workspace.onDidChangeConfiguration((e) => void this.dispatch(e));
  }

  /** `run` when a setting under `section` (e.g. `betterEditTools.chips`) changes. */
  on(section: string, run: SettingHandler): vscode.Disposable {
    const entry = { section, run };
    this.handlers.push(entry);
    return new vscode.Disposable(() => {
      const i = this.handlers.indexOf(entry);
      if (i >= 0) this.handlers.splice(i, 1);
    });
  }

  /** Runs the handlers the change affects; resolves when they (and the changes before) are done. */
  dispatch(e: vscode.ConfigurationChangeEvent): Promise<void> {
    const affected = this.handlers.filter((h) => e.affectsConfiguration(h.section));
    this.queue = this.queue.then(async () => {
      for (const h of affected) {
        try {
          await h.run();
        } catch (err) {
          this.log?.error(`settings ${h.section}: ${err instanceof Error ? err.message : String(err)}`);
        }
      }
    });
    return this.queue;
  }

  dispose(): void {
    this.subscription.dispose();
    this.handlers.length = 0;
  }
}
