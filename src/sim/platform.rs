//! The simulator as the run loop's platform: the offscreen renderers it draws each eye with (and the observer camera's with `--capture`), the PNG snapshots (with the capture's depth) and APNG it writes, the picture a save keeps, the placement kept in `--state`, the clicks it records, and its lines.
use std::path::PathBuf;

use glam::Vec3;

use super::args::SimArgs;
use super::capture;
use super::error::SimError;
use super::output::{self, ApngWriter};
use crate::app::FrameOutput;
use crate::app::driver::FrameDriver;
use crate::app::kept::{self, KeptIn, KeptPlacement};
use crate::app::placement::{Placement, PlacementCause};
use crate::app::run::Platform;
use crate::app::save::Picture;
use crate::input::Pose;
use crate::render::backend::{OffscreenOptions, StereoRenderer};
use crate::render::offscreen;
use crate::render::scene::{FrameScene, UiLayer};
use crate::sound::{Recording, Sound};

/// What the simulator does for the run loop each frame.
pub(super) struct SimPlatform {
    /// The eyes' renderer and the observer camera's.
    pub renderers: Renderers,
    /// The clicks heard, with `--sound`.
    pub sound: Option<Recording>,
    /// Where the placement is kept (`--state`).
    placement_file: Option<PathBuf>,
    /// The frame's display time, for the clicks.
    pub time_ns: i64,
    /// Whether the wearer's controls are left out of the pictures.
    hide_controls: bool,
}

impl SimPlatform {
    /// Opens the renderers for a map of `grid` samples.
    pub fn open(
        args: &SimArgs,
        grid: (usize, usize),
        placement_file: Option<PathBuf>,
    ) -> Result<Self, SimError> {
        Ok(SimPlatform {
            renderers: open_renderers(args, grid)?,
            sound: args.sound.then(Recording::default),
            placement_file,
            time_ns: 0,
            hide_controls: args.hide_controls,
        })
    }
}

impl Platform for SimPlatform {
    type Error = SimError;

    fn draw(&mut self, scene: &FrameScene<'_>) -> Result<(), SimError> {
        Ok(self.renderers.0.render(&FrameScene {
            ui: if self.hide_controls {
                UiLayer::default()
            } else {
                scene.ui
            },
            ..*scene
        })?)
    }

    fn picture(&mut self) -> Result<Option<Picture>, SimError> {
        let image = self.renderers.0.read_back()?;
        Ok(Some(Picture {
            width: image.width * 2,
            height: image.height,
            rgb: output::side_by_side_rgb(&image),
        }))
    }

    fn placed(&mut self, placement: &Placement, cause: PlacementCause) -> Result<(), SimError> {
        if let Some(path) = &self.placement_file
            && cause.is_manipulation()
        {
            kept::save(path, &KeptPlacement::of(placement, KeptIn::SimulatorRoom))
                .map_err(SimError::State)?;
        }
        Ok(())
    }

    fn sound(&mut self, sound: Sound, at: Vec3, head: Option<Pose>) {
        if let Some(recording) = self.sound.as_mut() {
            recording.play(sound, self.time_ns, at, head);
        }
    }

    fn shared_line(&mut self, line: String) {
        eprintln!("share: {line}");
    }
}

/// Whether `frame` is written as a PNG (and into the APNG): every
/// `every`th, and the last of a run of `frames` (none while a wait holds).
pub(super) fn is_snapshot(frame: u64, every: u64, frames: Option<u64>) -> bool {
    frame.is_multiple_of(every) || frames == Some(frame + 1)
}

/// The renderers a run draws with: the eyes', and with `--capture` the
/// observer camera's, which has its own images (both "eyes" are its one
/// view).
pub(super) type Renderers = (Box<dyn StereoRenderer>, Option<Box<dyn StereoRenderer>>);

