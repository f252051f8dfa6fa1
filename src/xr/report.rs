//! The machine-readable run report of an OpenXR session.

use std::path::Path;

use serde::Serialize;

use super::error::XrError;

/// Median, 95th percentile and maximum of a per-frame duration, in ms.
#[derive(Debug, Clone, Copy, Default, PartialEq, Serialize)]
pub struct TimingStats {
    /// Median.
    pub median: f64,
    /// 95th percentile (nearest rank).
    pub p95: f64,
    /// Maximum.
    pub max: f64,
}

impl TimingStats {
    /// Summarises samples in milliseconds; zeros when there are none.
    pub fn from_samples(samples: &[f64]) -> Self {
        if samples.is_empty() {
            return Self::default();
        }
        let mut sorted = samples.to_vec();
        sorted.sort_by(f64::total_cmp);
        let rank = |fraction: f64| {
            let index = (fraction * sorted.len() as f64).ceil() as usize;
            sorted[index.clamp(1, sorted.len()) - 1]
        };
        Self { median: rank(0.5), p95: rank(0.95), max: sorted[sorted.len() - 1] }
    }
}

/// What an OpenXR run did.
#[derive(Debug, Clone, Default, Serialize)]
pub struct XrReport {
    /// Frames rendered and submitted with a projection layer.
    pub frames: u64,
    /// Seconds from the first to the last predicted display time.
    pub seconds: f64,
    /// Session states in the order the runtime reported them, e.g. "READY".
    pub session_states: Vec<String>,
    /// Runtime name and version.
    pub runtime: String,
    /// The headset system's name.
    pub system: String,
    /// Optional extensions enabled (XR_KHR_vulkan_enable2 is always on).
    pub extensions_enabled: Vec<String>,
    /// Optional extensions the runtime did not offer.
    pub extensions_missing: Vec<String>,
    /// Environment blend mode used, e.g. "OPAQUE" or "ADDITIVE".
    pub blend_mode: String,
    /// Reference space used: "UNBOUNDED_MSFT" or "LOCAL".
    pub reference_space: String,
    /// Colour and depth swapchain formats, e.g. "R8G8B8A8_SRGB".
    pub swapchain_formats: Vec<String>,
    /// Select presses seen per hand (left, right) while focused.
    pub select_presses: [u64; 2],
    /// Per-frame CPU time of the whole frame between xrWaitFrame's return and xrEndFrame, ms.
    pub cpu_ms: CpuTimes,
    /// OpenXR plus Vulkan validation messages; null when validation is off.
    pub validation_messages: Option<u64>,
    /// OpenXR core-validation / debug-utils messages; null when not listening.
    pub openxr_validation_messages: Option<u64>,
    /// Vulkan validation-layer messages; null when the layer is off.
    pub vulkan_validation_messages: Option<u64>,
}

/// Per-frame CPU times.
#[derive(Debug, Clone, Copy, Default, Serialize)]
pub struct CpuTimes {
    /// From xrWaitFrame's return to xrEndFrame's return.
    pub frame: TimingStats,
}

impl XrReport {
    /// Writes the report as pretty JSON, replacing `path` atomically so no
    /// half-written file is left behind.
    pub fn write(&self, path: &Path) -> Result<(), XrError> {
        let report_error = |source| XrError::Report { path: path.to_owned(), source };
        let json = serde_json::to_string_pretty(self)
            .map_err(|error| report_error(std::io::Error::other(error)))?;
        let directory = path.parent().filter(|parent| !parent.as_os_str().is_empty());
        let mut temporary = tempfile::NamedTempFile::new_in(directory.unwrap_or(Path::new(".")))
            .map_err(report_error)?;
        std::io::Write::write_all(&mut temporary, json.as_bytes()).map_err(report_error)?;
        temporary.persist(path).map_err(|error| report_error(error.error))?;
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn timing_stats_take_median_p95_and_max() {
        let samples: Vec<f64> = (1..=100).map(f64::from).collect();
        let stats = TimingStats::from_samples(&samples);
        assert_eq!(stats, TimingStats { median: 50.0, p95: 95.0, max: 100.0 });
    }

    #[test]
    fn timing_stats_of_no_samples_are_zero() {
        assert_eq!(TimingStats::from_samples(&[]), TimingStats::default());
    }

    #[test]
    fn report_is_written_as_json_with_the_frame_count() {
        let directory = tempfile::tempdir().unwrap();
        let path = directory.path().join("report.json");
        let report = XrReport { frames: 7, ..XrReport::default() };
        report.write(&path).unwrap();
        let value: serde_json::Value =
            serde_json::from_str(&std::fs::read_to_string(&path).unwrap()).unwrap();
        assert_eq!(value["frames"], 7);
        assert!(value["validation_messages"].is_null());
    }
}
