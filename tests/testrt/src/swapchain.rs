//! Swapchains: the formats offered (HoloLens 2's order), the checks on
//! creation, image enumeration, and the order every image goes through —
//! acquire, wait, release — enforced. The images themselves come from the
//! build's graphics API ([`crate::graphics`]).

use std::collections::VecDeque;

use openxr_sys as xr;
use xr::Handle as _;

use crate::extensions::Extension;
use crate::graphics::{SessionDevice, SwapchainImages};
use crate::instance::MAX_IMAGE_SIDE;
use crate::observer::OBSERVER;
use crate::state::{
    Failure, Runtime, XrResult, invalid, lookup, lookup_mut, new_handle, note_violation,
    out_of_order, with_runtime,
};
use crate::structs::{check_chain, input, out_value, two_call};

/// What the application asked for.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct SwapchainInfo {
    /// XrSwapchainUsageFlags.
    pub usage: xr::SwapchainUsageFlags,
    /// The graphics API's format value.
    pub format: i64,
    /// Image width.
    pub width: u32,
    /// Image height.
    pub height: u32,
    /// Array layers per image.
    pub array_size: u32,
    /// Mip levels per image.
    pub mip_count: u32,
    /// Whether the swapchain has one image, acquired once (STATIC_IMAGE).
    pub static_image: bool,
}

/// Where each image of a swapchain stands.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ImageCycle {
    /// Images in the swapchain.
    count: u32,
    /// The index the next acquire hands out.
    next: u32,
    /// Acquired, not yet waited for, oldest first.
    acquired: VecDeque<u32>,
    /// Waited for, not yet released.
    waited: Option<u32>,
    /// Released most recently.
    released: Option<u32>,
    /// Acquires so far (a static swapchain allows one).
    acquires: u64,
    /// Whether only one acquire is allowed.
    static_image: bool,
}

impl ImageCycle {
    /// A swapchain of `count` images, none acquired.
    pub fn new(count: u32, static_image: bool) -> Self {
        Self {
            count,
            next: 0,
            acquired: VecDeque::new(),
            waited: None,
            released: None,
            acquires: 0,
            static_image,
        }
    }

    /// xrAcquireSwapchainImage: the next image, in order.
    pub fn acquire(&mut self) -> XrResult<u32> {
        if self.static_image && self.acquires > 0 {
            return Err(out_of_order(
                "a static swapchain's image is acquired once only",
            ));
        }
        let outstanding = self.acquired.len() as u32 + u32::from(self.waited.is_some());
        if outstanding == self.count {
            return Err(out_of_order(format!(
                "all {} images are acquired and not released",
                self.count
            )));
        }
        let index = self.next;
        self.next = (self.next + 1) % self.count;
        self.acquired.push_back(index);
        self.acquires += 1;
        Ok(index)
    }

    /// xrWaitSwapchainImage: the oldest acquired image.
    pub fn wait(&mut self) -> XrResult<u32> {
        if self.waited.is_some() {
            return Err(out_of_order("an image was waited for and not released yet"));
        }
        let index = self
            .acquired
            .pop_front()
            .ok_or_else(|| out_of_order("no image is acquired to wait for"))?;
        self.waited = Some(index);
        Ok(index)
    }

    /// xrReleaseSwapchainImage: the image waited for.
    pub fn release(&mut self) -> XrResult<u32> {
        let index = self.waited.take().ok_or_else(|| {
            out_of_order("no image was waited for (acquire, then wait, then release)")
        })?;
        self.released = Some(index);
        Ok(index)
    }

    /// The image released most recently: what a layer shows.
    pub fn last_released(&self) -> Option<u32> {
        self.released
    }
}

/// A swapchain.
pub struct Swapchain {
    /// The session it belongs to.
    pub session: u64,
    /// What it was created with.
    pub info: SwapchainInfo,
    /// Its images on the application's device.
    pub images: SwapchainImages,
    /// Where its images stand.
    pub cycle: ImageCycle,
    /// The view configuration it was created for: a chained
    /// XrSecondaryViewConfigurationSwapchainCreateInfoMSFT's, `None`
    /// without one (the session's primary view).
    pub view_configuration: Option<xr::ViewConfigurationType>,
    /// Whether a problem of an observer layer showing it was recorded
    /// already (once per swapchain, not once per frame).
    pub observer_problem_noted: bool,
}

