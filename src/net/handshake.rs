//! The handshake: the protocol version, then SPAKE2 over the code's words, then one sealed frame each way to prove both ends hold the same key; after it, a [`Channel`] whose every frame is sealed.
//!
//! Each end first sends one plain frame, its hello: [`MAGIC`], the
//! protocol version (u16, big-endian), the code's nameplate (u32,
//! big-endian) and its SPAKE2 message (RustCrypto `spake2`, Ed25519 group,
//! the symmetric variant: host and peer are alike until the key exists).
//! The password is the code's words; the identity names the protocol
//! version and the nameplate, so a code for another session or another
//! version can never yield the same key. The SPAKE2 key goes through
//! HKDF-SHA-256 to one ChaCha20-Poly1305 key per direction
//! (`super::frame`). The joiner then sends a sealed confirmation and the
//! host answers with its own; a wrong code shows as a confirmation that
//! does not open, so the host learns nothing but "wrong" and the joiner
//! nothing at all about the words.
use std::io;
use std::net::TcpStream;
use std::time::{Duration, Instant};

use hkdf::Hkdf;
use sha2::Sha256;
use spake2::{Ed25519Group, Identity, Password, Spake2};
use thiserror::Error;

use super::code::ShareCode;
use super::frame::{
    FrameError, Opener, Sealer, Timed, is_closed, is_timeout, read_frame, write_frame,
};
use super::protocol::PROTOCOL_VERSION;

/// What a hello starts with.
pub const MAGIC: &[u8] = b"holoterrain-share";
/// How long the whole handshake may take, however the bytes come: a
/// connection that has not finished it by then is closed.
pub const HANDSHAKE_TIMEOUT: Duration = Duration::from_secs(10);
/// How long a write may block before the other end counts as gone.
pub const WRITE_TIMEOUT: Duration = Duration::from_secs(5);

const CONFIRM_PEER: &[u8] = b"holoterrain share: peer confirms";
const CONFIRM_HOST: &[u8] = b"holoterrain share: host confirms";

/// Why a handshake failed.
#[derive(Debug, Error)]
pub enum HandshakeError {
    /// The connection failed.
    #[error("the connection failed during the handshake ({0})")]
    Io(io::Error),
    /// The other end closed (or reset) the connection.
    #[error("the other end closed the connection during the handshake")]
    Closed,
    /// The handshake did not finish in time.
    #[error(
        "the handshake did not finish within {} s (timed out)",
        HANDSHAKE_TIMEOUT.as_secs()
    )]
    TimedOut,
    /// The other end is not a holoterrain share.
    #[error("the other end is not a holoterrain shared session ({0})")]
    NotAPeer(String),
    /// The other end speaks another protocol version.
    #[error(
        "the other end speaks share protocol version {theirs}, this holoterrain speaks {PROTOCOL_VERSION}: run the same version on both"
    )]
    Version {
        /// The other end's version.
        theirs: u16,
    },
    /// The keys differ: the code is not the host's.
    #[error("the code does not match the session's (a wrong code, or another session)")]
    WrongCode,
}

impl From<io::Error> for HandshakeError {
    fn from(error: io::Error) -> Self {
        if is_closed(&error) {
            HandshakeError::Closed
        } else if is_timeout(&error) {
            HandshakeError::TimedOut
        } else {
            HandshakeError::Io(error)
        }
    }
}

impl From<FrameError> for HandshakeError {
    fn from(error: FrameError) -> Self {
        match error {
            FrameError::Io(error) => error.into(),
            FrameError::Unauthentic => HandshakeError::WrongCode,
            FrameError::Oversized(_) => HandshakeError::NotAPeer(error.to_string()),
        }
    }
}

/// A connection after the handshake: every frame sealed.
pub struct Channel {
    /// The connection.
    pub stream: TcpStream,
    /// Seals what this end sends.
    pub sealer: Sealer,
    /// Opens what the other end sends.
    pub opener: Opener,
}

/// The host's side, on a connection a joiner opened, within
/// [`HANDSHAKE_TIMEOUT`].
pub fn accept(stream: TcpStream, code: &ShareCode) -> Result<Channel, HandshakeError> {
    accept_until(stream, code, Instant::now() + HANDSHAKE_TIMEOUT)?.finish()
}

