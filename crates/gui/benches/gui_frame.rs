//! A GUI of 500 controls: time to build its draw list (no GL), and the frame time executing
//! that list on the headless llvmpipe context, batched vs one draw call per primitive
//! (`baseline_unbatched`). Draw calls per frame are printed once per configuration.

use criterion::{Criterion, Throughput, criterion_group, criterion_main};
use std::fmt::Write as _;
use std::time::Duration;
use v12_console_vm::Console;
use v12_gui::{ConsoleLog, GuiCanvas};
use v12_render_gl::{DrawList, HeadlessContext, OffscreenTarget, Renderer};

const W: u32 = 1024;
const H: u32 = 768;
const CONTROLS: usize = 500;

/// 25 windows (5 x 5) of 19 children each: texts, buttons, checkboxes, edits, sliders,
/// progress bars — 25 + 475 = 500 controls, plus the root.
fn build() -> (Console, GuiCanvas) {
    let mut con = Console::new();
    let canvas = GuiCanvas::new(&mut con, W as i32, H as i32, ConsoleLog::new(16)).expect("canvas");
    let mut s = String::from(
        r#"new GuiControlProfile(GuiDefaultProfile) { fontSize = 12; };
        new GuiControlProfile(BtnP) { fontSize = 12; opaque = 1; border = 1; };
        new GuiControl(Root) { extent = "1024 768";"#,
    );
    for w in 0..25 {
        let (x, y) = ((w % 5) * 204, (w / 5) * 153);
        let _ = write!(
            s,
            r#"new GuiWindowCtrl() {{ position = "{x} {y}"; extent = "200 150"; text = "Window {w}";"#
        );
        for c in 0..19 {
            let (cx, cy) = (4 + (c % 2) * 98, 22 + (c / 2) * 13);
            let class = [
                "GuiTextCtrl",
                "GuiButtonCtrl",
                "GuiCheckBoxCtrl",
                "GuiTextEditCtrl",
                "GuiSliderCtrl",
                "GuiProgressCtrl",
            ][c % 6];
            let _ = write!(
                s,
                r#"new {class}() {{ profile = "BtnP"; position = "{cx} {cy}"; extent = "94 12"; text = "item {c}"; value = 0.5; }};"#
            );
        }
        s.push_str("};");
    }
    s.push_str("}; Canvas.setContent(Root);");
    con.eval(&s).expect("gui script");
    (con, canvas)
}

fn bench(c: &mut Criterion) {
    let (mut con, mut canvas) = build();
    let mut list = DrawList::new();
    let info = canvas.render(&mut con, &mut list);
    assert_eq!(info.controls, CONTROLS + 1);
    let commands = list.len();

    let mut g = c.benchmark_group("gui_500_controls");
    g.throughput(Throughput::Elements(CONTROLS as u64));
    g.measurement_time(Duration::from_secs(3)).sample_size(20);
    g.bench_function("build_draw_list", |b| {
        b.iter(|| {
            list.clear();
            canvas.render(&mut con, &mut list);
        })
    });
    g.finish();

    let ctx = HeadlessContext::new().expect("headless EGL context");
    let target = OffscreenTarget::new(&ctx.gl(), W, H).expect("target");
    let mut r = Renderer::new(ctx.gl()).expect("renderer");
    let frame = |r: &mut Renderer, dl: &DrawList| {
        target.bind(r.gl());
        r.begin_frame(W, H);
        r.execute(dl);
        let s = r.end_frame();
        r.finish();
        s
    };
    r.set_batching(true);
    let batched = frame(&mut r, &list).draw_calls;
    r.set_batching(false);
    let unbatched = frame(&mut r, &list).draw_calls;
    eprintln!(
        "gui_500_controls: {commands} draw commands; draw calls per frame: batched {batched}, unbatched {unbatched}"
    );

    let mut g = c.benchmark_group("gui_500_frame_llvmpipe");
    g.throughput(Throughput::Elements(CONTROLS as u64));
    g.measurement_time(Duration::from_secs(3)).sample_size(10);
    r.set_batching(true);
    g.bench_function("batched", |b| b.iter(|| frame(&mut r, &list)));
    r.set_batching(false);
    g.bench_function("baseline_unbatched", |b| b.iter(|| frame(&mut r, &list)));
    g.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
