//! XR_MSFT_holographic_remoting, emulated (with `HOLOTERRAIN_TESTRT_REMOTING=HOST:PORT`):
//! a player listens at that address. Connecting there gives CONNECTED;
//! anywhere else gives, after a handshake timeout, DISCONNECTED with
//! `XR_REMOTING_DISCONNECT_REASON_HANDSHAKE_UNREACHABLE_MSFT`, the reason
//! Microsoft's samples treat as "player not reachable"; a script's
//! `disconnect REASON [REFUSALS]` drops a connection with that reason, and
//! the player then refuses that many attempts to reconnect
//! (`HANDSHAKE_CONNECTION_REFUSED`, at once) before it takes one again.
//! The computer encodes the codecs `HOLOTERRAIN_TESTRT_PC_CODECS` names and
//! the player decodes those `HOLOTERRAIN_TESTRT_PLAYER_CODECS` names (both
//! H.264 and H.265 unless told): connecting or listening with a codec the
//! computer lacks is `XR_ERROR_REMOTING_CODEC_NOT_FOUND_MSFT`, as Microsoft's
//! specification says; a handshake for one the player lacks ends with
//! `XR_REMOTING_DISCONNECT_REASON_VIDEO_CODEC_NOT_AVAILABLE_MSFT`. The
//! report says which codec the app asked for.
//! Listening (`xrRemotingListenMSFT`) reports LISTENING, and the player
//! connects to the app when the app listens on the player's port. As
//! Microsoft documents for its remoting runtime, the session follows the
//! connection: a session created without one, or whose connection drops,
//! moves to LOSS_PENDING. The structures are the app's own declarations
//! (`holoterrain::xr::sys::remoting`), which its tests check against the C
//! layout of Microsoft's header.

use std::collections::VecDeque;
use std::time::{Duration, Instant};

use holoterrain::xr::sys::remoting::{
    CODEC_NOT_FOUND, CONNECTION_STATE_CONNECTED, CONNECTION_STATE_CONNECTING,
    CONNECTION_STATE_DISCONNECTED, ConnectFn, ConnectInfo, DisconnectFn, DisconnectInfo,
    EventDataDisconnected, EventDataListening, GetConnectionStateFn, ListenFn, ListenInfo,
    RemoteContextProperties, SetContextPropertiesFn, VIDEO_CODEC_NOT_AVAILABLE, disconnect_reason,
    structure_type,
};
use holoterrain::xr::{ListenAddress, RemoteAddress, VideoCodec};
use openxr_sys as xr;
use serde::Serialize;

use crate::instance::{Event, check_system};
use crate::state::{Failure, with_runtime};
use crate::structs::{c_str, check_type, out_value};

/// XR_REMOTING_DISCONNECT_REASON_HANDSHAKE_UNREACHABLE_MSFT.
pub const HANDSHAKE_UNREACHABLE: u32 = 4;
/// XR_REMOTING_DISCONNECT_REASON_DISCONNECT_REQUEST_MSFT.
pub const DISCONNECT_REQUEST: u32 = 19;
/// XR_REMOTING_DISCONNECT_REASON_HANDSHAKE_CONNECTION_REFUSED_MSFT: nobody
/// takes connections at the player's address (the player is not running).
pub const HANDSHAKE_CONNECTION_REFUSED: u32 = 21;
/// How long an attempt to reach a player that is not there takes to fail.
/// Microsoft does not document the runtime's handshake timeout; this is
/// chosen shorter than the app's own 10 s wait so the runtime's answer is
/// what the app reports.
pub const HANDSHAKE_TIMEOUT: Duration = Duration::from_secs(2);
/// How long after the app starts listening the player connects to it.
pub const PLAYER_CONNECT_DELAY: Duration = Duration::from_millis(100);

/// XR_ERROR_REMOTING_NOT_DISCONNECTED_MSFT.
const NOT_DISCONNECTED: i32 = -1_000_065_000;

