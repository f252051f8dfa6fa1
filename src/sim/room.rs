//! The simulated room (`holoterrain sim --room FILE`): upward-facing
//! rectangles, one a line, that the app sees as the room's surfaces, as a
//! headset's scene understanding would report them.
//!
//! ```text
//! # surface X Y Z W D: centred at (X, Y, Z), W metres along x, D along z
//! surface 0 0.75 -2.6 1.6 1.0     # a dining table
//! surface 0 0 -2 8 8              # the floor
//! ```
//! `#` starts a comment; blank lines are ignored. The test runtime plays
//! the same file as `XR_MSFT_scene_understanding` planes, through
//! [`RoomSurface::scene_plane_pose`], so both give the app the same numbers.
use glam::Vec3;
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

/// A parsed room.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Room {
    /// Its surfaces, in file order.
    pub surfaces: Vec<RoomSurface>,
}

/// A line that is not a surface.
#[derive(Debug, Error, Clone, PartialEq)]
#[error("line {line}: {problem}; expected {EXPECTED}")]
pub struct RoomError {
    /// 1-based line number.
    pub line: usize,
    /// What is wrong.
    pub problem: String,
}

/// What a line should look like.
const EXPECTED: &str =
    "`surface X Y Z W D` (centre in metres, width along x and depth along z above 0)";

impl Room {
    /// Parses room text.
    pub fn parse(text: &str) -> Result<Room, RoomError> {
        let mut surfaces = Vec::new();
        for (index, raw) in text.lines().enumerate() {
            let line = index + 1;
            let content = raw.split('#').next().unwrap_or_default();
            let words: Vec<&str> = content.split_whitespace().collect();
            match words.as_slice() {
                [] => continue,
                ["surface", numbers @ ..] => surfaces.push(parse_surface(line, numbers)?),
                [other, ..] => {
                    return Err(RoomError {
                        line,
                        problem: format!("unknown entry `{other}`"),
                    });
                }
            }
        }
        Ok(Room { surfaces })
    }

    /// The surfaces as the app takes them.
    pub fn app_surfaces(&self) -> Vec<Surface> {
        self.surfaces.iter().map(RoomSurface::surface).collect()
    }
}

fn parse_surface(line: usize, numbers: &[&str]) -> Result<RoomSurface, RoomError> {
    let [x, y, z, width, depth] = numbers else {
        return Err(RoomError {
            line,
            problem: format!("a surface takes 5 numbers, got {}", numbers.len()),
        });
    };
    let number = |word: &str, allowed: &dyn Fn(f32) -> bool, what: &str| {
        word.parse::<f32>()
            .ok()
            .filter(|value| value.is_finite() && allowed(*value))
            .ok_or_else(|| RoomError {
                line,
                problem: format!("`{word}` is not {what}"),
            })
    };
    let coordinate = |word: &str| {
        number(
            word,
            &|value| value.abs() <= MAX_COORDINATE_M,
            "a coordinate in metres",
        )
    };
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
