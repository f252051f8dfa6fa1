//! Reading the application's structures and writing the runtime's answers:
//! every structure's type is checked before a field is read, `next` chains
//! are walked and checked, strings are bounded, and arrays follow the
//! two-call idiom.

use std::ffi::{CStr, c_char, c_void};

use holoterrain::xr::sys::scene_understanding as su;
use openxr_sys as xr;

use crate::state::{Failure, XrResult, invalid};

/// An OpenXR structure with a fixed `XrStructureType`.
pub trait Typed {
    /// The type its `type` member must hold.
    const TYPE: xr::StructureType;
    /// Its `type` member.
    fn structure_type(&self) -> xr::StructureType;
}

macro_rules! typed {
    ($($name:ident),* $(,)?) => {
        $(impl Typed for xr::$name {
            const TYPE: xr::StructureType = xr::$name::TYPE;
            fn structure_type(&self) -> xr::StructureType {
                self.ty
            }
        })*
    };
}

typed!(
    ActionCreateInfo,
    ActionSetCreateInfo,
    ActionSpaceCreateInfo,
    ActionStateBoolean,
    ActionStateFloat,
    ActionStateGetInfo,
    ActionStatePose,
    ActionStateVector2f,
    ActionsSyncInfo,
    ApiLayerProperties,
    BoundSourcesForActionEnumerateInfo,
    CompositionLayerDepthInfoKHR,
    CompositionLayerProjection,
    CompositionLayerProjectionView,
    CompositionLayerQuad,
    EventDataBuffer,
    ExtensionProperties,
    FrameBeginInfo,
    FrameEndInfo,
    FrameState,
    FrameWaitInfo,
    GraphicsRequirementsVulkanKHR,
    HandJointLocationsEXT,
    HandJointVelocitiesEXT,
    HandJointsLocateInfoEXT,
    HandTrackerCreateInfoEXT,
    HapticActionInfo,
    HapticVibration,
    InputSourceLocalizedNameGetInfo,
    InstanceCreateInfo,
    InstanceProperties,
    InteractionProfileState,
    InteractionProfileSuggestedBinding,
    ReferenceSpaceCreateInfo,
    SessionActionSetsAttachInfo,
    SessionBeginInfo,
    SessionCreateInfo,
    SpaceLocation,
    SpaceVelocity,
    SpatialAnchorCreateInfoMSFT,
    SpatialAnchorSpaceCreateInfoMSFT,
    SwapchainCreateInfo,
    SwapchainImageAcquireInfo,
    SwapchainImageReleaseInfo,
    SwapchainImageWaitInfo,
    SystemGetInfo,
    SystemHandTrackingPropertiesEXT,
    SystemProperties,
    View,
    ViewConfigurationProperties,
    ViewConfigurationView,
    ViewLocateInfo,
    ViewState,
    VulkanDeviceCreateInfoKHR,
    VulkanGraphicsDeviceGetInfoKHR,
    VulkanInstanceCreateInfoKHR,
    GraphicsBindingVulkanKHR,
    SwapchainImageVulkanKHR,
);

typed!(
    SpatialAnchorPersistenceInfoMSFT,
    SpatialAnchorFromPersistedAnchorCreateInfoMSFT,
    SystemPlaneDetectionPropertiesEXT,
    PlaneDetectorCreateInfoEXT,
    PlaneDetectorBeginInfoEXT,
    PlaneDetectorGetInfoEXT,
    PlaneDetectorLocationsEXT,
    PlaneDetectorLocationEXT,
    PlaneDetectorPolygonBufferEXT,
);

/// [`Typed`] for structures the app declares itself (openxr-sys lacks
/// them): each with its `XrStructureType`.
macro_rules! typed_declared {
    ($($name:path => $ty:ident),* $(,)?) => {
        $(impl Typed for $name {
            const TYPE: xr::StructureType = xr::StructureType::$ty;
            fn structure_type(&self) -> xr::StructureType {
                self.ty
            }
        })*
    };
}