/// The remoting results' names, which openxr-sys does not know.
pub fn result_name(result: xr::Result) -> Option<&'static str> {
    match result.into_raw() {
        NOT_DISCONNECTED => Some("XR_ERROR_REMOTING_NOT_DISCONNECTED_MSFT"),
        -1_000_065_001 => Some("XR_ERROR_REMOTING_CODEC_NOT_FOUND_MSFT"),
        -1_000_065_002 => Some("XR_ERROR_REMOTING_CALLBACK_ERROR_MSFT"),
        holoterrain::xr::sys::speech::PACKET_EXPIRED => {
            Some("XR_ERROR_REMOTING_SPEECH_PACKET_EXPIRED_MSFT")
        }
        _ => None,
    }
}

/// Where the connection stands.
#[derive(Debug, Clone, Copy, PartialEq)]
enum Connection {
    /// Neither connected, nor connecting, nor listening.
    Disconnected,
    /// An attempt whose outcome is pending, or listening for the player.
    Connecting,
    /// Connected to the player.
    Connected,
}

/// What the report says about remoting.
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
pub struct RemotingSummary {
    /// Where the emulated player listens.
    pub player: Option<String>,
    /// Every address the app connected to, one per xrRemotingConnectMSFT.
    pub connects: Vec<String>,
    /// Every address the app listened on, one per xrRemotingListenMSFT.
    pub listens: Vec<String>,
    /// Whether a connection was made.
    pub connected: bool,
    /// How many connections were made.
    pub connections: u32,
    /// Attempts the player refused, as scripted.
    pub refused: u32,
    /// Every disconnect's reason, in words, as its event reached the app.
    pub disconnects: Vec<String>,
    /// The video codec the app last asked for (xrRemotingSetContextPropertiesMSFT):
    /// "any", "h264" or "h265"; null when it asked for none.
    pub codec: Option<&'static str>,
}

/// The emulated connection.
pub struct Remoting {
    /// Where the emulated player listens (`None`: remoting is not emulated).
    player: Option<RemoteAddress>,
    /// The codecs the computer encodes.
    pc_codecs: Vec<VideoCodec>,
    /// The codecs the player decodes.
    player_codecs: Vec<VideoCodec>,
    /// The codec the app asked for (the runtime's default: any).
    codec: VideoCodec,
    /// Where the connection stands.
    connection: Connection,
    /// The reason the connection last ended.
    last_reason: u32,
    /// Attempts to reconnect the player still refuses (a script's
    /// `disconnect REASON REFUSALS`).
    refusals: u32,
    /// Events that happen at a time (the handshake timeout).
    pending: VecDeque<(Instant, Event)>,
    /// Events that happened (the connection follows them) and wait for
    /// the application's next poll.
    happened: VecDeque<Event>,
    /// What the report says.
    summary: RemotingSummary,
}

impl Remoting {
    /// Remoting with a player at `player`, or none; the computer encodes
    /// `pc_codecs`, the player decodes `player_codecs`.
    pub fn new(
        player: Option<RemoteAddress>,
        pc_codecs: Vec<VideoCodec>,
        player_codecs: Vec<VideoCodec>,
    ) -> Self {
        Self {
            summary: RemotingSummary {
                player: player.as_ref().map(ToString::to_string),
                ..RemotingSummary::default()
            },
            player,
            pc_codecs,
            player_codecs,
            codec: VideoCodec::Any,
            connection: Connection::Disconnected,
            last_reason: 0,
            refusals: 0,
            pending: VecDeque::new(),
            happened: VecDeque::new(),
        }
    }

    /// The events that happened by now, in order, for the application.
    pub fn events_due(&mut self) -> Vec<Event> {
        self.happen();
        self.happened.drain(..).collect()
    }

    /// Lets the pending events whose time has come happen: a DISCONNECTED
    /// ends the connection or attempt, a CONNECTED makes one.
    fn happen(&mut self) {
        let now = Instant::now();
        while self.pending.front().is_some_and(|(at, _)| *at <= now) {
            let Some((_, event)) = self.pending.pop_front() else {
                break;
            };
            match event {
                Event::RemotingDisconnected { reason } => {
                    self.connection = Connection::Disconnected;
                    self.last_reason = reason;
                    self.summary
                        .disconnects
                        .push(disconnect_reason(reason).to_owned());
                }
                Event::RemotingConnected => {
                    self.connection = Connection::Connected;
                    self.summary.connected = true;
                    self.summary.connections += 1;
                }
                _ => {}
            }
            self.happened.push_back(event);
        }
    }

