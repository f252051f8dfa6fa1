//! Holographic Remoting (`xr --remote HOST[:PORT]`): the XR_MSFT_holographic_remoting
//! declarations openxr-sys lacks, the player's address, and the connection
//! made before the session begins.
//!
//! The declarations follow Microsoft's published header
//! `openxr_msft_holographic_remoting.h` (Microsoft.Holographic.Remoting.OpenXr
//! package; extension number 66, so its structure types start at
//! 1000065000); `tests/support/remoting_layout.c` states the same facts in C
//! and the tests below check sizes and offsets against the C compiler.
use std::ffi::{CString, c_char, c_void};
use std::fmt;
use std::mem::MaybeUninit;
use std::str::FromStr;
use std::time::{Duration, Instant};

use openxr as xr;

use super::error::{XrError, xr_call};

/// The extension's name.
pub const EXTENSION_NAME: &str = "XR_MSFT_holographic_remoting";

/// The Holographic Remoting Player's handshake port.
pub const DEFAULT_PORT: u16 = 8265;

/// How long to wait for the player to answer before giving up.
pub const CONNECT_TIMEOUT: Duration = Duration::from_secs(10);

/// How long to sleep between event polls while connecting.
const CONNECT_POLL: Duration = Duration::from_millis(20);

/// Bitrate cap asked of the remoting stream, kbit/s: the samples' default,
/// enough for a HoloLens 2's two eyes over Wi-Fi.
const MAX_BITRATE_KBPS: u32 = 20_000;

/// `XrStructureType` values of the extension, raw
/// (`StructureType::from_raw` is not a `const fn`); the tests hold them to
/// the published header's.
pub mod structure_type {
    /// XR_MSFT_holographic_remoting's extension number.
    const EXTENSION_NUMBER: i32 = 66;

    /// The extension's `n`th structure type: every extension's types start
    /// at 1000000000 + (extension number − 1) × 1000.
    const fn of_extension(n: i32) -> i32 {
        1_000_000_000 + (EXTENSION_NUMBER - 1) * 1000 + n
    }

    /// XR_TYPE_REMOTING_REMOTE_CONTEXT_PROPERTIES_MSFT.
    pub const REMOTE_CONTEXT_PROPERTIES: i32 = of_extension(0);
    /// XR_TYPE_REMOTING_CONNECT_INFO_MSFT.
    pub const CONNECT_INFO: i32 = of_extension(1);
    /// XR_TYPE_REMOTING_DISCONNECT_INFO_MSFT.
    pub const DISCONNECT_INFO: i32 = of_extension(3);
    /// XR_TYPE_REMOTING_EVENT_DATA_CONNECTED_MSFT.
    pub const EVENT_DATA_CONNECTED: i32 = of_extension(5);
    /// XR_TYPE_REMOTING_EVENT_DATA_DISCONNECTED_MSFT.
    pub const EVENT_DATA_DISCONNECTED: i32 = of_extension(6);
}

/// XrRemotingVideoCodecMSFT: HEVC preferred, H.264 when a side lacks it.
pub const VIDEO_CODEC_ANY: u32 = 0;
/// XrRemotingDepthBufferStreamResolutionMSFT: depth at half the colour
/// resolution (the runtime's default), enough for reprojection.
pub const DEPTH_BUFFER_STREAM_RESOLUTION_HALF: u32 = 0;

/// XrRemotingRemoteContextPropertiesMSFT: how the stream is encoded.
#[repr(C)]
#[derive(Debug, Clone, Copy)]
pub struct RemoteContextProperties {
    /// [`structure_type::REMOTE_CONTEXT_PROPERTIES`].
    pub ty: xr::sys::StructureType,
    /// Extension chain (none defined).
    pub next: *mut c_void,
    /// Bitrate cap, kbit/s.
    pub max_bitrate_kbps: u32,
    /// Whether the player's audio is streamed back (XrBool32).
    pub enable_audio: xr::sys::Bool32,
    /// XrRemotingVideoCodecMSFT.
    pub video_codec: u32,
    /// XrRemotingDepthBufferStreamResolutionMSFT.
    pub depth_buffer_stream_resolution: u32,
}

