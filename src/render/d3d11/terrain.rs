//! The Direct3D 11 terrain pass: shaders, the static diorama mesh, streamed heights and
//! per-frame constants, drawn into any 2-layer colour + depth texture array
//! (offscreen textures or OpenXR swapchain images), with the controls layer
//! drawn over the land in each pass.
use std::ops::Range;
use std::sync::Arc;

use bytemuck::{Pod, Zeroable};
use glam::Mat4;
use windows::Win32::Graphics::Direct3D::{
    D3D_SRV_DIMENSION_BUFFER, D3D11_PRIMITIVE_TOPOLOGY_TRIANGLELIST,
};
use windows::Win32::Graphics::Direct3D11::{
    D3D11_BIND_CONSTANT_BUFFER, D3D11_BIND_INDEX_BUFFER, D3D11_BIND_SHADER_RESOURCE,
    D3D11_BIND_VERTEX_BUFFER, D3D11_BLEND_DESC, D3D11_BLEND_INV_SRC_ALPHA, D3D11_BLEND_ONE,
    D3D11_BLEND_OP_ADD, D3D11_BLEND_SRC_ALPHA, D3D11_BUFFER_DESC, D3D11_BUFFER_SRV,
    D3D11_BUFFER_SRV_0, D3D11_BUFFER_SRV_1, D3D11_CLEAR_DEPTH, D3D11_COLOR_WRITE_ENABLE_ALL,
    D3D11_COMPARISON_LESS, D3D11_CPU_ACCESS_WRITE, D3D11_CULL_BACK, D3D11_DEPTH_STENCIL_DESC,
    D3D11_DEPTH_STENCIL_VIEW_DESC, D3D11_DEPTH_STENCIL_VIEW_DESC_0, D3D11_DEPTH_WRITE_MASK_ALL,
    D3D11_DEPTH_WRITE_MASK_ZERO, D3D11_DSV_DIMENSION_TEXTURE2DARRAY, D3D11_FILL_SOLID,
    D3D11_FORMAT_SUPPORT_DEPTH_STENCIL, D3D11_MAP_WRITE_DISCARD, D3D11_MAPPED_SUBRESOURCE,
    D3D11_RASTERIZER_DESC, D3D11_RENDER_TARGET_BLEND_DESC, D3D11_RENDER_TARGET_VIEW_DESC,
    D3D11_RENDER_TARGET_VIEW_DESC_0, D3D11_RTV_DIMENSION_TEXTURE2DARRAY,
    D3D11_SHADER_RESOURCE_VIEW_DESC, D3D11_SHADER_RESOURCE_VIEW_DESC_0, D3D11_SUBRESOURCE_DATA,
    D3D11_TEX2D_ARRAY_DSV, D3D11_TEX2D_ARRAY_RTV, D3D11_USAGE, D3D11_USAGE_DYNAMIC,
    D3D11_USAGE_IMMUTABLE, D3D11_VIEWPORT, ID3D11BlendState, ID3D11Buffer, ID3D11DepthStencilState,
    ID3D11DepthStencilView, ID3D11DeviceContext, ID3D11InputLayout, ID3D11PixelShader,
    ID3D11RasterizerState, ID3D11RenderTargetView, ID3D11ShaderResourceView, ID3D11Texture2D,
    ID3D11VertexShader,
};
use windows::Win32::Graphics::Dxgi::Common::{
    DXGI_FORMAT, DXGI_FORMAT_R16_UINT, DXGI_FORMAT_R32_FLOAT, DXGI_FORMAT_R32_UINT,
    DXGI_FORMAT_R32G32_FLOAT,
};
use windows::core::s;

use super::buffers::{byte_width, new_buffer, vertex_input};
use super::device::D3d11Device;
use super::error::{D3d11Error, call_error};
use super::shaders::compile_terrain_shaders;
use super::ui::D3d11UiPass;
use crate::render::diorama::{DioramaMesh, DioramaVertex};
use crate::render::dxgi;
use crate::render::grid::GridIndices;
use crate::render::scene::{FrameScene, FrameUniforms, VIEW_COUNT};
use crate::render::ui::eye_clips;

