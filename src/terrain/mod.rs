//! The terrain engine: heightmaps and the algorithms that shape them; pure Rust, no GPU or XR.
pub mod diamond_square;
pub mod erosion;
pub mod error;
pub mod export;
pub mod filter;
pub mod heightmap;
pub mod metrics;
pub mod normals;
pub mod rng;

pub use error::TerrainError;
pub use heightmap::Heightmap;
