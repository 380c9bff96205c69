// `tscript --dap` driven by VS Code's own DAP test client (@vscode/debugadapter-testsupport),
// as the editor drives it. TSCRIPT names the tscript program (default: this checkout's
// target/debug/tscript). Run: npm ci && npm test (or editors/vscode/test.sh).
"use strict";
const { test, beforeEach, afterEach } = require("node:test");
const assert = require("node:assert");
const fs = require("node:fs");
const os = require("node:os");
const path = require("node:path");
const { DebugClient } = require("@vscode/debugadapter-testsupport");

const TSCRIPT = process.env.TSCRIPT || path.join(__dirname, "..", "..", "..", "target", "debug", "tscript");
let dc;
let dir;

beforeEach(async () => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), "v12-vscode-"));
  fs.mkdirSync(path.join(dir, "scripts", "lib"), { recursive: true });
  fs.writeFileSync(
    path.join(dir, "scripts", "lib", "u2.cs"),
    "function u2(%x)\n{\n   %o = new ScriptObject(Thing) { hp = 7; };\n   $count = %x;\n   return %o;\n}\n",
  );
  fs.writeFileSync(
    path.join(dir, "scripts", "main.cs"),
    'exec("./lib/u2.cs");\nu2(4);\nnosuch();\necho("done");\n',
  );
  dc = new DebugClient(TSCRIPT, "--dap", "torquescript");
  dc.defaultTimeout = 30000;
  await dc.start();
});

afterEach(async () => {
  await dc.stop();
  fs.rmSync(dir, { recursive: true, force: true });
});

const u2 = () => path.join(dir, "scripts", "lib", "u2.cs");
const launchArgs = () => ({ program: "scripts/main.cs", cwd: dir });

test("a breakpoint in a file run with exec(\"./lib/u2.cs\") is hit", async () => {
  await dc.hitBreakpoint(launchArgs(), { path: u2(), line: 4 });
});

test("locals, globals, an object's fields, setVariable and evaluate", async () => {
  await dc.hitBreakpoint(launchArgs(), { path: u2(), line: 4 });
  const scopes = (await dc.scopesRequest({ frameId: 0 })).body.scopes;
  assert.deepStrictEqual(scopes.map((s) => s.name), ["Locals", "Globals"]);
  const locals = (await dc.variablesRequest({ variablesReference: scopes[0].variablesReference })).body.variables;
  const o = locals.find((v) => v.name === "%o");
  assert.ok(o.variablesReference > 0, "an object expands");
  const fields = (await dc.variablesRequest({ variablesReference: o.variablesReference })).body.variables;
  assert.ok(fields.some((f) => f.name === "hp" && f.value === "7"));
  const set = await dc.setVariableRequest({ variablesReference: o.variablesReference, name: "hp", value: "9" });
  assert.strictEqual(set.body.value, "9");
  const ev = await dc.evaluateRequest({ expression: "%o.hp + %x", frameId: 0, context: "hover" });
  assert.strictEqual(ev.body.result, "13");
  await assert.rejects(dc.evaluateRequest({ expression: "%x +* 2", frameId: 0, context: "watch" }));
});

test("a script error is stderr output, and the program ends", async () => {
  const stderr = new Promise((resolve) => {
    dc.on("output", (e) => {
      if (e.body.category === "stderr" && e.body.output.includes("nosuch")) resolve(e.body.output);
    });
  });
  const terminated = dc.waitForEvent("terminated");
  await Promise.all([dc.configurationSequence(), dc.launch(launchArgs())]);
  assert.match(await stderr, /nosuch/);
  await terminated;
});

test("a missing program fails the launch with its reason", async () => {
  await dc.initializeRequest();
  await assert.rejects(dc.launchRequest({ program: "nope.cs", cwd: dir }), /does not exist/);
});
