#!/usr/bin/env bash
# The e2e stage: the packaged extension in a real VS Code (code-server on Node 24), driven by Debian chromium.
#   layer 1: mocha inside the real extension host (test/e2e/suite, via the smoke-test driver's payload)
#   layer 2: UI through the DOM (scripts/e2e/ui-smoke.mjs), screenshots into .e2e/screenshots/ (or SHOTS_DIR;
#            only `npm run screenshots` copies them to media/screenshots/)
#   then the figures: sizes and start-up costs (scripts/e2e/measure.mjs)
# Exit: 0 pass, 1 test failure (incl. build/package/install of the extension), 2 infrastructure failure.
# Env: E2E_CACHE (default .e2e/cache), CS_VERSION, CHROMIUM, KEEP_RUNS (default 3), E2E_SKIP_BUILD=1, E2E_ONLY=ext|ui.
set -uo pipefail
ROOT="$(cd "$(dirname "$0")/../.." && pwd)"
cd "$ROOT"
: "${E2E_CACHE:=$ROOT/.e2e/cache}"
: "${KEEP_RUNS:=3}"
STAGE_START=$(date +%s)
# shellcheck source=toolchain.sh
source "$ROOT/scripts/e2e/toolchain.sh"

fail_infra() { e2e_log "INFRASTRUCTURE FAILURE: $*"; exit 2; }
fail_test() { e2e_log "TEST FAILURE: $*"; exit 1; }

# 1. The extension artifact (with the system Node: vsce 3.9.2 runs on Node 20).
mkdir -p "$ROOT/.e2e" # a clean checkout has no .e2e/ yet (it is git-ignored)
if [ "${E2E_SKIP_BUILD:-}" != 1 ]; then
  e2e_log "build + package"
  npm run -s package >"$ROOT/.e2e/package.log" 2>&1 || { tail -30 "$ROOT/.e2e/package.log"; fail_test "npm run package failed"; }
fi
VSIX="${E2E_VSIX:-$ROOT/better-edit-tools.vsix}"
[ -f "$VSIX" ] || fail_test "no $VSIX"
node "$ROOT/scripts/e2e/build-tests.mjs" "$ROOT/.e2e/out/suite" || fail_test "building the e2e tests failed"

# 2. Toolchain (apt, Node 24, code-server) - any failure here is infrastructure.
mkdir -p "$E2E_CACHE/runs"
e2e_toolchain "$ROOT" "$E2E_CACHE" || fail_infra "toolchain setup failed (see above)"

# 3. A fresh, isolated run dir: nothing lands in ~ or /tmp.
WORK="$(mktemp -d "$E2E_CACHE/runs/run.XXXXXX")" || fail_infra "mktemp"
ls -1dt "$E2E_CACHE"/runs/run.* 2>/dev/null | tail -n +$((KEEP_RUNS + 1)) | xargs -r rm -rf
mkdir -p "$WORK"/{tmp,xdg/config,xdg/data,xdg/cache,ud/User,exts}
export XDG_CONFIG_HOME="$WORK/xdg/config" XDG_DATA_HOME="$WORK/xdg/data" XDG_CACHE_HOME="$WORK/xdg/cache" TMPDIR="$WORK/tmp"
cat > "$WORK/ud/User/settings.json" <<'JSON'
{ "workbench.startupEditor": "none", "security.workspace.trust.enabled": false, "telemetry.telemetryLevel": "off",
  "update.mode": "none", "extensions.autoUpdate": false, "extensions.autoCheckUpdates": false,
  "workbench.tips.enabled": false, "workbench.colorTheme": "Default Dark Modern",
  "window.commandCenter": false, "editor.minimap.enabled": false, "workbench.secondarySideBar.defaultVisibility": "hidden",
  "chat.commandCenter.enabled": false }
JSON
WS="$WORK/ws"
node "$ROOT/scripts/demo-workspace.mjs" "$WS" || fail_infra "creating the workspace"
export WS
CSARGS=(--config /dev/null --user-data-dir "$WORK/ud" --extensions-dir "$WORK/exts")
e2e_log "run dir $WORK"

# 4. Install the .vsix exactly as a user would.
node "$CS_BIN" "${CSARGS[@]}" --install-extension "$VSIX" --force >"$WORK/install.log" 2>&1 \
  || { cat "$WORK/install.log"; fail_test "installing the .vsix failed"; }
