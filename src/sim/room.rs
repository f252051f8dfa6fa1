//! The simulated room (`holoterrain sim --room FILE`): upward-facing
//! rectangles, one a line, that the app sees as the room's surfaces, as a
//! headset's scene understanding would report them; and printed QR codes
//! lying face up on them, that the app sees when the user looks at them.
//!
//! ```text
//! # surface X Y Z W D: centred at (X, Y, Z), W metres along x, D along z
//! surface 0 0.75 -2.6 1.6 1.0     # a dining table
//! surface 0 0 -2 8 8              # the floor
//! # marker X Y Z YAW SIZE TEXT: a code face up, centred at (X, Y, Z), its
//! # top edge towards -z turned YAW degrees about +y, SIZE metres a side
//! marker 0.3 0.75 -2.4 0 0.1 holoterrain:7-guitar-orbit
//! # stale-marker: the same, but the headset last saw it before the run
//! stale-marker -0.3 0.75 -2.4 0 0.1 holoterrain:3-old-card
//! ```
//! `#` starts a comment; blank lines are ignored. The test runtime plays
//! the same file as `XR_MSFT_scene_understanding` planes, through
//! [`RoomSurface::scene_plane_pose`], and `XR_MSFT_scene_marker` QR codes,
//! through [`RoomMarker::qr_code_pose`], so both give the app the same
//! numbers; both see a marker by the same rule ([`super::markers`]).
use glam::{Quat, Vec3};
use thiserror::Error;

use crate::app::Surface;
use crate::app::surfaces::Z_ONTO_Y;
use crate::input::Pose;

/// Farthest a surface's centre may be from the room's origin along each axis, metres.
pub const MAX_COORDINATE_M: f32 = 1000.0;

/// One upward-facing rectangle.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct RoomSurface {
    /// Its centre, metres.
    pub centre: Vec3,
    /// Its extent along x, metres.
    pub width: f32,
    /// Its extent along z, metres.
    pub depth: f32,
}

impl RoomSurface {
    /// Its pose as a scene-understanding plane: centred on it, +Z (the
    /// plane's normal) up, the plane's X along the room's x and its Y
    /// along the room's -z.
    pub fn scene_plane_pose(&self) -> Pose {
        Pose::new(self.centre, Z_ONTO_Y)
    }

    /// Its pose as an `XR_EXT_plane_detection` plane: centred on it, the
    /// room's own axes (the plane in X-Z, its normal +Y up).
    pub fn detected_plane_pose(&self) -> Pose {
        Pose::new(self.centre, glam::Quat::IDENTITY)
    }

    /// The surface as the app takes it (from its scene-plane pose, as the
    /// OpenXR platform takes a plane).
    pub fn surface(&self) -> Surface {
        Surface::from_scene_plane(self.scene_plane_pose(), self.width, self.depth)
    }
}

/// Longest text a marker may hold, bytes.
pub const MAX_MARKER_TEXT_BYTES: usize = 256;
/// Largest side of a marker, metres.
pub const MAX_MARKER_SIZE_M: f32 = 10.0;

/// A printed QR code lying face up.
#[derive(Debug, Clone, PartialEq)]
pub struct RoomMarker {
    /// Its centre, metres.
    pub centre: Vec3,
    /// Its turn about +Y (counter-clockwise seen from above), degrees: at 0
    /// its top edge is towards -Z.
    pub yaw_deg: f32,
    /// The length of its side, metres.
    pub size_m: f32,
    /// The text it holds.
    pub text: String,
    /// Whether the headset last saw it before the run started (a
    /// `stale-marker`): a platform leaves that sighting out.
    pub seen_before_start: bool,
}

impl RoomMarker {
    /// Its pose as `app::Marker` takes it: at its centre, +Y its face's
    /// normal (up), -Z towards the middle of its top edge.
    pub fn pose(&self) -> Pose {
        Pose::new(
            self.centre,
            Quat::from_rotation_y(self.yaw_deg.to_radians()),
        )
    }

    /// Its pose in the QR code convention of `XR_MSFT_scene_marker`: at
    /// its top-left corner, X along its top edge to the right, Y down the
    /// code (from the top edge towards the bottom), +Z into the printed
    /// face; its centre is then at (size/2, size/2) in the X-Y plane.
    pub fn qr_code_pose(&self) -> Pose {
        let pose = self.pose();
        let half = self.size_m / 2.0;
        Pose::new(
            pose.transform_point(Vec3::new(-half, 0.0, -half)),
            pose.orientation * MARKER_IN_QR_CODE.inverse(),
        )
    }
}

