//! What one frame draws: the hologram's transform, both eyes, new heights
//! (when they changed), the light and the colour bands.
use bytemuck::{Pod, Zeroable};
use glam::{Mat4, Vec3};

/// Eyes per frame: view (and image array layer) 0 is the left eye, 1 the
/// right; every backend and the OpenXR swapchains use this one number.
pub const VIEW_COUNT: u32 = 2;

/// One eye's camera.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct EyeView {
    /// World → eye (see `camera::view_from_pose`).
    pub view: Mat4,
    /// Eye → Vulkan clip space (see `camera::perspective_from_fov`).
    pub projection: Mat4,
}

/// Heights, in terrain units, where the colour bands meet: sand below
/// `sand_to_grass`, then grass, rock from `grass_to_rock`, snow above
/// `rock_to_snow`. Each change blends smoothly over `blend` terrain units.
/// Independently of height, steep slopes show rock instead of grass or snow.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct ColorBands {
    /// Where sand turns into grass.
    pub sand_to_grass: f32,
    /// Where grass turns into rock.
    pub grass_to_rock: f32,
    /// Where rock turns into snow.
    pub rock_to_snow: f32,
    /// Width of each blend zone.
    pub blend: f32,
}

impl ColorBands {
    /// The thesis' rule (seed 003 §3.7.1): split the height range into four
    /// equal bands, blending across a band's width around each boundary.
    pub fn spread_over(min_height: f32, max_height: f32) -> Self {
        let quarter = (max_height - min_height) / 4.0;
        ColorBands {
            sand_to_grass: min_height + quarter,
            grass_to_rock: min_height + 2.0 * quarter,
            rock_to_snow: min_height + 3.0 * quarter,
            blend: quarter * 0.35,
        }
    }
}

/// Everything one stereo frame needs.
#[derive(Clone, Copy, Debug)]
pub struct FrameScene<'a> {
    /// Model → world: maps the grid's [-0.5, 0.5] square and its heights
    /// (terrain units) to metres in the reference space.
    pub model: Mat4,
    /// Left eye (view 0), then right eye (view 1).
    pub views: [EyeView; VIEW_COUNT as usize],
    /// New heights, row-major, grid width × height values; `Some` only on
    /// frames where they changed (the renderer keeps the last ones).
    pub heights: Option<&'a [f32]>,
    /// World-space direction from the surface towards the light; any
    /// non-zero length (it is normalised in the shader).
    pub light_dir: Vec3,
    /// Where the colour bands change.
    pub bands: ColorBands,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bands_split_the_height_range_in_quarters() {
        let bands = ColorBands::spread_over(2.0, 6.0);
        assert_eq!(
            [bands.sand_to_grass, bands.grass_to_rock, bands.rock_to_snow],
            [3.0, 4.0, 5.0]
        );
        assert_eq!(bands.blend, 0.35);
    }
}

/// The shaders' `Frame` block as both backends upload it: the GLSL std140
/// uniform block and the HLSL constant buffer have this one layout (the
/// `d3d11_shaders` test holds the HLSL to it).
#[repr(C)]
#[derive(Clone, Copy, Pod, Zeroable)]
pub struct FrameUniforms {
    /// Projection × view in the backend's clip space, left then right eye (column-major).
    pub view_projection: [[f32; 16]; VIEW_COUNT as usize],
    /// Model → world.
    pub model: [f32; 16],
    /// Towards the light, world space (w unused).
    pub light_dir: [f32; 4],
    /// Band boundaries and blend width.
    pub bands: [f32; 4],
    /// Grid width and height (z, w unused).
    pub grid: [u32; 4],
}

impl FrameUniforms {
    /// The block for `scene` on a `grid_width`×`grid_height` grid; `clip`
    /// maps the eyes' Vulkan clip space to the backend's (identity for Vulkan).
    pub fn new(scene: &FrameScene<'_>, clip: Mat4, grid_width: u32, grid_height: u32) -> Self {
        FrameUniforms {
            view_projection: scene
                .views
                .map(|eye| (clip * eye.projection * eye.view).to_cols_array()),
            model: scene.model.to_cols_array(),
            light_dir: scene.light_dir.extend(0.0).to_array(),
            bands: [
                scene.bands.sand_to_grass,
                scene.bands.grass_to_rock,
                scene.bands.rock_to_snow,
                scene.bands.blend,
            ],
            grid: [grid_width, grid_height, 0, 0],
        }
    }
}
