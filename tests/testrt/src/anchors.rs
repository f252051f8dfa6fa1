//! XR_MSFT_spatial_anchor: an anchor pins a pose of the room; its space is
//! located there. The emulated room's map never changes, so anchors never
//! drift (a HoloLens 2 refines its map and anchors move with it).
//! XR_MSFT_spatial_anchor_persistence: the app's anchor store, kept in
//! `anchor-store.json` in `HOLOTERRAIN_TESTRT_OUT` (written whole after
//! every change, read at xrCreateInstance), so a persisted anchor is there
//! in the next run, at the same pose of the room.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use glam::{Quat, Vec3};
use holoterrain::atomic_file;
use holoterrain::input::Pose;
use openxr_sys as xr;
use serde::{Deserialize, Serialize};
use xr::Handle as _;

use crate::layers::check_pose;
use crate::spaces::{
    Space, SpaceKind, add_space, check_time, compose, locate_in_room, pose_from_xr,
};
use crate::state::{Failure, Runtime, XrResult, invalid, lookup, new_handle, with_runtime};
use crate::structs::{check_chain, fixed_str, input, out_value, two_call, write_fixed};

/// The anchor store's file in the output folder.
pub const STORE_FILE: &str = "anchor-store.json";

/// A spatial anchor.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Anchor {
    /// The session it belongs to.
    pub session: u64,
    /// Where it is in the room.
    pub pose: Pose,
}

/// xrCreateSpatialAnchorMSFT: fails with
/// XR_ERROR_CREATE_SPATIAL_ANCHOR_FAILED_MSFT where the space cannot be
/// located at that time.
///
/// # Safety
/// The arguments are the application's, as the OpenXR API defines them.
pub unsafe extern "system" fn create_spatial_anchor(
    session: xr::Session,
    create_info: *const xr::SpatialAnchorCreateInfoMSFT,
    anchor: *mut xr::SpatialAnchorMSFT,
) -> xr::Result {
    with_runtime("xrCreateSpatialAnchorMSFT", |runtime| {
        let session = session.into_raw();
        lookup(&runtime.sessions, session, "XrSession")?;
        // SAFETY: the application's pointers.
        let info = unsafe { input(create_info, "createInfo") }?;
        // SAFETY: the chain is the application's.
        unsafe { check_chain(info.next, &[], "createInfo") }?;
        let space: Space = *lookup(&runtime.spaces, info.space.into_raw(), "XrSpace")?;
        if space.session != session {
            return Err(invalid("createInfo.space belongs to another session"));
        }
        check_pose(&info.pose, "createInfo.pose")?;
        check_time(info.time, "createInfo.time")?;
        // SAFETY: the application's output pointer.
        let output = unsafe { out_value(anchor, "anchor") }?;
        let located = locate_in_room(runtime, &space, info.time.as_nanos())
            .ok_or_else(|| Failure::quiet(xr::Result::ERROR_CREATE_SPATIAL_ANCHOR_FAILED_MSFT))?;
        let handle = new_handle();
        runtime.anchors.insert(
            handle,
            Anchor {
                session,
                pose: compose(&located, &pose_from_xr(info.pose)),
            },
        );
        *output = xr::SpatialAnchorMSFT::from_raw(handle);
        Ok(xr::Result::SUCCESS)
    })
}

/// xrCreateSpatialAnchorSpaceMSFT.
///
/// # Safety
/// The arguments are the application's, as the OpenXR API defines them.
pub unsafe extern "system" fn create_spatial_anchor_space(
    session: xr::Session,
    create_info: *const xr::SpatialAnchorSpaceCreateInfoMSFT,
    space: *mut xr::Space,
) -> xr::Result {
    with_runtime("xrCreateSpatialAnchorSpaceMSFT", |runtime| {
        let session = session.into_raw();
        lookup(&runtime.sessions, session, "XrSession")?;
        // SAFETY: the application's pointers.
        let info = unsafe { input(create_info, "createInfo") }?;
        // SAFETY: the chain is the application's.
        unsafe { check_chain(info.next, &[], "createInfo") }?;
        let anchor = *lookup(
            &runtime.anchors,
            info.anchor.into_raw(),
            "XrSpatialAnchorMSFT",
        )?;
        if anchor.session != session {
            return Err(invalid("createInfo.anchor belongs to another session"));
        }
        check_pose(&info.pose_in_anchor_space, "createInfo.poseInAnchorSpace")?;
        // SAFETY: the application's output pointer.
        let output = unsafe { out_value(space, "space") }?;
        let handle = add_space(
            runtime,
            Space {
                session,
                kind: SpaceKind::Anchor(anchor.pose),
                offset: pose_from_xr(info.pose_in_anchor_space),
            },
        );
        *output = xr::Space::from_raw(handle);
        Ok(xr::Result::SUCCESS)
    })
}