EXT_ID="$(node -p "const p=require('./package.json'); p.publisher+'.'+p.name+'-'+p.version")"
export EXT_DEV_PATH="$WORK/exts/$EXT_ID"
[ -f "$EXT_DEV_PATH/package.json" ] || fail_test "the .vsix did not install to $EXT_DEV_PATH"
# The fixtures, installed the same way (test/e2e/<name>): the scripted language model the @better-edit tests pick, and
# Copilot Chat's two spill settings (its defaults) so the reply-size test can change them.
for FIXTURE in lm-provider copilot-settings; do
  { node "$ROOT/scripts/e2e/fixture-vsix.mjs" "$FIXTURE" "$WORK/$FIXTURE.vsix" && node "$CS_BIN" "${CSARGS[@]}" --install-extension "$WORK/$FIXTURE.vsix" --force; } >>"$WORK/install.log" 2>&1 \
    || { cat "$WORK/install.log"; fail_test "installing the $FIXTURE fixture failed"; }
done

# 5. One code-server, own process group, random loopback port.
setsid node "$CS_BIN" "${CSARGS[@]}" --bind-addr 127.0.0.1:0 --auth none --disable-telemetry --disable-update-check \
  --disable-workspace-trust --reconnection-grace-time 10 --vscode-option enable-smoke-test-driver "$WS" \
  >"$WORK/code-server.log" 2>&1 </dev/null &
CS_PGID=$!
cleanup() { kill -TERM -- "-$CS_PGID" 2>/dev/null || kill "$CS_PGID" 2>/dev/null || true; }
trap cleanup EXIT
PORT=""
for _ in $(seq 1 240); do
  PORT="$(grep -o 'HTTP server listening on http://127.0.0.1:[0-9]*' "$WORK/code-server.log" 2>/dev/null | grep -o '[0-9]*$' | head -1)"
  [ -n "$PORT" ] && curl -sf "http://127.0.0.1:$PORT/healthz" >/dev/null 2>&1 && break
  kill -0 "$CS_PGID" 2>/dev/null || break
  sleep 0.25
done
if [ -z "$PORT" ] || ! curl -sf "http://127.0.0.1:$PORT/healthz" >/dev/null 2>&1; then
  tail -30 "$WORK/code-server.log"; fail_infra "code-server did not become healthy"
fi
export PORT CHROMIUM
e2e_log "code-server on 127.0.0.1:$PORT"

# 6. Both layers run even if the first fails; any failure is exit 1.
rc=0
if [ "${E2E_ONLY:-}" != ui ]; then
  e2e_log "layer 1: mocha in the extension host"
  TESTS_DIR="$ROOT/.e2e/out/suite" timeout 300 node "$ROOT/scripts/e2e/run-ext-tests.mjs" || { rc=1; e2e_log "layer 1 FAILED"; }
fi
if [ "${E2E_ONLY:-}" != ext ]; then
  e2e_log "layer 2: UI through the DOM"
  SHOTS_DIR="${SHOTS_DIR:-$ROOT/.e2e/screenshots}" FAILSHOT="$WORK/ui-fail.png" timeout 300 node "$ROOT/scripts/e2e/ui-smoke.mjs" || { rc=1; e2e_log "layer 2 FAILED"; }
  SHOTS_DIR="${SHOTS_DIR:-$ROOT/.e2e/screenshots}" FAILSHOT="$WORK/ui-participant-fail.png" timeout 300 node "$ROOT/scripts/e2e/ui-participant.mjs" || { rc=1; e2e_log "layer 2b (@better-edit turns) FAILED"; }
fi
# 7. Figures for the log (Node 24, as in the host): bundle, .vsix and tarball sizes; extension load; CLI start.
e2e_log "figures"
timeout 300 node "$ROOT/scripts/e2e/measure.mjs" "$VSIX" || { rc=1; e2e_log "figures: a size goal was missed"; }
if [ $rc -ne 0 ]; then
  e2e_log "run dir kept: $WORK (code-server.log, ud/logs/*/exthost*/remoteexthost.log, ui-fail.png)"
  tail -15 "$WORK/code-server.log"
fi
e2e_log "e2e stage finished in $(( $(date +%s) - STAGE_START ))s with exit $rc"
exit $rc
