//! Errors of the OpenXR platform, each naming what is wrong and what to do.

use std::path::PathBuf;

use ash::vk;
use openxr as xr;

use crate::xr::session_end::SessionEnd;

/// Exit status of `holoterrain xr` when the OpenXR runtime stopped under a
/// running session (instance or session lost, runtime failure): distinct
/// from 1 (any other failure) and 2 (bad arguments).
pub const EXIT_RUNTIME_STOPPED: u8 = 3;

/// Exit status of `holoterrain xr` when the OpenXR runtime stopped
/// answering: a call did not return within `--runtime-timeout`, or Ctrl-C
/// came while one had been blocked for 2 s; the watchdog wrote the report
/// and ended the app without tearing down the session.
pub const EXIT_RUNTIME_UNRESPONSIVE: u8 = 4;

/// The exit statuses, for `holoterrain xr --help`.
pub const EXIT_STATUS_HELP: &str = "Exit status: 0 when the session ended properly (--frames, Ctrl-C or the runtime's request); 3 when the OpenXR runtime stopped under the session (instance or session lost, runtime failure, or a Holographic Remoting connection lost for good; the report is still written, with \"ended\" saying which); 4 when the runtime stopped answering (a call did not return within --runtime-timeout, \"ended\": \"runtime_unresponsive\", or Ctrl-C, SIGTERM or closing the console came while one had been blocked for 2 s, \"ended\": \"interrupted\"; the report is still written, the session is not torn down); 2 for bad arguments; 1 for any other failure.";