/// XrRemotingConnectInfoMSFT: which player to connect to.
#[repr(C)]
#[derive(Debug, Clone, Copy)]
pub struct ConnectInfo {
    /// [`structure_type::CONNECT_INFO`].
    pub ty: xr::sys::StructureType,
    /// Extension chain (none defined).
    pub next: *const c_void,
    /// Host name or IP address of the player, NUL-terminated.
    pub remote_host_name: *const c_char,
    /// The player's handshake port.
    pub remote_port: u16,
    /// Whether to use an encrypted, authenticated connection (XrBool32).
    pub secure_connection: xr::sys::Bool32,
}

/// XrRemotingDisconnectInfoMSFT.
#[repr(C)]
#[derive(Debug, Clone, Copy)]
pub struct DisconnectInfo {
    /// [`structure_type::DISCONNECT_INFO`].
    pub ty: xr::sys::StructureType,
    /// Extension chain (none defined).
    pub next: *const c_void,
}

/// XrRemotingEventDataDisconnectedMSFT: the connection ended or failed.
/// (XrRemotingEventDataConnectedMSFT carries nothing but the header, so the
/// base structure's type is all that is read of it.)
#[repr(C)]
#[derive(Debug, Clone, Copy)]
pub struct EventDataDisconnected {
    /// [`structure_type::EVENT_DATA_DISCONNECTED`].
    pub ty: xr::sys::StructureType,
    /// Extension chain.
    pub next: *const c_void,
    /// XrRemotingDisconnectReasonMSFT ([`disconnect_reason`] names it).
    pub disconnect_reason: u32,
}

/// PFN_xrRemotingSetContextPropertiesMSFT.
pub type SetContextPropertiesFn = unsafe extern "system" fn(
    xr::sys::Instance,
    xr::sys::SystemId,
    *const RemoteContextProperties,
) -> xr::sys::Result;
/// PFN_xrRemotingConnectMSFT.
pub type ConnectFn = unsafe extern "system" fn(
    xr::sys::Instance,
    xr::sys::SystemId,
    *const ConnectInfo,
) -> xr::sys::Result;
/// PFN_xrRemotingDisconnectMSFT.
pub type DisconnectFn = unsafe extern "system" fn(
    xr::sys::Instance,
    xr::sys::SystemId,
    *const DisconnectInfo,
) -> xr::sys::Result;

/// Why the runtime says the connection ended (XrRemotingDisconnectReasonMSFT),
/// as words for the error line.
pub fn disconnect_reason(reason: u32) -> &'static str {
    match reason {
        0 => "no failure",
        1 => "unknown reason",
        2 => "no server certificate",
        3 => "handshake port busy",
        4 => "handshake unreachable",
        5 => "handshake connection failed",
        6 => "authentication failed",
        7 => "remoting version mismatch",
        8 => "incompatible transport protocols",
        9 => "handshake failed",
        10 => "transport port busy",
        11 => "transport unreachable",
        12 => "transport connection failed",
        13 => "protocol version mismatch",
        14 => "protocol error",
        15 => "video codec not available",
        16 => "canceled",
        17 => "connection lost",
        18 => "device lost",
        19 => "disconnect requested",
        20 => "handshake network unreachable",
        21 => "handshake connection refused",
        22 => "video format not available",
        23 => "peer disconnect request",
        24 => "peer disconnect timeout",
        25 => "session open timeout",
        26 => "remoting handshake timeout",
        27 => "internal error",
        28 => "handshake permission denied",
        _ => "unrecognised reason",
    }
}

/// Where the Holographic Remoting Player listens: `HOST[:PORT]`, IPv6
/// addresses in brackets when a port follows (`[fe80::1]:8265`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RemoteAddress {
    /// Host name or IP address.
    pub host: String,
    /// Handshake port.
    pub port: u16,
}

impl FromStr for RemoteAddress {
    type Err = String;

