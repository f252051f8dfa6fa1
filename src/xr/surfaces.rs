//! Where a session learns the room's surfaces: XR_MSFT_scene_understanding
//! (HoloLens 2) when the runtime offers it, else XR_EXT_plane_detection
//! (other headsets), else nowhere (the hologram is then placed ahead of the
//! gaze, as without surfaces).
use std::sync::Arc;

use openxr as xr;

use super::error::XrError;
use super::plane_detection::{self, PlaneDetector};
use super::runtime::Runtime;
use super::scene_understanding::{self, SceneObserver};
use crate::app::Surface;

/// The extension that finds the room's surfaces.
pub enum SurfaceFinder {
    /// XR_MSFT_scene_understanding's planes.
    Scene(SceneObserver),
    /// XR_EXT_plane_detection's planes.
    Planes(PlaneDetector),
}

impl SurfaceFinder {
    /// The finder of the first extension the runtime offers (and this
    /// system supports), if any.
    pub fn open<G: xr::Graphics>(
        runtime: &Runtime,
        session: &xr::Session<G>,
    ) -> Result<Option<Self>, XrError> {
        if runtime.extensions.scene_understanding {
            return Ok(Some(SurfaceFinder::Scene(SceneObserver::create(session)?)));
        }
        Ok(PlaneDetector::create(session)?.map(SurfaceFinder::Planes))
    }

    /// The extension's name, for the report.
    pub fn name(&self) -> &'static str {
        match self {
            SurfaceFinder::Scene(_) => scene_understanding::EXTENSION_NAME,
            SurfaceFinder::Planes(_) => plane_detection::EXTENSION_NAME,
        }
    }

    /// The room's surfaces in `base` at `time` once found (asked for around `head`).
    pub fn surfaces(
        &mut self,
        head: &xr::Space,
        base: &xr::Space,
        time: xr::Time,
    ) -> Result<Option<Arc<[Surface]>>, XrError> {
        match self {
            SurfaceFinder::Scene(scene) => scene.surfaces(head, base, time),
            SurfaceFinder::Planes(planes) => planes.surfaces(head, base, time),
        }
    }
}
