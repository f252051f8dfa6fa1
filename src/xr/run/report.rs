//! The machine-readable run report of an OpenXR session, and the report
//! so far that both the end of the run and the watchdog make it from.

use std::path::Path;
use std::sync::{Arc, Mutex, MutexGuard, OnceLock, PoisonError};

use serde::Serialize;

use crate::app::log::{COMMAND_LOG_FILE, CommandLog};
use crate::app::report::RunReport;
use crate::atomic_file;
use crate::net::{PeerRecord, ShareReport};
use crate::render::backend::{Backend, ValidationCounter};
use crate::xr::error::XrError;
use crate::xr::remoting::link::RemotingRecord;
use crate::xr::run::frame_loop::LoopRecorder;
use crate::xr::runtime::calls::longest_watched_call;
use crate::xr::runtime::instance::Runtime;
use crate::xr::runtime::validation::MessageCounter;
use crate::xr::session::SessionFacts;
use crate::xr::session_end::SessionEnd;

/// What an OpenXR run did: the simulator's report.json fields plus the
/// session's own (states, runtime, graphics API, remoting, extensions,
/// formats). Over Holographic Remoting a run may have had several
/// sessions, one per connection: states are listed across them, and the
/// system, blend mode, spaces and formats are the last session's.
#[derive(Debug, Clone, Default, Serialize)]
pub struct XrReport {
    /// The fields every run reports (frames, seeds, reseeds, timings...);
    /// `frames` counts frames submitted with a projection layer.
    #[serde(flatten)]
    pub run: RunReport,
    /// The run's command log, written beside the report (not in it).
    #[serde(skip)]
    pub command_log: Option<CommandLog>,
    /// OpenXR core-validation / debug-utils messages; null when not listening.
    pub openxr_validation_messages: Option<u64>,
    /// Vulkan validation-layer messages; null when the layer is off or the
    /// session drew with Direct3D 11.
    pub vulkan_validation_messages: Option<u64>,
    /// Direct3D 11 debug-layer messages; null when the layer is off or the
    /// session drew with Vulkan.
    pub d3d11_debug_messages: Option<u64>,
    /// The graphics API the session drew with: "vulkan" or "d3d11".
    pub graphics_api: String,
    /// Holographic Remoting: how the runtime was found, each connection
    /// and how it ended; null without remoting.
    pub remoting: Option<RemotingRecord>,
    /// Whether the OpenXR core validation layer was on.
    pub core_validation_layer: bool,
    /// Session states in the order the runtime reported them, e.g. "READY"
    /// (and "INSTANCE_LOSS_PENDING" when the runtime announced its end).
    pub session_states: Vec<String>,
    /// How the session ended, e.g. "frame_limit" or "instance_lost".
    pub ended: SessionEnd,
    /// The longest a runtime call of the loop took, of those that
    /// returned: what `--runtime-timeout` must stay above.
    pub longest_runtime_call: Option<RuntimeCallRecord>,
    /// Runtime name and version.
    pub runtime: String,
    /// The headset system's name.
    pub system: String,
    /// Optional extensions enabled (XR_KHR_vulkan_enable2 is always on).
    pub extensions_enabled: Vec<String>,
    /// Optional extensions the runtime did not offer.
    pub extensions_missing: Vec<String>,
    /// Whether hand joints were tracked (XR_EXT_hand_tracking on a system with hands).
    pub hand_tracking: bool,
    /// Whether the hologram was pinned with an XR_MSFT_spatial_anchor.
    pub anchored: bool,
    /// Environment blend mode used, e.g. "OPAQUE" or "ADDITIVE".
    pub blend_mode: String,
    /// Reference space used: "UNBOUNDED_MSFT" or "LOCAL".
    pub reference_space: String,
    /// Frames that also drew the first-person observer view, which Mixed
    /// Reality Capture records (0 without it, or while no capture ran).
    pub observer_frames: u64,
    /// The reprojection mode asked for (XR_MSFT_composition_layer_reprojection),
    /// e.g. "PLANAR_FROM_DEPTH"; `None` when none was.
    pub reprojection_mode: Option<String>,
    /// Colour and depth swapchain formats, e.g. "R8G8B8A8_SRGB".
    pub swapchain_formats: Vec<String>,
    /// Where the room's surfaces came from: "XR_MSFT_scene_understanding",
    /// "XR_EXT_plane_detection" or "none".
    pub surfaces: String,
    /// Where the placement is kept between runs, e.g. "spatial anchor
    /// holoterrain.placement (scale in …)", "…/placement.json (STAGE)" or
    /// "nowhere: …".
    pub placement_kept: String,
    /// The shared session (`--share`, `--join`); null outside one.
    pub share: Option<ShareReport>,
    /// Who took part in it (a peer lists the host, as peer 0).
    pub peers: Vec<PeerRecord>,
}

