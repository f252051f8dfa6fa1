//! Mixed Reality Capture's first-person observer view, emulated (XR_MSFT_secondary_view_configuration with XR_MSFT_first_person_observer): active for the frames `HOLOTERRAIN_TESTRT_OBSERVER=FIRST-LAST[,…]` names and never otherwise, its recommended size changed on its first activation when `HOLOTERRAIN_TESTRT_OBSERVER_START_SIZE` says so, seen from the simulator's capture camera, the swapchains its layer shows held to that size and to the view configuration they were created for, its submitted layer read back as `observer-NNNNN.png`.

use std::ops::RangeInclusive;

use holoterrain::input::Pose;
use holoterrain::size::Size;
use openxr_sys as xr;

use crate::config::{OBSERVER_SIZE_VARIABLE, OBSERVER_START_SIZE_VARIABLE, OBSERVER_VARIABLE};
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
    /// active for; empty: never.
    pub frames: Vec<RangeInclusive<u64>>,
    /// Its recommended image size from its first activation on, the next
    /// from its second, and so on; the last holds for later ones.
    pub sizes: Vec<Size>,
    /// Its recommended image size before it was first active: a runtime
    /// may change the size when the view becomes active (the
    /// specification's XrSecondaryViewConfigurationStateMSFT), which an
    /// application must ask for again then.
    pub start_size: Size,
}

impl ObserverSettings {
    /// The settings `frames` (`FIRST-LAST[,FIRST-LAST…]`), `sizes`
    /// (`WxH[,WxH…]`) and `start_size` (`WxH`) name, each unset as `None`;
    /// a bad value is one line naming its variable.
    pub fn parse(
        frames: Option<&str>,
        sizes: Option<&str>,
        start_size: Option<&str>,
    ) -> Result<Self, String> {
        let frames = match frames {
            None => Vec::new(),
            Some(text) => text
                .split(',')
                .map(|range| {
                    let bad = || {
                        format!("{OBSERVER_VARIABLE}: {text:?} is not FIRST-LAST[,FIRST-LAST…] (frame numbers, FIRST <= LAST)")
                    };
                    let (first, last) = range.split_once('-').ok_or_else(bad)?;
                    let first: u64 = first.trim().parse().map_err(|_| bad())?;
                    let last: u64 = last.trim().parse().map_err(|_| bad())?;
                    if first > last {
                        return Err(bad());
                    }
                    Ok(first..=last)
                })
                .collect::<Result<_, _>>()?,
        };
        let pixels = |text: &str| {
            text.trim()
                .parse::<Size>()
                .ok()
                .filter(|size| size.width > 0 && size.height > 0)
        };
        let sizes = match sizes {
            None => vec![DEFAULT_SIZE],
            Some(text) => text
                .split(',')
                .map(pixels)
                .collect::<Option<Vec<Size>>>()
                .ok_or_else(|| {
                    format!("{OBSERVER_SIZE_VARIABLE}: {text:?} is not WxH[,WxH…] pixels")
                })?,
        };
        let start_size = match start_size {
            None => sizes[0],
            Some(text) => pixels(text).ok_or_else(|| {
                format!("{OBSERVER_START_SIZE_VARIABLE}: {text:?} is not WxH pixels")
            })?,
        };
        Ok(Self {
            frames,
            sizes,
            start_size,
        })
    }

    /// The settings of this process's environment.
    pub fn from_environment() -> Result<Self, String> {
        let variable = |name| std::env::var(name).ok();
        Self::parse(
            variable(OBSERVER_VARIABLE).as_deref(),
            variable(OBSERVER_SIZE_VARIABLE).as_deref(),
            variable(OBSERVER_START_SIZE_VARIABLE).as_deref(),
        )
    }

    /// Whether the view is active for frame `frame`.
    pub fn active_at(&self, frame: u64) -> bool {
        self.frames.iter().any(|frames| frames.contains(&frame))
    }

    /// Whether the view becomes active at frame `frame`: active then, and
    /// not at the frame before.
    pub fn activates_at(&self, frame: u64) -> bool {
        self.active_at(frame) && (frame == 0 || !self.active_at(frame - 1))
    }

    /// The size xrEnumerateViewConfigurationViews recommends after
    /// `activations` activations: the start size before the first.
    pub fn recommended(&self, activations: usize) -> Size {
        match activations.checked_sub(1) {
            None => self.start_size,
            Some(index) => self.sizes[index.min(self.sizes.len() - 1)],
        }
    }
}

impl Default for ObserverSettings {
    fn default() -> Self {
        Self {
            frames: Vec::new(),
            sizes: vec![DEFAULT_SIZE],
            start_size: DEFAULT_SIZE,
        }
    }
}

