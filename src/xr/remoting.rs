//! Holographic Remoting's declarations and addresses: the
//! XR_MSFT_holographic_remoting structures, functions and values openxr-sys
//! lacks, the player's address (`--remote HOST[:PORT]`) and the address
//! the app listens on (`--listen [ADDR][:PORT]`), the disconnect reasons by
//! Microsoft's names, and the event poll that returns the remoting (and
//! speech) events the openxr crate would drop. The connection itself, with
//! its reconnects, is `remoting_link.rs`'s.
//!
//! The declarations follow Microsoft's published header
//! `openxr_msft_holographic_remoting.h` (Microsoft.Holographic.Remoting.OpenXr
//! package; extension number 66, so its structure types start at
//! 1000065000); `tests/support/remoting_layout.c` states the same facts in C
//! and the tests below check sizes and offsets against the C compiler.
use std::ffi::{c_char, c_void};
use std::fmt;
use std::mem::MaybeUninit;
use std::str::FromStr;

use openxr as xr;

use super::error::{XrError, xr_call};
use super::speech::{self, SpeechEvent};

/// The extension's name.
pub const EXTENSION_NAME: &str = "XR_MSFT_holographic_remoting";

/// The Holographic Remoting Player's handshake port.
pub const DEFAULT_PORT: u16 = 8265;

/// The interface the app listens on unless told (every one).
pub const DEFAULT_LISTEN_HOST: &str = "0.0.0.0";

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
    /// XR_TYPE_REMOTING_LISTEN_INFO_MSFT.
    pub const LISTEN_INFO: i32 = of_extension(2);
    /// XR_TYPE_REMOTING_DISCONNECT_INFO_MSFT.
    pub const DISCONNECT_INFO: i32 = of_extension(3);
    /// XR_TYPE_REMOTING_EVENT_DATA_LISTENING_MSFT.
    pub const EVENT_DATA_LISTENING: i32 = of_extension(4);
    /// XR_TYPE_REMOTING_EVENT_DATA_CONNECTED_MSFT.
    pub const EVENT_DATA_CONNECTED: i32 = of_extension(5);
    /// XR_TYPE_REMOTING_EVENT_DATA_DISCONNECTED_MSFT.
    pub const EVENT_DATA_DISCONNECTED: i32 = of_extension(6);
}

/// XrRemotingVideoCodecMSFT: HEVC preferred, H.264 when a side lacks it.
pub const VIDEO_CODEC_ANY: u32 = 0;
/// XrRemotingVideoCodecMSFT: H.264 only.
pub const VIDEO_CODEC_H264: u32 = 1;
/// XrRemotingVideoCodecMSFT: H.265 (HEVC) only.
pub const VIDEO_CODEC_H265: u32 = 2;

/// XR_ERROR_REMOTING_CODEC_NOT_FOUND_MSFT: xrRemotingConnectMSFT or
/// xrRemotingListenMSFT when this computer's graphics adapter cannot encode
/// the codec asked for.
pub const CODEC_NOT_FOUND: i32 = -1_000_065_001;
/// XR_REMOTING_DISCONNECT_REASON_VIDEO_CODEC_NOT_AVAILABLE_MSFT: no codec
/// both sides have among those asked for.
pub const VIDEO_CODEC_NOT_AVAILABLE: u32 = 15;
/// XrRemotingDepthBufferStreamResolutionMSFT: depth at half the colour
/// resolution (the runtime's default), enough for reprojection.
pub const DEPTH_BUFFER_STREAM_RESOLUTION_HALF: u32 = 0;

/// The video codec the stream to the player is encoded with (`--codec`).
/// `Any` lets the two sides agree on one; a PC whose HEVC decoder or
/// encoder misbehaves can connect and show nothing, and `H264` is the way
/// round that.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, clap::ValueEnum)]
pub enum VideoCodec {
    /// H.265 when both sides have it, else H.264.
    #[default]
    Any,
    /// H.264 only.
    H264,
    /// H.265 (HEVC) only.
    H265,
}