/// Transparent black, so an additive display shows nothing but the terrain.
const CLEAR_COLOR: [f32; 4] = [0.0, 0.0, 0.0, 0.0];

/// The renderer's matrices are for Vulkan clip space, whose y axis points
/// down; Direct3D's points up.
const VULKAN_TO_D3D_CLIP: Mat4 = Mat4::from_cols_array(&[
    1.0, 0.0, 0.0, 0.0, //
    0.0, -1.0, 0.0, 0.0, //
    0.0, 0.0, 1.0, 0.0, //
    0.0, 0.0, 0.0, 1.0,
]);

/// The shaders' `Eye` constant buffer: the eye of a draw's first instance.
#[repr(C)]
#[derive(Clone, Copy, Pod, Zeroable)]
struct EyeConstants {
    /// x: the eye; y, z, w unused (constant buffers are 16-byte multiples).
    first_eye: [u32; 4],
}

/// The terrain renderer for one grid size.
pub struct D3d11TerrainRenderer {
    /// The device everything here lives on.
    device: Arc<D3d11Device>,
    /// The colour format targets are viewed as (one of [`dxgi::COLOR_FORMATS`]).
    color_format: DXGI_FORMAT,
    /// The depth format targets must have (one of [`dxgi::DEPTH_FORMATS`]).
    depth_format: DXGI_FORMAT,
    /// The vertex shader.
    vertex_shader: ID3D11VertexShader,
    /// The pixel shader.
    pixel_shader: ID3D11PixelShader,
    /// Diorama vertex layout: POSITION, TEXCOORD and OUTWARD (two floats
    /// each) and KIND (one).
    input_layout: ID3D11InputLayout,
    /// Solid, back faces culled (the diorama is closed).
    rasterizer: ID3D11RasterizerState,
    /// Depth test LESS with writes, for the solid and the depth draws.
    depth_state: ID3D11DepthStencilState,
    /// Depth test LESS without writes, for the water's and the controls'
    /// colour.
    water_depth_state: ID3D11DepthStencilState,
    /// The water's and the controls' blending over what is drawn (alpha
    /// kept over land).
    water_blend: ID3D11BlendState,
    /// No colour written: the water's and the controls' depth draws.
    depth_only_blend: ID3D11BlendState,
    /// Static diorama vertices.
    vertex_buffer: Option<ID3D11Buffer>,
    /// Static diorama indices.
    index_buffer: ID3D11Buffer,
    /// 16- or 32-bit indices.
    index_format: DXGI_FORMAT,
    /// The solid's indices.
    solid: Range<u32>,
    /// The water's indices.
    water: Range<u32>,
    /// The heights (dynamic, rewritten whole when they change).
    heights: ID3D11Buffer,
    /// The vertex shader's view of `heights`.
    heights_view: Option<ID3D11ShaderResourceView>,
    /// Per-frame constants (dynamic).
    frame_constants: Option<ID3D11Buffer>,
    /// One immutable `Eye` buffer per eye (index = the eye).
    eye_constants: [Option<ID3D11Buffer>; VIEW_COUNT as usize],
    /// Grid samples per row.
    grid_width: u32,
    /// Grid rows.
    grid_height: u32,
    /// The controls, drawn after the land and the water.
    ui: D3d11UiPass,
}

impl D3d11TerrainRenderer {
    /// A renderer for a `grid_width` × `grid_height` heightmap into targets
    /// of its own: RGBA sRGB colour ([`dxgi::OFFSCREEN_COLOR_FORMAT`], read
    /// back as RGBA8), D16 depth where the device has it, else D32. The
    /// heights start flat (0).
    pub fn new(
        device: Arc<D3d11Device>,
        grid_width: u32,
        grid_height: u32,
    ) -> Result<Self, D3d11Error> {
        let depth_format = choose_depth_format(&device)?;
        Self::with_formats(
            device,
            grid_width,
            grid_height,
            dxgi_format(dxgi::OFFSCREEN_COLOR_FORMAT),
            depth_format,
        )
    }

