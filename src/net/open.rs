//! Opening a shared session from a command line's flags (`--share [CODE]`, `--share-port`, `--join CODE@HOST[:PORT]`), the same for `sim` and `xr`.
//!
//! Each platform keeps its own flag definitions (their conflicts name
//! flags only that command has) and its own error type; what the flags
//! mean is decided here once.
use thiserror::Error;

use super::code::ShareCode;
use super::end::Session;
use super::session::{Host, JoinTarget, Peer};
use crate::app::log::{CommandLog, LogStart};

/// Why the flags could not open a session.
/// The port a host listens on unless told otherwise (`--share-port`), and
/// the one `--join CODE@HOST` connects to without a port.
pub const DEFAULT_SHARE_PORT: u16 = 47180;

/// The options `sim` and `xr` take alike for a shared session.
#[derive(Debug, Clone, PartialEq, clap::Args)]
pub struct ShareArgs {
    /// Host a shared session (docs/shared.md): with a code of your own
    /// (NUMBER-word-word), or without one to have one made; other headsets
    /// join with it and grow the same terrain (in the simulator, display
    /// time then follows the wall clock).
    #[arg(long, value_name = "CODE", num_args = 0..=1, default_missing_value = "",
          conflicts_with = "join")]
    pub share: Option<String>,
    /// The port a shared session listens on.
    #[arg(long, value_name = "PORT", default_value_t = DEFAULT_SHARE_PORT)]
    pub share_port: u16,
    /// Host without advertising the session's number on the local network
    /// (DNS-SD): peers then join with CODE@HOST. With --share, or for the
    /// session the hand menu's "Share session" hosts.
    #[arg(long)]
    pub unlisted: bool,
    /// Join the shared session CODE hosted at HOST (PORT: the default of
    /// --share-port), or without @HOST wherever the local network says its
    /// host is (DNS-SD); the host's recipe, seed and size are grown.
    #[arg(long, value_name = "CODE[@HOST[:PORT]]",
          conflicts_with_all = ["recipe", "seed", "size"])]
    pub join: Option<String>,
}

impl Default for ShareArgs {
    fn default() -> Self {
        ShareArgs {
            share: None,
            share_port: DEFAULT_SHARE_PORT,
            unlisted: false,
            join: None,
        }
    }
}

#[derive(Debug, Error)]
pub enum OpenError {
    /// A flag's value is not one: the user fixes the command line.
    #[error("--{flag}: {problem}")]
    Invalid {
        /// The flag, without its dashes.
        flag: &'static str,
        /// What is wrong with its value.
        problem: String,
    },
    /// The value was fine; hosting or joining failed.
    #[error("{0}")]
    Failed(String),
}

/// The code `--share` asks for (`share` is its value, empty when it was
/// given without one): the one given, unless it is weaker than a made
/// one ([`ShareCode::check_chosen`]), or a new one.
pub fn share_code(share: Option<&str>) -> Result<Option<ShareCode>, OpenError> {
    match share {
        None => Ok(None),
        Some("") => ShareCode::generate()
            .map(Some)
            .map_err(|error| OpenError::Failed(error.to_string())),
        Some(text) => {
            let invalid = |problem: String| OpenError::Invalid {
                flag: "share",
                problem,
            };
            let code = ShareCode::parse(text).map_err(|error| invalid(error.to_string()))?;
            code.check_chosen()
                .map_err(|error| invalid(error.to_string()))?;
            Ok(Some(code))
        }
    }
}

/// Whether `join` names a session to join (`CODE@HOST[:PORT]` or `CODE`),
/// without going to the network: a bad value is said before anything starts.
pub fn check_join(join: Option<&str>) -> Result<(), OpenError> {
    let Some(text) = join else {
        return Ok(());
    };
    let invalid = |problem: String| OpenError::Invalid {
        flag: "join",
        problem,
    };
    if text.contains('@') {
        JoinTarget::parse(text, DEFAULT_SHARE_PORT).map_err(|error| invalid(error.to_string()))?;
    } else {
        ShareCode::parse(text).map_err(|error| invalid(error.to_string()))?;
    }
    Ok(())
}

/// Joins the session `join` names (`CODE@HOST[:PORT]`, or `CODE` alone
/// to find its host on the local network): the session, and the host's
/// world to start from; `None` without `--join`.
pub fn join(join: Option<&str>) -> Result<Option<(Session, LogStart)>, OpenError> {
    let Some(text) = join else {
        return Ok(None);
    };
    let invalid = |problem: String| OpenError::Invalid {
        flag: "join",
        problem,
    };
    let target = if text.contains('@') {
        JoinTarget::parse(text, DEFAULT_SHARE_PORT).map_err(|error| invalid(error.to_string()))?
    } else {
        let code = ShareCode::parse(text).map_err(|error| invalid(error.to_string()))?;
        find_host(code)?
    };
    let (peer, start) =
        Peer::join(&target).map_err(|error| OpenError::Failed(error.to_string()))?;
    Ok(Some((Session::Peer(Box::new(peer)), start)))
}

