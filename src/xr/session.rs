//! The OpenXR session and its frame loop: the session state machine, frame
//! pacing by xrWaitFrame, input while focused, the app core each frame,
//! rendering when the runtime asks, and a clean end on Ctrl-C (SIGINT),
//! SIGTERM, `--frames`, the runtime's request, or the runtime stopping under
//! the session.

use std::mem::MaybeUninit;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

use openxr as xr;

use super::XrArgs;
use super::anchor::AnchorSpace;
use super::convert::{eye_from_xr, joints_from_xr, pose_from_xr, pose_to_xr};
use super::error::{XrError, xr_call};
use super::graphics::choice::choose_blend_mode;
use super::graphics::vulkan::VulkanGraphics;
use super::graphics::{GraphicsBinding, StereoFrames};
use super::input::{HANDS, HandProfiles, HandSample, Input, located_pose};
use super::remoting::{self, Polled, RemotingEvent};
use super::report::{SessionEnd, XrReport};
use super::runtime::Runtime;
use super::swapchain::{StereoSwapchain, SwapchainKind};
use crate::app::frame::{FAR_M, NEAR_M};
use crate::app::report::{CpuTimes, ReseedRecord, RunReport, TimingStats};
use crate::app::{App, AppConfig, AppEvent, FrameInput, FrameOutput, HandInput, SceneBuilder};
use crate::input::Pose;
use crate::render::Backend;

/// The view configuration: two eyes.
const VIEW_TYPE: xr::ViewConfigurationType = xr::ViewConfigurationType::PRIMARY_STEREO;
/// How long to idle between event polls while the session is not running.
const IDLE_POLL: Duration = Duration::from_millis(10);

/// Where the session stands, from the runtime's state events.
#[derive(Debug, Default)]
struct Lifecycle {
    /// Between xrBeginSession and xrEndSession.
    running: bool,
    /// The runtime gives us input (FOCUSED).
    focused: bool,
    /// The user sees our frames (VISIBLE or FOCUSED); growth counts only
    /// display time up to visible frames.
    visible: bool,
    /// xrRequestExitSession was called, and why.
    exit_requested: Option<SessionEnd>,
    /// The runtime announced the session's or its own loss.
    lost: Option<SessionEnd>,
    /// Every state reported, in order.
    states_seen: Vec<String>,
}

impl Lifecycle {
    /// How a loop that ended without an error ended.
    fn end(&self) -> SessionEnd {
        self.lost
            .or(self.exit_requested)
            .unwrap_or(SessionEnd::RuntimeExit)
    }
}

/// Per-frame measurements the report summarises.
#[derive(Debug, Default)]
struct LoopRecord {
    /// CPU milliseconds of each frame's update (tracking, app core, anchor).
    update_ms: Vec<f64>,
    /// CPU milliseconds of each rendered frame.
    render_ms: Vec<f64>,
    /// Predicted display time of the first frame and of the latest one.
    display_times: Option<(xr::Time, xr::Time)>,
}

/// Installs a handler for Ctrl-C (SIGINT) and, as scripts and desktops stop
/// apps with it, SIGTERM (and SIGHUP), that asks the loop to end the session.
fn interrupt_flag() -> Arc<AtomicBool> {
    let flag = Arc::new(AtomicBool::new(false));
    let handler_flag = Arc::clone(&flag);
    if let Err(error) = ctrlc::set_handler(move || handler_flag.store(true, Ordering::Relaxed)) {
        log::warn!("Ctrl-C and SIGTERM will not end the session cleanly: {error}");
    }
    flag
}

/// Opens the runtime, which settles the graphics API (`--graphics` or what
/// the runtime offers), and runs the session with that API's binding.
pub fn run_session(args: &XrArgs) -> Result<XrReport, XrError> {
    // Opened before the Ctrl-C handler's thread exists: opening may set an
    // environment variable, which is only sound while one thread runs.
    let runtime = Runtime::open(args.validation, args.remote.is_some(), args.graphics)?;
    match runtime.graphics {
        Backend::Vulkan => run_with::<VulkanGraphics>(args, runtime),
        #[cfg(windows)]
        Backend::D3d11 => run_with::<super::graphics::d3d11::D3d11Graphics>(args, runtime),
        // Runtime::open chooses Direct3D 11 only in a build that has it.
        #[cfg(not(windows))]
        Backend::D3d11 => Err(XrError::GraphicsNotBuilt),
    }
}