/// A runtime call and how long it took.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct RuntimeCallRecord {
    /// The OpenXR function.
    pub call: String,
    /// Seconds it took.
    pub seconds: f64,
}

impl XrReport {
    /// Writes the report as pretty JSON, replacing `path` atomically so no
    /// half-written file is left behind.
    /// Writes the report to `path` and the command log beside it.
    pub fn write(&self, path: &Path) -> Result<(), XrError> {
        let report_error = |source| XrError::Report {
            path: path.to_owned(),
            source,
        };
        let json = serde_json::to_string_pretty(self)
            .map_err(|error| report_error(std::io::Error::other(error)))?;
        self.write_command_log(path.parent().unwrap_or(Path::new("")))?;
        atomic_file::write(path, json.as_bytes()).map_err(report_error)?;
        Ok(())
    }

    /// Writes the command log into `folder` as `commands.jsonl`, when
    /// the run has one.
    pub fn write_command_log(&self, folder: &Path) -> Result<(), XrError> {
        let Some(log) = &self.command_log else {
            return Ok(());
        };
        let path = folder.join(COMMAND_LOG_FILE);
        std::fs::create_dir_all(folder)
            .and_then(|()| atomic_file::write(&path, log.to_jsonl().as_bytes()))
            .map_err(|source| XrError::Report { path, source })
    }
}

/// The report as the run gets along, from which the end of the run makes
/// its report, and the watchdog its own while the loop's thread is stuck in
/// a runtime call. Each part is set or locked only between runtime calls,
/// never across one, so the watchdog can always read them.
pub struct ReportSoFar {
    /// What the runtime and the session's set-up say (runtime, graphics
    /// API, system, extensions, blend mode, space, formats, remoting); the
    /// rest at its default.
    facts: Mutex<XrReport>,
    /// The graphics API the session draws with, which says whose count
    /// `graphics_validation` is.
    graphics: Backend,
    /// The frame loop's record, once the loop exists.
    recorder: OnceLock<Arc<Mutex<LoopRecorder>>>,
    /// OpenXR's validation messages, when a messenger listens.
    openxr_validation: Option<Arc<MessageCounter>>,
    /// The graphics API's validation messages, once the device is open and
    /// when its layer is on.
    graphics_validation: OnceLock<ValidationCounter>,
}

/// Locks `mutex`, also after a panic elsewhere poisoned it.
fn lock<T>(mutex: &Mutex<T>) -> MutexGuard<'_, T> {
    mutex.lock().unwrap_or_else(PoisonError::into_inner)
}

impl ReportSoFar {
    /// What `runtime` says: its name, the graphics API, the extensions,
    /// the validation layer and its message count.
    pub fn new(runtime: &Runtime) -> Self {
        ReportSoFar {
            facts: Mutex::new(XrReport {
                core_validation_layer: runtime.core_validation,
                runtime: runtime.runtime_name.clone(),
                graphics_api: runtime.graphics.name().to_owned(),
                extensions_enabled: runtime.enabled_names.clone(),
                extensions_missing: runtime.missing_names.clone(),
                ..XrReport::default()
            }),
            graphics: runtime.graphics,
            recorder: OnceLock::new(),
            openxr_validation: runtime.validation_counter(),
            graphics_validation: OnceLock::new(),
        }
    }