impl VideoCodec {
    /// The XrRemotingVideoCodecMSFT value.
    pub fn raw(self) -> u32 {
        match self {
            VideoCodec::Any => VIDEO_CODEC_ANY,
            VideoCodec::H264 => VIDEO_CODEC_H264,
            VideoCodec::H265 => VIDEO_CODEC_H265,
        }
    }

    /// The codec a raw XrRemotingVideoCodecMSFT value names, if any.
    pub fn from_raw(raw: u32) -> Option<Self> {
        [VideoCodec::Any, VideoCodec::H264, VideoCodec::H265]
            .into_iter()
            .find(|codec| codec.raw() == raw)
    }

    /// The name `--codec` takes and the reports use.
    pub fn name(self) -> &'static str {
        match self {
            VideoCodec::Any => "any",
            VideoCodec::H264 => "h264",
            VideoCodec::H265 => "h265",
        }
    }
}

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

/// XrRemotingListenInfoMSFT: where the app waits for a player to connect.
#[repr(C)]
#[derive(Debug, Clone, Copy)]
pub struct ListenInfo {
    /// [`structure_type::LISTEN_INFO`].
    pub ty: xr::sys::StructureType,
    /// Extension chain (none defined).
    pub next: *const c_void,
    /// The local host name or IP address of the interface to listen on.
    pub listen_interface: *const c_char,
    /// The handshake port, where players connect first.
    pub handshake_listen_port: u16,
    /// The transport port, where the handshake sends them on.
    pub transport_listen_port: u16,
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

/// XrRemotingEventDataListeningMSFT: the app listens for a player.
#[repr(C)]
#[derive(Debug, Clone, Copy)]
pub struct EventDataListening {
    /// [`structure_type::EVENT_DATA_LISTENING`].
    pub ty: xr::sys::StructureType,
    /// Extension chain.
    pub next: *const c_void,
    /// The handshake port listened on.
    pub listening_port: u16,
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
/// PFN_xrRemotingListenMSFT.
pub type ListenFn = unsafe extern "system" fn(
    xr::sys::Instance,
    xr::sys::SystemId,
    *const ListenInfo,
) -> xr::sys::Result;
/// PFN_xrRemotingDisconnectMSFT.
pub type DisconnectFn = unsafe extern "system" fn(
    xr::sys::Instance,
    xr::sys::SystemId,
    *const DisconnectInfo,
) -> xr::sys::Result;
/// PFN_xrRemotingGetConnectionStateMSFT: the connection state
/// (XrRemotingConnectionStateMSFT) and the last disconnect reason.
pub type GetConnectionStateFn = unsafe extern "system" fn(
    xr::sys::Instance,
    xr::sys::SystemId,
    *mut u32,
    *mut u32,
) -> xr::sys::Result;

/// XR_REMOTING_CONNECTION_STATE_DISCONNECTED_MSFT: neither connected nor
/// connecting nor listening.
pub const CONNECTION_STATE_DISCONNECTED: u32 = 0;
/// XR_REMOTING_CONNECTION_STATE_CONNECTING_MSFT: connecting, listening, or
/// in the handshake.
pub const CONNECTION_STATE_CONNECTING: u32 = 1;
/// XR_REMOTING_CONNECTION_STATE_CONNECTED_MSFT.
pub const CONNECTION_STATE_CONNECTED: u32 = 2;

/// Each XrRemotingDisconnectReasonMSFT, by its value: Microsoft's name
/// (without `XR_REMOTING_DISCONNECT_REASON_` and `_MSFT`) and, in words,
/// what it means.
const DISCONNECT_REASONS: [(&str, &str); 29] = [
    ("NONE", "no failure"),
    ("UNKNOWN", "unknown reason"),
    ("NO_SERVER_CERTIFICATE", "no server certificate"),
    ("HANDSHAKE_PORT_BUSY", "handshake port busy"),
    ("HANDSHAKE_UNREACHABLE", "handshake unreachable"),
    ("HANDSHAKE_CONNECTION_FAILED", "handshake connection failed"),
    ("AUTHENTICATION_FAILED", "authentication failed"),
    ("REMOTING_VERSION_MISMATCH", "remoting version mismatch"),
    (
        "INCOMPATIBLE_TRANSPORT_PROTOCOLS",
        "incompatible transport protocols",
    ),
    ("HANDSHAKE_FAILED", "handshake failed"),
    ("TRANSPORT_PORT_BUSY", "transport port busy"),
    ("TRANSPORT_UNREACHABLE", "transport unreachable"),
    ("TRANSPORT_CONNECTION_FAILED", "transport connection failed"),
    ("PROTOCOL_VERSION_MISMATCH", "protocol version mismatch"),
    ("PROTOCOL_ERROR", "protocol error"),
    ("VIDEO_CODEC_NOT_AVAILABLE", "video codec not available"),
    ("CANCELED", "canceled"),
    ("CONNECTION_LOST", "connection lost"),
    ("DEVICE_LOST", "device lost"),
    ("DISCONNECT_REQUEST", "disconnect requested"),
    (
        "HANDSHAKE_NETWORK_UNREACHABLE",
        "handshake network unreachable",
    ),
    (
        "HANDSHAKE_CONNECTION_REFUSED",
        "handshake connection refused",
    ),
    ("VIDEO_FORMAT_NOT_AVAILABLE", "video format not available"),
    ("PEER_DISCONNECT_REQUEST", "peer disconnect request"),
    ("PEER_DISCONNECT_TIMEOUT", "peer disconnect timeout"),
    ("SESSION_OPEN_TIMEOUT", "session open timeout"),
    ("REMOTING_HANDSHAKE_TIMEOUT", "remoting handshake timeout"),
    ("INTERNAL_ERROR", "internal error"),
    ("HANDSHAKE_PERMISSION_DENIED", "handshake permission denied"),
];

/// Why the runtime says the connection ended (XrRemotingDisconnectReasonMSFT),
/// as words for the error line.
pub fn disconnect_reason(reason: u32) -> &'static str {
    DISCONNECT_REASONS
        .get(reason as usize)
        .map_or("unrecognised reason", |&(_, words)| words)
}

/// The reason's name as Microsoft's header spells it, e.g.
/// `XR_REMOTING_DISCONNECT_REASON_CONNECTION_LOST_MSFT`, so that a user can
/// look it up in Microsoft's documentation (and in the zip's README).
pub fn disconnect_reason_name(reason: u32) -> String {
    match DISCONNECT_REASONS.get(reason as usize) {
        Some((name, _)) => format!("XR_REMOTING_DISCONNECT_REASON_{name}_MSFT"),
        None => format!("XrRemotingDisconnectReasonMSFT({reason})"),
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

/// `HOST[:PORT]` split into its host (brackets removed from an IPv6
/// address) and port, the port `default_port` when not given.
fn split_host_port(text: &str, default_port: u16) -> Result<(&str, u16), String> {
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
    if host.chars().any(char::is_whitespace) {
        return Err(format!("`{text}`: a host name has no spaces"));
    }
    let port = match port {
        None => default_port,
        Some(port) => match port.parse::<u16>() {
            Ok(port) if port > 0 => port,
            _ => return Err(format!("port `{port}` must be 1 to 65535")),
        },
    };
    Ok((host, port))
}

/// `host:port`, with an IPv6 host in brackets.
fn write_host_port(formatter: &mut fmt::Formatter<'_>, host: &str, port: u16) -> fmt::Result {
    if host.contains(':') {
        write!(formatter, "[{host}]:{port}")
    } else {
        write!(formatter, "{host}:{port}")
    }
}

impl FromStr for RemoteAddress {
    type Err = String;

    fn from_str(text: &str) -> Result<Self, Self::Err> {
        let (host, port) = split_host_port(text, DEFAULT_PORT)?;
        if host.is_empty() {
            return Err(format!(
                "`{text}` has no host; give the HoloLens' IP address or name, e.g. 192.168.1.20 or 192.168.1.20:8265"
            ));
        }
        Ok(RemoteAddress {
            host: host.to_owned(),
            port,
        })
    }
}

impl fmt::Display for RemoteAddress {
    fn fmt(&self, formatter: &mut fmt::Formatter<'_>) -> fmt::Result {
        write_host_port(formatter, &self.host, self.port)
    }
}

/// Where the app listens for a player that connects to it (`--listen
/// [ADDR][:PORT]`): the interface (every one unless given) and the
/// handshake port (8265 unless given); the transport port is the next one,
/// as in Microsoft's samples.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ListenAddress {
    /// The local host name or IP address of the interface.
    pub host: String,
    /// The handshake port.
    pub port: u16,
}

impl ListenAddress {
    /// The transport port: the one after the handshake port.
    pub fn transport_port(&self) -> u16 {
        self.port + 1
    }
}

impl Default for ListenAddress {
    fn default() -> Self {
        ListenAddress {
            host: DEFAULT_LISTEN_HOST.to_owned(),
            port: DEFAULT_PORT,
        }
    }
}

impl FromStr for ListenAddress {
    type Err = String;

    fn from_str(text: &str) -> Result<Self, Self::Err> {
        let (host, port) = split_host_port(text, DEFAULT_PORT)?;
        if port == u16::MAX {
            return Err(format!(
                "port `{port}` leaves no transport port after it; listen on 1 to 65534"
            ));
        }
        Ok(ListenAddress {
            host: match host {
                "" => DEFAULT_LISTEN_HOST.to_owned(),
                host => host.to_owned(),
            },
            port,
        })
    }
}

impl fmt::Display for ListenAddress {
    fn fmt(&self, formatter: &mut fmt::Formatter<'_>) -> fmt::Result {
        write_host_port(formatter, &self.host, self.port)
    }
}

/// A remoting event, from [`poll_event`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum RemotingEvent {
    /// The app listens for a player on this handshake port.
    Listening(u16),
    /// The player accepted the connection.
    Connected,
    /// The connection ended or could not be made, with the runtime's reason.
    Disconnected(u32),
}

/// One event from xrPollEvent: a core one (the openxr crate's), or a
/// remoting or speech one (which the crate does not know and would drop).
pub enum Polled<'a> {
    /// An event the openxr crate knows.
    Core(xr::Event<'a>),
    /// A Holographic Remoting event.
    Remoting(RemotingEvent),
    /// An XR_MSFT_holographic_remoting_speech event.
    Speech(SpeechEvent),
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
    if event_type == structure_type::EVENT_DATA_LISTENING {
        // SAFETY: the runtime wrote an XrRemotingEventDataListeningMSFT,
        // which fits in the buffer.
        let event = unsafe { buffer.cast::<EventDataListening>().read() };
        return Some(Polled::Remoting(RemotingEvent::Listening(
            event.listening_port,
        )));
    }
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
    // SAFETY: per this function's contract, the buffer holds the event
    // whose type the header names.
    if let Some(event) = unsafe { speech::decode(event_type, buffer.cast()) } {
        return Some(Polled::Speech(event));
    }
    // SAFETY: the buffer holds a core event, or one the crate skips.
    unsafe { xr::Event::from_raw(storage) }.map(Polled::Core)
}

#[cfg(test)]
mod tests {
    use std::mem::{offset_of, size_of};