    /// Drops a live connection with `reason` (a script's `disconnect`);
    /// the player then refuses `refusals` attempts to reconnect.
    pub fn drop_connection(&mut self, reason: u32, refusals: u32) {
        if self.connection == Connection::Connected {
            self.connection = Connection::Disconnected;
            self.refusals = refusals;
            self.pending
                .push_back((Instant::now(), Event::RemotingDisconnected { reason }));
        }
    }

    /// Whether a session created now has a player to stream to. An attempt
    /// under way is waited for, as Microsoft's xrCreateSession waits for a
    /// connection (here until the handshake to nobody times out, or the
    /// player connects to the listening app).
    pub fn await_connection(&mut self) -> bool {
        while self.connection == Connection::Connecting
            && let Some(&(at, _)) = self.pending.front()
        {
            std::thread::sleep(at.saturating_duration_since(Instant::now()));
            self.happen();
        }
        self.connection == Connection::Connected
    }

    /// The report's summary.
    pub fn summary(&self) -> &RemotingSummary {
        &self.summary
    }

    /// Fails as xrRemotingConnectMSFT and xrRemotingListenMSFT do when
    /// the computer cannot encode the codec asked for ("any": none at all;
    /// which of them the player decodes is learnt only in the handshake).
    fn check_encoder(&self) -> Result<(), Failure> {
        let encodes = match self.codec {
            VideoCodec::Any => !self.pc_codecs.is_empty(),
            asked => self.pc_codecs.contains(&asked),
        };
        if encodes {
            Ok(())
        } else {
            Err(Failure::quiet(xr::Result::from_raw(CODEC_NOT_FOUND)))
        }
    }

    /// What a handshake with the player ends in once it is reached: a
    /// connection when the player decodes the codec asked for ("any": one
    /// the computer encodes too).
    fn handshake_outcome(&self) -> Event {
        let decodes = match self.codec {
            VideoCodec::Any => self
                .pc_codecs
                .iter()
                .any(|codec| self.player_codecs.contains(codec)),
            asked => self.player_codecs.contains(&asked),
        };
        if decodes {
            Event::RemotingConnected
        } else {
            Event::RemotingDisconnected {
                reason: VIDEO_CODEC_NOT_AVAILABLE,
            }
        }
    }

    /// Fails unless nothing is connected or connecting.
    fn check_disconnected(&self, what: &str) -> Result<(), Failure> {
        if self.connection == Connection::Disconnected {
            Ok(())
        } else {
            Err(Failure::violation(
                xr::Result::from_raw(NOT_DISCONNECTED),
                format!("{what} while connected, connecting or listening"),
            ))
        }
    }
}

/// XrRemotingEventDataConnectedMSFT: only its header.
pub fn connected_event() -> xr::EventDataBaseHeader {
    xr::EventDataBaseHeader {
        ty: xr::StructureType::from_raw(structure_type::EVENT_DATA_CONNECTED),
        next: std::ptr::null(),
    }
}

/// XrRemotingEventDataDisconnectedMSFT with `reason`.
pub fn disconnected_event(reason: u32) -> EventDataDisconnected {
    EventDataDisconnected {
        ty: xr::StructureType::from_raw(structure_type::EVENT_DATA_DISCONNECTED),
        next: std::ptr::null(),
        disconnect_reason: reason,
    }
}

/// XrRemotingEventDataListeningMSFT on `port`.
pub fn listening_event(port: u16) -> EventDataListening {
    EventDataListening {
        ty: xr::StructureType::from_raw(structure_type::EVENT_DATA_LISTENING),
        next: std::ptr::null(),
        listening_port: port,
    }
}

/// Refuses what the emulated player does not do.
fn check_not_secure(secure: xr::Bool32) -> Result<(), Failure> {
    if secure == xr::FALSE {
        Ok(())
    } else {
        Err(Failure::violation(
            xr::Result::ERROR_FEATURE_UNSUPPORTED,
            "secure connections are not emulated (the Store's Remoting Player has none either)",
        ))
    }
}

