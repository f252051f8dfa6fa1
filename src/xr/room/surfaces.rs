//! Where a session learns the room's surfaces: XR_MSFT_scene_understanding
//! (HoloLens 2) when the runtime offers it, else XR_EXT_plane_detection
//! (other headsets), else nowhere (the hologram is then placed ahead of the
//! gaze, as without surfaces).
use std::sync::Arc;

use openxr as xr;

use crate::app::Surface;
use crate::xr::error::XrError;
use crate::xr::room::plane_detection::{self, PlaneDetector};
use crate::xr::room::scene_understanding::SceneObserver;
use crate::xr::room::surface_search::Search;
use crate::xr::runtime::instance::Runtime;
use crate::xr::sys::scene_understanding;

/// The extension that finds the room's surfaces.
enum Extension {
    /// XR_MSFT_scene_understanding's planes.
    Scene(SceneObserver),
    /// XR_EXT_plane_detection's planes.
    Planes(PlaneDetector),
}

/// Finds the room's surfaces once, with the extension the runtime offers,
/// and keeps them.
pub struct SurfaceFinder {
    /// The extension searching.
    extension: Extension,
    /// Whether a search was asked for (and is running).
    asked: bool,
    /// The search's outcome, once over.
    found: Option<Option<Arc<[Surface]>>>,
}

impl SurfaceFinder {
    /// The finder of the first extension the runtime offers (and this
    /// system supports), if any.
    pub fn open<G: xr::Graphics>(
        runtime: &Runtime,
        session: &xr::Session<G>,
    ) -> Result<Option<Self>, XrError> {
        let extension = if runtime.extensions.scene_understanding {
            Some(Extension::Scene(SceneObserver::create(session)?))
        } else {
            PlaneDetector::create(session)?.map(Extension::Planes)
        };
        Ok(extension.map(|extension| SurfaceFinder {
            extension,
            asked: false,
            found: None,
        }))
    }

    /// The extension's name, for the report.
    pub fn name(&self) -> &'static str {
        match self.extension {
            Extension::Scene(_) => scene_understanding::EXTENSION_NAME,
            Extension::Planes(_) => plane_detection::EXTENSION_NAME,
        }
    }

    /// The room's surfaces in `base` at `time` once found: asks around
    /// `head` on the first call (and after a passing failure), then checks
    /// each call whether the runtime is done.
    pub fn surfaces(
        &mut self,
        head: &xr::Space,
        base: &xr::Space,
        time: xr::Time,
    ) -> Result<Option<Arc<[Surface]>>, XrError> {
        if let Some(found) = &self.found {
            return Ok(found.clone());
        }
        if !self.asked {
            match &self.extension {
                Extension::Scene(scene) => scene.begin(head, time)?,
                Extension::Planes(planes) => planes.begin(head, time)?,
            }
            self.asked = true;
        }
        let search = match &self.extension {
            Extension::Scene(scene) => scene.poll(base, time)?,
            Extension::Planes(planes) => planes.poll(base, time)?,
        };
        match search {
            Search::Running => Ok(None),
            Search::Retry => {
                self.asked = false;
                Ok(None)
            }
            Search::Done(found) => {
                if let Some(surfaces) = &found {
                    log::info!("{}: {} planes", self.name(), surfaces.len());
                }
                self.found = Some(found.clone());
                Ok(found)
            }
        }
    }
}