/// What is wrong with a swapchain an observer layer shows, created for
/// view configuration `created_for` (its chained
/// XrSecondaryViewConfigurationSwapchainCreateInfoMSFT, `None` without
/// one) at `width` × `height`, when the size recommended at the view's
/// activation is `recommended`; `None` when nothing is. The specification
/// only says an application should do both (a runtime may have to copy
/// such an image, or scale it into the recording); this runtime holds the
/// application to them, as a HoloLens 2 app should meet them.
pub fn swapchain_problem(
    created_for: Option<xr::ViewConfigurationType>,
    width: u32,
    height: u32,
    recommended: Size,
) -> Option<String> {
    match created_for {
        None => {
            return Some(
                "an observer layer shows a swapchain created without XrSecondaryViewConfigurationSwapchainCreateInfoMSFT (SECONDARY_MONO_FIRST_PERSON_OBSERVER_MSFT)".to_owned(),
            );
        }
        Some(view) if view != OBSERVER => {
            return Some(format!(
                "an observer layer shows a swapchain created for {view:?}, not SECONDARY_MONO_FIRST_PERSON_OBSERVER_MSFT"
            ));
        }
        Some(_) => {}
    }
    (Size { width, height } != recommended).then(|| {
        format!(
            "an observer layer shows a {width}x{height} swapchain; the size recommended when the view became active is {}x{}",
            recommended.width, recommended.height
        )
    })
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
        let settings = ObserverSettings::parse(Some("30-32"), Some("160x90"), None).unwrap();
        assert_eq!(settings.frames, vec![30..=32]);
        assert!(!settings.active_at(29) && settings.active_at(30) && settings.active_at(32));
        assert!(!settings.active_at(33));
        assert_eq!(
            settings.recommended(0),
            settings.recommended(3),
            "one size throughout"
        );
        let unset = ObserverSettings::parse(None, None, None).unwrap();
        assert!(!unset.active_at(0));
        assert_eq!(unset.recommended(0), DEFAULT_SIZE);
        assert_eq!(unset.recommended(1), DEFAULT_SIZE);
        for bad in ["30", "32-30", "a-b", "1-2,", "1-2,5"] {
            assert!(
                ObserverSettings::parse(Some(bad), None, None)
                    .unwrap_err()
                    .starts_with(OBSERVER_VARIABLE),
                "{bad}"
            );
        }
        for bad in ["0x90", "160x90,", "160x90,9"] {
            assert!(
                ObserverSettings::parse(None, Some(bad), None)
                    .unwrap_err()
                    .starts_with(OBSERVER_SIZE_VARIABLE),
                "{bad}"
            );
        }
        assert!(
            ObserverSettings::parse(None, None, Some("64"))
                .unwrap_err()
                .starts_with(OBSERVER_START_SIZE_VARIABLE)
        );
    }

    #[test]
    fn several_ranges_and_the_size_changes_at_activation() {
        let settings = ObserverSettings::parse(
            Some("10-12, 20-21,22-23"),
            Some("160x90, 96x54"),
            Some("64x36"),
        )
        .unwrap();
        let active: Vec<u64> = (0..30).filter(|&frame| settings.active_at(frame)).collect();
        assert_eq!(active, [10, 11, 12, 20, 21, 22, 23]);
        let activations: Vec<u64> = (0..30)
            .filter(|&frame| settings.activates_at(frame))
            .collect();
        assert_eq!(activations, [10, 20], "22-23 continues 20-21");
        let size = |width, height| Size { width, height };
        assert_eq!(settings.recommended(0), size(64, 36));
        assert_eq!(settings.recommended(1), size(160, 90));
        assert_eq!(settings.recommended(2), size(96, 54));
        assert_eq!(settings.recommended(3), size(96, 54), "the last size holds");
    }

    #[test]
    fn an_observer_swapchain_needs_the_chained_view_and_the_activation_size() {
        let size = Size {
            width: 160,
            height: 90,
        };
        assert_eq!(swapchain_problem(Some(OBSERVER), 160, 90, size), None);
        let missing = swapchain_problem(None, 160, 90, size).unwrap();
        assert!(missing.contains("without XrSecondaryViewConfigurationSwapchainCreateInfoMSFT"));
        let stereo = xr::ViewConfigurationType::PRIMARY_STEREO;
        let wrong = swapchain_problem(Some(stereo), 160, 90, size).unwrap();
        assert!(wrong.contains("PRIMARY_STEREO"), "{wrong}");
        let small = swapchain_problem(Some(OBSERVER), 64, 36, size).unwrap();
        assert!(
            small.contains("64x36") && small.contains("160x90"),
            "{small}"
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
