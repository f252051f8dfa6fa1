//! What the runtime saw, written to `HOLOTERRAIN_TESTRT_OUT`:
//! `runtime-report.json` at xrDestroyInstance (graphics API, frames
//! submitted, formats chosen, blend mode, session states, haptics,
//! remoting, speech, violations, scenes computed, the reprojection modes
//! listed and asked for, the depth's near and far planes, the anchor
//! store's names)
//! and `submitted-NNNNN.png`, the submitted colour
//! images read back, both eyes side by side as the simulator writes its
//! frames. Every file is written whole or not at all.

use std::path::PathBuf;

use holoterrain::app::report::PoseRecord;
use holoterrain::atomic_file;
use holoterrain::render::StereoImage;
use holoterrain::sim::output::{encode_png, side_by_side_rgb};
use serde::Serialize;

use crate::remoting::RemotingSummary;
use crate::speech::SpeechSummary;
use crate::state::Runtime;

/// The report's file name.
pub const REPORT_FILE: &str = "runtime-report.json";

/// The file name of submitted frame `frame`'s image.
pub fn image_name(frame: u64) -> String {
    format!("submitted-{frame:05}.png")
}

/// The file name of the observer view's image of frame `frame`.
pub fn observer_image_name(frame: u64) -> String {
    format!("observer-{frame:05}.png")
}

/// Whether `name` is a file the runtime writes.
fn is_runtime_output(name: &str) -> bool {
    name == REPORT_FILE
        || ["submitted-", "observer-"].iter().any(|prefix| {
            name.strip_prefix(prefix)
                .and_then(|rest| rest.strip_suffix(".png"))
                .is_some_and(|digits| {
                    !digits.is_empty() && digits.bytes().all(|b| b.is_ascii_digit())
                })
        })
}

/// One xrApplyHapticFeedback call.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct HapticRecord {
    /// Frames submitted before it.
    pub frame: u64,
    /// The subaction path, e.g. "/user/hand/right".
    pub hand: String,
    /// 0 to 1.
    pub amplitude: f32,
    /// Nanoseconds (negative: the runtime's minimum).
    pub duration_ns: i64,
    /// Hz (0: unspecified).
    pub frequency: f32,
    /// Whether a bound haptic output played it (hands have none).
    pub played: bool,
}

/// What the app asked of XR_MSFT_scene_marker.
#[derive(Debug, Default, Serialize)]
pub struct MarkerSummary {
    /// Scene computations that asked for markers.
    pub computes: u32,
    /// The marker components listed (with a capacity), by text, each once
    /// in the order first listed.
    pub listed: Vec<String>,
    /// The texts fetched with xrGetSceneMarkerDecodedStringMSFT, each once
    /// in the order first fetched.
    pub strings_fetched: Vec<String>,
    /// Calls of xrGetSceneMarkerRawDataMSFT that fetched the bytes.
    pub raw_data_fetched: u32,
    /// Marker locations asked for (xrLocateSceneComponentsMSFT).
    pub located: u32,
}

impl MarkerSummary {
    /// Notes a marker component listed.
    pub fn listed(&mut self, text: &str) {
        if !self.listed.iter().any(|seen| seen == text) {
            self.listed.push(text.to_owned());
        }
    }

    /// Notes a marker's text fetched.
    pub fn string_fetched(&mut self, text: &str) {
        if !self.strings_fetched.iter().any(|seen| seen == text) {
            self.strings_fetched.push(text.to_owned());
        }
    }
}

/// What the runtime records during a run.
#[derive(Debug, Default)]
pub struct Record {
    /// Where files go; nothing is written without it.
    out: Option<PathBuf>,
    /// "vulkan" or "d3d11", once a session exists.
    pub graphics_api: Option<&'static str>,
    /// Frames ended with at least one layer.
    pub frames_submitted: u64,
    /// The colour swapchain's format (the graphics API's value).
    pub color_format: Option<i64>,
    /// The depth swapchain's format.
    pub depth_format: Option<i64>,
    /// The blend mode of the submitted frames.
    pub blend_mode: Option<String>,
    /// Every session state, in order.
    pub session_states: Vec<String>,
    /// Every haptic pulse.
    pub haptics: Vec<HapticRecord>,
    /// Every rule the application broke.
    pub violations: Vec<String>,
    /// The images written.
    pub images: Vec<String>,
    /// What went wrong on the runtime's side (read-back, writing).
    pub problems: Vec<String>,
    /// Scenes computed (xrComputeNewSceneMSFT) for more than markers
    /// (planes); those for markers alone count in [`MarkerSummary::computes`].
    pub scene_computes: u32,
    /// What the app asked of XR_MSFT_scene_marker.
    pub markers: MarkerSummary,
    /// Each reprojection mode the frames asked for, in the order first asked
    /// ("none" for frames that asked for none).
    pub reprojection_modes: Vec<String>,
    /// Each distinct [nearZ, farZ] of the submitted depth, in order.
    pub depth_ranges: Vec<[f32; 2]>,
    /// Frames that submitted a layer for the observer view.
    pub observer_frames: u64,
    /// The observer images written.
    pub observer_images: Vec<String>,
    /// Each swapchain created for the observer view
    /// (XrSecondaryViewConfigurationSwapchainCreateInfoMSFT chained), in
    /// order: `WxH colour` or `WxH depth`.
    pub observer_swapchains: Vec<String>,
}

