//! The Holographic Remoting connection over a whole run: connecting to the
//! player (`--remote`) or listening for one (`--listen`), waiting for the
//! runtime's CONNECTED before any session exists, and, when the connection
//! drops under a session, connecting again with back-off
//! (`--remote-retries`) so that the frame loop can start a new session with
//! the same app; plus the record of every connection for the report.
//!
//! Microsoft's remote sample does the same: a dropped connection moves the
//! session to LOSS_PENDING, the app destroys the session, connects (or
//! listens) again once the runtime says it is disconnected, and creates a
//! new session.

use std::ffi::CString;
use std::fmt;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

use openxr as xr;
use serde::Serialize;

use super::address::{ListenAddress, RemoteAddress, VideoCodec};
use crate::xr::error::{XrError, xr_call};
use crate::xr::progress::Progress;
use crate::xr::runtime::events::EventQueue;
use crate::xr::runtime::events::{Polled, RemotingEvent};
use crate::xr::runtime::extension_fns::load;
use crate::xr::runtime::instance::Runtime;
use crate::xr::sys::remoting::{
    CODEC_NOT_FOUND, CONNECTION_STATE_CONNECTED, CONNECTION_STATE_DISCONNECTED, ConnectFn,
    ConnectInfo, DEPTH_BUFFER_STREAM_RESOLUTION_HALF, DisconnectFn, DisconnectInfo,
    GetConnectionStateFn, ListenFn, ListenInfo, RemoteContextProperties, SetContextPropertiesFn,
    VIDEO_CODEC_NOT_AVAILABLE, disconnect_reason, disconnect_reason_name, structure_type,
};
use crate::xr::sys::ty;

/// How long to wait for the player to answer a connection attempt.
pub const CONNECT_TIMEOUT: Duration = Duration::from_secs(10);

/// How long to sleep between event polls while waiting.
const EVENT_POLL: Duration = Duration::from_millis(20);

/// Bitrate cap asked of the remoting stream, kbit/s: the samples' default,
/// enough for a HoloLens 2's two eyes over Wi-Fi.
const MAX_BITRATE_KBPS: u32 = 20_000;

/// The wait before the first attempt to reconnect; each further attempt
/// waits twice as long as the one before, up to [`MAX_RETRY_DELAY`].
pub const FIRST_RETRY_DELAY: Duration = Duration::from_secs(1);

/// The longest wait between attempts: a player that comes back (Wi-Fi
/// again, the Remoting Player restarted) is found within this.
pub const MAX_RETRY_DELAY: Duration = Duration::from_secs(30);

/// How long to wait before reconnect attempt `attempt` (1 for the first).
pub fn retry_delay(attempt: u32) -> Duration {
    let doublings = attempt.saturating_sub(1).min(16);
    FIRST_RETRY_DELAY
        .saturating_mul(1 << doublings)
        .min(MAX_RETRY_DELAY)
}

/// Whom the app streams to.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Peer {
    /// A Remoting Player listening at this address (`--remote`): the
    /// Store's player on a HoloLens 2.
    Player(RemoteAddress),
    /// Players that connect to the app, which listens here (`--listen`).
    Listen(ListenAddress),
}

impl fmt::Display for Peer {
    fn fmt(&self, formatter: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Peer::Player(address) => write!(formatter, "{address}"),
            Peer::Listen(address) => write!(formatter, "{address}"),
        }
    }
}

/// Why a connection ended, or an attempt failed.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Failure {
    /// The runtime said so, with this XrRemotingDisconnectReasonMSFT.
    Disconnected(u32),
    /// Nothing was heard from the player within [`CONNECT_TIMEOUT`].
    TimedOut,
    /// The runtime lost the session without saying why (no disconnect event).
    SessionLost,
}

impl Failure {
    /// Its name: Microsoft's for a disconnect reason, so it can be looked up.
    pub fn name(self) -> String {
        match self {
            Failure::Disconnected(reason) => disconnect_reason_name(reason),
            Failure::TimedOut => format!("no answer within {} s", CONNECT_TIMEOUT.as_secs()),
            Failure::SessionLost => "XR_ERROR_SESSION_LOST".into(),
        }
    }