/// Creates the device, renderer and session with binding `B`, runs the
/// loop, and tears down in order: renderer objects on swapchain images,
/// then the OpenXR session and its spaces, then the device (Vulkan: the
/// renderer's context, whose drop guard destroys the device and instance),
/// then the OpenXR instance.
fn run_with<B: GraphicsBinding>(args: &XrArgs, runtime: Runtime) -> Result<XrReport, XrError> {
    if let Some(address) = &args.remote {
        remoting::connect(&runtime.instance, runtime.system, address)?;
    }
    let interrupted = interrupt_flag();
    #[cfg(windows)]
    super::console_close::install(&interrupted);
    let blend_mode = choose_blend_mode(
        &runtime
            .instance
            .enumerate_environment_blend_modes(runtime.system, VIEW_TYPE)
            .map_err(xr_call("xrEnumerateEnvironmentBlendModes"))?,
    )
    .ok_or(XrError::Xr {
        call: "xrEnumerateEnvironmentBlendModes",
        result: xr::sys::Result::ERROR_ENVIRONMENT_BLEND_MODE_UNSUPPORTED,
    })?;
    let graphics = B::open(&runtime, args.validation)?;
    let graphics_validation = graphics.validation_counter();
    let app = App::new(AppConfig::hololens_demo(
        args.size.width as usize,
        args.size.height as usize,
        args.seed,
    ))?;
    let mut report = XrReport {
        runtime: runtime.runtime_name.clone(),
        system: runtime.system_name.clone(),
        extensions_enabled: runtime.enabled_names.clone(),
        extensions_missing: runtime.missing_names.clone(),
        blend_mode: format!("{blend_mode:?}"),
        core_validation_layer: runtime.core_validation,
        run: RunReport {
            seeds: vec![app.seed()],
            ..RunReport::default()
        },
        ..XrReport::default()
    };
    // SAFETY: the session (inside SessionParts) is dropped before `graphics`.
    let (session, frame_waiter, frame_stream) = unsafe { graphics.create_session(&runtime) }?;
    let outcome = SessionParts::create(&runtime, &graphics, session, app, &mut report).and_then(
        |mut parts| {
            let looped = parts.run_loop(
                &runtime,
                frame_waiter,
                frame_stream,
                blend_mode,
                args.frames,
                &interrupted,
                &mut report,
            );
            let waited = parts.frames.wait_idle();
            drop(parts);
            looped.and(waited)
        },
    );
    drop(graphics);
    report.openxr_validation_messages = runtime.validation_messages();
    report.vulkan_validation_messages = graphics_validation.map(|counter| counter.count());
    report.run.validation_messages = match (
        report.openxr_validation_messages,
        report.vulkan_validation_messages,
    ) {
        (None, None) => None,
        (openxr, vulkan) => Some(openxr.unwrap_or(0) + vulkan.unwrap_or(0)),
    };
    drop(runtime);
    outcome.map(|()| report)
}

/// The session and what hangs off it. Fields drop in declaration order:
/// the renderer and its targets on the swapchain images first, then
/// OpenXR's objects, the session last.
struct SessionParts<B: GraphicsBinding> {
    /// The renderer and its targets on the swapchain images.
    frames: B::Frames,
    /// The anchor pinning the hologram, when XR_MSFT_spatial_anchor made one.
    anchor: Option<AnchorSpace>,
    /// Actions, pose spaces and hand trackers.
    input: Input,
    /// The head (VIEW space).
    head: xr::Space,
    /// The app's reference space (UNBOUNDED_MSFT or LOCAL).
    base: xr::Space,
    /// The colour swapchain.
    colour: StereoSwapchain<B::Api>,
    /// The depth swapchain (the renderer always needs depth).
    depth: StereoSwapchain<B::Api>,
    /// Whether depth is submitted to the compositor (XR_KHR_composition_layer_depth).
    submit_depth: bool,
    /// The session.
    session: xr::Session<B::Api>,
    /// The app core: placement, gestures, growth.
    app: App,
    /// Turns the app's output into the renderer's scene (and keeps a height
    /// change made on a frame that is not rendered for the next one).
    scenes: SceneBuilder,
}