/// Everything that can stop `holoterrain xr`.
#[derive(Debug, thiserror::Error)]
pub enum XrError {
    /// The OpenXR loader library could not be opened.
    #[error(
        "no OpenXR loader (libopenxr_loader.so.1): install it (Debian/Ubuntu: apt-get install libopenxr-loader1) and an OpenXR runtime such as Monado; `holoterrain sim` runs without one"
    )]
    LoaderMissing,
    /// The loader found no active runtime.
    #[cfg_attr(
        not(windows),
        error(
            "no OpenXR runtime is active ({0}): install and start one (e.g. Monado, packaged in Debian 13 and Ubuntu as monado-service and libopenxr1-monado: start monado-service), or point XR_RUNTIME_JSON at a runtime manifest; `holoterrain sim` runs without one"
        )
    )]
    #[cfg_attr(
        windows,
        error(
            "no OpenXR runtime is active ({0}): install one (SteamVR, Meta Quest Link, Varjo Base, Windows Mixed Reality; for HoloLens 2 see docs/hololens.md) and make it the active OpenXR runtime in its settings, or point XR_RUNTIME_JSON at a runtime manifest; `holoterrain sim` runs without one"
        )
    )]
    NoRuntime(xr::sys::Result),
    /// The runtime has no head-mounted display to offer.
    #[error(
        "the OpenXR runtime has no headset available ({0}): connect and switch on the headset, or start the runtime's simulated device (Monado: SIMULATED_ENABLE=1)"
    )]
    NoHeadset(xr::sys::Result),
    /// The runtime cannot share Vulkan images with the app.
    #[cfg_attr(
        not(windows),
        error(
            "the OpenXR runtime does not offer XR_KHR_vulkan_enable2, the only graphics API of this build; for a Direct3D-only runtime such as HoloLens 2 use the Windows build, holoterrain.exe (docs/hololens.md)"
        )
    )]
    #[cfg_attr(
        windows,
        error(
            "--graphics vulkan: the OpenXR runtime does not offer XR_KHR_vulkan_enable2; leave --graphics out to draw with what it offers (docs/hololens.md)"
        )
    )]
    NoVulkanSupport,
    /// `--graphics d3d11` in a build without Direct3D 11.
    #[error(
        "--graphics: d3d11 exists only in the Windows build (holoterrain.exe); use --graphics vulkan"
    )]
    GraphicsNotBuilt,
    /// `--graphics d3d11`, but the runtime cannot share Direct3D 11 textures.
    #[error(
        "--graphics d3d11: the OpenXR runtime does not offer XR_KHR_D3D11_enable; leave --graphics out to use what it offers"
    )]
    NoD3d11Support,
    /// The runtime offers neither graphics API this build draws with.
    #[error(
        "the OpenXR runtime offers neither XR_KHR_vulkan_enable2 nor XR_KHR_D3D11_enable; holoterrain draws with Vulkan or Direct3D 11 only"
    )]
    NoGraphicsSupport,
    /// The adapter xrGetD3D11GraphicsRequirementsKHR names is not among DXGI's adapters.
    #[error(
        "the OpenXR runtime wants Direct3D 11 on an adapter this computer does not list (LUID {high:08x}:{low:08x}); restart the runtime and rerun"
    )]
    NoRuntimeAdapter {
        /// The LUID's low part.
        low: u32,
        /// The LUID's high part.
        high: i32,
    },
    /// `--remote` or `--listen`, but no remoting runtime was named or found.
    #[cfg_attr(
        not(windows),
        error(
            "{flag}: no Holographic Remoting runtime: Microsoft's remoting OpenXR runtime runs only on Windows; run holoterrain.exe on a Windows PC with RemotingXR.json (Microsoft.Holographic.Remoting.OpenXr package) beside it, given with --remote-runtime PATH, or named by XR_RUNTIME_JSON (docs/hololens.md)"
        )
    )]
    #[cfg_attr(
        windows,
        error(
            "{flag}: no Holographic Remoting runtime: copy the files of the Microsoft.Holographic.Remoting.OpenXr package's build\\native\\bin\\x64\\Desktop folder (RemotingXR.json and its DLLs) beside holoterrain.exe, or give --remote-runtime PATH\\RemotingXR.json (README-windows.txt)"
        )
    )]
    RemotingRuntimeNotFound {
        /// `--remote` or `--listen`.
        flag: &'static str,
    },
    /// A runtime manifest the app was to load itself cannot be used.
    #[error(
        "the OpenXR runtime manifest {} cannot be used: {problem}; give --remote-runtime the RemotingXR.json of the Microsoft.Holographic.Remoting.OpenXr package, its DLLs beside it", .path.display()
    )]
    RuntimeManifest {
        /// The manifest.
        path: PathBuf,
        /// What is wrong with it.
        problem: String,
    },
    /// `--remote` or `--listen`, but the runtime loaded is not Microsoft's
    /// Holographic Remoting runtime (it lacks XR_MSFT_holographic_remoting).
    #[error(
        "{flag}: {detail}; Holographic Remoting needs the RemotingXR.json of the Microsoft.Holographic.Remoting.OpenXr package: give it with --remote-runtime PATH or put it, with its DLLs, beside the program"
    )]
    RemotingUnavailable {
        /// `--remote` or `--listen`.
        flag: &'static str,
        /// What the runtime lacks.
        detail: String,
    },
    /// The Holographic Remoting Player did not accept the connection.
    #[error(
        "cannot reach the Holographic Remoting Player at {address}: {why}; start the Remoting Player on the HoloLens, check the address it shows, and that this computer reaches it (port {port} TCP and UDP)", port = .address.rsplit(':').next().unwrap_or_default()
    )]
    RemoteUnreachable {
        /// HOST:PORT tried.
        address: String,
        /// The runtime's reason, or the timeout.
        why: String,
    },
    /// This computer cannot encode the video codec `--codec` asked for
    /// (XR_ERROR_REMOTING_CODEC_NOT_FOUND_MSFT).
    #[error(
        "Holographic Remoting: this computer cannot encode the video codec of --codec {codec} ({call}: XR_ERROR_REMOTING_CODEC_NOT_FOUND_MSFT); {advice}", advice = encoder_advice(.codec)
    )]
    RemoteEncoderMissing {
        /// `--codec`'s name.
        codec: &'static str,
        /// The call that said so.
        call: &'static str,
    },
    /// The player cannot decode the video codec `--codec` asked for
    /// (XR_REMOTING_DISCONNECT_REASON_VIDEO_CODEC_NOT_AVAILABLE_MSFT).
    #[error(
        "Holographic Remoting with {address}: the player cannot decode the video codec of --codec {codec} ({why}); {advice}", advice = decoder_advice(.codec)
    )]
    RemoteDecoderMissing {
        /// HOST:PORT of the player (or the address listened on).
        address: String,
        /// `--codec`'s name.
        codec: &'static str,
        /// The runtime's reason.
        why: String,
    },
    /// The app could not listen for players.
    #[error(
        "--listen: cannot listen for a Remoting Player at {address}: {why}; choose a free port (--listen :PORT) or an address of this computer, and allow holoterrain through the firewall"
    )]
    RemoteListenFailed {
        /// ADDR:PORT listened on.
        address: String,
        /// The runtime's reason.
        why: String,
    },
    /// The Holographic Remoting connection dropped and reconnecting failed
    /// (or is off); the report, if asked for, was written first.
    #[error(
        "the Holographic Remoting connection to {address} ended ({ended}) after {frames} rendered frames, and {}{}; check that the Remoting Player runs and this computer reaches it, then rerun", retried(*.attempts, .last.as_deref()), report_note(.report.as_deref())
    )]
    RemotingLost {
        /// The player's (or the listening) address.
        address: String,
        /// Why the connection ended.
        ended: String,
        /// Attempts made to reconnect.
        attempts: u32,
        /// Why the last attempt failed, when one was made.
        last: Option<String>,
        /// Frames rendered in all.
        frames: u64,
        /// Where the report went, when one was asked for.
        report: Option<PathBuf>,
    },
    /// An OpenXR call failed.
    #[error("OpenXR call {call} failed: {result}")]
    Xr {
        /// The OpenXR function that failed.
        call: &'static str,
        /// What it returned.
        result: xr::sys::Result,
    },
    /// The Vulkan loader library could not be opened.
    #[cfg_attr(
        not(windows),
        error(
            "no Vulkan loader: install libvulkan1 and a Vulkan driver (Debian/Ubuntu: mesa-vulkan-drivers)"
        )
    )]
    #[cfg_attr(
        windows,
        error(
            "no Vulkan loader (vulkan-1.dll): install or update your graphics card's driver, which brings Vulkan"
        )
    )]
    VulkanLoaderMissing,
    /// A Vulkan call failed.
    #[error("Vulkan call {call} failed: {result}")]
    Vulkan {
        /// The Vulkan function that failed.
        call: &'static str,
        /// What it returned.
        result: vk::Result,
    },
    /// The runtime's Vulkan version range excludes the Vulkan 1.1 that multiview needs.
    #[error("the OpenXR runtime accepts Vulkan {min}..{max}, holoterrain needs Vulkan 1.1")]
    VulkanVersion {
        /// Lowest Vulkan version the runtime supports.
        min: xr::Version,
        /// Highest Vulkan version the runtime supports.
        max: xr::Version,
    },
    /// The chosen device has no graphics queue.
    #[error("the Vulkan device the OpenXR runtime chose has no graphics queue")]
    NoGraphicsQueue,
    /// No swapchain format the renderer can draw into.
    #[error("the OpenXR runtime offers no {kind} swapchain format holoterrain can render to")]
    NoSwapchainFormat {
        /// "colour" or "depth".
        kind: &'static str,
    },
    /// The stereo views differ in size, which single-pass multiview cannot draw.
    #[error("the runtime's two views differ in size; single-pass stereo needs equal views")]
    UnequalViews,
    /// The renderer failed.
    #[error(transparent)]
    Render(#[from] crate::render::RenderError),
    /// The app core refused its configuration.
    #[error(transparent)]
    App(#[from] crate::app::AppError),
    /// `--recipe` names no recipe that can be grown.
    #[error("--recipe: {0}")]
    Recipe(#[from] crate::terrain::recipe::RecipeError),
    /// A shared session could not be hosted or joined (`--share`, `--join`).
    #[error(transparent)]
    Share(#[from] crate::net::open::OpenError),
    /// A run following a command log left it (only a run that replays one).
    #[error("{0}")]
    Diverged(#[from] crate::app::driver::Diverged),
    /// The runtime stopped under a running session (instance or session
    /// lost, runtime failure); the report, if asked for, was written first.
    #[cfg_attr(
        not(windows),
        error(
            "the OpenXR runtime stopped ({}) after {frames} rendered frames{}; start the runtime again (Monado: monado-service) and rerun",
            .ended.describe(),
            report_note(.report.as_deref())
        )
    )]
    #[cfg_attr(
        windows,
        error(
            "the OpenXR runtime stopped ({}) after {frames} rendered frames{}; start the headset's OpenXR runtime again (its own app: SteamVR, Meta Quest Link, Mixed Reality Portal) and rerun",
            .ended.describe(),
            report_note(.report.as_deref())
        )
    )]
    RuntimeStopped {
        /// How the session ended.
        ended: SessionEnd,
        /// Frames rendered before it did.
        frames: u64,
        /// Where the report went, when one was asked for.
        report: Option<PathBuf>,
    },
    /// The watchdog ended the run (`run/watchdog.rs`): a call of the loop did
    /// not return within `--runtime-timeout`, or an interrupt came while a
    /// call had been blocked for `watchdog::INTERRUPT_GRACE`. The report,
    /// if asked for, was written first; the session was not torn down.
    #[error(
        "{}: no answer to {call} for {seconds:.1} s{} after {frames} rendered frames{report}; the app ended without tearing down the session; {}",
        unresponsive_headline(*.ended),
        limit_note(*.ended, *.limit),
        unresponsive_advice(*.ended)
    )]
    RuntimeUnresponsive {
        /// `RuntimeUnresponsive` (the limit) or `Interrupted`.
        ended: SessionEnd,
        /// The OpenXR call that did not return.
        call: &'static str,
        /// How long it had been blocked.
        seconds: f64,
        /// `--runtime-timeout` in seconds; `None` when off.
        limit: Option<u64>,
        /// Frames rendered before.
        frames: u64,
        /// What became of the report.
        report: ReportFile,
    },
    /// The report file could not be written.
    #[error("cannot write the report {path}: {source}")]
    Report {
        /// The report path.
        path: PathBuf,
        /// Why writing failed.
        source: std::io::Error,
    },
}

