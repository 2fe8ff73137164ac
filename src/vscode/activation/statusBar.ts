/** The status bar composer: the server's state and the chip count in one item. */
import type { ChipTreeProvider } from '../chipTree';
import type { McpHostController } from '../mcpHost';
import { StatusBar } from '../statusBar';
import type { Shell } from './shell';

export function composeStatusBar(shell: Shell, host: McpHostController, tree: ChipTreeProvider): StatusBar {
  const bar = new StatusBar();
  bar.setState(host.state);
  shell.own(bar, host.onDidChangeState((s) => bar.setState(s)), tree.onDidChangeCount((n) => bar.setChipCount(n)));
  return bar;
}
