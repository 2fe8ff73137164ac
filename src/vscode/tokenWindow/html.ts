/**
 * The Token Window's HTML: a strict CSP (nothing remote, scripts and styles only from the extension
 * with a per-load nonce), theme colors through VS Code's CSS variables. Pure, so a browser test can
 * load it without VS Code.
 */
export interface TokenWindowHtmlOptions {
  /** webview.cspSource */
  cspSource: string;
  nonce: string;
  scriptUri: string;
  styleUri: string;
  /** Localized UI strings (see TOKEN_WINDOW_STRINGS). */
  strings: Record<string, string>;
  lang?: string;
}

/** English UI strings; the host passes vscode.l10n.t() of each. */
export const TOKEN_WINDOW_STRINGS: Record<string, string> = {
  session: 'Session',
  noSessions: 'No MCP session yet. Tool calls through the Better Edit server appear here.',
  budget: 'Budget',
  used: 'used',
  reserve: 'reserve',
  free: 'free',
  setBudget: 'Set',
  byPriority: 'Tokens by priority',
  byKind: 'Tokens by kind',
  messages: 'Messages in the window',
  summary: 'Running summary',
  noSummary: 'Nothing evicted yet.',
  fingerprints: 'Evicted fingerprints',
  chart: 'Window tokens over time (red marks: evictions)',
  pin: 'Pin',
  pinned: 'pinned',
  unpin: 'Unpin',
  evict: 'Evict',
  priority: 'Priority',
  overflow: 'Over budget',
  keyboardHelp: 'Keys on a message: P pin/unpin, E evict, 1/2/3 priority high/medium/low, ↑/↓ move.',
  tokens: 'tokens',
  evictions: 'evictions',
  turns: 'Chat turns (@better-edit): prompt sent vs. budget',
  slidOut: 'slid out',
  entered: 'entered',
  recalled: 'recalled',
};

export function newNonce(): string {
  const chars = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789';
  let out = '';
  for (let i = 0; i < 32; i++) out += chars[Math.floor(Math.random() * chars.length)];
  return out;
}

function escapeHtml(s: string): string {
  return s.replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c]!);
}

export function renderTokenWindowHtml(o: TokenWindowHtmlOptions): string {
  const t = (key: string): string => escapeHtml(o.strings[key] ?? TOKEN_WINDOW_STRINGS[key] ?? key);
  // JSON in a non-executed script element; "<" escaped so no string can close the element.
  const stringsJson = JSON.stringify({ ...TOKEN_WINDOW_STRINGS, ...o.strings }).replace(/</g, '\\u003c');
  const csp = [
    "default-src 'none'",
    `style-src ${o.cspSource} 'nonce-${o.nonce}'`,
    `script-src 'nonce-${o.nonce}'`,
    `img-src ${o.cspSource} data:`,
    `font-src ${o.cspSource}`,
  ].join('; ');
  return `<!DOCTYPE html>
<html lang="${escapeHtml(o.lang ?? 'en')}">
<head>
<meta charset="UTF-8">
<meta http-equiv="Content-Security-Policy" content="${csp}">
<meta name="viewport" content="width=device-width, initial-scale=1.0">
<link rel="stylesheet" href="${escapeHtml(o.styleUri)}" nonce="${o.nonce}">
<title>Token Window</title>
</head>
<body>
<script type="application/json" id="strings" nonce="${o.nonce}">${stringsJson}</script>
<header class="toolbar">
  <label for="session">${t('session')}</label>
  <select id="session" aria-label="${t('session')}"></select>
</header>
<p id="empty" class="empty" hidden>${t('noSessions')}</p>
<p id="error" class="error" role="alert" hidden></p>
<main id="main">
  <section aria-labelledby="budget-title">
    <h2 id="budget-title">${t('budget')} <span id="budget-numbers" class="numbers"></span></h2>
    <div id="budget-bar" class="bar" role="img" aria-label="${t('budget')}">
      <div class="seg used" id="bar-used"></div><div class="seg summary" id="bar-summary"></div><div class="seg free" id="bar-free"></div><div class="seg reserve" id="bar-reserve"></div>
    </div>
    <div class="legend"><span class="sw used"></span>${t('used')} <span class="sw free"></span>${t('free')} <span class="sw reserve"></span>${t('reserve')}</div>
    <p id="warnings" class="warnings" role="status"></p>
    <form id="budget-form" class="budget-form">
      <label for="budget-input">max tokens</label>
      <input id="budget-input" type="number" min="100" step="100" required>
      <button type="submit">${t('setBudget')}</button>
    </form>
  </section>
  <section aria-labelledby="chart-title">
    <h2 id="chart-title">${t('chart')}</h2>
    <svg id="chart" class="chart" viewBox="0 0 300 80" preserveAspectRatio="none" role="img" aria-label="${t('chart')}"></svg>
  </section>
  <section class="split">
    <div><h2>${t('byPriority')}</h2><dl id="by-priority" class="kv"></dl></div>
    <div><h2>${t('byKind')}</h2><dl id="by-kind" class="kv"></dl></div>
  </section>
  <section aria-labelledby="turns-title" id="turns-section" hidden>
    <h2 id="turns-title">${t('turns')}</h2>
    <ol id="turns" class="turns"></ol>
  </section>
  <section aria-labelledby="messages-title">
    <h2 id="messages-title">${t('messages')} <span id="message-count" class="numbers"></span></h2>
    <p class="hint">${t('keyboardHelp')}</p>
    <ol id="messages" class="messages"></ol>
  </section>
  <section aria-labelledby="summary-title">
    <h2 id="summary-title">${t('summary')}</h2>
    <pre id="summary" class="summary"></pre>
  </section>
  <section aria-labelledby="fp-title">
    <h2 id="fp-title">${t('fingerprints')}</h2>
    <ol id="fingerprints" class="fingerprints"></ol>
  </section>
</main>
<script nonce="${o.nonce}" src="${escapeHtml(o.scriptUri)}"></script>
</body>
</html>`;
}
