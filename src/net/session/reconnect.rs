//! Reaching the host again after a peer's link dropped: the back-off ([`reconnect_delay`]) and the thread that tries, for up to [`RECONNECT_PATIENCE`].
use std::sync::mpsc::{self, Receiver};
use std::thread;
use std::time::{Duration, Instant};

use super::limits::RECONNECT_PATIENCE;
use super::link::{Link, open_link};
use super::target::{JoinError, JoinTarget};

/// Tries to reach `target` again with back-off ([`reconnect_delay`]) for up
/// to [`RECONNECT_PATIENCE`], on a thread of its own.
pub(super) fn reconnect(target: JoinTarget, why: String) -> Reconnecting {
    let (sender, result) = mpsc::channel();
    let since = Instant::now();
    let place = format!("{}:{}", target.host, target.port);
    let spawned = thread::Builder::new()
        .name("share-reconnect".into())
        .spawn(move || {
            let mut attempt = 1;
            let mut last = String::from("none was made");
            let outcome = loop {
                let delay = reconnect_delay(attempt);
                if since.elapsed() + delay > RECONNECT_PATIENCE {
                    break Err(JoinError::GaveUp {
                        attempts: attempt - 1,
                        last,
                    });
                }
                thread::sleep(delay);
                match open_link(&target, Duration::ZERO) {
                    Ok(link) => break Ok(link),
                    Err(error) => last = error.to_string(),
                }
                attempt += 1;
            };
            let _ = sender.send(outcome);
        });
    if let Err(error) = spawned {
        let (sender, failed) = mpsc::channel();
        let _ = sender.send(Err(JoinError::Unreachable {
            target: place,
            error,
        }));
        return Reconnecting {
            why,
            since,
            result: failed,
        };
    }
    Reconnecting { why, since, result }
}

/// How long a peer waits before its `attempt`th (from 1) try to reach the
/// host again: 0.5 s, doubling to 8 s.
pub fn reconnect_delay(attempt: u32) -> Duration {
    Duration::from_millis(500)
        .saturating_mul(1 << attempt.saturating_sub(1).min(4))
        .min(Duration::from_secs(8))
}

/// Reaching the host again after the link dropped, on its own thread.
pub(super) struct Reconnecting {
    /// Why the link dropped.
    pub(super) why: String,
    /// When it dropped.
    pub(super) since: Instant,
    /// The new link, or why there is none, once the thread is done.
    pub(super) result: Receiver<Result<Link, JoinError>>,
}
