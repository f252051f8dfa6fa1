//! The frame loop: xrWaitFrame hands out the wearer's next frame on the
//! display clock (at once in virtual time, or paced to the wall clock),
//! or, at the frame `HOLOTERRAIN_TESTRT_HANG` names, never returns;
//! xrBeginFrame and xrEndFrame keep their order, and xrEndFrame checks the
//! submitted layers ([`crate::layers`]) and reads the colour images back
//! every `HOLOTERRAIN_TESTRT_EVERY` submitted frames and the last.

use std::time::{Duration, Instant};

use openxr_sys as xr;
use xr::Handle as _;

use crate::extensions::Extension;
use crate::instance::{BLEND_MODE, MAX_LAYER_COUNT};
use crate::layers::{
    DepthInfo, FrameObjects, Layer, ProjectionView, SubImage, SwapchainFacts, check_layers,
    check_layers_of,
};
use crate::observer::OBSERVER;
use crate::state::{
    Failure, Runtime, XrResult, invalid, lookup_mut, note_violation, out_of_order, with_runtime,
};
use crate::structs::{check_chain, input, output, structure_type_name};
use crate::wearer::EPOCH_NS;

/// Where the frame loop of a session stands.
#[derive(Debug, Default)]
pub struct FrameCycle {
    /// The display time xrWaitFrame returned, until xrBeginFrame.
    waited: Option<i64>,
    /// The display time of the frame begun, until xrEndFrame.
    begun: Option<i64>,
    /// When the first frame was waited for (real-time pacing).
    wall_start: Option<Instant>,
    /// Frames handed out by xrWaitFrame so far.
    handed_out: u64,
    /// The session began with the observer view enabled.
    pub observer_enabled: bool,
    /// The frame number (from 0) of the frame waited for or begun, when
    /// the observer view is active for it.
    observer_active: Option<u64>,
}

/// One eye's image of a submitted frame.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct ViewImage {
    /// The swapchain.
    pub swapchain: u64,
    /// The image index released last before the submission.
    pub image: u32,
    /// The array layer.
    pub array_index: u32,
    /// The rectangle submitted.
    pub rect: xr::Rect2Di,
}

/// A submitted frame's colour images, left eye first.
#[derive(Debug, Clone, PartialEq)]
pub struct Submission {
    /// 0 for the first frame submitted with a layer.
    pub frame: u64,
    /// Both eyes.
    pub views: Vec<ViewImage>,
}

/// The frame's display period at `rate` Hz, nanoseconds.
fn period_ns(rate: f64) -> i64 {
    (1e9 / rate).round() as i64
}

