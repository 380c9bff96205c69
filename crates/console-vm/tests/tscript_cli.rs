//! The `tscript` runner as a user sees it: exit codes, stdout/stderr, simulated time, `quit()`.

use std::path::PathBuf;
use std::process::{Command, Output};

/// A fresh folder holding `files`, used as the runner's working (and script root) folder.
fn folder(test: &str, files: &[(&str, &str)]) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("tscript-cli-{}-{test}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).expect("temp dir");
    for (name, text) in files {
        std::fs::write(dir.join(name), text).expect("write script");
    }
    dir
}

fn tscript(dir: &PathBuf, args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_tscript")).args(args).current_dir(dir).output().expect("run tscript")
}

fn text(b: &[u8]) -> String {
    String::from_utf8_lossy(b).into_owned()
}

#[test]
fn check_reports_file_line_col_and_exits_1() {
    let dir = folder(
        "check",
        &[
            ("good.cs", "function ok(%a) { return %a + 1; }\n"),
            ("bad.cs", "echo(\"fine\");\n\nfunction broken(%a {\n"),
            ("bad2.cs", "if (1) {\n  %x = ;\n}\n"),
        ],
    );
    let out = tscript(&dir, &["--check", "good.cs"]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    assert_eq!(text(&out.stdout), "");

    let out = tscript(&dir, &["--check", "good.cs", "bad.cs", "bad2.cs"]);
    assert_eq!(out.status.code(), Some(1));
    let err = text(&out.stderr);
    let lines: Vec<&str> = err.lines().collect();
    assert_eq!(lines.len(), 2, "{err}");
    assert!(lines[0].starts_with("bad.cs:3:20: "), "{err}");
    assert!(lines[1].starts_with("bad2.cs:2:8: "), "{err}");
    // --check only parses: nothing ran.
    assert_eq!(text(&out.stdout), "");
}

#[test]
fn runs_files_in_one_console_with_echo_to_stdout_and_errors_to_stderr() {
    let dir = folder(
        "run",
        &[
            ("a.cs", "$shared = 7;\necho(\"a says\" SPC $shared);\nerror(\"bad thing\");\n"),
            (
                "b.cs",
                "echo(\"b sees\" SPC $shared);\nwarn(\"careful\");\nnoSuchFunction();\necho(\"b goes on\");\n",
            ),
            ("broken.cs", "echo(\"never\";\n"),
        ],
    );
    let out = tscript(&dir, &["a.cs", "b.cs"]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    assert_eq!(text(&out.stdout), "a says 7\nb sees 7\nb goes on\n");
    let err = text(&out.stderr);
    assert!(err.contains("bad thing"), "{err}");
    assert!(err.contains("careful"), "{err}");
    assert!(err.contains("Unknown command noSuchFunction"), "{err}");

    // A syntax error in one file is reported and the other files still run; the exit code says so.
    let out = tscript(&dir, &["broken.cs", "a.cs"]);
    assert_eq!(out.status.code(), Some(1));
    assert!(text(&out.stderr).contains("broken.cs:1:"), "{}", text(&out.stderr));
    assert_eq!(text(&out.stdout), "a says 7\n");
}

#[test]
fn scheduled_events_fire_on_simulated_time_up_to_max_sim_ms() {
    let script = r#"
        function tick(%n) { echo("tick" SPC %n SPC getSimTime()); if (%n < 5) schedule(1000, 0, tick, %n + 1); }
        schedule(500, 0, tick, 1);
        $late = schedule(100000, 0, echo, "too late");
        echo("files done");
    "#;
    let dir = folder("sched", &[("s.cs", script)]);
    let out = tscript(&dir, &["s.cs"]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    // The event at 100 s is past the default limit (60 s) and never fires.
    assert_eq!(
        text(&out.stdout),
        "files done\ntick 1 500\ntick 2 1500\ntick 3 2500\ntick 4 3500\ntick 5 4500\n"
    );
    let out = tscript(&dir, &["--max-sim-ms", "200000", "s.cs"]);
    assert!(text(&out.stdout).ends_with("tick 5 4500\ntoo late\n"), "{}", text(&out.stdout));
    let out = tscript(&dir, &["--max-sim-ms", "2000", "s.cs"]);
    assert_eq!(text(&out.stdout), "files done\ntick 1 500\ntick 2 1500\n");
}

#[test]
fn quit_stops_files_and_events() {
    let dir = folder(
        "quit",
        &[
            (
                "q.cs",
                "schedule(10, 0, echo, \"event\");\nschedule(20, 0, quit);\nschedule(30, 0, echo, \"never\");\necho(\"q\");\n",
            ),
            ("now.cs", "echo(\"before\");\nquit();\necho(\"after\");\n"),
            ("next.cs", "echo(\"next file\");\n"),
        ],
    );
    let out = tscript(&dir, &["q.cs"]);
    assert_eq!(text(&out.stdout), "q\nevent\n");
    // As in V12, `quit()` asks the host to stop: the running file finishes, no further file runs.
    let out = tscript(&dir, &["now.cs", "next.cs"]);
    assert_eq!(text(&out.stdout), "before\nafter\n");
}

#[test]
fn lenient_makes_unknown_classes_plain_objects() {
    let dir = folder(
        "lenient",
        &[("g.cs", "new GuiFancyCtrl(Thing) { extent = \"1 2\"; };\necho(Thing.extent);\n")],
    );
    let out = tscript(&dir, &["g.cs"]);
    assert_eq!(text(&out.stdout), "\n");
    assert!(text(&out.stderr).contains("GuiFancyCtrl"), "{}", text(&out.stderr));
    let out = tscript(&dir, &["--lenient", "g.cs"]);
    assert_eq!(text(&out.stdout), "1 2\n");
}

#[test]
fn bad_usage_exits_2() {
    let dir = folder("usage", &[]);
    assert_eq!(tscript(&dir, &[]).status.code(), Some(2));
    assert_eq!(tscript(&dir, &["--bogus", "x.cs"]).status.code(), Some(2));
}

/// The debugger over real TCP (loopback), as a Torque debugger front-end drives `tscript`:
/// wrong password refused, then a breakpoint, `EVAL` of a local, a step, `COUT`, continue.
///
/// No timing in it: the test connects only once `tscript` has said (on stdout) that it
/// listens, so it never polls a port nobody holds yet. Polling did flake under load: a
/// `connect` to a free loopback port can pick that same port as its own source and connect
/// to itself (TCP simultaneous open), and a port picked here can be taken by another process
/// before `tscript` binds it. A script that cannot bind its port says so and runs on without
/// the debugger; the test then tries again with another port.
#[test]
fn dbg_set_parameters_serves_a_debugger_client_over_tcp() {
    use std::io::{BufRead, BufReader, Read, Write};
    use std::net::TcpStream;
    use std::time::Duration;

    let game = "function add(%a, %b)\n{\n   %sum = %a + %b;\n   echo(\"sum \" @ %sum);\n   return %sum;\n}\necho(\"done \" @ add(2, 3));\n";
    // A guard against a hang, not a timing: nothing here waits on the clock to go on.
    let guard = Some(Duration::from_secs(120));
    let mut tries = 0;
    let (mut child, port, mut stdout, mut seen) = loop {
        tries += 1;
        let port = std::net::TcpListener::bind("127.0.0.1:0").unwrap().local_addr().unwrap().port();
        let main = format!("dbgSetParameters({port}, \"pw\", true);\nexec(\"game.cs\");\n");
        let dir = folder("dbg", &[("main.cs", &main), ("game.cs", game)]);
        let mut child = Command::new(env!("CARGO_BIN_EXE_tscript"))
            .arg("main.cs")
            .current_dir(&dir)
            .stdout(std::process::Stdio::piped())
            .stderr(std::process::Stdio::piped())
            .spawn()
            .expect("run tscript");
        let mut stdout = BufReader::new(child.stdout.take().expect("stdout"));
        let listening = format!("Debugger: waiting for a client on port {port}");
        let mut seen = String::new();
        let ready = loop {
            let mut line = String::new();
            if stdout.read_line(&mut line).expect("tscript stdout") == 0 {
                break false;
            }
            seen.push_str(&line);
            if line.trim_end() == listening {
                break true;
            }
        };
        if ready {
            break (child, port, stdout, seen);
        }
        // The port was taken before tscript bound it: the script ran without a debugger.
        let out = child.wait_with_output().expect("tscript output");
        let err = text(&out.stderr);
        assert!(
            err.contains("cannot listen on port") && tries < 10,
            "no debugger port ({tries} tries): {err}"
        );
    };
    let connect = || {
        let s = TcpStream::connect(("127.0.0.1", port)).expect("tscript listens");
        s.set_read_timeout(guard).unwrap();
        s
    };
    // A wrong password is refused and the connection closed.
    let mut s = connect();
    s.write_all(b"nope\r\n").unwrap();
    let mut r = BufReader::new(s.try_clone().unwrap());
    let mut line = String::new();
    r.read_line(&mut line).unwrap();
    assert_eq!(line.trim_end(), "PASS WrongPassword.");
    line.clear();
    assert_eq!(r.read_line(&mut line).unwrap_or(0), 0, "closed after a wrong password: {line}");

    let mut s = connect();
    let mut r = BufReader::new(s.try_clone().unwrap());
    let mut expect = |prefix: &str| -> String {
        loop {
            let mut line = String::new();
            assert!(r.read_line(&mut line).unwrap() > 0, "closed while waiting for {prefix}");
            if line.starts_with(prefix) {
                return line.trim_end().to_string();
            }
        }
    };
    s.write_all(b"pw\r\n").unwrap();
    expect("PASS Connected.");
    s.write_all(b"BRKSET game.cs 3 0 0 true\r\nCONTINUE\r\n").unwrap();
    assert_eq!(expect("BREAK"), "BREAK game.cs 3 add game.cs 7 <none> main.cs 2 <none>");
    s.write_all(b"EVAL 1 0 %a @ \"/\" @ %b\r\n").unwrap();
    assert_eq!(expect("EVALOUT"), "EVALOUT 1 2/3");
    s.write_all(b"STEPOVER\r\n").unwrap();
    expect("RUNNING");
    assert!(expect("BREAK").starts_with("BREAK game.cs 4 add"));
    s.write_all(b"STEPOVER\r\n").unwrap();
    assert_eq!(expect("COUT"), "COUT sum 5");
    assert!(expect("BREAK").starts_with("BREAK game.cs 5 add"));
    s.write_all(b"BRKCLR game.cs 3\r\nCONTINUE\r\n").unwrap();
    assert_eq!(expect("COUT"), "COUT done 5");
    stdout.read_to_string(&mut seen).expect("tscript stdout");
    let status = child.wait().unwrap();
    let mut err = String::new();
    child.stderr.take().expect("stderr").read_to_string(&mut err).expect("tscript stderr");
    assert_eq!(status.code(), Some(0), "{err}");
    assert!(seen.ends_with("sum 5\ndone 5\n"), "{seen}");
}

#[test]
fn max_sim_ms_bounds_a_script_that_reschedules_itself_at_zero() {
    let script =
        "function spin(%n) { if (%n == 40) echo(\"spun 40\"); schedule(0, 0, spin, %n + 1); }\nspin(0);\n";
    let dir = folder("spin", &[("spin.cs", script)]);
    let mut child = Command::new(env!("CARGO_BIN_EXE_tscript"))
        .args(["--max-sim-ms", "100", "spin.cs"])
        .current_dir(&dir)
        .stdout(std::process::Stdio::piped())
        .spawn()
        .expect("run tscript");
    // A guard, not a timing: before the fix the runner never exits.
    let mut waited = 0;
    while child.try_wait().expect("wait").is_none() {
        if waited >= 600 {
            let _ = child.kill();
            let _ = child.wait();
            panic!("tscript --max-sim-ms 100 still spinning after a minute");
        }
        std::thread::sleep(std::time::Duration::from_millis(100));
        waited += 1;
    }
    let out = child.wait_with_output().expect("output");
    assert_eq!(out.status.code(), Some(0));
    // Each frame advances simulated time by at least 1 ms: about 100 spins, then the deadline.
    assert_eq!(text(&out.stdout), "spun 40\n");
}
