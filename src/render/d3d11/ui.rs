//! The Direct3D 11 controls pass: the glyph atlas in a typed buffer, the
//! frame's vertices of the controls layer (laid out by `render::ui` straight
//! into a dynamic buffer) and their shaders, drawn by the terrain renderer
//! after the land in each of its passes, once for their colour and once for
//! their depth.
use windows::Win32::Graphics::Direct3D::D3D_SRV_DIMENSION_BUFFER;
use windows::Win32::Graphics::Direct3D11::{
    D3D11_BIND_SHADER_RESOURCE, D3D11_BIND_VERTEX_BUFFER, D3D11_BUFFER_DESC, D3D11_BUFFER_SRV,
    D3D11_BUFFER_SRV_0, D3D11_BUFFER_SRV_1, D3D11_CPU_ACCESS_WRITE, D3D11_CULL_NONE,
    D3D11_FILL_SOLID, D3D11_MAP_WRITE_DISCARD, D3D11_MAPPED_SUBRESOURCE, D3D11_RASTERIZER_DESC,
    D3D11_SHADER_RESOURCE_VIEW_DESC, D3D11_SHADER_RESOURCE_VIEW_DESC_0, D3D11_SUBRESOURCE_DATA,
    D3D11_USAGE_DYNAMIC, D3D11_USAGE_IMMUTABLE, ID3D11BlendState, ID3D11Buffer,
    ID3D11DepthStencilState, ID3D11DeviceContext, ID3D11InputLayout, ID3D11PixelShader,
    ID3D11RasterizerState, ID3D11ShaderResourceView, ID3D11VertexShader,
};
use windows::Win32::Graphics::Dxgi::Common::{
    DXGI_FORMAT_R32_UINT, DXGI_FORMAT_R32G32_FLOAT, DXGI_FORMAT_R32G32B32A32_FLOAT,
};
use windows::core::s;

use super::buffers::{byte_width, new_buffer, vertex_input};
use super::device::D3d11Device;
use super::error::{D3d11Error, call_error};
use super::shaders::compile_ui_shaders;
use crate::render::scene::UiLayer;
use crate::render::ui::{MAX_UI_VERTICES, UiVertex, atlas, layout_ui};
use glam::Mat4;

/// The controls' shaders, atlas and vertices.
pub(crate) struct D3d11UiPass {
    /// The vertex shader.
    vertex_shader: ID3D11VertexShader,
    /// The pixel shader.
    pixel_shader: ID3D11PixelShader,
    /// [`UiVertex`]: POSITION (with the kind), TEXCOORD, COLOR.
    input_layout: ID3D11InputLayout,
    /// Solid, both faces (a panel may be seen from behind).
    rasterizer: ID3D11RasterizerState,
    /// [`MAX_UI_VERTICES`] vertices, rewritten each frame.
    vertices: Option<ID3D11Buffer>,
    /// The pixel shader's view of the atlas (R32_UINT, four texels a word).
    atlas_view: Option<ID3D11ShaderResourceView>,
    /// Vertices of this frame.
    count: u32,
}

