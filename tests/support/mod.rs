//! Helpers shared by the integration tests.

pub mod ci;
pub mod monado;
pub mod monado_remote;
pub mod process;
pub mod unresponsive;