    fn from_str(text: &str) -> Result<Self, Self::Err> {
        let (host, port) = if let Some(rest) = text.strip_prefix('[') {
            let (host, after) = rest
                .split_once(']')
                .ok_or_else(|| format!("`{text}` opens `[` without closing it"))?;
            match after {
                "" => (host, None),
                _ => match after.strip_prefix(':') {
                    Some(port) => (host, Some(port)),
                    None => return Err(format!("`{text}`: expected `:PORT` after `]`")),
                },
            }
        } else {
            match text.split_once(':') {
                // More than one colon without brackets: a bare IPv6 address.
                Some((_, rest)) if rest.contains(':') => (text, None),
                Some((host, port)) => (host, Some(port)),
                None => (text, None),
            }
        };
        if host.is_empty() || host.chars().any(char::is_whitespace) {
            return Err(format!(
                "`{text}` has no host; give the HoloLens' IP address or name, e.g. 192.168.1.20 or 192.168.1.20:8265"
            ));
        }
        let port = match port {
            None => DEFAULT_PORT,
            Some(port) => match port.parse::<u16>() {
                Ok(port) if port > 0 => port,
                _ => return Err(format!("port `{port}` must be 1 to 65535")),
            },
        };
        Ok(RemoteAddress {
            host: host.to_owned(),
            port,
        })
    }
}

impl fmt::Display for RemoteAddress {
    fn fmt(&self, formatter: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.host.contains(':') {
            write!(formatter, "[{}]:{}", self.host, self.port)
        } else {
            write!(formatter, "{}:{}", self.host, self.port)
        }
    }
}

/// A remoting event, from [`poll_event`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum RemotingEvent {
    /// The player accepted the connection.
    Connected,
    /// The connection ended or could not be made, with the runtime's reason.
    Disconnected(u32),
}

/// An `XrStructureType` from its raw value.
fn ty(raw: i32) -> xr::sys::StructureType {
    xr::sys::StructureType::from_raw(raw)
}

/// One event from xrPollEvent: a core one (the openxr crate's), or a
/// remoting one (which the crate does not know and would drop).
pub enum Polled<'a> {
    /// An event the openxr crate knows.
    Core(xr::Event<'a>),
    /// A Holographic Remoting event.
    Remoting(RemotingEvent),
}

/// Polls one event, remoting events included; `None` when the queue is
/// empty. Events neither the crate nor this module knows are skipped.
pub fn poll_event<'a>(
    instance: &xr::Instance,
    storage: &'a mut MaybeUninit<xr::sys::EventDataBuffer>,
) -> Result<Option<Polled<'a>>, XrError> {
    // A raw pointer, as in the openxr crate's own poll_event: the borrow
    // checker cannot see that a returned event ends the loop.
    let storage: *mut MaybeUninit<xr::sys::EventDataBuffer> = storage;
    loop {
        // SAFETY: `storage` comes from a live `&mut` for the whole call.
        let buffer = unsafe { (*storage).as_mut_ptr() };
        let base = buffer.cast::<xr::sys::BaseInStructure>();
        // SAFETY: the buffer is an XrEventDataBuffer's size and alignment; its
        // header is written before the runtime fills it in.
        unsafe {
            base.write(xr::sys::BaseInStructure {
                ty: xr::sys::EventDataBuffer::TYPE,
                next: std::ptr::null(),
            })
        };
        // SAFETY: the instance is live and the buffer is writable.
        let result = unsafe { (instance.fp().poll_event)(instance.as_raw(), buffer) };
        if result == xr::sys::Result::EVENT_UNAVAILABLE {
            return Ok(None);
        }
        if result.into_raw() < 0 {
            return Err(xr_call("xrPollEvent")(result));
        }
        // SAFETY: xrPollEvent succeeded, so the buffer holds the event it
        // wrote, and `storage` is borrowed for 'a.
        if let Some(polled) = unsafe { decode(&*storage) } {
            return Ok(Some(polled));
        }
    }
}

