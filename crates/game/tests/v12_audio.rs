//! Process-level sound: `v12 --audio-capture FILE.wav` on a listen server whose own client
//! plays (a script's `createServer` and `connect`). A probe mod puts a second player beside
//! the host's with the ball launcher's trigger held: its Fire state names `stateSound`, its
//! balls explode (`serverPlay3D`). The capture is a 16-bit stereo 44.1 kHz WAV file that is
//! not silent; and the session's journal, replayed, mixes the same capture to the byte
//! (mixing runs on the session's clock, which the journal replays).

// Shared with the other process tests; this one waits for no LISTENING line.
#[allow(dead_code)]
#[path = "common/procs.rs"]
mod procs;

use procs::{collect, start};
use std::time::Duration;

const PROBE: &str = "function probeShooter() {\n\
   if (ClientGroup.getCount() == 0) { schedule(200, 0, probeShooter); return; }\n\
   %me = ClientGroup.getObject(0).getControlObject();\n\
   if (!isObject(%me)) { schedule(200, 0, probeShooter); return; }\n\
   %s = new Player() { dataBlock = LightMale; position = VectorAdd(%me.getPosition(), \"4 2 0\"); };\n\
   %s.mountImage(BallLauncherImage, 0);\n\
   %s.setImageTrigger(0, true);\n\
   echo(\"PROBE shooter\");\n\
}\n\
schedule(500, 0, probeShooter);\n";

fn run(args: &[&str]) -> String {
    let (mut host, rx) = start(args);
    let lines = collect(&mut host, &rx, Duration::from_secs(60));
    let status = host.wait().expect("host exits");
    let all = lines.join("\n");
    assert!(status.success(), "exit {status:?}\n{all}");
    all
}

#[test]
fn a_listen_server_match_captured_to_wav_hears_the_weapon_and_replays_to_the_same_bytes() {
    let dir = procs::Scratch::new("audio-capture");
    std::fs::write(dir.join("probe.cs"), PROBE).unwrap();
    let (a, b, journal) = (dir.join("match.wav"), dir.join("replay.wav"), dir.join("match.jnl"));
    let path = |p: &std::path::Path| p.to_str().expect("a UTF-8 temp path").to_string();
    let (probe_mod, a_arg, b_arg, j_arg) = (path(&dir), path(&a), path(&b), path(&journal));
    let game = ["--", "-listen", "-bot", "-name", "Host", "-port", "0", "-seconds", "3"];
    let mut args = vec!["--audio-capture", &a_arg, "--journal-record", &j_arg];
    args.extend(["--add-mod", &probe_mod, "--exec", "probe.cs", "--seed", "7"]);
    args.extend(game);
    let all = run(&args);
    assert!(all.contains("PROBE shooter"), "{all}");
    assert!(!all.contains("is not an AudioProfile"), "{all}");
    let mut r = hound::WavReader::open(&a).expect("the capture is a WAV file");
    let spec = r.spec();
    assert_eq!((spec.channels, spec.sample_rate, spec.bits_per_sample), (2, 44_100, 16));
    // Seconds of match were mixed (the host runs in real time: at least 2 s of 3).
    assert!(r.duration() > 2 * 44_100, "{} frames", r.duration());
    let loud = r.samples::<i16>().filter_map(Result::ok).filter(|s| s.unsigned_abs() > 1_000).count();
    assert!(loud > 4_410, "only {loud} loud samples: the weapon was not heard\n{all}");
    // The journal replayed (no network): the same capture, byte for byte.
    let mut args = vec!["--audio-capture", &b_arg, "--journal-play", &j_arg];
    args.extend(["--add-mod", &probe_mod, "--exec", "probe.cs", "--seed", "7"]);
    args.extend(game);
    run(&args);
    let (x, y) = (std::fs::read(&a).unwrap(), std::fs::read(&b).unwrap());
    assert!(x == y, "the replay's capture differs ({} and {} bytes)", x.len(), y.len());
}