/// xrRemotingSetContextPropertiesMSFT: accepted before connecting, with a
/// codec the header defines.
///
/// # Safety
/// The arguments are the application's, as Microsoft's header defines them.
pub unsafe extern "system" fn set_context_properties(
    instance: xr::Instance,
    system_id: xr::SystemId,
    properties: *const RemoteContextProperties,
) -> xr::Result {
    with_runtime("xrRemotingSetContextPropertiesMSFT", |runtime| {
        runtime.check_instance(instance)?;
        check_system(system_id)?;
        // SAFETY: the application's pointer, NULL or valid.
        let properties = unsafe { properties.as_ref() }
            .ok_or_else(|| crate::state::invalid("contextProperties is NULL"))?;
        check_type(
            properties.ty,
            xr::StructureType::from_raw(structure_type::REMOTE_CONTEXT_PROPERTIES),
            "contextProperties",
        )?;
        let codec = VideoCodec::from_raw(properties.video_codec).ok_or_else(|| {
            crate::state::invalid(format!(
                "contextProperties.videoCodec is {}, not an XrRemotingVideoCodecMSFT",
                properties.video_codec
            ))
        })?;
        let remoting = &mut runtime.remoting;
        remoting.check_disconnected("xrRemotingSetContextPropertiesMSFT")?;
        remoting.codec = codec;
        remoting.summary.codec = Some(codec.name());
        Ok(xr::Result::SUCCESS)
    })
}

/// xrRemotingConnectMSFT.
///
/// # Safety
/// The arguments are the application's, as Microsoft's header defines them.
pub unsafe extern "system" fn connect(
    instance: xr::Instance,
    system_id: xr::SystemId,
    connect_info: *const ConnectInfo,
) -> xr::Result {
    with_runtime("xrRemotingConnectMSFT", |runtime| {
        runtime.check_instance(instance)?;
        check_system(system_id)?;
        // SAFETY: the application's pointer, NULL or valid.
        let info = unsafe { connect_info.as_ref() }
            .ok_or_else(|| crate::state::invalid("connectInfo is NULL"))?;
        check_type(
            info.ty,
            xr::StructureType::from_raw(structure_type::CONNECT_INFO),
            "connectInfo",
        )?;
        // SAFETY: the application's string.
        let host = unsafe { c_str(info.remote_host_name, "connectInfo.remoteHostName") }?;
        check_not_secure(info.secure_connection)?;
        let remoting = &mut runtime.remoting;
        remoting.check_disconnected("xrRemotingConnectMSFT")?;
        remoting.check_encoder()?;
        let address = RemoteAddress {
            host: host.to_owned(),
            port: info.remote_port,
        };
        remoting.summary.connects.push(address.to_string());
        let now = Instant::now();
        remoting.connection = Connection::Connecting;
        if remoting.player.as_ref() != Some(&address) {
            remoting.pending.push_back((
                now + HANDSHAKE_TIMEOUT,
                Event::RemotingDisconnected {
                    reason: HANDSHAKE_UNREACHABLE,
                },
            ));
        } else if remoting.refusals > 0 {
            remoting.refusals -= 1;
            remoting.summary.refused += 1;
            remoting.pending.push_back((
                now,
                Event::RemotingDisconnected {
                    reason: HANDSHAKE_CONNECTION_REFUSED,
                },
            ));
        } else {
            let outcome = remoting.handshake_outcome();
            remoting.pending.push_back((now, outcome));
        }
        Ok(xr::Result::SUCCESS)
    })
}

