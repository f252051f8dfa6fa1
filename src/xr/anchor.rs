//! Pinning the hologram with an XR_MSFT_spatial_anchor: the anchor and an
//! XrSpace that follows it as the runtime refines its map of the room.
use std::mem::ManuallyDrop;

use openxr as xr;
use xr::sys::Handle as _;

use super::error::{XrError, xr_call};

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
        log::info!("hologram pinned with a spatial anchor");
        Ok(Some(Self {
            space: ManuallyDrop::new(space),
            anchor,
            functions,
        }))
    }
}

impl Drop for AnchorSpace {
    fn drop(&mut self) {
        // SAFETY: `self.space` is never used again: this is the only place it
        // is dropped, and `self` goes away with this call. The anchor belongs
        // to a live session (the AnchorSpace is part of the session's parts and
        // dropped before the session), and the space made from it is already
        // destroyed, so nothing refers to the anchor any more.
        unsafe {
            ManuallyDrop::drop(&mut self.space);
            (self.functions.destroy_spatial_anchor)(self.anchor);
        }
    }
}
