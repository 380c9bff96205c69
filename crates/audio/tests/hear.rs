//! Tests that hear: sounds mixed into the capture device, and the samples checked.

use std::path::PathBuf;
use std::rc::Rc;

use v12_audio::{
    Audio, CAPTURE_RATE, Description, DeviceChoice, Handle, Sound, SourceParam, capture_spec, channel,
    load_sound, register_sound_loaders,
};

/// A sine tone as WAV bytes: `channels` alike, 16-bit.
fn tone(rate: u32, channels: u16, ms: u32, freq: f32) -> Vec<u8> {
    let mut out = std::io::Cursor::new(Vec::new());
    let spec = hound::WavSpec { channels, sample_rate: rate, ..capture_spec() };
    let mut w = hound::WavWriter::new(&mut out, spec).unwrap();
    let n = u64::from(rate) * u64::from(ms) / 1000;
    for i in 0..n {
        let s = ((i as f32 * freq / rate as f32 * std::f32::consts::TAU).sin() * 16_000.0) as i16;
        for _ in 0..channels {
            w.write_sample(s).unwrap();
        }
    }
    w.finalize().unwrap();
    out.into_inner()
}

fn sound(bytes: &[u8]) -> Rc<Sound> {
    Rc::new(Sound::from_bytes(bytes, "test.wav").unwrap())
}

fn memory() -> Audio {
    Audio::open(&DeviceChoice::Memory)
}

/// Summed absolute level of the left and right channels over `frames`.
fn levels(frames: &[[i16; 2]]) -> (f64, f64) {
    frames.iter().fold((0.0, 0.0), |(l, r), f| (l + f64::from(f[0]).abs(), r + f64::from(f[1]).abs()))
}

fn captured(a: &Audio) -> &[[i16; 2]] {
    a.device().captured().unwrap()
}

fn desc3d() -> Description {
    Description { is_3d: true, reference_distance: 2.0, max_distance: 50.0, ..Description::default() }
}

/// The level heard of `snd` played once as `desc` from `pos`, over 200 ms.
fn heard(snd: &Rc<Sound>, desc: &Description, pos: [f32; 3]) -> (f64, f64) {
    let mut a = memory();
    a.mixer_mut().play_sound(snd.clone(), desc, Some(pos)).unwrap();
    a.advance(200);
    levels(captured(&a))
}

#[test]
fn a_3d_sound_on_the_right_is_louder_in_the_right_channel() {
    let snd = sound(&tone(44_100, 1, 500, 440.0));
    let (l, r) = heard(&snd, &desc3d(), [10.0, 0.0, 0.0]);
    assert!(r > 0.0 && r > l * 10.0, "left {l} right {r}");
    let (l, r) = heard(&snd, &desc3d(), [-10.0, 0.0, 0.0]);
    assert!(l > r * 10.0, "left {l} right {r}");
    // Turned to face +x (up stays z), the same source on +x is in front: centred.
    let mut a = memory();
    a.mixer_mut().set_listener([0.0; 3], [1.0, 0.0, 0.0], [0.0, 0.0, 1.0]);
    a.mixer_mut().play_sound(snd, &desc3d(), Some([10.0, 0.0, 0.0])).unwrap();
    a.advance(200);
    let (l, r) = levels(captured(&a));
    assert!((l - r).abs() < l * 0.01, "left {l} right {r}");
}

#[test]
fn a_3d_sound_behind_fades_with_distance_and_is_silent_beyond_max() {
    let snd = sound(&tone(44_100, 1, 500, 440.0));
    let near = heard(&snd, &desc3d(), [0.0, -1.0, 0.0]);
    let mid = heard(&snd, &desc3d(), [0.0, -20.0, 0.0]);
    let far = heard(&snd, &desc3d(), [0.0, -40.0, 0.0]);
    let beyond = heard(&snd, &desc3d(), [0.0, -60.0, 0.0]);
    assert!(near.0 > mid.0 && mid.0 > far.0 && far.0 > 0.0, "{near:?} {mid:?} {far:?}");
    assert_eq!(beyond, (0.0, 0.0));
    // Behind is centred too (stereo cannot tell front from back).
    assert!((mid.0 - mid.1).abs() < mid.0 * 0.01);
}