/// The event in `storage`: a remoting one, a core one, or `None` for one
/// neither this module nor the openxr crate knows.
///
/// # Safety
/// `storage` holds an event as xrPollEvent writes it.
unsafe fn decode(storage: &MaybeUninit<xr::sys::EventDataBuffer>) -> Option<Polled<'_>> {
    let buffer = storage.as_ptr();
    // SAFETY: per this function's contract, the header holds the event's type.
    let event_type = unsafe { (*buffer.cast::<xr::sys::BaseInStructure>()).ty }.into_raw();
    if event_type == structure_type::EVENT_DATA_CONNECTED {
        return Some(Polled::Remoting(RemotingEvent::Connected));
    }
    if event_type == structure_type::EVENT_DATA_DISCONNECTED {
        // SAFETY: the runtime wrote an XrRemotingEventDataDisconnectedMSFT,
        // which fits in the buffer.
        let event = unsafe { buffer.cast::<EventDataDisconnected>().read() };
        return Some(Polled::Remoting(RemotingEvent::Disconnected(
            event.disconnect_reason,
        )));
    }
    // SAFETY: the buffer holds a core event, or one the crate skips.
    unsafe { xr::Event::from_raw(storage) }.map(Polled::Core)
}

/// Why a remoting connection was not made.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ConnectFailure {
    /// The runtime reported the connection ended, with its reason.
    Disconnected(u32),
    /// Nothing was heard from the player within the timeout.
    TimedOut,
}

/// Waits until `next_event` reports the connection, a disconnect, or
/// `timeout` has passed on `now`'s clock (which the caller advances, e.g.
/// by sleeping); events that are not about the connection are ignored.
pub fn wait_for_connection<E>(
    timeout: Duration,
    mut now: impl FnMut() -> Duration,
    mut next_event: impl FnMut() -> Result<Option<RemotingEvent>, E>,
) -> Result<Result<(), ConnectFailure>, E> {
    let start = now();
    loop {
        match next_event()? {
            Some(RemotingEvent::Connected) => return Ok(Ok(())),
            Some(RemotingEvent::Disconnected(reason)) => {
                return Ok(Err(ConnectFailure::Disconnected(reason)));
            }
            None if now().saturating_sub(start) >= timeout => {
                return Ok(Err(ConnectFailure::TimedOut));
            }
            None => {}
        }
    }
}

/// Looks up an extension function the openxr crate does not declare (this
/// extension's, XR_MSFT_scene_understanding's).
///
/// # Safety
/// `F` must be the function pointer type the extension declares for `name`,
/// and the instance must have that extension enabled.
pub(super) unsafe fn load<F: Copy>(
    instance: &xr::Instance,
    name: &std::ffi::CStr,
) -> Result<F, XrError> {
    let mut function = None;
    // SAFETY: the instance is live; `name` is NUL-terminated.
    let result = unsafe {
        (instance.entry().fp().get_instance_proc_addr)(
            instance.as_raw(),
            name.as_ptr(),
            &mut function,
        )
    };
    match function {
        Some(function) if result.into_raw() >= 0 => {
            // SAFETY: per this function's contract, `F` is this entry point's
            // type; every function pointer has the same size.
            Ok(unsafe { std::mem::transmute_copy::<xr::sys::pfn::VoidFunction, F>(&function) })
        }
        _ => Err(XrError::Xr {
            call: "xrGetInstanceProcAddr",
            result: if result.into_raw() < 0 {
                result
            } else {
                xr::sys::Result::ERROR_FUNCTION_UNSUPPORTED
            },
        }),
    }
}

