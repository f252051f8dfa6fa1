//! Frames on the wire: a 4-byte big-endian length, then that many bytes, at most [`MAX_FRAME_BYTES`]; and the AEAD that seals every frame after the handshake.
//!
//! The length is checked before a byte of the body is read, so an oversized
//! frame costs nothing but its 4 bytes and closes the connection. Sealed
//! frames use ChaCha20-Poly1305 (the RustCrypto `chacha20poly1305` crate)
//! with one key per direction and a nonce that is the frame's number in
//! that direction, never sent: a frame dropped, replayed, reordered or
//! altered fails to open, so the connection closes and nothing it carried
//! is used. [`Timed`] holds a whole exchange to a deadline, however the
//! bytes trickle in.
use std::io::{self, ErrorKind, Read, Write};
use std::net::TcpStream;
use std::time::{Duration, Instant};

use chacha20poly1305::aead::{Aead, KeyInit};
use chacha20poly1305::{ChaCha20Poly1305, Key, Nonce};
use thiserror::Error;

/// Largest frame body, bytes: a command with its longest trace is a few
/// kilobytes; the host's whole log goes one command a frame.
pub const MAX_FRAME_BYTES: usize = 64 * 1024;

/// What went wrong with a frame.
#[derive(Debug, Error)]
pub enum FrameError {
    /// The connection failed, closed or timed out.
    #[error("{}", link_failure(.0))]
    Io(#[from] io::Error),
    /// The length says more than a frame may hold.
    #[error("a frame of {0} bytes, more than the {MAX_FRAME_BYTES} allowed")]
    Oversized(usize),
    /// The seal does not open: altered, out of order, or another key.
    #[error(
        "a frame that does not authenticate (altered, out of order, or sealed with another key)"
    )]
    Unauthentic,
}

/// What a failed read or write on a connection means, in words: the
/// other end closed it, or the time ran out, rather than the operating
/// system's words for how that showed ("failed to fill whole buffer",
/// "Resource temporarily unavailable").
pub fn link_failure(error: &io::Error) -> String {
    if is_closed(error) {
        "the connection closed".to_owned()
    } else if is_timeout(error) {
        "timed out".to_owned()
    } else {
        format!("the connection failed: {error}")
    }
}

/// Whether `error` is the other end closing or resetting the connection.
pub fn is_closed(error: &io::Error) -> bool {
    matches!(
        error.kind(),
        ErrorKind::UnexpectedEof
            | ErrorKind::ConnectionReset
            | ErrorKind::ConnectionAborted
            | ErrorKind::BrokenPipe
            | ErrorKind::NotConnected
    )
}

/// Whether `error` is a deadline or a socket timeout running out (a
/// socket's read timeout shows as `WouldBlock` on Unix, `TimedOut` on
/// Windows).
pub fn is_timeout(error: &io::Error) -> bool {
    matches!(error.kind(), ErrorKind::TimedOut | ErrorKind::WouldBlock)
}

/// A connection whose reads and writes must all be done by one deadline:
/// each waits only for the time left, so a peer that sends a byte now and
/// then cannot stretch a frame, or a handshake, past it.
pub struct Timed<'a> {
    stream: &'a TcpStream,
    deadline: Instant,
    read: usize,
}

impl<'a> Timed<'a> {
    /// `stream` until `deadline`.
    pub fn new(stream: &'a TcpStream, deadline: Instant) -> Self {
        Timed {
            stream,
            deadline,
            read: 0,
        }
    }

    /// `stream` for `budget` from now.
    pub fn for_next(stream: &'a TcpStream, budget: Duration) -> Self {
        Timed::new(stream, Instant::now() + budget)
    }

    /// Bytes read through it so far: none means the other end was silent.
    pub fn bytes_read(&self) -> usize {
        self.read
    }

    fn left(&self) -> io::Result<Duration> {
        let left = self.deadline.saturating_duration_since(Instant::now());
        if left.is_zero() {
            Err(ErrorKind::TimedOut.into())
        } else {
            Ok(left)
        }
    }
}

fn as_timeout(error: io::Error) -> io::Error {
    if is_timeout(&error) {
        ErrorKind::TimedOut.into()
    } else {
        error
    }
}

