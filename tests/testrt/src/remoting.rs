//! XR_MSFT_holographic_remoting, emulated (with `HOLOTERRAIN_TESTRT_REMOTING=HOST:PORT`):
//! a player listens at that address. Connecting there gives CONNECTED;
//! anywhere else gives, after a handshake timeout, DISCONNECTED with
//! `XR_REMOTING_DISCONNECT_REASON_HANDSHAKE_UNREACHABLE_MSFT`, the reason
//! Microsoft's samples treat as "player not reachable"; a script's
//! `disconnect REASON` drops a connection with that reason. As Microsoft
//! documents for its remoting runtime, the session follows the connection:
//! a session created without one, or whose connection drops, moves to
//! LOSS_PENDING. The structures are
//! the app's own declarations (`holoterrain::xr::remoting`), which its tests
//! check against the C layout of Microsoft's header.

use std::collections::VecDeque;
use std::time::{Duration, Instant};

use holoterrain::xr::RemoteAddress;
use holoterrain::xr::remoting::{
    ConnectFn, ConnectInfo, DisconnectFn, DisconnectInfo, EventDataDisconnected,
    RemoteContextProperties, SetContextPropertiesFn, disconnect_reason, structure_type,
};
use openxr_sys as xr;
use serde::Serialize;

use crate::instance::{Event, check_system};
use crate::state::{Failure, with_runtime};
use crate::structs::{c_str, check_type};

/// XR_REMOTING_DISCONNECT_REASON_HANDSHAKE_UNREACHABLE_MSFT.
pub const HANDSHAKE_UNREACHABLE: u32 = 4;
/// XR_REMOTING_DISCONNECT_REASON_DISCONNECT_REQUEST_MSFT.
pub const DISCONNECT_REQUEST: u32 = 19;
/// How long an attempt to reach a player that is not there takes to fail.
/// Microsoft does not document the runtime's handshake timeout; this is
/// chosen shorter than the app's own 10 s wait so the runtime's answer is
/// what the app reports.
pub const HANDSHAKE_TIMEOUT: Duration = Duration::from_secs(2);

/// XR_ERROR_REMOTING_NOT_DISCONNECTED_MSFT.
const NOT_DISCONNECTED: i32 = -1_000_065_000;

/// The remoting results' names, which openxr-sys does not know.
pub fn result_name(result: xr::Result) -> Option<&'static str> {
    match result.into_raw() {
        NOT_DISCONNECTED => Some("XR_ERROR_REMOTING_NOT_DISCONNECTED_MSFT"),
        -1_000_065_001 => Some("XR_ERROR_REMOTING_CODEC_NOT_FOUND_MSFT"),
        -1_000_065_002 => Some("XR_ERROR_REMOTING_CALLBACK_ERROR_MSFT"),
        _ => None,
    }
}

/// Where the connection stands.
#[derive(Debug, Clone, PartialEq)]
enum Connection {
    /// Not connected.
    Disconnected,
    /// An attempt that fails when its handshake times out (nobody listens there).
    Connecting,
    /// Connected to the player.
    Connected,
}

/// What the report says about remoting.
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
pub struct RemotingSummary {
    /// Where the emulated player listens.
    pub player: Option<String>,
    /// Every address the app connected to.
    pub connects: Vec<String>,
    /// Whether a connection was made.
    pub connected: bool,
    /// Every disconnect's reason, in words, as its event reached the app.
    pub disconnects: Vec<String>,
}

/// The emulated connection.
pub struct Remoting {
    /// Where the emulated player listens (`None`: remoting is not emulated).
    player: Option<RemoteAddress>,
    /// Where the connection stands.
    connection: Connection,
    /// Events that become visible at a time (the handshake timeout).
    pending: VecDeque<(Instant, Event)>,
    /// What the report says.
    summary: RemotingSummary,
}