impl<B: GraphicsBinding> SessionParts<B> {
    fn create(
        runtime: &Runtime,
        graphics: &B,
        session: xr::Session<B::Api>,
        app: App,
        report: &mut XrReport,
    ) -> Result<Self, XrError> {
        let offered = session
            .enumerate_reference_spaces()
            .map_err(xr_call("xrEnumerateReferenceSpaces"))?;
        let space_type = if runtime.extensions.unbounded_space
            && offered.contains(&xr::ReferenceSpaceType::UNBOUNDED_MSFT)
        {
            xr::ReferenceSpaceType::UNBOUNDED_MSFT
        } else {
            xr::ReferenceSpaceType::LOCAL
        };
        report.reference_space = if space_type == xr::ReferenceSpaceType::LOCAL {
            "LOCAL"
        } else {
            "UNBOUNDED_MSFT"
        }
        .into();
        let base = session
            .create_reference_space(space_type, xr::Posef::IDENTITY)
            .map_err(xr_call("xrCreateReferenceSpace"))?;
        let head = session
            .create_reference_space(xr::ReferenceSpaceType::VIEW, xr::Posef::IDENTITY)
            .map_err(xr_call("xrCreateReferenceSpace"))?;
        report.hand_tracking = runtime.system_tracks_hands()?;
        let input = Input::create(
            &runtime.instance,
            &session,
            HandProfiles {
                msft: runtime.extensions.msft_hand_interaction,
                ext: runtime.extensions.ext_hand_interaction,
            },
            report.hand_tracking,
        )?;
        let views = runtime
            .instance
            .enumerate_view_configuration_views(runtime.system, VIEW_TYPE)
            .map_err(xr_call("xrEnumerateViewConfigurationViews"))?;
        let [left, right] = views.as_slice() else {
            return Err(XrError::UnequalViews);
        };
        if left.recommended_image_rect_width != right.recommended_image_rect_width
            || left.recommended_image_rect_height != right.recommended_image_rect_height
        {
            return Err(XrError::UnequalViews);
        }
        let (width, height) = (
            left.recommended_image_rect_width,
            left.recommended_image_rect_height,
        );
        let colour = StereoSwapchain::create::<B>(&session, SwapchainKind::Colour, width, height)?;
        let depth = StereoSwapchain::create::<B>(&session, SwapchainKind::Depth, width, height)?;
        report.swapchain_formats =
            vec![B::format_name(colour.format), B::format_name(depth.format)];
        let (grid_width, grid_height) = (app.heightmap().width(), app.heightmap().height());
        // SAFETY: the frames are dropped before the swapchains (field order).
        let frames =
            unsafe { graphics.frames(&colour, &depth, grid_width as u32, grid_height as u32) }?;
        Ok(Self {
            frames,
            anchor: None,
            input,
            head,
            base,
            colour,
            depth,
            submit_depth: runtime.extensions.composition_depth,
            session,
            app,
            scenes: SceneBuilder::new(),
        })
    }

    /// Handles queued events; returns false once the session is over.
    fn poll_events(
        &self,
        instance: &xr::Instance,
        lifecycle: &mut Lifecycle,
        events: &mut MaybeUninit<xr::sys::EventDataBuffer>,
    ) -> Result<bool, XrError> {
        while let Some(polled) = remoting::poll_event(instance, events)? {
            let event = match polled {
                Polled::Core(event) => event,
                // Only a remoting runtime sends these; what it does to the
                // session after a disconnect arrives as session events.
                Polled::Remoting(RemotingEvent::Connected) => {
                    eprintln!("holographic remoting: CONNECTED");
                    continue;
                }
                Polled::Remoting(RemotingEvent::Disconnected(reason)) => {
                    eprintln!(
                        "holographic remoting: DISCONNECTED ({})",
                        remoting::disconnect_reason(reason)
                    );
                    continue;
                }
            };
            match event {
                xr::Event::SessionStateChanged(change) => {
                    let state = change.state();
                    log::info!("session state {state:?}");
                    lifecycle.states_seen.push(format!("{state:?}"));
                    lifecycle.focused = state == xr::SessionState::FOCUSED;
                    lifecycle.visible =
                        matches!(state, xr::SessionState::VISIBLE | xr::SessionState::FOCUSED);
                    match state {
                        xr::SessionState::READY => {
                            self.session
                                .begin(VIEW_TYPE)
                                .map_err(xr_call("xrBeginSession"))?;
                            lifecycle.running = true;
                        }
                        xr::SessionState::STOPPING => {
                            self.session.end().map_err(xr_call("xrEndSession"))?;
                            lifecycle.running = false;
                        }
                        xr::SessionState::EXITING => return Ok(false),
                        xr::SessionState::LOSS_PENDING => {
                            lifecycle.lost = Some(SessionEnd::SessionLost);
                            return Ok(false);
                        }
                        _ => {}
                    }
                }
                xr::Event::InstanceLossPending(_) => {
                    // Logged only: the run's one line comes from the caller.
                    log::info!("the OpenXR runtime is going away (instance loss pending)");
                    lifecycle.states_seen.push("INSTANCE_LOSS_PENDING".into());
                    lifecycle.lost = Some(SessionEnd::InstanceLost);
                    return Ok(false);
                }
                xr::Event::InteractionProfileChanged(_) => {
                    for (hand, profile) in HANDS
                        .iter()
                        .zip(self.input.current_profiles(instance, &self.session)?)
                    {
                        log::info!("interaction profile of {hand}: {profile}");
                    }
                }
                xr::Event::EventsLost(lost) => {
                    log::warn!("{} OpenXR events lost", lost.lost_event_count());
                }
                _ => {}
            }
        }
        Ok(true)
    }