impl Read for Timed<'_> {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        self.stream.set_read_timeout(Some(self.left()?))?;
        let read = (&*self.stream).read(buf).map_err(as_timeout)?;
        self.read += read;
        Ok(read)
    }
}

impl Write for Timed<'_> {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        self.stream.set_write_timeout(Some(self.left()?))?;
        (&*self.stream).write(buf).map_err(as_timeout)
    }

    fn flush(&mut self) -> io::Result<()> {
        (&*self.stream).flush()
    }
}

/// Writes `body` as one frame.
pub fn write_frame(writer: &mut impl Write, body: &[u8]) -> Result<(), FrameError> {
    if body.len() > MAX_FRAME_BYTES {
        return Err(FrameError::Oversized(body.len()));
    }
    let mut bytes = Vec::with_capacity(4 + body.len());
    bytes.extend_from_slice(&(body.len() as u32).to_be_bytes());
    bytes.extend_from_slice(body);
    writer.write_all(&bytes)?;
    writer.flush()?;
    Ok(())
}

/// Reads one frame's body, refusing one longer than [`MAX_FRAME_BYTES`]
/// before reading it.
pub fn read_frame(reader: &mut impl Read) -> Result<Vec<u8>, FrameError> {
    let mut length = [0u8; 4];
    reader.read_exact(&mut length)?;
    let length = u32::from_be_bytes(length) as usize;
    if length > MAX_FRAME_BYTES {
        return Err(FrameError::Oversized(length));
    }
    let mut body = vec![0u8; length];
    reader.read_exact(&mut body)?;
    Ok(body)
}

/// One direction's key and the number of the next frame.
struct Direction {
    cipher: ChaCha20Poly1305,
    counter: u64,
}

impl Direction {
    fn new(key: &[u8; 32]) -> Self {
        Direction {
            cipher: ChaCha20Poly1305::new(Key::from_slice(key)),
            counter: 0,
        }
    }

    /// The next frame's nonce: 4 zero bytes, then its number, little-endian.
    fn next_nonce(&mut self) -> Nonce {
        let mut nonce = [0u8; 12];
        nonce[4..].copy_from_slice(&self.counter.to_le_bytes());
        // 2^64 frames are never reached; stopping there keeps a nonce from repeating.
        self.counter = self
            .counter
            .checked_add(1)
            .expect("fewer than 2^64 frames a connection");
        *Nonce::from_slice(&nonce)
    }
}

/// Seals frames for one direction.
pub struct Sealer(Direction);

impl Sealer {
    /// Seals with `key`, the first frame numbered 0.
    pub fn new(key: &[u8; 32]) -> Self {
        Sealer(Direction::new(key))
    }

    /// `plain` sealed as the next frame's body.
    pub fn seal(&mut self, plain: &[u8]) -> Vec<u8> {
        let nonce = self.0.next_nonce();
        // Encryption fails only for messages beyond 2^38 bytes.
        self.0
            .cipher
            .encrypt(&nonce, plain)
            .expect("a frame is far below ChaCha20-Poly1305's limit")
    }

    /// Seals `plain` and writes it as one frame.
    pub fn write(&mut self, writer: &mut impl Write, plain: &[u8]) -> Result<(), FrameError> {
        if plain.len() + 16 > MAX_FRAME_BYTES {
            return Err(FrameError::Oversized(plain.len() + 16));
        }
        let sealed = self.seal(plain);
        write_frame(writer, &sealed)
    }
}

/// Opens the frames of one direction, in order.
pub struct Opener(Direction);

impl Opener {
    /// Opens with `key`, expecting frame 0 first.
    pub fn new(key: &[u8; 32]) -> Self {
        Opener(Direction::new(key))
    }

    /// The plain text of the next frame's `sealed` body.
    pub fn open(&mut self, sealed: &[u8]) -> Result<Vec<u8>, FrameError> {
        let nonce = self.0.next_nonce();
        self.0
            .cipher
            .decrypt(&nonce, sealed)
            .map_err(|_| FrameError::Unauthentic)
    }

