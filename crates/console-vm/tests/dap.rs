//! `tscript --dap` driven by a scripted Debug Adapter Protocol client, as an editor drives
//! it: launch a script, a breakpoint, the stack, locals, an evaluation, a step, the output,
//! the end.

use serde_json::{Value as Json, json};
use std::io::{BufReader, Write};
use std::process::{Command, Stdio};
use std::sync::mpsc;
use std::time::Duration;
use v12_console_vm::dap::{read_message, write_message};

struct Client {
    stdin: std::process::ChildStdin,
    rx: mpsc::Receiver<Json>,
    seq: i64,
    seen: Vec<Json>,
}

impl Client {
    fn request(&mut self, command: &str, arguments: Json) -> Json {
        let r = self.answer(command, arguments);
        assert_eq!(r["success"], true, "{command} failed: {r}");
        r["body"].clone()
    }

    /// The whole response to a request, failed or not.
    fn answer(&mut self, command: &str, arguments: Json) -> Json {
        self.seq += 1;
        let seq = self.seq;
        write_message(
            &mut self.stdin,
            &json!({"seq": seq, "type": "request", "command": command, "arguments": arguments}),
        )
        .unwrap();
        self.stdin.flush().unwrap();
        self.wait(|m| m["type"] == "response" && m["request_seq"] == seq)
    }

    /// The next message matching `want` (the others are kept in `seen`).
    fn wait(&mut self, want: impl Fn(&Json) -> bool) -> Json {
        loop {
            let m = self
                .rx
                .recv_timeout(Duration::from_secs(30))
                .unwrap_or_else(|_| panic!("waited in vain; seen {:#?}", self.seen));
            if want(&m) {
                return m;
            }
            self.seen.push(m);
        }
    }

    fn event(&mut self, name: &str) -> Json {
        self.wait(|m| m["type"] == "event" && m["event"] == name)["body"].clone()
    }
}

/// `tscript --dap` with a client on its pipes.
fn adapter() -> (std::process::Child, Client) {
    let mut child = Command::new(env!("CARGO_BIN_EXE_tscript"))
        .arg("--dap")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::inherit())
        .spawn()
        .unwrap();
    let out = child.stdout.take().unwrap();
    let (tx, rx) = mpsc::channel();
    std::thread::spawn(move || {
        let mut r = BufReader::new(out);
        while let Ok(Some(m)) = read_message(&mut r) {
            if tx.send(m).is_err() {
                break;
            }
        }
    });
    let c = Client { stdin: child.stdin.take().unwrap(), rx, seq: 0, seen: Vec::new() };
    (child, c)
}