    /// Runs frames until the session ends, then fills the report with what
    /// happened: also when the runtime stopped under the session (instance
    /// or session lost, runtime failure), which ends the loop like a proper
    /// end; any other error is returned.
    #[allow(clippy::too_many_arguments)]
    fn run_loop(
        &mut self,
        runtime: &Runtime,
        frame_waiter: xr::FrameWaiter,
        frame_stream: xr::FrameStream<B::Api>,
        blend_mode: xr::EnvironmentBlendMode,
        frame_limit: Option<u64>,
        interrupted: &AtomicBool,
        report: &mut XrReport,
    ) -> Result<(), XrError> {
        let mut lifecycle = Lifecycle::default();
        let mut record = LoopRecord::default();
        let looped = self.frames(
            runtime,
            frame_waiter,
            frame_stream,
            blend_mode,
            frame_limit,
            interrupted,
            &mut lifecycle,
            &mut record,
            report,
        );
        report.ended = match looped {
            Ok(()) => lifecycle.end(),
            Err(error) => match error.runtime_stop() {
                Some(end) => {
                    log::info!("the OpenXR runtime stopped: {error}");
                    end
                }
                None => return Err(error),
            },
        };
        report.session_states = lifecycle.states_seen;
        report.run.cpu_ms = CpuTimes {
            update: TimingStats::of(&record.update_ms),
            render: TimingStats::of(&record.render_ms),
        };
        report.run.iterations = self.app.iterations_done();
        if let Some((first, last)) = record.display_times {
            report.run.seconds = (last.as_nanos() - first.as_nanos()) as f64 / 1e9;
        }
        Ok(())
    }

