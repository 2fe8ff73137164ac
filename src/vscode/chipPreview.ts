/** Read-only virtual documents for chips: `better-edit-chip:/<id>/<name>` with the language of the original file. */
import * as vscode from 'vscode';
import type { ChipRecord } from '../core/chips/types';
import { chipPreviewName } from './chipPreviewName';
import type { ChipSource } from './chipSource';

export const CHIP_SCHEME = 'better-edit-chip';

export function chipPreviewUri(chip: ChipRecord, hasText: boolean): vscode.Uri {
  // The file name's extension gives VS Code the language (see chipPreviewName).
  const name = chipPreviewName(chip, hasText);
  return vscode.Uri.from({ scheme: CHIP_SCHEME, path: `/${chip.id}/${name}` });
}

export class ChipContentProvider implements vscode.TextDocumentContentProvider, vscode.Disposable {
  private readonly changed = new vscode.EventEmitter<vscode.Uri>();
  readonly onDidChange = this.changed.event;

  constructor(private readonly chips: () => ChipSource) {}

  async provideTextDocumentContent(uri: vscode.Uri): Promise<string> {
    const id = uri.path.split('/')[1] ?? '';
    const chip = await this.chips().get(id);
    if (!chip) return vscode.l10n.t('Chip {0} no longer exists (evicted, expired or deleted).', id);
    return chipText(this.chips(), chip);
  }

  dispose(): void {
    this.changed.dispose();
  }
}

/** The chip's original text, or its arguments as JSON when there is none. */
export function chipText(chips: ChipSource, chip: ChipRecord): string {
  return chips.originalText(chip) ?? JSON.stringify(chip.args, null, 2);
}
