//! `holoterrain sim`'s options and their checks: every bad value is one line naming its flag, found before the output folder is touched.
use std::path::PathBuf;

use super::capture;
use super::device::Device;
use super::error::SimError;
use crate::app::driver::WorldArgs;
use crate::net::open::ShareArgs;
use crate::render::backend::Backend;
use crate::render::scene::Display;
use crate::size::Size;

/// Largest heightmap side the simulator accepts.
pub const MAX_MAP_SIDE: usize = 8193;
/// Smallest and largest per-eye image side.
pub const EYE_SIDE_RANGE: (u32, u32) = (16, 4096);
/// Frame rates the simulator accepts, Hz.
pub const RATE_RANGE: (f64, f64) = (10.0, 1000.0);
/// Most frames one run may simulate.
pub const MAX_FRAMES: u64 = 1_000_000;

/// Options of `holoterrain sim`; with none it runs a short demo (growth,
/// one air-tap reseed half way, more growth) into `sim-out/`.
#[derive(Debug, Clone, PartialEq, clap::Args)]
pub struct SimArgs {
    /// Frames to simulate (and as many more as the script's waits take).
    #[arg(long, default_value_t = 360)]
    pub frames: u64,
    /// Virtual display rate, Hz.
    #[arg(long, default_value_t = 60.0)]
    pub rate: f64,
    /// The world the run starts from.
    #[command(flatten)]
    pub world: WorldArgs,
    /// The headset the eyes and pictures are of: desktop (45° across per
    /// eye, the height from --resolution's aspect) or hololens2 (HoloLens
    /// 2's 43° × 29° per eye, its pictures of that aspect, captures of what
    /// the wearer sees).
    #[arg(long, value_enum, default_value_t = Device::Desktop)]
    pub device: Device,
    /// Image size of each eye, WIDTHxHEIGHT pixels [with --device
    /// hololens2: 320x210, and any size must be about 3:2].
    #[arg(
        long,
        default_value = "320x240",
        default_value_if("device", "hololens2", "320x210")
    )]
    pub resolution: Size,
    /// Gesture script (see docs/simulator.md); default: one air-tap at half time.
    #[arg(long)]
    pub script: Option<PathBuf>,
    /// Replay a command log (an earlier run's commands.jsonl) instead of a
    /// gesture script: its seed, size and commands, on the frames they
    /// applied in; give the run's other flags (--frames, --rate) again.
    #[arg(long, value_name = "FILE", conflicts_with_all = ["script", "recipe", "seed", "size", "share", "join"])]
    pub replay: Option<PathBuf>,
    /// Output folder.
    #[arg(long, default_value = "sim-out")]
    pub out: PathBuf,
    /// Write a PNG every N frames (the last frame is always written).
    #[arg(long, default_value_t = 30)]
    pub every: u64,
    /// Also write growth.png, an animated PNG of the snapshots.
    #[arg(long)]
    pub apng: bool,
    /// Also write clicks.wav: the controls' clicks as the wearer hears
    /// them (16-bit stereo, 48 kHz) on the display clock, each placed from
    /// its button relative to the head (docs/simulator.md).
    #[arg(long)]
    pub sound: bool,
    /// Turn on the Vulkan validation layer (with d3d11: the Direct3D 11
    /// debug layer) and count its messages.
    #[arg(long)]
    pub validation: bool,
    /// Graphics API that draws the frames; d3d11 only in the Windows build.
    #[arg(long, value_enum, default_value_t = Backend::Vulkan)]
    pub renderer: Backend,
    /// The room's surfaces, one `surface X Y Z W D` a line (see
    /// docs/simulator.md); without it the room has none.
    #[arg(long, value_name = "FILE")]
    pub room: Option<PathBuf>,
    /// Keep the hologram's placement in DIR/placement.json after every
    /// move, turn or scale, and start from it next time; without it every
    /// run starts afresh.
    #[arg(long, value_name = "DIR")]
    pub state: Option<PathBuf>,
    /// The display the frames are drawn for: additive (see-through, as
    /// HoloLens 2 and the test runtime) lifts the shaded slopes; alpha-blend
    /// (the room through a headset's cameras) too, but fades what is near
    /// the eyes by alpha, not to black; opaque (a VR headset) has a normal
    /// ambient.
    #[arg(long, value_enum, default_value_t = Display::Additive)]
    pub blend: Display,
    /// Also write capture-NNNNN.png beside every frame-NNNNN.png: the
    /// hologram from a photo camera at the head (about 64° across; with
    /// --device hololens2 the wearer's 43° × 29° from between the eyes),
    /// RGBA with the background transparent; and its depth,
    /// depth-NNNNN.png (16-bit grey: 0 where nothing was drawn, nearer brighter).
    #[arg(long)]
    pub capture: bool,
    /// Draw the hologram without the wearer's own controls (menus, rays,
    /// cursors, the hand coach, toasts) in the frames and captures: the
    /// world alone, as a replay of the run's log draws it.
    #[arg(long)]
    pub hide_controls: bool,
    /// The capture's size, WIDTHxHEIGHT pixels [with --device hololens2:
    /// 1280x840, and any size must be about 3:2].
    #[arg(
        long,
        value_name = "WxH",
        default_value = "1280x720",
        default_value_if("device", "hololens2", "1280x840")
    )]
    pub capture_size: Size,
    #[command(flatten)]
    pub shared: ShareArgs,
}