/// What became of the report when the watchdog ended the run.
#[derive(Debug)]
pub enum ReportFile {
    /// No `--report` was given.
    NotAsked,
    /// Written to this file.
    Written(PathBuf),
    /// Writing it failed: the error's message.
    Failed(String),
}

/// "; report written to FILE", or why it was not, or nothing.
impl std::fmt::Display for ReportFile {
    fn fmt(&self, formatter: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            ReportFile::NotAsked => Ok(()),
            ReportFile::Written(path) => {
                write!(formatter, "; report written to {}", path.display())
            }
            ReportFile::Failed(why) => write!(formatter, "; {why}"),
        }
    }
}

/// What the watchdog's line starts with.
fn unresponsive_headline(ended: SessionEnd) -> &'static str {
    match ended {
        SessionEnd::Interrupted => "interrupted while the OpenXR runtime was not answering",
        _ => "the OpenXR runtime stopped answering",
    }
}

/// " (--runtime-timeout N)" when the limit ended the run.
fn limit_note(ended: SessionEnd, limit: Option<u64>) -> String {
    match (ended, limit) {
        (SessionEnd::RuntimeUnresponsive, Some(seconds)) => {
            format!(" (--runtime-timeout {seconds})")
        }
        _ => String::new(),
    }
}

/// What to do after the watchdog ended the run.
fn unresponsive_advice(ended: SessionEnd) -> &'static str {
    match ended {
        SessionEnd::Interrupted => "restart the runtime if it stays stuck (Monado: monado-service)",
        _ => {
            "check the headset, restart its runtime (Monado: monado-service) and rerun, or give the runtime longer with --runtime-timeout"
        }
    }
}