/// Sets the remote context properties and connects to the player at
/// `address`, waiting for the runtime to report CONNECTED, before any
/// session exists. The instance must have been created with
/// XR_MSFT_holographic_remoting enabled.
pub fn connect(
    instance: &xr::Instance,
    system: xr::SystemId,
    address: &RemoteAddress,
) -> Result<(), XrError> {
    // SAFETY: the types are the header's for these names; the caller enabled
    // the extension (Runtime::open with remoting).
    let (set_context_properties, connect_fn, disconnect_fn) = unsafe {
        (
            load::<SetContextPropertiesFn>(instance, c"xrRemotingSetContextPropertiesMSFT")?,
            load::<ConnectFn>(instance, c"xrRemotingConnectMSFT")?,
            load::<DisconnectFn>(instance, c"xrRemotingDisconnectMSFT")?,
        )
    };
    let properties = RemoteContextProperties {
        ty: ty(structure_type::REMOTE_CONTEXT_PROPERTIES),
        next: std::ptr::null_mut(),
        max_bitrate_kbps: MAX_BITRATE_KBPS,
        enable_audio: xr::sys::FALSE,
        video_codec: VIDEO_CODEC_ANY,
        depth_buffer_stream_resolution: DEPTH_BUFFER_STREAM_RESOLUTION_HALF,
    };
    // SAFETY: the instance is live; `properties` lives across the call.
    let result = unsafe { set_context_properties(instance.as_raw(), system, &properties) };
    if result.into_raw() < 0 {
        return Err(xr_call("xrRemotingSetContextPropertiesMSFT")(result));
    }
    let host = CString::new(address.host.as_str()).map_err(|_| XrError::RemoteUnreachable {
        address: address.to_string(),
        why: "the host name contains a NUL byte".into(),
    })?;
    let connect_info = ConnectInfo {
        ty: ty(structure_type::CONNECT_INFO),
        next: std::ptr::null(),
        remote_host_name: host.as_ptr(),
        remote_port: address.port,
        secure_connection: xr::sys::FALSE,
    };
    // SAFETY: the instance is live; `connect_info` and `host` live across the call.
    let result = unsafe { connect_fn(instance.as_raw(), system, &connect_info) };
    if result.into_raw() < 0 {
        return Err(xr_call("xrRemotingConnectMSFT")(result));
    }
    let started = Instant::now();
    let mut storage = MaybeUninit::uninit();
    let outcome = wait_for_connection(
        CONNECT_TIMEOUT,
        || started.elapsed(),
        || -> Result<Option<RemotingEvent>, XrError> {
            match poll_event(instance, &mut storage)? {
                Some(Polled::Remoting(event)) => Ok(Some(event)),
                Some(Polled::Core(_)) => Ok(None),
                None => {
                    std::thread::sleep(CONNECT_POLL);
                    Ok(None)
                }
            }
        },
    )?;
    match outcome {
        Ok(()) => Ok(()),
        Err(failure) => {
            let disconnect_info = DisconnectInfo {
                ty: ty(structure_type::DISCONNECT_INFO),
                next: std::ptr::null(),
            };
            // Stop the attempt still under way; its result does not change the error.
            // SAFETY: the instance is live; `disconnect_info` lives across the call.
            let _ = unsafe { disconnect_fn(instance.as_raw(), system, &disconnect_info) };
            Err(XrError::RemoteUnreachable {
                address: address.to_string(),
                why: match failure {
                    ConnectFailure::Disconnected(reason) => disconnect_reason(reason).to_owned(),
                    ConnectFailure::TimedOut => {
                        format!("no answer within {} s", CONNECT_TIMEOUT.as_secs())
                    }
                },
            })
        }
    }
}

#[cfg(test)]
mod tests {
    use std::collections::HashMap;
    use std::mem::{offset_of, size_of};
    use std::process::Command;

    use super::*;

    #[test]
    fn an_address_without_a_port_gets_the_players_port() {
        let address: RemoteAddress = "192.168.1.20".parse().unwrap();
        assert_eq!(
            address,
            RemoteAddress {
                host: "192.168.1.20".into(),
                port: 8265
            }
        );
        assert_eq!(address.to_string(), "192.168.1.20:8265");
    }

    #[test]
    fn an_address_keeps_its_port_and_ipv6_brackets() {
        let named: RemoteAddress = "hololens.local:9000".parse().unwrap();
        assert_eq!((named.host.as_str(), named.port), ("hololens.local", 9000));
        let v6: RemoteAddress = "[fe80::1]:8266".parse().unwrap();
        assert_eq!((v6.host.as_str(), v6.port), ("fe80::1", 8266));
        assert_eq!(v6.to_string(), "[fe80::1]:8266");
        let bare_v6: RemoteAddress = "::1".parse().unwrap();
        assert_eq!((bare_v6.host.as_str(), bare_v6.port), ("::1", 8265));
    }