    /// The frame loop proper: events, xrWaitFrame, input, the app core,
    /// rendering; returns when the session is over.
    #[allow(clippy::too_many_arguments)]
    fn frames(
        &mut self,
        runtime: &Runtime,
        mut frame_waiter: xr::FrameWaiter,
        mut frame_stream: xr::FrameStream<B::Api>,
        blend_mode: xr::EnvironmentBlendMode,
        frame_limit: Option<u64>,
        interrupted: &AtomicBool,
        lifecycle: &mut Lifecycle,
        record: &mut LoopRecord,
        report: &mut XrReport,
    ) -> Result<(), XrError> {
        let mut events = MaybeUninit::uninit();
        loop {
            let quota_reached = frame_limit.is_some_and(|limit| report.run.frames >= limit);
            let exit_reason = if quota_reached {
                Some(SessionEnd::FrameLimit)
            } else if interrupted.load(Ordering::Relaxed) {
                Some(SessionEnd::Interrupted)
            } else {
                None
            };
            if let Some(reason) = exit_reason
                && lifecycle.exit_requested.is_none()
            {
                lifecycle.exit_requested = Some(reason);
                match self.session.request_exit() {
                    Ok(()) => {}
                    Err(xr::sys::Result::ERROR_SESSION_NOT_RUNNING) => break,
                    Err(result) => {
                        return Err(XrError::Xr {
                            call: "xrRequestExitSession",
                            result,
                        });
                    }
                }
            }
            if !self.poll_events(&runtime.instance, lifecycle, &mut events)? {
                break;
            }
            if !lifecycle.running {
                std::thread::sleep(IDLE_POLL);
                continue;
            }
            let frame_state = frame_waiter.wait().map_err(xr_call("xrWaitFrame"))?;
            frame_stream.begin().map_err(xr_call("xrBeginFrame"))?;
            let time = frame_state.predicted_display_time;
            let first = record.display_times.map_or(time, |(first, _)| first);
            record.display_times = Some((first, time));

            let update_started = Instant::now();
            let (_, views) = self
                .session
                .locate_views(VIEW_TYPE, time, &self.base)
                .map_err(xr_call("xrLocateViews"))?;
            let hands = if lifecycle.focused {
                self.input.sample(&self.session, &self.base, time)?
            } else {
                Default::default()
            };
            let located = self.located_hologram(time)?;
            let output = self.update_app(time, &views, &hands, located, lifecycle.visible)?;
            report.run.max_iterations_per_frame = report
                .run
                .max_iterations_per_frame
                .max(output.iterations_applied);
            for event in &output.events {
                match *event {
                    AppEvent::Placed { pose } => {
                        report.run.hologram_pose = Some(pose.into());
                        self.anchor = AnchorSpace::create(
                            &self.session,
                            &self.base,
                            pose_to_xr(&pose),
                            time,
                        )?;
                        report.anchored = self.anchor.is_some();
                    }
                    AppEvent::Reseeded { seed, cause, hand } => {
                        log::info!(
                            "reseeded ({}, {hand:?} hand) with seed {seed}",
                            cause.name()
                        );
                        report.run.seeds.push(seed);
                        report.run.reseeds.push(ReseedRecord {
                            frame: report.run.frames,
                            time: (time.as_nanos() - first.as_nanos()) as f64 / 1e9,
                            cause,
                            seed,
                        });
                        if lifecycle.focused {
                            // Only the hand that asked feels the answer.
                            self.input.pulse(&self.session, hand.index())?;
                        }
                    }
                }
            }
            record
                .update_ms
                .push(update_started.elapsed().as_secs_f64() * 1000.0);

            let quota_reached = frame_limit.is_some_and(|limit| report.run.frames >= limit);
            let render_started = Instant::now();
            if frame_state.should_render
                && !quota_reached
                && self.render_frame(runtime, &output, &views, time, blend_mode)?
            {
                record
                    .render_ms
                    .push(render_started.elapsed().as_secs_f64() * 1000.0);
                report.run.frames += 1;
                // The progress signal scripts and tests wait on.
                log::debug!("frame {} rendered", report.run.frames);
            } else {
                frame_stream
                    .end(time, blend_mode, &[])
                    .map_err(xr_call("xrEndFrame"))?;
            }
        }
        Ok(())
    }

    /// The anchor's pose as the runtime locates it at `time`, where the app
    /// core then draws and hit-tests the terrain; `None` without an anchor or
    /// when it cannot be located (the app then uses the pose it pinned).
    fn located_hologram(&self, time: xr::Time) -> Result<Option<Pose>, XrError> {
        let Some(anchor) = &self.anchor else {
            return Ok(None);
        };
        Ok(located_pose(&anchor.space, &self.base, time)?.map(pose_from_xr))
    }

    /// Builds the app's frame input from the runtime's tracking and runs one update.
    fn update_app(
        &mut self,
        time: xr::Time,
        views: &[xr::View],
        hands: &[HandSample; 2],
        hologram_located: Option<Pose>,
        visible: bool,
    ) -> Result<FrameOutput, XrError> {
        let [left_view, right_view] = views else {
            return Err(XrError::UnequalViews);
        };
        let head = located_pose(&self.head, &self.base, time)?.map(pose_from_xr);
        let hand_input = |sample: &HandSample| HandInput {
            joints: sample
                .joints
                .as_ref()
                .and_then(|joints| joints_from_xr(joints)),
            aim: sample.aim.map(pose_from_xr),
            select: sample.select,
            select_is_air_tap: sample.select_is_air_tap,
        };
        let input = FrameInput {
            display_time_ns: time.as_nanos(),
            head,
            hands: [hand_input(&hands[0]), hand_input(&hands[1])],
            views: [eye_from_xr(left_view), eye_from_xr(right_view)],
            hologram_located,
            visible,
        };
        let output = self.app.update(&input);
        self.scenes.updated(&output);
        Ok(output)
    }