/// xrDestroySpatialAnchorMSFT (spaces made from it stay where it was).
///
/// # Safety
/// The arguments are the application's, as the OpenXR API defines them.
pub unsafe extern "system" fn destroy_spatial_anchor(anchor: xr::SpatialAnchorMSFT) -> xr::Result {
    with_runtime("xrDestroySpatialAnchorMSFT", |runtime| {
        lookup(&runtime.anchors, anchor.into_raw(), "XrSpatialAnchorMSFT")?;
        runtime.anchors.remove(&anchor.into_raw());
        Ok(xr::Result::SUCCESS)
    })
}

/// A connection to the app's anchor store.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct StoreConnection {
    /// The session it belongs to.
    pub session: u64,
}

/// One persisted anchor as the store file holds it.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
struct StoredPose {
    /// Metres in the room.
    position: [f32; 3],
    /// Quaternion x y z w.
    orientation: [f32; 4],
}

/// The app's spatial anchor store: persisted anchors by name.
#[derive(Debug, Clone, Default)]
pub struct AnchorStore {
    /// Where it is kept (nothing is kept without an output folder).
    path: Option<PathBuf>,
    /// The anchors, by name, at their poses in the room.
    anchors: BTreeMap<String, Pose>,
}

impl AnchorStore {
    /// The store kept in `out` (empty when there is no file yet), or the
    /// one line saying why its file cannot be used.
    pub fn open(out: Option<&Path>) -> Result<Self, String> {
        let Some(out) = out else {
            return Ok(Self::default());
        };
        let path = out.join(STORE_FILE);
        let anchors = match std::fs::read_to_string(&path) {
            Ok(text) => serde_json::from_str::<BTreeMap<String, StoredPose>>(&text)
                .map_err(|error| {
                    format!(
                        "{}: {} is not an anchor store ({error}); remove it",
                        crate::config::OUT_VARIABLE,
                        path.display()
                    )
                })?
                .into_iter()
                .map(|(name, pose)| {
                    let pose = Pose::new(
                        Vec3::from_array(pose.position),
                        Quat::from_array(pose.orientation),
                    );
                    (name, pose)
                })
                .collect(),
            Err(error) if error.kind() == std::io::ErrorKind::NotFound => BTreeMap::new(),
            Err(error) => {
                return Err(format!(
                    "{}: cannot read {}: {error}",
                    crate::config::OUT_VARIABLE,
                    path.display()
                ));
            }
        };
        Ok(Self {
            path: Some(path),
            anchors,
        })
    }

    /// Whether an anchor is kept under `name`.
    pub fn contains(&self, name: &str) -> bool {
        self.anchors.contains_key(name)
    }

    /// The names kept, in order.
    pub fn names(&self) -> Vec<String> {
        self.anchors.keys().cloned().collect()
    }

    /// Writes the store's file whole; the failure, as a problem line.
    fn save(&self) -> Result<(), String> {
        let Some(path) = &self.path else {
            return Ok(());
        };
        let stored: BTreeMap<&String, StoredPose> = self
            .anchors
            .iter()
            .map(|(name, pose)| {
                (
                    name,
                    StoredPose {
                        position: pose.position.to_array(),
                        orientation: pose.orientation.to_array(),
                    },
                )
            })
            .collect();
        let json = serde_json::to_vec_pretty(&stored).map_err(|error| error.to_string())?;
        atomic_file::write(path, &json)
            .map_err(|error| format!("writing {}: {error}", path.display()))
    }
}

/// A persisted anchor's name, checked: NUL-terminated within its array and not empty.
fn anchor_name(name: &xr::SpatialAnchorPersistenceNameMSFT, what: &str) -> XrResult<String> {
    let text = fixed_str(&name.name, what)?;
    if text.is_empty() {
        return Err(Failure::violation(
            xr::Result::ERROR_SPATIAL_ANCHOR_NAME_INVALID_MSFT,
            format!("{what} is empty"),
        ));
    }
    Ok(text.to_owned())
}

/// Changes the store with `change` and writes its file (a failure to write
/// is the runtime's problem, recorded, not the application's).
fn change_store(runtime: &mut Runtime, change: impl FnOnce(&mut BTreeMap<String, Pose>)) {
    change(&mut runtime.anchor_store.anchors);
    if let Err(problem) = runtime.anchor_store.save() {
        runtime.record.note_failure(problem);
    }
}

