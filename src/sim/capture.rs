//! The simulator's photo camera: a first-person observer view from the head, as HoloLens 2's photo and video camera sees the hologram, and the RGBA capture PNG it writes with the depth PNG beside it.
use std::path::Path;

use glam::Vec3;

use super::error::SimError;
use crate::app::{EyeView, Fov};
use crate::input::Pose;

/// The camera's horizontal field of view, about HoloLens 2's photo camera's.
pub const CAPTURE_FOV_DEG: f32 = 64.0;
/// Where the camera sits in head space: on the visor's brow, a little above
/// and to the right of the point between the eyes.
pub const CAMERA_OFFSET_M: Vec3 = Vec3::new(0.02, 0.03, -0.01);
/// The default capture size.
pub const DEFAULT_CAPTURE_SIZE: (u32, u32) = (1280, 720);

/// The file name of the capture of `frame`, beside `frame-NNNNN.png`.
pub fn capture_file_name(frame: u64) -> String {
    format!("capture-{frame:05}.png")
}

/// The file name of the capture's depth, beside `capture-NNNNN.png`.
pub fn depth_file_name(frame: u64) -> String {
    format!("depth-{frame:05}.png")
}

/// A depth buffer's value (0 at the near plane, 1 at the far plane and
/// where nothing was drawn: depth is not reversed, `render::camera`) as the
/// depth PNG's sample: 0 where nothing was drawn, else 65535 × (1 − depth),
/// at least 1, so nearer is brighter. A D16 buffer's k / 65535 becomes
/// exactly 65535 − k.
pub fn depth_sample(depth: f32) -> u16 {
    if depth >= 1.0 {
        return 0;
    }
    ((1.0 - depth.max(0.0)) * 65535.0).round().max(1.0) as u16
}

/// Encodes one eye's depth (`width`×`height` values, rows top to bottom) as
/// a 16-bit greyscale PNG of [`depth_sample`]s.
pub fn encode_depth_png(
    width: u32,
    height: u32,
    depth: &[f32],
    path: &Path,
) -> Result<Vec<u8>, SimError> {
    let png_error = |source| SimError::Png {
        path: path.to_path_buf(),
        source,
    };
    // PNG stores 16-bit samples big-endian.
    let samples: Vec<u8> = depth
        .iter()
        .flat_map(|&value| depth_sample(value).to_be_bytes())
        .collect();
    let mut bytes = Vec::new();
    let mut encoder = png::Encoder::new(&mut bytes, width, height);
    encoder.set_color(png::ColorType::Grayscale);
    encoder.set_depth(png::BitDepth::Sixteen);
    let mut writer = encoder.write_header().map_err(png_error)?;
    writer.write_image_data(&samples).map_err(png_error)?;
    writer.finish().map_err(png_error)?;
    Ok(bytes)
}

/// The observer camera for a head at `head`, its image `width`×`height`:
/// looking where the head looks, [`CAPTURE_FOV_DEG`] across, the vertical
/// field from the aspect.
pub fn observer_view(head: &Pose, width: u32, height: u32) -> EyeView {
    let half_across = (CAPTURE_FOV_DEG.to_radians() / 2.0).tan();
    let half_up = half_across * height as f32 / width as f32;
    EyeView {
        pose: Pose::new(
            head.position + head.orientation * CAMERA_OFFSET_M,
            head.orientation,
        ),
        fov: Fov {
            angle_left: -half_across.atan(),
            angle_right: half_across.atan(),
            angle_up: half_up.atan(),
            angle_down: -half_up.atan(),
        },
    }
}

/// Encodes RGBA8 pixels (the hologram over transparent black) as PNG bytes.
pub fn encode_rgba_png(
    width: u32,
    height: u32,
    rgba: &[u8],
    path: &Path,
) -> Result<Vec<u8>, SimError> {
    let png_error = |source| SimError::Png {
        path: path.to_path_buf(),
        source,
    };
    let mut bytes = Vec::new();
    let mut encoder = png::Encoder::new(&mut bytes, width, height);
    encoder.set_color(png::ColorType::Rgba);
    encoder.set_depth(png::BitDepth::Eight);
    encoder.set_source_srgb(png::SrgbRenderingIntent::Perceptual);
    let mut writer = encoder.write_header().map_err(png_error)?;
    writer.write_image_data(rgba).map_err(png_error)?;
    writer.finish().map_err(png_error)?;
    Ok(bytes)
}

#[cfg(test)]
mod tests {
    use glam::Quat;

    use super::*;

    #[test]
    fn the_camera_is_above_and_right_of_the_eyes_looking_the_same_way() {
        let head = Pose::new(Vec3::new(0.0, 1.6, 0.0), Quat::from_rotation_y(1.0));
        let view = observer_view(&head, 1280, 720);
        let local = head.orientation.conjugate() * (view.pose.position - head.position);
        assert!(local.x > 0.0 && local.y > 0.0, "{local}");
        assert!(local.length() < 0.05);
        assert_eq!(view.pose.orientation, head.orientation);
    }

    #[test]
    fn the_field_is_64_degrees_across_and_follows_the_aspect() {
        let view = observer_view(&Pose::IDENTITY, 1280, 720);
        let across = view.fov.angle_right - view.fov.angle_left;
        assert!((across.to_degrees() - 64.0).abs() < 1e-3);
        let ratio = view.fov.angle_up.tan() / view.fov.angle_right.tan();
        assert!((ratio - 720.0 / 1280.0).abs() < 1e-5);
    }

    #[test]
    fn capture_names_match_the_frames() {
        assert_eq!(capture_file_name(30), "capture-00030.png");
        assert_eq!(depth_file_name(30), "depth-00030.png");
    }

    #[test]
    fn nothing_drawn_is_black_and_nearer_is_brighter() {
        assert_eq!(depth_sample(1.0), 0);
        assert_eq!(depth_sample(0.0), 65535);
        assert!(depth_sample(0.2) > depth_sample(0.7));
        // A D16 value maps exactly; the farthest drawn is still not black.
        assert_eq!(depth_sample(1000.0 / 65535.0), 64535);
        assert_eq!(depth_sample(65534.0 / 65535.0), 1);
        assert_eq!(depth_sample(0.999_999_9), 1);
    }

    #[test]
    fn the_depth_png_is_16_bit_grey_big_endian() {
        let bytes = encode_depth_png(2, 1, &[1.0, 0.0], Path::new("depth.png")).unwrap();
        let decoder = png::Decoder::new(std::io::Cursor::new(bytes));
        let mut reader = decoder.read_info().unwrap();
        let mut samples = vec![0; reader.output_buffer_size().unwrap()];
        let info = reader.next_frame(&mut samples).unwrap();
        assert_eq!(
            (info.color_type, info.bit_depth),
            (png::ColorType::Grayscale, png::BitDepth::Sixteen)
        );
        assert_eq!(&samples[..4], &[0, 0, 0xff, 0xff]);
    }
}