impl Default for SimArgs {
    fn default() -> Self {
        SimArgs {
            frames: 360,
            rate: 60.0,
            world: WorldArgs::default(),
            device: Device::Desktop,
            resolution: Size {
                width: 320,
                height: 240,
            },
            script: None,
            replay: None,
            out: PathBuf::from("sim-out"),
            every: 30,
            apng: false,
            sound: false,
            validation: false,
            renderer: Backend::Vulkan,
            room: None,
            state: None,
            blend: Display::Additive,
            capture: false,
            hide_controls: false,
            capture_size: Size {
                width: capture::DEFAULT_CAPTURE_SIZE.0,
                height: capture::DEFAULT_CAPTURE_SIZE.1,
            },
            shared: ShareArgs::default(),
        }
    }
}

/// Checks every flag, naming the first that is out of range.
pub fn validate(args: &SimArgs) -> Result<(), SimError> {
    if !(1..=MAX_FRAMES).contains(&args.frames) {
        return Err(SimError::invalid(
            "frames",
            format!("must be 1 to {MAX_FRAMES}, got {}", args.frames),
        ));
    }
    if !(RATE_RANGE.0..=RATE_RANGE.1).contains(&args.rate) {
        return Err(SimError::invalid(
            "rate",
            format!(
                "must be {} to {} Hz, got {}",
                RATE_RANGE.0, RATE_RANGE.1, args.rate
            ),
        ));
    }
    if let Some(problem) = map_size_problem(args.world.size) {
        return Err(SimError::invalid("size", problem));
    }
    let eye_sides = EYE_SIDE_RANGE.0..=EYE_SIDE_RANGE.1;
    if !eye_sides.contains(&args.resolution.width) || !eye_sides.contains(&args.resolution.height) {
        return Err(SimError::invalid(
            "resolution",
            format!(
                "each side must be {} to {} pixels, got {}",
                EYE_SIDE_RANGE.0, EYE_SIDE_RANGE.1, args.resolution
            ),
        ));
    }
    if !eye_sides.contains(&args.capture_size.width)
        || !eye_sides.contains(&args.capture_size.height)
    {
        return Err(SimError::invalid(
            "capture-size",
            format!(
                "each side must be {} to {} pixels, got {}",
                EYE_SIDE_RANGE.0, EYE_SIDE_RANGE.1, args.capture_size
            ),
        ));
    }
    if let Some(problem) = args.device.size_problem(args.resolution) {
        return Err(SimError::invalid("resolution", problem));
    }
    if let Some(problem) = args
        .device
        .size_problem(args.capture_size)
        .filter(|_| args.capture)
    {
        return Err(SimError::invalid("capture-size", problem));
    }
    if args.every == 0 {
        return Err(SimError::invalid("every", "must be at least 1"));
    }
    if args.world.forget_placement && args.state.is_none() {
        return Err(SimError::invalid(
            "forget-placement",
            "needs --state DIR: without it the simulator keeps no placement to forget",
        ));
    }
    #[cfg(not(windows))]
    if args.renderer == Backend::D3d11 {
        return Err(SimError::invalid(
            "renderer",
            "d3d11 exists only in the Windows build (holoterrain.exe); use --renderer vulkan",
        ));
    }
    Ok(())
}