/// xrEnumerateSwapchainFormats.
///
/// # Safety
/// The arguments are the application's, as the OpenXR API defines them.
pub unsafe extern "system" fn enumerate_swapchain_formats(
    session: xr::Session,
    capacity: u32,
    count_output: *mut u32,
    formats: *mut i64,
) -> xr::Result {
    with_runtime("xrEnumerateSwapchainFormats", |runtime| {
        let current = lookup(&runtime.sessions, session.into_raw(), "XrSession")?;
        // SAFETY: the application's pointers.
        unsafe {
            two_call(
                capacity,
                count_output,
                formats,
                &current.device.formats(),
                "formats",
                |_| Ok(()),
                |slot, value| *slot = *value,
            )
        }
    })
}

/// The checked request of `info`.
fn requested(info: &xr::SwapchainCreateInfo, offered: &[i64]) -> XrResult<SwapchainInfo> {
    let known_flags =
        xr::SwapchainCreateFlags::PROTECTED_CONTENT | xr::SwapchainCreateFlags::STATIC_IMAGE;
    if info.create_flags.into_raw() & !known_flags.into_raw() != 0 {
        return Err(invalid("createInfo.createFlags has unknown bits"));
    }
    if info
        .create_flags
        .contains(xr::SwapchainCreateFlags::PROTECTED_CONTENT)
    {
        return Err(Failure::violation(
            xr::Result::ERROR_FEATURE_UNSUPPORTED,
            "protected content is not supported",
        ));
    }
    if !offered.contains(&info.format) {
        return Err(Failure::violation(
            xr::Result::ERROR_SWAPCHAIN_FORMAT_UNSUPPORTED,
            format!(
                "format {} is not among xrEnumerateSwapchainFormats' {offered:?}",
                info.format
            ),
        ));
    }
    let depth = SessionDevice::is_depth_format(info.format);
    let (wrong_usage, kind) = if depth {
        (xr::SwapchainUsageFlags::COLOR_ATTACHMENT, "depth")
    } else {
        (xr::SwapchainUsageFlags::DEPTH_STENCIL_ATTACHMENT, "colour")
    };
    if info.usage_flags.contains(wrong_usage) {
        return Err(Failure::violation(
            xr::Result::ERROR_FEATURE_UNSUPPORTED,
            format!(
                "usageFlags {:#x} do not suit the {kind} format {}",
                info.usage_flags.into_raw(),
                info.format
            ),
        ));
    }
    if info.sample_count != 1 {
        return Err(Failure::violation(
            xr::Result::ERROR_FEATURE_UNSUPPORTED,
            format!(
                "sampleCount {}: the system's maximum is 1",
                info.sample_count
            ),
        ));
    }
    if info.face_count != 1 {
        return Err(Failure::violation(
            xr::Result::ERROR_FEATURE_UNSUPPORTED,
            format!("faceCount {}: cube maps are not supported", info.face_count),
        ));
    }
    let sides = 1..=MAX_IMAGE_SIDE;
    if !sides.contains(&info.width) || !sides.contains(&info.height) {
        return Err(invalid(format!(
            "{}×{} images: each side must be 1 to {MAX_IMAGE_SIDE}",
            info.width, info.height
        )));
    }
    if info.array_size == 0 || info.mip_count == 0 {
        return Err(invalid("arraySize and mipCount must be at least 1"));
    }
    Ok(SwapchainInfo {
        usage: info.usage_flags,
        format: info.format,
        width: info.width,
        height: info.height,
        array_size: info.array_size,
        mip_count: info.mip_count,
        static_image: info
            .create_flags
            .contains(xr::SwapchainCreateFlags::STATIC_IMAGE),
    })
}

