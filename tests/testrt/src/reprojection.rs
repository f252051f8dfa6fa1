//! XR_MSFT_composition_layer_reprojection as HoloLens 2 has it: the modes xrEnumerateReprojectionModesMSFT lists (HoloLens 2's four, or `HOLOTERRAIN_TESTRT_REPROJECTION`'s), and the rule that a frame asks only for a listed one.

use openxr_sys as xr;

use crate::config::REPROJECTION_VARIABLE;
use crate::instance::{check_system, check_view_configuration};
use crate::state::{Failure, XrResult, with_runtime};
use crate::structs::two_call;

/// Every mode, by its name in the specification (without the prefix).
const MODES: [(&str, xr::ReprojectionModeMSFT); 4] = [
    ("DEPTH", xr::ReprojectionModeMSFT::DEPTH),
    (
        "PLANAR_FROM_DEPTH",
        xr::ReprojectionModeMSFT::PLANAR_FROM_DEPTH,
    ),
    ("PLANAR_MANUAL", xr::ReprojectionModeMSFT::PLANAR_MANUAL),
    (
        "ORIENTATION_ONLY",
        xr::ReprojectionModeMSFT::ORIENTATION_ONLY,
    ),
];

/// The name of `mode`, as the report gives it.
pub fn mode_name(mode: xr::ReprojectionModeMSFT) -> String {
    MODES.iter().find(|(_, known)| *known == mode).map_or_else(
        || format!("unknown ({})", mode.into_raw()),
        |(name, _)| (*name).to_owned(),
    )
}

/// The modes `setting` (the variable's value) names, in its order; `None`
/// (unset) gives all four, as HoloLens 2 lists them. A name it does not
/// know is an error naming it.
pub fn parse_modes(setting: Option<&str>) -> Result<Vec<xr::ReprojectionModeMSFT>, String> {
    let Some(setting) = setting else {
        return Ok(MODES.iter().map(|(_, mode)| *mode).collect());
    };
    setting
        .split(',')
        .map(str::trim)
        .filter(|name| !name.is_empty())
        .map(|name| {
            MODES
                .iter()
                .find(|(known, _)| *known == name)
                .map(|(_, mode)| *mode)
                .ok_or_else(|| {
                    format!(
                        "{REPROJECTION_VARIABLE}: {name} is not a reprojection mode (DEPTH, PLANAR_FROM_DEPTH, PLANAR_MANUAL, ORIENTATION_ONLY)"
                    )
                })
        })
        .collect()
}

/// The modes this run lists.
pub fn listed_modes() -> Result<Vec<xr::ReprojectionModeMSFT>, String> {
    parse_modes(std::env::var(REPROJECTION_VARIABLE).ok().as_deref())
}

/// Whether a frame may ask for `mode`: one of `listed`.
pub fn check_mode(mode: xr::ReprojectionModeMSFT, listed: &[xr::ReprojectionModeMSFT]) -> XrResult {
    if listed.contains(&mode) {
        Ok(())
    } else {
        Err(Failure::violation(
            xr::Result::ERROR_REPROJECTION_MODE_UNSUPPORTED_MSFT,
            format!(
                "reprojectionMode {} is not one xrEnumerateReprojectionModesMSFT listed ({})",
                mode_name(mode),
                listed
                    .iter()
                    .map(|&m| mode_name(m))
                    .collect::<Vec<_>>()
                    .join(", ")
            ),
        ))
    }
}

/// xrEnumerateReprojectionModesMSFT: the listed modes, for the stereo view.
///
/// # Safety
/// The arguments are the application's, as the OpenXR API defines them.
pub unsafe extern "system" fn enumerate_reprojection_modes(
    instance: xr::Instance,
    system_id: xr::SystemId,
    view_type: xr::ViewConfigurationType,
    capacity: u32,
    count_output: *mut u32,
    modes: *mut xr::ReprojectionModeMSFT,
) -> xr::Result {
    with_runtime("xrEnumerateReprojectionModesMSFT", |runtime| {
        runtime.check_instance(instance)?;
        check_system(system_id)?;
        check_view_configuration(view_type)?;
        let listed = runtime.reprojection_modes.clone();
        // SAFETY: the application's pointers.
        unsafe {
            two_call(
                capacity,
                count_output,
                modes,
                &listed,
                "modes",
                |_| Ok(()),
                |slot, value| *slot = *value,
            )
        }
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn unset_lists_hololens_2s_four_and_a_setting_its_own() {
        assert_eq!(parse_modes(None).unwrap().len(), 4);
        assert_eq!(
            parse_modes(Some("DEPTH, ORIENTATION_ONLY")).unwrap(),
            [
                xr::ReprojectionModeMSFT::DEPTH,
                xr::ReprojectionModeMSFT::ORIENTATION_ONLY
            ]
        );
        assert!(
            parse_modes(Some("DEPTH,WOBBLY"))
                .unwrap_err()
                .contains("WOBBLY")
        );
    }

    #[test]
    fn only_a_listed_mode_may_be_asked_for() {
        let listed = [xr::ReprojectionModeMSFT::DEPTH];
        assert!(check_mode(xr::ReprojectionModeMSFT::DEPTH, &listed).is_ok());
        let failure = check_mode(xr::ReprojectionModeMSFT::PLANAR_FROM_DEPTH, &listed).unwrap_err();
        assert_eq!(
            failure.result,
            xr::Result::ERROR_REPROJECTION_MODE_UNSUPPORTED_MSFT
        );
    }
}