/// `app::Marker`'s axes (X right, +Y out of the face, -Z towards the top
/// edge) in a QR code's of `XR_MSFT_scene_marker` (X right, Y down the
/// code, +Z into it): a quarter turn about X, -90°.
const MARKER_IN_QR_CODE: Quat = Quat::from_xyzw(
    -std::f32::consts::FRAC_1_SQRT_2,
    0.0,
    0.0,
    std::f32::consts::FRAC_1_SQRT_2,
);

/// A parsed room.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Room {
    /// Its surfaces, in file order.
    pub surfaces: Vec<RoomSurface>,
    /// Its markers, in file order.
    pub markers: Vec<RoomMarker>,
}

/// A line that is not a surface.
#[derive(Debug, Error, Clone, PartialEq)]
#[error("line {line}: {problem}; expected {expected}")]
pub struct RoomError {
    /// 1-based line number.
    pub line: usize,
    /// What is wrong.
    pub problem: String,
    /// What such a line should look like.
    pub expected: &'static str,
}

/// What a surface line should look like.
const SURFACE: &str =
    "`surface X Y Z W D` (centre in metres, width along x and depth along z above 0)";
/// What a marker line should look like.
const MARKER: &str = "`marker X Y Z YAW SIZE TEXT` (centre in metres, YAW degrees, SIZE metres above 0, TEXT printable, 1 to 256 bytes)";
/// What any line should look like.
const ANY: &str = "`surface X Y Z W D` or `marker X Y Z YAW SIZE TEXT`";

impl Room {
    /// Parses room text.
    pub fn parse(text: &str) -> Result<Room, RoomError> {
        let mut surfaces = Vec::new();
        let mut markers = Vec::new();
        for (index, raw) in text.lines().enumerate() {
            let line = index + 1;
            let content = raw.split('#').next().unwrap_or_default();
            let words: Vec<&str> = content.split_whitespace().collect();
            match words.as_slice() {
                [] => continue,
                ["surface", numbers @ ..] => surfaces.push(parse_surface(line, numbers)?),
                [keyword @ ("marker" | "stale-marker"), ..] => {
                    markers.push(parse_marker(line, content, *keyword == "stale-marker")?)
                }
                [other, ..] => {
                    return Err(RoomError {
                        line,
                        problem: format!("unknown entry `{other}`"),
                        expected: ANY,
                    });
                }
            }
        }
        Ok(Room { surfaces, markers })
    }

    /// The surfaces as the app takes them.
    pub fn app_surfaces(&self) -> Vec<Surface> {
        self.surfaces.iter().map(RoomSurface::surface).collect()
    }
}