/// xrRemotingListenMSFT: LISTENING at once; the player connects when the
/// app listens on its port.
///
/// # Safety
/// The arguments are the application's, as Microsoft's header defines them.
pub unsafe extern "system" fn listen(
    instance: xr::Instance,
    system_id: xr::SystemId,
    listen_info: *const ListenInfo,
) -> xr::Result {
    with_runtime("xrRemotingListenMSFT", |runtime| {
        runtime.check_instance(instance)?;
        check_system(system_id)?;
        // SAFETY: the application's pointer, NULL or valid.
        let info = unsafe { listen_info.as_ref() }
            .ok_or_else(|| crate::state::invalid("listenInfo is NULL"))?;
        check_type(
            info.ty,
            xr::StructureType::from_raw(structure_type::LISTEN_INFO),
            "listenInfo",
        )?;
        // SAFETY: the application's string.
        let host = unsafe { c_str(info.listen_interface, "listenInfo.listenInterface") }?;
        check_not_secure(info.secure_connection)?;
        if info.handshake_listen_port == 0
            || info.transport_listen_port == 0
            || info.handshake_listen_port == info.transport_listen_port
        {
            return Err(crate::state::invalid(format!(
                "listenInfo ports {} and {} must be two different ports",
                info.handshake_listen_port, info.transport_listen_port
            )));
        }
        let remoting = &mut runtime.remoting;
        remoting.check_disconnected("xrRemotingListenMSFT")?;
        remoting.check_encoder()?;
        let address = ListenAddress {
            host: host.to_owned(),
            port: info.handshake_listen_port,
        };
        remoting.summary.listens.push(address.to_string());
        let now = Instant::now();
        remoting.connection = Connection::Connecting;
        remoting.pending.push_back((
            now,
            Event::RemotingListening {
                port: info.handshake_listen_port,
            },
        ));
        if remoting
            .player
            .as_ref()
            .is_some_and(|player| player.port == info.handshake_listen_port)
        {
            let outcome = remoting.handshake_outcome();
            remoting
                .pending
                .push_back((now + PLAYER_CONNECT_DELAY, outcome));
        }
        Ok(xr::Result::SUCCESS)
    })
}

/// xrRemotingDisconnectMSFT: ends a connection, an attempt, or listening.
///
/// # Safety
/// The arguments are the application's, as Microsoft's header defines them.
pub unsafe extern "system" fn disconnect(
    instance: xr::Instance,
    system_id: xr::SystemId,
    disconnect_info: *const DisconnectInfo,
) -> xr::Result {
    with_runtime("xrRemotingDisconnectMSFT", |runtime| {
        runtime.check_instance(instance)?;
        check_system(system_id)?;
        // SAFETY: the application's pointer, NULL or valid.
        let info = unsafe { disconnect_info.as_ref() }
            .ok_or_else(|| crate::state::invalid("disconnectInfo is NULL"))?;
        check_type(
            info.ty,
            xr::StructureType::from_raw(structure_type::DISCONNECT_INFO),
            "disconnectInfo",
        )?;
        let remoting = &mut runtime.remoting;
        if remoting.connection != Connection::Disconnected {
            remoting.pending.clear();
            remoting.connection = Connection::Disconnected;
            remoting.pending.push_back((
                Instant::now(),
                Event::RemotingDisconnected {
                    reason: DISCONNECT_REQUEST,
                },
            ));
        }
        Ok(xr::Result::SUCCESS)
    })
}

/// xrRemotingGetConnectionStateMSFT.
///
/// # Safety
/// The arguments are the application's, as Microsoft's header defines them.
pub unsafe extern "system" fn get_connection_state(
    instance: xr::Instance,
    system_id: xr::SystemId,
    state: *mut u32,
    last_reason: *mut u32,
) -> xr::Result {
    with_runtime("xrRemotingGetConnectionStateMSFT", |runtime| {
        runtime.check_instance(instance)?;
        check_system(system_id)?;
        // SAFETY: the application's output pointers.
        let (state, last_reason) = unsafe {
            (
                out_value(state, "connectionState")?,
                out_value(last_reason, "lastDisconnectReason")?,
            )
        };
        let remoting = &mut runtime.remoting;
        remoting.happen();
        *state = match remoting.connection {
            Connection::Disconnected => CONNECTION_STATE_DISCONNECTED,
            Connection::Connecting => CONNECTION_STATE_CONNECTING,
            Connection::Connected => CONNECTION_STATE_CONNECTED,
        };
        *last_reason = remoting.last_reason;
        Ok(xr::Result::SUCCESS)
    })
}

/// The extension's functions by name, for xrGetInstanceProcAddr.
pub fn function(name: &str) -> Option<xr::pfn::VoidFunction> {
    crate::dispatch::table!(name,
        "xrRemotingSetContextPropertiesMSFT" => set_context_properties as SetContextPropertiesFn,
        "xrRemotingConnectMSFT" => connect as ConnectFn,
        "xrRemotingListenMSFT" => listen as ListenFn,
        "xrRemotingDisconnectMSFT" => disconnect as DisconnectFn,
        "xrRemotingGetConnectionStateMSFT" => get_connection_state as GetConnectionStateFn,
    )
}
