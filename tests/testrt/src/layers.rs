//! Checking the composition layers of xrEndFrame, after they were read
//! from the application's structures: a projection layer has one view per
//! eye, each view's swapchain image was released, its rectangle lies inside
//! the image and its array index inside the array, its pose has a unit
//! quaternion, its field of view is a sane frustum, and chained depth has a
//! valid range and near/far planes. Each failure is the error the
//! specification names for it, with the reason.

use openxr_sys as xr;

use crate::state::{Failure, XrResult, bad_handle, invalid};

/// Eyes of PRIMARY_STEREO.
pub const VIEW_COUNT: usize = 2;
/// How far a quaternion's length may be from 1 (OpenXR asks for unit
/// quaternions; this allows f32 rounding, not a forgotten normalisation).
pub const UNIT_TOLERANCE: f32 = 1e-3;

/// A part of a swapchain image, as XrSwapchainSubImage names it.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct SubImage {
    /// The swapchain handle.
    pub swapchain: u64,
    /// The rectangle within the image.
    pub rect: xr::Rect2Di,
    /// The layer of an array image.
    pub array_index: u32,
}

/// XrCompositionLayerDepthInfoKHR's content.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct DepthInfo {
    /// The depth image.
    pub sub_image: SubImage,
    /// Smallest depth value in the image.
    pub min_depth: f32,
    /// Largest depth value in the image.
    pub max_depth: f32,
    /// Distance of the near plane, metres.
    pub near_z: f32,
    /// Distance of the far plane, metres (may be +infinity).
    pub far_z: f32,
}

/// One eye of a projection layer.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct ProjectionView {
    /// Where the eye was when the image was drawn.
    pub pose: xr::Posef,
    /// The eye's field of view.
    pub fov: xr::Fovf,
    /// The colour image.
    pub sub_image: SubImage,
    /// The depth image, when chained.
    pub depth: Option<DepthInfo>,
}

/// A composition layer, as read from the application.
#[derive(Debug, Clone, PartialEq)]
pub enum Layer {
    /// XrCompositionLayerProjection.
    Projection {
        /// The space the views' poses are in.
        space: u64,
        /// The views, left eye first.
        views: Vec<ProjectionView>,
    },
    /// XrCompositionLayerQuad.
    Quad {
        /// The space the quad's pose is in.
        space: u64,
        /// The quad's pose.
        pose: xr::Posef,
        /// Its size in metres.
        size: xr::Extent2Df,
        /// The image on it.
        sub_image: SubImage,
    },
}

/// What a layer check needs to know about a swapchain.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct SwapchainFacts {
    /// Image width.
    pub width: u32,
    /// Image height.
    pub height: u32,
    /// Array layers of each image.
    pub array_size: u32,
    /// Whether an image was released since the swapchain was made.
    pub released: bool,
}

/// The objects a frame's layers may refer to: the session's own.
pub trait FrameObjects {
    /// The swapchain `handle` of this session.
    fn swapchain(&self, handle: u64) -> Option<SwapchainFacts>;
    /// Whether `handle` is a space of this session.
    fn has_space(&self, handle: u64) -> bool;
}

/// Checks every layer; the first problem found is the error.
pub fn check_layers(layers: &[Layer], objects: &impl FrameObjects) -> XrResult {
    check_layers_of(layers, objects, VIEW_COUNT, "PRIMARY_STEREO")
}

