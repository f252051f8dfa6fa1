//! A peer's link to its host: connecting, the handshake, the welcome (within [`WELCOME_TIMEOUT`], its map's size checked before anything is made for it), the thread that reads what the host says next and the outbox its messages go through ([`open_link`]).
use std::io::{self, ErrorKind};
use std::net::{Shutdown, TcpStream, ToSocketAddrs};
use std::sync::mpsc::{self, Receiver, Sender};
use std::sync::{Arc, Mutex};
use std::thread;
use std::time::{Duration, Instant};

use super::gate::lock;
use super::limits::{PEER_QUEUE, WELCOME_TIMEOUT};
use super::target::{JoinError, JoinTarget};
use super::wire::{Outbox, ReadFailure, json, read_message};
use crate::app::log::LogStart;
use crate::net::frame::Opener;
use crate::net::handshake::{self, Channel};
use crate::net::protocol::{HostMessage, IDLE_TIMEOUT, PeerMessage};

/// Connects to `target` (trying again while it refuses, for up to
/// `patience`), proves the code, reads the host's welcome and starts the
/// thread that reads what the host says next.
pub(super) fn open_link(target: &JoinTarget, patience: Duration) -> Result<Link, JoinError> {
    let place = format!("{}:{}", target.host, target.port);
    let unreachable = |error| JoinError::Unreachable {
        target: place.clone(),
        error,
    };
    let started = Instant::now();
    let mut wait = Duration::from_millis(50);
    let stream = loop {
        let attempt = (target.host.as_str(), target.port)
            .to_socket_addrs()
            .and_then(|mut addresses| {
                addresses
                    .next()
                    .ok_or_else(|| io::Error::new(ErrorKind::NotFound, "the name has no address"))
            })
            .and_then(|address| TcpStream::connect_timeout(&address, Duration::from_secs(3)));
        match attempt {
            Ok(stream) => break stream,
            Err(error)
                if error.kind() == ErrorKind::ConnectionRefused && started.elapsed() < patience =>
            {
                thread::sleep(wait);
                wait = (wait * 2).min(Duration::from_secs(1));
            }
            Err(error) => return Err(unreachable(error)),
        }
    };
    let Channel {
        stream,
        sealer,
        mut opener,
    } = handshake::connect(stream, &target.code).map_err(|error| JoinError::Handshake {
        target: place.clone(),
        error,
    })?;
    let protocol = |problem: String| JoinError::Protocol {
        target: place.clone(),
        problem,
    };
    let (id, start) = match read_message::<HostMessage>(&mut opener, &stream, WELCOME_TIMEOUT) {
        Ok(HostMessage::Welcome { peer, start }) => (peer, *start),
        Ok(_) => {
            return Err(protocol(
                "the host's first message is not its welcome".into(),
            ));
        }
        Err(ReadFailure {
            timed_out: true, ..
        }) => {
            return Err(protocol(format!(
                "the host finished the handshake but sent no welcome within {} s (timed out)",
                WELCOME_TIMEOUT.as_secs()
            )));
        }
        Err(failure) => return Err(protocol(format!("the host's welcome: {}", failure.why))),
    };
    // Checked before anything is made for it: a map too big for any
    // headset is one line, not an allocation that fails.
    if let Err(error) = start.check_size() {
        return Err(protocol(format!("the host's welcome: {error}")));
    }
    if let Err(error) = start.values.validate() {
        return Err(protocol(format!("the host's recipe: {error}")));
    }
    let (sender, events) = mpsc::channel();
    // Why writing failed, for the reading thread to say: the link's end
    // shows there first as a broken pipe, its reason (a kick, a close) on
    // the reading side.
    let write_failed = Arc::new(Mutex::new(None::<String>));
    let failed = write_failed.clone();
    let outbox = Outbox::start(
        "share-peer-out".into(),
        &stream,
        sealer,
        PEER_QUEUE,
        None,
        json(&PeerMessage::Alive),
        move |why| *lock(&failed) = Some(why),
    )
    .map_err(unreachable)?;
    let reading = stream.try_clone().map_err(unreachable)?;
    thread::Builder::new()
        .name("share-host".into())
        .spawn(move || {
            read_host(&reading, opener, &sender, &write_failed);
            let _ = reading.shutdown(Shutdown::Both);
        })
        .map_err(unreachable)?;
    Ok(Link {
        id,
        start,
        events,
        outbox,
    })
}

/// The peer's reading thread: the host's messages to the frame loop, until
/// the host ends the session, closes this peer, or the link fails.
fn read_host(
    stream: &TcpStream,
    mut opener: Opener,
    events: &Sender<PeerEvent>,
    write_failed: &Mutex<Option<String>>,
) {
    loop {
        let event = match read_message::<HostMessage>(&mut opener, stream, IDLE_TIMEOUT) {
            Ok(HostMessage::Alive) => continue,
            Ok(HostMessage::Bye) => PeerEvent::Closed("it ended the session".into()),
            Ok(HostMessage::Closing { why }) => PeerEvent::Kicked(why),
            Ok(message) => {
                if events.send(PeerEvent::Message(message)).is_err() {
                    return;
                }
                continue;
            }
            Err(ReadFailure {
                why, dropped: true, ..
            }) => PeerEvent::Dropped(lock(write_failed).take().unwrap_or(why)),
            Err(ReadFailure { why, .. }) => {
                PeerEvent::Closed(format!("{why}; closed the connection"))
            }
        };
        let _ = events.send(event);
        return;
    }
}

/// What a peer's reading thread tells its frame loop.
pub(super) enum PeerEvent {
    Message(HostMessage),
    /// The host said something wrong, or ended the session.
    Closed(String),
    /// The host closed this peer's connection, for this reason.
    Kicked(String),
    /// The link failed: the peer tries to reach the host again.
    Dropped(String),
}

/// One connection to the host, its code proven and its welcome read.
pub(super) struct Link {
    /// The peer's number on it.
    pub(super) id: u32,
    /// The world the host's session starts from.
    pub(super) start: LogStart,
    /// What its reading thread hears.
    pub(super) events: Receiver<PeerEvent>,
    /// Where its messages go.
    pub(super) outbox: Outbox,
}
