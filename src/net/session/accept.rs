//! The host's listening side: the accepting thread, the handshakes, the back-off after failed ones, and each peer's reading thread.
use std::io::{self, ErrorKind};
use std::net::{Shutdown, TcpListener};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::mpsc::Sender;
use std::thread;
use std::time::{Duration, Instant};

use super::host::HostEvent;
use super::wire::{Writer, read_message};
use super::{MAX_FAILURE_DELAY, MAX_PEERS};
use crate::net::code::ShareCode;
use crate::net::handshake::{self, Channel, HandshakeError};
use crate::net::protocol::{PeerMessage, RateLimit};

/// The host's listening thread: handshakes one at a time, slower after
/// each failure, then a reading thread per peer.
pub(super) fn accept_loop(
    listener: TcpListener,
    code: ShareCode,
    events: Sender<HostEvent>,
    stop: Arc<AtomicBool>,
    connected: Arc<AtomicUsize>,
) {
    let mut failures: u32 = 0;
    let mut next_peer = 1;
    while !stop.load(Ordering::SeqCst) {
        let (stream, address) = match listener.accept() {
            Ok(accepted) => accepted,
            Err(error) if error.kind() == ErrorKind::WouldBlock => {
                thread::sleep(Duration::from_millis(20));
                continue;
            }
            Err(error) => {
                let _ = events.send(HostEvent::Refused(format!(
                    "could not accept a connection: {error}"
                )));
                thread::sleep(Duration::from_millis(200));
                continue;
            }
        };
        if connected.load(Ordering::SeqCst) >= MAX_PEERS {
            let _ = stream.shutdown(Shutdown::Both);
            let _ = events.send(HostEvent::Refused(format!(
                "refused {address}: the session has its {MAX_PEERS} peers"
            )));
            continue;
        }
        if failures > 0 {
            thread::sleep(failure_delay(failures));
        }
        let result = stream
            .set_nonblocking(false)
            .map_err(HandshakeError::Io)
            .and_then(|()| handshake::accept(stream, &code));
        match result {
            Ok(channel) => {
                failures = 0;
                let peer = next_peer;
                next_peer += 1;
                match start_peer_reader(peer, channel, events.clone()) {
                    Ok(writer) => {
                        connected.fetch_add(1, Ordering::SeqCst);
                        let _ = events.send(HostEvent::Joined {
                            peer,
                            address,
                            writer,
                        });
                    }
                    Err(error) => {
                        let _ = events.send(HostEvent::Refused(format!(
                            "could not serve {address}: {error}"
                        )));
                    }
                }
            }
            Err(error) => {
                failures = failures.saturating_add(1);
                let _ = events.send(HostEvent::Refused(format!("refused {address}: {error}")));
            }
        }
    }
}

/// How long the host waits before the next handshake after `failures`
/// failed ones in a row: 0.25 s, doubling, at most [`MAX_FAILURE_DELAY`].
pub fn failure_delay(failures: u32) -> Duration {
    let doubled =
        Duration::from_millis(250).saturating_mul(1 << failures.clamp(1, 8).saturating_sub(1));
    doubled.min(MAX_FAILURE_DELAY)
}

/// Starts the thread that reads `peer`'s messages; the writer for the frame loop.
fn start_peer_reader(peer: u32, channel: Channel, events: Sender<HostEvent>) -> io::Result<Writer> {
    let Channel {
        stream,
        sealer,
        mut opener,
    } = channel;
    let mut reading = stream.try_clone()?;
    thread::Builder::new()
        .name(format!("share-peer-{peer}"))
        .spawn(move || {
            let mut limit = RateLimit::for_peer();
            let why = loop {
                match read_message::<PeerMessage>(&mut opener, &mut reading) {
                    Ok(PeerMessage::Bye) => break "left".to_owned(),
                    Ok(message) => {
                        if !limit.allow(Instant::now()) {
                            break "sent messages faster than the bound; closed its connection"
                                .to_owned();
                        }
                        if events.send(HostEvent::Message { peer, message }).is_err() {
                            return;
                        }
                    }
                    Err(failure) => break failure.why,
                }
            };
            let _ = reading.shutdown(Shutdown::Both);
            let _ = events.send(HostEvent::Left { peer, why });
        })?;
    Ok(Writer { stream, sealer })
}