    use super::super::c_layout::c_layout;
    use super::super::extension_fns::ty;
    use super::speech::{EventDataRecognized, EventDataRecognizerStateChanged, SpeechInitInfo};
    use super::*;

    #[test]
    fn each_codec_is_its_own_raw_value_and_no_other_value_is_a_codec() {
        for codec in [VideoCodec::Any, VideoCodec::H264, VideoCodec::H265] {
            assert_eq!(VideoCodec::from_raw(codec.raw()), Some(codec));
        }
        assert_eq!(VideoCodec::from_raw(3), None);
        assert_eq!(VideoCodec::default(), VideoCodec::Any);
    }

    #[test]
    fn each_codecs_report_name_is_the_one_codec_takes() {
        use clap::ValueEnum;
        for codec in VideoCodec::value_variants() {
            let possible = codec.to_possible_value().unwrap();
            assert_eq!(possible.get_name(), codec.name());
        }
    }

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
    fn a_listen_address_defaults_to_every_interface_and_the_players_port() {
        let bare: ListenAddress = "".parse().unwrap();
        assert_eq!(bare, ListenAddress::default());
        assert_eq!(bare.to_string(), "0.0.0.0:8265");
        assert_eq!(bare.transport_port(), 8266);
        let port_only: ListenAddress = ":9000".parse().unwrap();
        assert_eq!((port_only.host.as_str(), port_only.port), ("0.0.0.0", 9000));
        let both: ListenAddress = "192.168.1.5:9000".parse().unwrap();
        assert_eq!(both.to_string(), "192.168.1.5:9000");
        let v6: ListenAddress = "[::]:8300".parse().unwrap();
        assert_eq!((v6.host.as_str(), v6.port), ("::", 8300));
    }

