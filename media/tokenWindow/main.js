// Token Window webview: renders one session's ChatMemory and applies the host's deltas in place
// (rows added/removed/updated, bars and numbers patched) — no polling, no full re-render per change.
// Protocol: src/vscode/tokenWindow/protocol.ts.
/* global acquireVsCodeApi */
(function () {
  'use strict';
  const vscode = acquireVsCodeApi();
  const S = JSON.parse(document.getElementById('strings').textContent || '{}');
  const $ = (id) => document.getElementById(id);
  // Plain glyphs (no icon font is loaded: the CSP allows none from outside the extension).
  const KIND_ICON = {
    user_query: '?',
    tool_call: '→',
    tool_result: '←',
    assistant_code: '{}',
    assistant: 'A',
    system: 'S',
    note: 'N',
  };
  const PRIORITIES = ['high', 'medium', 'low'];

  let sessionId;
  let stats;
  let chart = [];
  let now = Date.now();
  let hostOffset = 0; // host clock − webview clock, so ages use the host's times
  const rows = new Map(); // id → <li>

  // ------------------------------------------------------------------ formatting

  const fmt = (n) => Number(n).toLocaleString('en');
  function age(time) {
    const s = Math.max(0, Math.round((Date.now() + hostOffset - time) / 1000));
    if (s < 60) return s + 's';
    if (s < 3600) return Math.floor(s / 60) + 'm';
    if (s < 86400) return Math.floor(s / 3600) + 'h';
    return Math.floor(s / 86400) + 'd';
  }
  function el(tag, cls, text) {
    const e = document.createElement(tag);
    if (cls) e.className = cls;
    if (text !== undefined) e.textContent = text;
    return e;
  }

  // ------------------------------------------------------------------ budget, stats, chart

  function renderStats() {
    if (!stats) return;
    const max = stats.maxTokens;
    const msgPct = (100 * Math.min(stats.messageTokens, stats.usableTokens)) / max;
    const sumPct = (100 * Math.min(stats.summaryTokens, Math.max(0, stats.usableTokens - stats.messageTokens))) / max;
    const reservePct = (100 * stats.reserveTokens) / max;
    const freePct = Math.max(0, 100 - msgPct - sumPct - reservePct);
    $('bar-used').style.width = msgPct + '%';
    $('bar-summary').style.width = sumPct + '%';
    $('bar-free').style.width = freePct + '%';
    $('bar-reserve').style.width = reservePct + '%';
    $('budget-bar').classList.toggle('overflow', stats.overflow);
    $('budget-bar').setAttribute(
      'aria-label',
      `${S.used} ${fmt(stats.usedTokens)} / ${fmt(stats.usableTokens)}, ${S.reserve} ${fmt(stats.reserveTokens)}`,
    );
    $('budget-numbers').textContent =
      `${fmt(stats.usedTokens)} / ${fmt(stats.usableTokens)} ${S.tokens} (${Math.round(stats.fill * 100)}%) · ` +
      `${S.reserve} ${fmt(stats.reserveTokens)} · ${fmt(stats.evictions)} ${S.evictions}` +
      (stats.overflow ? ` · ${S.overflow}` : '');
    $('warnings').textContent = stats.warnings.join(' ');
    const input = $('budget-input');
    if (document.activeElement !== input) input.value = String(stats.maxTokens);
    kv($('by-priority'), stats.byPriority, PRIORITIES);
    kv($('by-kind'), stats.byKind, Object.keys(stats.byKind));
    $('message-count').textContent = `(${fmt(stats.messages)})`;
  }

  function kv(dl, values, keys) {
    dl.textContent = '';
    const total = keys.reduce((s, k) => s + (values[k] || 0), 0) || 1;
    for (const k of keys) {
      if (!values[k] && !PRIORITIES.includes(k)) continue;
      const dt = el('dt', 'k-' + k, (KIND_ICON[k] ? KIND_ICON[k] + ' ' : '') + k);
      const dd = el('dd');
      const meter = el('span', 'meter p-' + k);
      meter.style.width = Math.round((100 * (values[k] || 0)) / total) + '%';
      dd.append(meter, el('span', 'num', fmt(values[k] || 0)));
      dl.append(dt, dd);
    }
  }

  function renderChart() {
    const svg = $('chart');
    const W = 300;
    const H = 80;
    svg.textContent = '';
    if (!stats || chart.length === 0) return;
    const top = Math.max(stats.maxTokens, ...chart.map((p) => p.used));
    const y = (v) => H - (H * v) / top;
    const x = (i) => (chart.length === 1 ? W : (W * i) / (chart.length - 1));
    const ns = 'http://www.w3.org/2000/svg';
    const line = (y0, cls) => {
      const l = document.createElementNS(ns, 'line');
      l.setAttribute('x1', '0');
      l.setAttribute('x2', String(W));
      l.setAttribute('y1', String(y0));
      l.setAttribute('y2', String(y0));
      l.setAttribute('class', cls);
      svg.append(l);
    };
    line(y(stats.usableTokens), 'budget-line');
    line(y(stats.maxTokens), 'max-line');
    const poly = document.createElementNS(ns, 'polyline');
    poly.setAttribute('points', chart.map((p, i) => `${x(i).toFixed(1)},${y(p.used).toFixed(1)}`).join(' '));
    poly.setAttribute('class', 'used-line');
    svg.append(poly);
    chart.forEach((p, i) => {
      if (!p.evicted) return;
      const c = document.createElementNS(ns, 'circle');
      c.setAttribute('cx', x(i).toFixed(1));
      c.setAttribute('cy', y(p.used).toFixed(1));
      c.setAttribute('r', '2');
      c.setAttribute('class', 'evict-mark');
      const title = document.createElementNS(ns, 'title');
      title.textContent = `${p.evicted} evicted`;
      c.append(title);
      svg.append(c);
    });
  }

  // ------------------------------------------------------------------ messages

  function fillRow(li, m) {
    li.textContent = '';
    li.dataset.id = m.id;
    li.dataset.priority = m.priority;
    li.className = `msg p-${m.priority}${m.pinned ? ' pinned' : ''}${m.status === 'error' ? ' error' : ''}`;
    li.tabIndex = 0;
    li.setAttribute('aria-label', `${m.kind} ${m.priority}${m.pinned ? ' pinned' : ''}, ${m.tokens} ${S.tokens}: ${m.head}`);
    const icon = el('span', 'icon', KIND_ICON[m.kind] || '•');
    icon.title = m.kind;
    const main = el('span', 'main');
    const top = el('span', 'top');
    top.append(
      el('span', 'id', m.id),
      el('span', 'kind', m.tool ? `${m.kind} ${m.tool}` : m.kind),
      el('span', 'prio', m.priority),
      el('span', 'tok', `${fmt(m.tokens)} tok`),
      el('span', 'age', age(m.time)),
    );
    if (m.pinned) top.append(el('span', 'pin-mark', S.pinned || 'pinned'));
    if (m.refs.length) top.append(el('span', 'refs', m.refs.join(', ')));
    main.append(top, el('span', 'head', m.head));
    const actions = el('span', 'actions');
    const pin = el('button', 'pin', m.pinned ? S.unpin : S.pin);
    pin.type = 'button';
    pin.dataset.action = m.pinned ? 'unpin' : 'pin';
    const select = el('select', 'prio-select');
    select.setAttribute('aria-label', S.priority);
    for (const p of PRIORITIES) {
      const o = el('option', '', p);
      o.value = p;
      o.selected = p === m.priority;
      select.append(o);
    }
    const evict = el('button', 'evict', S.evict);
    evict.type = 'button';
    evict.dataset.action = 'evict';
    evict.disabled = m.pinned;
    actions.append(pin, select, evict);
    li.append(icon, main, actions);
    li.__message = m;
  }

  function addRow(m) {
    const li = el('li');
    fillRow(li, m);
    rows.set(m.id, li);
    $('messages').append(li);
  }

  function removeRow(id) {
    const li = rows.get(id);
    if (!li) return;
    const focused = document.activeElement === li || li.contains(document.activeElement);
    const next = li.nextElementSibling || li.previousElementSibling;
    li.remove();
    rows.delete(id);
    if (focused && next) next.focus();
  }

  function addFingerprints(list, replace) {
    const ol = $('fingerprints');
    if (replace) ol.textContent = '';
    for (const f of list) {
      const li = el('li', '', f.text);
      li.title = f.id;
      ol.prepend(li); // newest first
    }
    while (ol.children.length > 50) ol.lastElementChild.remove();
  }

  function setSummary(text) {
    $('summary').textContent = text || S.noSummary;
  }

  function renderSessions(list, current) {
    const select = $('session');
    select.textContent = '';
    for (const s of list) {
      const o = el('option', '', `${s.sessionId.length > 24 ? s.sessionId.slice(0, 23) + '…' : s.sessionId} — ${s.messages} msgs, ${fmt(s.usedTokens)} tok`);
      o.value = s.sessionId;
      o.selected = s.sessionId === current;
      select.append(o);
    }
    $('empty').hidden = list.length > 0;
    $('main').hidden = list.length === 0;
  }

  // ------------------------------------------------------------------ chat turns (@better-edit)

  function renderTurns(turns) {
    const list = $('turns');
    list.textContent = '';
    $('turns-section').hidden = turns.length === 0;
    for (const t of turns.slice().reverse()) {
      const li = el('li', 'turn' + (t.peakTokens > t.limit ? ' over' : '') + (t.error ? ' failed' : ''));
      li.dataset.turn = String(t.turn);
      li.dataset.prompt = String(t.peakTokens);
      li.dataset.limit = String(t.limit);
      const pct = t.limit > 0 ? Math.round((100 * t.peakTokens) / t.limit) : 0;
      if (t.requests > 0) {
        li.append(el('div', 'turn-head', `#${t.turn} ${t.model} — ${fmt(t.peakTokens)} / ${fmt(t.limit)} ${S.tokens} (${pct}%; max ${fmt(t.maxInputTokens)}, ${S.reserve} ${fmt(t.reserveTokens)}) · ${t.requests}×`));
        const bar = el('div', 'bar turn-bar');
        const used = el('div', 'seg used');
        used.style.width = Math.min(100, pct) + '%';
        bar.append(used);
        li.append(bar);
      } else {
        li.append(el('div', 'turn-head', `#${t.turn}`)); // a slash command: no model request
      }
      li.append(el('div', 'turn-query', t.query));
      li.append(el('div', 'turn-flow', `+${t.entered} ${S.entered} (${fmt(t.enteredTokens)} ${S.tokens}) · −${t.slidOut.length} ${S.slidOut}` + (t.recalled.length ? ` · ${S.recalled} ${t.recalled.join(', ')}` : '')));
      if (t.slidOut.length) {
        const out = el('ul', 'turn-out');
        for (const s of t.slidOut.slice(0, 6)) out.append(el('li', 'slid', `${s.id} ${s.kind} ${fmt(s.tokens)}t — ${s.reason}`));
        li.append(out);
      }
      if (t.error) li.append(el('div', 'error', t.error));
      list.append(li);
    }
  }

  // ------------------------------------------------------------------ host messages

  window.addEventListener('message', (event) => {
    const msg = event.data;
    if (!msg || typeof msg !== 'object') return;
    switch (msg.type) {
      case 'init': {
        sessionId = msg.sessionId;
        stats = msg.stats;
        chart = msg.chart || [];
        now = msg.now;
        hostOffset = now - Date.now();
        rows.clear();
        $('messages').textContent = '';
        renderTurns([]);
        for (const m of msg.messages) addRow(m);
        setSummary(msg.summary);
        addFingerprints(msg.fingerprints, true);
        renderSessions(msg.sessions, sessionId);
        renderStats();
        renderChart();
        break;
      }
      case 'delta': {
        if (msg.sessionId !== sessionId) return;
        hostOffset = msg.now - Date.now();
        if (msg.cleared) {
          rows.clear();
          $('messages').textContent = '';
          addFingerprints([], true);
        }
        for (const id of msg.evicted || []) removeRow(id);
        for (const m of msg.added || []) addRow(m);
        for (const m of msg.updated || []) {
          const li = rows.get(m.id);
          if (!li) continue;
          const hadFocus = document.activeElement === li;
          fillRow(li, m);
          if (hadFocus) li.focus();
        }
        if (msg.fingerprints) addFingerprints(msg.fingerprints, false);
        if (msg.summary !== undefined) setSummary(msg.summary);
        stats = msg.stats;
        chart.push(msg.point);
        if (chart.length > 240) chart.shift();
        renderStats();
        renderChart();
        break;
      }
      case 'turns':
        if (msg.sessionId === sessionId) renderTurns(msg.turns || []);
        break;
      case 'sessions':
        renderSessions(msg.sessions, msg.sessionId !== undefined ? msg.sessionId : sessionId);
        break;
      case 'error': {
        const e = $('error');
        e.textContent = msg.message;
        e.hidden = false;
        setTimeout(() => (e.hidden = true), 6000);
        break;
      }
    }
  });

  // ------------------------------------------------------------------ user actions

  const rowOf = (node) => node && node.closest && node.closest('li.msg');
  function act(li, action, extra) {
    if (!li) return;
    vscode.postMessage(Object.assign({ type: action, id: li.dataset.id }, extra || {}));
  }

  $('messages').addEventListener('click', (e) => {
    const button = e.target.closest('button[data-action]');
    if (button) act(rowOf(button), button.dataset.action);
  });
  $('messages').addEventListener('change', (e) => {
    if (e.target.classList.contains('prio-select')) act(rowOf(e.target), 'setPriority', { priority: e.target.value });
  });
  $('messages').addEventListener('keydown', (e) => {
    const li = rowOf(e.target);
    if (!li || e.target !== li) return; // keys inside the row's own controls keep their meaning
    const m = li.__message;
    if (e.key === 'p' || e.key === 'P') act(li, m.pinned ? 'unpin' : 'pin');
    else if ((e.key === 'e' || e.key === 'E' || e.key === 'Delete') && !m.pinned) act(li, 'evict');
    else if (e.key >= '1' && e.key <= '3') act(li, 'setPriority', { priority: PRIORITIES[Number(e.key) - 1] });
    else if (e.key === 'ArrowDown' && li.nextElementSibling) li.nextElementSibling.focus();
    else if (e.key === 'ArrowUp' && li.previousElementSibling) li.previousElementSibling.focus();
    else return;
    e.preventDefault();
  });
  $('session').addEventListener('change', (e) => vscode.postMessage({ type: 'selectSession', sessionId: e.target.value }));
  $('budget-form').addEventListener('submit', (e) => {
    e.preventDefault();
    const value = Number($('budget-input').value);
    if (Number.isInteger(value) && value >= 100) vscode.postMessage({ type: 'setBudget', maxTokens: value });
  });

  // Ages are recomputed locally (no host round trip).
  setInterval(() => {
    for (const li of rows.values()) {
      const a = li.querySelector('.age');
      if (a && li.__message) a.textContent = age(li.__message.time);
    }
  }, 30000);

  vscode.postMessage({ type: 'ready' });
})();
