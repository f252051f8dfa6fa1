//! Finding a shared session's host by its code in the HoloLens 2 package: DNS-SD through Windows' own device enumeration, since the app container has no interface list for `mdns-sd` (discovery.rs does this everywhere else).
//!
//! Windows browses DNS-SD services as association endpoint services of the
//! DNS-SD protocol: one query for `_holoterrain._tcp` in `local` answers
//! each advertised instance with its name, addresses and port. The query is
//! asked again until the instance named by the code's nameplate answers or
//! [`FIND_PATIENCE`] has passed, as `discovery::find` waits. Built and
//! linted in the package; never run on a device.
use std::net::Ipv4Addr;
use std::sync::mpsc;
use std::time::{Duration, Instant};

use windows::Devices::Enumeration::{
    DeviceInformation, DeviceInformationCollection, DeviceInformationKind,
};
use windows::Foundation::IPropertyValue;
use windows::core::{Array, HSTRING, Interface};
use windows_collections::IIterable;

/// How long a joiner looks for the host (as `discovery::FIND_PATIENCE`).
pub const FIND_PATIENCE: Duration = Duration::from_secs(10);

/// The DNS-SD protocol's id among Windows' association endpoint protocols.
const DNSSD_PROTOCOL: &str = "{4526e8c1-8aac-4153-9b16-55e86ada0e54}";
/// The properties each answer brings.
const INSTANCE_NAME: &str = "System.Devices.Dnssd.InstanceName";
const ADDRESSES: &str = "System.Devices.IpAddress";
const PORT: &str = "System.Devices.Dnssd.PortNumber";

/// The address and port of the host advertising the session numbered
/// `nameplate`; why not, in one line.
pub fn find(nameplate: u32) -> Result<(Ipv4Addr, u16), String> {
    let query = HSTRING::from(format!(
        "System.Devices.AepService.ProtocolId:=\"{DNSSD_PROTOCOL}\" AND \
         System.Devices.Dnssd.Domain:=\"local\" AND \
         System.Devices.Dnssd.ServiceName:=\"_holoterrain._tcp\""
    ));
    let wanted = nameplate.to_string();
    let started = Instant::now();
    loop {
        let left = FIND_PATIENCE.saturating_sub(started.elapsed());
        if left.is_zero() {
            return Err(format!(
                "no host of session {nameplate} answered on the local network in {} s (DNS-SD)",
                FIND_PATIENCE.as_secs()
            ));
        }
        let answers = find_all(&query, left)?;
        for answer in &answers {
            if let Some(host) = host_of(&answer, &wanted) {
                return Ok(host);
            }
        }
        std::thread::sleep(Duration::from_millis(500).min(left));
    }
}

/// One enumeration of the query's services, waiting at most `patience`.
fn find_all(query: &HSTRING, patience: Duration) -> Result<DeviceInformationCollection, String> {
    let failed = |error: windows::core::Error| format!("DNS-SD through Windows: {error}");
    let properties: Vec<HSTRING> = [INSTANCE_NAME, ADDRESSES, PORT]
        .into_iter()
        .map(HSTRING::from)
        .collect();
    let finding = DeviceInformation::FindAllAsyncWithKindAqsFilterAndAdditionalProperties(
        query,
        &IIterable::<HSTRING>::from(properties),
        DeviceInformationKind::AssociationEndpointService,
    )
    .map_err(failed)?;
    let (sender, found) = mpsc::sync_channel(1);
    finding
        .when(move |result| {
            // After a time-out nobody waits for it any more.
            let _ = sender.send(result);
        })
        .map_err(failed)?;
    match found.recv_timeout(patience) {
        Ok(result) => result.map_err(failed),
        Err(_) => {
            let _ = finding.Cancel();
            Err(format!(
                "DNS-SD through Windows: no answer in {} s",
                patience.as_secs()
            ))
        }
    }
}

/// The IPv4 address and port of `answer` when it is the instance `wanted`.
fn host_of(answer: &DeviceInformation, wanted: &str) -> Option<(Ipv4Addr, u16)> {
    let properties = answer.Properties().ok()?;
    let value = |name: &str| -> Option<IPropertyValue> {
        properties
            .Lookup(&HSTRING::from(name))
            .ok()?
            .cast::<IPropertyValue>()
            .ok()
    };
    if value(INSTANCE_NAME)?.GetString().ok()? != wanted {
        return None;
    }
    let port = value(PORT)?.GetUInt16().ok()?;
    let mut addresses = Array::<HSTRING>::new();
    value(ADDRESSES)?.GetStringArray(&mut addresses).ok()?;
    let address = addresses
        .iter()
        .filter_map(|address| address.to_string().parse::<Ipv4Addr>().ok())
        .min_by_key(|address| (address.is_loopback(), u32::from(*address)))?;
    Some((address, port))
}
