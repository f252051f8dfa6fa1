//! What keeps joining open under attack: the cap on handshakes in flight ([`InFlight`], the oldest unfinished one closed to make room) and the back-off after wrong codes, kept per address and decaying ([`Gate`]).
use std::collections::HashMap;
use std::net::{IpAddr, Ipv4Addr, Shutdown, SocketAddr, TcpStream};
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Mutex, MutexGuard};
use std::thread;
use std::time::{Duration, Instant};

use super::limits::MAX_FAILURE_DELAY;
use crate::net::handshake::{Channel, HandshakeError, Pending};

/// Most handshakes under way at once: each has a thread, and a connection
/// that sends nothing costs one until [`crate::net::handshake::HANDSHAKE_TIMEOUT`].
pub const MAX_HANDSHAKES: usize = 32;
/// Most handshakes under way at once from one address, so that one
/// machine holding connections open pushes out only its own.
pub const MAX_HANDSHAKES_PER_ADDRESS: usize = 8;
/// How fast an address's count of wrong codes fades: halved every ten
/// minutes, so a few typing mistakes are forgotten within the hour and
/// a guesser stays slowed down for as long as it keeps guessing.
pub const FAILURE_HALF_LIFE: Duration = Duration::from_secs(600);
/// Most addresses whose wrong codes are remembered one by one; beyond,
/// new addresses share one count (many addresses guessing at once slow
/// down together, rather than the table growing).
pub const MAX_ADDRESSES: usize = 1024;

/// Locks `mutex`, whatever a thread that panicked holding it left: every
/// value under these locks is whole between statements.
pub(super) fn lock<T>(mutex: &Mutex<T>) -> MutexGuard<'_, T> {
    mutex
        .lock()
        .unwrap_or_else(|poisoned| poisoned.into_inner())
}

/// How long the host holds back the verdict after `failures` wrong codes
/// from an address: 0.25 s, doubling, at most [`MAX_FAILURE_DELAY`].
pub fn failure_delay(failures: u32) -> Duration {
    let doubled =
        Duration::from_millis(250).saturating_mul(1 << failures.clamp(1, 16).saturating_sub(1));
    doubled.min(MAX_FAILURE_DELAY)
}

/// An address's wrong codes lately.
struct Standing {
    /// Wrong codes, fading with [`FAILURE_HALF_LIFE`].
    failures: f64,
    /// When `failures` was last brought up to date.
    at: Instant,
    /// A verdict of this address's is being given now.
    busy: bool,
    /// No verdict before this.
    next: Instant,
}

impl Standing {
    fn fade(&mut self, now: Instant) {
        let halves =
            now.saturating_duration_since(self.at).as_secs_f64() / FAILURE_HALF_LIFE.as_secs_f64();
        self.failures *= 0.5f64.powf(halves);
        self.at = now;
    }
}

/// The back-off after wrong codes, by address: an address's verdicts come
/// one at a time, and after a wrong code the next waits
/// [`failure_delay`] of its fading count. A guess is a verdict, so
/// guesses from one address, however many connections carry them, come
/// no faster than that; other addresses are not slowed at all.
#[derive(Default)]
pub(super) struct Gate {
    addresses: Mutex<HashMap<IpAddr, Standing>>,
    /// Wrong codes judged so far: the guesses made.
    wrong_codes: AtomicU64,
}

/// Where addresses beyond [`MAX_ADDRESSES`] are counted.
const ELSEWHERE: IpAddr = IpAddr::V4(Ipv4Addr::UNSPECIFIED);

impl Gate {
    /// Why a connection from `ip` is refused before any work is done for
    /// it: its next verdict could not come before a handshake starting
    /// now must end.
    pub(super) fn refuses(&self, ip: IpAddr, deadline: Instant) -> Option<String> {
        let addresses = lock(&self.addresses);
        let standing = addresses
            .get(&ip)
            .or_else(|| (addresses.len() >= MAX_ADDRESSES).then(|| addresses.get(&ELSEWHERE))?)?;
        (standing.next > deadline).then(|| backing_off(ip, standing.next))
    }

    /// Wrong codes judged so far: the guesses at the code the host has
    /// answered (a connection refused before its verdict learns nothing).
    pub(super) fn wrong_codes(&self) -> u64 {
        self.wrong_codes.load(Ordering::SeqCst)
    }

    /// Gives `pending`'s verdict once `ip` may have one, recording a wrong
    /// code; a line that says why not, when its turn would come after its
    /// deadline.
    pub(super) fn verdict(&self, ip: IpAddr, pending: Pending) -> Result<Channel, String> {
        let deadline = pending.deadline();
        self.decide(ip, deadline, || pending.finish())
    }