typed_declared!(
    su::SceneObserverCreateInfo => SCENE_OBSERVER_CREATE_INFO_MSFT,
    su::SceneCreateInfo => SCENE_CREATE_INFO_MSFT,
    su::NewSceneComputeInfo => NEW_SCENE_COMPUTE_INFO_MSFT,
    su::SceneComponentsGetInfo => SCENE_COMPONENTS_GET_INFO_MSFT,
    su::SceneComponents => SCENE_COMPONENTS_MSFT,
    su::SceneComponentsLocateInfo => SCENE_COMPONENTS_LOCATE_INFO_MSFT,
    su::SceneComponentLocations => SCENE_COMPONENT_LOCATIONS_MSFT,
    su::ScenePlanes => SCENE_PLANES_MSFT,
    su::SceneMarkers => SCENE_MARKERS_MSFT,
    su::SceneMarkerQrCodes => SCENE_MARKER_QR_CODES_MSFT,
);

#[cfg(windows)]
typed!(
    GraphicsBindingD3D11KHR,
    GraphicsRequirementsD3D11KHR,
    SwapchainImageD3D11KHR
);

/// The structure `pointer` points at, once it is known not to be NULL and
/// to hold `T`'s structure type.
///
/// # Safety
/// `pointer` is NULL or points at a readable `T` that stays valid while the
/// returned reference is used (the application's structures live for the call).
pub unsafe fn input<'a, T: Typed>(pointer: *const T, what: &str) -> XrResult<&'a T> {
    // SAFETY: the caller promises `pointer` is NULL or a readable T.
    let value = unsafe { pointer.as_ref() }.ok_or_else(|| invalid(format!("{what} is NULL")))?;
    check_type(value.structure_type(), T::TYPE, what)?;
    Ok(value)
}

/// The structure `pointer` points at, to be filled in, once it is known not
/// to be NULL and to hold `T`'s structure type.
///
/// # Safety
/// `pointer` is NULL or points at a writable `T` that stays valid while the
/// returned reference is used.
pub unsafe fn output<'a, T: Typed>(pointer: *mut T, what: &str) -> XrResult<&'a mut T> {
    // SAFETY: the caller promises `pointer` is NULL or a writable T.
    let value = unsafe { pointer.as_mut() }.ok_or_else(|| invalid(format!("{what} is NULL")))?;
    check_type(value.structure_type(), T::TYPE, what)?;
    Ok(value)
}

/// The plain value (a handle, a count) `pointer` points at, to be written.
///
/// # Safety
/// `pointer` is NULL or points at a writable `T`.
pub unsafe fn out_value<'a, T>(pointer: *mut T, what: &str) -> XrResult<&'a mut T> {
    // SAFETY: the caller promises `pointer` is NULL or a writable T.
    unsafe { pointer.as_mut() }.ok_or_else(|| invalid(format!("{what} is NULL")))
}

/// Fails unless a structure's type is the one expected.
pub fn check_type(found: xr::StructureType, expected: xr::StructureType, what: &str) -> XrResult {
    if found == expected {
        Ok(())
    } else {
        Err(invalid(format!(
            "{what} has type {}, expected {}",
            structure_type_name(found),
            structure_type_name(expected)
        )))
    }
}

/// A structure type as the specification spells it, e.g. `XR_TYPE_FRAME_STATE`.
pub fn structure_type_name(ty: xr::StructureType) -> String {
    let debug = format!("{ty:?}");
    if debug.parse::<i64>().is_ok() {
        format!("XR_UNKNOWN_STRUCTURE_TYPE_{debug}")
    } else {
        format!("XR_TYPE_{debug}")
    }
}

/// Longest chain walked, so a cycle in the application's pointers cannot hang.
const MAX_CHAIN: usize = 32;

/// The structure types chained from `next`, in order.
///
/// # Safety
/// `next` is NULL or the head of a valid chain of OpenXR structures.
pub unsafe fn chain(next: *const c_void) -> Vec<xr::StructureType> {
    let mut types = Vec::new();
    let mut link = next.cast::<xr::BaseInStructure>();
    // SAFETY: the caller promises a valid chain; each element starts with
    // an XrBaseInStructure header.
    while let Some(header) = unsafe { link.as_ref() } {
        types.push(header.ty);
        if types.len() == MAX_CHAIN {
            break;
        }
        link = header.next;
    }
    types
}

