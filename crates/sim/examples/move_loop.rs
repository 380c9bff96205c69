//! The move loop in one program: a client collects a move per 32 ms tick from its input,
//! packs the unacknowledged ones into a packet (delta-coded, as `GameConnection` sends them),
//! the server reads them and its process list runs one per tick on the controlled object;
//! the client predicts the same object from the same moves, and both agree.
//!
//! `cargo run -p v12-sim --example move_loop`

use v12_bitstream::{BitReader, BitWriter};
use v12_sim::moves::{ClientMoveList, Move, ServerMoveList};
use v12_sim::process::{GameBase, ObjectArena, ProcessList, TICK_MS};

/// A walker: each move's x/y is a velocity in metres per second.
#[derive(Debug, Default)]
struct Walker {
    pos: (f32, f32),
}

impl GameBase for Walker {
    fn process_tick(&mut self, mv: Option<&Move>) {
        if let Some(m) = mv {
            let dt = TICK_MS as f32 / 1000.0;
            self.pos.0 += m.x() * 4.0 * dt;
            self.pos.1 += m.y() * 4.0 * dt;
        }
    }
}

fn main() {
    const PLAYER: u32 = 1;
    let mut server = ObjectArena::new();
    server.objects.insert(PLAYER, Walker::default());
    let mut server_list = ProcessList::server();
    server_list.add(PLAYER);
    let mut predicted = Walker::default();

    let mut client_moves = ClientMoveList::new();
    let mut server_moves = ServerMoveList::new();
    for tick in 0..50u32 {
        // Input: forward, then turn right half-way.
        let (x, y) = if tick < 25 { (0.0, 1.0) } else { (1.0, 0.0) };
        let mv = Move::from_input(x, y, 0.0, 0.0, 0.0, 0.0, [false; 6]);
        if let Some(id) = client_moves.collect(mv) {
            predicted.process_tick(client_moves.unacknowledged().find(|m| m.id == id));
        }
        // Every other tick a packet carries every move the server has not acknowledged.
        if tick % 2 == 1 {
            let mut w = BitWriter::new();
            let n = client_moves.write_moves(&mut w);
            let bytes = w.into_bytes();
            server_moves.read_packet(&mut BitReader::new(&bytes)).expect("our own packet");
            println!("tick {tick:>2}: a packet of {} bytes with {n} moves", bytes.len());
            while let Some(m) = server_moves.next_move() {
                server.moves.entry(PLAYER).or_default().push_back(m);
            }
            client_moves.acknowledge(server_moves.ack_id());
        }
        server_list.advance_server_time(TICK_MS, &mut server);
    }
    // The server has run every move it received; run out the rest.
    server_list.advance_server_time(TICK_MS * 4, &mut server);
    let s = server.objects[&PLAYER].pos;
    println!(
        "server position ({:.2}, {:.2}), client prediction ({:.2}, {:.2})",
        s.0, s.1, predicted.pos.0, predicted.pos.1
    );
}