/// xrWaitFrame.
///
/// # Safety
/// The arguments are the application's, as the OpenXR API defines them.
pub unsafe extern "system" fn wait_frame(
    session: xr::Session,
    wait_info: *const xr::FrameWaitInfo,
    frame_state: *mut xr::FrameState,
) -> xr::Result {
    let mut hangs = None;
    let result = with_runtime("xrWaitFrame", |runtime| {
        let Runtime {
            sessions,
            wearer,
            remoting,
            speech,
            events,
            config,
            anchor_store,
            enabled,
            observer,
            observer_activations,
            ..
        } = runtime;
        let current = lookup_mut(sessions, session.into_raw(), "XrSession")?;
        if !wait_info.is_null() {
            // SAFETY: the application's pointer, valid when not NULL.
            let info = unsafe { input(wait_info, "frameWaitInfo") }?;
            // SAFETY: the chain is the application's.
            unsafe { check_chain(info.next, &[], "frameWaitInfo") }?;
        }
        // SAFETY: the application's output pointer.
        let state = unsafe { output(frame_state, "frameState") }?;
        let allowed: &[xr::StructureType] = if enabled.observer() {
            &[xr::StructureType::SECONDARY_VIEW_CONFIGURATION_FRAME_STATE_MSFT]
        } else {
            &[]
        };
        // SAFETY: the chain is the application's.
        unsafe { check_chain(state.next, allowed, "frameState") }?;
        current.check_running()?;
        if current.frame.waited.is_some() {
            return Err(out_of_order(
                "xrWaitFrame again before xrBeginFrame for the frame it returned (the specification blocks this call until then, which on one thread never comes)",
            ));
        }
        if config.hang_at == Some(current.frame.handed_out) {
            hangs = config.hang_at;
            return Ok(xr::Result::SUCCESS);
        }
        let frame = current.frame.handed_out;
        let observing = current.frame.observer_enabled && observer.active_at(frame);
        // SAFETY: the chain was checked; its structures are the application's.
        unsafe { write_secondary_states(state.next, current.frame.observer_enabled, observing) }?;
        current.frame.observer_active = observing.then_some(frame);
        if observing && observer.activates_at(frame) {
            *observer_activations += 1;
        }
        current.frame.handed_out += 1;
        let anchor_kept = anchor_store.contains(holoterrain::xr::KEPT_ANCHOR_NAME);
        let time_ns = wearer.next_frame(anchor_kept).time_ns;
        if config.realtime {
            let start = *current.frame.wall_start.get_or_insert_with(Instant::now);
            let due = start + Duration::from_nanos((time_ns - EPOCH_NS).unsigned_abs());
            std::thread::sleep(due.saturating_duration_since(Instant::now()));
        }
        for (reason, refusals) in wearer.disconnects_due(time_ns) {
            remoting.drop_connection(reason, refusals);
        }
        for words in wearer.phrases_due() {
            if let Some(heard) = speech.hear(session.into_raw(), &words) {
                events.push(heard);
            }
        }
        current.frame.waited = Some(time_ns);
        state.predicted_display_time = xr::Time::from_nanos(time_ns);
        state.predicted_display_period = xr::Duration::from_nanos(period_ns(config.rate));
        state.should_render = current.visible().into();
        Ok(xr::Result::SUCCESS)
    });
    if let Some(frame) = hangs {
        hang(frame);
    }
    result
}

/// Never returns, as a runtime that stopped answering: blocks the calling
/// thread (outside the runtime's lock) for good.
fn hang(frame: u64) -> ! {
    eprintln!(
        "holoterrain-testrt: xrWaitFrame of frame {frame} never returns ({})",
        crate::config::HANG_VARIABLE
    );
    loop {
        std::thread::park();
    }
}

/// xrBeginFrame.
///
/// # Safety
/// The arguments are the application's, as the OpenXR API defines them.
pub unsafe extern "system" fn begin_frame(
    session: xr::Session,
    begin_info: *const xr::FrameBeginInfo,
) -> xr::Result {
    with_runtime("xrBeginFrame", |runtime| {
        let current = lookup_mut(&mut runtime.sessions, session.into_raw(), "XrSession")?;
        if !begin_info.is_null() {
            // SAFETY: the application's pointer, valid when not NULL.
            let info = unsafe { input(begin_info, "frameBeginInfo") }?;
            // SAFETY: the chain is the application's.
            unsafe { check_chain(info.next, &[], "frameBeginInfo") }?;
        }
        current.check_running()?;
        let Some(time_ns) = current.frame.waited.take() else {
            return Err(out_of_order(
                "xrBeginFrame without a frame from xrWaitFrame",
            ));
        };
        let discarded = current.frame.begun.replace(time_ns).is_some();
        Ok(if discarded {
            xr::Result::FRAME_DISCARDED
        } else {
            xr::Result::SUCCESS
        })
    })
}

/// The session's swapchains and spaces, as the layer checks see them.
struct SessionObjects<'a> {
    /// The runtime holding them.
    runtime: &'a Runtime,
    /// The session the frame belongs to.
    session: u64,
}

