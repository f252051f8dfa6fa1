//! Finding a shared session's host by its code on the local network: DNS-SD over multicast DNS (the `mdns-sd` crate), the host advertising only the code's nameplate, a joiner looking for it.
//!
//! The service type is [`SERVICE_TYPE`]; an instance is named by the
//! nameplate alone (`482` for `482-lonely-remind`), so anyone on the
//! network can see that a session exists, never its words: the words are
//! the secret the handshake proves. Two sessions with one nameplate on one
//! network are told apart by the handshake (the wrong one fails it).
use std::net::Ipv4Addr;
use std::time::{Duration, Instant};

use mdns_sd::{ServiceDaemon, ServiceEvent, ServiceInfo};
use thiserror::Error;

/// The DNS-SD service type of a shared session.
pub const SERVICE_TYPE: &str = "_holoterrain._tcp.local.";
/// How long a joiner looks for the host.
pub const FIND_PATIENCE: Duration = Duration::from_secs(10);

/// Why the network could not be asked.
#[derive(Debug, Error)]
pub enum DiscoveryError {
    /// The mDNS daemon or its sockets failed.
    #[error("multicast DNS: {0}")]
    Mdns(#[from] mdns_sd::Error),
    /// Nobody answered for the nameplate.
    #[error(
        "no host of session {nameplate} answered on the local network within {} s (multicast DNS); give its address: --join CODE@HOST",
        FIND_PATIENCE.as_secs()
    )]
    NotFound {
        /// The nameplate looked for.
        nameplate: u32,
    },
}

/// The host's advertisement, withdrawn when dropped.
pub struct Advertisement {
    daemon: ServiceDaemon,
    fullname: String,
}

impl Advertisement {
    /// Advertises the session with `nameplate` listening on `port` on
    /// every interface's addresses.
    pub fn start(nameplate: u32, port: u16) -> Result<Self, DiscoveryError> {
        let daemon = ServiceDaemon::new()?;
        let info = ServiceInfo::new(
            SERVICE_TYPE,
            &nameplate.to_string(),
            &format!("holoterrain-{nameplate}.local."),
            (),
            port,
            None,
        )?
        .enable_addr_auto();
        let fullname = info.get_fullname().to_owned();
        daemon.register(info)?;
        Ok(Advertisement { daemon, fullname })
    }
}

impl Drop for Advertisement {
    fn drop(&mut self) {
        // Best effort: a goodbye packet, then the daemon's thread ends.
        let _ = self.daemon.unregister(&self.fullname);
        let _ = self.daemon.shutdown();
    }
}

/// Looks on the local network for the host of the session with
/// `nameplate`: its IPv4 address and port.
pub fn find(nameplate: u32) -> Result<(Ipv4Addr, u16), DiscoveryError> {
    let daemon = ServiceDaemon::new()?;
    let events = daemon.browse(SERVICE_TYPE)?;
    let wanted = format!("{nameplate}.{SERVICE_TYPE}");
    let deadline = Instant::now() + FIND_PATIENCE;
    let mut found = None;
    while found.is_none() {
        let left = deadline.saturating_duration_since(Instant::now());
        if left.is_zero() {
            break;
        }
        match events.recv_timeout(left) {
            Ok(ServiceEvent::ServiceResolved(service))
                if service.get_fullname().eq_ignore_ascii_case(&wanted) =>
            {
                // The lowest address, the same choice every time; not the
                // host's loopback, which is this machine's own, unless it
                // offers nothing else (a host on this very machine).
                let addresses = service.get_addresses_v4();
                found = addresses
                    .iter()
                    .filter(|address| !address.is_loopback())
                    .min()
                    .or_else(|| addresses.iter().min())
                    .map(|address| (*address, service.get_port()));
            }
            Ok(_) => {}
            Err(_) => break,
        }
    }
    let _ = daemon.stop_browse(SERVICE_TYPE);
    let _ = daemon.shutdown();
    found.ok_or(DiscoveryError::NotFound { nameplate })
}