    #[test]
    fn bad_addresses_are_refused_with_a_reason() {
        for (text, says) in [
            ("", "has no host"),
            (":8265", "has no host"),
            ("host:0", "must be 1 to 65535"),
            ("host:70000", "must be 1 to 65535"),
            ("host:port", "must be 1 to 65535"),
            ("[fe80::1", "without closing"),
            ("[fe80::1]8265", "expected `:PORT`"),
        ] {
            let error = text.parse::<RemoteAddress>().unwrap_err();
            assert!(error.contains(says), "{text}: {error}");
        }
    }

    #[test]
    fn connecting_ends_at_the_first_connection_event() {
        let mut events = vec![None, Some(RemotingEvent::Connected)].into_iter();
        let outcome = wait_for_connection::<()>(
            Duration::from_secs(1),
            || Duration::ZERO,
            || Ok(events.next().flatten()),
        );
        assert_eq!(outcome, Ok(Ok(())));
    }

    #[test]
    fn a_disconnect_while_connecting_is_a_failure_with_its_reason() {
        let outcome = wait_for_connection::<()>(
            Duration::from_secs(1),
            || Duration::ZERO,
            || Ok(Some(RemotingEvent::Disconnected(4))),
        );
        assert_eq!(outcome, Ok(Err(ConnectFailure::Disconnected(4))));
        assert_eq!(disconnect_reason(4), "handshake unreachable");
    }

    #[test]
    fn silence_until_the_timeout_is_a_timeout() {
        let mut clock = Duration::ZERO;
        let mut polls = 0;
        let outcome = wait_for_connection::<()>(
            Duration::from_secs(10),
            || {
                clock += Duration::from_secs(1);
                clock
            },
            || {
                polls += 1;
                Ok(None)
            },
        );
        assert_eq!(outcome, Ok(Err(ConnectFailure::TimedOut)));
        assert_eq!(polls, 10, "polled until the clock passed the timeout");
    }

    /// An event buffer holding `event` as xrPollEvent would write it.
    fn written<T>(event: T) -> MaybeUninit<xr::sys::EventDataBuffer> {
        assert!(size_of::<T>() <= size_of::<xr::sys::EventDataBuffer>());
        let mut storage = MaybeUninit::<xr::sys::EventDataBuffer>::zeroed();
        // SAFETY: `T` fits in the buffer (checked above), whose alignment
        // (8) is at least any event structure's.
        unsafe { storage.as_mut_ptr().cast::<T>().write(event) };
        storage
    }

    #[test]
    fn remoting_events_are_told_apart_from_core_ones() {
        let disconnected = written(EventDataDisconnected {
            ty: ty(structure_type::EVENT_DATA_DISCONNECTED),
            next: std::ptr::null(),
            disconnect_reason: 17,
        });
        let connected = written(xr::sys::BaseInStructure {
            ty: ty(structure_type::EVENT_DATA_CONNECTED),
            next: std::ptr::null(),
        });
        let lost = written(xr::sys::EventDataEventsLost {
            ty: xr::sys::EventDataEventsLost::TYPE,
            next: std::ptr::null(),
            lost_event_count: 3,
        });
        // SAFETY: each buffer holds an event as the runtime writes it.
        unsafe {
            assert!(matches!(
                decode(&disconnected),
                Some(Polled::Remoting(RemotingEvent::Disconnected(17)))
            ));
            assert!(matches!(
                decode(&connected),
                Some(Polled::Remoting(RemotingEvent::Connected))
            ));
            assert!(matches!(
                decode(&lost),
                Some(Polled::Core(xr::Event::EventsLost(event))) if event.lost_event_count() == 3
            ));
        }
        assert_eq!(disconnect_reason(17), "connection lost");
    }