    /// What happened, in words then by name, e.g. `connection lost
    /// (XR_REMOTING_DISCONNECT_REASON_CONNECTION_LOST_MSFT)`.
    pub fn describe(self) -> String {
        match self {
            Failure::Disconnected(reason) => {
                format!("{} ({})", disconnect_reason(reason), self.name())
            }
            Failure::TimedOut => self.name(),
            Failure::SessionLost => format!("session lost ({})", self.name()),
        }
    }
}

/// How waiting for a connection ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Waited {
    /// The runtime reported CONNECTED.
    Connected,
    /// The attempt failed.
    Failed(Failure),
    /// Ctrl-C (or SIGTERM, or closing the console) asked the app to stop.
    Interrupted,
}

/// Waits until `next_event` reports the connection or a disconnect, until
/// `timeout` (if any) has passed on `now`'s clock, or until `interrupted`
/// says to stop; a Listening event is handed to `listening`, other events
/// are ignored. The caller's `next_event` paces the loop (it sleeps when
/// the queue is empty).
pub fn wait_for_connection<E>(
    timeout: Option<Duration>,
    mut now: impl FnMut() -> Duration,
    mut next_event: impl FnMut() -> Result<Option<RemotingEvent>, E>,
    interrupted: impl Fn() -> bool,
    mut listening: impl FnMut(u16),
) -> Result<Waited, E> {
    let start = now();
    loop {
        match next_event()? {
            Some(RemotingEvent::Connected) => return Ok(Waited::Connected),
            Some(RemotingEvent::Disconnected(reason)) => {
                return Ok(Waited::Failed(Failure::Disconnected(reason)));
            }
            Some(RemotingEvent::Listening(port)) => listening(port),
            None if interrupted() => return Ok(Waited::Interrupted),
            None if timeout.is_some_and(|limit| now().saturating_sub(start) >= limit) => {
                return Ok(Waited::Failed(Failure::TimedOut));
            }
            None => {}
        }
    }
}

/// How reconnecting ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Reconnected {
    /// Connected again: start a new session.
    Connected,
    /// Ctrl-C asked the app to stop while it waited.
    Interrupted,
    /// `--remote-retries` attempts failed; the last failed so.
    GaveUp(Failure),
}

/// One connection, for the report.
#[derive(Debug, Clone, Serialize)]
pub struct ConnectionRecord {
    /// Frames drawn before it started.
    pub first_frame: u64,
    /// Frames drawn while it lasted.
    pub frames: u64,
    /// Why it ended (a disconnect reason by Microsoft's name); `null` when
    /// it lasted until the run ended.
    pub ended: Option<String>,
}

/// What the report says of Holographic Remoting.
#[derive(Debug, Clone, Serialize)]
pub struct RemotingRecord {
    /// "connect" (`--remote`) or "listen" (`--listen`).
    pub mode: &'static str,
    /// The player's address, or the address listened on.
    pub address: String,
    /// The remoting runtime's manifest the app loaded.
    pub runtime_manifest: String,
    /// How the manifest was found: "--remote-runtime", "beside the
    /// program" or "XR_RUNTIME_JSON".
    pub runtime_found_by: &'static str,
    /// Whether the player's speech recognizer was asked for the app's
    /// phrases (XR_MSFT_holographic_remoting_speech offered).
    pub speech: bool,
    /// The video codec asked for (`--codec`): "any", "h264" or "h265".
    pub codec: &'static str,
    /// Every connection, in order.
    pub connections: Vec<ConnectionRecord>,
    /// Attempts made to reconnect after a connection dropped.
    pub reconnect_attempts: u32,
}

/// The extension's connection functions.
#[derive(Clone, Copy)]
struct Functions {
    /// xrRemotingSetContextPropertiesMSFT.
    set_context_properties: SetContextPropertiesFn,
    /// xrRemotingConnectMSFT.
    connect: ConnectFn,
    /// xrRemotingListenMSFT.
    listen: ListenFn,
    /// xrRemotingDisconnectMSFT.
    disconnect: DisconnectFn,
    /// xrRemotingGetConnectionStateMSFT.
    get_connection_state: GetConnectionStateFn,
}