impl D3d11UiPass {
    /// The pass on `device`; `layer_from_vertex_shader` as for the terrain's shaders.
    pub(crate) fn new(
        device: &D3d11Device,
        layer_from_vertex_shader: bool,
    ) -> Result<Self, D3d11Error> {
        let shaders = compile_ui_shaders(layer_from_vertex_shader)?;
        let d3d = device.device();
        let inputs = [
            vertex_input(s!("POSITION"), 0, DXGI_FORMAT_R32G32B32A32_FLOAT),
            vertex_input(s!("TEXCOORD"), 16, DXGI_FORMAT_R32G32_FLOAT),
            vertex_input(s!("COLOR"), 24, DXGI_FORMAT_R32G32B32A32_FLOAT),
        ];
        let rasterizer_desc = D3D11_RASTERIZER_DESC {
            FillMode: D3D11_FILL_SOLID,
            CullMode: D3D11_CULL_NONE,
            FrontCounterClockwise: true.into(),
            DepthClipEnable: true.into(),
            ..Default::default()
        };
        let (mut vertex_shader, mut pixel_shader, mut input_layout, mut rasterizer) =
            (None, None, None, None);
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
        }
        let vertices = new_buffer(
            device,
            &D3D11_BUFFER_DESC {
                ByteWidth: byte_width(MAX_UI_VERTICES * size_of::<UiVertex>())?,
                Usage: D3D11_USAGE_DYNAMIC,
                BindFlags: D3D11_BIND_VERTEX_BUFFER.0 as u32,
                CPUAccessFlags: D3D11_CPU_ACCESS_WRITE.0 as u32,
                MiscFlags: 0,
                StructureByteStride: 0,
            },
            None,
        )?;
        let texels = atlas().texels();
        let atlas_buffer = new_buffer(
            device,
            &D3D11_BUFFER_DESC {
                ByteWidth: byte_width(texels.len())?,
                Usage: D3D11_USAGE_IMMUTABLE,
                BindFlags: D3D11_BIND_SHADER_RESOURCE.0 as u32,
                CPUAccessFlags: 0,
                MiscFlags: 0,
                StructureByteStride: 0,
            },
            Some(&D3D11_SUBRESOURCE_DATA {
                pSysMem: texels.as_ptr().cast(),
                SysMemPitch: 0,
                SysMemSlicePitch: 0,
            }),
        )?;
        let view_desc = D3D11_SHADER_RESOURCE_VIEW_DESC {
            Format: DXGI_FORMAT_R32_UINT,
            ViewDimension: D3D_SRV_DIMENSION_BUFFER,
            Anonymous: D3D11_SHADER_RESOURCE_VIEW_DESC_0 {
                Buffer: D3D11_BUFFER_SRV {
                    Anonymous1: D3D11_BUFFER_SRV_0 { FirstElement: 0 },
                    Anonymous2: D3D11_BUFFER_SRV_1 {
                        NumElements: (texels.len() / 4) as u32,
                    },
                },
            },
        };
        let mut atlas_view = None;
        // SAFETY: the description outlives the call; the out pointer points at a live local.
        unsafe {
            d3d.CreateShaderResourceView(&atlas_buffer, Some(&view_desc), Some(&mut atlas_view))
        }
        .map_err(call_error("ID3D11Device::CreateShaderResourceView"))?;
        let missing = |what: &str| D3d11Error::Call {
            call: "ID3D11Device::Create*",
            message: format!("returned no {what}"),
            code: 0,
        };
        Ok(D3d11UiPass {
            vertex_shader: vertex_shader.ok_or_else(|| missing("vertex shader"))?,
            pixel_shader: pixel_shader.ok_or_else(|| missing("pixel shader"))?,
            input_layout: input_layout.ok_or_else(|| missing("input layout"))?,
            rasterizer: rasterizer.ok_or_else(|| missing("rasterizer state"))?,
            vertices: Some(vertices),
            atlas_view: Some(atlas_view.ok_or_else(|| missing("shader resource view"))?),
            count: 0,
        })
    }

    /// Lays `layer` out into the vertex buffer. Never allocates.
    pub(crate) fn prepare(
        &mut self,
        context: &ID3D11DeviceContext,
        layer: &UiLayer<'_>,
        eyes: &[Mat4; 2],
    ) -> Result<(), D3d11Error> {
        self.count = 0;
        if layer.quads.is_empty() && layer.labels.is_empty() {
            return Ok(());
        }
        let Some(vertices) = &self.vertices else {
            return Ok(());
        };
        let mut mapped = D3D11_MAPPED_SUBRESOURCE::default();
        // SAFETY: WRITE_DISCARD gives fresh memory of the buffer's size
        // (MAX_UI_VERTICES vertices, 16-byte aligned), which the slice
        // covers exactly and which is unmapped once the layout is written.
        unsafe {
            context
                .Map(vertices, 0, D3D11_MAP_WRITE_DISCARD, 0, Some(&mut mapped))
                .map_err(call_error("ID3D11DeviceContext::Map"))?;
            let slice =
                std::slice::from_raw_parts_mut(mapped.pData.cast::<UiVertex>(), MAX_UI_VERTICES);
            self.count = layout_ui(layer, eyes, slice) as u32;
            context.Unmap(vertices, 0);
        }
        Ok(())
    }

    /// Draws this frame's vertices, `eyes` instances, with `depth` and
    /// `blend`, when there are any: their colour (depth tested, not
    /// written; blended over what is drawn), then their depth alone
    /// (written; no colour), as the terrain renderer asks.
    /// The terrain's `Frame` and `Eye` buffers stay bound to the vertex
    /// shader's b0 and b1, the target and viewport as the terrain left them.
    pub(crate) fn draw(
        &self,
        context: &ID3D11DeviceContext,
        eyes: u32,
        depth: &ID3D11DepthStencilState,
        blend: &ID3D11BlendState,
    ) {
        if self.count == 0 {
            return;
        }
        let stride = size_of::<UiVertex>() as u32;
        let offset = 0;
        // SAFETY: every bound object is live and owned by the pass or the
        // renderer; the arrays passed outlive each call.
        unsafe {
            context.IASetInputLayout(&self.input_layout);
            context.IASetVertexBuffers(0, 1, Some(&self.vertices), Some(&stride), Some(&offset));
            context.VSSetShader(&self.vertex_shader, None);
            context.PSSetShader(&self.pixel_shader, None);
            context.PSSetShaderResources(0, Some(std::slice::from_ref(&self.atlas_view)));
            context.RSSetState(&self.rasterizer);
            context.OMSetBlendState(blend, None, u32::MAX);
            context.OMSetDepthStencilState(depth, 0);
            context.DrawInstanced(self.count, eyes, 0, 0);
        }
    }
}