/// xrCreateSpatialAnchorStoreConnectionMSFT.
///
/// # Safety
/// The arguments are the application's, as the OpenXR API defines them.
pub unsafe extern "system" fn create_spatial_anchor_store_connection(
    session: xr::Session,
    store: *mut xr::SpatialAnchorStoreConnectionMSFT,
) -> xr::Result {
    with_runtime("xrCreateSpatialAnchorStoreConnectionMSFT", |runtime| {
        let session = session.into_raw();
        lookup(&runtime.sessions, session, "XrSession")?;
        // SAFETY: the application's output pointer.
        let output = unsafe { out_value(store, "spatialAnchorStore") }?;
        let handle = new_handle();
        runtime
            .anchor_stores
            .insert(handle, StoreConnection { session });
        *output = xr::SpatialAnchorStoreConnectionMSFT::from_raw(handle);
        Ok(xr::Result::SUCCESS)
    })
}

/// xrDestroySpatialAnchorStoreConnectionMSFT.
///
/// # Safety
/// The arguments are the application's, as the OpenXR API defines them.
pub unsafe extern "system" fn destroy_spatial_anchor_store_connection(
    store: xr::SpatialAnchorStoreConnectionMSFT,
) -> xr::Result {
    with_runtime("xrDestroySpatialAnchorStoreConnectionMSFT", |runtime| {
        lookup(
            &runtime.anchor_stores,
            store.into_raw(),
            "XrSpatialAnchorStoreConnectionMSFT",
        )?;
        runtime.anchor_stores.remove(&store.into_raw());
        Ok(xr::Result::SUCCESS)
    })
}

/// xrPersistSpatialAnchorMSFT: keeps the anchor's pose under its name,
/// replacing what was kept there.
///
/// # Safety
/// The arguments are the application's, as the OpenXR API defines them.
pub unsafe extern "system" fn persist_spatial_anchor(
    store: xr::SpatialAnchorStoreConnectionMSFT,
    persistence_info: *const xr::SpatialAnchorPersistenceInfoMSFT,
) -> xr::Result {
    with_runtime("xrPersistSpatialAnchorMSFT", |runtime| {
        let connection = *lookup(
            &runtime.anchor_stores,
            store.into_raw(),
            "XrSpatialAnchorStoreConnectionMSFT",
        )?;
        // SAFETY: the application's pointers.
        let info = unsafe { input(persistence_info, "spatialAnchorPersistenceInfo") }?;
        // SAFETY: the chain is the application's.
        unsafe { check_chain(info.next, &[], "spatialAnchorPersistenceInfo") }?;
        let name = anchor_name(
            &info.spatial_anchor_persistence_name,
            "spatialAnchorPersistenceInfo.spatialAnchorPersistenceName",
        )?;
        let anchor = *lookup(
            &runtime.anchors,
            info.spatial_anchor.into_raw(),
            "XrSpatialAnchorMSFT",
        )?;
        if anchor.session != connection.session {
            return Err(invalid(
                "spatialAnchorPersistenceInfo.spatialAnchor belongs to another session than the store connection",
            ));
        }
        change_store(runtime, |anchors| {
            anchors.insert(name, anchor.pose);
        });
        Ok(xr::Result::SUCCESS)
    })
}

/// xrEnumeratePersistedSpatialAnchorNamesMSFT.
///
/// # Safety
/// The arguments are the application's, as the OpenXR API defines them.
pub unsafe extern "system" fn enumerate_persisted_spatial_anchor_names(
    store: xr::SpatialAnchorStoreConnectionMSFT,
    capacity: u32,
    count_output: *mut u32,
    names: *mut xr::SpatialAnchorPersistenceNameMSFT,
) -> xr::Result {
    with_runtime("xrEnumeratePersistedSpatialAnchorNamesMSFT", |runtime| {
        lookup(
            &runtime.anchor_stores,
            store.into_raw(),
            "XrSpatialAnchorStoreConnectionMSFT",
        )?;
        let kept = runtime.anchor_store.names();
        // SAFETY: the application's pointers.
        unsafe {
            two_call(
                capacity,
                count_output,
                names,
                &kept,
                "spatialAnchorNames",
                |_| Ok(()),
                |slot, name| write_fixed(&mut slot.name, name),
            )
        }
    })
}