/// The connection to the player over a run.
pub struct Link {
    /// The instance (XR_MSFT_holographic_remoting enabled).
    instance: xr::Instance,
    /// The system connected for.
    system: xr::SystemId,
    /// The extension's functions.
    functions: Functions,
    /// Whom to stream to.
    peer: Peer,
    /// `--remote-retries`: attempts after a drop; `None` for no limit.
    retries: Option<u32>,
    /// `--codec`: what the stream is encoded with.
    codec: VideoCodec,
    /// The report's record of connections that ended.
    record: RemotingRecord,
    /// The connection under way, once connected.
    open: Option<ConnectionRecord>,
}

impl Link {
    /// The link of `runtime` (opened with remoting) to `peer`, streaming
    /// with `codec`, retrying a dropped connection `retries` times (`None`:
    /// until Ctrl-C).
    pub fn open(
        runtime: &Runtime,
        peer: Peer,
        codec: VideoCodec,
        retries: Option<u32>,
    ) -> Result<Self, XrError> {
        let instance = &runtime.instance;
        // SAFETY: the types are the header's for these names; Runtime::open
        // enabled the extension for a remoting run.
        let functions = unsafe {
            Functions {
                set_context_properties: load(instance, c"xrRemotingSetContextPropertiesMSFT")?,
                connect: load(instance, c"xrRemotingConnectMSFT")?,
                listen: load(instance, c"xrRemotingListenMSFT")?,
                disconnect: load(instance, c"xrRemotingDisconnectMSFT")?,
                get_connection_state: load(instance, c"xrRemotingGetConnectionStateMSFT")?,
            }
        };
        let (runtime_manifest, runtime_found_by) = match &runtime.manifest {
            Some(manifest) => (manifest.path.display().to_string(), manifest.origin.name()),
            None => (String::new(), "the OpenXR loader"),
        };
        Ok(Link {
            instance: instance.clone(),
            system: runtime.system,
            functions,
            record: RemotingRecord {
                mode: match peer {
                    Peer::Player(_) => "connect",
                    Peer::Listen(_) => "listen",
                },
                address: peer.to_string(),
                runtime_manifest,
                runtime_found_by,
                speech: runtime.extensions.remoting_speech,
                codec: codec.name(),
                connections: Vec::new(),
                reconnect_attempts: 0,
            },
            open: None,
            peer,
            retries,
            codec,
        })
    }

    /// Makes the first connection, before any session: one attempt to
    /// connect (a player that cannot be reached is an error at once, so a
    /// wrong address says so), or listening until a player connects. `false`
    /// when Ctrl-C stopped the wait.
    pub fn establish(
        &mut self,
        events: &mut EventQueue,
        interrupted: &AtomicBool,
        progress: &mut dyn FnMut(Progress),
    ) -> Result<bool, XrError> {
        match self.attempt(events, interrupted, 0, progress)? {
            Waited::Connected => Ok(true),
            Waited::Interrupted => Ok(false),
            Waited::Failed(failure @ Failure::Disconnected(VIDEO_CODEC_NOT_AVAILABLE)) => {
                Err(XrError::RemoteDecoderMissing {
                    address: self.peer.to_string(),
                    codec: self.codec.name(),
                    why: failure.describe(),
                })
            }
            Waited::Failed(failure) => Err(match &self.peer {
                Peer::Player(address) => XrError::RemoteUnreachable {
                    address: address.to_string(),
                    why: failure.describe(),
                },
                Peer::Listen(address) => XrError::RemoteListenFailed {
                    address: address.to_string(),
                    why: failure.describe(),
                },
            }),
        }
    }

    /// Notes that the session was lost after `frames` frames drawn in all,
    /// and why: the disconnect reason the frame loop saw, else one still
    /// queued (a runtime may report the session's loss first), else the
    /// loss itself. Every queued event is read, so none of the old
    /// connection's is taken for the next attempt's.
    pub fn lost(&mut self, events: &mut EventQueue, seen: Option<u32>, frames: u64) -> Failure {
        let mut queued = None;
        loop {
            match events.next() {
                Ok(Some(Polled::Remoting(RemotingEvent::Disconnected(reason)))) => {
                    queued = Some(reason);
                }
                Ok(Some(_)) => {}
                Ok(None) => break,
                Err(error) => {
                    log::info!("reading the lost session's events: {error}");
                    break;
                }
            }
        }
        let failure = seen
            .or(queued)
            .map_or(Failure::SessionLost, Failure::Disconnected);
        self.close_record(Some(failure), frames);
        failure
    }