/// runtime-report.json.
#[derive(Serialize)]
struct Report<'a> {
    runtime: &'static str,
    graphics_api: Option<&'static str>,
    frames_submitted: u64,
    color_format: Option<i64>,
    depth_format: Option<i64>,
    blend_mode: &'a Option<String>,
    session_states: &'a [String],
    haptics: &'a [HapticRecord],
    remoting: &'a RemotingSummary,
    speech: &'a SpeechSummary,
    violations: &'a [String],
    images: &'a [String],
    problems: &'a [String],
    scene_computes: u32,
    scene_markers: &'a MarkerSummary,
    reprojection_modes_listed: Vec<String>,
    reprojection_modes: &'a [String],
    depth_ranges: &'a [[f32; 2]],
    observer_frames: u64,
    observer_images: &'a [String],
    observer_swapchains: &'a [String],
    anchor_store: Vec<String>,
    wearer: WearerSummary,
}

/// What the wearer's copy of the app core saw grow.
#[derive(Serialize)]
struct WearerSummary {
    /// The copy's current seed.
    seed: u64,
    /// Iterations of the current seed.
    iterations: usize,
    /// Where the copy placed the hologram.
    hologram_pose: Option<PoseRecord>,
    /// The hologram's scale in the copy.
    hologram_scale: Option<f32>,
}

impl Record {
    /// A record writing into `out`, made ready: created, and cleared of
    /// what an earlier run wrote there (so no stale image or report can
    /// pass for this run's).
    pub fn open(out: Option<PathBuf>) -> Result<Self, String> {
        if let Some(dir) = &out {
            let failed = |error: std::io::Error| {
                format!(
                    "{}: cannot use {}: {error}",
                    crate::config::OUT_VARIABLE,
                    dir.display()
                )
            };
            std::fs::create_dir_all(dir).map_err(failed)?;
            for entry in std::fs::read_dir(dir).map_err(failed)? {
                let entry = entry.map_err(failed)?;
                if entry.file_name().to_str().is_some_and(is_runtime_output) {
                    std::fs::remove_file(entry.path()).map_err(failed)?;
                }
            }
        }
        Ok(Self {
            out,
            ..Self::default()
        })
    }

    /// Notes what a submitted frame's projection layer asked for: its
    /// reprojection mode and its depth's near and far planes.
    pub fn note_projection(
        &mut self,
        layers: &[crate::layers::Layer],
        reprojection: Option<openxr_sys::ReprojectionModeMSFT>,
    ) {
        let mode = reprojection.map_or_else(|| "none".to_owned(), crate::reprojection::mode_name);
        if !self.reprojection_modes.contains(&mode) {
            self.reprojection_modes.push(mode);
        }
        for layer in layers {
            if let crate::layers::Layer::Projection { views, .. } = layer {
                for depth in views.iter().filter_map(|view| view.depth.as_ref()) {
                    let range = [depth.near_z, depth.far_z];
                    if !self.depth_ranges.contains(&range) {
                        self.depth_ranges.push(range);
                    }
                }
            }
        }
    }

    /// Notes a problem on the runtime's side (stderr and the report).
    pub fn note_failure(&mut self, problem: String) {
        eprintln!("holoterrain-testrt: {problem}");
        self.problems.push(problem);
    }

    /// Writes submitted frame `frame`'s eyes (width, height, RGBA rows),
    /// left then right, side by side as `submitted-NNNNN.png`.
    pub fn write_frame(&mut self, frame: u64, eyes: &[(u32, u32, Vec<u8>)]) {
        let Some(dir) = self.out.clone() else {
            return;
        };
        let [(width, height, left), (right_width, right_height, right)] = eyes else {
            self.note_failure(format!(
                "frame {frame}: {} eyes read back, not 2",
                eyes.len()
            ));
            return;
        };
        if (width, height) != (right_width, right_height) {
            self.note_failure(format!("frame {frame}: the eyes' images differ in size"));
            return;
        }
        let image = StereoImage {
            width: *width,
            height: *height,
            left: left.clone(),
            right: right.clone(),
        };
        let name = image_name(frame);
        let path = dir.join(&name);
        let written = encode_png(width * 2, *height, &side_by_side_rgb(&image), &path)
            .map_err(|error| error.to_string())
            .and_then(|png| atomic_file::write(&path, &png).map_err(|error| error.to_string()));
        match written {
            Ok(()) => self.images.push(name),
            Err(error) => self.note_failure(format!("writing {}: {error}", path.display())),
        }
    }

