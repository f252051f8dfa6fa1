//! A hostile peer, and a hostile host, for the shared-session tests: they speak the real protocol (the crate's own handshake, frames and messages) and then do what an honest end never would — hold connections open, drip bytes, go silent, never read, flood, lie in their checksums, announce a map no headset can hold, or never welcome.
use std::io::{ErrorKind, Write};
use std::net::{Shutdown, TcpListener, TcpStream};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::thread::{self, JoinHandle};
use std::time::{Duration, Instant};

use holoterrain::net::ShareCode;
use holoterrain::net::handshake::{self, Channel, MAGIC};
use holoterrain::net::protocol::{HostMessage, PROTOCOL_VERSION, PeerMessage};

/// A peer that proved the code and read its welcome, and from then on
/// does what the test tells it.
pub struct Hostile {
    pub channel: Channel,
    /// Its number, from the welcome.
    pub peer: u32,
    last_sent: Instant,
}

impl Hostile {
    /// Joins the host on `port` with `code`: the handshake, then the
    /// welcome, which the host's handshake thread sends at once.
    pub fn join(port: u16, code: &str) -> Hostile {
        let stream = TcpStream::connect(("127.0.0.1", port)).unwrap();
        let mut channel = handshake::connect(stream, &ShareCode::parse(code).unwrap()).unwrap();
        channel
            .stream
            .set_read_timeout(Some(Duration::from_secs(10)))
            .unwrap();
        let welcome = channel.opener.read(&mut channel.stream).unwrap();
        let peer = match serde_json::from_slice(&welcome).unwrap() {
            HostMessage::Welcome { peer, .. } => peer,
            other => panic!("the host's first message is not a welcome: {other:?}"),
        };
        Hostile {
            channel,
            peer,
            last_sent: Instant::now(),
        }
    }

    /// Sends `message`; the error once the host has closed the connection.
    pub fn send(&mut self, message: &PeerMessage) -> std::io::Result<()> {
        let json = serde_json::to_vec(message).unwrap();
        self.last_sent = Instant::now();
        self.channel
            .sealer
            .write(&mut self.channel.stream, &json)
            .map_err(|error| std::io::Error::other(error.to_string()))
    }

    /// Says `alive` when it has said nothing for half a second, as an
    /// honest peer's writing thread does (more often than it must).
    pub fn keep_alive(&mut self) {
        if self.last_sent.elapsed() >= Duration::from_millis(500) {
            let _ = self.send(&PeerMessage::Alive);
        }
    }

    /// Reads the host's messages until `pick` takes one or `patience`
    /// passes or the connection ends.
    pub fn read_until<T>(
        &mut self,
        patience: Duration,
        mut pick: impl FnMut(&HostMessage) -> Option<T>,
    ) -> Option<T> {
        let started = Instant::now();
        while started.elapsed() < patience {
            self.channel
                .stream
                .set_read_timeout(Some(
                    patience
                        .saturating_sub(started.elapsed())
                        .max(Duration::from_millis(1)),
                ))
                .unwrap();
            let Ok(plain) = self.channel.opener.read(&mut self.channel.stream) else {
                return None;
            };
            let message: HostMessage = serde_json::from_slice(&plain).unwrap();
            if let Some(picked) = pick(&message) {
                return Some(picked);
            }
        }
        None
    }

    /// Reads and throws away everything the host sends from now on, on a
    /// thread of its own (a peer that reads, and does nothing with it).
    pub fn drain_in_background(&self) {
        let mut reading = self.channel.stream.try_clone().unwrap();
        reading.set_read_timeout(None).unwrap();
        thread::spawn(move || std::io::copy(&mut reading, &mut std::io::sink()));
    }

    /// Why the host closed this connection, as its `closing` message says,
    /// read within `patience`.
    pub fn closing_reason(&mut self, patience: Duration) -> Option<String> {
        self.read_until(patience, |message| match message {
            HostMessage::Closing { why } => Some(why.clone()),
            _ => None,
        })
    }