    /// Attempts made to reconnect so far.
    pub fn reconnect_attempts(&self) -> u32 {
        self.record.reconnect_attempts
    }

    /// Connects again after the connection dropped (`last`): waits
    /// [`retry_delay`] before each attempt, telling `progress`, until an
    /// attempt connects, `--remote-retries` attempts have failed, or Ctrl-C.
    /// `frames`: drawn so far, for the record.
    pub fn reconnect(
        &mut self,
        events: &mut EventQueue,
        interrupted: &AtomicBool,
        mut last: Failure,
        frames: u64,
        progress: &mut dyn FnMut(Progress),
    ) -> Result<Reconnected, XrError> {
        for attempt in 1.. {
            if self.retries.is_some_and(|limit| attempt > limit) {
                return Ok(Reconnected::GaveUp(last));
            }
            let delay = retry_delay(attempt);
            progress(Progress::RemotingReconnecting {
                peer: self.peer.to_string(),
                attempt,
                limit: self.retries,
                delay,
                after: last.name(),
            });
            if sleep_unless_interrupted(delay, interrupted) {
                return Ok(Reconnected::Interrupted);
            }
            self.record.reconnect_attempts += 1;
            match self.attempt(events, interrupted, frames, progress)? {
                Waited::Connected => return Ok(Reconnected::Connected),
                Waited::Interrupted => return Ok(Reconnected::Interrupted),
                Waited::Failed(failure) => last = failure,
            }
        }
        Ok(Reconnected::GaveUp(last))
    }

    /// The report's record, the last connection ending with the run after
    /// `frames` frames drawn in all.
    pub fn finish(mut self, frames: u64) -> RemotingRecord {
        self.close_record(None, frames);
        self.record
    }

    /// Whom the app streams to.
    pub fn peer(&self) -> &Peer {
        &self.peer
    }

    /// Closes the open connection's record, if one is open.
    fn close_record(&mut self, failure: Option<Failure>, frames: u64) {
        if let Some(mut connection) = self.open.take() {
            connection.frames = frames.saturating_sub(connection.first_frame);
            connection.ended = failure.map(Failure::name);
            self.record.connections.push(connection);
        }
    }

    /// One attempt: starts connecting or listening (unless the runtime is
    /// at it already) and waits for the outcome; an attempt that fails or
    /// is interrupted is stopped. On success the connection is recorded as
    /// starting after `frames` frames and `progress` is told.
    fn attempt(
        &mut self,
        events: &mut EventQueue,
        interrupted: &AtomicBool,
        frames: u64,
        progress: &mut dyn FnMut(Progress),
    ) -> Result<Waited, XrError> {
        let waited = match self.connection_state()? {
            CONNECTION_STATE_CONNECTED => Waited::Connected,
            state => {
                if state == CONNECTION_STATE_DISCONNECTED {
                    self.start()?;
                }
                self.wait(events, interrupted, progress)?
            }
        };
        match waited {
            Waited::Connected => {
                self.open = Some(ConnectionRecord {
                    first_frame: frames,
                    frames: 0,
                    ended: None,
                });
                progress(Progress::RemotingConnected {
                    peer: self.peer.to_string(),
                    listening: matches!(self.peer, Peer::Listen(_)),
                });
            }
            Waited::Failed(_) | Waited::Interrupted => self.stop(),
        }
        Ok(waited)
    }

    /// The runtime's connection state (XrRemotingConnectionStateMSFT).
    fn connection_state(&self) -> Result<u32, XrError> {
        let (mut state, mut reason) = (0u32, 0u32);
        // SAFETY: the instance is live; both outputs are live locals.
        let result = unsafe {
            (self.functions.get_connection_state)(
                self.instance.as_raw(),
                self.system,
                &mut state,
                &mut reason,
            )
        };
        if result.into_raw() < 0 {
            return Err(xr_call("xrRemotingGetConnectionStateMSFT")(result));
        }
        Ok(state)
    }

