//! Mixed Reality Capture's first-person observer view (XR_MSFT_secondary_view_configuration with XR_MSFT_first_person_observer): its own swapchains and renderer, and the raw xrBeginSession and xrWaitFrame calls that carry the secondary view configuration, which the openxr crate's wrappers cannot chain.

use openxr as xr;

use crate::xr::error::{XrError, xr_call};
use crate::xr::graphics::swapchain::{StereoSwapchain, SwapchainKind};
use crate::xr::graphics::{GraphicsBinding, create_swapchain};
use crate::xr::runtime::instance::Runtime;
use crate::xr::session::VIEW_TYPE;
use crate::xr::session::layer::OBSERVER_VIEW;

/// The observer view: a renderer on its own swapchains (two layers, as the
/// renderer draws both eyes; layer 0 is submitted) and what this frame is
/// for it. Fields drop in order: the renderer before the swapchains.
pub struct Observer<B: GraphicsBinding> {
    /// The renderer and its targets on the observer's swapchain images.
    pub frames: B::Frames,
    /// Colour images.
    pub color: StereoSwapchain<B::Api>,
    /// Depth images.
    pub depth: StereoSwapchain<B::Api>,
    /// The view as located for the frame being built.
    pub view: xr::View,
    /// The runtime said, at this frame's xrWaitFrame, that the view is active.
    pub active: bool,
    /// The view was drawn for this frame.
    pub drawn: bool,
}

impl<B: GraphicsBinding> Observer<B> {
    /// The observer view where the runtime has it (both extensions enabled,
    /// the view configuration listed), sized as the runtime recommends,
    /// for a `grid_width` × `grid_height` heightmap; `None` elsewhere.
    ///
    /// # Safety
    /// The observer must be dropped before the session and `graphics`.
    pub unsafe fn create(
        runtime: &Runtime,
        graphics: &B,
        session: &xr::Session<B::Api>,
        grid_width: u32,
        grid_height: u32,
    ) -> Result<Option<Self>, XrError> {
        if !runtime.extensions.observer {
            return Ok(None);
        }
        let listed = runtime
            .instance
            .enumerate_view_configurations(runtime.system)
            .map_err(xr_call("xrEnumerateViewConfigurations"))?;
        if !listed.contains(&OBSERVER_VIEW) {
            log::info!("the runtime lists no first-person observer view");
            return Ok(None);
        }
        let views = runtime
            .instance
            .enumerate_view_configuration_views(runtime.system, OBSERVER_VIEW)
            .map_err(xr_call("xrEnumerateViewConfigurationViews"))?;
        let [view] = views.as_slice() else {
            return Err(XrError::UnequalViews);
        };
        let (width, height) = (
            view.recommended_image_rect_width,
            view.recommended_image_rect_height,
        );
        log::info!("first-person observer view: {width}x{height}");
        let color = create_swapchain::<B>(session, SwapchainKind::Color, width, height)?;
        let depth = create_swapchain::<B>(session, SwapchainKind::Depth, width, height)?;
        // SAFETY: the frames are dropped before the swapchains (field order),
        // and the observer before the session (the caller's promise).
        let frames = unsafe { graphics.frames(&color, &depth, grid_width, grid_height) }?;
        Ok(Some(Observer {
            frames,
            color,
            depth,
            view: xr::View {
                pose: xr::Posef::IDENTITY,
                fov: xr::Fovf::default(),
            },
            active: false,
            drawn: false,
        }))
    }
}

/// xrBeginSession for the stereo view with the observer enabled as a
/// secondary view configuration.
pub fn begin_with_observer<G: xr::Graphics>(session: &xr::Session<G>) -> Result<(), XrError> {
    let enabled = [OBSERVER_VIEW];
    let secondary = xr::sys::SecondaryViewConfigurationSessionBeginInfoMSFT {
        ty: xr::sys::SecondaryViewConfigurationSessionBeginInfoMSFT::TYPE,
        next: std::ptr::null(),
        view_configuration_count: enabled.len() as u32,
        enabled_view_configuration_types: enabled.as_ptr(),
    };
    let info = xr::sys::SessionBeginInfo {
        ty: xr::sys::SessionBeginInfo::TYPE,
        next: &secondary as *const _ as *const _,
        primary_view_configuration_type: VIEW_TYPE,
    };
    // SAFETY: the session is live; `info` and what it points at live until
    // the call returns.
    let result = unsafe { (session.instance().fp().begin_session)(session.as_raw(), &info) };
    check("xrBeginSession", result)
}

/// xrWaitFrame asking, too, whether the observer view is active for the
/// frame: the frame's state and that answer.
pub fn wait_with_observer<G: xr::Graphics>(
    session: &xr::Session<G>,
) -> Result<(xr::FrameState, bool), XrError> {
    let mut states = [xr::sys::SecondaryViewConfigurationStateMSFT {
        ty: xr::sys::SecondaryViewConfigurationStateMSFT::TYPE,
        next: std::ptr::null_mut(),
        view_configuration_type: OBSERVER_VIEW,
        active: xr::sys::FALSE,
    }];
    let mut secondary = xr::sys::SecondaryViewConfigurationFrameStateMSFT {
        ty: xr::sys::SecondaryViewConfigurationFrameStateMSFT::TYPE,
        next: std::ptr::null_mut(),
        view_configuration_count: states.len() as u32,
        view_configuration_states: states.as_mut_ptr(),
    };
    let mut state = xr::sys::FrameState {
        ty: xr::sys::FrameState::TYPE,
        next: &mut secondary as *mut _ as *mut _,
        predicted_display_time: xr::Time::from_nanos(0),
        predicted_display_period: xr::Duration::from_nanos(0),
        should_render: xr::sys::FALSE,
    };
    let info = xr::sys::FrameWaitInfo {
        ty: xr::sys::FrameWaitInfo::TYPE,
        next: std::ptr::null(),
    };
    // SAFETY: the session is live; the structures live until the call
    // returns, and `states` has room for the one configuration enabled.
    let result =
        unsafe { (session.instance().fp().wait_frame)(session.as_raw(), &info, &mut state) };
    check("xrWaitFrame", result)?;
    let active = states[0].view_configuration_type == OBSERVER_VIEW && states[0].active.into();
    Ok((
        xr::FrameState {
            predicted_display_time: state.predicted_display_time,
            predicted_display_period: state.predicted_display_period,
            should_render: state.should_render.into(),
        },
        active,
    ))
}

/// `result` as the error of `call` when it failed.
fn check(call: &'static str, result: xr::sys::Result) -> Result<(), XrError> {
    if result.into_raw() < 0 {
        Err(XrError::Xr { call, result })
    } else {
        Ok(())
    }
}