/// Opens the [`Renderers`] for a map of `grid` samples.
pub(super) fn open_renderers(args: &SimArgs, grid: (usize, usize)) -> Result<Renderers, SimError> {
    let options = OffscreenOptions {
        eye_width: args.resolution.width,
        eye_height: args.resolution.height,
        grid_width: grid.0 as u32,
        grid_height: grid.1 as u32,
        validation: args.validation,
    };
    let renderer = offscreen::open(args.renderer, options)?;
    let capture_renderer = if args.capture {
        Some(offscreen::open(
            args.renderer,
            OffscreenOptions {
                eye_width: args.capture_size.width,
                eye_height: args.capture_size.height,
                ..options
            },
        )?)
    } else {
        None
    };
    Ok((renderer, capture_renderer))
}

/// `growth.png`'s writer, with `--apng`.
pub(super) fn open_apng(args: &SimArgs) -> Result<Option<ApngWriter>, SimError> {
    if !args.apng {
        return Ok(None);
    }
    let snapshots = (0..args.frames)
        .filter(|&frame| is_snapshot(frame, args.every, Some(args.frames)))
        .count();
    let delay = (
        args.every.min(u16::MAX as u64) as u16,
        args.rate.round() as u16,
    );
    ApngWriter::create(
        &args.out,
        args.resolution.width * 2,
        args.resolution.height,
        u32::try_from(snapshots).unwrap_or(u32::MAX),
        delay,
    )
    .map(Some)
}

/// Writes `frame`, just drawn, as frame-NNNNN.png (and into the APNG),
/// and with `--capture` the observer camera's picture from `head` and its
/// depth beside it.
pub(super) fn write_snapshot(
    args: &SimArgs,
    frame: u64,
    (renderer, capture_renderer): &mut Renderers,
    apng: Option<&mut ApngWriter>,
    (driver, output): (&FrameDriver, &FrameOutput),
    head: Option<Pose>,
) -> Result<(), SimError> {
    let image = renderer.read_back()?;
    let rgb = output::side_by_side_rgb(&image);
    let name = output::frame_file_name(frame);
    let png = output::encode_png(image.width * 2, image.height, &rgb, &args.out.join(&name))?;
    output::write_atomically(&args.out, &name, &png)?;
    if let Some(apng) = apng {
        apng.add_frame(&rgb)?;
    }
    let (Some(capture_renderer), Some(head)) = (capture_renderer.as_mut(), head) else {
        return Ok(());
    };
    let camera = args
        .device
        .capture_view(&head, args.capture_size)
        .render_view();
    if let Some(scene) = driver.scene_with_every_height(output) {
        capture_renderer.render(&FrameScene {
            views: [camera; 2],
            ui: if args.hide_controls {
                UiLayer::default()
            } else {
                scene.ui
            },
            ..scene
        })?;
        let image = capture_renderer.read_back()?;
        let name = capture::capture_file_name(frame);
        let png = capture::encode_rgba_png(
            image.width,
            image.height,
            &image.left,
            &args.out.join(&name),
        )?;
        output::write_atomically(&args.out, &name, &png)?;
        // The depth drawn with it, as an OpenXR depth layer would submit it.
        let depth = capture_renderer.read_back_depth()?;
        let name = capture::depth_file_name(frame);
        let png = capture::encode_depth_png(
            depth.width,
            depth.height,
            &depth.left,
            &args.out.join(&name),
        )?;
        output::write_atomically(&args.out, &name, &png)?;
    }
    Ok(())
}

/// Drops the renderers and finishes the APNG; the validation messages
/// (with `--validation`), counted once the renderers are dropped, so that
/// messages of the teardown count too.
pub(super) fn close(
    renderers: Renderers,
    apng: Option<ApngWriter>,
) -> Result<Option<u64>, SimError> {
    let (renderer, capture_renderer) = renderers;
    let validation = renderer.validation_counter();
    let capture_validation = capture_renderer
        .as_ref()
        .and_then(|renderer| renderer.validation_counter());
    drop(renderer);
    drop(capture_renderer);
    if let Some(apng) = apng {
        apng.finish()?;
    }
    Ok(validation
        .map(|counter| counter.count() + capture_validation.map_or(0, |capture| capture.count())))
}