    /// Writes the observer view's image of frame `frame` (`width`×`height`
    /// RGBA rows, alpha kept) as `observer-NNNNN.png`.
    pub fn write_observer(&mut self, frame: u64, width: u32, height: u32, rgba: &[u8]) {
        let Some(dir) = self.out.clone() else {
            return;
        };
        let name = observer_image_name(frame);
        let path = dir.join(&name);
        let written = holoterrain::sim::capture::encode_rgba_png(width, height, rgba, &path)
            .map_err(|error| error.to_string())
            .and_then(|png| atomic_file::write(&path, &png).map_err(|error| error.to_string()));
        match written {
            Ok(()) => self.observer_images.push(name),
            Err(error) => self.note_failure(format!("writing {}: {error}", path.display())),
        }
    }

    /// Writes runtime-report.json (nothing without an output folder).
    pub fn write(&self, runtime: &Runtime) -> Result<(), String> {
        let Some(dir) = &self.out else {
            return Ok(());
        };
        let app = runtime.wearer.app();
        let report = Report {
            runtime: crate::instance::RUNTIME_NAME,
            graphics_api: self.graphics_api,
            frames_submitted: self.frames_submitted,
            color_format: self.color_format,
            depth_format: self.depth_format,
            blend_mode: &self.blend_mode,
            session_states: &self.session_states,
            haptics: &self.haptics,
            remoting: runtime.remoting.summary(),
            speech: runtime.speech.summary(),
            violations: &self.violations,
            images: &self.images,
            problems: &self.problems,
            scene_computes: self.scene_computes,
            scene_markers: &self.markers,
            reprojection_modes_listed: runtime
                .reprojection_modes
                .iter()
                .map(|&mode| crate::reprojection::mode_name(mode))
                .collect(),
            reprojection_modes: &self.reprojection_modes,
            depth_ranges: &self.depth_ranges,
            observer_frames: self.observer_frames,
            observer_images: &self.observer_images,
            observer_swapchains: &self.observer_swapchains,
            anchor_store: runtime.anchor_store.names(),
            wearer: WearerSummary {
                seed: app.seed(),
                iterations: app.iterations_done(),
                hologram_pose: app.hologram_pose().map(PoseRecord::from),
                hologram_scale: app.placement().map(|placement| placement.scale),
            },
        };
        let path = dir.join(REPORT_FILE);
        let json = serde_json::to_vec_pretty(&report).map_err(|error| error.to_string())?;
        atomic_file::write(&path, &json)
            .map_err(|error| format!("cannot write {}: {error}", path.display()))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_the_runtimes_own_files_are_cleared() {
        assert!(is_runtime_output("runtime-report.json"));
        assert!(is_runtime_output(&image_name(42)));
        assert_eq!(image_name(42), "submitted-00042.png");
        for other in [
            "report.json",
            "frame-00000.png",
            "submitted-.png",
            "submitted-1a.png",
        ] {
            assert!(!is_runtime_output(other), "{other}");
        }
    }

    #[test]
    fn opening_clears_an_earlier_runs_files_and_keeps_the_rest() {
        let dir = tempfile::tempdir().unwrap();
        for name in ["runtime-report.json", "submitted-00000.png", "notes.txt"] {
            std::fs::write(dir.path().join(name), b"old").unwrap();
        }
        Record::open(Some(dir.path().to_owned())).unwrap();
        let left: Vec<String> = std::fs::read_dir(dir.path())
            .unwrap()
            .map(|entry| entry.unwrap().file_name().to_string_lossy().into_owned())
            .collect();
        assert_eq!(left, ["notes.txt"]);
    }

    #[test]
    fn a_frame_is_written_as_both_eyes_side_by_side() {
        let dir = tempfile::tempdir().unwrap();
        let mut record = Record::open(Some(dir.path().to_owned())).unwrap();
        let red = [255, 0, 0, 255].repeat(4);
        let blue = [0, 0, 255, 255].repeat(4);
        record.write_frame(7, &[(2, 2, red), (2, 2, blue)]);
        assert_eq!(record.images, ["submitted-00007.png"]);
        let decoder = png::Decoder::new(std::io::BufReader::new(
            std::fs::File::open(dir.path().join("submitted-00007.png")).unwrap(),
        ));
        let mut reader = decoder.read_info().unwrap();
        let mut pixels = vec![0; reader.output_buffer_size().unwrap()];
        let info = reader.next_frame(&mut pixels).unwrap();
        assert_eq!((info.width, info.height), (4, 2));
        assert_eq!(&pixels[..12], [255, 0, 0, 255, 0, 0, 0, 0, 255, 0, 0, 255]);
    }
}