    /// Reads one frame and opens it.
    pub fn read(&mut self, reader: &mut impl Read) -> Result<Vec<u8>, FrameError> {
        let sealed = read_frame(reader)?;
        self.open(&sealed)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_frame_reads_back_and_the_bound_holds_both_ways() {
        let mut wire = Vec::new();
        write_frame(&mut wire, b"hello").unwrap();
        write_frame(&mut wire, &vec![7u8; MAX_FRAME_BYTES]).unwrap();
        let mut reader = &wire[..];
        assert_eq!(read_frame(&mut reader).unwrap(), b"hello");
        assert_eq!(read_frame(&mut reader).unwrap().len(), MAX_FRAME_BYTES);

        let too_long = vec![0u8; MAX_FRAME_BYTES + 1];
        assert!(matches!(
            write_frame(&mut Vec::new(), &too_long),
            Err(FrameError::Oversized(_))
        ));
        // A length past the bound is refused before the body is read: here
        // there is no body at all.
        let header = ((MAX_FRAME_BYTES + 1) as u32).to_be_bytes();
        assert!(matches!(
            read_frame(&mut &header[..]),
            Err(FrameError::Oversized(n)) if n == MAX_FRAME_BYTES + 1
        ));
        let huge = u32::MAX.to_be_bytes();
        assert!(matches!(
            read_frame(&mut &huge[..]),
            Err(FrameError::Oversized(_))
        ));
    }

    #[test]
    fn a_deadline_holds_a_whole_frame_however_slowly_its_bytes_come() {
        let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
        let mut dripping = TcpStream::connect(listener.local_addr().unwrap()).unwrap();
        let (stream, _) = listener.accept().unwrap();
        let drip = std::thread::spawn(move || {
            // A 100-byte frame, a byte every 50 ms: each read is quick, the
            // whole would take 5 s.
            for byte in (100u32.to_be_bytes()).into_iter().chain([0u8; 100]) {
                if dripping.write_all(&[byte]).is_err() {
                    return;
                }
                std::thread::sleep(Duration::from_millis(50));
            }
        });
        let started = Instant::now();
        let mut timed = Timed::for_next(&stream, Duration::from_millis(400));
        let error = read_frame(&mut timed).unwrap_err();
        let elapsed = started.elapsed();
        assert!(
            matches!(&error, FrameError::Io(e) if e.kind() == ErrorKind::TimedOut),
            "{error}"
        );
        assert_eq!(error.to_string(), "timed out");
        assert!(timed.bytes_read() > 0);
        // Generous: what matters is that it did not take the 5 s.
        assert!(elapsed < Duration::from_secs(4), "{elapsed:?}");
        drop(stream);
        drip.join().unwrap();
    }

    #[test]
    fn a_closed_link_is_said_to_be_closed() {
        let mut wire = Vec::new();
        write_frame(&mut wire, b"hello").unwrap();
        wire.truncate(6);
        let error = read_frame(&mut &wire[..]).unwrap_err();
        assert_eq!(error.to_string(), "the connection closed");
    }

    #[test]
    fn a_cut_frame_is_an_error_not_a_short_message() {
        let mut wire = Vec::new();
        write_frame(&mut wire, b"hello").unwrap();
        wire.truncate(6);
        assert!(matches!(read_frame(&mut &wire[..]), Err(FrameError::Io(_))));
    }

    #[test]
    fn sealed_frames_open_only_in_order_unaltered_and_with_the_key() {
        let key = [3u8; 32];
        let mut sealer = Sealer::new(&key);
        let first = sealer.seal(b"first");
        let second = sealer.seal(b"second");
        assert_ne!(&first[..5], b"first");

        let mut opener = Opener::new(&key);
        assert_eq!(opener.open(&first).unwrap(), b"first");
        assert_eq!(opener.open(&second).unwrap(), b"second");

        // Out of order (or replayed): the nonce does not match.
        let mut opener = Opener::new(&key);
        assert!(matches!(opener.open(&second), Err(FrameError::Unauthentic)));
        // Altered.
        let mut altered = first.clone();
        altered[0] ^= 1;
        assert!(matches!(
            Opener::new(&key).open(&altered),
            Err(FrameError::Unauthentic)
        ));
        // Another key.
        assert!(matches!(
            Opener::new(&[4u8; 32]).open(&first),
            Err(FrameError::Unauthentic)
        ));
        // Garbage.
        assert!(matches!(
            Opener::new(&key).open(b"not a sealed frame at all"),
            Err(FrameError::Unauthentic)
        ));
    }
}