/// The host's side up to the joiner's sealed confirmation, by `deadline`:
/// what is left is the verdict on the code ([`Pending::finish`]), which a
/// host may hold back, so that guesses from one place come no faster than
/// it allows.
pub fn accept_until(
    stream: TcpStream,
    code: &ShareCode,
    deadline: Instant,
) -> Result<Pending, HandshakeError> {
    stream.set_nodelay(true)?;
    let mut timed = Timed::new(&stream, deadline);
    let theirs = read_frame(&mut timed)?;
    let (spake, ours) = start(code);
    // The hello goes out whatever came in, so a joiner of another version
    // can say so too.
    write_frame(&mut timed, &hello(code.nameplate(), &ours))?;
    let their_message = check_hello(&theirs)?;
    let (host_to_peer, peer_to_host) = keys(spake, their_message)?;
    let confirm = read_frame(&mut timed)?;
    Ok(Pending {
        stream,
        deadline,
        confirm,
        host_to_peer,
        peer_to_host,
    })
}

/// A host's handshake with everything read but the verdict.
pub struct Pending {
    stream: TcpStream,
    deadline: Instant,
    /// The joiner's sealed confirmation, not opened yet.
    confirm: Vec<u8>,
    host_to_peer: [u8; 32],
    peer_to_host: [u8; 32],
}

impl Pending {
    /// When the handshake must be done by.
    pub fn deadline(&self) -> Instant {
        self.deadline
    }

    /// The verdict: the joiner's confirmation opens (the same code) and the
    /// host confirms in turn, or [`HandshakeError::WrongCode`].
    pub fn finish(self) -> Result<Channel, HandshakeError> {
        let mut opener = Opener::new(&self.peer_to_host);
        if opener.open(&self.confirm)? != CONFIRM_PEER {
            return Err(HandshakeError::NotAPeer(
                "an unexpected confirmation".into(),
            ));
        }
        let mut sealer = Sealer::new(&self.host_to_peer);
        sealer.write(&mut Timed::new(&self.stream, self.deadline), CONFIRM_HOST)?;
        finish(self.stream, sealer, opener)
    }
}

/// The joiner's side, on a connection to the host, within
/// [`HANDSHAKE_TIMEOUT`].
pub fn connect(stream: TcpStream, code: &ShareCode) -> Result<Channel, HandshakeError> {
    stream.set_nodelay(true)?;
    let mut timed = Timed::for_next(&stream, HANDSHAKE_TIMEOUT);
    let (spake, ours) = start(code);
    write_frame(&mut timed, &hello(code.nameplate(), &ours))?;
    let theirs = read_frame(&mut timed)?;
    let their_message = check_hello(&theirs)?;
    let (host_to_peer, peer_to_host) = keys(spake, their_message)?;
    let mut sealer = Sealer::new(&peer_to_host);
    sealer.write(&mut timed, CONFIRM_PEER)?;
    let mut opener = Opener::new(&host_to_peer);
    // A host that found the code wrong closes the connection unanswered.
    match opener.read(&mut timed) {
        Ok(confirm) if confirm == CONFIRM_HOST => finish(stream, sealer, opener),
        Ok(_) => Err(HandshakeError::NotAPeer(
            "an unexpected confirmation".into(),
        )),
        Err(FrameError::Io(error)) if is_closed(&error) => Err(HandshakeError::WrongCode),
        Err(error) => Err(error.into()),
    }
}

/// After the handshake, reads wait as long as each end's own reading
/// allows (`super::protocol::IDLE_TIMEOUT`, a deadline a message); writes
/// keep their bound.
fn finish(stream: TcpStream, sealer: Sealer, opener: Opener) -> Result<Channel, HandshakeError> {
    stream.set_read_timeout(None)?;
    stream.set_write_timeout(Some(WRITE_TIMEOUT))?;
    Ok(Channel {
        stream,
        sealer,
        opener,
    })
}

fn start(code: &ShareCode) -> (Spake2<Ed25519Group>, Vec<u8>) {
    Spake2::<Ed25519Group>::start_symmetric(
        &Password::new(code.password().as_bytes()),
        &Identity::new(identity(code.nameplate()).as_bytes()),
    )
}

/// SPAKE2's identity: the protocol and its version, and the nameplate.
fn identity(nameplate: u32) -> String {
    format!("holoterrain share protocol {PROTOCOL_VERSION} nameplate {nameplate}")
}

fn hello(nameplate: u32, spake_message: &[u8]) -> Vec<u8> {
    let mut bytes = MAGIC.to_vec();
    bytes.extend_from_slice(&PROTOCOL_VERSION.to_be_bytes());
    bytes.extend_from_slice(&nameplate.to_be_bytes());
    bytes.extend_from_slice(spake_message);
    bytes
}

