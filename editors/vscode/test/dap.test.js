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
// Set once a test has sent its own `disconnect` (the adapter exits after answering it).
let disconnected;

async function disconnect() {
  await dc.disconnectRequest({});
  disconnected = true;
}

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
  disconnected = false;
  await dc.start();
});

afterEach(async () => {
  if (disconnected) dc.stopAdapter();
  else await dc.stop();
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

test("a cwd that does not hold the program fails the launch with its reason", async () => {
  await dc.initializeRequest();
  const elsewhere = fs.mkdtempSync(path.join(os.tmpdir(), "v12-vscode-cwd-"));
  try {
    const program = path.join(dir, "scripts", "main.cs");
    await assert.rejects(dc.launchRequest({ program, cwd: elsewhere }), /is not inside cwd/);
  } finally {
    fs.rmSync(elsewhere, { recursive: true, force: true });
  }
});

test("the disconnect after a failed launch is answered", async () => {
  await dc.initializeRequest();
  await assert.rejects(dc.launchRequest({ program: "nope.cs", cwd: dir }));
  await disconnect();
});

test("a relative program runs from cwd (not a 'cannot start tscript' error)", async () => {
  const output = [];
  dc.on("output", (e) => output.push(e.body.output));
  const terminated = dc.waitForEvent("terminated");
  await Promise.all([dc.configurationSequence(), dc.launch({ program: "./scripts/main.cs", cwd: dir })]);
  await terminated;
  assert.ok(output.join("").includes("done"), `the program ran to its end: ${output.join("")}`);
});

test("setBreakpoints sent before launch is kept and hit", async () => {
  const initialized = dc.waitForEvent("initialized");
  await dc.initializeRequest();
  await initialized;
  const set = await dc.setBreakpointsRequest({ source: { path: u2() }, breakpoints: [{ line: 4 }] });
  assert.ok(set.body.breakpoints[0].verified);
  await dc.configurationDoneRequest();
  const stopped = dc.waitForEvent("stopped");
  await dc.launchRequest(launchArgs());
  const ev = await stopped;
  assert.strictEqual(ev.body.reason, "breakpoint");
  const st = await dc.stackTraceRequest({ threadId: ev.body.threadId });
  assert.strictEqual(st.body.stackFrames[0].line, 4);
  assert.strictEqual(st.body.stackFrames[0].source.path, u2());
});

test("stackTrace honours startFrame and levels", async () => {
  fs.writeFileSync(
    path.join(dir, "scripts", "deep.cs"),
    "function down(%n)\n{\n   if (%n <= 0)\n      return 0;\n   return down(%n - 1) + 1;\n}\ndown(3);\n",
  );
  const deep = path.join(dir, "scripts", "deep.cs");
  await dc.hitBreakpoint({ program: "scripts/deep.cs", cwd: dir }, { path: deep, line: 4 });
  const all = (await dc.stackTraceRequest({ threadId: 1 })).body;
  assert.ok(all.stackFrames.length >= 4, `four calls of down: ${JSON.stringify(all.stackFrames)}`);
  const page = (await dc.stackTraceRequest({ threadId: 1, startFrame: 1, levels: 2 })).body;
  assert.strictEqual(page.stackFrames.length, 2);
  assert.strictEqual(page.totalFrames, all.stackFrames.length);
  assert.deepStrictEqual(
    page.stackFrames.map((f) => [f.name, f.line]),
    all.stackFrames.slice(1, 3).map((f) => [f.name, f.line]),
  );
});

test("pause during one long-running call stops it", async () => {
  fs.writeFileSync(
    path.join(dir, "scripts", "spin.cs"),
    'function spin()\n{\n   echo("spinning");\n   while (1)\n      $spun++;\n}\nspin();\n',
  );
  const spinning = new Promise((resolve) => {
    dc.on("output", (e) => {
      if (e.body.output.includes("spinning")) resolve();
    });
  });
  await Promise.all([dc.configurationSequence(), dc.launch({ program: "scripts/spin.cs", cwd: dir })]);
  await spinning;
  const stopped = dc.waitForEvent("stopped");
  await dc.pauseRequest({ threadId: 1 });
  const ev = await stopped;
  assert.strictEqual(ev.body.reason, "pause");
  const st = (await dc.stackTraceRequest({ threadId: 1 })).body;
  assert.strictEqual(st.stackFrames[0].name.toLowerCase(), "spin");
  await disconnect();
});

test("the Globals scope lists the script's globals", async () => {
  await dc.hitBreakpoint(launchArgs(), { path: u2(), line: 5 });
  const scopes = (await dc.scopesRequest({ frameId: 0 })).body.scopes;
  const globals = scopes.find((s) => s.name === "Globals");
  const vars = (await dc.variablesRequest({ variablesReference: globals.variablesReference })).body.variables;
  const count = vars.find((v) => v.name.toLowerCase() === "$count");
  assert.ok(count, `$count among ${vars.map((v) => v.name).join(" ")}`);
  assert.strictEqual(count.value, "4");
});

test("setVariable on a local changes what the script sees", async () => {
  await dc.hitBreakpoint(launchArgs(), { path: u2(), line: 4 });
  const locals = (await dc.scopesRequest({ frameId: 0 })).body.scopes[0];
  const set = await dc.setVariableRequest({ variablesReference: locals.variablesReference, name: "%x", value: "11" });
  assert.strictEqual(set.body.value, "11");
  await dc.nextRequest({ threadId: 1 });
  await dc.waitForEvent("stopped");
  const ev = await dc.evaluateRequest({ expression: "$count", frameId: 0, context: "repl" });
  assert.strictEqual(ev.body.result, "11");
});

test("an evaluate error is a failed response naming the problem", async () => {
  await dc.hitBreakpoint(launchArgs(), { path: u2(), line: 4 });
  const err = await dc.evaluateRequest({ expression: "%x +* 2", frameId: 0, context: "repl" }).then(
    () => null,
    (e) => e,
  );
  assert.ok(err, "the evaluate failed");
  assert.ok(err.message.length > 0);
});

test("a condition, a hit count and stepping out", async () => {
  fs.writeFileSync(
    path.join(dir, "scripts", "loop.cs"),
    "function body(%i)\n{\n   $last = %i;\n}\n\nfor ($i = 0; $i < 10; $i++)\n   body($i);\n",
  );
  const loop = path.join(dir, "scripts", "loop.cs");
  const initialized = dc.waitForEvent("initialized");
  await dc.initializeRequest();
  const stopped = dc.waitForEvent("stopped");
  const launched = dc.launchRequest({ program: "scripts/loop.cs", cwd: dir });
  await initialized;
  await dc.setBreakpointsRequest({ source: { path: loop }, breakpoints: [{ line: 3, condition: "%i == 6" }] });
  await dc.configurationDoneRequest();
  await launched;
  await stopped;
  let ev = await dc.evaluateRequest({ expression: "%i", frameId: 0, context: "watch" });
  assert.strictEqual(ev.body.result, "6", "the condition held");
  // The third pass over line 3 from here is body(9).
  const set = await dc.setBreakpointsRequest({ source: { path: loop }, breakpoints: [{ line: 3, hitCondition: "3" }] });
  assert.ok(set.body.breakpoints[0].verified);
  await Promise.all([dc.continueRequest({ threadId: 1 }), dc.waitForEvent("stopped")]);
  ev = await dc.evaluateRequest({ expression: "%i", frameId: 0, context: "watch" });
  assert.strictEqual(ev.body.result, "9", "the hit count held");
  await dc.setBreakpointsRequest({ source: { path: loop }, breakpoints: [] });
  await Promise.all([dc.stepOutRequest({ threadId: 1 }), dc.waitForEvent("stopped")]);
  const st = (await dc.stackTraceRequest({ threadId: 1 })).body;
  assert.notStrictEqual(st.stackFrames[0].name.toLowerCase(), "body", "stepped out of body");
  const terminated = dc.waitForEvent("terminated");
  await dc.continueRequest({ threadId: 1 });
  await terminated;
});
