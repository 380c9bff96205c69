//! What the lockstep figure tests share: the seeded bots and a started peer-to-peer game.

use std::cell::Cell;
use std::rc::Rc;
use v12_lockstep::harness::{LinkConfig, PeerWorld};
use v12_lockstep::toy::{TOKENS_PER_PLAYER, ToyCommand, ToyGame};
use v12_lockstep::*;

/// Each bot issues a command with probability 1 / `COMMAND_ODDS` per millisecond (about
/// 4 commands per second per player, a busy RTS player).
pub const COMMAND_ODDS: u64 = 250;

/// A seeded bot decision: `Some(command)` when player `p` (bot index `i`) acts at `now`.
pub fn bot_command(now: u64, i: usize, p: PlayerId, seed: u64) -> Option<ToyCommand> {
    let h = (now ^ seed).wrapping_mul(0x9E37_79B9_7F4A_7C15).rotate_left(i as u32 * 7 + 3);
    let h = h ^ (h >> 29);
    h.is_multiple_of(COMMAND_ODDS).then(|| {
        let token = (usize::from(p) - 1) * TOKENS_PER_PLAYER + (h as usize >> 9) % TOKENS_PER_PLAYER;
        ToyCommand { token: token as u16, x: (h >> 21) as i16 % 90, y: (h >> 37) as i16 % 90 }
    })
}

/// Peers started and playing; seeded bots issue commands from `issue_from` (ms) on.
pub fn p2p_world(
    config: PeerConfig,
    n: usize,
    l: LinkConfig,
    seed: u64,
    issue_from: Rc<Cell<u64>>,
) -> (PeerWorld<ToyGame>, impl FnMut(u64, usize, &mut Peer<ToyGame>)) {
    let mut w = PeerWorld::<ToyGame>::new(config, n, l, seed);
    let mut bot = move |now: u64, i: usize, p: &mut Peer<ToyGame>| {
        if p.phase() == PeerPhase::Lobby && p.id() == 1 && p.players().len() == n {
            p.start(now, seed);
        }
        if p.phase() == PeerPhase::Playing
            && now >= issue_from.get()
            && let Some(cmd) = bot_command(now, i, p.id(), seed)
        {
            p.issue(now, cmd);
        }
    };
    let mut waited = 0;
    while w.peers().any(|p| p.phase() != PeerPhase::Playing) {
        w.step(&mut bot);
        waited += 1;
        assert!(
            waited < 30_000,
            "the game did not start: {:?}",
            w.peers().map(|p| (p.id(), p.phase(), p.players().len())).collect::<Vec<_>>()
        );
    }
    (w, bot)
}
