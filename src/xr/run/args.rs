//! The options of `holoterrain xr` (`XrArgs`), and what they mean for the
//! run: the watchdog's limit, whom to stream to.

use std::path::PathBuf;
use std::time::Duration;

use crate::app::driver::WorldArgs;
use crate::render::backend::Backend;
use crate::xr::remoting::address::{ListenAddress, RemoteAddress, VideoCodec};
use crate::xr::remoting::link::Peer;

/// Options of `holoterrain xr`.
#[derive(Debug, Clone, clap::Args)]
#[command(group(clap::ArgGroup::new("remoting").args(["remote", "listen"])))]
pub struct XrArgs {
    /// Stop after this many rendered frames (at least 1), ending the session properly.
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(u64).range(1..))]
    pub frames: Option<u64>,
    /// Write the run report (JSON) to this file when the session ends.
    #[arg(long, value_name = "FILE")]
    pub report: Option<PathBuf>,
    /// Turn on the OpenXR core validation layer and the Khronos Vulkan
    /// validation layer (with d3d11: the Direct3D 11 debug layer), and count
    /// their messages into the report.
    #[arg(long)]
    pub validation: bool,
    /// The world the run starts from.
    #[command(flatten)]
    pub world: WorldArgs,
    /// Stream to a HoloLens through Holographic Remoting: connect to the
    /// Remoting Player at HOST (port 8265 unless given) before the session
    /// begins, and again whenever the connection drops. Needs Microsoft's
    /// remoting OpenXR runtime (Windows only): see --remote-runtime.
    #[arg(long, value_name = "HOST[:PORT]")]
    pub remote: Option<RemoteAddress>,
    /// Holographic Remoting the other way round: wait for a player that
    /// connects to this computer, on ADDR (every interface unless given),
    /// port PORT (8265 unless given; the stream takes the next port). For
    /// players made to connect; the Store's Remoting Player listens, so use
    /// --remote with it.
    #[arg(
        long,
        value_name = "[ADDR][:PORT]",
        num_args = 0..=1,
        default_missing_value = "",
        conflicts_with = "remote"
    )]
    pub listen: Option<ListenAddress>,
    /// Attempts to connect again after the connection to the player drops
    /// (waiting 1 s, then 2, 4, ... up to 30 s between them); 0 ends the run
    /// at the first drop. Without it: until the player is back or Ctrl-C.
    #[arg(long, value_name = "N", requires = "remoting")]
    pub remote_retries: Option<u32>,
    /// The remoting runtime's manifest: RemotingXR.json from the
    /// Microsoft.Holographic.Remoting.OpenXr package, with its DLLs beside
    /// it. Without it: RemotingXR.json beside the program, else the file
    /// XR_RUNTIME_JSON names. The app loads it itself, so this works in an
    /// Administrator prompt too, where the OpenXR loader ignores
    /// XR_RUNTIME_JSON.
    #[arg(long, value_name = "PATH", requires = "remoting")]
    pub remote_runtime: Option<PathBuf>,
    /// The video codec of the remoting stream: any (H.265 when both sides
    /// have it, else H.264), h264 or h265. Connected, but no hologram in
    /// the HoloLens: try h264.
    #[arg(long, value_enum, value_name = "CODEC", default_value_t = VideoCodec::Any, requires = "remoting")]
    pub codec: VideoCodec,
    /// The graphics API to draw with; without it, Vulkan when the runtime
    /// offers XR_KHR_vulkan_enable2, else Direct3D 11 (d3d11: Windows build
    /// only).
    #[arg(long, value_enum, value_name = "API")]
    pub graphics: Option<Backend>,
    /// Print a line on stdout as things happen, for scripts to follow:
    /// `state NAME` for each session state, `frame N` for each frame drawn,
    /// `reseed CAUSE SEED` for each reseed, `placed CAUSE X Y Z SCALE`
    /// for each settled placement.
    #[arg(long)]
    pub progress: bool,
    /// The folder holding the kept placement (placement.json); default:
    /// $XDG_STATE_HOME/holoterrain (Windows: %LOCALAPPDATA%\holoterrain).
    #[arg(long, value_name = "DIR")]
    pub state: Option<PathBuf>,
    /// End the run when a call of the frame loop into the OpenXR runtime
    /// has not returned for this many seconds (the report is written, one
    /// line names the call, exit status 4); 0 turns the limit off. Either
    /// way, Ctrl-C ends a run whose runtime call has been blocked for 2 s.
    #[arg(
        long,
        value_name = "SECONDS",
        default_value_t = 10,
        allow_negative_numbers = true,
        value_parser = clap::value_parser!(u64).range(0..=MAX_RUNTIME_TIMEOUT_S)
    )]
    pub runtime_timeout: u64,
    #[command(flatten)]
    pub shared: crate::net::open::ShareArgs,
}

/// The longest `--runtime-timeout`, seconds: a day.
const MAX_RUNTIME_TIMEOUT_S: u64 = 86_400;

impl XrArgs {
    /// `--runtime-timeout` as the watchdog's limit; `None` when off.
    pub(super) fn runtime_limit(&self) -> Option<Duration> {
        (self.runtime_timeout > 0).then(|| Duration::from_secs(self.runtime_timeout))
    }

    /// Whom to stream to with Holographic Remoting, if anyone.
    pub(super) fn peer(&self) -> Option<Peer> {
        match (&self.remote, &self.listen) {
            (Some(address), _) => Some(Peer::Player(address.clone())),
            (None, Some(address)) => Some(Peer::Listen(address.clone())),
            (None, None) => None,
        }
    }

    /// The remoting flag given, for messages.
    pub(super) fn remoting_flag(&self) -> &'static str {
        if self.listen.is_some() {
            "--listen"
        } else {
            "--remote"
        }
    }
}