    /// Sets the stream's properties, then connects to the player or starts
    /// listening; the runtime reports the outcome as events.
    fn start(&self) -> Result<(), XrError> {
        let properties = RemoteContextProperties {
            ty: ty(structure_type::REMOTE_CONTEXT_PROPERTIES),
            next: std::ptr::null_mut(),
            max_bitrate_kbps: MAX_BITRATE_KBPS,
            enable_audio: xr::sys::FALSE,
            video_codec: self.codec.raw(),
            depth_buffer_stream_resolution: DEPTH_BUFFER_STREAM_RESOLUTION_HALF,
        };
        // SAFETY: the instance is live; `properties` lives across the call.
        let result = unsafe {
            (self.functions.set_context_properties)(
                self.instance.as_raw(),
                self.system,
                &properties,
            )
        };
        if result.into_raw() < 0 {
            return Err(xr_call("xrRemotingSetContextPropertiesMSFT")(result));
        }
        let host = |host: &str| {
            CString::new(host).map_err(|_| XrError::RemoteUnreachable {
                address: self.peer.to_string(),
                why: "the host name contains a NUL byte".into(),
            })
        };
        let (call, result) = match &self.peer {
            Peer::Player(address) => {
                let host = host(&address.host)?;
                let info = ConnectInfo {
                    ty: ty(structure_type::CONNECT_INFO),
                    next: std::ptr::null(),
                    remote_host_name: host.as_ptr(),
                    remote_port: address.port,
                    secure_connection: xr::sys::FALSE,
                };
                // SAFETY: the instance is live; `info` and `host` live across the call.
                let result =
                    unsafe { (self.functions.connect)(self.instance.as_raw(), self.system, &info) };
                ("xrRemotingConnectMSFT", result)
            }
            Peer::Listen(address) => {
                let host = host(&address.host)?;
                let info = ListenInfo {
                    ty: ty(structure_type::LISTEN_INFO),
                    next: std::ptr::null(),
                    listen_interface: host.as_ptr(),
                    handshake_listen_port: address.port,
                    transport_listen_port: address.transport_port(),
                    secure_connection: xr::sys::FALSE,
                };
                // SAFETY: the instance is live; `info` and `host` live across the call.
                let result =
                    unsafe { (self.functions.listen)(self.instance.as_raw(), self.system, &info) };
                ("xrRemotingListenMSFT", result)
            }
        };
        if result.into_raw() == CODEC_NOT_FOUND {
            return Err(XrError::RemoteEncoderMissing {
                codec: self.codec.name(),
                call,
            });
        }
        if result.into_raw() < 0 {
            return Err(xr_call(call)(result));
        }
        Ok(())
    }

    /// Waits for the attempt under way, polling `events` (events of a
    /// session already destroyed are dropped): at most [`CONNECT_TIMEOUT`]
    /// for a player, for as long as it takes when listening.
    fn wait(
        &mut self,
        events: &mut EventQueue,
        interrupted: &AtomicBool,
        progress: &mut dyn FnMut(Progress),
    ) -> Result<Waited, XrError> {
        let timeout = match self.peer {
            Peer::Player(_) => Some(CONNECT_TIMEOUT),
            Peer::Listen(_) => None,
        };
        let started = Instant::now();
        wait_for_connection(
            timeout,
            || started.elapsed(),
            || -> Result<Option<RemotingEvent>, XrError> {
                match events.next()? {
                    Some(Polled::Remoting(event)) => Ok(Some(event)),
                    Some(Polled::Core(_) | Polled::Speech(_)) => Ok(None),
                    None => {
                        std::thread::sleep(EVENT_POLL);
                        Ok(None)
                    }
                }
            },
            || interrupted.load(Ordering::Relaxed),
            |port| progress(Progress::RemotingListening { port }),
        )
    }