    #[test]
    fn a_listen_port_needs_room_for_the_transport_port_after_it() {
        let error = ":65535".parse::<ListenAddress>().unwrap_err();
        assert!(error.contains("1 to 65534"), "{error}");
        assert!(":0".parse::<ListenAddress>().is_err());
    }

    #[test]
    fn reasons_are_named_as_microsofts_header_names_them() {
        assert_eq!(
            disconnect_reason_name(17),
            "XR_REMOTING_DISCONNECT_REASON_CONNECTION_LOST_MSFT"
        );
        assert_eq!(
            disconnect_reason_name(28),
            "XR_REMOTING_DISCONNECT_REASON_HANDSHAKE_PERMISSION_DENIED_MSFT"
        );
        assert_eq!(
            disconnect_reason_name(29),
            "XrRemotingDisconnectReasonMSFT(29)"
        );
        assert_eq!(disconnect_reason(21), "handshake connection refused");
        assert_eq!(disconnect_reason(99), "unrecognised reason");
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
        let listening = written(EventDataListening {
            ty: ty(structure_type::EVENT_DATA_LISTENING),
            next: std::ptr::null(),
            listening_port: 8265,
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
                decode(&listening),
                Some(Polled::Remoting(RemotingEvent::Listening(8265)))
            ));
            assert!(matches!(
                decode(&lost),
                Some(Polled::Core(xr::Event::EventsLost(event))) if event.lost_event_count() == 3
            ));
        }
        assert_eq!(disconnect_reason(17), "connection lost");
    }

