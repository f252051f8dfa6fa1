//! A peer's link to its host: connecting, the handshake, the welcome, and the thread that reads what the host says next ([`open_link`]).
use std::io::{self, ErrorKind};
use std::net::{Shutdown, TcpStream, ToSocketAddrs};
use std::sync::mpsc::{self, Receiver};
use std::thread;
use std::time::{Duration, Instant};

use super::target::{JoinError, JoinTarget};
use super::wire::{ReadFailure, Writer, read_message};
use crate::app::log::LogStart;
use crate::net::handshake::{self, Channel};
use crate::net::protocol::HostMessage;

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
    let mut reading = stream.try_clone().map_err(unreachable)?;
    let welcome = read_message::<HostMessage>(&mut opener, &mut reading);
    let (id, start) = match welcome {
        Ok(HostMessage::Welcome { peer, start }) => (peer, *start),
        Ok(_) => {
            return Err(JoinError::Protocol {
                target: place,
                problem: "the host's first message is not its welcome".into(),
            });
        }
        Err(failure) => {
            return Err(JoinError::Protocol {
                target: place,
                problem: format!("the host's welcome: {}", failure.why),
            });
        }
    };
    if let Err(error) = start.values.validate() {
        return Err(JoinError::Protocol {
            target: place,
            problem: format!("the host's recipe: {error}"),
        });
    }
    let (sender, events) = mpsc::channel();
    thread::Builder::new()
        .name("share-host".into())
        .spawn(move || {
            loop {
                match read_message::<HostMessage>(&mut opener, &mut reading) {
                    Ok(HostMessage::Bye) => {
                        let _ = sender.send(PeerEvent::Closed("it ended the session".into()));
                        break;
                    }
                    Ok(message) => {
                        if sender.send(PeerEvent::Message(message)).is_err() {
                            break;
                        }
                    }
                    Err(ReadFailure { why, dropped }) => {
                        let _ = sender.send(if dropped {
                            PeerEvent::Dropped(why)
                        } else {
                            PeerEvent::Closed(why)
                        });
                        break;
                    }
                }
            }
            let _ = reading.shutdown(Shutdown::Both);
        })
        .map_err(unreachable)?;
    Ok(Link {
        id,
        start,
        events,
        writer: Writer { stream, sealer },
    })
}

/// What a peer's reading thread tells its frame loop.
pub(super) enum PeerEvent {
    Message(HostMessage),
    /// The host said something wrong, or ended the session.
    Closed(String),
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
    pub(super) writer: Writer,
}