/// The host of the session with `code`, found on the local network.
#[cfg(not(target_vendor = "uwp"))]
fn find_host(code: ShareCode) -> Result<JoinTarget, OpenError> {
    let (address, port) = super::discovery::find(code.nameplate())
        .map_err(|error| OpenError::Failed(error.to_string()))?;
    Ok(JoinTarget {
        code,
        host: address.to_string(),
        port,
    })
}

/// The host of the session with `code`, found on the local network
/// through Windows' own DNS-SD (the HoloLens 2 package).
#[cfg(target_vendor = "uwp")]
fn find_host(code: ShareCode) -> Result<JoinTarget, OpenError> {
    let (address, port) =
        super::device_discovery::find(code.nameplate()).map_err(OpenError::Failed)?;
    Ok(JoinTarget {
        code,
        host: address.to_string(),
        port,
    })
}

/// Hosts a session with `code` for the world `start` on `port`, advertised
/// on the local network when `listed` and the build can; the line that
/// tells the person hosting what to give the others.
pub fn host(
    code: ShareCode,
    port: u16,
    listed: bool,
    start: &LogStart,
) -> Result<(Session, String), OpenError> {
    host_from(
        code,
        port,
        listed,
        &CommandLog::new(start.clone()),
        0,
        Vec::new(),
    )
}

/// [`host`] from a world that has already changed: the "Share session"
/// button. `so_far` is the run's log, `grew` how far the current seed has
/// grown, `checksums` the app's before each of its terrain commands.
pub fn host_from(
    code: ShareCode,
    port: u16,
    listed: bool,
    so_far: &CommandLog,
    grew: usize,
    checksums: Vec<(u64, u64)>,
) -> Result<(Session, String), OpenError> {
    let mut host = Host::start_from(code, port, so_far, grew, checksums).map_err(|error| {
        OpenError::Invalid {
            flag: "share-port",
            problem: format!("cannot listen on port {port}: {error}"),
        }
    })?;
    let advertised = match listed.then(|| host.advertise()) {
        None => " (unlisted: peers join with CODE@HOST)".to_owned(),
        Some(Ok(())) => String::new(),
        Some(Err(why)) => {
            format!(" (not advertised on the local network: {why}; peers join with CODE@HOST)")
        }
    };
    let line = format!(
        "hosting session {} on port {}{advertised}",
        host.code(),
        host.port()
    );
    Ok((Session::Host(Box::new(host)), line))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_bare_share_makes_a_code_and_a_given_one_is_kept() {
        let made = share_code(Some("")).unwrap().expect("a code");
        assert!(ShareCode::parse(&made.to_string()).is_ok());
        let given = share_code(Some("7-guitar-orbit")).unwrap().expect("a code");
        assert_eq!(given.to_string(), "7-guitar-orbit");
        assert!(share_code(None).unwrap().is_none());
    }

    #[test]
    fn bad_values_name_their_flag() {
        let error = share_code(Some("Seven@x")).unwrap_err();
        assert!(error.to_string().starts_with("--share: "), "{error}");
        let error = share_code(Some("7-orbit-orbit")).unwrap_err();
        assert!(
            error
                .to_string()
                .starts_with("--share: the share code `7-orbit-orbit` is weaker"),
            "{error}"
        );
        let error = match join(Some("7-guitar")) {
            Err(error) => error,
            Ok(_) => panic!("a join with half a code"),
        };
        assert!(matches!(error, OpenError::Invalid { flag: "join", .. }));
        assert!(error.to_string().starts_with("--join: "), "{error}");
    }

    #[test]
    fn a_port_taken_is_said_for_share_port() {
        let taken = std::net::TcpListener::bind(("0.0.0.0", 0)).unwrap();
        let port = taken.local_addr().unwrap().port();
        let code = ShareCode::parse("7-guitar-orbit").unwrap();
        let start = crate::app::driver::WorldArgs::default()
            .log_start("demo")
            .unwrap();
        let error = match host(code, port, false, &start) {
            Err(error) => error,
            Ok(_) => panic!("hosting on a port taken"),
        };
        assert!(
            error
                .to_string()
                .starts_with(&format!("--share-port: cannot listen on port {port}")),
            "{error}"
        );
    }
}