#[test]
fn a_2d_sound_is_centred_and_ignores_position() {
    let snd = sound(&tone(44_100, 1, 500, 440.0));
    let (l, r) = heard(&snd, &Description::default(), [40.0, 0.0, 0.0]);
    assert!(l > 0.0);
    assert_eq!(l, r);
}

#[test]
fn cones_quiet_a_source_facing_away() {
    let snd = sound(&tone(44_100, 1, 500, 440.0));
    let d = Description {
        cone_inside_angle: 60.0,
        cone_outside_angle: 120.0,
        cone_outside_volume: 0.2,
        ..desc3d()
    };
    let level = |facing: [f32; 3]| {
        let mut a = memory();
        let m = a.mixer_mut();
        let h = m.create_source(snd.clone(), &d, Some([0.0, 10.0, 0.0])).unwrap();
        m.set_direction(h, facing);
        m.play(h);
        a.advance(100);
        levels(captured(&a)).0
    };
    let toward = level([0.0, -1.0, 0.0]);
    let away = level([0.0, 1.0, 0.0]);
    assert!((away / toward - 0.2).abs() < 0.01, "toward {toward} away {away}");
}

#[test]
fn one_shots_end_and_free_their_handle_while_loops_go_on_until_stopped() {
    let snd = sound(&tone(44_100, 1, 100, 440.0));
    let mut a = memory();
    let once = a.mixer_mut().play_sound(snd.clone(), &Description::default(), None).unwrap();
    let looping = Description { looping: true, channel: channel::EFFECT, ..Description::default() };
    let lp = a.mixer_mut().play_sound(snd, &looping, None).unwrap();
    a.advance(96);
    assert!(a.mixer().is_playing(once) && a.mixer().is_playing(lp));
    a.advance(64);
    assert!(!a.mixer().is_playing(once), "a 100 ms one-shot has ended at 160 ms");
    assert!(a.mixer().is_playing(lp));
    a.advance(840);
    assert!(a.mixer().is_playing(lp));
    let frames = captured(&a);
    // The loop is heard in the last tenth of the second, ten times its length on.
    assert!(levels(&frames[frames.len() - 4_410..]).0 > 0.0);
    assert!(a.mixer_mut().stop(lp));
    assert!(!a.mixer().is_playing(lp));
    a.advance(100);
    assert_eq!(levels(&captured(&a)[44_100..]), (0.0, 0.0));
    assert!(!a.mixer_mut().stop(lp), "a stopped handle is dead");
}

#[test]
fn channel_volume_scales_its_sources_only() {
    let snd = sound(&tone(44_100, 1, 500, 440.0));
    let fx = Description { channel: channel::EFFECT, ..Description::default() };
    let full = heard(&snd, &fx, [0.0; 3]).0;
    let mut a = memory();
    assert!(a.mixer_mut().set_channel_volume(channel::EFFECT, 0.25));
    assert_eq!(a.mixer().channel_volume(channel::EFFECT), Some(0.25));
    assert_eq!(a.mixer().channel_volume(channel::GUI), Some(1.0));
    a.mixer_mut().play_sound(snd.clone(), &fx, None).unwrap();
    a.advance(200);
    let quarter = levels(captured(&a)).0;
    assert!((quarter / full - 0.25).abs() < 0.01, "{quarter} / {full}");
    // Muted channel: silent; others unaffected.
    let mut a = memory();
    a.mixer_mut().set_channel_volume(channel::EFFECT, 0.0);
    a.mixer_mut().play_sound(snd.clone(), &fx, None).unwrap();
    a.advance(100);
    assert_eq!(levels(captured(&a)), (0.0, 0.0));
    assert!(!a.mixer_mut().set_channel_volume(99, 1.0));
    assert_eq!(a.mixer().channel_volume(99), None);
    // Junk: NaN is full volume, 7 is clamped to 1.
    assert!(a.mixer_mut().set_channel_volume(channel::EFFECT, f32::NAN));
    assert_eq!(a.mixer().channel_volume(channel::EFFECT), Some(1.0));
}

