//! One OpenXR session and what lives exactly as long as it: the session
//! with its frame waiter and stream, the reference and head spaces, input,
//! the anchor, the room's surfaces (scene understanding or plane
//! detection), the QR codes in sight (scene markers), the keeper of the placement, the swapchains and the
//! renderer's targets on them, the player's speech recognizer (Holographic
//! Remoting), and where the session stands. Every call the frame loop makes
//! to the runtime goes through a method here (frame submission through
//! `session/layer.rs`, events through `runtime/events.rs`), so what wraps runtime calls
//! wraps these: each marks its calls for the watchdog
//! (`runtime::calls::runtime_call`), the set-up's as set-up calls, the
//! loop's as watched ones.
//!
//! What the system is (its name, its blend modes) is read here, once the
//! session exists: a remoting runtime answers with defaults until it is
//! connected to the player, and with remoting a session exists only once
//! it is.
//!
//! What outlives a session (the app, the scene builder, the run's record)
//! is the frame loop's (`run/frame_loop.rs`).

pub mod layer;
pub mod observer;

use openxr as xr;

use crate::app::{FrameInput, HandInput, Placement, PlacementCause};
use crate::input::Hand;
use crate::render::scene::{FrameScene, VIEW_COUNT};
use crate::xr::convert::{eye_from_xr, joints_from_xr, pose_from_xr, pose_to_xr};
use crate::xr::error::{XrError, xr_call};
use crate::xr::graphics::choice::{choose_blend_mode, choose_reprojection_mode};
use crate::xr::graphics::swapchain::{StereoSwapchain, SwapchainKind};
use crate::xr::graphics::{GraphicsBinding, StereoFrames, create_swapchain};
use crate::xr::input::actions::{HandProfiles, HandSample, Input, located_pose};
use crate::xr::input::speech::Speech;
use crate::xr::room::anchor::AnchorSpace;
use crate::xr::room::keeping::{Keeper, KeepingOptions};
use crate::xr::room::markers::MarkerWatcher;
use crate::xr::room::surfaces::SurfaceFinder;
use crate::xr::runtime::calls::{CallKind, calling, runtime_call, runtime_calls};
use crate::xr::runtime::instance::Runtime;
use crate::xr::session::layer::{OBSERVER_VIEW, ObserverLayer, ProjectionLayer, end_frame_with};
use crate::xr::session::observer::{Observer, begin_with_observer, wait_with_observer};

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
#[derive(Debug, Clone)]
pub struct SessionFacts {
    /// The system's name, e.g. "Monado: Simulated HMD".
    pub system_name: String,
    /// How the compositor blends the frames with the world.
    pub blend_mode: xr::EnvironmentBlendMode,
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
    /// The reprojection mode asked for with each frame
    /// (XR_MSFT_composition_layer_reprojection), when one is.
    pub reprojection: Option<xr::sys::ReprojectionModeMSFT>,
}

/// The session and what hangs off it. Fields drop in declaration order:
/// the renderer and its targets on the swapchain images first, then
/// OpenXR's objects, the session last.
pub struct Session<B: GraphicsBinding> {
    /// Mixed Reality Capture's observer view, where the runtime has one.
    observer: Option<Observer<B>>,
    /// The renderer and its targets on the swapchain images.
    frames: B::Frames,
    /// The anchor pinning the hologram, when XR_MSFT_spatial_anchor made one.
    anchor: Option<AnchorSpace>,
    /// Finds the room's planes (scene understanding or plane detection).
    surface_finder: Option<SurfaceFinder>,
    /// Watches the QR codes in sight (XR_MSFT_scene_marker).
    marker_watcher: Option<MarkerWatcher>,
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
    /// The player's speech recognizer, started for this session.
    speech: Option<Speech>,
}