impl FrameObjects for SessionObjects<'_> {
    fn swapchain(&self, handle: u64) -> Option<SwapchainFacts> {
        let swapchain = self.runtime.swapchains.get(&handle)?;
        (swapchain.session == self.session).then(|| SwapchainFacts {
            width: swapchain.info.width,
            height: swapchain.info.height,
            array_size: swapchain.info.array_size,
            released: swapchain.cycle.last_released().is_some(),
        })
    }

    fn has_space(&self, handle: u64) -> bool {
        self.runtime
            .spaces
            .get(&handle)
            .is_some_and(|space| space.session == self.session)
    }
}

/// xrEndFrame: checks the frame and its layers, counts it, and reads its
/// colour images back when due.
///
/// # Safety
/// The arguments are the application's, as the OpenXR API defines them.
pub unsafe extern "system" fn end_frame(
    session: xr::Session,
    end_info: *const xr::FrameEndInfo,
) -> xr::Result {
    with_runtime("xrEndFrame", |runtime| {
        let handle = session.into_raw();
        let depth = runtime.enabled.has(Extension::CompositionLayerDepth);
        let reprojection_enabled = runtime.enabled.has(Extension::CompositionLayerReprojection);
        let observer_extensions = runtime.enabled.observer();
        let current = lookup_mut(&mut runtime.sessions, handle, "XrSession")?;
        // SAFETY: the application's pointers.
        let info = unsafe { input(end_info, "frameEndInfo") }?;
        let allowed: &[xr::StructureType] = if observer_extensions {
            &[xr::StructureType::SECONDARY_VIEW_CONFIGURATION_FRAME_END_INFO_MSFT]
        } else {
            &[]
        };
        // SAFETY: the chain is the application's.
        unsafe { check_chain(info.next, allowed, "frameEndInfo") }?;
        current.check_running()?;
        let observer_frame = current.frame.observer_active.take();
        let Some(begun) = current.frame.begun.take() else {
            return Err(out_of_order("xrEndFrame without xrBeginFrame"));
        };
        if info.display_time.as_nanos() != begun {
            return Err(Failure::violation(
                xr::Result::ERROR_TIME_INVALID,
                format!(
                    "displayTime {} is not the predicted display time {begun} of the frame begun",
                    info.display_time.as_nanos()
                ),
            ));
        }
        if info.environment_blend_mode != BLEND_MODE {
            return Err(Failure::violation(
                xr::Result::ERROR_ENVIRONMENT_BLEND_MODE_UNSUPPORTED,
                format!(
                    "environmentBlendMode {:?}: this display blends ADDITIVE only",
                    info.environment_blend_mode
                ),
            ));
        }
        if info.layer_count > MAX_LAYER_COUNT {
            return Err(Failure::violation(
                xr::Result::ERROR_LAYER_LIMIT_EXCEEDED,
                format!(
                    "{} layers; the system takes at most {MAX_LAYER_COUNT}",
                    info.layer_count
                ),
            ));
        }
        // SAFETY: the application's layer array and the structures it points at.
        let (layers, reprojection) =
            unsafe { read_layers(info.layer_count, info.layers, depth, reprojection_enabled) }?;
        // SAFETY: the chain was checked; its structures are the application's.
        let observer_layers = unsafe { read_observer_layers(info.next, depth, observer_frame) }?;
        check_layers_of(
            &observer_layers,
            &SessionObjects {
                runtime,
                session: handle,
            },
            1,
            "SECONDARY_MONO_FIRST_PERSON_OBSERVER_MSFT",
        )?;
        note_observer_swapchains(runtime, &observer_layers);
        if let Some(mode) = reprojection {
            crate::reprojection::check_mode(mode, &runtime.reprojection_modes)?;
        }
        check_layers(
            &layers,
            &SessionObjects {
                runtime,
                session: handle,
            },
        )?;
        if let (Some(frame), Some(Layer::Projection { views, .. })) =
            (observer_frame, observer_layers.first())
        {
            let view = &views[0];
            let image = ViewImage {
                swapchain: view.sub_image.swapchain,
                image: runtime
                    .swapchains
                    .get(&view.sub_image.swapchain)
                    .and_then(|swapchain| swapchain.cycle.last_released())
                    .unwrap_or_default(),
                array_index: view.sub_image.array_index,
                rect: view.sub_image.rect,
            };
            read_back_observer(runtime, handle, frame, image);
        }
        if layers.is_empty() {
            return Ok(xr::Result::SUCCESS);
        }
        let frame = runtime.record.frames_submitted;
        runtime.record.frames_submitted += 1;
        runtime.record.blend_mode = Some(format!("{:?}", info.environment_blend_mode));
        runtime.record.note_projection(&layers, reprojection);
        let submission = layers.iter().find_map(|layer| match layer {
            Layer::Projection { views, .. } => Some(Submission {
                frame,
                views: views
                    .iter()
                    .map(|view| ViewImage {
                        swapchain: view.sub_image.swapchain,
                        image: runtime
                            .swapchains
                            .get(&view.sub_image.swapchain)
                            .and_then(|swapchain| swapchain.cycle.last_released())
                            .unwrap_or_default(),
                        array_index: view.sub_image.array_index,
                        rect: view.sub_image.rect,
                    })
                    .collect(),
            }),
            Layer::Quad { .. } => None,
        });
        let current = lookup_mut(&mut runtime.sessions, handle, "XrSession")?;
        current.pending = submission;
        if frame.is_multiple_of(runtime.config.every) {
            read_back_pending(runtime, handle);
        }
        Ok(xr::Result::SUCCESS)
    })
}

