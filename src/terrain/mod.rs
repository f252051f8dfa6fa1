//! The terrain engine: heightmaps and the algorithms that shape them; pure Rust, no GPU or XR.
pub mod bsp;
pub mod diamond_square;
pub mod erosion;
pub mod error;
pub mod export;
pub mod fault;
pub mod filter;
pub mod fixed;
pub mod generator;
pub mod heightmap;
pub(crate) mod lanes;
pub mod metrics;
pub mod normals;
pub mod raster;
pub mod recipe;
pub mod recipe_growth;
pub mod reference;
pub mod rng;
pub mod sliced;
pub mod tiles;

pub use diamond_square::DiamondSquareGrowth;
pub use erosion::{HydraulicErosion, ThermalErosion};
pub use error::TerrainError;
pub use filter::{Smoothing, SmoothingPass};
pub use generator::{Algorithm, Generator, GeneratorConfig};
pub use heightmap::Heightmap;
pub use sliced::Sliced;