impl<B: GraphicsBinding> Session<B> {
    /// Creates the session on `graphics`' device with its spaces, input,
    /// surface finder, placement keeper (as `keeping` asks), swapchains, and
    /// the renderer's frames for a `grid_width` × `grid_height` heightmap;
    /// reads the system's name and blend modes; starts the player's speech
    /// recognizer where the runtime offers one.
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
        fn set_up<T>(name: &'static str, call: impl FnOnce() -> T) -> T {
            runtime_call(CallKind::SetUp, name, call)
        }
        let (session, frame_waiter, frame_stream) = set_up("xrCreateSession", || {
            // SAFETY: per this function's contract.
            unsafe { graphics.create_session(runtime) }
        })?;
        let system_name = set_up("xrGetSystemProperties", || runtime.system_name())?;
        let blend_modes = set_up("xrEnumerateEnvironmentBlendModes", || {
            runtime
                .instance
                .enumerate_environment_blend_modes(runtime.system, VIEW_TYPE)
        })
        .map_err(xr_call("xrEnumerateEnvironmentBlendModes"))?;
        let blend_mode = choose_blend_mode(&blend_modes).ok_or(XrError::Xr {
            call: "xrEnumerateEnvironmentBlendModes",
            result: xr::sys::Result::ERROR_ENVIRONMENT_BLEND_MODE_UNSUPPORTED,
        })?;
        let speech = if runtime.extensions.remoting_speech {
            let speech = set_up("xrGetInstanceProcAddr", || Speech::load(&runtime.instance))?;
            set_up("xrInitializeRemotingSpeechMSFT", || {
                speech.start(session.as_raw())
            })?;
            Some(speech)
        } else {
            None
        };
        let (reference_space, base, head) =
            set_up("xrEnumerateReferenceSpaces/xrCreateReferenceSpace", || {
                reference_spaces(runtime, &session)
            })?;
        let hand_tracking = set_up("xrGetSystemProperties", || runtime.system_tracks_hands())?;
        let input = set_up(
            "xrStringToPath/xrCreateActionSet/xrCreateAction/xrSuggestInteractionProfileBindings/xrAttachSessionActionSets/xrCreateActionSpace/xrCreateHandTrackerEXT",
            || {
                Input::create(
                    &runtime.instance,
                    &session,
                    HandProfiles {
                        msft: runtime.extensions.msft_hand_interaction,
                        ext: runtime.extensions.ext_hand_interaction,
                    },
                    hand_tracking,
                )
            },
        )?;
        let (width, height) = set_up("xrEnumerateViewConfigurationViews", || {
            eye_image_size(runtime)
        })?;
        let (color, depth) = set_up(
            "xrEnumerateSwapchainFormats/xrCreateSwapchain/xrEnumerateSwapchainImages",
            || {
                Ok::<_, XrError>((
                    create_swapchain::<B>(&session, SwapchainKind::Color, width, height)?,
                    create_swapchain::<B>(&session, SwapchainKind::Depth, width, height)?,
                ))
            },
        )?;
        let surface_finder = set_up("xrCreateSceneObserverMSFT/xrCreatePlaneDetectorEXT", || {
            SurfaceFinder::open(runtime, &session)
        })?;
        let marker_watcher = set_up("xrCreateSceneObserverMSFT", || {
            MarkerWatcher::open(runtime, &session)
        })?;
        let keeper = set_up(
            "xrEnumerateReferenceSpaces/xrCreateReferenceSpace/xrCreateSpatialAnchorStoreConnectionMSFT/xrEnumeratePersistedSpatialAnchorNamesMSFT/xrCreateSpatialAnchorFromPersistedNameMSFT/xrCreateSpatialAnchorSpaceMSFT",
            || Keeper::open(&session, reference_space == "UNBOUNDED_MSFT", keeping),
        )?;
        let swapchain_formats = vec![B::format_name(color.format), B::format_name(depth.format)];
        let reprojection = set_up("xrEnumerateReprojectionModesMSFT", || {
            reprojection_mode(runtime)
        })?;
        // SAFETY: the frames are dropped before the swapchains (field order).
        let frames = unsafe { graphics.frames(&color, &depth, grid_width, grid_height) }?;
        let observer = set_up(
            "xrEnumerateViewConfigurations/xrEnumerateSwapchainFormats",
            || Observer::create(runtime, graphics, &session, grid_width, grid_height),
        )?;
        let facts = SessionFacts {
            system_name,
            blend_mode,
            reference_space,
            hand_tracking,
            swapchain_formats,
            surfaces: surface_finder.as_ref().map_or("none", SurfaceFinder::name),
            placement_kept: keeper.description().to_owned(),
            reprojection,
        };
        Ok(Self {
            observer,
            frames,
            anchor: None,
            surface_finder,
            marker_watcher,
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
            speech,
        })
    }

    /// The session's handle, to tell its events from another session's.
    pub fn handle(&self) -> xr::sys::Session {
        self.session.as_raw()
    }

    /// The text the player's speech recognizer heard as `packet_id`;
    /// `None` when no recognizer was started.
    pub fn recognized_text(&self, packet_id: u64) -> Result<Option<String>, XrError> {
        self.speech
            .map(|speech| {
                watched("xrRetrieveRemotingSpeechRecognizedTextMSFT", || {
                    speech.recognized_text(self.session.as_raw(), packet_id)
                })
            })
            .transpose()
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
                if self.observer.is_some() {
                    watched("xrBeginSession", || begin_with_observer(&self.session))?;
                } else {
                    watched("xrBeginSession", || self.session.begin(VIEW_TYPE))
                        .map_err(xr_call("xrBeginSession"))?;
                }
                self.status.running = true;
            }
            xr::SessionState::STOPPING => {
                watched("xrEndSession", || self.session.end()).map_err(xr_call("xrEndSession"))?;
                self.status.running = false;
            }
            _ => {}
        }
        Ok(())
    }

    /// Asks the runtime to end the session (xrRequestExitSession); false
    /// when it is not running, so there is nothing left to end.
    pub fn request_exit(&mut self) -> Result<bool, XrError> {
        match watched("xrRequestExitSession", || self.session.request_exit()) {
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
        let Some(observer) = self.observer.as_mut() else {
            return watched("xrWaitFrame", || self.frame_waiter.wait())
                .map_err(xr_call("xrWaitFrame"));
        };
        let (state, active) = watched("xrWaitFrame", || wait_with_observer(&self.session))?;
        let became_active = active && !observer.active;
        observer.active = active;
        observer.drawn = false;
        if became_active {
            observer.activated(&self.session)?;
        }
        Ok(state)
    }

    /// Whether the runtime said the observer view is active for this frame.
    pub fn observer_active(&self) -> bool {
        self.observer
            .as_ref()
            .is_some_and(|observer| observer.active)
    }

    /// Draws `scene` (with every height) from the observer view, located
    /// at `time`, into its own images; whether it was drawn (not when the
    /// runtime could not locate the view).
    pub fn draw_observer(
        &mut self,
        scene: &FrameScene<'_>,
        time: xr::Time,
    ) -> Result<bool, XrError> {
        let Some(observer) = self.observer.as_mut() else {
            return Ok(false);
        };
        let Some(swapchains) = observer.swapchains.as_mut() else {
            return Ok(false);
        };
        let (flags, views) = watched("xrLocateViews", || {
            self.session.locate_views(OBSERVER_VIEW, time, &self.base)
        })
        .map_err(xr_call("xrLocateViews"))?;
        let located = flags
            .contains(xr::ViewStateFlags::POSITION_VALID | xr::ViewStateFlags::ORIENTATION_VALID);
        let [view] = views.as_slice() else {
            return Err(XrError::UnequalViews);
        };
        if !located {
            return Ok(false);
        }
        observer.view = *view;
        let camera = eye_from_xr(view).render_view();
        let acquire = |swapchain: &mut xr::Swapchain<B::Api>| {
            watched("xrAcquireSwapchainImage", || swapchain.acquire_image())
                .map(|index| index as usize)
                .map_err(xr_call("xrAcquireSwapchainImage"))
        };
        let color_index = acquire(&mut swapchains.color.handle)?;
        let depth_index = acquire(&mut swapchains.depth.handle)?;
        for swapchain in [&mut swapchains.color.handle, &mut swapchains.depth.handle] {
            watched("xrWaitSwapchainImage", || {
                swapchain.wait_image(xr::Duration::INFINITE)
            })
            .map_err(xr_call("xrWaitSwapchainImage"))?;
        }
        let drawn = observer.frames.render(
            color_index,
            depth_index,
            &FrameScene {
                views: [camera; VIEW_COUNT as usize],
                ..*scene
            },
        );
        for swapchain in [&mut swapchains.color.handle, &mut swapchains.depth.handle] {
            watched("xrReleaseSwapchainImage", || swapchain.release_image())
                .map_err(xr_call("xrReleaseSwapchainImage"))?;
        }
        drawn?;
        observer.drawn = true;
        Ok(true)
    }

    /// Begins the frame the last `wait_frame` announced (xrBeginFrame).
    pub fn begin_frame(&mut self) -> Result<(), XrError> {
        watched("xrBeginFrame", || self.frame_stream.begin()).map_err(xr_call("xrBeginFrame"))
    }

    /// The app's input for the frame shown at `time`: the eyes (kept for
    /// the frame's layer), the head, both hands while focused (the runtime
    /// gives input only then), where the anchor puts the hologram, the
    /// room's surfaces once computed, and the kept placement.
    pub fn track(&mut self, time: xr::Time) -> Result<FrameInput, XrError> {
        let (_, views) = watched("xrLocateViews", || {
            self.session.locate_views(VIEW_TYPE, time, &self.base)
        })
        .map_err(xr_call("xrLocateViews"))?;
        self.views = views.try_into().map_err(|_| XrError::UnequalViews)?;
        let hands = if self.status.focused {
            runtime_calls(CallKind::Watched, || {
                self.input.sample(&self.session, &self.base, time)
            })?
        } else {
            Default::default()
        };
        let hologram_located = match &self.anchor {
            Some(anchor) => watched("xrLocateSpace", || {
                located_pose(&anchor.space, &self.base, time)
            })?
            .map(pose_from_xr),
            None => None,
        };
        let surfaces = match self.surface_finder.as_mut() {
            Some(finder) => runtime_calls(CallKind::Watched, || {
                finder.surfaces(&self.head, &self.base, time)
            })?,
            None => None,
        };
        let markers = match self.marker_watcher.as_mut() {
            Some(watcher) => Some(runtime_calls(CallKind::Watched, || {
                watcher.markers(&self.head, &self.base, time)
            })?),
            None => None,
        };
        let kept = watched("xrLocateSpace", || self.keeper.kept(&self.base, time))?;
        let head = watched("xrLocateSpace", || {
            located_pose(&self.head, &self.base, time)
        })?;
        Ok(FrameInput {
            display_time_ns: time.as_nanos(),
            head: head.map(pose_from_xr),
            hands: hands.each_ref().map(hand_input),
            views: self.views.each_ref().map(eye_from_xr),
            hologram_located,
            visible: self.status.visible,
            surfaces,
            markers,
            kept,
            voice: None,
            shared: Vec::new(),
            saves: None,
            saved: None,
        })
    }

    /// Pins the hologram at `placement` with a spatial anchor where the
    /// runtime can make one, and says whether it is pinned. `settled_by` is
    /// what just settled it: the kept anchor itself pins it when the app
    /// placed it where that anchor is, and a manipulation's placement is
    /// kept for the next run. `None` re-pins an unchanged placement in a
    /// new session (after a remoting reconnect).
    pub fn anchor(
        &mut self,
        placement: &Placement,
        settled_by: Option<PlacementCause>,
        time: xr::Time,
    ) -> Result<bool, XrError> {
        let kept_anchor = self.keeper.placed(settled_by == Some(PlacementCause::Kept));
        self.anchor = match kept_anchor {
            Some(kept) => Some(kept),
            None => watched(
                "xrCreateSpatialAnchorMSFT/xrCreateSpatialAnchorSpaceMSFT",
                || {
                    AnchorSpace::create(
                        &self.session,
                        &self.base,
                        pose_to_xr(&placement.pose),
                        time,
                    )
                },
            )?,
        };
        if settled_by.is_some_and(PlacementCause::is_manipulation) {
            watched("xrPersistSpatialAnchorMSFT/xrLocateSpace", || {
                self.keeper
                    .keep(placement, self.anchor.as_ref(), &self.base, time)
            })?;
        }
        Ok(self.anchor.is_some())
    }

    /// A short haptic pulse on `hand`, while the session is focused.
    pub fn pulse(&self, hand: Hand) -> Result<(), XrError> {
        if !self.status.focused {
            return Ok(());
        }
        watched("xrApplyHapticFeedback", || {
            self.input.pulse(&self.session, hand.index())
        })
    }

    /// Each hand's current interaction profile, "none" when it has none.
    pub fn interaction_profiles(&self) -> Result<[String; 2], XrError> {
        watched("xrGetCurrentInteractionProfile/xrPathToString", || {
            self.input
                .current_profiles(self.session.instance(), &self.session)
        })
    }

    /// Acquires and waits for a colour and a depth image, draws `scene`
    /// into them, and releases them.
    pub fn draw(&mut self, scene: &FrameScene<'_>) -> Result<(), XrError> {
        let acquire = |swapchain: &mut xr::Swapchain<B::Api>| {
            watched("xrAcquireSwapchainImage", || swapchain.acquire_image())
                .map(|index| index as usize)
                .map_err(xr_call("xrAcquireSwapchainImage"))
        };
        let color_index = acquire(&mut self.color.handle)?;
        let depth_index = acquire(&mut self.depth.handle)?;
        for swapchain in [&mut self.color.handle, &mut self.depth.handle] {
            watched("xrWaitSwapchainImage", || {
                swapchain.wait_image(xr::Duration::INFINITE)
            })
            .map_err(xr_call("xrWaitSwapchainImage"))?;
        }
        self.frames.render(color_index, depth_index, scene)?;
        for swapchain in [&mut self.color.handle, &mut self.depth.handle] {
            watched("xrReleaseSwapchainImage", || swapchain.release_image())
                .map_err(xr_call("xrReleaseSwapchainImage"))?;
        }
        Ok(())
    }

    /// Ends the frame shown at `time` (xrEndFrame): with the images `draw`
    /// just filled when `drawn`, else with no layer at all; while the
    /// observer view is active, with its layer (or none) too.
    pub fn end_frame(&mut self, time: xr::Time, drawn: bool) -> Result<(), XrError> {
        let blend_mode = self.facts.blend_mode;
        let observer = self
            .observer
            .as_ref()
            .filter(|observer| observer.active)
            .map(|observer| ObserverLayer {
                view: &observer.view,
                color: observer
                    .swapchains
                    .as_ref()
                    .map(|swapchains| &swapchains.color),
                drawn: observer.drawn && drawn,
            });
        if !drawn && observer.is_none() {
            return watched("xrEndFrame", || {
                self.frame_stream.end(time, blend_mode, &[])
            })
            .map_err(xr_call("xrEndFrame"));
        }
        let layer = ProjectionLayer {
            space: &self.base,
            views: &self.views,
            color: &self.color,
            depth: self.submit_depth.then_some(&self.depth),
        };
        watched("xrEndFrame", || {
            end_frame_with(
                &self.session,
                time,
                blend_mode,
                self.facts.reprojection,
                drawn.then_some(&layer),
                observer.as_ref(),
            )
        })
    }

    /// Waits until the GPU no longer uses any swapchain image.
    pub fn wait_idle(&mut self) -> Result<(), XrError> {
        if let Some(observer) = self.observer.as_mut() {
            observer.frames.wait_idle()?;
        }
        self.frames.wait_idle()
    }

    /// Tears the session down in its fields' order (the renderer's targets
    /// first, the session last), watched: each OpenXR object's destroy call
    /// is named for the watchdog as it is made.
    pub fn destroy(self) {
        let Session {
            observer,
            frames,
            anchor,
            surface_finder,
            marker_watcher,
            keeper,
            input,
            head,
            base,
            color,
            depth,
            frame_waiter,
            frame_stream,
            session,
            ..
        } = self;
        runtime_calls(CallKind::Watched, || {
            // Its renderer, then its swapchains (the struct's field order).
            calling("xrDestroySwapchain");
            drop(observer);
            drop(frames);
            // Each of these names its calls as it drops.
            drop(anchor);
            drop(surface_finder);
            drop(marker_watcher);
            drop(keeper);
            input.destroy();
            calling("xrDestroySpace");
            drop(head);
            drop(base);
            calling("xrDestroySwapchain");
            drop(color);
            drop(depth);
            drop(frame_waiter);
            drop(frame_stream);
            calling("xrDestroySession");
            drop(session);
        });
    }
}

