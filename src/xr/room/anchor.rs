//! Pinning the hologram with an XR_MSFT_spatial_anchor (the anchor and an
//! XrSpace that follows it as the runtime refines its map of the room),
//! and keeping that anchor between runs in the app's spatial anchor store
//! (XR_MSFT_spatial_anchor_persistence) under the name
//! [`KEPT_ANCHOR_NAME`].
use std::mem::ManuallyDrop;

use openxr as xr;
use xr::sys::Handle as _;

use crate::xr::error::{XrError, xr_call};
use crate::xr::runtime::calls::calling;

/// The name the hologram's anchor is kept under in the app's anchor store.
pub const KEPT_ANCHOR_NAME: &str = "holoterrain.placement";

/// A spatial anchor and the space located at it.
pub struct AnchorSpace {
    /// The space whose origin is the anchor; destroyed in `Drop`, before the anchor.
    pub space: ManuallyDrop<xr::Space>,
    /// The anchor itself, destroyed in `Drop`.
    anchor: xr::sys::SpatialAnchorMSFT,
    /// The extension's function table.
    functions: xr::raw::SpatialAnchorMSFT,
}

impl AnchorSpace {
    /// Anchors `pose` (in `base`, at `time`). `Ok(None)` when the runtime
    /// cannot anchor there right now (e.g. it cannot locate `base`).
    pub fn create<G: xr::Graphics>(
        session: &xr::Session<G>,
        base: &xr::Space,
        pose: xr::Posef,
        time: xr::Time,
    ) -> Result<Option<Self>, XrError> {
        let Some(functions) = session.instance().exts().msft_spatial_anchor else {
            return Ok(None);
        };
        let anchor_info = xr::sys::SpatialAnchorCreateInfoMSFT {
            ty: xr::sys::SpatialAnchorCreateInfoMSFT::TYPE,
            next: std::ptr::null(),
            space: base.as_raw(),
            pose,
            time,
        };
        let mut anchor = xr::sys::SpatialAnchorMSFT::from_raw(0);
        // SAFETY: the session and base space are alive; the extension is enabled
        // (its function table is present); anchor_info lives across the call.
        let result = unsafe {
            (functions.create_spatial_anchor)(session.as_raw(), &anchor_info, &mut anchor)
        };
        if result == xr::sys::Result::ERROR_CREATE_SPATIAL_ANCHOR_FAILED_MSFT {
            log::warn!(
                "the runtime could not create a spatial anchor; the hologram stays at a fixed pose"
            );
            return Ok(None);
        }
        if result.into_raw() < 0 {
            return Err(xr_call("xrCreateSpatialAnchorMSFT")(result));
        }
        let pinned = Self::of_anchor(session, anchor, functions)?;
        log::info!("hologram pinned with a spatial anchor");
        Ok(Some(pinned))
    }

    /// The space of `anchor`, which this takes over (destroyed on failure too).
    fn of_anchor<G: xr::Graphics>(
        session: &xr::Session<G>,
        anchor: xr::sys::SpatialAnchorMSFT,
        functions: xr::raw::SpatialAnchorMSFT,
    ) -> Result<Self, XrError> {
        let space_info = xr::sys::SpatialAnchorSpaceCreateInfoMSFT {
            ty: xr::sys::SpatialAnchorSpaceCreateInfoMSFT::TYPE,
            next: std::ptr::null(),
            anchor,
            pose_in_anchor_space: xr::Posef::IDENTITY,
        };
        let mut raw_space = xr::sys::Space::from_raw(0);
        // SAFETY: the anchor was just created on this session.
        let result = unsafe {
            (functions.create_spatial_anchor_space)(session.as_raw(), &space_info, &mut raw_space)
        };
        if result.into_raw() < 0 {
            // SAFETY: the anchor is ours and nothing else refers to it.
            unsafe { (functions.destroy_spatial_anchor)(anchor) };
            return Err(xr_call("xrCreateSpatialAnchorSpaceMSFT")(result));
        }
        // SAFETY: raw_space is a valid space of this session; Space takes ownership
        // and destroys it when dropped, which `Drop` does before destroying the anchor.
        let space = unsafe { xr::Space::reference_from_raw(session.clone(), raw_space) };
        Ok(Self {
            space: ManuallyDrop::new(space),
            anchor,
            functions,
        })
    }
}

/// A connection to the app's spatial anchor store.
pub struct AnchorStore {
    /// The connection, destroyed in `Drop`.
    store: xr::sys::SpatialAnchorStoreConnectionMSFT,
    /// XR_MSFT_spatial_anchor_persistence's functions.
    functions: xr::raw::SpatialAnchorPersistenceMSFT,
    /// XR_MSFT_spatial_anchor's functions, for anchors made from the store.
    anchor_functions: xr::raw::SpatialAnchorMSFT,
}

/// [`KEPT_ANCHOR_NAME`] as the extension takes names.
fn persisted_name() -> xr::sys::SpatialAnchorPersistenceNameMSFT {
    let mut name = xr::sys::SpatialAnchorPersistenceNameMSFT {
        name: [0; xr::sys::MAX_SPATIAL_ANCHOR_NAME_SIZE_MSFT],
    };
    for (slot, byte) in name.name.iter_mut().zip(KEPT_ANCHOR_NAME.bytes()) {
        *slot = byte as std::ffi::c_char;
    }
    name
}

