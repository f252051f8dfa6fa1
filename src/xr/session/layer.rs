//! Submitting a drawn frame: xrEndFrame with one projection layer of both
//! eyes' colour images and, with XR_KHR_composition_layer_depth, their
//! depth, with XR_MSFT_composition_layer_reprojection the mode asked for,
//! and, while Mixed Reality Capture's observer view is active, its own
//! layer (XR_MSFT_secondary_view_configuration). Built from the raw structures, because the depth info must be
//! chained onto each projection view, which the openxr crate's builders
//! cannot do.

use openxr as xr;

use crate::app::frame::{FAR_M, NEAR_M};
use crate::render::scene::VIEW_COUNT;
use crate::xr::error::XrError;
use crate::xr::graphics::swapchain::StereoSwapchain;

/// What one frame shows: both eyes' images as the runtime located the eyes.
pub struct ProjectionLayer<'a, G: xr::Graphics> {
    /// The space the eyes were located in.
    pub space: &'a xr::Space,
    /// Left then right eye, as xrLocateViews gave them for this frame.
    pub views: &'a [xr::View; VIEW_COUNT as usize],
    /// The colour images, one array layer per eye.
    pub color: &'a StereoSwapchain<G>,
    /// The depth images, when depth is submitted.
    pub depth: Option<&'a StereoSwapchain<G>>,
}

/// The first-person observer view's image for Mixed Reality Capture: layer 0
/// of its own swapchain, drawn for `view`.
pub struct ObserverLayer<'a, G: xr::Graphics> {
    /// The observer as xrLocateViews gave it for this frame.
    pub view: &'a xr::View,
    /// Its colour images (layer 0 submitted); `None` before it has any.
    pub color: Option<&'a StereoSwapchain<G>>,
    /// Whether it was drawn this frame: without, the observer gets no layer.
    pub drawn: bool,
}

/// The observer's view configuration (XR_MSFT_first_person_observer).
pub const OBSERVER_VIEW: xr::ViewConfigurationType =
    xr::ViewConfigurationType::SECONDARY_MONO_FIRST_PERSON_OBSERVER_MSFT;