    /// [`Gate::verdict`] of `verdict`, due by `deadline`.
    fn decide<T>(
        &self,
        ip: IpAddr,
        deadline: Instant,
        verdict: impl FnOnce() -> Result<T, HandshakeError>,
    ) -> Result<T, String> {
        let key = loop {
            let now = Instant::now();
            let mut addresses = lock(&self.addresses);
            let key = if addresses.contains_key(&ip) || addresses.len() < MAX_ADDRESSES {
                ip
            } else {
                ELSEWHERE
            };
            let standing = addresses.entry(key).or_insert(Standing {
                failures: 0.0,
                at: now,
                busy: false,
                next: now,
            });
            if standing.next > deadline {
                return Err(backing_off(ip, standing.next));
            }
            if !standing.busy && standing.next <= now {
                standing.busy = true;
                break key;
            }
            drop(addresses);
            if now >= deadline {
                return Err(HandshakeError::TimedOut.to_string());
            }
            thread::sleep(Duration::from_millis(10).min(deadline - now));
        };
        let result = verdict();
        let now = Instant::now();
        let mut addresses = lock(&self.addresses);
        if let Some(standing) = addresses.get_mut(&key) {
            standing.busy = false;
            standing.fade(now);
            if matches!(result, Err(HandshakeError::WrongCode)) {
                self.wrong_codes.fetch_add(1, Ordering::SeqCst);
                standing.failures += 1.0;
                standing.next = now + failure_delay(standing.failures.ceil() as u32);
            }
        }
        // Addresses whose wrong codes have faded are forgotten.
        addresses.retain(|_, standing| {
            standing.fade(now);
            standing.busy || standing.next > now || standing.failures >= 0.05
        });
        result.map_err(|error| error.to_string())
    }
}

/// The line for a connection from `ip` refused until `next`.
fn backing_off(ip: IpAddr, next: Instant) -> String {
    format!(
        "wrong codes came from {ip} lately; it may try again in {:.0} s",
        next.saturating_duration_since(Instant::now())
            .as_secs_f64()
            .ceil()
    )
}

/// One handshake under way.
struct Handshaking {
    number: u64,
    address: SocketAddr,
    since: Instant,
    /// The connection, to close it from here.
    stream: TcpStream,
    /// Closed to make room: its own line was said then.
    pushed_out: Arc<AtomicBool>,
}

/// The handshakes under way.
#[derive(Default)]
pub(super) struct InFlight {
    handshakes: Mutex<Vec<Handshaking>>,
    next: AtomicU64,
}

/// A handshake's place in [`InFlight`], given up when dropped.
pub(super) struct Ticket {
    number: u64,
    in_flight: Arc<InFlight>,
    pushed_out: Arc<AtomicBool>,
}

impl Ticket {
    /// Whether its connection was closed to make room.
    pub(super) fn pushed_out(&self) -> bool {
        self.pushed_out.load(Ordering::SeqCst)
    }
}

impl Drop for Ticket {
    fn drop(&mut self) {
        lock(&self.in_flight.handshakes).retain(|h| h.number != self.number);
    }
}