impl AnchorStore {
    /// Connects to the store of `session`'s app; `Ok(None)` when the
    /// instance lacks XR_MSFT_spatial_anchor_persistence (or
    /// XR_MSFT_spatial_anchor).
    pub fn connect<G: xr::Graphics>(session: &xr::Session<G>) -> Result<Option<Self>, XrError> {
        let extensions = session.instance().exts();
        let (Some(functions), Some(anchor_functions)) = (
            extensions.msft_spatial_anchor_persistence,
            extensions.msft_spatial_anchor,
        ) else {
            return Ok(None);
        };
        let mut store = xr::sys::SpatialAnchorStoreConnectionMSFT::NULL;
        // SAFETY: the session is live and the extension enabled (its table exists).
        let result = unsafe {
            (functions.create_spatial_anchor_store_connection)(session.as_raw(), &mut store)
        };
        if result.into_raw() < 0 {
            return Err(xr_call("xrCreateSpatialAnchorStoreConnectionMSFT")(result));
        }
        Ok(Some(Self {
            store,
            functions,
            anchor_functions,
        }))
    }

    /// Keeps `anchor` under [`KEPT_ANCHOR_NAME`], replacing the one kept before.
    pub fn persist(&self, anchor: &AnchorSpace) -> Result<(), XrError> {
        let info = xr::sys::SpatialAnchorPersistenceInfoMSFT {
            ty: xr::sys::SpatialAnchorPersistenceInfoMSFT::TYPE,
            next: std::ptr::null(),
            spatial_anchor_persistence_name: persisted_name(),
            spatial_anchor: anchor.anchor,
        };
        // SAFETY: the store and the anchor are live; `info` outlives the call.
        let result = unsafe { (self.functions.persist_spatial_anchor)(self.store, &info) };
        if result.into_raw() < 0 {
            return Err(xr_call("xrPersistSpatialAnchorMSFT")(result));
        }
        Ok(())
    }

    /// The anchor kept under [`KEPT_ANCHOR_NAME`], as a space; `Ok(None)`
    /// when none is kept.
    pub fn load<G: xr::Graphics>(
        &self,
        session: &xr::Session<G>,
    ) -> Result<Option<AnchorSpace>, XrError> {
        let info = xr::sys::SpatialAnchorFromPersistedAnchorCreateInfoMSFT {
            ty: xr::sys::SpatialAnchorFromPersistedAnchorCreateInfoMSFT::TYPE,
            next: std::ptr::null(),
            spatial_anchor_store: self.store,
            spatial_anchor_persistence_name: persisted_name(),
        };
        let mut anchor = xr::sys::SpatialAnchorMSFT::from_raw(0);
        // SAFETY: the session and store are live; `info` outlives the call.
        let result = unsafe {
            (self.functions.create_spatial_anchor_from_persisted_name)(
                session.as_raw(),
                &info,
                &mut anchor,
            )
        };
        if result == xr::sys::Result::ERROR_SPATIAL_ANCHOR_NAME_NOT_FOUND_MSFT {
            return Ok(None);
        }
        if result.into_raw() < 0 {
            return Err(xr_call("xrCreateSpatialAnchorFromPersistedNameMSFT")(
                result,
            ));
        }
        AnchorSpace::of_anchor(session, anchor, self.anchor_functions).map(Some)
    }

    /// Removes the anchor kept under [`KEPT_ANCHOR_NAME`], if there is one.
    pub fn forget(&self) -> Result<(), XrError> {
        let name = persisted_name();
        // SAFETY: the store is live; `name` outlives the call.
        let result = unsafe { (self.functions.unpersist_spatial_anchor)(self.store, &name) };
        if result.into_raw() < 0
            && result != xr::sys::Result::ERROR_SPATIAL_ANCHOR_NAME_NOT_FOUND_MSFT
        {
            return Err(xr_call("xrUnpersistSpatialAnchorMSFT")(result));
        }
        Ok(())
    }
}

impl Drop for AnchorStore {
    fn drop(&mut self) {
        calling("xrDestroySpatialAnchorStoreConnectionMSFT");
        // SAFETY: the connection belongs to a live session (the store is one
        // of the session's parts, dropped before it); nothing uses it after.
        unsafe { (self.functions.destroy_spatial_anchor_store_connection)(self.store) };
    }
}

impl Drop for AnchorSpace {
    fn drop(&mut self) {
        calling("xrDestroySpace");
        // SAFETY: `self.space` is never used again: this is the only place it
        // is dropped, and `self` goes away with this call. The anchor belongs
        // to a live session (the AnchorSpace is part of the session's parts and
        // dropped before the session), and the space made from it is already
        // destroyed, so nothing refers to the anchor any more.
        unsafe { ManuallyDrop::drop(&mut self.space) };
        calling("xrDestroySpatialAnchorMSFT");
        // SAFETY: as above, the anchor's space is gone and the session lives.
        unsafe { (self.functions.destroy_spatial_anchor)(self.anchor) };
    }
}
