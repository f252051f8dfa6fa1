//! The host's listening side: the accepting thread, each connection's handshake on a thread of its own, taking a joiner in (its catch-up queued before anything else), and each peer's reading thread with its bounds.
use std::io::ErrorKind;
use std::net::{Shutdown, SocketAddr, TcpListener, TcpStream};
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::mpsc::Sender;
use std::thread;
use std::time::{Duration, Instant};

use super::gate::{InFlight, Ticket, lock};
use super::hosting::{HostEvent, Hosting};
use super::limits::{MAX_PEERS, PEER_QUEUE};
use super::wire::{Outbox, Outgoing, json, read_message};
use crate::net::frame::Opener;
use crate::net::handshake::{self, Channel, HANDSHAKE_TIMEOUT};
use crate::net::protocol::{
    HostMessage, IDLE_TIMEOUT, PEER_BURST, PEER_COMMAND_BURST, PEER_COMMANDS_PER_SECOND,
    PEER_MESSAGES_PER_SECOND, PeerMessage, RateLimit,
};

/// The host's listening thread: takes each connection and hands it to a
/// handshake thread of its own, so that no connection, however slow,
/// holds up another.
pub(super) fn accept_loop(listener: TcpListener, hosting: Arc<Hosting>) {
    let in_flight = Arc::new(InFlight::default());
    while !hosting.stop.load(Ordering::SeqCst) {
        hosting.say_held_back();
        let (stream, address) = match listener.accept() {
            Ok(accepted) => accepted,
            Err(error) if error.kind() == ErrorKind::WouldBlock => {
                thread::sleep(Duration::from_millis(20));
                continue;
            }
            Err(error) => {
                hosting.refuse(format!("could not accept a connection: {error}"));
                thread::sleep(Duration::from_millis(200));
                continue;
            }
        };
        if lock(&hosting.shared).peers.len() >= MAX_PEERS {
            let _ = stream.shutdown(Shutdown::Both);
            hosting.refuse(format!(
                "refused {address}: the session has its {MAX_PEERS} peers"
            ));
            continue;
        }
        // A guesser slowed down costs no handshake until its turn.
        if let Some(why) = hosting
            .gate
            .refuses(address.ip(), Instant::now() + HANDSHAKE_TIMEOUT)
        {
            let _ = stream.shutdown(Shutdown::Both);
            hosting.refuse(format!("refused {address}: {why}"));
            continue;
        }
        let ticket = match in_flight.enter(address, &stream) {
            Ok((ticket, made_room)) => {
                if let Some(line) = made_room {
                    hosting.refuse(line);
                }
                ticket
            }
            Err(error) => {
                hosting.refuse(format!("could not serve {address}: {error}"));
                continue;
            }
        };
        let hosting_there = hosting.clone();
        let spawned = thread::Builder::new()
            .name("share-handshake".into())
            .spawn(move || handshake(stream, address, &hosting_there, ticket));
        if let Err(error) = spawned {
            hosting.refuse(format!("could not serve {address}: {error}"));
        }
    }
}

/// One connection's handshake, all of it within [`HANDSHAKE_TIMEOUT`], its
/// verdict when the address's back-off allows; then the peer is taken in.
fn handshake(stream: TcpStream, address: SocketAddr, hosting: &Hosting, ticket: Ticket) {
    let deadline = Instant::now() + HANDSHAKE_TIMEOUT;
    let result = handshake::accept_until(stream, &hosting.code, deadline)
        .map_err(|error| error.to_string())
        .and_then(|pending| hosting.gate.verdict(address.ip(), pending));
    if ticket.pushed_out() {
        // Its line was said when it was closed.
        return;
    }
    drop(ticket);
    let served = result.and_then(|channel| take_in(channel, address, hosting));
    if let Err(why) = served {
        hosting.refuse(format!("refused {address}: {why}"));
    }
}

