//! Protocol steps happen once per connection (issue 17): a hostile client repeating
//! `DataBlocksAck` spawned a player each time (5,000/s made the server unresponsive). The
//! `v12` host drops a connection whose ack is refused here; others are unaffected.

use v12_netobject::ConnectionId;
use v12_sim::game_connection::ServerGameConnection;

#[test]
fn a_second_datablocks_ack_is_a_protocol_error_for_that_connection_only() {
    let mut a = ServerGameConnection::new(ConnectionId(1));
    let mut b = ServerGameConnection::new(ConnectionId(2));
    assert!(a.accept_datablocks_ack().is_ok());
    for _ in 0..5_000 {
        assert!(a.accept_datablocks_ack().unwrap_err().contains("protocol error"));
    }
    assert!(b.accept_datablocks_ack().is_ok(), "another connection is unaffected");
}
