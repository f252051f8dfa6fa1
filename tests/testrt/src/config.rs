//! What the test asks of the runtime, from `HOLOTERRAIN_TESTRT_*`
//! environment variables read at xrCreateInstance: the wearer's script, the
//! room (its surfaces, played as scene-understanding planes), the display
//! (resolution, rate, real time or virtual), where the report, images and
//! anchor store go, remoting, the app's terrain (size, seed) the wearer's
//! copy of the app core must share, and a frame at which the runtime stops
//! answering. A bad value is one line naming the
//! variable, and xrCreateInstance fails.

use std::path::PathBuf;

use holoterrain::net::{DEFAULT_SHARE_PORT, JoinTarget};
use holoterrain::sim::room::{Room, RoomError};
use holoterrain::sim::script::{Action, Script, ScriptError};
use holoterrain::sim::{EYE_SIDE_RANGE, MAX_MAP_SIDE, RATE_RANGE};
use holoterrain::size::Size;
use holoterrain::xr::{RemoteAddress, VideoCodec};
use thiserror::Error;

/// The gesture script (`holoterrain sim --script`'s format).
pub const SCRIPT_VARIABLE: &str = "HOLOTERRAIN_TESTRT_SCRIPT";
/// The room (`holoterrain sim --room`'s format), offered as scene-understanding planes.
pub const ROOM_VARIABLE: &str = "HOLOTERRAIN_TESTRT_ROOM";
/// `ext`: offer the room's planes through XR_EXT_plane_detection instead
/// of XR_MSFT_scene_understanding (`msft`, the default, as HoloLens 2).
pub const PLANES_VARIABLE: &str = "HOLOTERRAIN_TESTRT_PLANES";
/// Recommended image size per eye, `WxH`.
pub const RESOLUTION_VARIABLE: &str = "HOLOTERRAIN_TESTRT_RESOLUTION";
/// Display rate, Hz.
pub const RATE_VARIABLE: &str = "HOLOTERRAIN_TESTRT_RATE";
/// `1`: xrWaitFrame paces frames to the wall clock instead of returning at once.
pub const REALTIME_VARIABLE: &str = "HOLOTERRAIN_TESTRT_REALTIME";
/// `CODE@HOST:PORT` of a shared session the app under test joins: the
/// wearer's copy of the app core follows it too, listening only.
pub const JOIN_VARIABLE: &str = "HOLOTERRAIN_TESTRT_JOIN";
/// The folder for runtime-report.json and the submitted images.
pub const OUT_VARIABLE: &str = "HOLOTERRAIN_TESTRT_OUT";
/// Read back every N-th submitted frame (and the last).
pub const EVERY_VARIABLE: &str = "HOLOTERRAIN_TESTRT_EVERY";
/// `HOST:PORT` of the emulated Remoting Player; offers XR_MSFT_holographic_remoting.
pub const REMOTING_VARIABLE: &str = "HOLOTERRAIN_TESTRT_REMOTING";
/// The video codecs the emulated Remoting Player decodes, comma-separated:
/// `h264`, `h265` (both unless told).
pub const PLAYER_CODECS_VARIABLE: &str = "HOLOTERRAIN_TESTRT_PLAYER_CODECS";
/// The video codecs the computer running the app encodes, as above.
pub const PC_CODECS_VARIABLE: &str = "HOLOTERRAIN_TESTRT_PC_CODECS";
/// The app's heightmap size (`holoterrain xr --size`), for the wearer's copy of the app core.
pub const SIZE_VARIABLE: &str = "HOLOTERRAIN_TESTRT_SIZE";
/// The app's first seed (`holoterrain xr --seed`), for the wearer's copy of the app core.
pub const SEED_VARIABLE: &str = "HOLOTERRAIN_TESTRT_SEED";
/// `N`: the runtime stops answering at xrWaitFrame for the session's frame
/// N (from 0), which then never returns, as a frozen runtime's would.
pub const HANG_VARIABLE: &str = "HOLOTERRAIN_TESTRT_HANG";
/// The reprojection modes xrEnumerateReprojectionModesMSFT lists, by name,
/// comma-separated (e.g. `DEPTH,ORIENTATION_ONLY`); unset: HoloLens 2's four.
pub const REPROJECTION_VARIABLE: &str = "HOLOTERRAIN_TESTRT_REPROJECTION";
/// `FIRST-LAST[,FIRST-LAST…]`: the first-person observer view (Mixed
/// Reality Capture) is active for frames FIRST to LAST (from 0); unset: never.
pub const OBSERVER_VARIABLE: &str = "HOLOTERRAIN_TESTRT_OBSERVER";
/// `WxH[,WxH…]`: the observer view's recommended image size from its first
/// activation on, from its second, and so on (the last holds); unset: 1280x720.
pub const OBSERVER_SIZE_VARIABLE: &str = "HOLOTERRAIN_TESTRT_OBSERVER_SIZE";
/// `WxH`: the observer view's recommended image size before it was first
/// active; unset: the same as [`OBSERVER_SIZE_VARIABLE`]'s.
pub const OBSERVER_START_SIZE_VARIABLE: &str = "HOLOTERRAIN_TESTRT_OBSERVER_START_SIZE";