    #[test]
    fn declarations_match_the_c_layout_of_the_published_header() {
        let Some(layout) = c_layout("remoting_layout.c", "remoting") else {
            return;
        };
        let expected: Vec<(&str, i64)> = vec![
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
            ("listen.size", size_of::<ListenInfo>() as i64),
            ("listen.next", offset_of!(ListenInfo, next) as i64),
            (
                "listen.listenInterface",
                offset_of!(ListenInfo, listen_interface) as i64,
            ),
            (
                "listen.handshakeListenPort",
                offset_of!(ListenInfo, handshake_listen_port) as i64,
            ),
            (
                "listen.transportListenPort",
                offset_of!(ListenInfo, transport_listen_port) as i64,
            ),
            (
                "listen.secureConnection",
                offset_of!(ListenInfo, secure_connection) as i64,
            ),
            ("disconnect.size", size_of::<DisconnectInfo>() as i64),
            ("disconnect.next", offset_of!(DisconnectInfo, next) as i64),
            ("listening.size", size_of::<EventDataListening>() as i64),
            (
                "listening.listeningPort",
                offset_of!(EventDataListening, listening_port) as i64,
            ),
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
            ("speech_init.size", size_of::<SpeechInitInfo>() as i64),
            (
                "speech_init.language",
                offset_of!(SpeechInitInfo, language) as i64,
            ),
            (
                "speech_init.grammarFileSize",
                offset_of!(SpeechInitInfo, grammar_file_size) as i64,
            ),
            (
                "speech_init.grammarFileContent",
                offset_of!(SpeechInitInfo, grammar_file_content) as i64,
            ),
            (
                "speech_init.dictionaryEntriesCount",
                offset_of!(SpeechInitInfo, dictionary_entries_count) as i64,
            ),
            (
                "speech_init.dictionaryEntries",
                offset_of!(SpeechInitInfo, dictionary_entries) as i64,
            ),
            (
                "speech_state.size",
                size_of::<EventDataRecognizerStateChanged>() as i64,
            ),
            (
                "speech_state.speechRecognizerState",
                offset_of!(EventDataRecognizerStateChanged, speech_recognizer_state) as i64,
            ),
            (
                "speech_state.stateMessage",
                offset_of!(EventDataRecognizerStateChanged, state_message) as i64,
            ),
            (
                "speech_recognized.size",
                size_of::<EventDataRecognized>() as i64,
            ),
            (
                "speech_recognized.packetId",
                offset_of!(EventDataRecognized, packet_id) as i64,
            ),
            (
                "speech_recognized.confidence",
                offset_of!(EventDataRecognized, confidence) as i64,
            ),
            (
                "speech_recognized.rawConfidence",
                offset_of!(EventDataRecognized, raw_confidence) as i64,
            ),
            (
                "type.properties",
                structure_type::REMOTE_CONTEXT_PROPERTIES as i64,
            ),
            ("type.connect", structure_type::CONNECT_INFO as i64),
            ("type.listen", structure_type::LISTEN_INFO as i64),
            ("type.disconnect", structure_type::DISCONNECT_INFO as i64),
            (
                "type.listening",
                structure_type::EVENT_DATA_LISTENING as i64,
            ),
            (
                "type.connected",
                structure_type::EVENT_DATA_CONNECTED as i64,
            ),
            (
                "type.disconnected",
                structure_type::EVENT_DATA_DISCONNECTED as i64,
            ),
            ("type.speechInit", speech::structure_type::INIT_INFO as i64),
            (
                "type.speechStateChanged",
                speech::structure_type::EVENT_DATA_RECOGNIZER_STATE_CHANGED as i64,
            ),
            (
                "type.speechRecognized",
                speech::structure_type::EVENT_DATA_RECOGNIZED as i64,
            ),
            ("codec.any", VIDEO_CODEC_ANY as i64),
            ("codec.h264", VIDEO_CODEC_H264 as i64),
            ("codec.h265", VIDEO_CODEC_H265 as i64),
            ("depth.half", DEPTH_BUFFER_STREAM_RESOLUTION_HALF as i64),
            ("state.disconnected", CONNECTION_STATE_DISCONNECTED as i64),
            ("state.connecting", CONNECTION_STATE_CONNECTING as i64),
            ("state.connected", CONNECTION_STATE_CONNECTED as i64),
            (
                "recognizer.initializationFailed",
                speech::recognizer_state::INITIALIZATION_FAILED as i64,
            ),
            (
                "recognizer.started",
                speech::recognizer_state::STARTED as i64,
            ),
            ("confidence.high", speech::CONFIDENCE_HIGH as i64),
            ("result.packetExpired", speech::PACKET_EXPIRED as i64),
            ("result.codecNotFound", CODEC_NOT_FOUND as i64),
            ("reason.handshakeUnreachable", 4),
            (
                "reason.videoCodecNotAvailable",
                VIDEO_CODEC_NOT_AVAILABLE as i64,
            ),
            ("reason.connectionLost", 17),
            ("reason.handshakeConnectionRefused", 21),
            ("reason.sessionOpenTimeout", 25),
            ("reason.handshakePermissionDenied", 28),
            ("enum.size", size_of::<u32>() as i64),
        ];
        for &(name, value) in &expected {
            assert_eq!(layout.get(name), Some(&value), "{name}");
        }
        for (reason, name) in [
            (4, "HANDSHAKE_UNREACHABLE"),
            (VIDEO_CODEC_NOT_AVAILABLE, "VIDEO_CODEC_NOT_AVAILABLE"),
            (17, "CONNECTION_LOST"),
            (21, "HANDSHAKE_CONNECTION_REFUSED"),
            (25, "SESSION_OPEN_TIMEOUT"),
            (28, "HANDSHAKE_PERMISSION_DENIED"),
        ] {
            assert_eq!(
                disconnect_reason_name(reason),
                format!("XR_REMOTING_DISCONNECT_REASON_{name}_MSFT")
            );
        }
        assert_eq!(layout.len(), expected.len(), "every C fact is checked");
    }
}
