#!/bin/sh
# VS Code's DAP test client against tscript --dap. Needs node and npm (the first run installs
# @vscode/debugadapter-testsupport from the npm registry; later runs work offline).
set -e
cd "$(dirname "$0")"
root=$(cd ../.. && pwd)
[ -n "$TSCRIPT" ] || { (cd "$root" && cargo build -p v12-console-vm --bin tscript --locked); TSCRIPT="$root/target/debug/tscript"; }
[ -d node_modules/@vscode/debugadapter-testsupport ] || npm ci --no-audit --no-fund
TSCRIPT="$TSCRIPT" node --test test/
