//! The loader's way in: `xrNegotiateLoaderRuntimeInterface`, the one
//! exported symbol. It agrees on loader interface 1 and OpenXR 1.0 and hands
//! the loader [`crate::dispatch::get_instance_proc_addr`].

use openxr_sys as xr;

use crate::dispatch::get_instance_proc_addr;

/// The loader–runtime interface version this runtime speaks.
const INTERFACE_VERSION: u32 = 1;
/// The OpenXR version it implements: 1.0 (HoloLens 2's), at its last patch.
const API_VERSION: (u16, u16, u32) = (1, 0, 34);

/// The API version to report to a loader that takes `loader_min` to
/// `loader_max`: 1.0.34, or a 1.0 loader's own older patch number (the 1.0
/// API is the same); `None` when the loader takes no 1.0 at all.
fn api_version_for(loader_min: xr::Version, loader_max: xr::Version) -> Option<xr::Version> {
    let ours = xr::Version::new(API_VERSION.0, API_VERSION.1, API_VERSION.2);
    let same_minor = (loader_max.major(), loader_max.minor()) == (API_VERSION.0, API_VERSION.1);
    let version = if same_minor && loader_max < ours {
        loader_max
    } else {
        ours
    };
    (loader_min <= version && version <= loader_max).then_some(version)
}

/// A version as `major.minor.patch`.
fn dotted(version: xr::Version) -> String {
    format!(
        "{}.{}.{}",
        version.major(),
        version.minor(),
        version.patch()
    )
}

/// Agrees on the interface with the loader.
///
/// # Safety
/// `loader_info` and `runtime_request` are the loader's, as
/// `openxr_loader_negotiation.h` defines them.
#[unsafe(no_mangle)]
pub unsafe extern "system" fn xrNegotiateLoaderRuntimeInterface(
    loader_info: *const xr::NegotiateLoaderInfo,
    runtime_request: *mut xr::NegotiateRuntimeRequest,
) -> xr::Result {
    // SAFETY: the loader's pointers, NULL or valid for the call.
    let (Some(info), Some(request)) = (unsafe { loader_info.as_ref() }, unsafe {
        runtime_request.as_mut()
    }) else {
        return xr::Result::ERROR_INITIALIZATION_FAILED;
    };
    let info_ok = info.struct_type == xr::NegotiateLoaderInfo::TYPE
        && info.struct_version == xr::NegotiateLoaderInfo::VERSION
        && info.struct_size == std::mem::size_of::<xr::NegotiateLoaderInfo>()
        && (info.min_interface_version..=info.max_interface_version).contains(&INTERFACE_VERSION);
    let request_ok = request.struct_type == xr::NegotiateRuntimeRequest::TYPE
        && request.struct_version == xr::NegotiateRuntimeRequest::VERSION
        && request.struct_size == std::mem::size_of::<xr::NegotiateRuntimeRequest>();
    let version = api_version_for(info.min_api_version, info.max_api_version);
    let (true, true, Some(version)) = (info_ok, request_ok, version) else {
        eprintln!(
            "holoterrain-testrt: the OpenXR loader takes interface {}..{} and OpenXR {}..{}; this runtime offers interface {INTERFACE_VERSION} and OpenXR 1.0",
            info.min_interface_version,
            info.max_interface_version,
            dotted(info.min_api_version),
            dotted(info.max_api_version)
        );
        return xr::Result::ERROR_INITIALIZATION_FAILED;
    };
    request.runtime_interface_version = INTERFACE_VERSION;
    request.runtime_api_version = version;
    request.get_instance_proc_addr = Some(get_instance_proc_addr);
    xr::Result::SUCCESS
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn debian_12s_loader_gets_its_own_patch_and_newer_ones_get_1_0_34() {
        let v = |major, minor, patch| xr::Version::new(major, minor, patch);
        assert_eq!(api_version_for(v(1, 0, 0), v(1, 0, 20)), Some(v(1, 0, 20)));
        assert_eq!(api_version_for(v(1, 0, 0), v(1, 1, 58)), Some(v(1, 0, 34)));
        assert_eq!(api_version_for(v(1, 1, 0), v(1, 1, 58)), None);
    }
}