/// xrCreateSwapchain.
///
/// # Safety
/// The arguments are the application's, as the OpenXR API defines them.
pub unsafe extern "system" fn create_swapchain(
    session: xr::Session,
    create_info: *const xr::SwapchainCreateInfo,
    swapchain: *mut xr::Swapchain,
) -> xr::Result {
    with_runtime("xrCreateSwapchain", |runtime| {
        let session = session.into_raw();
        let current = lookup_mut(&mut runtime.sessions, session, "XrSession")?;
        // SAFETY: the application's pointers.
        let info = unsafe { input(create_info, "createInfo") }?;
        let secondary = runtime.enabled.has(Extension::SecondaryViewConfiguration);
        let allowed: &[xr::StructureType] = if secondary {
            &[xr::StructureType::SECONDARY_VIEW_CONFIGURATION_SWAPCHAIN_CREATE_INFO_MSFT]
        } else {
            &[]
        };
        // SAFETY: the chain is the application's.
        unsafe { check_chain(info.next, allowed, "createInfo") }?;
        // SAFETY: the chain was checked; its structures are the application's.
        let view_configuration = unsafe { view_configuration_of(info.next) }?;
        // SAFETY: the application's output pointer.
        let output = unsafe { out_value(swapchain, "swapchain") }?;
        if current.lost {
            return Err(Failure::quiet(xr::Result::ERROR_SESSION_LOST));
        }
        let request = requested(info, &current.device.formats())?;
        let images = current.device.create_images(&request)?;
        let count = images.count();
        let handle = new_handle();
        if SessionDevice::is_depth_format(request.format) {
            runtime.record.depth_format = Some(request.format);
        } else {
            runtime.record.color_format = Some(request.format);
        }
        if view_configuration == Some(OBSERVER) {
            let kind = if SessionDevice::is_depth_format(request.format) {
                "depth"
            } else {
                "colour"
            };
            runtime
                .record
                .observer_swapchains
                .push(format!("{}x{} {kind}", request.width, request.height));
        }
        runtime.swapchains.insert(
            handle,
            Swapchain {
                session,
                info: request,
                images,
                cycle: ImageCycle::new(count, request.static_image),
                view_configuration,
                observer_problem_noted: false,
            },
        );
        *output = xr::Swapchain::from_raw(handle);
        Ok(xr::Result::SUCCESS)
    })
}

/// The view configuration a swapchain create info's chain names in its
/// XrSecondaryViewConfigurationSwapchainCreateInfoMSFT, if it has one: one
/// this system has (PRIMARY_STEREO or the observer's).
///
/// # Safety
/// `next` is a valid chain of the application's structures.
unsafe fn view_configuration_of(
    next: *const std::ffi::c_void,
) -> XrResult<Option<xr::ViewConfigurationType>> {
    let mut link = next.cast::<xr::BaseInStructure>();
    // SAFETY: the caller's promise: each link is a structure of the chain.
    while let Some(header) = unsafe { link.as_ref() } {
        if header.ty == xr::StructureType::SECONDARY_VIEW_CONFIGURATION_SWAPCHAIN_CREATE_INFO_MSFT {
            // SAFETY: the type says which structure it is.
            let secondary =
                unsafe { &*link.cast::<xr::SecondaryViewConfigurationSwapchainCreateInfoMSFT>() };
            let view = secondary.view_configuration_type;
            if view != OBSERVER && view != xr::ViewConfigurationType::PRIMARY_STEREO {
                return Err(invalid(format!(
                    "createInfo's XrSecondaryViewConfigurationSwapchainCreateInfoMSFT names {view:?}, a view configuration this system does not have"
                )));
            }
            return Ok(Some(view));
        }
        link = header.next;
    }
    Ok(None)
}

/// xrDestroySwapchain: reads back the newest submitted frame first, while
/// its images exist.
///
/// # Safety
/// The arguments are the application's, as the OpenXR API defines them.
pub unsafe extern "system" fn destroy_swapchain(swapchain: xr::Swapchain) -> xr::Result {
    with_runtime("xrDestroySwapchain", |runtime| {
        let handle = swapchain.into_raw();
        let session = lookup(&runtime.swapchains, handle, "XrSwapchain")?.session;
        crate::frame::read_back_pending(runtime, session);
        destroy(runtime, handle, "xrDestroySwapchain");
        Ok(xr::Result::SUCCESS)
    })
}

/// Destroys swapchain `handle`, noting (as a violation of `call`) what the
/// application did wrong with its images.
pub fn destroy(runtime: &mut Runtime, handle: u64, call: &str) {
    let Some(swapchain) = runtime.swapchains.remove(&handle) else {
        return;
    };
    for problem in swapchain.images.release() {
        note_violation(runtime, call, &problem);
    }
}

/// xrEnumerateSwapchainImages.
///
/// # Safety
/// The arguments are the application's, as the OpenXR API defines them.
pub unsafe extern "system" fn enumerate_swapchain_images(
    swapchain: xr::Swapchain,
    capacity: u32,
    count_output: *mut u32,
    images: *mut xr::SwapchainImageBaseHeader,
) -> xr::Result {
    with_runtime("xrEnumerateSwapchainImages", |runtime| {
        let current = lookup(&runtime.swapchains, swapchain.into_raw(), "XrSwapchain")?;
        // SAFETY: the application's pointers, passed on.
        unsafe { current.images.enumerate(capacity, count_output, images) }
    })
}