    /// Sends `message` one byte every `every`, until it is all sent or
    /// the host closes the connection: whether the host closed it first.
    pub fn drip(&mut self, message: &PeerMessage, every: Duration) -> bool {
        let json = serde_json::to_vec(message).unwrap();
        let sealed = self.channel.sealer.seal(&json);
        let mut bytes = (sealed.len() as u32).to_be_bytes().to_vec();
        bytes.extend(sealed);
        drip_bytes(
            &mut self.channel.stream,
            &bytes,
            every,
            &AtomicBool::new(false),
        )
    }
}

/// Writes `bytes` one at a time, `every` apart, until done, `stop`, or the
/// other end closes: whether it closed.
fn drip_bytes(stream: &mut TcpStream, bytes: &[u8], every: Duration, stop: &AtomicBool) -> bool {
    for byte in bytes {
        if stop.load(Ordering::SeqCst) {
            return false;
        }
        if stream.write_all(&[*byte]).is_err() {
            return true;
        }
        thread::sleep(every);
    }
    false
}

/// Opens `count` connections to the host on `port` and holds them open,
/// sending nothing (kept while the returned streams live).
pub fn hold(port: u16, count: usize) -> Vec<TcpStream> {
    (0..count)
        .map(|_| TcpStream::connect(("127.0.0.1", port)).unwrap())
        .collect()
}

/// A connection that sends a hello one byte every `every`, for ever: its
/// thread answers how long after connecting the host closed it (`None`
/// when `stop` came first).
pub fn drip_hello(
    port: u16,
    every: Duration,
    stop: Arc<AtomicBool>,
) -> JoinHandle<Option<Duration>> {
    let mut stream = TcpStream::connect(("127.0.0.1", port)).unwrap();
    thread::spawn(move || {
        let connected = Instant::now();
        let mut hello = 1000u32.to_be_bytes().to_vec();
        hello.extend_from_slice(MAGIC);
        hello.extend_from_slice(&PROTOCOL_VERSION.to_be_bytes());
        hello.resize(1004, 7);
        // A byte now and then keeps any per-read timeout happy, for ever.
        let mut bytes = hello.iter().copied().cycle();
        loop {
            if stop.load(Ordering::SeqCst) {
                return None;
            }
            let byte = bytes.next().unwrap();
            match stream.write_all(&[byte]) {
                Ok(()) => {}
                Err(_) => return Some(connected.elapsed()),
            }
            // Written bytes are not a sign the host still reads: a reset
            // or end seen on the reading side is.
            stream.set_nonblocking(true).unwrap();
            let mut probe = [0u8; 1];
            let closed = match std::io::Read::read(&mut stream, &mut probe) {
                Ok(0) => true,
                Ok(_) => false,
                Err(error) => error.kind() != ErrorKind::WouldBlock,
            };
            stream.set_nonblocking(false).unwrap();
            if closed {
                return Some(connected.elapsed());
            }
            thread::sleep(every);
        }
    })
}

/// A host that speaks the handshake with `code` on a port of its own and
/// then does `then` with the joiner's channel: the port.
pub fn fake_host(code: &str, then: impl FnOnce(Channel) + Send + 'static) -> u16 {
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let port = listener.local_addr().unwrap().port();
    let code = ShareCode::parse(code).unwrap();
    thread::spawn(move || {
        let (stream, _) = listener.accept().unwrap();
        if let Ok(channel) = handshake::accept(stream, &code) {
            then(channel);
        }
    });
    port
}

/// Sends `message` on a fake host's `channel`.
pub fn host_says(channel: &mut Channel, message: &HostMessage) {
    let json = serde_json::to_vec(message).unwrap();
    channel.sealer.write(&mut channel.stream, &json).unwrap();
}

/// Keeps `channel` open (reading what comes) until the other end closes it
/// or `patience` passes.
pub fn linger(mut channel: Channel, patience: Duration) {
    let _ = channel.stream.set_read_timeout(Some(patience));
    while channel.opener.read(&mut channel.stream).is_ok() {}
    let _ = channel.stream.shutdown(Shutdown::Both);
}
