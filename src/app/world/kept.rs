//! The placement kept between runs: `placement.json` in the state folder,
//! written whole or not at all, read back only when it is this app's and
//! kept in the space the platform keeps it in; anything else is one
//! warning (the error's one line) and a fresh placement, never a crash.
//!
//! ```json
//! { "format": "holoterrain placement 1", "space": "STAGE",
//!   "position": [0.1, 0.75, -1.2], "orientation": [0.0, 0.2, 0.0, 0.98], "scale": 1.5 }
//! ```
//! With a persisted spatial anchor the anchor holds the pose, and the file
//! only the scale (`"space": "spatial anchor holoterrain.placement"`, no
//! position or orientation).
use std::path::{Path, PathBuf};

use glam::{Quat, Vec3};
use serde::{Deserialize, Serialize};
use thiserror::Error;

use super::placement::{MAX_SCALE, MIN_SCALE, Placement};
use crate::atomic_file;
use crate::input::Pose;

/// Where the platform keeps the placement of an earlier run, as far as it
/// knows on this frame.
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub enum Kept {
    /// Nothing was kept (or it was forgotten, or it could not be read).
    #[default]
    None,
    /// One was kept but cannot be located yet (a persisted spatial anchor
    /// the headset is still looking for).
    Pending,
    /// One was kept and is here, in the platform's space.
    Located(Placement),
}

/// The file's name in the state folder.
pub const PLACEMENT_FILE: &str = "placement.json";
/// What the `format` field of this app's file says.
const FORMAT: &str = "holoterrain placement 1";

/// The space a kept pose is in, which must survive the session (a LOCAL
/// space starts wherever the headset is, so it never does).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub enum KeptIn {
    /// XR_MSFT_unbounded_reference_space: the room's space on HoloLens and
    /// Windows Mixed Reality.
    #[serde(rename = "UNBOUNDED_MSFT")]
    Unbounded,
    /// The STAGE reference space: the play area's floor.
    #[serde(rename = "STAGE")]
    Stage,
    /// The simulator's room.
    #[serde(rename = "simulator room")]
    SimulatorRoom,
    /// A persisted XR_MSFT_spatial_anchor_persistence anchor of that name
    /// holds the pose.
    #[serde(rename = "spatial anchor holoterrain.placement")]
    SpatialAnchor,
}

impl KeptIn {
    /// The name the file uses.
    pub fn name(self) -> &'static str {
        match self {
            KeptIn::Unbounded => "UNBOUNDED_MSFT",
            KeptIn::Stage => "STAGE",
            KeptIn::SimulatorRoom => "simulator room",
            KeptIn::SpatialAnchor => "spatial anchor holoterrain.placement",
        }
    }
}

/// What was kept: the pose in its space (none when an anchor holds it)
/// and the scale.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct KeptPlacement {
    /// Where the pose is kept.
    pub space: KeptIn,
    /// The hologram's pose in `space`; `None` when a persisted anchor holds it.
    pub pose: Option<Pose>,
    /// The hologram's scale.
    pub scale: f32,
}

impl KeptPlacement {
    /// `placement` kept in `space` (which holds the pose itself unless it
    /// is a spatial anchor).
    pub fn of(placement: &Placement, space: KeptIn) -> Self {
        KeptPlacement {
            space,
            pose: (space != KeptIn::SpatialAnchor).then_some(placement.pose),
            scale: placement.scale,
        }
    }

    /// The placement at the kept pose, when the file holds one.
    pub fn placement(&self) -> Option<Placement> {
        self.pose.map(|pose| Placement::at(pose).scaled(self.scale))
    }
}