#[test]
fn other_rates_are_resampled_to_the_device_and_pitch_speeds_up() {
    // 250 ms at 22.05 kHz lasts 250 ms at 44.1 kHz.
    let snd = sound(&tone(22_050, 2, 250, 440.0));
    let mut a = memory();
    a.mixer_mut().play_sound(snd.clone(), &Description::default(), None).unwrap();
    a.advance(500);
    let frames = captured(&a);
    let last = frames.iter().rposition(|f| f[0] != 0).unwrap();
    assert!((last as i64 - 11_025).abs() < 50, "last sound at frame {last}");
    // Pitch 2: half as long.
    let mut a = memory();
    let m = a.mixer_mut();
    let h = m.create_source(snd, &Description::default(), None).unwrap();
    assert!(m.set_param(h, SourceParam::Pitch, 2.0));
    m.play(h);
    a.advance(500);
    let last = captured(&a).iter().rposition(|f| f[0] != 0).unwrap();
    assert!((last as i64 - 5_512).abs() < 50, "last sound at frame {last}");
}

#[test]
fn ogg_vorbis_decodes_and_plays() {
    let bytes = include_bytes!("data/tone.ogg");
    let snd = Rc::new(Sound::from_bytes(bytes, "tone.ogg").unwrap());
    assert_eq!(snd.format(), v12_audio::Format::OggVorbis);
    assert_eq!(snd.sample_rate(), 22_050);
    assert_eq!(snd.channels(), 1);
    assert!((snd.duration_ms() as i64 - 500).abs() <= 5, "{} ms", snd.duration_ms());
    assert!(!snd.is_streamed());
    let (l, r) = heard(&snd, &Description::default(), [0.0; 3]);
    assert!(l > 0.0 && l == r);
}

#[test]
fn long_files_stream_and_loop() {
    // 12 s at 8 kHz: over the streaming threshold.
    let snd = sound(&tone(8_000, 1, 12_000, 220.0));
    assert!(snd.is_streamed());
    assert_eq!(snd.duration_ms(), 12_000);
    let mut a = memory();
    let looping = Description { looping: true, ..Description::default() };
    let h = a.mixer_mut().play_sound(snd, &looping, None).unwrap();
    for _ in 0..400 {
        a.advance(32);
    }
    assert!(a.mixer().is_playing(h), "12.8 s in, the looping stream plays on");
    let frames = captured(&a);
    for second in 0..12 {
        let s = &frames[second * 44_100..(second + 1) * 44_100];
        assert!(levels(s).0 > 0.0, "second {second} is silent");
    }
    // The second pass starts with the file's start: silence only at its zero crossings.
    assert!(levels(&frames[12 * 44_100 + 100..12 * 44_100 + 4_000]).0 > 0.0);
}

#[test]
fn mixing_depends_on_simulated_time_only() {
    let snd = sound(&tone(22_050, 1, 300, 330.0));
    let run = |steps: &[u32]| {
        let mut a = memory();
        let d = desc3d();
        let h = a.mixer_mut().play_sound(snd.clone(), &d, Some([5.0, 5.0, 0.0])).unwrap();
        for (i, ms) in steps.iter().enumerate() {
            a.mixer_mut().set_position(h, [5.0 - i as f32 * 0.0, 5.0, 0.0]);
            a.advance(*ms);
        }
        captured(&a).to_vec()
    };
    let ticks = run(&[32; 15]);
    let uneven = run(&[1, 100, 7, 200, 172]);
    assert_eq!(ticks.len(), 480 * 441 / 10);
    assert_eq!(ticks, uneven);
    assert_eq!(ticks, run(&[32; 15]));
}

#[test]
fn the_capture_file_is_16_bit_stereo_44_1_khz() {
    let path: PathBuf = std::env::temp_dir().join(format!("v12-audio-capture-{}.wav", std::process::id()));
    let mut a = Audio::open(&DeviceChoice::Capture(path.clone()));
    let snd = sound(&tone(44_100, 1, 100, 440.0));
    a.mixer_mut().play_sound(snd, &Description::default(), None).unwrap();
    a.advance(250);
    a.finish().unwrap();
    let r = hound::WavReader::open(&path).unwrap();
    let spec = r.spec();
    assert_eq!((spec.channels, spec.sample_rate, spec.bits_per_sample), (2, CAPTURE_RATE, 16));
    assert_eq!(r.duration(), 11_025);
    let _ = std::fs::remove_file(&path);
    // A capture that cannot be written is the null device: no panic.
    let mut a = Audio::open(&DeviceChoice::Capture("/nonexistent-dir/x.wav".into()));
    a.advance(100);
    assert_eq!(a.device().name(), "null");
}

