//! Direct3D 11 buffer helpers the terrain and the controls share: creating a buffer, a size as its byte width, a vertex input element.
use windows::Win32::Graphics::Direct3D11::{
    D3D11_BUFFER_DESC, D3D11_INPUT_ELEMENT_DESC, D3D11_INPUT_PER_VERTEX_DATA,
    D3D11_SUBRESOURCE_DATA, ID3D11Buffer,
};
use windows::Win32::Graphics::Dxgi::Common::DXGI_FORMAT;

use super::device::D3d11Device;
use super::error::{D3d11Error, call_error};

/// A per-vertex input of `format` at `offset` in a vertex of slot 0.
pub(super) fn vertex_input(
    semantic: windows::core::PCSTR,
    offset: u32,
    format: DXGI_FORMAT,
) -> D3D11_INPUT_ELEMENT_DESC {
    D3D11_INPUT_ELEMENT_DESC {
        SemanticName: semantic,
        SemanticIndex: 0,
        Format: format,
        InputSlot: 0,
        AlignedByteOffset: offset,
        InputSlotClass: D3D11_INPUT_PER_VERTEX_DATA,
        InstanceDataStepRate: 0,
    }
}

/// A buffer of `desc` on `device`, filled with `initial` when given.
pub(super) fn new_buffer(
    device: &D3d11Device,
    desc: &D3D11_BUFFER_DESC,
    initial: Option<&D3D11_SUBRESOURCE_DATA>,
) -> Result<ID3D11Buffer, D3d11Error> {
    let mut buffer = None;
    // SAFETY: the description and initial data (of ByteWidth bytes) outlive
    // the call; the out pointer points at a live local.
    unsafe {
        device.device().CreateBuffer(
            desc,
            initial.map(|data| data as *const _),
            Some(&mut buffer),
        )
    }
    .map_err(call_error("ID3D11Device::CreateBuffer"))?;
    buffer.ok_or_else(|| D3d11Error::Call {
        call: "ID3D11Device::CreateBuffer",
        message: "returned no buffer".into(),
        code: 0,
    })
}

/// `size` as a buffer's byte width, which Direct3D 11 holds in 32 bits.
pub(super) fn byte_width(size: usize) -> Result<u32, D3d11Error> {
    u32::try_from(size).map_err(|_| {
        D3d11Error::InvalidOptions(format!("a {size}-byte buffer is too large for Direct3D 11"))
    })
}
