//! Render targets: a 2-layer colour and depth image pair (offscreen images or
//! OpenXR swapchain images) wrapped as one multiview framebuffer.
use std::sync::Arc;

use ash::vk;

use super::context::GpuContext;
use super::error::vk_error;
use super::pipeline::MultiviewPass;
use crate::render::error::RenderError;
use crate::render::scene::VIEW_COUNT;

/// A colour and a depth image of 2 layers each (one per eye), wrapped as one
/// framebuffer of a [`MultiviewPass`]. Owns its framebuffer, and its views
/// when it made them ([`RenderTarget::new`]); never the images.
pub struct RenderTarget {
    /// The context the views and framebuffer belong to.
    ctx: Arc<GpuContext>,
    /// 2D-array views of the colour and the depth image.
    views: [vk::ImageView; 2],
    /// Whether dropping the target destroys `views`.
    owns_views: bool,
    /// The framebuffer (1 layer: multiview addresses the array layers).
    framebuffer: vk::Framebuffer,
    /// Size of each layer.
    extent: vk::Extent2D,
}

impl RenderTarget {
    /// Views and a framebuffer for drawing in `pass` into `color_image`
    /// and `depth_image` (e.g. OpenXR swapchain images).
    ///
    /// # Safety
    /// Both images must be live on the pass's device, have at least 2
    /// array layers of `extent`, the pass's colour and depth formats, and
    /// COLOR_ATTACHMENT / DEPTH_STENCIL_ATTACHMENT usage; they must outlive
    /// the target (e.g. an OpenXR swapchain dropped after its targets).
    pub unsafe fn new(
        pass: &MultiviewPass,
        color_image: vk::Image,
        depth_image: vk::Image,
        extent: vk::Extent2D,
    ) -> Result<Self, RenderError> {
        let mut target = RenderTarget {
            ctx: pass.context().clone(),
            views: [vk::ImageView::null(); 2],
            owns_views: true,
            framebuffer: vk::Framebuffer::null(),
            extent,
        };
        let images = [
            (
                color_image,
                pass.color_format(),
                vk::ImageAspectFlags::COLOR,
            ),
            (
                depth_image,
                pass.depth_format(),
                vk::ImageAspectFlags::DEPTH,
            ),
        ];
        for (view, (image, format, aspect)) in target.views.iter_mut().zip(images) {
            let view_info = layered_view_info(image, format, aspect);
            // SAFETY: per this function's contract; on failure Drop destroys
            // the views made so far.
            *view = unsafe { target.ctx.device().create_image_view(&view_info, None) }
                .map_err(vk_error("vkCreateImageView"))?;
        }
        target.create_framebuffer(pass)?;
        Ok(target)
    }

    /// A framebuffer for drawing in `pass` into views the caller made
    /// and keeps (the target does not destroy them).
    ///
    /// # Safety
    /// Both views must be live on the pass's device, 2D-array views of 2
    /// layers of `extent` in the pass's colour and depth formats, of
    /// images with attachment usage, and must outlive the target.
    pub unsafe fn from_views(
        pass: &MultiviewPass,
        color_view: vk::ImageView,
        depth_view: vk::ImageView,
        extent: vk::Extent2D,
    ) -> Result<Self, RenderError> {
        let mut target = RenderTarget {
            ctx: pass.context().clone(),
            views: [color_view, depth_view],
            owns_views: false,
            framebuffer: vk::Framebuffer::null(),
            extent,
        };
        target.create_framebuffer(pass)?;
        Ok(target)
    }

    fn create_framebuffer(&mut self, pass: &MultiviewPass) -> Result<(), RenderError> {
        let framebuffer_info = vk::FramebufferCreateInfo::default()
            .render_pass(pass.raw())
            .attachments(&self.views)
            .width(self.extent.width)
            .height(self.extent.height)
            .layers(1);
        // SAFETY: the views match this render pass's formats (constructors' contracts).
        self.framebuffer = unsafe {
            self.ctx
                .device()
                .create_framebuffer(&framebuffer_info, None)
        }
        .map_err(vk_error("vkCreateFramebuffer"))?;
        Ok(())
    }

    /// Size of each eye's layer.
    pub fn extent(&self) -> vk::Extent2D {
        self.extent
    }

    /// The framebuffer to begin the pass with.
    pub fn framebuffer(&self) -> vk::Framebuffer {
        self.framebuffer
    }
}

impl Drop for RenderTarget {
    fn drop(&mut self) {
        // SAFETY: owners drop targets only after the frames drawing into them
        // finished; null handles are ignored.
        unsafe {
            let device = self.ctx.device();
            device.destroy_framebuffer(self.framebuffer, None);
            if self.owns_views {
                for view in self.views {
                    device.destroy_image_view(view, None);
                }
            }
        }
    }
}