/// Why a kept placement cannot be read or written; one line each.
#[derive(Debug, Error)]
pub enum KeptError {
    /// The file exists but cannot be read.
    #[error("cannot read the kept placement {path}: {source}; starting with a fresh placement")]
    Unreadable {
        /// The file.
        path: PathBuf,
        /// Why.
        source: std::io::Error,
    },
    /// The file is not a placement this app wrote.
    #[error(
        "{path} is not a holoterrain placement ({problem}); starting with a fresh placement (it is replaced after the next move)"
    )]
    Foreign {
        /// The file.
        path: PathBuf,
        /// What is wrong with it.
        problem: String,
    },
    /// The placement was kept in another space than this session keeps it in.
    #[error(
        "{path} was kept in the {found} space, and this session keeps placements in the {expected} space; starting with a fresh placement"
    )]
    OtherSpace {
        /// The file.
        path: PathBuf,
        /// Where the file's pose is.
        found: &'static str,
        /// Where this session's would be.
        expected: &'static str,
    },
    /// The file could not be written or removed.
    #[error("cannot write the kept placement {path}: {source}")]
    Write {
        /// The file.
        path: PathBuf,
        /// Why.
        source: std::io::Error,
    },
}

/// The file's fields.
#[derive(Debug, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
struct PlacementFile {
    /// [`FORMAT`].
    format: String,
    /// Where the pose is.
    space: KeptIn,
    /// Metres, x y z.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    position: Option<[f32; 3]>,
    /// Quaternion x y z w.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    orientation: Option<[f32; 4]>,
    /// Relative to the 0.5 m default.
    scale: f32,
}

/// The placement kept at `path` as the app takes it before it is first
/// placed: [`Kept::None`] when there is no file.
pub fn load_kept(path: &Path, space: KeptIn) -> Result<Kept, KeptError> {
    Ok(load(path, space)?
        .and_then(|kept| kept.placement())
        .map_or(Kept::None, Kept::Located))
}

/// The placement kept at `path` for a session that keeps placements in
/// `space`: `Ok(None)` when there is no file.
pub fn load(path: &Path, space: KeptIn) -> Result<Option<KeptPlacement>, KeptError> {
    let text = match std::fs::read_to_string(path) {
        Ok(text) => text,
        Err(error) if error.kind() == std::io::ErrorKind::NotFound => return Ok(None),
        Err(source) => {
            return Err(KeptError::Unreadable {
                path: path.to_owned(),
                source,
            });
        }
    };
    let foreign = |problem: String| KeptError::Foreign {
        path: path.to_owned(),
        problem,
    };
    let file: PlacementFile =
        serde_json::from_str(&text).map_err(|error| foreign(error.to_string()))?;
    if file.format != FORMAT {
        return Err(foreign(format!("format `{}`", file.format)));
    }
    if file.space != space {
        return Err(KeptError::OtherSpace {
            path: path.to_owned(),
            found: file.space.name(),
            expected: space.name(),
        });
    }
    if !(file.scale.is_finite() && (MIN_SCALE..=MAX_SCALE).contains(&file.scale)) {
        return Err(foreign(format!(
            "scale {} outside {MIN_SCALE}..{MAX_SCALE}",
            file.scale
        )));
    }
    let pose = match (file.position, file.orientation) {
        (Some(position), Some(orientation)) => {
            let orientation = Quat::from_array(orientation);
            let pose = Pose::new(Vec3::from_array(position), orientation);
            if !pose.is_finite() || (orientation.length() - 1.0).abs() > 1e-3 {
                return Err(foreign(
                    "the pose is not a position and a unit quaternion".into(),
                ));
            }
            Some(pose)
        }
        (None, None) if space == KeptIn::SpatialAnchor => None,
        _ => {
            return Err(foreign(
                "it needs a position and an orientation, or neither with a spatial anchor".into(),
            ));
        }
    };
    Ok(Some(KeptPlacement {
        space,
        pose,
        scale: file.scale,
    }))
}

/// Keeps `kept` at `path`, replacing what was there whole (creating the folder).
pub fn save(path: &Path, kept: &KeptPlacement) -> Result<(), KeptError> {
    let write_error = |source| KeptError::Write {
        path: path.to_owned(),
        source,
    };
    let file = PlacementFile {
        format: FORMAT.into(),
        space: kept.space,
        position: kept.pose.map(|pose| pose.position.to_array()),
        orientation: kept.pose.map(|pose| pose.orientation.to_array()),
        scale: kept.scale,
    };
    let json = serde_json::to_string_pretty(&file)
        .map_err(|error| write_error(std::io::Error::other(error)))?;
    if let Some(folder) = path
        .parent()
        .filter(|folder| !folder.as_os_str().is_empty())
    {
        std::fs::create_dir_all(folder).map_err(write_error)?;
    }
    atomic_file::write(path, json.as_bytes()).map_err(write_error)
}

