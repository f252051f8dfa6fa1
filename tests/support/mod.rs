//! Helpers shared by the integration tests.

pub mod monado;
pub mod monado_remote;
