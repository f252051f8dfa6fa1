//! Where to join (`CODE@HOST[:PORT]`, [`JoinTarget`]) and why joining failed ([`JoinError`]).
use std::io;

use thiserror::Error;

use super::limits::RECONNECT_PATIENCE;
use crate::net::code::ShareCode;
use crate::net::handshake::HandshakeError;

/// Where to join: `CODE@HOST[:PORT]`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct JoinTarget {
    /// The session's code.
    pub code: ShareCode,
    /// The host's name or address.
    pub host: String,
    /// Its port.
    pub port: u16,
}

/// Why a `--join` value is not one.
#[derive(Debug, Error, Clone, PartialEq, Eq)]
pub enum JoinTargetError {
    /// The code part.
    #[error("{0}")]
    Code(#[from] crate::net::code::CodeError),
    /// The rest.
    #[error("`{text}` is not CODE@HOST[:PORT] (like 7-guitar-orbit@192.0.2.5:{port}): {problem}")]
    Form {
        text: String,
        port: u16,
        problem: String,
    },
}

impl JoinTarget {
    /// Reads `CODE@HOST[:PORT]`, the port `default_port` when left out; an
    /// IPv6 address goes in brackets (`[::1]:4000`).
    pub fn parse(text: &str, default_port: u16) -> Result<Self, JoinTargetError> {
        let fail = |problem: &str| JoinTargetError::Form {
            text: text.to_owned(),
            port: default_port,
            problem: problem.to_owned(),
        };
        let Some((code, place)) = text.trim().rsplit_once('@') else {
            return Err(fail("no @HOST"));
        };
        let code = ShareCode::parse(code)?;
        let bracketed = place.starts_with('[');
        let (host, port) = if let Some(rest) = place.strip_prefix('[') {
            let Some((host, after)) = rest.split_once(']') else {
                return Err(fail("an IPv6 address without its closing ]"));
            };
            match after.strip_prefix(':') {
                Some(port) => (host, Some(port)),
                None if after.is_empty() => (host, None),
                None => return Err(fail("text after the ]")),
            }
        } else {
            match place.split_once(':') {
                Some((host, port)) => (host, Some(port)),
                None => (place, None),
            }
        };
        if host.is_empty() || (!bracketed && host.contains(':')) {
            return Err(fail("the host is empty or an IPv6 address outside [ ]"));
        }
        let port = match port {
            None => default_port,
            Some(port) => port
                .parse::<u16>()
                .ok()
                .filter(|&port| port > 0)
                .ok_or_else(|| fail("the port must be 1 to 65535"))?,
        };
        Ok(JoinTarget {
            code,
            host: host.to_owned(),
            port,
        })
    }
}

/// Why joining failed.
#[derive(Debug, Error)]
pub enum JoinError {
    /// No host answered.
    #[error("cannot reach the host at {target}: {error}")]
    Unreachable { target: String, error: io::Error },
    /// The handshake failed.
    #[error("joining {target} failed: {error}")]
    Handshake {
        target: String,
        error: HandshakeError,
    },
    /// The host sent something else than its welcome.
    #[error("joining {target} failed: {problem}")]
    Protocol { target: String, problem: String },
    /// Reaching the host again failed every time.
    #[error("{attempts} attempts in {} s failed, the last: {last}", RECONNECT_PATIENCE.as_secs())]
    GaveUp { attempts: u32, last: String },
}