    /// Sizes, offsets and constants as the C compiler lays out
    /// tests/support/remoting_layout.c, the same facts written in C.
    fn c_layout() -> Option<HashMap<String, i64>> {
        let scratch = tempfile::tempdir().unwrap();
        let program = scratch.path().join("remoting_layout");
        let source = concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/tests/support/remoting_layout.c"
        );
        let built = Command::new("cc")
            .arg(source)
            .arg("-o")
            .arg(&program)
            .status();
        if !built.is_ok_and(|status| status.success()) {
            assert!(
                std::env::var_os("CI").is_none(),
                "CI: no working C compiler (cc) to check the remoting layout"
            );
            println!("SKIPPED: no working C compiler (cc) to check the remoting layout");
            return None;
        }
        let printed = Command::new(&program).output().unwrap();
        Some(
            String::from_utf8(printed.stdout)
                .unwrap()
                .lines()
                .map(|line| {
                    let (name, value) = line.split_once(' ').unwrap();
                    (name.to_owned(), value.parse().unwrap())
                })
                .collect(),
        )
    }

    #[test]
    fn declarations_match_the_c_layout_of_the_published_header() {
        let Some(layout) = c_layout() else {
            return;
        };
        let expected: [(&str, i64); 26] = [
            (
                "properties.size",
                size_of::<RemoteContextProperties>() as i64,
            ),
            (
                "properties.next",
                offset_of!(RemoteContextProperties, next) as i64,
            ),
            (
                "properties.maxBitrateKbps",
                offset_of!(RemoteContextProperties, max_bitrate_kbps) as i64,
            ),
            (
                "properties.enableAudio",
                offset_of!(RemoteContextProperties, enable_audio) as i64,
            ),
            (
                "properties.videoCodec",
                offset_of!(RemoteContextProperties, video_codec) as i64,
            ),
            (
                "properties.depthBufferStreamResolution",
                offset_of!(RemoteContextProperties, depth_buffer_stream_resolution) as i64,
            ),
            ("connect.size", size_of::<ConnectInfo>() as i64),
            ("connect.next", offset_of!(ConnectInfo, next) as i64),
            (
                "connect.remoteHostName",
                offset_of!(ConnectInfo, remote_host_name) as i64,
            ),
            (
                "connect.remotePort",
                offset_of!(ConnectInfo, remote_port) as i64,
            ),
            (
                "connect.secureConnection",
                offset_of!(ConnectInfo, secure_connection) as i64,
            ),
            ("disconnect.size", size_of::<DisconnectInfo>() as i64),
            ("disconnect.next", offset_of!(DisconnectInfo, next) as i64),
            (
                "disconnected.size",
                size_of::<EventDataDisconnected>() as i64,
            ),
            (
                "disconnected.next",
                offset_of!(EventDataDisconnected, next) as i64,
            ),
            (
                "disconnected.disconnectReason",
                offset_of!(EventDataDisconnected, disconnect_reason) as i64,
            ),
            (
                "type.properties",
                structure_type::REMOTE_CONTEXT_PROPERTIES as i64,
            ),
            ("type.connect", structure_type::CONNECT_INFO as i64),
            ("type.disconnect", structure_type::DISCONNECT_INFO as i64),
            (
                "type.connected",
                structure_type::EVENT_DATA_CONNECTED as i64,
            ),
            (
                "type.disconnected",
                structure_type::EVENT_DATA_DISCONNECTED as i64,
            ),
            ("codec.any", VIDEO_CODEC_ANY as i64),
            ("depth.half", DEPTH_BUFFER_STREAM_RESOLUTION_HALF as i64),
            ("reason.handshakeUnreachable", 4),
            ("reason.sessionOpenTimeout", 25),
            ("enum.size", size_of::<u32>() as i64),
        ];
        for (name, value) in expected {
            assert_eq!(layout.get(name), Some(&value), "{name}");
        }
        assert_eq!(disconnect_reason(4), "handshake unreachable");
        assert_eq!(disconnect_reason(25), "session open timeout");
        assert_eq!(layout.len(), expected.len(), "every C fact is checked");
    }
}
