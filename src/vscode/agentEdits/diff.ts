/**
 * Read-only documents of an edit's "before" and "after" (the whole file each, core/history/review.ts
 * editVersions), opened side by side with vscode.diff.
 */
import * as path from 'node:path';
import * as vscode from 'vscode';

export const REVIEW_SCHEME = 'better-edit-review';

export interface VersionsSource {
  versions(id: string): Promise<{ file: string; before: Uint8Array | undefined; after: Uint8Array }>;
}

export class EditVersionsProvider implements vscode.TextDocumentContentProvider {
  constructor(private readonly source: () => VersionsSource | undefined) {}

  /** Uri of one side: /<id>/<before|after>/<file name> (the name gives the language). */
  static uri(id: string, side: 'before' | 'after', file: string): vscode.Uri {
    return vscode.Uri.from({ scheme: REVIEW_SCHEME, path: `/${id}/${side}/${path.basename(file)}` });
  }

  async provideTextDocumentContent(uri: vscode.Uri): Promise<string> {
    const [, id, side] = uri.path.split('/');
    const src = this.source();
    if (!src || !id) throw new Error(vscode.l10n.t('No folder is open: there is no edit history to show.'));
    const v = await src.versions(id);
    const bytes = side === 'before' ? v.before : v.after;
    return bytes ? Buffer.from(bytes).toString('utf8') : '';
  }
}

export async function openEditDiff(id: string, file: string, summary: string): Promise<void> {
  await vscode.commands.executeCommand(
    'vscode.diff',
    EditVersionsProvider.uri(id, 'before', file),
    EditVersionsProvider.uri(id, 'after', file),
    vscode.l10n.t('{0} (edit {1}: {2})', path.basename(file), id, summary),
    { preview: true },
  );
}
