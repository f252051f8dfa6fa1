//! How a recipe's land looks and how big it stands for: the name of the palette it is painted with, and the width it has when a recipe does not say.
use serde::{Deserialize, Serialize};

use super::recipe_error::RecipeError;

/// How wide a recipe's land is when it does not say, km.
pub const DEFAULT_ACROSS_KM: f32 = 10.0;
/// The narrowest and widest land a recipe may say it is, km: a garden
/// bed to a continent.
pub const ACROSS_KM_RANGE: (f32, f32) = (0.01, 10_000.0);

/// The elevation palettes a recipe may name: the colours are fixed by
/// height, the same for every landscape that names the palette
/// (`render::palette` holds them).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum PaletteName {
    /// Green lowlands, tan uplands, rock and snow on the peaks.
    #[default]
    Temperate,
    /// Pale sand, orange and red rock: canyon country.
    Desert,
}

impl PaletteName {
    /// Whether it is the palette a recipe gets without naming one.
    pub fn is_default(&self) -> bool {
        *self == PaletteName::default()
    }
}

/// Whether `across` is a width a recipe may give its land, km.
pub(super) fn check_across_km(across: f32) -> Result<(), RecipeError> {
    if across.is_finite() && (ACROSS_KM_RANGE.0..=ACROSS_KM_RANGE.1).contains(&across) {
        Ok(())
    } else {
        Err(RecipeError::out_of_range(
            "across_km",
            f64::from(across),
            "0.01 to 10000 (km)",
        ))
    }
}
