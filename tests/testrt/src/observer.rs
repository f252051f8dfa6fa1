//! Mixed Reality Capture's first-person observer view, emulated (XR_MSFT_secondary_view_configuration with XR_MSFT_first_person_observer): active for the frames `HOLOTERRAIN_TESTRT_OBSERVER=FIRST-LAST` names and never otherwise, seen from the simulator's capture camera, its submitted layer read back as `observer-NNNNN.png`.

use std::ops::RangeInclusive;

use holoterrain::input::Pose;
use holoterrain::size::Size;
use openxr_sys as xr;

use crate::config::{OBSERVER_SIZE_VARIABLE, OBSERVER_VARIABLE};
use crate::state::{Failure, XrResult};

/// The observer view's configuration.
pub const OBSERVER: xr::ViewConfigurationType =
    xr::ViewConfigurationType::SECONDARY_MONO_FIRST_PERSON_OBSERVER_MSFT;

/// The observer image size without `HOLOTERRAIN_TESTRT_OBSERVER_SIZE`: a
/// 720p video's, as Mixed Reality Capture records by default.
pub const DEFAULT_SIZE: Size = Size {
    width: 1280,
    height: 720,
};

/// When and how large the observer view is.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ObserverSettings {
    /// The frames (counted from 0, as xrWaitFrame hands them out) it is
    /// active for; `None`: never.
    pub frames: Option<RangeInclusive<u64>>,
    /// Its image size.
    pub size: Size,
}

impl ObserverSettings {
    /// The settings `frames` (`FIRST-LAST`) and `size` (`WxH`) name, each
    /// unset as `None`; a bad value is one line naming its variable.
    pub fn parse(frames: Option<&str>, size: Option<&str>) -> Result<Self, String> {
        let frames = frames
            .map(|text| {
                let bad = || {
                    format!("{OBSERVER_VARIABLE}: {text:?} is not FIRST-LAST (frame numbers, FIRST <= LAST)")
                };
                let (first, last) = text.split_once('-').ok_or_else(bad)?;
                let first: u64 = first.trim().parse().map_err(|_| bad())?;
                let last: u64 = last.trim().parse().map_err(|_| bad())?;
                if first > last {
                    return Err(bad());
                }
                Ok(first..=last)
            })
            .transpose()?;
        let size = match size {
            None => DEFAULT_SIZE,
            Some(text) => text
                .parse::<Size>()
                .ok()
                .filter(|size| size.width > 0 && size.height > 0)
                .ok_or_else(|| format!("{OBSERVER_SIZE_VARIABLE}: {text:?} is not WxH pixels"))?,
        };
        Ok(Self { frames, size })
    }

    /// The settings of this process's environment.
    pub fn from_environment() -> Result<Self, String> {
        Self::parse(
            std::env::var(OBSERVER_VARIABLE).ok().as_deref(),
            std::env::var(OBSERVER_SIZE_VARIABLE).ok().as_deref(),
        )
    }

    /// Whether the view is active for frame `frame`.
    pub fn active_at(&self, frame: u64) -> bool {
        self.frames
            .as_ref()
            .is_some_and(|frames| frames.contains(&frame))
    }
}

impl Default for ObserverSettings {
    fn default() -> Self {
        Self {
            frames: None,
            size: DEFAULT_SIZE,
        }
    }
}

/// The observer's pose and field of view for a head at `head`: the
/// simulator's capture camera, so the app's observer frames can be held
/// against `holoterrain sim --capture`'s pictures.
pub fn observer_view(head: &Pose, size: Size) -> (Pose, xr::Fovf) {
    let view = holoterrain::sim::capture::observer_view(head, size.width, size.height);
    (
        view.pose,
        xr::Fovf {
            angle_left: view.fov.angle_left,
            angle_right: view.fov.angle_right,
            angle_up: view.fov.angle_up,
            angle_down: view.fov.angle_down,
        },
    )
}

/// The secondary view configurations an application enabled at
/// xrBeginSession must be ones this runtime has: the observer's alone.
pub fn check_enabled(types: &[xr::ViewConfigurationType]) -> XrResult {
    match types.iter().find(|&&kind| kind != OBSERVER) {
        Some(other) => Err(Failure::violation(
            xr::Result::ERROR_VIEW_CONFIGURATION_TYPE_UNSUPPORTED,
            format!(
                "secondary view configuration {other:?}: this system has SECONDARY_MONO_FIRST_PERSON_OBSERVER_MSFT only"
            ),
        )),
        None if types.len() > 1 => Err(Failure::violation(
            xr::Result::ERROR_VALIDATION_FAILURE,
            "the observer view is enabled more than once",
        )),
        None => Ok(()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn frames_and_size_parse_and_bad_values_name_their_variable() {
        let settings = ObserverSettings::parse(Some("30-32"), Some("160x90")).unwrap();
        assert_eq!(settings.frames, Some(30..=32));
        assert!(!settings.active_at(29) && settings.active_at(30) && settings.active_at(32));
        assert!(!settings.active_at(33));
        let unset = ObserverSettings::parse(None, None).unwrap();
        assert!(!unset.active_at(0));
        assert_eq!(unset.size, DEFAULT_SIZE);
        for bad in ["30", "32-30", "a-b"] {
            assert!(
                ObserverSettings::parse(Some(bad), None)
                    .unwrap_err()
                    .starts_with(OBSERVER_VARIABLE)
            );
        }
        assert!(
            ObserverSettings::parse(None, Some("0x90"))
                .unwrap_err()
                .starts_with(OBSERVER_SIZE_VARIABLE)
        );
    }

    #[test]
    fn only_the_observer_may_be_enabled_once() {
        assert!(check_enabled(&[OBSERVER]).is_ok());
        assert!(check_enabled(&[]).is_ok());
        assert!(check_enabled(&[OBSERVER, OBSERVER]).is_err());
        assert_eq!(
            check_enabled(&[xr::ViewConfigurationType::PRIMARY_STEREO])
                .unwrap_err()
                .result,
            xr::Result::ERROR_VIEW_CONFIGURATION_TYPE_UNSUPPORTED
        );
    }
}
