//! Holographic Remoting's declarations (XR_MSFT_holographic_remoting): the
//! structures, functions and values openxr-sys lacks, and the disconnect
//! reasons by Microsoft's names. The addresses and codec the app takes are
//! `remoting/address.rs`'s, the connection itself, with its reconnects,
//! `remoting/link.rs`'s, and the event poll `runtime/events.rs`'s.
//!
//! The declarations follow Microsoft's published header
//! `openxr_msft_holographic_remoting.h` (Microsoft.Holographic.Remoting.OpenXr
//! package; extension number 66, so its structure types start at
//! 1000065000); `tests/support/remoting_layout.c` states the same facts in C
//! and the tests below check sizes and offsets against the C compiler.

use std::ffi::{c_char, c_void};

use openxr as xr;

/// The extension's name.
pub const EXTENSION_NAME: &str = "XR_MSFT_holographic_remoting";

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
#[cfg(test)]
mod tests {
    use std::mem::{offset_of, size_of};

    use super::super::c_layout::c_layout;
    use super::super::speech::{
        self, EventDataRecognized, EventDataRecognizerStateChanged, SpeechInitInfo,
    };
    use super::*;

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