/// Checks every layer of a view configuration (`configuration`) whose
/// projection layers have `view_count` views.
pub fn check_layers_of(
    layers: &[Layer],
    objects: &impl FrameObjects,
    view_count: usize,
    configuration: &str,
) -> XrResult {
    for (index, layer) in layers.iter().enumerate() {
        let at = |what: &str| format!("layers[{index}]{what}");
        match layer {
            Layer::Projection { space, views } => {
                check_space(*space, objects, &at(".space"))?;
                if views.len() != view_count {
                    return Err(invalid(format!(
                        "{} has {} views; {configuration} has {view_count}",
                        at(""),
                        views.len()
                    )));
                }
                for (eye, view) in views.iter().enumerate() {
                    let at = |what: &str| at(&format!(".views[{eye}]{what}"));
                    check_pose(&view.pose, &at(".pose"))?;
                    check_fov(&view.fov, &at(".fov"))?;
                    check_sub_image(&view.sub_image, objects, &at(".subImage"))?;
                    if let Some(depth) = &view.depth {
                        check_depth(depth, objects, &at(" depth info"))?;
                    }
                }
            }
            Layer::Quad {
                space,
                pose,
                size,
                sub_image,
            } => {
                check_space(*space, objects, &at(".space"))?;
                check_pose(pose, &at(".pose"))?;
                if !(size.width > 0.0
                    && size.height > 0.0
                    && size.width.is_finite()
                    && size.height.is_finite())
                {
                    return Err(invalid(format!(
                        "{} is {}×{} m",
                        at(".size"),
                        size.width,
                        size.height
                    )));
                }
                check_sub_image(sub_image, objects, &at(".subImage"))?;
            }
        }
    }
    Ok(())
}

/// The layer's space must be a space of this session.
fn check_space(space: u64, objects: &impl FrameObjects, what: &str) -> XrResult {
    if objects.has_space(space) {
        Ok(())
    } else {
        Err(bad_handle(format!(
            "{what} {space:#x} is not a live space of this session"
        )))
    }
}

/// A pose needs a finite position and a unit quaternion.
pub fn check_pose(pose: &xr::Posef, what: &str) -> XrResult {
    let xr::Quaternionf { x, y, z, w } = pose.orientation;
    let length = (x * x + y * y + z * z + w * w).sqrt();
    let xr::Vector3f {
        x: px,
        y: py,
        z: pz,
    } = pose.position;
    if !(length - 1.0).abs().le(&UNIT_TOLERANCE) {
        return Err(Failure::violation(
            xr::Result::ERROR_POSE_INVALID,
            format!("{what}.orientation ({x}, {y}, {z}, {w}) has length {length}, not 1"),
        ));
    }
    if !(px.is_finite() && py.is_finite() && pz.is_finite()) {
        return Err(Failure::violation(
            xr::Result::ERROR_POSE_INVALID,
            format!("{what}.position ({px}, {py}, {pz}) is not finite"),
        ));
    }
    Ok(())
}

/// A field of view must be a frustum: left of right, down below up, every
/// angle finite and less than a right angle from straight ahead.
fn check_fov(fov: &xr::Fovf, what: &str) -> XrResult {
    let angles = [
        fov.angle_left,
        fov.angle_right,
        fov.angle_up,
        fov.angle_down,
    ];
    let sane = angles
        .iter()
        .all(|angle| angle.is_finite() && angle.abs() < std::f32::consts::FRAC_PI_2)
        && fov.angle_left < fov.angle_right
        && fov.angle_down < fov.angle_up;
    if sane {
        Ok(())
    } else {
        Err(invalid(format!(
            "{what} (left {}, right {}, up {}, down {}) is not a frustum",
            fov.angle_left, fov.angle_right, fov.angle_up, fov.angle_down
        )))
    }
}

/// A sub-image must name a released image of a swapchain of this session,
/// a rectangle inside it and an array layer it has.
fn check_sub_image(sub_image: &SubImage, objects: &impl FrameObjects, what: &str) -> XrResult {
    let Some(facts) = objects.swapchain(sub_image.swapchain) else {
        return Err(bad_handle(format!(
            "{what}.swapchain {:#x} is not a live swapchain of this session",
            sub_image.swapchain
        )));
    };
    if !facts.released {
        return Err(Failure::violation(
            xr::Result::ERROR_LAYER_INVALID,
            format!("{what}.swapchain has no released image (acquire, wait and release one first)"),
        ));
    }
    let xr::Rect2Di { offset, extent } = sub_image.rect;
    let right = i64::from(offset.x) + i64::from(extent.width);
    let bottom = i64::from(offset.y) + i64::from(extent.height);
    if offset.x < 0
        || offset.y < 0
        || extent.width <= 0
        || extent.height <= 0
        || right > i64::from(facts.width)
        || bottom > i64::from(facts.height)
    {
        return Err(Failure::violation(
            xr::Result::ERROR_SWAPCHAIN_RECT_INVALID,
            format!(
                "{what}.imageRect ({}, {}) {}×{} is not inside the {}×{} image",
                offset.x, offset.y, extent.width, extent.height, facts.width, facts.height
            ),
        ));
    }
    if sub_image.array_index >= facts.array_size {
        return Err(invalid(format!(
            "{what}.imageArrayIndex {} is not below the swapchain's arraySize {}",
            sub_image.array_index, facts.array_size
        )));
    }
    Ok(())
}