/// HoloLens 2's default render target size per eye (Microsoft's
/// "Rendering in DirectX", supported resolutions on HoloLens 2).
pub const HOLOLENS_2_RESOLUTION: Size = Size {
    width: 1440,
    height: 936,
};
/// HoloLens 2's steady app frame rate, Hz.
pub const HOLOLENS_2_RATE: f64 = 60.0;
/// Frames between read-backs unless told otherwise (the simulator's `--every`).
pub const DEFAULT_EVERY: u64 = 30;
/// The app's default heightmap size and first seed (`holoterrain xr`'s).
pub const APP_DEFAULT_SIZE: Size = Size {
    width: 257,
    height: 257,
};

/// The runtime's settings.
#[derive(Debug, Clone)]
pub struct Config {
    /// The wearer's gesture script (empty without one).
    pub script: Script,
    /// The room (no surfaces without one).
    pub room: Room,
    /// Recommended image size per eye.
    pub resolution: Size,
    /// Display rate, Hz.
    pub rate: f64,
    /// Whether xrWaitFrame paces to the wall clock.
    pub realtime: bool,
    /// Where the report and images go; nothing is written without it.
    pub out: Option<PathBuf>,
    /// Read back every N-th submitted frame.
    pub every: u64,
    /// The emulated Remoting Player's address.
    pub remoting: Option<RemoteAddress>,
    /// The codecs the emulated player decodes.
    pub player_codecs: Vec<VideoCodec>,
    /// The codecs the computer encodes.
    pub pc_codecs: Vec<VideoCodec>,
    /// The app's heightmap size.
    pub map_size: Size,
    /// The app's first seed.
    pub seed: u64,
    /// The frame whose xrWaitFrame never returns.
    pub hang_at: Option<u64>,
    /// The shared session the app under test is in, for the wearer's copy.
    pub join: Option<JoinTarget>,
}

/// Why the configuration cannot be used; one line each.
#[derive(Debug, Error)]
pub enum ConfigError {
    /// A variable's value is out of range or malformed.
    #[error("{variable}: {problem}")]
    Invalid {
        /// The variable.
        variable: &'static str,
        /// What is wrong and what is allowed.
        problem: String,
    },
    /// The script file cannot be read.
    #[error("{SCRIPT_VARIABLE}: cannot read the gesture script {path}: {source}")]
    ReadScript {
        /// The script's path.
        path: PathBuf,
        /// Why.
        source: std::io::Error,
    },
    /// The script has a line that is not an event.
    #[error("{SCRIPT_VARIABLE}: gesture script {path}, {source}")]
    Script {
        /// The script's path.
        path: PathBuf,
        /// The line and what is wrong with it.
        source: ScriptError,
    },
    /// The room file cannot be read.
    #[error("{ROOM_VARIABLE}: cannot read the room {path}: {source}")]
    ReadRoom {
        /// The room's path.
        path: PathBuf,
        /// Why.
        source: std::io::Error,
    },
    /// The room has a line that is not a surface.
    #[error("{ROOM_VARIABLE}: room {path}, {source}")]
    Room {
        /// The room's path.
        path: PathBuf,
        /// The line and what is wrong with it.
        source: RoomError,
    },
    /// The script has an event this runtime cannot play.
    #[error("{SCRIPT_VARIABLE}: gesture script {path}, line {line}: {why}")]
    Unplayable {
        /// The script's path.
        path: PathBuf,
        /// The event's line.
        line: usize,
        /// Why it cannot be played and what to use instead.
        why: String,
    },
}