/// xrCreateSpatialAnchorFromPersistedNameMSFT: an anchor at the kept pose;
/// XR_ERROR_SPATIAL_ANCHOR_NAME_NOT_FOUND_MSFT when none is kept under the name.
///
/// # Safety
/// The arguments are the application's, as the OpenXR API defines them.
pub unsafe extern "system" fn create_spatial_anchor_from_persisted_name(
    session: xr::Session,
    create_info: *const xr::SpatialAnchorFromPersistedAnchorCreateInfoMSFT,
    anchor: *mut xr::SpatialAnchorMSFT,
) -> xr::Result {
    with_runtime("xrCreateSpatialAnchorFromPersistedNameMSFT", |runtime| {
        let session = session.into_raw();
        lookup(&runtime.sessions, session, "XrSession")?;
        // SAFETY: the application's pointers.
        let info = unsafe { input(create_info, "spatialAnchorCreateInfo") }?;
        // SAFETY: the chain is the application's.
        unsafe { check_chain(info.next, &[], "spatialAnchorCreateInfo") }?;
        let connection = *lookup(
            &runtime.anchor_stores,
            info.spatial_anchor_store.into_raw(),
            "XrSpatialAnchorStoreConnectionMSFT",
        )?;
        if connection.session != session {
            return Err(invalid(
                "spatialAnchorCreateInfo.spatialAnchorStore belongs to another session",
            ));
        }
        let name = anchor_name(
            &info.spatial_anchor_persistence_name,
            "spatialAnchorCreateInfo.spatialAnchorPersistenceName",
        )?;
        // SAFETY: the application's output pointer.
        let output = unsafe { out_value(anchor, "spatialAnchor") }?;
        let pose =
            *runtime.anchor_store.anchors.get(&name).ok_or_else(|| {
                Failure::quiet(xr::Result::ERROR_SPATIAL_ANCHOR_NAME_NOT_FOUND_MSFT)
            })?;
        let handle = new_handle();
        runtime.anchors.insert(handle, Anchor { session, pose });
        *output = xr::SpatialAnchorMSFT::from_raw(handle);
        Ok(xr::Result::SUCCESS)
    })
}

/// xrUnpersistSpatialAnchorMSFT.
///
/// # Safety
/// The arguments are the application's, as the OpenXR API defines them.
pub unsafe extern "system" fn unpersist_spatial_anchor(
    store: xr::SpatialAnchorStoreConnectionMSFT,
    name: *const xr::SpatialAnchorPersistenceNameMSFT,
) -> xr::Result {
    with_runtime("xrUnpersistSpatialAnchorMSFT", |runtime| {
        lookup(
            &runtime.anchor_stores,
            store.into_raw(),
            "XrSpatialAnchorStoreConnectionMSFT",
        )?;
        // SAFETY: the application's pointer, a plain structure.
        let name = unsafe { name.as_ref() }
            .ok_or_else(|| invalid("spatialAnchorPersistenceName is NULL"))?;
        let name = anchor_name(name, "spatialAnchorPersistenceName")?;
        if !runtime.anchor_store.contains(&name) {
            return Err(Failure::quiet(
                xr::Result::ERROR_SPATIAL_ANCHOR_NAME_NOT_FOUND_MSFT,
            ));
        }
        change_store(runtime, |anchors| {
            anchors.remove(&name);
        });
        Ok(xr::Result::SUCCESS)
    })
}

/// xrClearSpatialAnchorStoreMSFT.
///
/// # Safety
/// The arguments are the application's, as the OpenXR API defines them.
pub unsafe extern "system" fn clear_spatial_anchor_store(
    store: xr::SpatialAnchorStoreConnectionMSFT,
) -> xr::Result {
    with_runtime("xrClearSpatialAnchorStoreMSFT", |runtime| {
        lookup(
            &runtime.anchor_stores,
            store.into_raw(),
            "XrSpatialAnchorStoreConnectionMSFT",
        )?;
        change_store(runtime, BTreeMap::clear);
        Ok(xr::Result::SUCCESS)
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_store_keeps_its_anchors_across_runs_in_its_file() {
        let dir = tempfile::tempdir().unwrap();
        let mut store = AnchorStore::open(Some(dir.path())).unwrap();
        assert!(store.names().is_empty());
        let pose = Pose::new(Vec3::new(0.1, 0.75, -2.0), Quat::from_rotation_y(0.3));
        store.anchors.insert("holoterrain.placement".into(), pose);
        store.save().unwrap();
        let again = AnchorStore::open(Some(dir.path())).unwrap();
        assert!(again.contains("holoterrain.placement"));
        assert_eq!(again.anchors["holoterrain.placement"], pose);
    }

    #[test]
    fn a_corrupt_store_file_is_one_line_naming_it() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join(STORE_FILE), "{ not json").unwrap();
        let line = AnchorStore::open(Some(dir.path())).unwrap_err();
        assert!(
            line.contains(STORE_FILE) && line.ends_with("remove it"),
            "{line}"
        );
        assert_eq!(line.lines().count(), 1);
    }

    #[test]
    fn an_empty_name_is_invalid() {
        let empty = xr::SpatialAnchorPersistenceNameMSFT {
            name: [0; xr::MAX_SPATIAL_ANCHOR_NAME_SIZE_MSFT],
        };
        let failure = anchor_name(&empty, "name").unwrap_err();
        assert_eq!(
            failure.result,
            xr::Result::ERROR_SPATIAL_ANCHOR_NAME_INVALID_MSFT
        );
    }
}