impl XrError {
    /// The process's exit status for this error:
    /// [`EXIT_RUNTIME_STOPPED`] when the runtime stopped under the
    /// session or a remoting connection was lost for good,
    /// [`EXIT_RUNTIME_UNRESPONSIVE`] when it stopped answering, else 1.
    pub fn exit_status(&self) -> u8 {
        match self {
            XrError::RuntimeStopped { .. } | XrError::RemotingLost { .. } => EXIT_RUNTIME_STOPPED,
            XrError::RuntimeUnresponsive { .. } => EXIT_RUNTIME_UNRESPONSIVE,
            _ => 1,
        }
    }

    /// How the session ended when this error says the runtime stopped
    /// (which ends a session like a proper end, and is logged), else the
    /// error itself.
    pub fn into_session_end(self) -> Result<SessionEnd, XrError> {
        match self.runtime_stop() {
            Some(end) => {
                log::info!("the OpenXR runtime stopped: {self}");
                Ok(end)
            }
            None => Err(self),
        }
    }

    /// The end of the session this error means when it says the runtime
    /// stopped (XR_ERROR_INSTANCE_LOST, XR_ERROR_SESSION_LOST,
    /// XR_ERROR_RUNTIME_FAILURE from any call), else `None`.
    pub fn runtime_stop(&self) -> Option<SessionEnd> {
        match self {
            XrError::Xr { result, .. } => SessionEnd::from_xr_result(*result),
            _ => None,
        }
    }
}