/// Reads the layers of `info` from the application's memory.
///
/// # Safety
/// `info.layers` holds `info.layer_count` pointers (or is NULL), each NULL
/// or pointing at a composition layer structure that lives for the call.
/// Also gives the reprojection mode a projection layer asks for (with
/// XR_MSFT_composition_layer_reprojection enabled).
unsafe fn read_layers(
    layer_count: u32,
    layer_pointers: *const *const xr::CompositionLayerBaseHeader,
    depth_enabled: bool,
    reprojection_enabled: bool,
) -> XrResult<(Vec<Layer>, Option<xr::ReprojectionModeMSFT>)> {
    let count = layer_count as usize;
    if count > 0 && layer_pointers.is_null() {
        return Err(invalid(format!("layers is NULL with layerCount {count}")));
    }
    let mut layers = Vec::with_capacity(count);
    let mut reprojection = None;
    for index in 0..count {
        let what = format!("layers[{index}]");
        // SAFETY: the array holds `count` pointers.
        let header = unsafe { *layer_pointers.add(index) };
        // SAFETY: a layer pointer is NULL or points at a layer structure.
        let Some(base) = (unsafe { header.as_ref() }) else {
            return Err(Failure::violation(
                xr::Result::ERROR_LAYER_INVALID,
                format!("{what} is NULL"),
            ));
        };
        let known_flags = xr::CompositionLayerFlags::CORRECT_CHROMATIC_ABERRATION
            | xr::CompositionLayerFlags::BLEND_TEXTURE_SOURCE_ALPHA
            | xr::CompositionLayerFlags::UNPREMULTIPLIED_ALPHA;
        if base.layer_flags.into_raw() & !known_flags.into_raw() != 0 {
            return Err(invalid(format!(
                "{what}.layerFlags {:#x} has unknown bits",
                base.layer_flags.into_raw()
            )));
        }
        match base.ty {
            xr::StructureType::COMPOSITION_LAYER_PROJECTION => {
                // SAFETY: the type says the structure is a projection layer.
                let layer = unsafe { &*header.cast::<xr::CompositionLayerProjection>() };
                let allowed: &[xr::StructureType] = if reprojection_enabled {
                    &[xr::StructureType::COMPOSITION_LAYER_REPROJECTION_INFO_MSFT]
                } else {
                    &[]
                };
                // SAFETY: the chain is the application's.
                unsafe { check_chain(layer.next, allowed, &what) }?;
                let mut link = layer.next.cast::<xr::BaseInStructure>();
                // SAFETY: the chain was checked: each link is a structure of it.
                while let Some(header) = unsafe { link.as_ref() } {
                    if header.ty == xr::StructureType::COMPOSITION_LAYER_REPROJECTION_INFO_MSFT {
                        // SAFETY: the type says it is a reprojection info structure.
                        let info =
                            unsafe { &*link.cast::<xr::CompositionLayerReprojectionInfoMSFT>() };
                        reprojection = Some(info.reprojection_mode);
                    }
                    link = header.next;
                }
                if layer.view_count > 0 && layer.views.is_null() {
                    return Err(invalid(format!("{what}.views is NULL")));
                }
                let mut views = Vec::with_capacity(layer.view_count as usize);
                for eye in 0..layer.view_count as usize {
                    // SAFETY: the layer holds view_count views.
                    let view =
                        unsafe { input(layer.views.add(eye), &format!("{what}.views[{eye}]")) }?;
                    // SAFETY: the view's chain and the structures in it are the application's.
                    views.push(unsafe {
                        read_view(view, depth_enabled, &format!("{what}.views[{eye}]"))
                    }?);
                }
                layers.push(Layer::Projection {
                    space: layer.space.into_raw(),
                    views,
                });
            }
            xr::StructureType::COMPOSITION_LAYER_QUAD => {
                // SAFETY: the type says the structure is a quad layer.
                let layer = unsafe { &*header.cast::<xr::CompositionLayerQuad>() };
                // SAFETY: the chain is the application's.
                unsafe { check_chain(layer.next, &[], &what) }?;
                layers.push(Layer::Quad {
                    space: layer.space.into_raw(),
                    pose: layer.pose,
                    size: layer.size,
                    sub_image: sub_image(&layer.sub_image),
                });
            }
            other => {
                return Err(Failure::violation(
                    xr::Result::ERROR_LAYER_INVALID,
                    format!(
                        "{what} has type {}: the layers of this system are projection and quad",
                        structure_type_name(other)
                    ),
                ));
            }
        }
    }
    Ok((layers, reprojection))
}