/// Reads one variable, `None` when unset.
fn variable(name: &'static str) -> Result<Option<String>, ConfigError> {
    match std::env::var(name) {
        Ok(value) => Ok(Some(value)),
        Err(std::env::VarError::NotPresent) => Ok(None),
        Err(std::env::VarError::NotUnicode(_)) => Err(ConfigError::Invalid {
            variable: name,
            problem: "is not valid Unicode".into(),
        }),
    }
}

/// Parses a `WxH` value whose sides must lie in `range`.
fn size_in(name: &'static str, text: &str, range: (u32, u32)) -> Result<Size, ConfigError> {
    let size: Size = text.parse().map_err(|problem| ConfigError::Invalid {
        variable: name,
        problem,
    })?;
    let sides = range.0..=range.1;
    if !sides.contains(&size.width) || !sides.contains(&size.height) {
        return Err(ConfigError::Invalid {
            variable: name,
            problem: format!("each side must be {} to {}, got {size}", range.0, range.1),
        });
    }
    Ok(size)
}

/// The frame `HOLOTERRAIN_TESTRT_HANG` names.
fn hang_frame(text: &str) -> Result<u64, ConfigError> {
    text.parse::<u64>().map_err(|_| ConfigError::Invalid {
        variable: HANG_VARIABLE,
        problem: format!(
            "must be the number of the frame whose xrWaitFrame never returns (0 for the first), got `{text}`"
        ),
    })
}

/// Why the runtime cannot play `action`, if it cannot (`remoting`: whether
/// remoting is emulated).
fn unplayable(action: &Action, remoting: bool) -> Option<String> {
    match action {
        Action::Select { .. } => Some(
            "`select` presses a controller's button, and a HoloLens 2 has no controllers; script an `airtap` (the hand's select) or a `tap` instead".into(),
        ),
        Action::Grab { .. } => Some(
            "`grab` squeezes a controller, and a HoloLens 2 has no controllers; script a `hold` (drag with a pinch) or a `twohand` instead".into(),
        ),
        Action::Disconnect { .. } if !remoting => Some(format!(
            "`disconnect` drops a Holographic Remoting connection; set {REMOTING_VARIABLE}=HOST:PORT to emulate one"
        )),
        Action::Wait { .. } => Some(
            "`wait` holds the simulator's script until a shared session is as it says, and the runtime plays the script on the headset's display clock, which nothing holds; script the waits in the simulator that shares the session".into(),
        ),
        Action::Say { .. } if !remoting => Some(format!(
            "`say` is heard by the Remoting Player's speech recognizer (XR_MSFT_holographic_remoting_speech); set {REMOTING_VARIABLE}=HOST:PORT to emulate one"
        )),
        _ => None,
    }
}

/// The codecs `codecs_variable` names (`h264,h265`-style), both unless set.
fn codecs_of(codecs_variable: &'static str) -> Result<Vec<VideoCodec>, ConfigError> {
    codecs_in(codecs_variable, variable(codecs_variable)?.as_deref())
}

/// The codecs `text`, the value of `codecs_variable`, names; both without one.
fn codecs_in(
    codecs_variable: &'static str,
    text: Option<&str>,
) -> Result<Vec<VideoCodec>, ConfigError> {
    let Some(text) = text else {
        return Ok(vec![VideoCodec::H264, VideoCodec::H265]);
    };
    text.split(',')
        .map(|name| {
            [VideoCodec::H264, VideoCodec::H265]
                .into_iter()
                .find(|codec| codec.name() == name.trim())
                .ok_or_else(|| ConfigError::Invalid {
                    variable: codecs_variable,
                    problem: format!(
                        "`{}` is not a video codec; use h264, h265 or both, comma-separated",
                        name.trim()
                    ),
                })
        })
        .collect()
}