/// The window client's engine side (no window): the main menu plays its music (a streamed Ogg
/// Vorbis file on the music channel) into `--audio-capture`'s file.
#[test]
fn the_main_menu_plays_its_music_into_the_capture() {
    use v12_game::client::front::{ClientFront, WindowConfig};
    let dir = procs::Scratch::new("audio-menu");
    let wav = dir.join("menu.wav");
    let cfg = WindowConfig {
        connect: None,
        mod_dir: concat!(env!("CARGO_MANIFEST_DIR"), "/../../examples/game").into(),
        mods: Vec::new(),
        exec: Vec::new(),
        v12: procs::V12.into(),
        name: "Player".into(),
        journal: None,
        report: |_| {},
        audio_capture: Some(wav.clone()),
    };
    let mut front = ClientFront::new(cfg).expect("the client starts");
    let start = std::time::Instant::now();
    while start.elapsed() < Duration::from_millis(800) {
        front.frame().expect("a frame");
        std::thread::sleep(Duration::from_millis(10));
    }
    assert!(front.con.eval("return alxIsPlaying($MenuMusicHandle);").unwrap().truthy());
    drop(front); // closes the capture file
    let mut r = hound::WavReader::open(&wav).expect("the capture is a WAV file");
    assert!(r.duration() > 44_100 / 2, "{} frames", r.duration());
    let loud = r.samples::<i16>().filter_map(Result::ok).filter(|s| s.unsigned_abs() > 1_000).count();
    assert!(loud > 4_410, "only {loud} loud samples: no music");
}

/// The share of the energy at `hz` (left channel), by Goertzel over 1,024-frame windows
/// (so gaps and phase jumps between voice packets do not cancel it out).
fn share_at(samples: &[i16], hz: f64) -> f64 {
    let w = std::f64::consts::TAU * hz / 44_100.0;
    let left: Vec<f64> = samples.iter().step_by(2).map(|&s| f64::from(s)).collect();
    let (mut at, mut total) = (0.0f64, 0.0f64);
    for win in left.chunks_exact(1_024) {
        let (mut s1, mut s2) = (0.0f64, 0.0f64);
        for &x in win {
            total += x * x;
            let s0 = x + 2.0 * w.cos() * s1 - s2;
            s2 = s1;
            s1 = s0;
        }
        at += 2.0 * (s1 * s1 + s2 * s2 - 2.0 * w.cos() * s1 * s2) / win.len() as f64;
    }
    if total == 0.0 { 0.0 } else { at / total }
}