#[test]
fn bad_sound_files_are_errors_never_panics() {
    assert!(Sound::from_bytes(b"", "empty.wav").is_err());
    assert!(Sound::from_bytes(b"not a sound at all", "junk.wav").is_err());
    assert!(Sound::from_bytes(b"RIFF\x10\x00\x00\x00WAVEfmt ", "cut.wav").is_err());
    assert!(Sound::from_bytes(b"OggS\x00\x02garbage", "junk.ogg").is_err());
    // Truncated data: the header promises 500 ms; what is there plays, then the sound ends.
    let full = tone(44_100, 1, 500, 440.0);
    let cut = &full[..full.len() / 2];
    if let Ok(s) = Sound::from_bytes(cut, "cut.wav") {
        assert!(s.duration_ms() <= 260);
        let (l, _) = heard(&Rc::new(s), &Description::default(), [0.0; 3]);
        assert!(l > 0.0);
    }
    // Every prefix and a flipped byte anywhere in the Ogg file: no panic.
    let ogg = include_bytes!("data/tone.ogg");
    for n in (0..ogg.len()).step_by(97) {
        let _ = Sound::from_bytes(&ogg[..n], "cut.ogg")
            .map(|s| heard(&Rc::new(s), &Description::default(), [0.0; 3]));
    }
    for i in (0..ogg.len()).step_by(61) {
        let mut b = ogg.to_vec();
        b[i] ^= 0x5a;
        let _ =
            Sound::from_bytes(&b, "flip.ogg").map(|s| heard(&Rc::new(s), &Description::default(), [0.0; 3]));
    }
}

#[test]
fn sounds_load_through_the_resource_manager() {
    let dir = std::env::temp_dir().join(format!("v12-audio-mod-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(dir.join("sounds")).unwrap();
    std::fs::write(dir.join("sounds/beep.wav"), tone(44_100, 1, 50, 880.0)).unwrap();
    std::fs::write(dir.join("sounds/tone.ogg"), include_bytes!("data/tone.ogg")).unwrap();
    std::fs::write(dir.join("sounds/bad.wav"), b"RIFF junk").unwrap();
    let mut res = v12_resource::ResourceManager::new();
    res.add_mod(&dir).unwrap();
    register_sound_loaders(&mut res);
    let a = load_sound(&res, "sounds/beep.wav").unwrap();
    let b = load_sound(&res, "sounds/beep.wav").unwrap();
    assert!(Rc::ptr_eq(&a, &b), "one instance per path");
    assert_eq!(a.duration_ms(), 50);
    assert_eq!(load_sound(&res, "sounds/tone.ogg").unwrap().sample_rate(), 22_050);
    let missing = load_sound(&res, "sounds/missing.wav").unwrap_err().to_string();
    assert!(missing.contains("sounds/missing.wav"), "{missing}");
    let bad = load_sound(&res, "sounds/bad.wav").unwrap_err().to_string();
    assert!(bad.contains("sounds/bad.wav"), "{bad}");
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn handles_are_checked_and_sources_capped() {
    let snd = sound(&tone(44_100, 1, 50, 880.0));
    let mut a = memory();
    let m = a.mixer_mut();
    assert_eq!(Handle::from_raw(0), None);
    let dead = Handle::from_raw(12_345).unwrap();
    assert!(!m.play(dead) && !m.is_playing(dead) && !m.set_param(dead, SourceParam::Gain, 0.5));
    let mut made = 0;
    while m.create_source(snd.clone(), &Description::default(), None).is_some() {
        made += 1;
        assert!(made <= v12_audio::MAX_SOURCES);
    }
    assert_eq!(made, v12_audio::MAX_SOURCES);
    // Junk numbers are clamped, never kept.
    let h = Handle::from_raw(1).unwrap();
    assert!(m.set_param(h, SourceParam::Gain, f32::INFINITY));
    assert_eq!(m.param(h, SourceParam::Gain), Some(0.0));
    assert!(m.set_param(h, SourceParam::MaxDistance, -5.0));
    assert!(
        m.param(h, SourceParam::MaxDistance).unwrap() > m.param(h, SourceParam::ReferenceDistance).unwrap()
    );
    assert_eq!(SourceParam::from_al_name("al_gain_linear"), Some(SourceParam::Gain));
    assert_eq!(SourceParam::from_al_name("AL_BOGUS"), None);
}