/// `word` as a finite number `allowed` takes, else what it is not.
fn number(
    (line, expected): (usize, &'static str),
    word: &str,
    allowed: &dyn Fn(f32) -> bool,
    what: &str,
) -> Result<f32, RoomError> {
    word.parse::<f32>()
        .ok()
        .filter(|value| value.is_finite() && allowed(*value))
        .ok_or_else(|| RoomError {
            line,
            problem: format!("`{word}` is not {what}"),
            expected,
        })
}

/// `word` as a coordinate in metres.
fn coordinate(at: (usize, &'static str), word: &str) -> Result<f32, RoomError> {
    number(
        at,
        word,
        &|value| value.abs() <= MAX_COORDINATE_M,
        "a coordinate in metres",
    )
}

fn parse_surface(line: usize, numbers: &[&str]) -> Result<RoomSurface, RoomError> {
    let [x, y, z, width, depth] = numbers else {
        return Err(RoomError {
            line,
            problem: format!("a surface takes 5 numbers, got {}", numbers.len()),
            expected: SURFACE,
        });
    };
    let at = (line, SURFACE);
    let number =
        |word: &str, allowed: &dyn Fn(f32) -> bool, what: &str| number(at, word, allowed, what);
    let coordinate = |word: &str| coordinate(at, word);
    let extent = |word: &str| {
        number(
            word,
            &|value| value > 0.0 && value <= 2.0 * MAX_COORDINATE_M,
            "a size in metres above 0",
        )
    };
    Ok(RoomSurface {
        centre: Vec3::new(coordinate(x)?, coordinate(y)?, coordinate(z)?),
        width: extent(width)?,
        depth: extent(depth)?,
    })
}

/// A `marker` (or `stale-marker`) line's content (comment removed): five
/// numbers, then the text to the end of the line.
fn parse_marker(line: usize, content: &str, stale: bool) -> Result<RoomMarker, RoomError> {
    // The keyword, then five numbers, each ended by whitespace.
    let mut rest = content.trim_start();
    let mut numbers = Vec::new();
    for _ in 0..6 {
        let end = rest.find(char::is_whitespace).unwrap_or(rest.len());
        numbers.push(&rest[..end]);
        rest = rest[end..].trim_start();
        if rest.is_empty() {
            break;
        }
    }
    let text = rest.trim_end();
    let [_, x, y, z, yaw, size] = numbers[..] else {
        return Err(RoomError {
            line,
            problem: format!(
                "a marker takes 5 numbers and its text, got {} numbers",
                numbers.len() - 1
            ),
            expected: MARKER,
        });
    };
    let at = (line, MARKER);
    let centre = Vec3::new(coordinate(at, x)?, coordinate(at, y)?, coordinate(at, z)?);
    let yaw_deg = number(
        at,
        yaw,
        &|value| value.abs() <= 360.0,
        "an angle in degrees within ±360",
    )?;
    let size_m = number(
        at,
        size,
        &|value| value > 0.0 && value <= MAX_MARKER_SIZE_M,
        "a size in metres above 0",
    )?;
    let problem = if text.is_empty() {
        Some("a marker needs its text after the 5 numbers".to_owned())
    } else if text.len() > MAX_MARKER_TEXT_BYTES {
        Some(format!(
            "a marker's text is {} bytes, more than {MAX_MARKER_TEXT_BYTES}",
            text.len()
        ))
    } else if text.chars().any(char::is_control) {
        Some("a marker's text holds a control character".to_owned())
    } else {
        None
    };
    if let Some(problem) = problem {
        return Err(RoomError {
            line,
            problem,
            expected: MARKER,
        });
    }
    Ok(RoomMarker {
        centre,
        yaw_deg,
        size_m,
        text: text.to_owned(),
        seen_before_start: stale,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::input::Ray;

    #[test]
    fn surfaces_parse_with_comments_and_blank_lines() {
        let room =
            Room::parse("# a room\n\nsurface 0 0.75 -2.6 1.6 1.0  # table\nsurface 0 0 -2 8 8\n")
                .unwrap();
        assert_eq!(
            room.surfaces,
            vec![
                RoomSurface {
                    centre: Vec3::new(0.0, 0.75, -2.6),
                    width: 1.6,
                    depth: 1.0
                },
                RoomSurface {
                    centre: Vec3::new(0.0, 0.0, -2.0),
                    width: 8.0,
                    depth: 8.0
                },
            ]
        );
    }

    #[test]
    fn a_bad_line_names_its_number_and_what_was_expected() {
        for (text, line, problem) in [
            ("surface 0 0 0 1\n", 1, "a surface takes 5 numbers, got 4"),
            (
                "\nsurface 0 0 0 1 0\n",
                2,
                "`0` is not a size in metres above 0",
            ),
            (
                "surface 0 nan 0 1 1\n",
                1,
                "`nan` is not a coordinate in metres",
            ),
            ("table 0 0 0 1 1\n", 1, "unknown entry `table`"),
        ] {
            let error = Room::parse(text).unwrap_err();
            assert_eq!((error.line, error.problem.as_str()), (line, problem));
            assert!(error.to_string().contains("expected `surface X Y Z W D`"));
        }
    }

    #[test]
    fn markers_parse_with_their_text_to_the_end_of_the_line() {
        let room = Room::parse(
            "surface 0 0.75 -2.6 1.6 1.0\n\
             marker 0.3 0.75 -2.4 -45 0.1   holoterrain:7-guitar-orbit  # the card\n\
             stale-marker -0.3 0.75 -2.4 0 0.08 a card  with spaces\n",
        )
        .unwrap();
        assert_eq!(room.surfaces.len(), 1);
        assert_eq!(
            room.markers,
            vec![
                RoomMarker {
                    centre: Vec3::new(0.3, 0.75, -2.4),
                    yaw_deg: -45.0,
                    size_m: 0.1,
                    text: "holoterrain:7-guitar-orbit".into(),
                    seen_before_start: false,
                },
                RoomMarker {
                    centre: Vec3::new(-0.3, 0.75, -2.4),
                    yaw_deg: 0.0,
                    size_m: 0.08,
                    text: "a card  with spaces".into(),
                    seen_before_start: true,
                },
            ]
        );
    }

    #[test]
    fn a_bad_marker_line_names_its_number_and_what_is_wrong() {
        let long = format!("marker 0 0 0 0 0.1 {}\n", "x".repeat(257));
        for (text, line, problem) in [
            (
                "marker 0 0.75 -1 0 0.1\n",
                1,
                "a marker needs its text after the 5 numbers".to_owned(),
            ),
            (
                "marker 0 0.75 -1 0\n",
                1,
                "a marker takes 5 numbers and its text, got 4 numbers".to_owned(),
            ),
            (
                "surface 0 0 -2 8 8\nmarker 0 0.75 -1 0 0 code\n",
                2,
                "`0` is not a size in metres above 0".to_owned(),
            ),
            (
                "marker 0 0.75 -1 400 0.1 code\n",
                1,
                "`400` is not an angle in degrees within ±360".to_owned(),
            ),
            (
                "marker 0 x -1 0 0.1 code\n",
                1,
                "`x` is not a coordinate in metres".to_owned(),
            ),
            (
                "marker 0 0 0 0 0.1 bell\u{7}\n",
                1,
                "a marker's text holds a control character".to_owned(),
            ),
            (
                long.as_str(),
                1,
                "a marker's text is 257 bytes, more than 256".to_owned(),
            ),
        ] {
            let error = Room::parse(text).unwrap_err();
            assert_eq!(
                (error.line, error.problem.as_str()),
                (line, problem.as_str())
            );
            assert!(
                error
                    .to_string()
                    .contains("; expected `marker X Y Z YAW SIZE TEXT` (centre"),
                "{error}"
            );
        }
        let longest = format!("marker 0 0 0 0 0.1 {}\n", "x".repeat(256));
        assert_eq!(Room::parse(&longest).unwrap().markers[0].text.len(), 256);
    }

    #[test]
    fn a_qr_code_pose_is_at_the_top_left_corner_z_into_the_face() {
        // Face up, yaw 0: the top edge is towards -z, so the top-left
        // corner is at -x, -z from the centre.
        let code = RoomMarker {
            centre: Vec3::new(1.0, 0.75, -2.0),
            yaw_deg: 0.0,
            size_m: 0.2,
            text: "t".into(),
            seen_before_start: false,
        };
        let qr = code.qr_code_pose();
        assert!(qr.position.abs_diff_eq(Vec3::new(0.9, 0.75, -2.1), 1e-6));
        let axis = |v: Vec3| qr.orientation * v;
        assert!(
            axis(Vec3::X).abs_diff_eq(Vec3::X, 1e-6),
            "X along the top edge"
        );
        assert!(axis(Vec3::Y).abs_diff_eq(Vec3::Z, 1e-6), "Y down the code");
        assert!(
            axis(Vec3::Z).abs_diff_eq(Vec3::NEG_Y, 1e-6),
            "Z into the face"
        );
        // The centre is at (size/2, size/2) in its X-Y plane.
        assert!(
            qr.transform_point(Vec3::new(0.1, 0.1, 0.0))
                .abs_diff_eq(code.centre, 1e-6)
        );
    }

    #[test]
    fn a_surface_faces_up_and_covers_its_width_along_x_and_depth_along_z() {
        let surface = RoomSurface {
            centre: Vec3::new(1.0, 0.75, -2.0),
            width: 1.0,
            depth: 0.5,
        }
        .surface();
        assert!(surface.faces_up());
        let down = |x: f32, z: f32| Ray::new(Vec3::new(x, 2.0, z), Vec3::NEG_Y);
        assert!(surface.hit(&down(1.45, -2.2)).is_some());
        assert!(surface.hit(&down(1.55, -2.0)).is_none());
        assert!(surface.hit(&down(1.0, -2.3)).is_none());
    }
}