/// Voice chat between two processes: the listen server's own player speaks a WAV file
/// (`--audio-input`, push-to-talk through the example game's `voiceCapStart` and
/// `voiceCapStop`); a second `v12` joins over UDP and hears it in its capture, where only the
/// chat channel is left up (so nothing else is heard): the speaker's 440 Hz tone.
#[test]
fn a_player_speaks_a_wav_input_and_another_process_hears_it() {
    let dir = procs::Scratch::new("audio-voice");
    let speech = dir.join("speech.wav");
    let spec = hound::WavSpec {
        channels: 1,
        sample_rate: 22_050,
        bits_per_sample: 16,
        sample_format: hound::SampleFormat::Int,
    };
    let mut w = hound::WavWriter::create(&speech, spec).unwrap();
    for i in 0..22_050 * 2 {
        let s = (i as f32 * 440.0 / 22_050.0 * std::f32::consts::TAU).sin();
        w.write_sample((s * 16_000.0) as i16).unwrap();
    }
    w.finalize().unwrap();
    // The speaker talks from when its guest is in until the tone has all been said.
    std::fs::write(
        dir.join("talk.cs"),
        "function talkWhenJoined() {\n\
           if (ClientGroup.getCount() < 2) { schedule(100, 0, talkWhenJoined); return; }\n\
           voiceCapStart(); echo(\"PROBE talking\"); schedule(2500, 0, voiceCapStop);\n\
         }\n\
         schedule(100, 0, talkWhenJoined);\n",
    )
    .unwrap();
    // The listener hears only the chat channel.
    std::fs::write(
        dir.join("listen.cs"),
        "for ($c = 0; $c < 32; $c++) if ($c != $ChatAudioType) alxSetChannelVolume($c, 0);\n\
         echo(\"PROBE listening \" @ alxGetChannelVolume($EffectAudioType) @ \" \" @ alxGetChannelVolume($ChatAudioType));\n",
    )
    .unwrap();
    let path = |p: &std::path::Path| p.to_str().expect("a UTF-8 temp path").to_string();
    let (probe, speech_arg, heard) = (path(&dir), path(&speech), dir.join("heard.wav"));
    let heard_arg = path(&heard);
    let (mut host, host_rx) = start(&[
        "--audio-input",
        &speech_arg,
        "--add-mod",
        &probe,
        "--exec",
        "talk.cs",
        "--",
        "-listen",
        "-name",
        "Speaker",
        "-port",
        "0",
        "-seconds",
        "7",
    ]);
    let addr = procs::listening(&host_rx);
    let (mut guest, guest_rx) = start(&[
        "--connect",
        &addr,
        "--audio-capture",
        &heard_arg,
        "--add-mod",
        &probe,
        "--exec",
        "listen.cs",
        "--",
        "-bot",
        "-name",
        "Listener",
    ]);
    let host_lines = collect(&mut host, &host_rx, Duration::from_secs(60));
    let guest_lines = collect(&mut guest, &guest_rx, Duration::from_secs(30));
    assert!(host.wait().expect("host exits").success(), "{}", host_lines.join("\n"));
    assert!(guest.wait().expect("guest exits").success(), "{}", guest_lines.join("\n"));
    let all = host_lines.join("\n");
    assert!(all.contains("PROBE talking"), "{all}");
    let guest_all = guest_lines.join("\n");
    assert!(guest_all.contains("PROBE listening 0 1"), "{guest_all}");
    let samples: Vec<i16> =
        hound::WavReader::open(&heard).expect("a capture").samples::<i16>().filter_map(Result::ok).collect();
    let loud = samples.iter().step_by(2).filter(|s| s.unsigned_abs() > 3_000).count();
    // About two seconds of voice (some of it may be lost or late on a real network).
    assert!(loud > 44_100, "only {loud} loud frames: the voice was not heard\n{all}");
    let (tone, other) = (share_at(&samples, 440.0), share_at(&samples, 1_000.0));
    assert!(tone > 0.5 && other < 0.05, "not the speaker's tone: {tone} at 440 Hz, {other} at 1 kHz");
    // Heard in 2D (Tribes 2's voice): centred.
    let off: Vec<i32> =
        samples.chunks_exact(2).map(|f| i32::from(f[0]) - i32::from(f[1])).filter(|d| *d != 0).collect();
    assert!(
        off.is_empty(),
        "{} frames off centre, at most {}",
        off.len(),
        off.iter().map(|d| d.abs()).max().unwrap_or(0)
    );
}

/// Two independent live runs of the same scripted match (no journal): with `--audio-capture`
/// the host runs on simulated time, so the captures are the same to the byte.
#[test]
fn two_live_runs_of_a_scripted_match_capture_the_same_bytes() {
    let dir = procs::Scratch::new("audio-twice");
    std::fs::write(dir.join("probe.cs"), PROBE).unwrap();
    let path = |p: &std::path::Path| p.to_str().expect("a UTF-8 temp path").to_string();
    let probe_mod = path(&dir);
    let mut captures = Vec::new();
    for run_no in 0..2 {
        let wav = dir.join(format!("run{run_no}.wav"));
        let wav_arg = path(&wav);
        let mut args = vec!["--audio-capture", &wav_arg, "--add-mod", &probe_mod, "--exec", "probe.cs"];
        args.extend(["--seed", "7", "--", "-listen", "-bot", "-name", "Host", "-port", "0", "-seconds", "3"]);
        let all = run(&args);
        assert!(all.contains("PROBE shooter"), "{all}");
        captures.push(std::fs::read(&wav).unwrap());
    }
    let loud = hound::WavReader::new(&captures[0][..])
        .unwrap()
        .samples::<i16>()
        .filter_map(Result::ok)
        .filter(|s| s.unsigned_abs() > 1_000)
        .count();
    assert!(loud > 4_410, "only {loud} loud samples: the weapon was not heard");
    assert!(
        captures[0] == captures[1],
        "the runs' captures differ ({} and {} bytes)",
        captures[0].len(),
        captures[1].len()
    );
}