/// Fails unless every structure chained from `next` is one of `allowed`
/// (the structures that may extend this one with the enabled extensions).
///
/// # Safety
/// As for [`chain`].
pub unsafe fn check_chain(
    next: *const c_void,
    allowed: &[xr::StructureType],
    what: &str,
) -> XrResult {
    // SAFETY: the caller's promise is passed on.
    for ty in unsafe { chain(next) } {
        if !allowed.contains(&ty) {
            return Err(invalid(format!(
                "{what} chains {}, which cannot extend it here",
                structure_type_name(ty)
            )));
        }
    }
    Ok(())
}

/// The structure of type `T` chained from `next`, if any.
///
/// # Safety
/// As for [`chain`]; the structure found is writable and lives while used.
pub unsafe fn find_in_chain<'a, T: Typed>(next: *mut c_void) -> Option<&'a mut T> {
    let mut link = next.cast::<xr::BaseOutStructure>();
    for _ in 0..MAX_CHAIN {
        // SAFETY: the caller promises a valid chain of writable structures.
        let header = unsafe { link.as_mut() }?;
        if header.ty == T::TYPE {
            // SAFETY: a structure whose type member is T's is a T.
            return unsafe { link.cast::<T>().as_mut() };
        }
        link = header.next;
    }
    None
}

/// A fixed-size string member (NUL-terminated within its array) as text.
pub fn fixed_str<'a>(chars: &'a [c_char], what: &str) -> XrResult<&'a str> {
    // SAFETY: c_char and u8 have the same size and alignment.
    let bytes: &[u8] = unsafe { std::slice::from_raw_parts(chars.as_ptr().cast(), chars.len()) };
    let text = CStr::from_bytes_until_nul(bytes)
        .map_err(|_| invalid(format!("{what} is not NUL-terminated within its array")))?;
    text.to_str()
        .map_err(|_| invalid(format!("{what} is not UTF-8")))
}

/// A NUL-terminated string argument as text.
///
/// # Safety
/// `pointer` is NULL or a NUL-terminated string that lives while used.
pub unsafe fn c_str<'a>(pointer: *const c_char, what: &str) -> XrResult<&'a str> {
    if pointer.is_null() {
        return Err(invalid(format!("{what} is NULL")));
    }
    // SAFETY: the caller promises a NUL-terminated string.
    unsafe { CStr::from_ptr(pointer) }
        .to_str()
        .map_err(|_| invalid(format!("{what} is not UTF-8")))
}

/// Writes `text` into a fixed-size string member, NUL-terminated, cut to fit.
pub fn write_fixed(destination: &mut [c_char], text: &str) {
    let room = destination.len().saturating_sub(1);
    let bytes = &text.as_bytes()[..text.len().min(room)];
    for (slot, byte) in destination.iter_mut().zip(bytes) {
        *slot = *byte as c_char;
    }
    if let Some(end) = destination.get_mut(bytes.len()) {
        *end = 0;
    }
}

/// The two-call idiom: writes `values.len()` to `count_output`; with a
/// capacity of 0 that is all, a capacity too small is
/// XR_ERROR_SIZE_INSUFFICIENT, otherwise `write` fills `array[i]` from
/// `values[i]` after `accept` has checked the element.
///
/// # Safety
/// `count_output` is NULL or writable; `array` is NULL or holds
/// `capacity` writable elements.
pub unsafe fn two_call<T, V>(
    capacity: u32,
    count_output: *mut u32,
    array: *mut T,
    values: &[V],
    what: &str,
    accept: impl Fn(&T) -> XrResult,
    mut write: impl FnMut(&mut T, &V),
) -> XrResult<xr::Result> {
    // SAFETY: the caller's promise for count_output.
    let count = unsafe { out_value(count_output, &format!("{what}: the count output"))? };
    *count = values.len() as u32;
    if capacity == 0 {
        return Ok(xr::Result::SUCCESS);
    }
    if (capacity as usize) < values.len() {
        return Err(Failure::quiet(xr::Result::ERROR_SIZE_INSUFFICIENT));
    }
    if array.is_null() {
        return Err(invalid(format!(
            "{what}: a capacity of {capacity} with a NULL array"
        )));
    }
    // SAFETY: the caller promises `capacity` writable elements, at least values.len().
    let slots = unsafe { std::slice::from_raw_parts_mut(array, values.len()) };
    for (index, slot) in slots.iter().enumerate() {
        accept(slot).map_err(|failure| Failure {
            violation: failure
                .violation
                .map(|message| format!("{what}[{index}]: {message}")),
            ..failure
        })?;
    }
    for (slot, value) in slots.iter_mut().zip(values) {
        write(slot, value);
    }
    Ok(xr::Result::SUCCESS)
}