    /// Stops a connection attempt or listening; its result does not change
    /// what the caller reports.
    fn stop(&self) {
        let info = DisconnectInfo {
            ty: ty(structure_type::DISCONNECT_INFO),
            next: std::ptr::null(),
        };
        // SAFETY: the instance is live; `info` lives across the call.
        let _ = unsafe { (self.functions.disconnect)(self.instance.as_raw(), self.system, &info) };
    }
}

/// Sleeps for `delay` in short steps; true, at once, when `interrupted` is raised.
fn sleep_unless_interrupted(delay: Duration, interrupted: &AtomicBool) -> bool {
    let until = Instant::now() + delay;
    loop {
        if interrupted.load(Ordering::Relaxed) {
            return true;
        }
        let left = until.saturating_duration_since(Instant::now());
        if left.is_zero() {
            return false;
        }
        std::thread::sleep(left.min(EVENT_POLL));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn retries_wait_one_second_then_twice_as_long_up_to_half_a_minute() {
        let delays: Vec<u64> = (1..=8).map(|n| retry_delay(n).as_secs()).collect();
        assert_eq!(delays, [1, 2, 4, 8, 16, 30, 30, 30]);
        assert_eq!(retry_delay(u32::MAX), MAX_RETRY_DELAY);
    }

    #[test]
    fn connecting_ends_at_the_first_connection_event() {
        let mut events = vec![None, Some(RemotingEvent::Connected)].into_iter();
        let outcome = wait_for_connection::<()>(
            Some(Duration::from_secs(1)),
            || Duration::ZERO,
            || Ok(events.next().flatten()),
            || false,
            |_| {},
        );
        assert_eq!(outcome, Ok(Waited::Connected));
    }

    #[test]
    fn a_disconnect_while_connecting_is_a_failure_with_its_reason() {
        let outcome = wait_for_connection::<()>(
            Some(Duration::from_secs(1)),
            || Duration::ZERO,
            || Ok(Some(RemotingEvent::Disconnected(4))),
            || false,
            |_| {},
        );
        assert_eq!(outcome, Ok(Waited::Failed(Failure::Disconnected(4))));
        assert_eq!(
            Failure::Disconnected(4).describe(),
            "handshake unreachable (XR_REMOTING_DISCONNECT_REASON_HANDSHAKE_UNREACHABLE_MSFT)"
        );
    }

    #[test]
    fn silence_until_the_timeout_is_a_timeout() {
        let mut clock = Duration::ZERO;
        let mut polls = 0;
        let outcome = wait_for_connection::<()>(
            Some(Duration::from_secs(10)),
            || {
                clock += Duration::from_secs(1);
                clock
            },
            || {
                polls += 1;
                Ok(None)
            },
            || false,
            |_| {},
        );
        assert_eq!(outcome, Ok(Waited::Failed(Failure::TimedOut)));
        assert_eq!(polls, 10, "polled until the clock passed the timeout");
    }

    #[test]
    fn listening_waits_past_any_time_until_a_player_connects_and_reports_its_port() {
        let mut polls = 0;
        let mut ports = Vec::new();
        let outcome = wait_for_connection::<()>(
            None,
            || Duration::from_secs(3600),
            || {
                polls += 1;
                Ok(match polls {
                    1 => Some(RemotingEvent::Listening(8265)),
                    1000 => Some(RemotingEvent::Connected),
                    _ => None,
                })
            },
            || false,
            |port| ports.push(port),
        );
        assert_eq!(outcome, Ok(Waited::Connected));
        assert_eq!(ports, [8265]);
    }

    #[test]
    fn ctrl_c_ends_a_wait_with_no_events() {
        let outcome =
            wait_for_connection::<()>(None, || Duration::ZERO, || Ok(None), || true, |_| {});
        assert_eq!(outcome, Ok(Waited::Interrupted));
    }

    #[test]
    fn an_interrupt_cuts_the_sleep_between_attempts_short() {
        let interrupted = AtomicBool::new(true);
        let started = Instant::now();
        assert!(sleep_unless_interrupted(
            Duration::from_secs(30),
            &interrupted
        ));
        assert!(started.elapsed() < Duration::from_secs(1));
        assert!(!sleep_unless_interrupted(
            Duration::from_millis(30),
            &AtomicBool::new(false)
        ));
    }
}