    /// A renderer whose targets are viewed as `color_format` (one of
    /// [`dxgi::COLOR_FORMATS`]) and have `depth_format` (one of
    /// [`dxgi::DEPTH_FORMATS`]), e.g. what an OpenXR runtime's swapchains
    /// have. The heights start flat (0).
    pub fn with_formats(
        device: Arc<D3d11Device>,
        grid_width: u32,
        grid_height: u32,
        color_format: DXGI_FORMAT,
        depth_format: DXGI_FORMAT,
    ) -> Result<Self, D3d11Error> {
        check_target_formats(color_format, depth_format)?;
        let grid = DioramaMesh::new(grid_width, grid_height)
            .map_err(|error| D3d11Error::InvalidOptions(error.to_string()))?;
        let TerrainPipeline {
            vertex_shader,
            pixel_shader,
            input_layout,
            rasterizer,
            depth_state,
            water_depth_state,
            water_blend,
            depth_only_blend,
        } = TerrainPipeline::new(&device)?;

        let vertex_bytes: &[u8] = bytemuck::cast_slice(&grid.vertices);
        let vertex_buffer = create_buffer(
            &device,
            vertex_bytes.len(),
            D3D11_BIND_VERTEX_BUFFER.0 as u32,
            Some(vertex_bytes),
        )?;
        let index_buffer = create_buffer(
            &device,
            grid.indices.as_bytes().len(),
            D3D11_BIND_INDEX_BUFFER.0 as u32,
            Some(grid.indices.as_bytes()),
        )?;
        let height_count = grid_width as usize * grid_height as usize;
        let flat = vec![0.0f32; height_count];
        let heights = create_dynamic_heights(&device, bytemuck::cast_slice(&flat))?;
        let heights_view = create_heights_view(&device, &heights, height_count as u32)?;
        let frame_constants = create_buffer(
            &device,
            size_of::<FrameUniforms>(),
            D3D11_BIND_CONSTANT_BUFFER.0 as u32,
            None,
        )?;
        let eye_constants = [0, 1].map(|eye| {
            let constants = EyeConstants {
                first_eye: [eye, 0, 0, 0],
            };
            create_buffer(
                &device,
                size_of::<EyeConstants>(),
                D3D11_BIND_CONSTANT_BUFFER.0 as u32,
                Some(bytemuck::bytes_of(&constants)),
            )
        });
        let [left_eye, right_eye] = eye_constants;
        Ok(D3d11TerrainRenderer {
            color_format,
            depth_format,
            vertex_shader,
            pixel_shader,
            input_layout,
            rasterizer,
            depth_state,
            water_depth_state,
            water_blend,
            depth_only_blend,
            vertex_buffer: Some(vertex_buffer),
            index_buffer,
            index_format: match grid.indices {
                GridIndices::U16(_) => DXGI_FORMAT_R16_UINT,
                GridIndices::U32(_) => DXGI_FORMAT_R32_UINT,
            },
            solid: grid.solid.clone(),
            water: grid.water.clone(),
            heights,
            heights_view: Some(heights_view),
            frame_constants: Some(frame_constants),
            eye_constants: [Some(left_eye?), Some(right_eye?)],
            grid_width,
            grid_height,
            ui: D3d11UiPass::new(&device, device.layer_from_vertex_shader())?,
            device,
        })
    }

    /// The device the renderer draws on.
    pub fn device(&self) -> &Arc<D3d11Device> {
        &self.device
    }

    /// Format of the colour targets.
    pub fn color_format(&self) -> DXGI_FORMAT {
        self.color_format
    }

    /// Format of the depth targets.
    pub fn depth_format(&self) -> DXGI_FORMAT {
        self.depth_format
    }