    /// Acquires the swapchain images, records and submits the terrain,
    /// releases the images and ends the frame with a projection layer;
    /// returns false, having done nothing, while there is nothing to draw
    /// (the hologram is not placed yet).
    fn render_frame(
        &mut self,
        runtime: &Runtime,
        output: &FrameOutput,
        views: &[xr::View],
        time: xr::Time,
        blend_mode: xr::EnvironmentBlendMode,
    ) -> Result<bool, XrError> {
        let Some(scene) = self.scenes.scene(output, self.app.heightmap().cells()) else {
            return Ok(false);
        };
        let colour_index = self
            .colour
            .handle
            .acquire_image()
            .map_err(xr_call("xrAcquireSwapchainImage"))? as usize;
        let depth_index = self
            .depth
            .handle
            .acquire_image()
            .map_err(xr_call("xrAcquireSwapchainImage"))? as usize;
        self.colour
            .handle
            .wait_image(xr::Duration::INFINITE)
            .map_err(xr_call("xrWaitSwapchainImage"))?;
        self.depth
            .handle
            .wait_image(xr::Duration::INFINITE)
            .map_err(xr_call("xrWaitSwapchainImage"))?;
        self.frames.render(colour_index, depth_index, &scene)?;
        self.scenes.drawn();
        self.colour
            .handle
            .release_image()
            .map_err(xr_call("xrReleaseSwapchainImage"))?;
        self.depth
            .handle
            .release_image()
            .map_err(xr_call("xrReleaseSwapchainImage"))?;
        self.end_frame(runtime, views, time, blend_mode)?;
        Ok(true)
    }

    /// xrEndFrame with one projection layer; built from the raw structures
    /// because the depth info must be chained onto each projection view.
    fn end_frame(
        &self,
        runtime: &Runtime,
        views: &[xr::View],
        time: xr::Time,
        blend_mode: xr::EnvironmentBlendMode,
    ) -> Result<(), XrError> {
        let rect = xr::Rect2Di {
            offset: xr::Offset2Di { x: 0, y: 0 },
            extent: xr::Extent2Di {
                width: self.colour.width as i32,
                height: self.colour.height as i32,
            },
        };
        let sub_image =
            |swapchain: &StereoSwapchain<B::Api>, layer: u32| xr::sys::SwapchainSubImage {
                swapchain: swapchain.handle.as_raw(),
                image_rect: rect,
                image_array_index: layer,
            };
        let [left_view, right_view] = views else {
            return Err(XrError::UnequalViews);
        };
        let depth_infos: [xr::sys::CompositionLayerDepthInfoKHR; 2] =
            std::array::from_fn(|layer| xr::sys::CompositionLayerDepthInfoKHR {
                ty: xr::sys::CompositionLayerDepthInfoKHR::TYPE,
                next: std::ptr::null(),
                sub_image: sub_image(&self.depth, layer as u32),
                min_depth: 0.0,
                max_depth: 1.0,
                near_z: NEAR_M,
                far_z: FAR_M,
            });
        let eye_views = [left_view, right_view];
        let projection_views: [xr::sys::CompositionLayerProjectionView; 2] =
            std::array::from_fn(|layer| xr::sys::CompositionLayerProjectionView {
                ty: xr::sys::CompositionLayerProjectionView::TYPE,
                next: if self.submit_depth {
                    &depth_infos[layer] as *const _ as *const _
                } else {
                    std::ptr::null()
                },
                pose: eye_views[layer].pose,
                fov: eye_views[layer].fov,
                sub_image: sub_image(&self.colour, layer as u32),
            });
        let projection = xr::sys::CompositionLayerProjection {
            ty: xr::sys::CompositionLayerProjection::TYPE,
            next: std::ptr::null(),
            layer_flags: xr::CompositionLayerFlags::BLEND_TEXTURE_SOURCE_ALPHA,
            space: self.base.as_raw(),
            view_count: projection_views.len() as u32,
            views: projection_views.as_ptr(),
        };
        let layers = [&projection as *const xr::sys::CompositionLayerProjection
            as *const xr::sys::CompositionLayerBaseHeader];
        let end_info = xr::sys::FrameEndInfo {
            ty: xr::sys::FrameEndInfo::TYPE,
            next: std::ptr::null(),
            display_time: time,
            environment_blend_mode: blend_mode,
            layer_count: layers.len() as u32,
            layers: layers.as_ptr(),
        };
        // SAFETY: xrBeginFrame was called for this frame through the FrameStream;
        // every structure above (layer, views, depth infos) lives until the call
        // returns, and the swapchains and space are alive.
        let result = unsafe { (runtime.instance.fp().end_frame)(self.session.as_raw(), &end_info) };
        if result.into_raw() < 0 {
            return Err(XrError::Xr {
                call: "xrEndFrame",
                result,
            });
        }
        Ok(())
    }
}