impl Remoting {
    /// Remoting with a player at `player`, or none.
    pub fn new(player: Option<RemoteAddress>) -> Self {
        Self {
            summary: RemotingSummary {
                player: player.as_ref().map(ToString::to_string),
                ..RemotingSummary::default()
            },
            player,
            connection: Connection::Disconnected,
            pending: VecDeque::new(),
        }
    }

    /// The events whose time has come, in order; a failed handshake's
    /// DISCONNECTED also ends the attempt.
    pub fn events_due(&mut self) -> Vec<Event> {
        let now = Instant::now();
        let mut due = Vec::new();
        while let Some((at, _)) = self.pending.front() {
            if *at > now {
                break;
            }
            if let Some((_, event)) = self.pending.pop_front() {
                if let Event::RemotingDisconnected { reason } = event {
                    self.connection = Connection::Disconnected;
                    self.summary
                        .disconnects
                        .push(disconnect_reason(reason).to_owned());
                }
                due.push(event);
            }
        }
        due
    }

    /// Drops a live connection with `reason` (a script's `disconnect`).
    pub fn drop_connection(&mut self, reason: u32) {
        if self.connection == Connection::Connected {
            self.connection = Connection::Disconnected;
            self.pending
                .push_back((Instant::now(), Event::RemotingDisconnected { reason }));
        }
    }

    /// Whether a session created now has a player to stream to. An attempt
    /// under way is waited for, as Microsoft's xrCreateSession waits for a
    /// connection (here until the handshake to nobody times out).
    pub fn await_connection(&mut self) -> bool {
        if self.connection == Connection::Connecting
            && let Some(&(at, _)) = self.pending.front()
        {
            std::thread::sleep(at.saturating_duration_since(Instant::now()));
        }
        self.connection == Connection::Connected
    }

    /// The report's summary.
    pub fn summary(&self) -> &RemotingSummary {
        &self.summary
    }

    /// Fails unless nothing is connected or connecting.
    fn check_disconnected(&self, what: &str) -> Result<(), Failure> {
        if self.connection == Connection::Disconnected {
            Ok(())
        } else {
            Err(Failure::violation(
                xr::Result::from_raw(NOT_DISCONNECTED),
                format!("{what} while connected or connecting"),
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

/// xrRemotingSetContextPropertiesMSFT: accepted before connecting.
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
        runtime
            .remoting
            .check_disconnected("xrRemotingSetContextPropertiesMSFT")?;
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
        if info.secure_connection != xr::FALSE {
            return Err(Failure::violation(
                xr::Result::ERROR_FEATURE_UNSUPPORTED,
                "secure connections are not emulated (the Store's Remoting Player has none either)",
            ));
        }
        let remoting = &mut runtime.remoting;
        remoting.check_disconnected("xrRemotingConnectMSFT")?;
        let address = RemoteAddress {
            host: host.to_owned(),
            port: info.remote_port,
        };
        remoting.summary.connects.push(address.to_string());
        let now = Instant::now();
        if remoting.player.as_ref() == Some(&address) {
            remoting.connection = Connection::Connected;
            remoting.summary.connected = true;
            remoting.pending.push_back((now, Event::RemotingConnected));
        } else {
            remoting.connection = Connection::Connecting;
            remoting.pending.push_back((
                now + HANDSHAKE_TIMEOUT,
                Event::RemotingDisconnected {
                    reason: HANDSHAKE_UNREACHABLE,
                },
            ));
        }
        Ok(xr::Result::SUCCESS)
    })
}

/// xrRemotingDisconnectMSFT: ends a connection or an attempt.
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

/// The extension's functions by name, for xrGetInstanceProcAddr.
pub fn function(name: &str) -> Option<xr::pfn::VoidFunction> {
    crate::dispatch::table!(name,
        "xrRemotingSetContextPropertiesMSFT" => set_context_properties as SetContextPropertiesFn,
        "xrRemotingConnectMSFT" => connect as ConnectFn,
        "xrRemotingDisconnectMSFT" => disconnect as DisconnectFn,
    )
}