    /// Draws the frame: uploads new heights when the scene has them, then
    /// clears `target` and draws both eyes into its two layers. Never waits
    /// for the GPU; `target` must have been made from this renderer.
    pub fn record(
        &mut self,
        target: &D3d11RenderTarget,
        scene: &FrameScene,
    ) -> Result<(), D3d11Error> {
        let height_count = (self.grid_width * self.grid_height) as usize;
        if let Some(heights) = scene.heights
            && heights.len() != height_count
        {
            return Err(D3d11Error::HeightCountMismatch {
                expected: height_count,
                actual: heights.len(),
            });
        }
        let constants =
            FrameUniforms::new(scene, VULKAN_TO_D3D_CLIP, self.grid_width, self.grid_height);
        let context = self.device.context();
        if let Some(frame_constants) = &self.frame_constants {
            write_dynamic(context, frame_constants, bytemuck::bytes_of(&constants))?;
        }
        if let Some(heights) = scene.heights {
            write_dynamic(context, &self.heights, bytemuck::cast_slice(heights))?;
        }
        self.ui.prepare(context, &scene.ui, &eye_clips(scene))?;
        let viewport = D3D11_VIEWPORT {
            TopLeftX: 0.0,
            TopLeftY: 0.0,
            Width: target.width as f32,
            Height: target.height as f32,
            MinDepth: 0.0,
            MaxDepth: 1.0,
        };
        let with_water = scene.sea_level.is_some();
        // SAFETY: every bound object is live and owned by the renderer or the
        // target; the arrays passed outlive each call.
        unsafe {
            context.IASetPrimitiveTopology(D3D11_PRIMITIVE_TOPOLOGY_TRIANGLELIST);
            context.IASetIndexBuffer(&self.index_buffer, self.index_format, 0);
            context.VSSetShaderResources(0, Some(std::slice::from_ref(&self.heights_view)));
            context.VSSetConstantBuffers(0, Some(std::slice::from_ref(&self.frame_constants)));
            context.PSSetConstantBuffers(0, Some(std::slice::from_ref(&self.frame_constants)));
            context.RSSetViewports(Some(&[viewport]));
            for pass in &target.passes {
                // The terrain's state each pass: the controls of the pass
                // before replaced some of it.
                self.bind_diorama(context);
                context.OMSetRenderTargets(
                    Some(std::slice::from_ref(&pass.color)),
                    pass.depth.as_ref(),
                );
                if let Some(color) = &pass.color {
                    context.ClearRenderTargetView(color, &CLEAR_COLOR);
                }
                if let Some(depth) = &pass.depth {
                    context.ClearDepthStencilView(depth, D3D11_CLEAR_DEPTH.0, 1.0, 0);
                }
                context.VSSetConstantBuffers(
                    1,
                    Some(std::slice::from_ref(
                        &self.eye_constants[pass.first_eye as usize],
                    )),
                );
                context.OMSetBlendState(None::<&ID3D11BlendState>, None, u32::MAX);
                context.OMSetDepthStencilState(&self.depth_state, 0);
                context.DrawIndexedInstanced(
                    self.solid.len() as u32,
                    pass.eyes,
                    self.solid.start,
                    0,
                    0,
                );
                if with_water {
                    context.OMSetBlendState(&self.water_blend, None, u32::MAX);
                    context.OMSetDepthStencilState(&self.water_depth_state, 0);
                    context.DrawIndexedInstanced(
                        self.water.len() as u32,
                        pass.eyes,
                        self.water.start,
                        0,
                        0,
                    );
                }
                // The controls: over the land, hidden where it is in front.
                self.ui.draw(
                    context,
                    pass.eyes,
                    &self.water_depth_state,
                    &self.water_blend,
                );
                // Then the depth of what was blended, as the Vulkan renderer
                // does (vulkan/terrain.rs): every pixel drawn has its depth.
                self.draw_depth_of_blended(context, pass.eyes, with_water);
            }
            // Whoever draws next (the OpenXR compositor's own, or the next
            // frame) starts from the default blend state.
            context.OMSetBlendState(None::<&ID3D11BlendState>, None, u32::MAX);
        }
        Ok(())
    }

    /// Binds the diorama's input, shaders and rasterizer state: the controls'
    /// draw replaces them, so each terrain draw after one binds them again.
    ///
    /// # Safety
    /// `context` is this renderer's device's immediate context.
    unsafe fn bind_diorama(&self, context: &ID3D11DeviceContext) {
        let stride = size_of::<DioramaVertex>() as u32;
        let offset = 0;
        // SAFETY: every bound object is live and owned by the renderer; the
        // arrays passed outlive each call.
        unsafe {
            context.IASetInputLayout(&self.input_layout);
            context.IASetVertexBuffers(
                0,
                1,
                Some(&self.vertex_buffer),
                Some(&stride),
                Some(&offset),
            );
            context.VSSetShader(&self.vertex_shader, None);
            context.PSSetShader(&self.pixel_shader, None);
            context.RSSetState(&self.rasterizer);
        }
    }