/// The sub-image an XrSwapchainSubImage names.
fn sub_image(raw: &xr::SwapchainSubImage) -> SubImage {
    SubImage {
        swapchain: raw.swapchain.into_raw(),
        rect: raw.image_rect,
        array_index: raw.image_array_index,
    }
}

/// One projection view, with its chained depth info.
///
/// # Safety
/// The view's chain is a valid chain of the application's structures.
unsafe fn read_view(
    view: &xr::CompositionLayerProjectionView,
    depth_enabled: bool,
    what: &str,
) -> XrResult<ProjectionView> {
    let allowed: &[xr::StructureType] = if depth_enabled {
        &[xr::StructureType::COMPOSITION_LAYER_DEPTH_INFO_KHR]
    } else {
        &[]
    };
    // SAFETY: the caller's promise.
    unsafe { check_chain(view.next, allowed, what) }?;
    let mut depth = None;
    let mut link = view.next.cast::<xr::BaseInStructure>();
    // SAFETY: the caller's promise: each link is a structure of the chain.
    while let Some(header) = unsafe { link.as_ref() } {
        if header.ty == xr::StructureType::COMPOSITION_LAYER_DEPTH_INFO_KHR {
            // SAFETY: the type says it is a depth info structure.
            let info = unsafe { &*link.cast::<xr::CompositionLayerDepthInfoKHR>() };
            depth = Some(DepthInfo {
                sub_image: sub_image(&info.sub_image),
                min_depth: info.min_depth,
                max_depth: info.max_depth,
                near_z: info.near_z,
                far_z: info.far_z,
            });
        }
        link = header.next;
    }
    Ok(ProjectionView {
        pose: view.pose,
        fov: view.fov,
        sub_image: sub_image(&view.sub_image),
        depth,
    })
}

