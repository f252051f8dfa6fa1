//! The machine-readable run report of an OpenXR session.

use std::path::Path;

use serde::Serialize;

use super::error::XrError;
use super::session_end::SessionEnd;
use crate::app::report::RunReport;
use crate::atomic_file;

/// What an OpenXR run did: the simulator's report.json fields plus the
/// session's own (states, runtime, extensions, formats).
#[derive(Debug, Clone, Default, Serialize)]
pub struct XrReport {
    /// The fields every run reports (frames, seeds, reseeds, timings...);
    /// `frames` counts frames submitted with a projection layer.
    #[serde(flatten)]
    pub run: RunReport,
    /// OpenXR core-validation / debug-utils messages; null when not listening.
    pub openxr_validation_messages: Option<u64>,
    /// Vulkan validation-layer messages; null when the layer is off.
    pub vulkan_validation_messages: Option<u64>,
    /// Whether the OpenXR core validation layer was on.
    pub core_validation_layer: bool,
    /// Session states in the order the runtime reported them, e.g. "READY"
    /// (and "INSTANCE_LOSS_PENDING" when the runtime announced its end).
    pub session_states: Vec<String>,
    /// How the session ended, e.g. "frame_limit" or "instance_lost".
    pub ended: SessionEnd,
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
    /// Colour and depth swapchain formats, e.g. "R8G8B8A8_SRGB".
    pub swapchain_formats: Vec<String>,
    /// Where the room's surfaces came from: "XR_MSFT_scene_understanding" or "none".
    pub surfaces: String,
    /// Where the placement is kept between runs, e.g. "spatial anchor
    /// holoterrain.placement (scale in …)", "…/placement.json (STAGE)" or
    /// "nowhere: …".
    pub placement_kept: String,
}

impl XrReport {
    /// Writes the report as pretty JSON, replacing `path` atomically so no
    /// half-written file is left behind.
    pub fn write(&self, path: &Path) -> Result<(), XrError> {
        let report_error = |source| XrError::Report {
            path: path.to_owned(),
            source,
        };
        let json = serde_json::to_string_pretty(self)
            .map_err(|error| report_error(std::io::Error::other(error)))?;
        atomic_file::write(path, json.as_bytes()).map_err(report_error)?;
        Ok(())
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
