//! Where Holographic Remoting streams: the player's address
//! (`--remote HOST[:PORT]`), the address the app listens on
//! (`--listen [ADDR][:PORT]`), and the video codec (`--codec`).

use std::fmt;
use std::str::FromStr;

use crate::xr::sys::remoting::{VIDEO_CODEC_ANY, VIDEO_CODEC_H264, VIDEO_CODEC_H265};

/// The Holographic Remoting Player's handshake port.
pub const DEFAULT_PORT: u16 = 8265;

/// The interface the app listens on unless told (every one).
pub const DEFAULT_LISTEN_HOST: &str = "0.0.0.0";

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

#[cfg(test)]
mod tests {
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
}