    /// The water's (when `with_water`) and the controls' depth, no colour,
    /// after their colour: each fragment their colour draws kept writes its
    /// depth. The target, viewport and constant buffers stay as `record`
    /// bound them.
    fn draw_depth_of_blended(&self, context: &ID3D11DeviceContext, eyes: u32, with_water: bool) {
        // SAFETY: every bound object is live and owned by the renderer; the
        // arrays passed outlive each call.
        unsafe {
            if with_water {
                // The controls' draw replaced the terrain's shaders and input.
                self.bind_diorama(context);
                context.OMSetBlendState(&self.depth_only_blend, None, u32::MAX);
                context.OMSetDepthStencilState(&self.depth_state, 0);
                context.DrawIndexedInstanced(self.water.len() as u32, eyes, self.water.start, 0, 0);
            }
        }
        self.ui
            .draw(context, eyes, &self.depth_state, &self.depth_only_blend);
    }
}

/// One draw's views: the layers of one eye, or of both.
struct Pass {
    /// Colour view of the layers drawn.
    color: Option<ID3D11RenderTargetView>,
    /// Depth view of the same layers.
    depth: Option<ID3D11DepthStencilView>,
    /// The eye drawn into the first of them.
    first_eye: u32,
    /// How many eyes (instances, layers) the draw covers.
    eyes: u32,
}

/// A colour and a depth texture of 2 layers each, as the views a
/// [`D3d11TerrainRenderer`] draws through: one pair covering both layers
/// where the vertex shader chooses the layer, else one pair per layer.
/// Holds the textures alive through its views.
pub struct D3d11RenderTarget {
    /// The draws of one frame.
    passes: Vec<Pass>,
    /// Width of each layer, in pixels.
    width: u32,
    /// Height of each layer, in pixels.
    height: u32,
}

impl D3d11RenderTarget {
    /// Views for drawing with `renderer` into `color` and `depth`: textures
    /// on the renderer's device with at least 2 array layers of `width` ×
    /// `height`, of (or typeless of) the renderer's colour and depth formats,
    /// with render-target and depth-stencil binding.
    pub fn new(
        renderer: &D3d11TerrainRenderer,
        color: &ID3D11Texture2D,
        depth: &ID3D11Texture2D,
        width: u32,
        height: u32,
    ) -> Result<Self, D3d11Error> {
        let layer_ranges: &[(u32, u32)] = if renderer.device.layer_from_vertex_shader() {
            &[(0, VIEW_COUNT)]
        } else {
            &[(0, 1), (1, 1)]
        };
        let d3d = renderer.device.device();
        let mut passes = Vec::with_capacity(layer_ranges.len());
        for &(first_eye, eyes) in layer_ranges {
            let color_desc = D3D11_RENDER_TARGET_VIEW_DESC {
                Format: renderer.color_format(),
                ViewDimension: D3D11_RTV_DIMENSION_TEXTURE2DARRAY,
                Anonymous: D3D11_RENDER_TARGET_VIEW_DESC_0 {
                    Texture2DArray: D3D11_TEX2D_ARRAY_RTV {
                        MipSlice: 0,
                        FirstArraySlice: first_eye,
                        ArraySize: eyes,
                    },
                },
            };
            let depth_desc = D3D11_DEPTH_STENCIL_VIEW_DESC {
                Format: renderer.depth_format(),
                ViewDimension: D3D11_DSV_DIMENSION_TEXTURE2DARRAY,
                Flags: 0,
                Anonymous: D3D11_DEPTH_STENCIL_VIEW_DESC_0 {
                    Texture2DArray: D3D11_TEX2D_ARRAY_DSV {
                        MipSlice: 0,
                        FirstArraySlice: first_eye,
                        ArraySize: eyes,
                    },
                },
            };
            let mut pass = Pass {
                color: None,
                depth: None,
                first_eye,
                eyes,
            };
            // SAFETY: the descriptions outlive the calls; the out pointers
            // point at the pass's fields.
            unsafe {
                d3d.CreateRenderTargetView(color, Some(&color_desc), Some(&mut pass.color))
                    .map_err(call_error("ID3D11Device::CreateRenderTargetView"))?;
                d3d.CreateDepthStencilView(depth, Some(&depth_desc), Some(&mut pass.depth))
                    .map_err(call_error("ID3D11Device::CreateDepthStencilView"))?;
            }
            passes.push(pass);
        }
        Ok(D3d11RenderTarget {
            passes,
            width,
            height,
        })
    }
}