/// Takes the peer on `channel` in: its number, its catch-up (welcome, the
/// order so far, growth, placement) queued first on its own writing
/// thread, under the same lock as the frame loop's broadcasts, so it
/// misses nothing and gets nothing twice; then its reading thread.
fn take_in(channel: Channel, address: SocketAddr, hosting: &Hosting) -> Result<(), String> {
    let Channel {
        stream,
        sealer,
        opener,
    } = channel;
    let reading = stream.try_clone().map_err(|error| error.to_string())?;
    let peer = {
        let mut shared = lock(&hosting.shared);
        if hosting.stop.load(Ordering::SeqCst) {
            return Err("the host is leaving the session".into());
        }
        if shared.peers.len() >= MAX_PEERS {
            return Err(format!("the session has its {MAX_PEERS} peers"));
        }
        let peer = shared.next_peer;
        shared.next_peer += 1;
        // Before its writing thread can fail, so the frame loop hears of
        // it joining before it hears of it leaving.
        let _ = hosting.events.send(HostEvent::Joined { peer, address });
        let events = hosting.events.clone();
        let outbox = Outbox::start(
            format!("share-peer-{peer}-out"),
            &stream,
            sealer,
            PEER_QUEUE,
            Some(Outgoing::Send(shared.catch_up(peer))),
            json(&HostMessage::Alive),
            move |why| {
                let _ = events.send(HostEvent::Left { peer, why });
            },
        );
        match outbox {
            Ok(outbox) => shared.peers.push((peer, outbox)),
            Err(error) => {
                let why = format!("could not start its writing thread: {error}");
                let _ = hosting.events.send(HostEvent::Left { peer, why });
                return Ok(());
            }
        }
        peer
    };
    let events = hosting.events.clone();
    let ordered = hosting.ordered.clone();
    let spawned = thread::Builder::new()
        .name(format!("share-peer-{peer}-in"))
        .spawn(move || {
            let ended = read_peer(peer, &reading, opener, &ordered, &events);
            let _ = reading.shutdown(Shutdown::Read);
            let _ = events.send(ended);
        });
    if let Err(error) = spawned {
        let why = format!("could not start its reading thread: {error}");
        let _ = hosting.events.send(HostEvent::Left { peer, why });
    }
    Ok(())
}

/// Reads `peer`'s messages within their bounds and hands them to the
/// frame loop through `events`; what it ends with: the peer left (said
/// bye, closed, went silent), or it broke a bound and is to be closed.
fn read_peer(
    peer: u32,
    stream: &TcpStream,
    mut opener: Opener,
    ordered: &AtomicU64,
    events: &Sender<HostEvent>,
) -> HostEvent {
    let mut originated = RateLimit::for_peer();
    let mut commands = RateLimit::for_commands();
    let mut last_checksum: Option<u64> = None;
    loop {
        let message = match read_message::<PeerMessage>(&mut opener, stream, IDLE_TIMEOUT) {
            Ok(message) => message,
            Err(failure) if failure.dropped => {
                return HostEvent::Left {
                    peer,
                    why: failure.why,
                };
            }
            Err(failure) => {
                return HostEvent::Misbehaved {
                    peer,
                    why: failure.why,
                };
            }
        };
        let now = Instant::now();
        let broke = match &message {
            PeerMessage::Bye => {
                return HostEvent::Left {
                    peer,
                    why: "left".into(),
                };
            }
            // Checksums answer the host's order, so they are not counted
            // as the peer's own (a late joiner sends one for every command
            // it catches up on): one a command ordered at most, in order.
            &PeerMessage::Checksum { seq, .. } => {
                if seq >= ordered.load(Ordering::SeqCst) {
                    Some(format!(
                        "sent a checksum for shared command {seq}, not ordered yet"
                    ))
                } else if let Some(last) = last_checksum.filter(|&last| seq <= last) {
                    Some(format!(
                        "sent a checksum for shared command {seq} after one for {last}"
                    ))
                } else {
                    last_checksum = Some(seq);
                    None
                }
            }
            PeerMessage::Command { .. } if !commands.allow(now) => Some(format!(
                "sent terrain commands faster than the bound of {PEER_COMMAND_BURST} at once and {PEER_COMMANDS_PER_SECOND} a second"
            )),
            _ if !originated.allow(now) => Some(format!(
                "sent messages faster than the bound of {PEER_BURST} at once and {PEER_MESSAGES_PER_SECOND} a second (checksums apart)"
            )),
            _ => None,
        };
        if let Some(why) = broke {
            return HostEvent::Misbehaved { peer, why };
        }
        if matches!(message, PeerMessage::Alive) {
            continue;
        }
        if events.send(HostEvent::Message { peer, message }).is_err() {
            return HostEvent::Left {
                peer,
                why: "the host stopped".into(),
            };
        }
    }
}