impl InFlight {
    /// Takes a place for a handshake with `address` on `stream`, first
    /// closing the oldest unfinished one when the caps are reached (that
    /// address's own, when it has its [`MAX_HANDSHAKES_PER_ADDRESS`]):
    /// the ticket, and the line for the one closed, if any. Connections
    /// held open then cost the newcomer nothing but the oldest's place.
    pub(super) fn enter(
        self: &Arc<Self>,
        address: SocketAddr,
        stream: &TcpStream,
    ) -> std::io::Result<(Ticket, Option<String>)> {
        let stream = stream.try_clone()?;
        let mut handshakes = lock(&self.handshakes);
        let from_there = |h: &&Handshaking| h.address.ip() == address.ip();
        let oldest = if handshakes.iter().filter(from_there).count() >= MAX_HANDSHAKES_PER_ADDRESS {
            handshakes.iter().filter(from_there).min_by_key(|h| h.since)
        } else if handshakes.len() >= MAX_HANDSHAKES {
            handshakes.iter().min_by_key(|h| h.since)
        } else {
            None
        };
        let line = oldest.map(|oldest| oldest.number).map(|number| {
            let index = handshakes
                .iter()
                .position(|h| h.number == number)
                .expect("found above");
            let oldest = handshakes.swap_remove(index);
            oldest.pushed_out.store(true, Ordering::SeqCst);
            let _ = oldest.stream.shutdown(Shutdown::Both);
            format!(
                "closed the handshake of {} after {:.1} s unfinished, to make room for {address} (at most {MAX_HANDSHAKES} at once, {MAX_HANDSHAKES_PER_ADDRESS} from one address)",
                oldest.address,
                oldest.since.elapsed().as_secs_f64()
            )
        });
        let number = self.next.fetch_add(1, Ordering::SeqCst);
        let pushed_out = Arc::new(AtomicBool::new(false));
        handshakes.push(Handshaking {
            number,
            address,
            since: Instant::now(),
            stream,
            pushed_out: pushed_out.clone(),
        });
        Ok((
            Ticket {
                number,
                in_flight: self.clone(),
                pushed_out,
            },
            line,
        ))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn failures_wait_longer_up_to_a_bound() {
        assert_eq!(failure_delay(1), Duration::from_millis(250));
        assert_eq!(failure_delay(2), Duration::from_millis(500));
        assert_eq!(failure_delay(5), Duration::from_secs(4));
        assert_eq!(failure_delay(8), MAX_FAILURE_DELAY);
        assert_eq!(failure_delay(u32::MAX), MAX_FAILURE_DELAY);
    }

    #[test]
    fn wrong_codes_fade_by_half_every_half_life() {
        let at = Instant::now();
        let mut standing = Standing {
            failures: 8.0,
            at,
            busy: false,
            next: at,
        };
        standing.fade(at + FAILURE_HALF_LIFE);
        assert!((standing.failures - 4.0).abs() < 1e-9);
        standing.fade(at + FAILURE_HALF_LIFE * 3);
        assert!((standing.failures - 1.0).abs() < 1e-9);
    }

    #[test]
    fn wrong_codes_from_one_address_slow_it_down_and_no_other() {
        let gate = Gate::default();
        let (guesser, other) = (IpAddr::from([192, 0, 2, 1]), IpAddr::from([192, 0, 2, 2]));
        let deadline = || Instant::now() + Duration::from_secs(10);
        let wrong = || Err::<(), _>(HandshakeError::WrongCode);
        let timed = |ip, verdict: &dyn Fn() -> Result<(), HandshakeError>| {
            let started = Instant::now();
            let result = gate.decide(ip, deadline(), verdict);
            (started.elapsed(), result)
        };
        // The first wrong code waits for nothing; the next after one, 0.25 s;
        // after two, 0.5 s.
        let (first, _) = timed(guesser, &wrong);
        let (second, _) = timed(guesser, &wrong);
        let (third, result) = timed(guesser, &wrong);
        assert!(first < Duration::from_millis(200), "{first:?}");
        assert!(second >= Duration::from_millis(240), "{second:?}");
        assert!(third >= Duration::from_millis(490), "{third:?}");
        assert_eq!(result.unwrap_err(), HandshakeError::WrongCode.to_string());
        // Another address is not slowed at all.
        let (elsewhere, result) = timed(other, &|| Ok(()));
        assert!(elsewhere < Duration::from_millis(200), "{elsewhere:?}");
        assert!(result.is_ok());
        // A verdict that could only come after its deadline is refused at
        // once, saying when to try again.
        let soon = Instant::now() + Duration::from_millis(100);
        let result = gate.decide(guesser, soon, || Ok(()));
        assert!(result.unwrap_err().contains("may try again in 1 s"));
    }

    #[test]
    fn the_oldest_handshake_makes_room_and_one_address_pushes_out_only_its_own() {
        let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
        let port = listener.local_addr().unwrap().port();
        let in_flight = Arc::new(InFlight::default());
        let mut tickets = Vec::new();
        let mut clients = Vec::new();
        let mut enter = |ip: [u8; 4]| {
            clients.push(TcpStream::connect(("127.0.0.1", port)).unwrap());
            let (stream, _) = listener.accept().unwrap();
            let address = SocketAddr::from((ip, 40000));
            let (ticket, line) = in_flight.enter(address, &stream).unwrap();
            tickets.push(ticket);
            line
        };
        // Another address's handshake first, then one address up to its cap.
        assert!(enter([192, 0, 2, 9]).is_none());
        for _ in 0..MAX_HANDSHAKES_PER_ADDRESS {
            assert!(enter([192, 0, 2, 1]).is_none());
        }
        let line = enter([192, 0, 2, 1]).expect("room made");
        assert!(line.contains("of 192.0.2.1:40000"), "{line}");
        // Its own oldest went, not the other address's, which is older.
        assert!(tickets[1].pushed_out());
        assert!(!tickets[0].pushed_out());
        drop(tickets);
        assert!(lock(&in_flight.handshakes).is_empty());
    }
}