/// xrAcquireSwapchainImage.
///
/// # Safety
/// The arguments are the application's, as the OpenXR API defines them.
pub unsafe extern "system" fn acquire_swapchain_image(
    swapchain: xr::Swapchain,
    acquire_info: *const xr::SwapchainImageAcquireInfo,
    index: *mut u32,
) -> xr::Result {
    with_runtime("xrAcquireSwapchainImage", |runtime| {
        let current = lookup_mut(&mut runtime.swapchains, swapchain.into_raw(), "XrSwapchain")?;
        if !acquire_info.is_null() {
            // SAFETY: the application's pointer, valid when not NULL.
            let info = unsafe { input(acquire_info, "acquireInfo") }?;
            // SAFETY: the chain is the application's.
            unsafe { check_chain(info.next, &[], "acquireInfo") }?;
        }
        // SAFETY: the application's output pointer.
        let index = unsafe { out_value(index, "index") }?;
        *index = current.cycle.acquire()?;
        Ok(xr::Result::SUCCESS)
    })
}

/// xrWaitSwapchainImage: the runtime never holds an image, so it is ready at once.
///
/// # Safety
/// The arguments are the application's, as the OpenXR API defines them.
pub unsafe extern "system" fn wait_swapchain_image(
    swapchain: xr::Swapchain,
    wait_info: *const xr::SwapchainImageWaitInfo,
) -> xr::Result {
    with_runtime("xrWaitSwapchainImage", |runtime| {
        let current = lookup_mut(&mut runtime.swapchains, swapchain.into_raw(), "XrSwapchain")?;
        // SAFETY: the application's pointers.
        let info = unsafe { input(wait_info, "waitInfo") }?;
        // SAFETY: the chain is the application's.
        unsafe { check_chain(info.next, &[], "waitInfo") }?;
        current.cycle.wait()?;
        Ok(xr::Result::SUCCESS)
    })
}

/// xrReleaseSwapchainImage.
///
/// # Safety
/// The arguments are the application's, as the OpenXR API defines them.
pub unsafe extern "system" fn release_swapchain_image(
    swapchain: xr::Swapchain,
    release_info: *const xr::SwapchainImageReleaseInfo,
) -> xr::Result {
    with_runtime("xrReleaseSwapchainImage", |runtime| {
        let current = lookup_mut(&mut runtime.swapchains, swapchain.into_raw(), "XrSwapchain")?;
        if !release_info.is_null() {
            // SAFETY: the application's pointer, valid when not NULL.
            let info = unsafe { input(release_info, "releaseInfo") }?;
            // SAFETY: the chain is the application's.
            unsafe { check_chain(info.next, &[], "releaseInfo") }?;
        }
        current.cycle.release()?;
        Ok(xr::Result::SUCCESS)
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn result<T>(outcome: XrResult<T>) -> xr::Result {
        outcome
            .err()
            .map_or(xr::Result::SUCCESS, |failure| failure.result)
    }

    #[test]
    fn images_go_round_in_order_through_acquire_wait_release() {
        let mut cycle = ImageCycle::new(3, false);
        let mut released = Vec::new();
        for _ in 0..4 {
            let acquired = cycle.acquire().unwrap();
            assert_eq!(cycle.wait().unwrap(), acquired);
            released.push(cycle.release().unwrap());
        }
        assert_eq!(released, [0, 1, 2, 0]);
        assert_eq!(cycle.last_released(), Some(0));
    }

    #[test]
    fn each_step_out_of_order_is_a_call_order_error() {
        let mut cycle = ImageCycle::new(2, false);
        assert_eq!(result(cycle.wait()), xr::Result::ERROR_CALL_ORDER_INVALID);
        assert_eq!(
            result(cycle.release()),
            xr::Result::ERROR_CALL_ORDER_INVALID
        );
        cycle.acquire().unwrap();
        assert_eq!(
            result(cycle.release()),
            xr::Result::ERROR_CALL_ORDER_INVALID
        );
        cycle.acquire().unwrap();
        assert_eq!(
            result(cycle.acquire()),
            xr::Result::ERROR_CALL_ORDER_INVALID
        );
        cycle.wait().unwrap();
        assert_eq!(result(cycle.wait()), xr::Result::ERROR_CALL_ORDER_INVALID);
        assert_eq!(cycle.last_released(), None);
    }

    #[test]
    fn a_static_image_is_acquired_once() {
        let mut cycle = ImageCycle::new(1, true);
        cycle.acquire().unwrap();
        cycle.wait().unwrap();
        cycle.release().unwrap();
        assert_eq!(
            result(cycle.acquire()),
            xr::Result::ERROR_CALL_ORDER_INVALID
        );
    }
}