#[test]
fn an_editor_launches_breaks_inspects_steps_and_ends() {
    let dir = std::env::temp_dir().join(format!("tscript-dap-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    let game = dir.join("game.cs");
    std::fs::write(
        &game,
        "function add(%a, %b)\n{\n   %sum = %a + %b;\n   echo(\"sum \" @ %sum);\n   return %sum;\n}\necho(\"done \" @ add(2, 3));\n",
    )
    .unwrap();
    let game = game.to_string_lossy().into_owned();
    let (mut child, mut c) = adapter();

    let caps = c.request("initialize", json!({"adapterID": "torquescript"}));
    assert_eq!(caps["supportsConfigurationDoneRequest"], true);
    c.event("initialized");
    c.request("launch", json!({"program": game}));
    let set = c.request("setBreakpoints", json!({"source": {"path": game}, "breakpoints": [{"line": 3}]}));
    assert_eq!(set["breakpoints"][0]["verified"], true);
    c.request("configurationDone", json!({}));

    let stopped = c.event("stopped");
    assert_eq!(stopped["reason"], "breakpoint");
    let threads = c.request("threads", json!({}));
    assert_eq!(threads["threads"].as_array().unwrap().len(), 1);
    let stack = c.request("stackTrace", json!({"threadId": 1}));
    let frames = stack["stackFrames"].as_array().unwrap();
    assert_eq!((frames[0]["name"].as_str(), frames[0]["line"].as_i64()), (Some("add"), Some(3)));
    assert_eq!(frames[0]["source"]["path"], game.as_str());
    assert_eq!(frames[1]["line"], 7);
    let scopes = c.request("scopes", json!({"frameId": 0}));
    let reference = scopes["scopes"][0]["variablesReference"].clone();
    let vars = c.request("variables", json!({"variablesReference": reference}));
    let vars: Vec<(String, String)> = vars["variables"]
        .as_array()
        .unwrap()
        .iter()
        .map(|v| (v["name"].as_str().unwrap().to_string(), v["value"].as_str().unwrap().to_string()))
        .collect();
    assert_eq!(vars[..2], [("%a".to_string(), "2".to_string()), ("%b".to_string(), "3".to_string())]);
    let eval = c.request("evaluate", json!({"expression": "%a * 10 + %b", "frameId": 0, "context": "watch"}));
    assert_eq!(eval["result"], "23");

    c.request("next", json!({"threadId": 1}));
    assert_eq!(c.event("stopped")["reason"], "step");
    let stack = c.request("stackTrace", json!({"threadId": 1}));
    assert_eq!(stack["stackFrames"][0]["line"], 4);

    c.request("continue", json!({"threadId": 1}));
    let mut printed = String::new();
    while !printed.contains("done 5") {
        printed.push_str(c.event("output")["output"].as_str().unwrap_or(""));
    }
    assert!(printed.contains("sum 5\n"), "{printed}");
    assert_eq!(c.event("exited")["exitCode"], 0);
    c.event("terminated");
    c.request("disconnect", json!({}));
    assert!(child.wait().unwrap().success());
}

/// `attach` joins a program that opened its debugger port itself (here `tscript
/// --dbg-port`, waiting for a client; `v12 -- -dbg` works the same), with the folder its
/// script names are relative to as `root`.
#[test]
fn an_editor_attaches_to_a_waiting_program() {
    let dir = std::env::temp_dir().join(format!("tscript-dap-attach-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::write(
        dir.join("work.cs"),
        "function twice(%n)\n{\n   return %n * 2;\n}\necho(\"got \" @ twice(21));\n",
    )
    .unwrap();
    // Port 0: the program binds a free port and says which on stdout, so the test attaches to a
    // port already held (picking one here could lose it to another process before the bind).
    let mut program = Command::new(env!("CARGO_BIN_EXE_tscript"))
        .args(["--dbg-port", "0", "--dbg-password", "pw", "work.cs"])
        .current_dir(&dir)
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let mut out = std::io::BufReader::new(program.stdout.take().unwrap());
    let port: u16 = loop {
        let mut line = String::new();
        assert!(std::io::BufRead::read_line(&mut out, &mut line).unwrap() > 0, "tscript did not listen");
        if let Some(p) = line.trim_end().strip_prefix("Debugger: waiting for a client on port ") {
            break p.parse().unwrap();
        }
    };
    // The rest of its output is not looked at, but must not fill the pipe.
    std::thread::spawn(move || std::io::copy(&mut out, &mut std::io::sink()));
    let (mut adapter, mut c) = adapter();
    c.request("initialize", json!({"adapterID": "torquescript"}));
    let root = dir.to_string_lossy().into_owned();
    // The adapter keeps trying for a few seconds while the program starts listening.
    c.request("attach", json!({"port": port, "password": "pw", "root": root}));
    let file = dir.join("work.cs").to_string_lossy().into_owned();
    c.request("setBreakpoints", json!({"source": {"path": file}, "breakpoints": [{"line": 3}]}));
    c.request("configurationDone", json!({}));
    assert_eq!(c.event("stopped")["reason"], "breakpoint");
    let stack = c.request("stackTrace", json!({"threadId": 1}));
    assert_eq!(stack["stackFrames"][0]["source"]["path"], file.as_str());
    assert_eq!(c.request("evaluate", json!({"expression": "%n", "frameId": 0}))["result"], "21");
    c.request("continue", json!({"threadId": 1}));
    let mut printed = String::new();
    while !printed.contains("got 42") {
        printed.push_str(c.event("output")["output"].as_str().unwrap_or(""));
    }
    c.event("terminated");
    c.request("disconnect", json!({}));
    assert!(program.wait().unwrap().success());
    assert!(adapter.wait().unwrap().success());
}

/// The issue-36 fixes as an editor meets them: a breakpoint set before `launch` in a file run
/// with `exec("./lib/u2.cs")` is hit; the Globals scope; objects expand to their fields;
/// `setVariable`; an evaluation that fails is a failed response; a script error is `stderr`
/// output; `pause` stops a long-running call; a missing program fails the launch with a
/// reason and the `disconnect` after it is answered.
#[test]
fn an_editor_meets_exec_paths_globals_objects_pause_and_errors() {
    let dir = std::env::temp_dir().join(format!("tscript-dap36-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(dir.join("scripts/lib")).unwrap();
    std::fs::write(
        dir.join("scripts/lib/u2.cs"),
        "function u2(%x)\n{\n   %o = new ScriptObject(Thing) { hp = 7; };\n   $count = %x;\n   return %o;\n}\n",
    )
    .unwrap();
    std::fs::write(
        dir.join("scripts/main.cs"),
        "exec(\"./lib/u2.cs\");\nu2(4);\nnosuch();\nfunction spin()\n{\n   echo(\"spinning\");\n   while ($go)\n      $n++;\n   echo(\"spun\");\n}\n$go = 1;\nspin();\n",
    )
    .unwrap();
    let u2 = dir.join("scripts/lib/u2.cs").to_string_lossy().into_owned();
    let (mut child, mut c) = adapter();
    c.request("initialize", json!({"adapterID": "torquescript"}));
    c.event("initialized");
    // Set before the launch: kept and sent once the program runs.
    let set = c.request("setBreakpoints", json!({"source": {"path": u2}, "breakpoints": [{"line": 4}]}));
    assert_eq!(set["breakpoints"][0]["verified"], true);
    c.request("launch", json!({"program": "scripts/main.cs", "cwd": dir.to_string_lossy()}));
    c.request("configurationDone", json!({}));
    assert_eq!(c.event("stopped")["reason"], "breakpoint");
    let stack = c.request("stackTrace", json!({"threadId": 1, "startFrame": 0, "levels": 1}));
    assert_eq!(stack["stackFrames"].as_array().unwrap().len(), 1);
    assert_eq!(stack["stackFrames"][0]["source"]["path"], u2.as_str());
    assert_eq!(stack["totalFrames"], 2);
    let scopes = c.request("scopes", json!({"frameId": 0}));
    assert_eq!(scopes["scopes"][1]["name"], "Globals");
    let locals =
        c.request("variables", json!({"variablesReference": scopes["scopes"][0]["variablesReference"]}));
    let o = locals["variables"].as_array().unwrap().iter().find(|v| v["name"] == "%o").unwrap().clone();
    let obj_ref = o["variablesReference"].as_i64().unwrap();
    assert!(obj_ref > 0, "an object expands: {o}");
    let fields = c.request("variables", json!({"variablesReference": obj_ref}));
    assert!(
        fields["variables"].as_array().unwrap().iter().any(|v| v["name"] == "hp" && v["value"] == "7"),
        "{fields}"
    );
    let set = c.request("setVariable", json!({"variablesReference": obj_ref, "name": "hp", "value": "9"}));
    assert_eq!(set["value"], "9");
    assert_eq!(c.request("evaluate", json!({"expression": "%o.hp", "frameId": 0}))["result"], "9");
    let bad = c.answer("evaluate", json!({"expression": "%x +* 2", "frameId": 0}));
    assert_eq!(bad["success"], false, "{bad}");
    c.request("next", json!({"threadId": 1}));
    c.event("stopped");
    let globals =
        c.request("variables", json!({"variablesReference": scopes["scopes"][1]["variablesReference"]}));
    assert!(
        globals["variables"].as_array().unwrap().iter().any(|v| v["name"] == "$count" && v["value"] == "4"),
        "{globals}"
    );
    c.request("continue", json!({"threadId": 1}));
    // The unknown function: an error on stderr.
    let err = c.wait(|m| m["event"] == "output" && m["body"]["category"] == "stderr");
    assert!(err["body"]["output"].as_str().unwrap().contains("nosuch"), "{err}");
    // spin() runs until paused, in one call.
    c.wait(|m| {
        m["event"] == "output" && m["body"]["output"].as_str().is_some_and(|o| o.contains("spinning"))
    });
    c.request("pause", json!({"threadId": 1}));
    assert_eq!(c.event("stopped")["reason"], "pause");
    let stack = c.request("stackTrace", json!({"threadId": 1}));
    assert_eq!(stack["stackFrames"][0]["name"], "spin");
    c.request(
        "setVariable",
        json!({"variablesReference": scopes["scopes"][1]["variablesReference"], "name": "$go", "value": "0"}),
    );
    c.request("continue", json!({"threadId": 1}));
    c.event("terminated");
    c.request("disconnect", json!({}));
    assert!(child.wait().unwrap().success());

    // A missing program: the launch fails with its reason, and the disconnect is answered.
    let (mut child, mut c) = adapter();
    c.request("initialize", json!({"adapterID": "torquescript"}));
    let r = c.answer("launch", json!({"program": "nope.cs", "cwd": dir.to_string_lossy()}));
    assert_eq!(r["success"], false);
    assert!(r["message"].as_str().unwrap().contains("does not exist"), "{r}");
    let r = c.answer("launch", json!({"program": u2, "cwd": dir.join("elsewhere").to_string_lossy()}));
    assert!(r["message"].as_str().unwrap().contains("not inside cwd"), "{r}");
    c.request("disconnect", json!({}));
    assert!(child.wait().unwrap().success());
    let _ = std::fs::remove_dir_all(&dir);
}