/// What reconnecting came to: "reconnecting is off (--remote-retries 0)",
/// or "N attempts to reconnect failed (the last: WHY)".
fn retried(attempts: u32, last: Option<&str>) -> String {
    match (attempts, last) {
        (0, _) => "reconnecting is off (--remote-retries 0)".into(),
        (1, Some(last)) => format!("1 attempt to reconnect failed ({last})"),
        (attempts, Some(last)) => {
            format!("{attempts} attempts to reconnect failed (the last: {last})")
        }
        (attempts, None) => format!("{attempts} attempts to reconnect failed"),
    }
}

/// "; report written to FILE" when there is one.
fn report_note(report: Option<&std::path::Path>) -> String {
    report
        .map(|path| format!("; report written to {}", path.display()))
        .unwrap_or_default()
}

/// What to do when this computer cannot encode `codec` (`--codec`'s name).
fn encoder_advice(codec: &str) -> &'static str {
    match codec {
        "h265" => "try --codec h264, or install Microsoft's HEVC Video Extensions on this computer",
        "h264" => {
            "try --codec any, and update the graphics driver (the card needs H.264 hardware encoding)"
        }
        _ => "update the graphics driver: the card needs H.264 or H.265 hardware encoding",
    }
}

/// What to do when the player cannot decode `codec` (`--codec`'s name).
fn decoder_advice(codec: &str) -> &'static str {
    match codec {
        "h265" => "try --codec h264",
        "h264" => "try --codec any, and update the Remoting Player from the Microsoft Store",
        _ => "update the Remoting Player from the Microsoft Store",
    }
}

/// Builds a closure that wraps an OpenXR result into [`XrError::Xr`] for `call`.
pub(crate) fn xr_call(call: &'static str) -> impl FnOnce(xr::sys::Result) -> XrError {
    move |result| XrError::Xr { call, result }
}

