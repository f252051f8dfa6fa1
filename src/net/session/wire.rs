//! Sealed JSON messages on one connection: [`read_message`], which reads one whole message by a deadline and says why not, and the [`Outbox`], a bounded queue drained by the connection's own writing thread, which also says `alive` when there is nothing else to say.
use std::net::{Shutdown, TcpStream};
use std::sync::Arc;
use std::sync::mpsc::{self, Receiver, RecvTimeoutError, SyncSender, TrySendError};
use std::thread::{self, JoinHandle};
use std::time::{Duration, Instant};

use serde::Serialize;

use crate::net::frame::{FrameError, Opener, Sealer, Timed, is_closed, is_timeout};
use crate::net::handshake::WRITE_TIMEOUT;
use crate::net::protocol::HEARTBEAT_EVERY;

/// A message as JSON, serialised once and shared by every queue it goes to.
pub(super) type Json = Arc<[u8]>;

/// `message` as JSON.
pub(super) fn json<T: Serialize>(message: &T) -> Json {
    // Messages are plain data: serialising cannot fail.
    serde_json::to_vec(message)
        .expect("a message serialises")
        .into()
}

/// What goes into an [`Outbox`].
pub(super) enum Outgoing {
    /// Messages to seal and send, in order.
    Send(Vec<Json>),
    /// The last message; then this end stops writing.
    Last(Json),
}

/// Why a message could not be read.
#[derive(Debug)]
pub(super) struct ReadFailure {
    /// As the log says it.
    pub(super) why: String,
    /// The link itself failed (closed, reset, timed out), rather than
    /// carrying something wrong: worth connecting again.
    pub(super) dropped: bool,
    /// Nothing (or not all of a message) came in time.
    pub(super) timed_out: bool,
}

/// Reads, opens and decodes one message, the whole of it within `budget`
/// (the other end's heartbeats keep an honest link well inside it); why
/// not.
pub(super) fn read_message<T: serde::de::DeserializeOwned>(
    opener: &mut Opener,
    stream: &TcpStream,
    budget: Duration,
) -> Result<T, ReadFailure> {
    let mut timed = Timed::for_next(stream, budget);
    let plain = opener.read(&mut timed).map_err(|error| match error {
        FrameError::Io(error) if is_closed(&error) => ReadFailure {
            why: "the connection closed".to_owned(),
            dropped: true,
            timed_out: false,
        },
        FrameError::Io(error) if is_timeout(&error) => ReadFailure {
            why: if timed.bytes_read() == 0 {
                format!("nothing came for {} s (timed out)", budget.as_secs())
            } else {
                format!(
                    "a message took longer than {} s to come (timed out)",
                    budget.as_secs()
                )
            },
            dropped: true,
            timed_out: true,
        },
        FrameError::Io(error) => ReadFailure {
            why: format!("the connection failed: {error}"),
            dropped: true,
            timed_out: false,
        },
        other => ReadFailure {
            why: other.to_string(),
            dropped: false,
            timed_out: false,
        },
    })?;
    serde_json::from_slice(&plain).map_err(|error| ReadFailure {
        why: format!("sent a message that is not one ({error})"),
        dropped: false,
        timed_out: false,
    })
}

/// A connection's outgoing side: a bounded queue that its own thread seals
/// and writes, so that a slow or stuck other end never holds up the frame
/// loop; when the queue has been empty for [`HEARTBEAT_EVERY`] the thread
/// sends `alive`.
pub(super) struct Outbox {
    queue: SyncSender<Outgoing>,
    /// The connection, to close it from here.
    pub(super) stream: TcpStream,
    thread: Option<JoinHandle<()>>,
    capacity: usize,
}

/// Why a batch could not be queued.
pub(super) enum Refused {
    /// The queue is full: the other end takes nothing in.
    Full(usize),
    /// The writing thread has ended (it said why).
    Ended,
}

impl Outbox {
    /// Starts the writing thread `name` on `stream` (whose writes `sealer`
    /// seals), with `first` queued before anything else and room for
    /// `capacity` batches; `alive` is the heartbeat, `failed` hears why
    /// writing failed, once.
    pub(super) fn start(
        name: String,
        stream: &TcpStream,
        sealer: Sealer,
        capacity: usize,
        first: Option<Outgoing>,
        alive: Json,
        failed: impl FnOnce(String) + Send + 'static,
    ) -> std::io::Result<Outbox> {
        let (queue, items) = mpsc::sync_channel(capacity);
        if let Some(first) = first {
            // The queue is new and empty: it has room.
            let _ = queue.try_send(first);
        }
        let writing = stream.try_clone()?;
        let thread = thread::Builder::new()
            .name(name)
            .spawn(move || write_all(writing, sealer, items, alive, failed))?;
        Ok(Outbox {
            queue,
            stream: stream.try_clone()?,
            thread: Some(thread),
            capacity,
        })
    }

    /// Queues `batch` without waiting.
    pub(super) fn send(&self, batch: Vec<Json>) -> Result<(), Refused> {
        self.queue
            .try_send(Outgoing::Send(batch))
            .map_err(|error| match error {
                TrySendError::Full(_) => Refused::Full(self.capacity),
                TrySendError::Disconnected(_) => Refused::Ended,
            })
    }

    /// Queues `last` as the last message, or closes the connection at once
    /// when there is no room for it.
    pub(super) fn close_with(&self, last: Json) {
        if self.queue.try_send(Outgoing::Last(last)).is_err() {
            self.cut();
        }
    }

    /// Closes the connection both ways now.
    pub(super) fn cut(&self) {
        let _ = self.stream.shutdown(Shutdown::Both);
    }

    /// Waits until the writing thread is done, up to `deadline`: whether
    /// it is.
    pub(super) fn wait_until(&mut self, deadline: Instant) -> bool {
        let Some(thread) = self.thread.take() else {
            return true;
        };
        while !thread.is_finished() {
            if Instant::now() >= deadline {
                return false;
            }
            thread::sleep(Duration::from_millis(5));
        }
        let _ = thread.join();
        true
    }
}

/// The writing thread: each message sealed and written, each within
/// [`WRITE_TIMEOUT`].
fn write_all(
    stream: TcpStream,
    mut sealer: Sealer,
    items: Receiver<Outgoing>,
    alive: Json,
    failed: impl FnOnce(String),
) {
    let mut write = |message: &[u8]| -> Result<(), String> {
        let mut timed = Timed::for_next(&stream, WRITE_TIMEOUT);
        sealer
            .write(&mut timed, message)
            .map_err(|error| match error {
                FrameError::Io(error) if is_timeout(&error) => format!(
                    "it took in nothing of what was sent for {} s (timed out)",
                    WRITE_TIMEOUT.as_secs()
                ),
                other => other.to_string(),
            })
    };
    let outcome = loop {
        let item = match items.recv_timeout(HEARTBEAT_EVERY) {
            Ok(item) => item,
            Err(RecvTimeoutError::Timeout) => Outgoing::Send(vec![alive.clone()]),
            Err(RecvTimeoutError::Disconnected) => break Ok(()),
        };
        match item {
            Outgoing::Send(batch) => {
                if let Err(why) = batch.iter().try_for_each(|message| write(message)) {
                    break Err(why);
                }
            }
            Outgoing::Last(message) => {
                let written = write(&message);
                let _ = stream.shutdown(Shutdown::Write);
                break written;
            }
        }
    };
    if let Err(why) = outcome {
        let _ = stream.shutdown(Shutdown::Both);
        failed(why);
    }
}
