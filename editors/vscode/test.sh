#!/bin/sh
# VS Code's DAP test client (@vscode/debugadapter-testsupport) against tscript --dap, as an
# editor drives it. Needs node (18 or later: `node --test`) and npm; `npm ci` installs the
# client at the version package-lock.json pins (the npm registry on a first run; later runs
# reuse node_modules). TSCRIPT names the tscript program (default: built here).
set -e
cd "$(dirname "$0")"
root=$(cd ../.. && pwd)
if [ -z "$TSCRIPT" ]; then
  (cd "$root" && cargo build -p v12-console-vm --bin tscript --locked)
  TSCRIPT="$root/target/debug/tscript"
fi
[ -d node_modules/@vscode/debugadapter-testsupport ] || npm ci --no-audit --no-fund
TSCRIPT="$TSCRIPT" node --test test/