/// Runs `call`, runtime calls of the frame loop named `name`, watched by
/// the watchdog (its limit and interrupts).
fn watched<T>(name: &'static str, call: impl FnOnce() -> T) -> T {
    runtime_call(CallKind::Watched, name, call)
}

/// The app's reference space (UNBOUNDED_MSFT when the runtime offers it,
/// else LOCAL) with its name, and the head's (VIEW).
fn reference_spaces<G: xr::Graphics>(
    runtime: &Runtime,
    session: &xr::Session<G>,
) -> Result<(&'static str, xr::Space, xr::Space), XrError> {
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
    Ok((reference_space, base, head))
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
        menu: sample.menu,
        select_is_air_tap: sample.select_is_air_tap,
    }
}

/// The reprojection mode to ask for, from those the runtime lists for the
/// stereo view ([`choose_reprojection_mode`]); `None` without
/// XR_MSFT_composition_layer_reprojection or depth submission.
fn reprojection_mode(runtime: &Runtime) -> Result<Option<xr::sys::ReprojectionModeMSFT>, XrError> {
    let Some(extension) = runtime
        .instance
        .exts()
        .msft_composition_layer_reprojection
        .filter(|_| runtime.extensions.reprojection)
    else {
        return Ok(None);
    };
    let enumerate = |capacity: u32, count: &mut u32, modes: *mut xr::sys::ReprojectionModeMSFT| {
        // SAFETY: the instance and system are live; `modes` has room for
        // `capacity` modes (none when 0).
        let result = unsafe {
            (extension.enumerate_reprojection_modes)(
                runtime.instance.as_raw(),
                runtime.system,
                VIEW_TYPE,
                capacity,
                count,
                modes,
            )
        };
        if result.into_raw() < 0 {
            Err(XrError::Xr {
                call: "xrEnumerateReprojectionModesMSFT",
                result,
            })
        } else {
            Ok(())
        }
    };
    let mut count = 0;
    enumerate(0, &mut count, std::ptr::null_mut())?;
    let mut listed = vec![xr::sys::ReprojectionModeMSFT::DEPTH; count as usize];
    enumerate(count, &mut count, listed.as_mut_ptr())?;
    listed.truncate(count as usize);
    let chosen = choose_reprojection_mode(&listed, runtime.extensions.composition_depth);
    log::info!("reprojection modes offered {listed:?}; asking for {chosen:?}");
    Ok(chosen)
}