/// Reads back the session's newest submitted frame, if it has not been,
/// and writes it as a PNG; a failure is reported on stderr and in the
/// report, never to the application.
pub fn read_back_pending(runtime: &mut Runtime, session: u64) {
    let Some(current) = runtime.sessions.get_mut(&session) else {
        return;
    };
    let Some(submission) = current.pending.take() else {
        return;
    };
    let mut eyes = Vec::with_capacity(submission.views.len());
    for view in &submission.views {
        let Some(swapchain) = runtime.swapchains.get(&view.swapchain) else {
            return;
        };
        match current
            .device
            .read_back(&swapchain.images, view.image, view.array_index, view.rect)
        {
            Ok(pixels) => eyes.push((
                view.rect.extent.width as u32,
                view.rect.extent.height as u32,
                pixels,
            )),
            Err(error) => {
                runtime
                    .record
                    .note_failure(format!("reading back frame {}: {error}", submission.frame));
                return;
            }
        }
    }
    runtime.record.write_frame(submission.frame, &eyes);
}

/// Fills the observer's state in a frame state's chain: whether it is
/// `active` this frame. The chain's secondary state must list exactly the
/// configurations the session began with (the observer's when
/// `observer_enabled`).
///
/// # Safety
/// `next` is a valid chain of the application's output structures.
unsafe fn write_secondary_states(
    next: *mut std::ffi::c_void,
    observer_enabled: bool,
    active: bool,
) -> XrResult {
    let mut link = next.cast::<xr::BaseOutStructure>();
    // SAFETY: the caller's promise: each link is a structure of the chain.
    while let Some(header) = unsafe { link.as_mut() } {
        if header.ty == xr::StructureType::SECONDARY_VIEW_CONFIGURATION_FRAME_STATE_MSFT {
            // SAFETY: the type says which structure it is.
            let frame_state =
                unsafe { &mut *link.cast::<xr::SecondaryViewConfigurationFrameStateMSFT>() };
            let count = frame_state.view_configuration_count as usize;
            if count != usize::from(observer_enabled) {
                return Err(Failure::violation(
                    xr::Result::ERROR_VALIDATION_FAILURE,
                    format!(
                        "frameState's secondary viewConfigurationCount is {count}, not the {} configurations xrBeginSession enabled",
                        usize::from(observer_enabled)
                    ),
                ));
            }
            if count > 0 {
                if frame_state.view_configuration_states.is_null() {
                    return Err(invalid("viewConfigurationStates is NULL with a count"));
                }
                // SAFETY: the application's array of `count` states.
                let states = unsafe {
                    std::slice::from_raw_parts_mut(frame_state.view_configuration_states, count)
                };
                for state in states {
                    if state.ty != xr::StructureType::SECONDARY_VIEW_CONFIGURATION_STATE_MSFT {
                        return Err(Failure::violation(
                            xr::Result::ERROR_VALIDATION_FAILURE,
                            "a viewConfigurationStates element is not an XrSecondaryViewConfigurationStateMSFT",
                        ));
                    }
                    state.view_configuration_type = OBSERVER;
                    state.active = active.into();
                }
            }
        }
        link = header.next;
    }
    Ok(())
}