/// Depth needs 0 ≤ minDepth < maxDepth ≤ 1 and two distinct, non-negative
/// planes (far may be infinite, and may be nearer than near: reversed Z).
fn check_depth(depth: &DepthInfo, objects: &impl FrameObjects, what: &str) -> XrResult {
    check_sub_image(&depth.sub_image, objects, &format!("{what}.subImage"))?;
    let range_ok = (0.0..=1.0).contains(&depth.min_depth)
        && (0.0..=1.0).contains(&depth.max_depth)
        && depth.min_depth < depth.max_depth;
    if !range_ok {
        return Err(invalid(format!(
            "{what}: minDepth {} and maxDepth {} must satisfy 0 <= minDepth < maxDepth <= 1",
            depth.min_depth, depth.max_depth
        )));
    }
    let plane_ok = |z: f32| z >= 0.0 && !z.is_nan();
    if !plane_ok(depth.near_z) || !plane_ok(depth.far_z) || depth.near_z == depth.far_z {
        return Err(invalid(format!(
            "{what}: nearZ {} and farZ {} must be two different distances of at least 0",
            depth.near_z, depth.far_z
        )));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use std::collections::HashMap;

    use super::*;

    const SPACE: u64 = 1;
    const COLOR: u64 = 2;
    const DEPTH: u64 = 3;
    const UNRELEASED: u64 = 4;

    struct Objects(HashMap<u64, SwapchainFacts>);

    impl FrameObjects for Objects {
        fn swapchain(&self, handle: u64) -> Option<SwapchainFacts> {
            self.0.get(&handle).copied()
        }
        fn has_space(&self, handle: u64) -> bool {
            handle == SPACE
        }
    }

    fn objects() -> Objects {
        let facts = |released| SwapchainFacts {
            width: 64,
            height: 48,
            array_size: 2,
            released,
        };
        Objects(HashMap::from([
            (COLOR, facts(true)),
            (DEPTH, facts(true)),
            (UNRELEASED, facts(false)),
        ]))
    }

    fn sub_image(swapchain: u64, eye: u32) -> SubImage {
        SubImage {
            swapchain,
            rect: xr::Rect2Di {
                offset: xr::Offset2Di { x: 0, y: 0 },
                extent: xr::Extent2Di {
                    width: 64,
                    height: 48,
                },
            },
            array_index: eye,
        }
    }

    fn view(eye: u32) -> ProjectionView {
        ProjectionView {
            pose: xr::Posef::IDENTITY,
            fov: xr::Fovf {
                angle_left: -0.4,
                angle_right: 0.4,
                angle_up: 0.3,
                angle_down: -0.3,
            },
            sub_image: sub_image(COLOR, eye),
            depth: Some(DepthInfo {
                sub_image: sub_image(DEPTH, eye),
                min_depth: 0.0,
                max_depth: 1.0,
                near_z: 0.05,
                far_z: 100.0,
            }),
        }
    }

    fn projection(change: impl Fn(&mut Vec<ProjectionView>)) -> Vec<Layer> {
        let mut views = vec![view(0), view(1)];
        change(&mut views);
        vec![Layer::Projection {
            space: SPACE,
            views,
        }]
    }

    fn failure(layers: &[Layer]) -> (xr::Result, String) {
        let failure = check_layers(layers, &objects()).unwrap_err();
        (failure.result, failure.violation.unwrap())
    }

    #[test]
    fn holoterrains_stereo_layer_with_depth_passes() {
        assert_eq!(check_layers(&projection(|_| {}), &objects()), Ok(()));
    }

    #[test]
    fn a_projection_needs_both_eyes() {
        let (result, why) = failure(&projection(|views| {
            views.pop();
        }));
        assert_eq!(result, xr::Result::ERROR_VALIDATION_FAILURE);
        assert!(why.contains("has 1 views"), "{why}");
    }

    #[test]
    fn an_unreleased_swapchain_is_an_invalid_layer() {
        let (result, _) = failure(&projection(|views| {
            views[1].sub_image.swapchain = UNRELEASED
        }));
        assert_eq!(result, xr::Result::ERROR_LAYER_INVALID);
    }

    #[test]
    fn a_rectangle_past_the_image_is_a_rect_error() {
        let (result, why) = failure(&projection(|views| views[0].sub_image.rect.offset.x = 1));
        assert_eq!(result, xr::Result::ERROR_SWAPCHAIN_RECT_INVALID);
        assert!(
            why.contains("layers[0].views[0].subImage.imageRect"),
            "{why}"
        );
        let (result, _) = failure(&projection(|views| {
            views[0].sub_image.rect.extent.height = 0
        }));
        assert_eq!(result, xr::Result::ERROR_SWAPCHAIN_RECT_INVALID);
    }

    #[test]
    fn an_array_index_past_the_array_is_invalid() {
        let (result, why) = failure(&projection(|views| views[1].sub_image.array_index = 2));
        assert_eq!(result, xr::Result::ERROR_VALIDATION_FAILURE);
        assert!(why.contains("imageArrayIndex 2"), "{why}");
    }

    #[test]
    fn a_quaternion_that_is_not_unit_is_an_invalid_pose() {
        let (result, _) = failure(&projection(|views| views[0].pose.orientation.w = 0.9));
        assert_eq!(result, xr::Result::ERROR_POSE_INVALID);
        let (result, _) = failure(&projection(|views| views[0].pose.position.y = f32::NAN));
        assert_eq!(result, xr::Result::ERROR_POSE_INVALID);
    }

    #[test]
    fn an_inside_out_field_of_view_is_invalid() {
        let (result, why) = failure(&projection(|views| views[0].fov.angle_left = 0.5));
        assert_eq!(result, xr::Result::ERROR_VALIDATION_FAILURE);
        assert!(why.contains("not a frustum"), "{why}");
        let (result, _) = failure(&projection(|views| views[1].fov.angle_up = 1.6));
        assert_eq!(result, xr::Result::ERROR_VALIDATION_FAILURE);
    }

    #[test]
    fn depth_needs_an_ordered_range_and_distinct_planes() {
        let set = |change: fn(&mut DepthInfo)| {
            projection(move |views| {
                if let Some(depth) = views[0].depth.as_mut() {
                    change(depth);
                }
            })
        };
        for layers in [
            set(|depth| depth.min_depth = 1.0),
            set(|depth| depth.max_depth = 1.5),
            set(|depth| depth.far_z = depth.near_z),
            set(|depth| depth.near_z = -1.0),
        ] {
            assert_eq!(failure(&layers).0, xr::Result::ERROR_VALIDATION_FAILURE);
        }
        let reversed = set(|depth| {
            depth.near_z = 100.0;
            depth.far_z = 0.05;
        });
        assert_eq!(check_layers(&reversed, &objects()), Ok(()));
        let infinite = set(|depth| depth.far_z = f32::INFINITY);
        assert_eq!(check_layers(&infinite, &objects()), Ok(()));
    }

    #[test]
    fn a_foreign_space_or_swapchain_is_an_invalid_handle() {
        let layers = vec![Layer::Projection {
            space: 99,
            views: vec![view(0), view(1)],
        }];
        assert_eq!(failure(&layers).0, xr::Result::ERROR_HANDLE_INVALID);
        let (result, _) = failure(&projection(|views| views[0].sub_image.swapchain = 99));
        assert_eq!(result, xr::Result::ERROR_HANDLE_INVALID);
    }
}