/// Builds a closure that wraps a Vulkan result into [`XrError::Vulkan`] for `call`.
pub(crate) fn vk_call(call: &'static str) -> impl FnOnce(vk::Result) -> XrError {
    move |result| XrError::Vulkan { call, result }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn codec_advice_never_suggests_the_codec_that_failed_and_is_one_line() {
        for codec in ["any", "h264", "h265"] {
            let errors = [
                XrError::RemoteEncoderMissing {
                    codec,
                    call: "xrRemotingConnectMSFT",
                },
                XrError::RemoteDecoderMissing {
                    address: "10.0.0.2:8265".into(),
                    codec,
                    why: "video codec not available".into(),
                },
            ];
            for error in errors {
                let line = error.to_string();
                assert!(!line.contains('\n'), "{line}");
                let advice = line.rsplit_once("; ").unwrap().1;
                assert!(
                    !advice.contains(&format!("--codec {codec}")),
                    "{codec}: {advice}"
                );
            }
        }
    }

    #[test]
    fn a_lost_instance_from_any_call_is_a_runtime_stop() {
        let error = xr_call("xrWaitFrame")(xr::sys::Result::ERROR_INSTANCE_LOST);
        assert_eq!(error.runtime_stop(), Some(SessionEnd::InstanceLost));
        let other = xr_call("xrWaitFrame")(xr::sys::Result::ERROR_VALIDATION_FAILURE);
        assert_eq!(other.runtime_stop(), None);
    }

    #[test]
    fn the_watchdogs_line_names_the_call_how_long_the_limit_and_the_report() {
        let message = XrError::RuntimeUnresponsive {
            ended: SessionEnd::RuntimeUnresponsive,
            call: "xrWaitFrame",
            seconds: 10.04,
            limit: Some(10),
            frames: 41,
            report: ReportFile::Written(PathBuf::from("/tmp/r.json")),
        }
        .to_string();
        assert!(!message.contains('\n'), "{message}");
        assert!(
            message.starts_with("the OpenXR runtime stopped answering: no answer to xrWaitFrame for 10.0 s (--runtime-timeout 10) after 41 rendered frames; report written to /tmp/r.json; the app ended without tearing down the session;"),
            "{message}"
        );
    }

    #[test]
    fn an_interrupt_during_a_stuck_call_says_so_and_names_no_limit() {
        let message = XrError::RuntimeUnresponsive {
            ended: SessionEnd::Interrupted,
            call: "xrWaitFrame",
            seconds: 2.06,
            limit: Some(10),
            frames: 0,
            report: ReportFile::Failed("cannot write the report /r.json: denied".into()),
        }
        .to_string();
        assert!(
            message.starts_with("interrupted while the OpenXR runtime was not answering: no answer to xrWaitFrame for 2.1 s after 0 rendered frames; cannot write the report /r.json: denied;"),
            "{message}"
        );
    }

    #[test]
    fn each_way_the_runtime_fails_has_its_exit_status() {
        let stopped = XrError::RuntimeStopped {
            ended: SessionEnd::InstanceLost,
            frames: 0,
            report: None,
        };
        let unresponsive = XrError::RuntimeUnresponsive {
            ended: SessionEnd::RuntimeUnresponsive,
            call: "xrWaitFrame",
            seconds: 10.0,
            limit: Some(10),
            frames: 0,
            report: ReportFile::NotAsked,
        };
        assert_eq!(stopped.exit_status(), 3);
        assert_eq!(unresponsive.exit_status(), 4);
        assert_eq!(XrError::UnequalViews.exit_status(), 1);
    }

    #[test]
    fn the_runtime_stopped_message_is_one_line_naming_the_loss_and_the_report() {
        let message = XrError::RuntimeStopped {
            ended: SessionEnd::InstanceLost,
            frames: 12,
            report: Some(PathBuf::from("/tmp/r.json")),
        }
        .to_string();
        assert!(!message.contains('\n'), "{message}");
        assert!(
            message.starts_with("the OpenXR runtime stopped (instance lost) after 12 rendered frames; report written to /tmp/r.json;"),
            "{message}"
        );
        assert_eq!(
            message.contains("monado-service"),
            cfg!(not(windows)),
            "Monado's service is Linux advice: {message}"
        );
    }

    #[test]
    fn a_lost_remoting_connection_says_what_reconnecting_came_to_without_naming_monado() {
        let lost = |attempts, last: Option<&str>| {
            XrError::RemotingLost {
                address: "192.168.1.20:8265".into(),
                ended: "connection lost (XR_REMOTING_DISCONNECT_REASON_CONNECTION_LOST_MSFT)"
                    .into(),
                attempts,
                last: last.map(str::to_owned),
                frames: 600,
                report: None,
            }
            .to_string()
        };
        let gave_up = lost(
            3,
            Some("XR_REMOTING_DISCONNECT_REASON_HANDSHAKE_UNREACHABLE_MSFT"),
        );
        assert!(
            gave_up.starts_with("the Holographic Remoting connection to 192.168.1.20:8265 ended (connection lost (XR_REMOTING_DISCONNECT_REASON_CONNECTION_LOST_MSFT)) after 600 rendered frames, and 3 attempts to reconnect failed (the last: XR_REMOTING_DISCONNECT_REASON_HANDSHAKE_UNREACHABLE_MSFT);"),
            "{gave_up}"
        );
        let off = lost(0, None);
        assert!(
            off.contains("reconnecting is off (--remote-retries 0)"),
            "{off}"
        );
        for message in [gave_up, off] {
            assert!(
                !message.contains('\n') && !message.contains("onado"),
                "{message}"
            );
        }
    }
}