/// The terrain's shaders and the fixed-function states it draws with.
struct TerrainPipeline {
    vertex_shader: ID3D11VertexShader,
    pixel_shader: ID3D11PixelShader,
    input_layout: ID3D11InputLayout,
    rasterizer: ID3D11RasterizerState,
    depth_state: ID3D11DepthStencilState,
    water_depth_state: ID3D11DepthStencilState,
    water_blend: ID3D11BlendState,
    depth_only_blend: ID3D11BlendState,
}

impl TerrainPipeline {
    /// Compiles the shaders for `device` and creates the states.
    fn new(device: &D3d11Device) -> Result<Self, D3d11Error> {
        let shaders = compile_terrain_shaders(device.layer_from_vertex_shader())?;
        let d3d = device.device();
        let mut vertex_shader = None;
        let mut pixel_shader = None;
        let mut input_layout = None;
        let mut rasterizer = None;
        let mut depth_state = None;
        let mut water_depth_state = None;
        let mut water_blend = None;
        let mut depth_only_blend = None;
        let pair = size_of::<[f32; 2]>() as u32;
        let inputs = [
            vertex_input(s!("POSITION"), 0, DXGI_FORMAT_R32G32_FLOAT),
            vertex_input(s!("TEXCOORD"), pair, DXGI_FORMAT_R32G32_FLOAT),
            vertex_input(s!("OUTWARD"), 2 * pair, DXGI_FORMAT_R32G32_FLOAT),
            vertex_input(s!("KIND"), 3 * pair, DXGI_FORMAT_R32_FLOAT),
        ];
        // The clip matrices put the image upright, so a triangle wound
        // counter-clockwise seen from outside is so on screen, as in Vulkan.
        let rasterizer_desc = D3D11_RASTERIZER_DESC {
            FillMode: D3D11_FILL_SOLID,
            CullMode: D3D11_CULL_BACK,
            FrontCounterClockwise: true.into(),
            DepthClipEnable: true.into(),
            ..Default::default()
        };
        let depth_desc = D3D11_DEPTH_STENCIL_DESC {
            DepthEnable: true.into(),
            DepthWriteMask: D3D11_DEPTH_WRITE_MASK_ALL,
            DepthFunc: D3D11_COMPARISON_LESS,
            ..Default::default()
        };
        let water_depth_desc = D3D11_DEPTH_STENCIL_DESC {
            DepthWriteMask: D3D11_DEPTH_WRITE_MASK_ZERO,
            ..depth_desc
        };
        let mut blend_desc = D3D11_BLEND_DESC::default();
        blend_desc.RenderTarget[0] = D3D11_RENDER_TARGET_BLEND_DESC {
            BlendEnable: true.into(),
            SrcBlend: D3D11_BLEND_SRC_ALPHA,
            DestBlend: D3D11_BLEND_INV_SRC_ALPHA,
            BlendOp: D3D11_BLEND_OP_ADD,
            SrcBlendAlpha: D3D11_BLEND_ONE,
            DestBlendAlpha: D3D11_BLEND_INV_SRC_ALPHA,
            BlendOpAlpha: D3D11_BLEND_OP_ADD,
            RenderTargetWriteMask: D3D11_COLOR_WRITE_ENABLE_ALL.0 as u8,
        };
        let mut depth_only_desc = D3D11_BLEND_DESC::default();
        depth_only_desc.RenderTarget[0].RenderTargetWriteMask = 0;
        // SAFETY: the bytecode and descriptions outlive each call; the out
        // pointers point at live locals.
        unsafe {
            d3d.CreateVertexShader(&shaders.vertex, None, Some(&mut vertex_shader))
                .map_err(call_error("ID3D11Device::CreateVertexShader"))?;
            d3d.CreatePixelShader(&shaders.pixel, None, Some(&mut pixel_shader))
                .map_err(call_error("ID3D11Device::CreatePixelShader"))?;
            d3d.CreateInputLayout(&inputs, &shaders.vertex, Some(&mut input_layout))
                .map_err(call_error("ID3D11Device::CreateInputLayout"))?;
            d3d.CreateRasterizerState(&rasterizer_desc, Some(&mut rasterizer))
                .map_err(call_error("ID3D11Device::CreateRasterizerState"))?;
            d3d.CreateDepthStencilState(&depth_desc, Some(&mut depth_state))
                .map_err(call_error("ID3D11Device::CreateDepthStencilState"))?;
            d3d.CreateDepthStencilState(&water_depth_desc, Some(&mut water_depth_state))
                .map_err(call_error("ID3D11Device::CreateDepthStencilState"))?;
            d3d.CreateBlendState(&blend_desc, Some(&mut water_blend))
                .map_err(call_error("ID3D11Device::CreateBlendState"))?;
            d3d.CreateBlendState(&depth_only_desc, Some(&mut depth_only_blend))
                .map_err(call_error("ID3D11Device::CreateBlendState"))?;
        }
        let missing = |what: &str| D3d11Error::Call {
            call: "ID3D11Device::Create*",
            message: format!("returned no {what}"),
            code: 0,
        };
        Ok(TerrainPipeline {
            vertex_shader: vertex_shader.ok_or_else(|| missing("vertex shader"))?,
            pixel_shader: pixel_shader.ok_or_else(|| missing("pixel shader"))?,
            input_layout: input_layout.ok_or_else(|| missing("input layout"))?,
            rasterizer: rasterizer.ok_or_else(|| missing("rasterizer state"))?,
            depth_state: depth_state.ok_or_else(|| missing("depth-stencil state"))?,
            water_depth_state: water_depth_state.ok_or_else(|| missing("depth-stencil state"))?,
            water_blend: water_blend.ok_or_else(|| missing("blend state"))?,
            depth_only_blend: depth_only_blend.ok_or_else(|| missing("blend state"))?,
        })
    }
}

