//! Keeping the hologram's placement between runs of a session: where it is
//! kept (a persisted spatial anchor with XR_MSFT_spatial_anchor_persistence;
//! else `placement.json` in the state folder with the pose in
//! UNBOUNDED_MSFT or STAGE, the spaces that survive a session; else
//! nowhere, since LOCAL starts wherever the headset is), handing the kept
//! placement to the app until it is first placed, and keeping each
//! placement a manipulation settles.
//!
//! Nothing here ends a session: a file that cannot be read is one warning
//! and a fresh placement, and a placement that cannot be kept is one
//! warning.
use std::path::PathBuf;

use openxr as xr;

use crate::app::kept::{self, KeptIn, KeptPlacement, PLACEMENT_FILE};
use crate::app::{Kept, Placement};
use crate::input::Pose;
use crate::xr::convert::pose_from_xr;
use crate::xr::error::{XrError, xr_call};
use crate::xr::input::actions::located_pose;
use crate::xr::room::anchor::{AnchorSpace, AnchorStore};

/// What the command line asked of keeping: the state folder (none when it
/// could not be found) and whether to forget what was kept.
#[derive(Debug, Clone, Default)]
pub struct KeepingOptions {
    /// The folder `placement.json` lives in.
    pub folder: Option<PathBuf>,
    /// `--forget-placement`: forget the kept placement and start afresh.
    pub forget: bool,
}

/// Where the placement is kept in this session.
enum Keeping {
    /// A persisted spatial anchor holds the pose, the file the scale.
    Anchor {
        /// The app's anchor store.
        store: AnchorStore,
        /// The kept anchor, until the hologram is first placed.
        kept: Option<AnchorSpace>,
    },
    /// The file holds pose and scale in a space that survives sessions.
    File {
        /// That space.
        kept_in: KeptIn,
        /// The STAGE space when that is it (UNBOUNDED_MSFT is the session's own base).
        stage: Option<xr::Space>,
        /// The kept pose in that space, until the hologram is first placed.
        kept: Option<Pose>,
    },
    /// Nowhere.
    Nowhere,
}

/// The session's keeper of the placement.
pub struct Keeper {
    /// Where it is kept.
    keeping: Keeping,
    /// The state folder's placement.json (none without a state folder).
    file: Option<PathBuf>,
    /// The kept scale.
    scale: f32,
    /// Whether the hologram has been placed (the kept placement has had its turn).
    placed: bool,
    /// Where the placement is kept, for the report.
    description: String,
}

impl Keeper {
    /// Finds where this session keeps the placement and what was kept
    /// there: with `options.forget`, forgets it instead. `base_is_unbounded`:
    /// whether the session's reference space is UNBOUNDED_MSFT.
    pub fn open<G: xr::Graphics>(
        session: &xr::Session<G>,
        base_is_unbounded: bool,
        options: &KeepingOptions,
    ) -> Result<Self, XrError> {
        let file = options
            .folder
            .as_ref()
            .map(|folder| folder.join(PLACEMENT_FILE));
        let mut keeper = Keeper {
            keeping: Keeping::Nowhere,
            file,
            scale: 1.0,
            placed: false,
            description: String::new(),
        };
        let Some(path) = keeper.file.clone() else {
            keeper.description = "nowhere: no state folder".into();
            return Ok(keeper);
        };
        let offered = session
            .enumerate_reference_spaces()
            .map_err(xr_call("xrEnumerateReferenceSpaces"))?;
        if let Some(store) = AnchorStore::connect(session)? {
            keeper.description = format!(
                "spatial anchor {} (scale in {})",
                crate::xr::room::anchor::KEPT_ANCHOR_NAME,
                path.display()
            );
            let kept = if options.forget {
                store.forget()?;
                forget_file(&path);
                None
            } else {
                match load_file(&path, KeptIn::SpatialAnchor) {
                    Some(kept) => {
                        keeper.scale = kept.scale;
                        store.load(session)?
                    }
                    None => None,
                }
            };
            keeper.keeping = Keeping::Anchor { store, kept };
        } else if base_is_unbounded || offered.contains(&xr::ReferenceSpaceType::STAGE) {
            let (kept_in, stage) = if base_is_unbounded {
                (KeptIn::Unbounded, None)
            } else {
                let stage = session
                    .create_reference_space(xr::ReferenceSpaceType::STAGE, xr::Posef::IDENTITY)
                    .map_err(xr_call("xrCreateReferenceSpace"))?;
                (KeptIn::Stage, Some(stage))
            };
            keeper.description = format!("{} ({})", path.display(), kept_in.name());
            let kept = if options.forget {
                forget_file(&path);
                None
            } else {
                load_file(&path, kept_in).and_then(|kept| {
                    keeper.scale = kept.scale;
                    kept.pose
                })
            };
            keeper.keeping = Keeping::File {
                kept_in,
                stage,
                kept,
            };
        } else {
            keeper.description =
                "nowhere: the runtime offers no space that survives the session (STAGE or UNBOUNDED_MSFT)"
                    .into();
            log::info!(
                "the hologram's placement is not kept: {}",
                keeper.description
            );
        }
        Ok(keeper)
    }

