//! One OpenXR session and what lives exactly as long as it: the session
//! with its frame waiter and stream, the reference and head spaces, input,
//! the anchor, the scene observer, the keeper of the placement, the
//! swapchains and the renderer's targets on them, and where the session
//! stands. Every call the frame loop makes to the runtime goes
//! through a method here (frame submission through `layer.rs`, events
//! through `events.rs`), so what wraps runtime calls wraps these.
//!
//! What outlives a session (the app, the scene builder, the run's record)
//! is the frame loop's (`frame_loop.rs`).

use openxr as xr;

use super::anchor::AnchorSpace;
use super::convert::{eye_from_xr, joints_from_xr, pose_from_xr, pose_to_xr};
use super::error::{XrError, xr_call};
use super::graphics::{GraphicsBinding, StereoFrames, create_swapchain};
use super::input::{HandProfiles, HandSample, Input, located_pose};
use super::keeping::{Keeper, KeepingOptions};
use super::layer::{ProjectionLayer, end_frame_with};
use super::runtime::Runtime;
use super::surfaces::SurfaceFinder;
use super::swapchain::{StereoSwapchain, SwapchainKind};
use crate::app::{FrameInput, HandInput, Placement, PlacementCause};
use crate::input::Hand;
use crate::render::scene::{FrameScene, VIEW_COUNT};

/// The view configuration: two eyes.
pub const VIEW_TYPE: xr::ViewConfigurationType = xr::ViewConfigurationType::PRIMARY_STEREO;

/// Where the session stands, from the runtime's state events.
#[derive(Debug, Clone, Copy, Default)]
pub struct SessionStatus {
    /// Between xrBeginSession and xrEndSession.
    pub running: bool,
    /// The runtime gives us input (FOCUSED).
    pub focused: bool,
    /// The user sees our frames (VISIBLE or FOCUSED); growth counts only
    /// display time up to visible frames.
    pub visible: bool,
}

/// What the report says of a session's set-up.
#[derive(Debug, Clone, Default)]
pub struct SessionFacts {
    /// The reference space: "UNBOUNDED_MSFT" or "LOCAL".
    pub reference_space: &'static str,
    /// Whether hand joints are tracked.
    pub hand_tracking: bool,
    /// Colour and depth swapchain formats.
    pub swapchain_formats: Vec<String>,
    /// Where the room's surfaces come from: "XR_MSFT_scene_understanding",
    /// "XR_EXT_plane_detection" or "none".
    pub surfaces: &'static str,
    /// Where the placement is kept between runs.
    pub placement_kept: String,
}

/// The session and what hangs off it. Fields drop in declaration order:
/// the renderer and its targets on the swapchain images first, then
/// OpenXR's objects, the session last.
pub struct Session<B: GraphicsBinding> {
    /// The renderer and its targets on the swapchain images.
    frames: B::Frames,
    /// The anchor pinning the hologram, when XR_MSFT_spatial_anchor made one.
    anchor: Option<AnchorSpace>,
    /// Finds the room's planes (scene understanding or plane detection).
    surface_finder: Option<SurfaceFinder>,
    /// Where the placement is kept between runs, and what was kept.
    keeper: Keeper,
    /// Actions, pose spaces and hand trackers.
    input: Input,
    /// The head (VIEW space).
    head: xr::Space,
    /// The app's reference space (UNBOUNDED_MSFT or LOCAL).
    base: xr::Space,
    /// The colour swapchain.
    color: StereoSwapchain<B::Api>,
    /// The depth swapchain (the renderer always needs depth).
    depth: StereoSwapchain<B::Api>,
    /// Whether depth is submitted to the compositor (XR_KHR_composition_layer_depth).
    submit_depth: bool,
    /// The eyes as located for the frame being built; its layer shows them.
    views: [xr::View; VIEW_COUNT as usize],
    /// Paces the frames (xrWaitFrame).
    frame_waiter: xr::FrameWaiter,
    /// Begins and ends frames.
    frame_stream: xr::FrameStream<B::Api>,
    /// The session.
    session: xr::Session<B::Api>,
    /// Where the session stands.
    status: SessionStatus,
    /// What the report says of the set-up.
    facts: SessionFacts,
}