/// Ends the frame shown at `time` with `layer` (none when nothing was
/// drawn), blended with `blend_mode`, asking for `reprojection` when it is
/// `Some` (a mode the runtime listed); with `observer` (the observer view
/// is active this frame) its layer goes in XrSecondaryViewConfigurationFrameEndInfoMSFT,
/// blended by source alpha over the camera's picture.
/// xrBeginFrame must have been called for it, and the swapchain images
/// released.
pub fn end_frame_with<G: xr::Graphics>(
    session: &xr::Session<G>,
    time: xr::Time,
    blend_mode: xr::EnvironmentBlendMode,
    reprojection: Option<xr::sys::ReprojectionModeMSFT>,
    layer: Option<&ProjectionLayer<'_, G>>,
    observer: Option<&ObserverLayer<'_, G>>,
) -> Result<(), XrError> {
    let rect = |swapchain: &StereoSwapchain<G>| xr::Rect2Di {
        offset: xr::Offset2Di { x: 0, y: 0 },
        extent: xr::Extent2Di {
            width: swapchain.width as i32,
            height: swapchain.height as i32,
        },
    };
    let sub_image = |swapchain: &StereoSwapchain<G>, eye: usize| xr::sys::SwapchainSubImage {
        swapchain: swapchain.handle.as_raw(),
        image_rect: rect(swapchain),
        image_array_index: eye as u32,
    };
    let depth_infos: Option<[xr::sys::CompositionLayerDepthInfoKHR; VIEW_COUNT as usize]> =
        layer.and_then(|layer| layer.depth).map(|depth| {
            std::array::from_fn(|eye| xr::sys::CompositionLayerDepthInfoKHR {
                ty: xr::sys::CompositionLayerDepthInfoKHR::TYPE,
                next: std::ptr::null(),
                sub_image: sub_image(depth, eye),
                min_depth: 0.0,
                max_depth: 1.0,
                near_z: NEAR_M,
                far_z: FAR_M,
            })
        });
    let projection_views: Option<[xr::sys::CompositionLayerProjectionView; VIEW_COUNT as usize]> =
        layer.map(|layer| {
            std::array::from_fn(|eye| xr::sys::CompositionLayerProjectionView {
                ty: xr::sys::CompositionLayerProjectionView::TYPE,
                next: match &depth_infos {
                    Some(infos) => &infos[eye] as *const _ as *const _,
                    None => std::ptr::null(),
                },
                pose: layer.views[eye].pose,
                fov: layer.views[eye].fov,
                sub_image: sub_image(layer.color, eye),
            })
        });
    let reprojection_info =
        reprojection.map(|mode| xr::sys::CompositionLayerReprojectionInfoMSFT {
            ty: xr::sys::CompositionLayerReprojectionInfoMSFT::TYPE,
            next: std::ptr::null(),
            reprojection_mode: mode,
        });
    let projection = layer.zip(projection_views.as_ref()).map(|(layer, views)| {
        xr::sys::CompositionLayerProjection {
            ty: xr::sys::CompositionLayerProjection::TYPE,
            next: match &reprojection_info {
                Some(info) => info as *const _ as *const _,
                None => std::ptr::null(),
            },
            layer_flags: xr::CompositionLayerFlags::BLEND_TEXTURE_SOURCE_ALPHA,
            space: layer.space.as_raw(),
            view_count: views.len() as u32,
            views: views.as_ptr(),
        }
    });
    let layers: Vec<*const xr::sys::CompositionLayerBaseHeader> = projection
        .iter()
        .map(|projection| {
            projection as *const xr::sys::CompositionLayerProjection
                as *const xr::sys::CompositionLayerBaseHeader
        })
        .collect();

    let observer_view = observer
        .filter(|observer| observer.drawn)
        .and_then(|observer| observer.color.map(|color| (observer.view, color)))
        .map(|(view, color)| {
            [xr::sys::CompositionLayerProjectionView {
                ty: xr::sys::CompositionLayerProjectionView::TYPE,
                next: std::ptr::null(),
                pose: view.pose,
                fov: view.fov,
                sub_image: sub_image(color, 0),
            }]
        });
    let observer_projection = layer.zip(observer_view.as_ref()).map(|(layer, views)| {
        xr::sys::CompositionLayerProjection {
            ty: xr::sys::CompositionLayerProjection::TYPE,
            next: std::ptr::null(),
            layer_flags: xr::CompositionLayerFlags::BLEND_TEXTURE_SOURCE_ALPHA,
            space: layer.space.as_raw(),
            view_count: views.len() as u32,
            views: views.as_ptr(),
        }
    });
    let observer_layers: Vec<*const xr::sys::CompositionLayerBaseHeader> = observer_projection
        .iter()
        .map(|projection| {
            projection as *const xr::sys::CompositionLayerProjection
                as *const xr::sys::CompositionLayerBaseHeader
        })
        .collect();
    let observer_info = observer.map(|_| xr::sys::SecondaryViewConfigurationLayerInfoMSFT {
        ty: xr::sys::SecondaryViewConfigurationLayerInfoMSFT::TYPE,
        next: std::ptr::null(),
        view_configuration_type: OBSERVER_VIEW,
        environment_blend_mode: blend_mode,
        layer_count: observer_layers.len() as u32,
        layers: observer_layers.as_ptr(),
    });
    let secondary =
        observer_info
            .as_ref()
            .map(|info| xr::sys::SecondaryViewConfigurationFrameEndInfoMSFT {
                ty: xr::sys::SecondaryViewConfigurationFrameEndInfoMSFT::TYPE,
                next: std::ptr::null(),
                view_configuration_count: 1,
                view_configuration_layers_info: info,
            });
    let end_info = xr::sys::FrameEndInfo {
        ty: xr::sys::FrameEndInfo::TYPE,
        next: match &secondary {
            Some(secondary) => secondary as *const _ as *const _,
            None => std::ptr::null(),
        },
        display_time: time,
        environment_blend_mode: blend_mode,
        layer_count: layers.len() as u32,
        layers: layers.as_ptr(),
    };
    // SAFETY: the caller began this frame (xrBeginFrame through the
    // session's FrameStream); every structure above (layers, views, depth
    // infos, reprojection info, the observer's layer and infos) lives until
    // the call returns, and the swapchains, space and session are alive.
    let result = unsafe { (session.instance().fp().end_frame)(session.as_raw(), &end_info) };
    if result.into_raw() < 0 {
        return Err(XrError::Xr {
            call: "xrEndFrame",
            result,
        });
    }
    Ok(())
}