/// That the targets' formats are ones the renderer can draw into.
fn check_target_formats(
    color_format: DXGI_FORMAT,
    depth_format: DXGI_FORMAT,
) -> Result<(), D3d11Error> {
    if !dxgi::COLOR_FORMATS.map(dxgi_format).contains(&color_format) {
        return Err(D3d11Error::InvalidOptions(format!(
            "colour format {} is neither B8G8R8A8_UNORM_SRGB nor R8G8B8A8_UNORM_SRGB",
            dxgi::format_name(color_format.0 as u32)
        )));
    }
    if !dxgi::DEPTH_FORMATS.map(dxgi_format).contains(&depth_format) {
        return Err(D3d11Error::InvalidOptions(format!(
            "depth format {} is neither D16 nor D32",
            dxgi::format_name(depth_format.0 as u32)
        )));
    }
    Ok(())
}

/// A format of the [`dxgi`] table as the windows crate's type.
fn dxgi_format(format: u32) -> DXGI_FORMAT {
    DXGI_FORMAT(format as i32)
}

/// D16 when the device can use it as depth, else D32.
fn choose_depth_format(device: &D3d11Device) -> Result<DXGI_FORMAT, D3d11Error> {
    dxgi::DEPTH_FORMATS
        .map(dxgi_format)
        .into_iter()
        .find(|&format| {
            // SAFETY: a plain query on a live device.
            unsafe { device.device().CheckFormatSupport(format) }
                .is_ok_and(|support| support & D3D11_FORMAT_SUPPORT_DEPTH_STENCIL.0 as u32 != 0)
        })
        .ok_or_else(|| {
            D3d11Error::InvalidOptions(format!(
                "the Direct3D 11 adapter {} supports neither D16 nor D32 depth",
                device.adapter_name()
            ))
        })
}