impl<B: GraphicsBinding> Session<B> {
    /// Creates the session on `graphics`' device with its spaces, input,
    /// scene observer, placement keeper (as `keeping` asks), swapchains, and
    /// the renderer's frames for a `grid_width` × `grid_height` heightmap.
    ///
    /// # Safety
    /// The session must be dropped before `graphics`.
    pub unsafe fn create(
        runtime: &Runtime,
        graphics: &B,
        grid_width: u32,
        grid_height: u32,
        keeping: &KeepingOptions,
    ) -> Result<Self, XrError> {
        // SAFETY: per this function's contract.
        let (session, frame_waiter, frame_stream) = unsafe { graphics.create_session(runtime) }?;
        let offered = session
            .enumerate_reference_spaces()
            .map_err(xr_call("xrEnumerateReferenceSpaces"))?;
        let (space_type, reference_space) = if runtime.extensions.unbounded_space
            && offered.contains(&xr::ReferenceSpaceType::UNBOUNDED_MSFT)
        {
            (xr::ReferenceSpaceType::UNBOUNDED_MSFT, "UNBOUNDED_MSFT")
        } else {
            (xr::ReferenceSpaceType::LOCAL, "LOCAL")
        };
        let base = session
            .create_reference_space(space_type, xr::Posef::IDENTITY)
            .map_err(xr_call("xrCreateReferenceSpace"))?;
        let head = session
            .create_reference_space(xr::ReferenceSpaceType::VIEW, xr::Posef::IDENTITY)
            .map_err(xr_call("xrCreateReferenceSpace"))?;
        let hand_tracking = runtime.system_tracks_hands()?;
        let input = Input::create(
            &runtime.instance,
            &session,
            HandProfiles {
                msft: runtime.extensions.msft_hand_interaction,
                ext: runtime.extensions.ext_hand_interaction,
            },
            hand_tracking,
        )?;
        let surface_finder = SurfaceFinder::open(runtime, &session)?;
        let keeper = Keeper::open(
            &session,
            space_type == xr::ReferenceSpaceType::UNBOUNDED_MSFT,
            keeping,
        )?;
        let (width, height) = eye_image_size(runtime)?;
        let color = create_swapchain::<B>(&session, SwapchainKind::Color, width, height)?;
        let depth = create_swapchain::<B>(&session, SwapchainKind::Depth, width, height)?;
        let swapchain_formats = vec![B::format_name(color.format), B::format_name(depth.format)];
        // SAFETY: the frames are dropped before the swapchains (field order).
        let frames = unsafe { graphics.frames(&color, &depth, grid_width, grid_height) }?;
        let facts = SessionFacts {
            reference_space,
            hand_tracking,
            swapchain_formats,
            surfaces: surface_finder.as_ref().map_or("none", SurfaceFinder::name),
            placement_kept: keeper.description().to_owned(),
        };
        Ok(Self {
            frames,
            anchor: None,
            surface_finder,
            keeper,
            input,
            head,
            base,
            color,
            depth,
            submit_depth: runtime.extensions.composition_depth,
            views: Default::default(),
            frame_waiter,
            frame_stream,
            session,
            status: SessionStatus::default(),
            facts,
        })
    }

    /// Where the session stands.
    pub fn status(&self) -> SessionStatus {
        self.status
    }

    /// What the report says of the set-up.
    pub fn facts(&self) -> &SessionFacts {
        &self.facts
    }

    /// Follows the runtime's move to `state`: begins the session on READY,
    /// ends it on STOPPING.
    pub fn state_changed(&mut self, state: xr::SessionState) -> Result<(), XrError> {
        self.status.focused = state == xr::SessionState::FOCUSED;
        self.status.visible =
            matches!(state, xr::SessionState::VISIBLE | xr::SessionState::FOCUSED);
        match state {
            xr::SessionState::READY => {
                self.session
                    .begin(VIEW_TYPE)
                    .map_err(xr_call("xrBeginSession"))?;
                self.status.running = true;
            }
            xr::SessionState::STOPPING => {
                self.session.end().map_err(xr_call("xrEndSession"))?;
                self.status.running = false;
            }
            _ => {}
        }
        Ok(())
    }

    /// Asks the runtime to end the session (xrRequestExitSession); false
    /// when it is not running, so there is nothing left to end.
    pub fn request_exit(&mut self) -> Result<bool, XrError> {
        match self.session.request_exit() {
            Ok(()) => Ok(true),
            Err(xr::sys::Result::ERROR_SESSION_NOT_RUNNING) => Ok(false),
            Err(result) => Err(XrError::Xr {
                call: "xrRequestExitSession",
                result,
            }),
        }
    }

    /// Waits until the runtime wants the next frame (xrWaitFrame).
    pub fn wait_frame(&mut self) -> Result<xr::FrameState, XrError> {
        self.frame_waiter.wait().map_err(xr_call("xrWaitFrame"))
    }

    /// Begins the frame the last `wait_frame` announced (xrBeginFrame).
    pub fn begin_frame(&mut self) -> Result<(), XrError> {
        self.frame_stream.begin().map_err(xr_call("xrBeginFrame"))
    }

    /// The app's input for the frame shown at `time`: the eyes (kept for
    /// the frame's layer), the head, both hands while focused (the runtime
    /// gives input only then), where the anchor puts the hologram, the
    /// room's surfaces once computed, and the kept placement.
    pub fn track(&mut self, time: xr::Time) -> Result<FrameInput, XrError> {
        let (_, views) = self
            .session
            .locate_views(VIEW_TYPE, time, &self.base)
            .map_err(xr_call("xrLocateViews"))?;
        self.views = views.try_into().map_err(|_| XrError::UnequalViews)?;
        let hands = if self.status.focused {
            self.input.sample(&self.session, &self.base, time)?
        } else {
            Default::default()
        };
        let hologram_located = match &self.anchor {
            Some(anchor) => located_pose(&anchor.space, &self.base, time)?.map(pose_from_xr),
            None => None,
        };
        let surfaces = match self.surface_finder.as_mut() {
            Some(finder) => finder.surfaces(&self.head, &self.base, time)?,
            None => None,
        };
        Ok(FrameInput {
            display_time_ns: time.as_nanos(),
            head: located_pose(&self.head, &self.base, time)?.map(pose_from_xr),
            hands: hands.each_ref().map(hand_input),
            views: self.views.each_ref().map(eye_from_xr),
            hologram_located,
            visible: self.status.visible,
            surfaces,
            persisted: self.keeper.persisted(&self.base, time)?,
        })
    }