    /// The graphics API's validation message count (`None`: its layer is off).
    pub fn set_graphics_validation(&self, counter: Option<ValidationCounter>) {
        if let Some(counter) = counter {
            let _ = self.graphics_validation.set(counter);
        }
    }

    /// The frame loop's record.
    pub fn set_recorder(&self, recorder: Arc<Mutex<LoopRecorder>>) {
        let _ = self.recorder.set(recorder);
    }

    /// What the session's set-up says (with remoting, of the latest
    /// session).
    pub fn set_session(&self, session: &SessionFacts) {
        let mut facts = lock(&self.facts);
        facts.system = session.system_name.clone();
        facts.blend_mode = format!("{:?}", session.blend_mode);
        facts.hand_tracking = session.hand_tracking;
        facts.reference_space = session.reference_space.into();
        facts.reprojection_mode = session.reprojection.map(|mode| format!("{mode:?}"));
        facts.swapchain_formats = session.swapchain_formats.clone();
        facts.surfaces = session.surfaces.into();
        facts.placement_kept = session.placement_kept.clone();
    }

    /// What Holographic Remoting's connections were.
    pub fn set_remoting(&self, remoting: RemotingRecord) {
        lock(&self.facts).remoting = Some(remoting);
    }

    /// What the shared session did, and who took part.
    pub fn set_share(&self, share: ShareReport, peers: Vec<PeerRecord>) {
        let mut facts = lock(&self.facts);
        facts.share = Some(share);
        facts.peers = peers;
    }

    /// The report of the run as it stands, ended as `ended`.
    pub fn report(&self, ended: SessionEnd) -> XrReport {
        let record = self
            .recorder
            .get()
            .map(|recorder| lock(recorder).record())
            .unwrap_or_default();
        let openxr_validation_messages = self.openxr_validation.as_ref().map(|c| c.count());
        let graphics_messages = self.graphics_validation.get().map(|c| c.count());
        let validation_messages = match (openxr_validation_messages, graphics_messages) {
            (None, None) => None,
            (openxr, graphics) => Some(openxr.unwrap_or(0) + graphics.unwrap_or(0)),
        };
        let (vulkan_validation_messages, d3d11_debug_messages) = match self.graphics {
            Backend::Vulkan => (graphics_messages, None),
            Backend::D3d11 => (None, graphics_messages),
        };
        XrReport {
            run: RunReport {
                validation_messages,
                ..record.run
            },
            openxr_validation_messages,
            vulkan_validation_messages,
            d3d11_debug_messages,
            session_states: record.session_states,
            anchored: record.anchored,
            command_log: record.command_log,
            observer_frames: record.observer_frames,
            ended,
            longest_runtime_call: longest_watched_call().map(|longest| RuntimeCallRecord {
                call: longest.name.into(),
                seconds: longest.took.as_secs_f64(),
            }),
            ..lock(&self.facts).clone()
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn report_is_written_as_json_with_the_frame_count() {
        let directory = tempfile::tempdir().unwrap();
        let path = directory.path().join("report.json");
        let report = XrReport {
            run: RunReport {
                frames: 7,
                ..RunReport::default()
            },
            ..XrReport::default()
        };
        report.write(&path).unwrap();
        let value: serde_json::Value =
            serde_json::from_str(&std::fs::read_to_string(&path).unwrap()).unwrap();
        assert_eq!(value["frames"], 7);
        assert!(value["validation_messages"].is_null());
    }

    #[test]
    fn the_report_says_how_the_session_ended() {
        let directory = tempfile::tempdir().unwrap();
        let path = directory.path().join("report.json");
        let report = XrReport {
            ended: SessionEnd::InstanceLost,
            ..XrReport::default()
        };
        report.write(&path).unwrap();
        let value: serde_json::Value =
            serde_json::from_str(&std::fs::read_to_string(&path).unwrap()).unwrap();
        assert_eq!(value["ended"], "instance_lost");
    }
}