/// [`two_call`] for an array of typed structures: each element must carry
/// its structure type.
///
/// # Safety
/// As for [`two_call`].
pub unsafe fn two_call_typed<T: Typed, V>(
    capacity: u32,
    count_output: *mut u32,
    array: *mut T,
    values: &[V],
    what: &str,
    write: impl FnMut(&mut T, &V),
) -> XrResult<xr::Result> {
    // SAFETY: the caller's promises are passed on.
    unsafe {
        two_call(
            capacity,
            count_output,
            array,
            values,
            what,
            |element| check_type(element.structure_type(), T::TYPE, "the element"),
            write,
        )
    }
}

/// A Bool32 from a Rust bool.
pub fn bool32(value: bool) -> xr::Bool32 {
    if value { xr::TRUE } else { xr::FALSE }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fixed_strings_are_cut_to_fit_and_terminated() {
        let mut buffer = [1 as c_char; 5];
        write_fixed(&mut buffer, "holoterrain");
        assert_eq!(fixed_str(&buffer, "name"), Ok("holo"));
        write_fixed(&mut buffer, "ab");
        assert_eq!(fixed_str(&buffer, "name"), Ok("ab"));
    }

    #[test]
    fn an_unterminated_string_member_is_a_violation() {
        let buffer = [b'a' as c_char; 4];
        let failure = fixed_str(&buffer, "applicationName").unwrap_err();
        assert_eq!(failure.result, xr::Result::ERROR_VALIDATION_FAILURE);
        assert!(failure.violation.unwrap().contains("applicationName"));
    }

    #[test]
    fn the_two_call_idiom_reports_the_count_then_fills() {
        let values = [3u32, 5, 7];
        let mut count = 0;
        // SAFETY: count is writable; the array is NULL with capacity 0.
        let first = unsafe {
            two_call(
                0,
                &mut count,
                std::ptr::null_mut::<u32>(),
                &values,
                "x",
                |_| Ok(()),
                |_, _| {},
            )
        };
        assert_eq!((first, count), (Ok(xr::Result::SUCCESS), 3));
        let mut small = [0u32; 2];
        // SAFETY: two writable elements.
        let too_small = unsafe {
            two_call(
                2,
                &mut count,
                small.as_mut_ptr(),
                &values,
                "x",
                |_| Ok(()),
                |slot, value| *slot = *value,
            )
        };
        assert_eq!(
            too_small.unwrap_err().result,
            xr::Result::ERROR_SIZE_INSUFFICIENT
        );
        let mut room = [0u32; 4];
        // SAFETY: four writable elements.
        let filled = unsafe {
            two_call(
                4,
                &mut count,
                room.as_mut_ptr(),
                &values,
                "x",
                |_| Ok(()),
                |slot, value| *slot = *value,
            )
        };
        assert_eq!((filled, room), (Ok(xr::Result::SUCCESS), [3, 5, 7, 0]));
    }

    #[test]
    fn an_element_without_its_structure_type_is_a_violation() {
        let mut properties = [xr::ExtensionProperties {
            ty: xr::StructureType::UNKNOWN,
            next: std::ptr::null_mut(),
            extension_name: [0; xr::MAX_EXTENSION_NAME_SIZE],
            extension_version: 0,
        }];
        let mut count = 0;
        // SAFETY: one writable element.
        let failure = unsafe {
            two_call_typed(
                1,
                &mut count,
                properties.as_mut_ptr(),
                &[1u32],
                "properties",
                |_, _| {},
            )
        }
        .unwrap_err();
        assert_eq!(failure.result, xr::Result::ERROR_VALIDATION_FAILURE);
        assert!(
            failure
                .violation
                .unwrap()
                .starts_with("properties[0]: the element has type")
        );
    }
}