    /// Pins the hologram at `placement`, which `cause` settled, with a
    /// spatial anchor where the runtime can make one (the kept anchor
    /// itself when the app placed it there), and keeps it for the next run
    /// after a manipulation; whether it is pinned.
    pub fn anchor(
        &mut self,
        placement: &Placement,
        cause: PlacementCause,
        time: xr::Time,
    ) -> Result<bool, XrError> {
        let kept_anchor = self.keeper.placed(cause == PlacementCause::Persisted);
        self.anchor = match kept_anchor {
            Some(kept) => Some(kept),
            None => {
                AnchorSpace::create(&self.session, &self.base, pose_to_xr(&placement.pose), time)?
            }
        };
        if cause.is_manipulation() {
            self.keeper
                .keep(placement, self.anchor.as_ref(), &self.base, time)?;
        }
        Ok(self.anchor.is_some())
    }

    /// A short haptic pulse on `hand`, while the session is focused.
    pub fn pulse(&self, hand: Hand) -> Result<(), XrError> {
        if !self.status.focused {
            return Ok(());
        }
        self.input.pulse(&self.session, hand.index())
    }

    /// Each hand's current interaction profile, "none" when it has none.
    pub fn interaction_profiles(&self) -> Result<[String; 2], XrError> {
        self.input
            .current_profiles(self.session.instance(), &self.session)
    }

    /// Acquires and waits for a colour and a depth image, draws `scene`
    /// into them, and releases them.
    pub fn draw(&mut self, scene: &FrameScene<'_>) -> Result<(), XrError> {
        let color_index = self
            .color
            .handle
            .acquire_image()
            .map_err(xr_call("xrAcquireSwapchainImage"))? as usize;
        let depth_index = self
            .depth
            .handle
            .acquire_image()
            .map_err(xr_call("xrAcquireSwapchainImage"))? as usize;
        for swapchain in [&mut self.color.handle, &mut self.depth.handle] {
            swapchain
                .wait_image(xr::Duration::INFINITE)
                .map_err(xr_call("xrWaitSwapchainImage"))?;
        }
        self.frames.render(color_index, depth_index, scene)?;
        for swapchain in [&mut self.color.handle, &mut self.depth.handle] {
            swapchain
                .release_image()
                .map_err(xr_call("xrReleaseSwapchainImage"))?;
        }
        Ok(())
    }

    /// Ends the frame shown at `time` (xrEndFrame): with the images `draw`
    /// just filled when `drawn`, else with no layer at all.
    pub fn end_frame(
        &mut self,
        time: xr::Time,
        blend_mode: xr::EnvironmentBlendMode,
        drawn: bool,
    ) -> Result<(), XrError> {
        if !drawn {
            return self
                .frame_stream
                .end(time, blend_mode, &[])
                .map_err(xr_call("xrEndFrame"));
        }
        let layer = ProjectionLayer {
            space: &self.base,
            views: &self.views,
            color: &self.color,
            depth: self.submit_depth.then_some(&self.depth),
        };
        end_frame_with(&self.session, time, blend_mode, &layer)
    }

    /// Waits until the GPU no longer uses any swapchain image.
    pub fn wait_idle(&mut self) -> Result<(), XrError> {
        self.frames.wait_idle()
    }
}

/// The size of each eye's image the runtime recommends, which must be the
/// same for both: single-pass stereo draws them as one 2-layer image.
fn eye_image_size(runtime: &Runtime) -> Result<(u32, u32), XrError> {
    let views = runtime
        .instance
        .enumerate_view_configuration_views(runtime.system, VIEW_TYPE)
        .map_err(xr_call("xrEnumerateViewConfigurationViews"))?;
    let [left, right] = views.as_slice() else {
        return Err(XrError::UnequalViews);
    };
    let size = |view: &xr::ViewConfigurationView| {
        (
            view.recommended_image_rect_width,
            view.recommended_image_rect_height,
        )
    };
    if size(left) != size(right) {
        return Err(XrError::UnequalViews);
    }
    Ok(size(left))
}

/// One hand's tracking as the app takes it.
fn hand_input(sample: &HandSample) -> HandInput {
    HandInput {
        joints: sample
            .joints
            .as_ref()
            .and_then(|joints| joints_from_xr(joints)),
        aim: sample.aim.map(pose_from_xr),
        grip: sample.grip.map(pose_from_xr),
        select: sample.select,
        squeeze: sample.squeeze,
        select_is_air_tap: sample.select_is_air_tap,
    }
}
