//! Frame time of the client's game view with 1,000 objects plus the HUD on llvmpipe
//! (headless, 800×600), batched against one draw call per primitive (`baseline_unbatched`);
//! and the same frame with players and items as the game's animated shapes (frustum-culled,
//! detail by size) against the boxes and spheres drawn without shapes (`boxes`).

use criterion::{Criterion, criterion_group, criterion_main};
use std::path::Path;
use std::time::Duration;
use v12_console_vm::Console;
use v12_game::client::frame::HeadlessFrame;
use v12_game::client::ui::{ClientUi, HudState};
use v12_game::client::view::synthetic_world;
use v12_render_gl::DrawList;

fn frame(c: &mut Criterion) {
    let mut con = Console::new();
    con.set_file_root(Path::new(concat!(env!("CARGO_MANIFEST_DIR"), "/game")));
    let mut ui = ClientUi::new(&mut con, 800, 600).expect("client ui");
    ui.show(&mut con, "PlayGui").expect("PlayGui");
    ui.set_world(synthetic_world(1000));
    let hud = HudState {
        score: 7,
        health: 66,
        max_health: 100,
        energy: 42.0,
        max_energy: 60.0,
        ping_ms: 48.0,
        packet_loss: 0.02,
        kbps_in: 21.0,
    };
    ui.set_hud(&mut con, &hud);
    let mut list = DrawList::new();
    ui.render(&mut con, &mut list);
    let mut f = HeadlessFrame::new(800, 600).expect("headless EGL context");
    let mut g = c.benchmark_group("client_frame_1000_objects");
    g.measurement_time(Duration::from_secs(3)).sample_size(10);
    for (id, batching) in [("baseline_unbatched", false), ("batched", true)] {
        f.renderer.set_batching(batching);
        let calls = f.draw(&list).draw_calls;
        eprintln!("{id}: {calls} draw calls per frame");
        g.bench_function(id, |b| {
            b.iter(|| {
                ui.render(&mut con, &mut list);
                f.draw(&list)
            })
        });
    }
    g.finish();
    let mut g = c.benchmark_group("client_frame_1000_objects_shapes");
    g.measurement_time(Duration::from_secs(3)).sample_size(10);
    f.renderer.set_batching(true);
    let mut res = v12_resource::ResourceManager::new();
    res.add_mod(Path::new(concat!(env!("CARGO_MANIFEST_DIR"), "/game"))).expect("the example game");
    for (id, shapes) in [("boxes", false), ("animated_shapes", true)] {
        if shapes {
            ui.load_shapes(&res);
        }
        ui.render(&mut con, &mut list);
        let stats = f.draw(&list);
        eprintln!("{id}: {} draw calls, {} vertices per frame", stats.draw_calls, stats.vertices);
        g.bench_function(id, |b| {
            b.iter(|| {
                ui.render(&mut con, &mut list);
                f.draw(&list)
            })
        });
    }
    g.finish();
}

criterion_group!(benches, frame);
criterion_main!(benches);
