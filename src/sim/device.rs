//! The headset the simulator stands in for (`--device`): each eye's field of view, where the capture camera looks from and how much it sees, and the picture sizes that keep the display's aspect.
//!
//! `desktop` is the simulator as it always was (45° across per eye, the
//! vertical field from the picture's aspect; captures from the photo
//! camera, 64° across). `hololens2` shows what a HoloLens 2 wearer sees:
//! 43° × 29° per eye, captures of that same field from between the eyes,
//! so a menu taller than the display shows cut off as the wearer sees it.
use super::capture;
use super::user::{self, HORIZONTAL_FOV_DEG};
use crate::app::{EyeView, Fov};
use crate::input::Pose;
use crate::size::Size;

/// HoloLens 2's field of view per eye, degrees across and up. Microsoft's
/// HoloLens 2 hardware page (<https://learn.microsoft.com/hololens/hololens2-hardware>,
/// "Display") gives its display as "2k 3:2 light engines"; Microsoft's
/// published field of view for it is 52° diagonal (√(43² + 29²)), 43°
/// across by 29° up.
pub const HOLOLENS_2_FOV_DEG: (f32, f32) = (43.0, 29.0);

/// How far a picture's width over height may be from the device's own
/// (a fraction of it): 3:2 (1.5) is within it of 43° × 29°'s 1.52, and
/// the pixels stay square to the eye within that.
const ASPECT_TOLERANCE: f32 = 0.02;

/// The headset the simulated eyes and pictures are of.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, clap::ValueEnum)]
pub enum Device {
    /// 45° across per eye, the vertical field from --resolution's aspect;
    /// captures from the photo camera, about 64° across (as always).
    #[default]
    Desktop,
    /// HoloLens 2: 43° × 29° per eye, pictures of that aspect (320x210 per
    /// eye, captures 1280x840, unless given), captures from between the eyes.
    Hololens2,
}

impl Device {
    /// The name used on the command line and in messages.
    pub fn name(self) -> &'static str {
        match self {
            Device::Desktop => "desktop",
            Device::Hololens2 => "hololens2",
        }
    }

    /// Each eye's field of view for pictures `eye` pixels per eye.
    pub fn eye_fov(self, eye: Size) -> Fov {
        match self {
            Device::Desktop => user::eye_fov(HORIZONTAL_FOV_DEG, eye.width, eye.height),
            Device::Hololens2 => symmetric_fov(HOLOLENS_2_FOV_DEG),
        }
    }

    /// The capture camera for a head at `head`, its picture `size`: the
    /// photo camera on the desktop, the wearer's own view (from the point
    /// between the eyes, the display's field) on a HoloLens 2.
    pub fn capture_view(self, head: &Pose, size: Size) -> EyeView {
        match self {
            Device::Desktop => capture::observer_view(head, size.width, size.height),
            Device::Hololens2 => EyeView {
                pose: *head,
                fov: symmetric_fov(HOLOLENS_2_FOV_DEG),
            },
        }
    }

    /// What is wrong with pictures of `size` for this device, if anything:
    /// on a HoloLens 2 they must have about its aspect, or the picture
    /// would stretch the 43° × 29° across it.
    pub fn size_problem(self, size: Size) -> Option<String> {
        let Device::Hololens2 = self else {
            return None;
        };
        let (across, up) = HOLOLENS_2_FOV_DEG;
        let aspect = half_tan(across) / half_tan(up);
        let given = size.width as f32 / size.height as f32;
        ((given / aspect - 1.0).abs() > ASPECT_TOLERANCE).then(|| {
            format!(
                "--device {} shows {across}° × {up}° per eye, a picture {aspect:.2} times as wide as tall (e.g. 320x210 or 360x240); got {size}",
                self.name()
            )
        })
    }
}

/// The tangent of half of `degrees`.
fn half_tan(degrees: f32) -> f32 {
    (degrees / 2.0).to_radians().tan()
}

/// A field `across` × `up` degrees, centred on the view's axis.
fn symmetric_fov((across, up): (f32, f32)) -> Fov {
    let (half_across, half_up) = ((across / 2.0).to_radians(), (up / 2.0).to_radians());
    Fov {
        angle_left: -half_across,
        angle_right: half_across,
        angle_up: half_up,
        angle_down: -half_up,
    }
}

#[cfg(test)]
mod tests {
    use glam::{Quat, Vec3};

    use super::*;

    fn size(width: u32, height: u32) -> Size {
        Size { width, height }
    }

    #[test]
    fn hololens2_eyes_see_43_by_29_degrees_whatever_the_picture() {
        let fov = Device::Hololens2.eye_fov(size(320, 210));
        let across = (fov.angle_right - fov.angle_left).to_degrees();
        let up = (fov.angle_up - fov.angle_down).to_degrees();
        assert!((across - 43.0).abs() < 1e-4, "{across}");
        assert!((up - 29.0).abs() < 1e-4, "{up}");
    }

    #[test]
    fn the_desktop_keeps_45_degrees_across_and_the_pictures_aspect() {
        let fov = Device::Desktop.eye_fov(size(320, 240));
        assert!(((fov.angle_right - fov.angle_left).to_degrees() - 45.0).abs() < 1e-4);
        let ratio = fov.angle_right.tan() / fov.angle_up.tan();
        assert!((ratio - 320.0 / 240.0).abs() < 1e-5);
    }

    #[test]
    fn hololens2_pictures_must_be_about_3_to_2() {
        for good in [
            size(320, 210),
            size(360, 240),
            size(1280, 840),
            size(1440, 945),
        ] {
            assert_eq!(Device::Hololens2.size_problem(good), None, "{good}");
        }
        let problem = Device::Hololens2.size_problem(size(320, 240)).unwrap();
        assert!(problem.contains("43° × 29°") && problem.ends_with("got 320x240"));
        assert_eq!(Device::Desktop.size_problem(size(320, 240)), None);
    }

    #[test]
    fn a_hololens2_capture_is_the_wearers_view_from_between_the_eyes() {
        let head = Pose::new(Vec3::new(0.0, 1.6, 0.0), Quat::from_rotation_y(0.3));
        let view = Device::Hololens2.capture_view(&head, size(1280, 840));
        assert_eq!(view.pose, head);
        assert_eq!(view.fov, Device::Hololens2.eye_fov(size(320, 210)));
        let desktop = Device::Desktop.capture_view(&head, size(1280, 720));
        assert_eq!(desktop, capture::observer_view(&head, 1280, 720));
    }
}