    /// Where the placement is kept, for the report.
    pub fn description(&self) -> &str {
        &self.description
    }

    /// The kept placement as the app takes it for the frame at `time`,
    /// located in `base`; nothing once the hologram has been placed.
    pub fn kept(&self, base: &xr::Space, time: xr::Time) -> Result<Kept, XrError> {
        if self.placed {
            return Ok(Kept::None);
        }
        let located = |pose: Option<Pose>| match pose {
            Some(pose) => Kept::Located(Placement::at(pose).scaled(self.scale)),
            None => Kept::Pending,
        };
        Ok(match &self.keeping {
            Keeping::Anchor {
                kept: Some(anchor), ..
            } => located(located_pose(&anchor.space, base, time)?.map(pose_from_xr)),
            Keeping::File {
                stage,
                kept: Some(pose),
                ..
            } => match stage {
                Some(stage) => located(
                    located_pose(stage, base, time)?
                        .map(|stage_in_base| pose_from_xr(stage_in_base).compose(pose)),
                ),
                None => located(Some(*pose)),
            },
            _ => Kept::None,
        })
    }

    /// The hologram was placed: the kept placement has had its turn. The
    /// kept anchor, when that is where the app placed it (`adopt`), to pin
    /// the hologram with.
    pub fn placed(&mut self, adopt: bool) -> Option<AnchorSpace> {
        self.placed = true;
        match &mut self.keeping {
            Keeping::Anchor { kept, .. } => kept.take().filter(|_| adopt),
            Keeping::File { kept, .. } => {
                *kept = None;
                None
            }
            Keeping::Nowhere => None,
        }
    }

    /// Keeps `placement` (in `base`, at `time`), which `anchor` now pins
    /// (if the runtime made one); a failure is a warning.
    pub fn keep(
        &self,
        placement: &Placement,
        anchor: Option<&AnchorSpace>,
        base: &xr::Space,
        time: xr::Time,
    ) -> Result<(), XrError> {
        let Some(path) = &self.file else {
            return Ok(());
        };
        let kept = match &self.keeping {
            Keeping::Anchor { store, .. } => {
                let Some(anchor) = anchor else {
                    log::warn!(
                        "the placement is not kept: the runtime made no spatial anchor for it"
                    );
                    return Ok(());
                };
                store.persist(anchor)?;
                KeptPlacement::of(placement, KeptIn::SpatialAnchor)
            }
            Keeping::File { kept_in, stage, .. } => {
                let pose = match stage {
                    Some(stage) => match located_pose(base, stage, time)? {
                        Some(base_in_stage) => pose_from_xr(base_in_stage).compose(&placement.pose),
                        None => {
                            log::warn!(
                                "the placement is not kept: the runtime cannot locate its STAGE space now"
                            );
                            return Ok(());
                        }
                    },
                    None => placement.pose,
                };
                KeptPlacement::of(&Placement { pose, ..*placement }, *kept_in)
            }
            Keeping::Nowhere => return Ok(()),
        };
        if let Err(error) = kept::save(path, &kept) {
            log::warn!("{error}");
        }
        Ok(())
    }
}

/// The placement kept at `path` in `kept_in`, or `None` (with one warning
/// when the file is there but unusable).
fn load_file(path: &std::path::Path, kept_in: KeptIn) -> Option<KeptPlacement> {
    kept::load(path, kept_in).unwrap_or_else(|warning| {
        log::warn!("{warning}");
        None
    })
}

/// Removes the file, warning when it cannot be removed.
fn forget_file(path: &std::path::Path) {
    if let Err(error) = kept::forget(path) {
        log::warn!("{error}");
    }
}