/// Removes the kept placement at `path`, if there is one.
pub fn forget(path: &Path) -> Result<(), KeptError> {
    match std::fs::remove_file(path) {
        Ok(()) => Ok(()),
        Err(error) if error.kind() == std::io::ErrorKind::NotFound => Ok(()),
        Err(source) => Err(KeptError::Write {
            path: path.to_owned(),
            source,
        }),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn placement() -> Placement {
        Placement::at(Pose::new(
            Vec3::new(0.1, 0.75, -1.2),
            Quat::from_rotation_y(0.4),
        ))
        .scaled(1.5)
    }

    #[test]
    fn a_saved_placement_loads_back_exactly() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("state").join(PLACEMENT_FILE);
        save(&path, &KeptPlacement::of(&placement(), KeptIn::Stage)).unwrap();
        let kept = load(&path, KeptIn::Stage).unwrap().unwrap();
        assert_eq!(kept.placement(), Some(placement()));
    }

    #[test]
    fn an_anchor_keeps_the_pose_and_the_file_only_the_scale() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join(PLACEMENT_FILE);
        save(
            &path,
            &KeptPlacement::of(&placement(), KeptIn::SpatialAnchor),
        )
        .unwrap();
        let text = std::fs::read_to_string(&path).unwrap();
        assert!(!text.contains("position"), "{text}");
        let kept = load(&path, KeptIn::SpatialAnchor).unwrap().unwrap();
        assert_eq!((kept.pose, kept.scale), (None, 1.5));
    }

    #[test]
    fn no_file_is_no_placement() {
        let dir = tempfile::tempdir().unwrap();
        assert!(
            load(&dir.path().join(PLACEMENT_FILE), KeptIn::Stage)
                .unwrap()
                .is_none()
        );
    }

    #[test]
    fn corrupt_and_foreign_files_are_one_line_errors() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join(PLACEMENT_FILE);
        for text in [
            "{ not json",
            "{\"format\": \"someone else's\", \"space\": \"STAGE\", \"scale\": 1}",
            "{\"format\": \"holoterrain placement 1\", \"space\": \"STAGE\", \"scale\": 1}",
            "{\"format\": \"holoterrain placement 1\", \"space\": \"STAGE\", \"position\": [0,0,0], \"orientation\": [0,0,0,2], \"scale\": 1}",
            "{\"format\": \"holoterrain placement 1\", \"space\": \"STAGE\", \"position\": [0,0,0], \"orientation\": [0,0,0,1], \"scale\": 9}",
            "[1, 2, 3]",
        ] {
            std::fs::write(&path, text).unwrap();
            let error = load(&path, KeptIn::Stage).unwrap_err();
            let line = error.to_string();
            assert!(matches!(error, KeptError::Foreign { .. }), "{text}: {line}");
            assert_eq!(line.lines().count(), 1, "{line}");
            assert!(line.contains("starting with a fresh placement"), "{line}");
        }
    }

    #[test]
    fn a_placement_kept_in_another_space_is_not_used() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join(PLACEMENT_FILE);
        save(&path, &KeptPlacement::of(&placement(), KeptIn::Stage)).unwrap();
        let error = load(&path, KeptIn::Unbounded).unwrap_err();
        assert!(
            error
                .to_string()
                .contains("kept in the STAGE space, and this session keeps placements in the UNBOUNDED_MSFT space"),
            "{error}"
        );
    }

    #[test]
    fn forgetting_removes_the_file_and_is_fine_without_one() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join(PLACEMENT_FILE);
        save(&path, &KeptPlacement::of(&placement(), KeptIn::Stage)).unwrap();
        forget(&path).unwrap();
        assert!(!path.exists());
        forget(&path).unwrap();
    }
}