/// The layers a frame end info's chain submits for the observer view,
/// which must be active this frame (`observer_frame`) and blended ADDITIVE.
///
/// # Safety
/// `next` is a valid chain of the application's structures.
unsafe fn read_observer_layers(
    next: *const std::ffi::c_void,
    depth_enabled: bool,
    observer_frame: Option<u64>,
) -> XrResult<Vec<Layer>> {
    let mut layers = Vec::new();
    let mut link = next.cast::<xr::BaseInStructure>();
    // SAFETY: the caller's promise: each link is a structure of the chain.
    while let Some(header) = unsafe { link.as_ref() } {
        if header.ty == xr::StructureType::SECONDARY_VIEW_CONFIGURATION_FRAME_END_INFO_MSFT {
            // SAFETY: the type says which structure it is.
            let end_info =
                unsafe { &*link.cast::<xr::SecondaryViewConfigurationFrameEndInfoMSFT>() };
            let count = end_info.view_configuration_count as usize;
            if count > 0 && end_info.view_configuration_layers_info.is_null() {
                return Err(invalid("viewConfigurationLayersInfo is NULL with a count"));
            }
            for index in 0..count {
                // SAFETY: the application's array of `count` layer infos.
                let layer_info = unsafe { &*end_info.view_configuration_layers_info.add(index) };
                if layer_info.view_configuration_type != OBSERVER {
                    return Err(Failure::violation(
                        xr::Result::ERROR_SECONDARY_VIEW_CONFIGURATION_TYPE_NOT_ENABLED_MSFT,
                        format!(
                            "viewConfigurationLayersInfo[{index}] is for {:?}, which xrBeginSession did not enable",
                            layer_info.view_configuration_type
                        ),
                    ));
                }
                if observer_frame.is_none() {
                    return Err(Failure::violation(
                        xr::Result::ERROR_VALIDATION_FAILURE,
                        "layers for the observer view, which xrWaitFrame did not say is active for this frame",
                    ));
                }
                if layer_info.environment_blend_mode != BLEND_MODE {
                    return Err(Failure::violation(
                        xr::Result::ERROR_ENVIRONMENT_BLEND_MODE_UNSUPPORTED,
                        format!(
                            "the observer's environmentBlendMode {:?}: this display blends ADDITIVE only",
                            layer_info.environment_blend_mode
                        ),
                    ));
                }
                // SAFETY: the application's layer array.
                let (read, _) = unsafe {
                    read_layers(
                        layer_info.layer_count,
                        layer_info.layers,
                        depth_enabled,
                        false,
                    )
                }?;
                layers.extend(read);
            }
        }
        link = header.next;
    }
    Ok(layers)
}

/// Records, once per swapchain, what is wrong with the swapchains the
/// observer's `layers` show (colour and chained depth): created for another
/// view configuration, or at a size other than the one recommended when
/// the view became active. The frame still succeeds: the specification
/// only says an application should do both.
fn note_observer_swapchains(runtime: &mut Runtime, layers: &[Layer]) {
    let recommended = runtime.observer.recommended(runtime.observer_activations);
    for layer in layers {
        let sub_images: Vec<u64> = match layer {
            Layer::Projection { views, .. } => views
                .iter()
                .flat_map(|view| {
                    std::iter::once(view.sub_image.swapchain)
                        .chain(view.depth.map(|depth| depth.sub_image.swapchain))
                })
                .collect(),
            Layer::Quad { sub_image, .. } => vec![sub_image.swapchain],
        };
        for handle in sub_images {
            let Some(swapchain) = runtime.swapchains.get_mut(&handle) else {
                continue;
            };
            if swapchain.observer_problem_noted {
                continue;
            }
            let problem = crate::observer::swapchain_problem(
                swapchain.view_configuration,
                swapchain.info.width,
                swapchain.info.height,
                recommended,
            );
            if let Some(problem) = problem {
                swapchain.observer_problem_noted = true;
                note_violation(runtime, "xrEndFrame", &problem);
            }
        }
    }
}

/// Reads back the observer view's image of frame `frame` and writes it as
/// `observer-NNNNN.png`; a failure is reported on stderr and in the
/// report, never to the application.
fn read_back_observer(runtime: &mut Runtime, session: u64, frame: u64, view: ViewImage) {
    runtime.record.observer_frames += 1;
    let Some(current) = runtime.sessions.get_mut(&session) else {
        return;
    };
    let Some(swapchain) = runtime.swapchains.get(&view.swapchain) else {
        return;
    };
    match current
        .device
        .read_back(&swapchain.images, view.image, view.array_index, view.rect)
    {
        Ok(pixels) => runtime.record.write_observer(
            frame,
            view.rect.extent.width as u32,
            view.rect.extent.height as u32,
            &pixels,
        ),
        Err(error) => runtime
            .record
            .note_failure(format!("reading back observer frame {frame}: {error}")),
    }
}