/// What is wrong with a heightmap of `size`, if anything.
pub(super) fn map_size_problem(size: Size) -> Option<String> {
    let map_sides = 2..=MAX_MAP_SIDE as u32;
    (!map_sides.contains(&size.width) || !map_sides.contains(&size.height))
        .then(|| format!("each side must be 2 to {MAX_MAP_SIDE} samples, got {size}"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn zero_frames_are_rejected_naming_the_flag() {
        let args = SimArgs {
            frames: 0,
            ..SimArgs::default()
        };
        assert!(
            validate(&args)
                .unwrap_err()
                .to_string()
                .starts_with("--frames:")
        );
    }

    #[test]
    fn a_one_sample_map_side_is_rejected() {
        let args = SimArgs {
            world: WorldArgs {
                size: Size {
                    width: 1,
                    height: 64,
                },
                ..WorldArgs::default()
            },
            ..SimArgs::default()
        };
        assert!(
            validate(&args)
                .unwrap_err()
                .to_string()
                .starts_with("--size:")
        );
    }

    #[test]
    fn an_absurd_rate_is_rejected() {
        for rate in [0.0, 5000.0, f64::NAN] {
            let args = SimArgs {
                rate,
                ..SimArgs::default()
            };
            assert!(
                validate(&args)
                    .unwrap_err()
                    .to_string()
                    .starts_with("--rate:")
            );
        }
    }

    #[test]
    fn a_huge_resolution_is_rejected() {
        let args = SimArgs {
            resolution: Size {
                width: 10_000,
                height: 240,
            },
            ..SimArgs::default()
        };
        assert!(
            validate(&args)
                .unwrap_err()
                .to_string()
                .starts_with("--resolution:")
        );
    }

    #[test]
    fn a_tiny_capture_is_rejected_naming_the_flag() {
        let args = SimArgs {
            capture: true,
            capture_size: Size {
                width: 8,
                height: 720,
            },
            ..SimArgs::default()
        };
        assert!(
            validate(&args)
                .unwrap_err()
                .to_string()
                .starts_with("--capture-size:")
        );
    }

    #[test]
    fn a_hololens2_picture_of_another_aspect_is_rejected_naming_the_flag() {
        let hololens = SimArgs {
            device: Device::Hololens2,
            resolution: Size {
                width: 360,
                height: 240,
            },
            ..SimArgs::default()
        };
        assert!(validate(&hololens).is_ok());
        let four_by_three = SimArgs {
            resolution: Size {
                width: 320,
                height: 240,
            },
            ..hololens.clone()
        };
        assert!(
            validate(&four_by_three)
                .unwrap_err()
                .to_string()
                .starts_with("--resolution: --device hololens2 shows 43° × 29°")
        );
        // The capture's size counts only when there is a capture.
        let capture = SimArgs {
            capture: true,
            ..hololens
        };
        assert!(
            validate(&capture)
                .unwrap_err()
                .to_string()
                .starts_with("--capture-size:")
        );
    }

    #[test]
    fn hololens2_brings_its_own_picture_sizes_unless_given() {
        use clap::Parser;
        let parse = |args: &[&str]| {
            let cli =
                crate::cli::Cli::try_parse_from([&["holoterrain", "sim"], args].concat()).unwrap();
            match cli.command {
                crate::cli::Command::Sim(sim) => sim,
                _ => unreachable!(),
            }
        };
        let desktop = parse(&[]);
        assert_eq!(desktop, SimArgs::default());
        let hololens = parse(&["--device", "hololens2"]);
        assert_eq!(
            (
                hololens.resolution.to_string(),
                hololens.capture_size.to_string()
            ),
            ("320x210".into(), "1280x840".into())
        );
        assert!(
            validate(&SimArgs {
                capture: true,
                ..hololens
            })
            .is_ok()
        );
        let given = parse(&["--device", "hololens2", "--resolution", "360x240"]);
        assert_eq!(given.resolution.to_string(), "360x240");
    }

    #[test]
    fn defaults_are_valid() {
        assert!(validate(&SimArgs::default()).is_ok());
    }
}