/// An immutable buffer holding `contents`, or (without) a dynamic one of
/// `size` bytes the CPU rewrites.
fn create_buffer(
    device: &D3d11Device,
    size: usize,
    bind_flags: u32,
    contents: Option<&[u8]>,
) -> Result<ID3D11Buffer, D3d11Error> {
    let (usage, cpu_access): (D3D11_USAGE, u32) = match contents {
        Some(_) => (D3D11_USAGE_IMMUTABLE, 0),
        None => (D3D11_USAGE_DYNAMIC, D3D11_CPU_ACCESS_WRITE.0 as u32),
    };
    let desc = D3D11_BUFFER_DESC {
        ByteWidth: byte_width(size)?,
        Usage: usage,
        BindFlags: bind_flags,
        CPUAccessFlags: cpu_access,
        MiscFlags: 0,
        StructureByteStride: 0,
    };
    let initial = contents.map(|bytes| D3D11_SUBRESOURCE_DATA {
        pSysMem: bytes.as_ptr().cast(),
        SysMemPitch: 0,
        SysMemSlicePitch: 0,
    });
    new_buffer(device, &desc, initial.as_ref())
}

/// The dynamic buffer of heights (R32_FLOAT elements), starting as `contents`.
fn create_dynamic_heights(
    device: &D3d11Device,
    contents: &[u8],
) -> Result<ID3D11Buffer, D3d11Error> {
    let desc = D3D11_BUFFER_DESC {
        ByteWidth: byte_width(contents.len())?,
        Usage: D3D11_USAGE_DYNAMIC,
        BindFlags: D3D11_BIND_SHADER_RESOURCE.0 as u32,
        CPUAccessFlags: D3D11_CPU_ACCESS_WRITE.0 as u32,
        MiscFlags: 0,
        StructureByteStride: 0,
    };
    let initial = D3D11_SUBRESOURCE_DATA {
        pSysMem: contents.as_ptr().cast(),
        SysMemPitch: 0,
        SysMemSlicePitch: 0,
    };
    new_buffer(device, &desc, Some(&initial))
}

/// The vertex shader's view of the `count` heights.
fn create_heights_view(
    device: &D3d11Device,
    heights: &ID3D11Buffer,
    count: u32,
) -> Result<ID3D11ShaderResourceView, D3d11Error> {
    let desc = D3D11_SHADER_RESOURCE_VIEW_DESC {
        Format: DXGI_FORMAT_R32_FLOAT,
        ViewDimension: D3D_SRV_DIMENSION_BUFFER,
        Anonymous: D3D11_SHADER_RESOURCE_VIEW_DESC_0 {
            Buffer: D3D11_BUFFER_SRV {
                Anonymous1: D3D11_BUFFER_SRV_0 { FirstElement: 0 },
                Anonymous2: D3D11_BUFFER_SRV_1 { NumElements: count },
            },
        },
    };
    let mut view = None;
    // SAFETY: the description outlives the call; the out pointer points at a live local.
    unsafe {
        device
            .device()
            .CreateShaderResourceView(heights, Some(&desc), Some(&mut view))
    }
    .map_err(call_error("ID3D11Device::CreateShaderResourceView"))?;
    view.ok_or_else(|| D3d11Error::Call {
        call: "ID3D11Device::CreateShaderResourceView",
        message: "returned no view".into(),
        code: 0,
    })
}

/// Replaces the whole contents of the dynamic `buffer` (exactly `bytes` long).
fn write_dynamic(
    context: &ID3D11DeviceContext,
    buffer: &ID3D11Buffer,
    bytes: &[u8],
) -> Result<(), D3d11Error> {
    let mut mapped = D3D11_MAPPED_SUBRESOURCE::default();
    // SAFETY: WRITE_DISCARD gives fresh memory of the buffer's size, which
    // `bytes` (checked by the callers) does not exceed; unmapped right after.
    unsafe {
        context
            .Map(buffer, 0, D3D11_MAP_WRITE_DISCARD, 0, Some(&mut mapped))
            .map_err(call_error("ID3D11DeviceContext::Map"))?;
        std::ptr::copy_nonoverlapping(bytes.as_ptr(), mapped.pData.cast::<u8>(), bytes.len());
        context.Unmap(buffer, 0);
    }
    Ok(())
}
