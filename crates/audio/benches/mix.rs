//! Mixing cost (issue 34): one 32 ms tick (1,411 frames at 44.1 kHz) of 64 looping 3D voices
//! at 22.05 kHz (resampled), spread round the listener, into the null device; against a
//! baseline measured in the same run: the same tick with one voice, and a tick of 64 2D voices
//! at the device rate. docs/PERFORMANCE.md reports the 64-voice tick as a share of the 32 ms
//! of real time it stands for.

use std::hint::black_box;
use std::rc::Rc;

use criterion::{Criterion, criterion_group, criterion_main};
use v12_audio::{Audio, Description, DeviceChoice, Sound, capture_spec};

fn tone(rate: u32) -> Rc<Sound> {
    let mut out = std::io::Cursor::new(Vec::new());
    let spec = hound::WavSpec { channels: 1, sample_rate: rate, ..capture_spec() };
    let mut w = hound::WavWriter::new(&mut out, spec).unwrap();
    for i in 0..rate {
        let s = (i as f32 * 440.0 / rate as f32 * std::f32::consts::TAU).sin();
        w.write_sample((s * 16_000.0) as i16).unwrap();
    }
    w.finalize().unwrap();
    Rc::new(Sound::from_bytes(out.get_ref(), "tone.wav").unwrap())
}

fn audio_with(voices: usize, is_3d: bool, rate: u32) -> Audio {
    let mut a = Audio::open(&DeviceChoice::Null);
    let snd = tone(rate);
    let desc = Description {
        looping: true,
        is_3d,
        reference_distance: 5.0,
        max_distance: 200.0,
        ..Description::default()
    };
    for i in 0..voices {
        let angle = i as f32 * 0.7;
        let r = 3.0 + (i % 16) as f32 * 8.0;
        a.mixer_mut().play_sound(snd.clone(), &desc, Some([angle.cos() * r, angle.sin() * r, 0.0])).unwrap();
    }
    a
}

/// This thread's CPU time (s): what the mixing costs a core, whatever else runs on the machine.
fn cpu_s() -> f64 {
    let t = rustix::time::clock_gettime(rustix::time::ClockId::ThreadCPUTime);
    t.tv_sec as f64 + t.tv_nsec as f64 * 1e-9
}

/// CPU time per 32 ms tick over 1,000 ticks (32 s of sound), as a share of the 32 ms.
fn cpu_share(voices: usize, is_3d: bool, rate: u32) -> f64 {
    let mut a = audio_with(voices, is_3d, rate);
    a.advance(320);
    let t0 = cpu_s();
    for _ in 0..1_000 {
        a.advance(32);
    }
    (cpu_s() - t0) / 1_000.0 / 0.032
}

fn mix(c: &mut Criterion) {
    // The figure docs/PERFORMANCE.md reports: thread CPU time, so a busy machine does not
    // inflate it (criterion's wall-clock times below do).
    for (name, voices, is_3d, rate) in
        [("64 3D voices at 22.05 kHz", 64, true, 22_050), ("1 3D voice (baseline)", 1, true, 22_050)]
    {
        let share = cpu_share(voices, is_3d, rate);
        println!("cpu per 32 ms tick, {name}: {:.3} ms = {:.2} % of a core", share * 32.0, share * 100.0);
    }
    let mut g = c.benchmark_group("mix_tick_32ms");
    for (name, voices, is_3d, rate) in [
        ("voices64_3d_22k", 64, true, 22_050),
        ("baseline_voice1_3d_22k", 1, true, 22_050),
        ("baseline_voices64_2d_44k", 64, false, 44_100),
    ] {
        let mut a = audio_with(voices, is_3d, rate);
        g.bench_function(name, |b| {
            b.iter(|| {
                a.advance(32);
                black_box(a.mixer().source_count())
            })
        });
    }
    g.finish();
}

criterion_group!(benches, mix);
criterion_main!(benches);