impl Config {
    /// Reads every variable; the first problem is the error.
    pub fn from_environment() -> Result<Self, ConfigError> {
        let remoting = match variable(REMOTING_VARIABLE)? {
            Some(text) => {
                Some(
                    text.parse::<RemoteAddress>()
                        .map_err(|problem| ConfigError::Invalid {
                            variable: REMOTING_VARIABLE,
                            problem,
                        })?,
                )
            }
            None => None,
        };
        let script = match variable(SCRIPT_VARIABLE)? {
            Some(path) => {
                let path = PathBuf::from(path);
                let text =
                    std::fs::read_to_string(&path).map_err(|source| ConfigError::ReadScript {
                        path: path.clone(),
                        source,
                    })?;
                let script = Script::parse(&text).map_err(|source| ConfigError::Script {
                    path: path.clone(),
                    source,
                })?;
                if let Some((event, why)) = script.events.iter().find_map(|event| {
                    unplayable(&event.action, remoting.is_some()).map(|why| (event, why))
                }) {
                    return Err(ConfigError::Unplayable {
                        path,
                        line: event.line,
                        why,
                    });
                }
                script
            }
            None => Script::default(),
        };
        let room = match variable(ROOM_VARIABLE)? {
            Some(path) => {
                let path = PathBuf::from(path);
                let text =
                    std::fs::read_to_string(&path).map_err(|source| ConfigError::ReadRoom {
                        path: path.clone(),
                        source,
                    })?;
                Room::parse(&text).map_err(|source| ConfigError::Room { path, source })?
            }
            None => Room::default(),
        };
        match variable(PLANES_VARIABLE)?.as_deref() {
            None | Some("msft" | "ext") => {}
            Some(other) => {
                return Err(ConfigError::Invalid {
                    variable: PLANES_VARIABLE,
                    problem: format!(
                        "must be msft (scene understanding, as HoloLens 2) or ext (XR_EXT_plane_detection), got `{other}`"
                    ),
                });
            }
        }
        let resolution = match variable(RESOLUTION_VARIABLE)? {
            Some(text) => size_in(RESOLUTION_VARIABLE, &text, EYE_SIDE_RANGE)?,
            None => HOLOLENS_2_RESOLUTION,
        };
        let rate = match variable(RATE_VARIABLE)? {
            Some(text) => text
                .parse::<f64>()
                .ok()
                .filter(|rate| (RATE_RANGE.0..=RATE_RANGE.1).contains(rate))
                .ok_or_else(|| ConfigError::Invalid {
                    variable: RATE_VARIABLE,
                    problem: format!(
                        "must be {} to {} Hz, got `{text}`",
                        RATE_RANGE.0, RATE_RANGE.1
                    ),
                })?,
            None => HOLOLENS_2_RATE,
        };
        let realtime = match variable(REALTIME_VARIABLE)?.as_deref() {
            None | Some("0") => false,
            Some("1") => true,
            Some(other) => {
                return Err(ConfigError::Invalid {
                    variable: REALTIME_VARIABLE,
                    problem: format!("must be 1 (pace to the wall clock) or 0, got `{other}`"),
                });
            }
        };
        let every = match variable(EVERY_VARIABLE)? {
            Some(text) => text
                .parse::<u64>()
                .ok()
                .filter(|every| *every >= 1)
                .ok_or_else(|| ConfigError::Invalid {
                    variable: EVERY_VARIABLE,
                    problem: format!("must be a whole number of frames, at least 1, got `{text}`"),
                })?,
            None => DEFAULT_EVERY,
        };
        let map_size = match variable(SIZE_VARIABLE)? {
            Some(text) => size_in(SIZE_VARIABLE, &text, (2, MAX_MAP_SIDE as u32))?,
            None => APP_DEFAULT_SIZE,
        };
        let seed = match variable(SEED_VARIABLE)? {
            Some(text) => text.parse::<u64>().map_err(|_| ConfigError::Invalid {
                variable: SEED_VARIABLE,
                problem: format!("must be a whole number (the app's --seed), got `{text}`"),
            })?,
            None => 1,
        };
        let player_codecs = codecs_of(PLAYER_CODECS_VARIABLE)?;
        let pc_codecs = codecs_of(PC_CODECS_VARIABLE)?;
        let hang_at = match variable(HANG_VARIABLE)? {
            Some(text) => Some(hang_frame(&text)?),
            None => None,
        };
        let join =
            match variable(JOIN_VARIABLE)? {
                Some(text) => Some(JoinTarget::parse(&text, DEFAULT_SHARE_PORT).map_err(
                    |error| ConfigError::Invalid {
                        variable: JOIN_VARIABLE,
                        problem: error.to_string(),
                    },
                )?),
                None => None,
            };
        Ok(Self {
            script,
            room,
            resolution,
            rate,
            realtime,
            out: variable(OUT_VARIABLE)?.map(PathBuf::from),
            every,
            remoting,
            player_codecs,
            pc_codecs,
            map_size,
            seed,
            hang_at,
            join,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn codecs_are_both_unless_named_and_an_unknown_one_is_named_in_the_error() {
        assert_eq!(
            codecs_in(PLAYER_CODECS_VARIABLE, None).unwrap(),
            [VideoCodec::H264, VideoCodec::H265]
        );
        assert_eq!(
            codecs_in(PC_CODECS_VARIABLE, Some("h264")).unwrap(),
            [VideoCodec::H264]
        );
        let error = codecs_in(PC_CODECS_VARIABLE, Some("h264,vp9"))
            .unwrap_err()
            .to_string();
        assert_eq!(
            error,
            "HOLOTERRAIN_TESTRT_PC_CODECS: `vp9` is not a video codec; use h264, h265 or both, comma-separated"
        );
    }

    #[test]
    fn a_select_cannot_be_played_on_a_hololens() {
        let why = unplayable(
            &Action::Select {
                hand: holoterrain::input::Hand::Right,
            },
            true,
        )
        .unwrap();
        assert!(
            why.contains("no controllers") && why.contains("airtap"),
            "{why}"
        );
    }

    #[test]
    fn a_grab_cannot_be_played_on_a_hololens() {
        let grab = Action::Grab {
            hand: holoterrain::input::Hand::Left,
            seconds: 1.0,
            delta: glam::Vec3::X,
        };
        let why = unplayable(&grab, false).unwrap();
        assert!(
            why.contains("no controllers") && why.contains("hold"),
            "{why}"
        );
    }

    #[test]
    fn a_wait_cannot_be_played_on_the_headsets_clock() {
        let wait = Action::Wait {
            until: holoterrain::sim::script::Condition::Joined,
        };
        for remoting in [false, true] {
            let why = unplayable(&wait, remoting).unwrap();
            assert!(why.contains("simulator"), "{why}");
        }
    }

    #[test]
    fn a_disconnect_and_words_said_need_remoting() {
        for remote_only in [
            Action::Disconnect {
                reason: 17,
                refusals: 0,
            },
            Action::Say {
                words: "new terrain".into(),
            },
        ] {
            assert!(
                unplayable(&remote_only, false)
                    .unwrap()
                    .contains(REMOTING_VARIABLE)
            );
            assert_eq!(unplayable(&remote_only, true), None);
        }
    }

    #[test]
    fn the_hanging_frame_is_a_frame_number() {
        assert_eq!(hang_frame("30").unwrap(), 30);
        let error = hang_frame("-1").unwrap_err().to_string();
        assert!(
            error.starts_with("HOLOTERRAIN_TESTRT_HANG: must be the number of the frame"),
            "{error}"
        );
    }

    #[test]
    fn sizes_outside_their_range_name_the_variable() {
        let error = size_in(RESOLUTION_VARIABLE, "8x8", EYE_SIDE_RANGE).unwrap_err();
        assert!(
            error
                .to_string()
                .starts_with("HOLOTERRAIN_TESTRT_RESOLUTION: each side must be 16 to 4096"),
            "{error}"
        );
        assert!(size_in(RESOLUTION_VARIABLE, "640", EYE_SIDE_RANGE).is_err());
        assert_eq!(
            size_in(RESOLUTION_VARIABLE, "64x48", EYE_SIDE_RANGE).unwrap(),
            Size {
                width: 64,
                height: 48
            }
        );
    }
}
