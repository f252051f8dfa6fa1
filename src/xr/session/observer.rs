//! Mixed Reality Capture's first-person observer view (XR_MSFT_secondary_view_configuration with XR_MSFT_first_person_observer): its renderer, its own swapchains made at the size the runtime recommends when the view becomes active, and the raw xrBeginSession and xrWaitFrame calls that carry the secondary view configuration, which the openxr crate's wrappers cannot chain.

use openxr as xr;

use crate::xr::error::{XrError, xr_call};
use crate::xr::graphics::swapchain::{StereoSwapchain, SwapchainKind};
use crate::xr::graphics::{FormatOf, GraphicsBinding, StereoFrames, swapchain_format};
use crate::xr::runtime::calls::{CallKind, runtime_call};
use crate::xr::runtime::instance::Runtime;
use crate::xr::session::VIEW_TYPE;
use crate::xr::session::layer::OBSERVER_VIEW;

/// The observer's colour and depth swapchains (two layers each, as the
/// renderer draws both eyes; layer 0 is submitted), created for the
/// observer's view configuration.
pub struct ObserverSwapchains<G: xr::Graphics> {
    /// Colour images.
    pub color: StereoSwapchain<G>,
    /// Depth images.
    pub depth: StereoSwapchain<G>,
}

/// The observer view: a renderer, its swapchains once the view has been
/// active, and what this frame is for it. Fields drop in order: the
/// renderer (and its targets on the swapchains) before the swapchains.
pub struct Observer<B: GraphicsBinding> {
    /// The renderer; its targets are on `swapchains` when there are any.
    pub frames: B::Frames,
    /// Made when the runtime first says the view is active, at the size it
    /// recommends then, and made again when it recommends another size on a
    /// later activation; `None` before the view was ever active.
    pub swapchains: Option<ObserverSwapchains<B::Api>>,
    /// The colour format the renderer draws in.
    color_format: FormatOf<B>,
    /// The depth format the renderer draws in.
    depth_format: FormatOf<B>,
    /// The system, whose recommended size for the view is asked for.
    system: xr::SystemId,
    /// The view as located for the frame being built.
    pub view: xr::View,
    /// The runtime said, at this frame's xrWaitFrame, that the view is active.
    pub active: bool,
    /// The view was drawn for this frame.
    pub drawn: bool,
}

impl<B: GraphicsBinding> Observer<B> {
    /// The observer view where the runtime has it (both extensions enabled,
    /// the view configuration listed), with a renderer for a
    /// `grid_width` × `grid_height` heightmap and no swapchains yet (the
    /// runtime gives the view's size when it becomes active); `None`
    /// elsewhere.
    pub fn create(
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
        let color_format = swapchain_format::<B>(session, SwapchainKind::Color)?;
        let depth_format = swapchain_format::<B>(session, SwapchainKind::Depth)?;
        let frames = graphics.renderer(color_format, depth_format, grid_width, grid_height)?;
        Ok(Some(Observer {
            frames,
            swapchains: None,
            color_format,
            depth_format,
            system: runtime.system,
            view: xr::View {
                pose: xr::Posef::IDENTITY,
                fov: xr::Fovf::default(),
            },
            active: false,
            drawn: false,
        }))
    }

    /// The runtime said the view became active (it was not at the frame
    /// before): the specification lets the runtime change the view's
    /// recommended size then, so it is asked for again, and the swapchains
    /// are made at that size (with the observer's view configuration
    /// chained) when there are none or theirs differs; the renderer's
    /// targets move onto them and the old swapchains are destroyed.
    pub fn activated(&mut self, session: &xr::Session<B::Api>) -> Result<(), XrError> {
        let views = watched("xrEnumerateViewConfigurationViews", || {
            session
                .instance()
                .enumerate_view_configuration_views(self.system, OBSERVER_VIEW)
        })
        .map_err(xr_call("xrEnumerateViewConfigurationViews"))?;
        let [view] = views.as_slice() else {
            return Err(XrError::UnequalViews);
        };
        let (width, height) = (
            view.recommended_image_rect_width,
            view.recommended_image_rect_height,
        );
        if let Some(old) = &self.swapchains
            && (old.color.width, old.color.height) == (width, height)
        {
            return Ok(());
        }
        log::info!("first-person observer view active: {width}x{height}");
        // The old targets are dropped by the retarget below: the GPU must be
        // done with them first.
        self.frames.wait_idle()?;
        let create = |kind, format| {
            watched("xrCreateSwapchain/xrEnumerateSwapchainImages", || {
                StereoSwapchain::create(session, kind, format, width, height, Some(OBSERVER_VIEW))
            })
        };
        let swapchains = ObserverSwapchains {
            color: create(SwapchainKind::Color, self.color_format)?,
            depth: create(SwapchainKind::Depth, self.depth_format)?,
        };
        // SAFETY: the GPU is idle; the frames are dropped before the new
        // swapchains (field order; each swapchain keeps the session alive),
        // which replace the old ones only after the old targets are gone.
        unsafe { B::retarget(&mut self.frames, &swapchains.color, &swapchains.depth) }?;
        // The old swapchains (if any) are destroyed here, their targets gone.
        self.swapchains = Some(swapchains);
        Ok(())
    }
}

/// Runs `call`, a runtime call made from the frame loop, marked for the
/// watchdog.
fn watched<T>(name: &'static str, call: impl FnOnce() -> T) -> T {
    runtime_call(CallKind::Watched, name, call)
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