/// A 2D-array view of all [`VIEW_COUNT`] layers of `image`, as the
/// multiview framebuffer needs.
fn layered_view_info(
    image: vk::Image,
    format: vk::Format,
    aspect: vk::ImageAspectFlags,
) -> vk::ImageViewCreateInfo<'static> {
    vk::ImageViewCreateInfo::default()
        .image(image)
        .view_type(vk::ImageViewType::TYPE_2D_ARRAY)
        .format(format)
        .subresource_range(vk::ImageSubresourceRange {
            aspect_mask: aspect,
            base_mip_level: 0,
            level_count: 1,
            base_array_layer: 0,
            layer_count: VIEW_COUNT,
        })
}

#[cfg(test)]
mod tests {
    use glam::{Mat4, Vec3};

    use super::*;
    use crate::render::palette::TEMPERATE;
    use crate::render::scene::EyeView;
    use crate::render::scene::FrameScene;
    use crate::render::vulkan::frames::FrameRing;
    use crate::render::vulkan::memory::Image;
    use crate::render::vulkan::terrain::TerrainRenderer;

    fn array_view(
        ctx: &GpuContext,
        image: &Image,
        format: vk::Format,
        aspect: vk::ImageAspectFlags,
    ) -> vk::ImageView {
        let view_info = layered_view_info(image.raw(), format, aspect);
        // SAFETY: the image is live and has 2 layers of this format.
        unsafe { ctx.device().create_image_view(&view_info, None) }.unwrap()
    }

    #[test]
    fn a_target_on_caller_views_draws_and_leaves_the_views_alone() {
        let _ = env_logger::builder().is_test(true).try_init();
        let ctx = GpuContext::standalone(true).unwrap();
        let counter = ctx.validation_counter().unwrap();
        let (color_format, depth_format) = (vk::Format::R8G8B8A8_SRGB, vk::Format::D16_UNORM);
        let mut renderer =
            TerrainRenderer::new(ctx.clone(), 9, 7, color_format, depth_format).unwrap();
        let extent = vk::Extent2D {
            width: 32,
            height: 24,
        };
        let color = Image::new(
            &ctx,
            "colour",
            color_format,
            extent,
            VIEW_COUNT,
            vk::ImageUsageFlags::COLOR_ATTACHMENT,
        )
        .unwrap();
        let depth = Image::new(
            &ctx,
            "depth",
            depth_format,
            extent,
            VIEW_COUNT,
            vk::ImageUsageFlags::DEPTH_STENCIL_ATTACHMENT,
        )
        .unwrap();
        let color_view = array_view(&ctx, &color, color_format, vk::ImageAspectFlags::COLOR);
        let depth_view = array_view(&ctx, &depth, depth_format, vk::ImageAspectFlags::DEPTH);
        // SAFETY: the views fit the renderer and are destroyed after the target.
        let target =
            unsafe { RenderTarget::from_views(renderer.pass(), color_view, depth_view, extent) }
                .unwrap();
        let mut frames = FrameRing::new(ctx.clone()).unwrap();
        let heights: Vec<f32> = (0..63).map(|i| i as f32 / 63.0).collect();
        let eye = EyeView {
            view: Mat4::from_translation(Vec3::new(0.0, -0.2, -1.0)),
            projection: crate::render::camera::perspective_from_fov(
                -0.5, 0.5, 0.4, -0.4, 0.05, 10.0,
            ),
        };
        let scene = FrameScene {
            model: Mat4::from_scale(Vec3::new(0.5, 0.1, 0.5)),
            views: [eye, eye],
            heights: Some(&heights),
            light_dir: Vec3::Y,
            palette: TEMPERATE,
            contours: false,
            base_bottom: -0.3,
            // Water too, so its pipeline is exercised.
            sea_level: Some(0.2),
            time_s: 0.0,
            display: crate::render::scene::Display::Additive,
            marks: crate::render::scene::SurfaceMarks {
                stroke: &[glam::Vec2::ZERO, glam::Vec2::ONE],
                cursor: Some(glam::Vec2::splat(0.5)),
            },
            ui: crate::render::scene::UiLayer::default(),
            near_fade: crate::render::scene::NearFade::NONE,
        };
        for _ in 0..3 {
            let frame = frames.begin().unwrap();
            renderer.record(&frame, &target, &scene).unwrap();
            frames.submit(frame).unwrap();
        }
        frames.wait_for_all().unwrap();
        drop(target);
        // SAFETY: the GPU is done with the views; the target did not destroy
        // them, so destroying them here is valid (else the layer reports it).
        unsafe {
            ctx.device().destroy_image_view(color_view, None);
            ctx.device().destroy_image_view(depth_view, None);
        }
        drop((frames, color, depth, renderer, ctx));
        assert_eq!(counter.count(), 0, "validation messages (see the log)");
    }
}