/// The SPAKE2 message of a hello of this version (the nameplate is left
/// to the key: another one gives another key).
fn check_hello(bytes: &[u8]) -> Result<&[u8], HandshakeError> {
    let Some(rest) = bytes.strip_prefix(MAGIC) else {
        return Err(HandshakeError::NotAPeer(
            "its first frame is not a hello".into(),
        ));
    };
    if rest.len() < 6 {
        return Err(HandshakeError::NotAPeer("a hello cut short".into()));
    }
    let theirs = u16::from_be_bytes([rest[0], rest[1]]);
    if theirs != PROTOCOL_VERSION {
        return Err(HandshakeError::Version { theirs });
    }
    Ok(&rest[6..])
}

/// The two directions' keys from the SPAKE2 exchange: (host to peer, peer to host).
fn keys(
    spake: Spake2<Ed25519Group>,
    their_message: &[u8],
) -> Result<([u8; 32], [u8; 32]), HandshakeError> {
    let key = spake
        .finish(their_message)
        .map_err(|error| HandshakeError::NotAPeer(format!("a bad SPAKE2 message ({error:?})")))?;
    let hkdf = Hkdf::<Sha256>::new(Some(b"holoterrain share keys"), &key);
    let mut host_to_peer = [0u8; 32];
    let mut peer_to_host = [0u8; 32];
    // 32 bytes are far below HKDF-SHA-256's 8160-byte limit.
    hkdf.expand(b"host to peer", &mut host_to_peer)
        .expect("32 bytes of HKDF output");
    hkdf.expand(b"peer to host", &mut peer_to_host)
        .expect("32 bytes of HKDF output");
    Ok((host_to_peer, peer_to_host))
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::net::TcpListener;
    use std::thread;

    /// Runs the host's side on loopback with `host_code` and the joiner's
    /// with `join_code`: (host's result, joiner's result).
    fn handshake(
        host_code: &str,
        join_code: &str,
    ) -> (
        Result<Channel, HandshakeError>,
        Result<Channel, HandshakeError>,
    ) {
        let listener = TcpListener::bind("127.0.0.1:0").unwrap();
        let address = listener.local_addr().unwrap();
        let host_code = ShareCode::parse(host_code).unwrap();
        let host = thread::spawn(move || {
            let (stream, _) = listener.accept().unwrap();
            accept(stream, &host_code)
        });
        let joined = connect(
            TcpStream::connect(address).unwrap(),
            &ShareCode::parse(join_code).unwrap(),
        );
        (host.join().unwrap(), joined)
    }

    #[test]
    fn the_same_code_gives_a_sealed_channel_both_ways() {
        let (host, peer) = handshake("7-guitar-orbit", "7-guitar-orbit");
        let (mut host, mut peer) = (host.unwrap(), peer.unwrap());
        host.sealer.write(&mut host.stream, b"to the peer").unwrap();
        assert_eq!(peer.opener.read(&mut peer.stream).unwrap(), b"to the peer");
        peer.sealer.write(&mut peer.stream, b"to the host").unwrap();
        assert_eq!(host.opener.read(&mut host.stream).unwrap(), b"to the host");
    }

    #[test]
    fn a_wrong_word_or_nameplate_fails_on_both_sides() {
        for wrong in ["7-guitar-orbitt", "8-guitar-orbit"] {
            let (host, peer) = handshake("7-guitar-orbit", wrong);
            assert!(matches!(host, Err(HandshakeError::WrongCode)), "{wrong}");
            assert!(matches!(peer, Err(HandshakeError::WrongCode)), "{wrong}");
        }
    }

    #[test]
    fn garbage_or_another_version_is_refused_naming_it() {
        assert!(matches!(
            check_hello(b"GET / HTTP/1.1\r\n"),
            Err(HandshakeError::NotAPeer(_))
        ));
        assert!(matches!(
            check_hello(MAGIC),
            Err(HandshakeError::NotAPeer(_))
        ));
        let mut other = MAGIC.to_vec();
        other.extend_from_slice(&(PROTOCOL_VERSION + 1).to_be_bytes());
        other.extend_from_slice(&7u32.to_be_bytes());
        let error = check_hello(&other).unwrap_err();
        assert!(
            matches!(error, HandshakeError::Version { theirs } if theirs == PROTOCOL_VERSION + 1)
        );
        let theirs = format!("protocol version {}", PROTOCOL_VERSION + 1);
        assert!(error.to_string().contains(&theirs), "{error}");
    }
}
