//! Quality metrics of a heightmap: extremes, mean, Olsen's erosion score and the hypsometric integral.
use serde::Serialize;

use super::heightmap::Heightmap;

/// Summary numbers of one heightmap, as `holoterrain generate --stats` prints them.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct Metrics {
    /// Lowest height.
    pub min: f64,
    /// Highest height.
    pub max: f64,
    /// Mean height over all cells.
    pub mean: f64,
    /// Olsen's erosion score σ(s) / mean(s), where a cell's slope s is its
    /// largest absolute height difference to its (up to 4) neighbours and σ
    /// is the population standard deviation; 0 when every s is 0.
    pub erosion_score: f64,
    /// (mean − min) / (max − min): the share of the relief lying below the
    /// mean surface; defined as 0 for a flat map.
    pub hypsometric_integral: f64,
}

/// Computes the [`Metrics`] of `map`, accumulating in f64.
pub fn metrics(map: &Heightmap) -> Metrics {
    let cells = map.cells();
    let count = cells.len() as f64;
    let (min, max) = map.min_max();
    let (min, max) = (f64::from(min), f64::from(max));
    let mean = cells.iter().map(|&h| f64::from(h)).sum::<f64>() / count;

    let mut slope_sum = 0.0f64;
    let mut slope_sq_sum = 0.0f64;
    for_each_slope(map, |s| {
        let s = f64::from(s);
        slope_sum += s;
        slope_sq_sum += s * s;
    });
    let slope_mean = slope_sum / count;
    let erosion_score = if slope_mean > 0.0 {
        let variance = (slope_sq_sum / count - slope_mean * slope_mean).max(0.0);
        variance.sqrt() / slope_mean
    } else {
        0.0
    };
    let hypsometric_integral = if max > min {
        (mean - min) / (max - min)
    } else {
        0.0
    };
    Metrics {
        min,
        max,
        mean,
        erosion_score,
        hypsometric_integral,
    }
}

/// Calls `visit` with every cell's slope s = max |Δh| to its 4-neighbours
/// (only those inside the map), in row-major order.
pub fn for_each_slope(map: &Heightmap, mut visit: impl FnMut(f32)) {
    let width = map.width();
    let height = map.height();
    let cells = map.cells();
    for y in 0..height {
        let row = &cells[y * width..(y + 1) * width];
        let above = (y > 0).then(|| &cells[(y - 1) * width..y * width]);
        let below = (y + 1 < height).then(|| &cells[(y + 1) * width..(y + 2) * width]);
        for x in 0..width {
            let h = row[x];
            let mut s = 0.0f32;
            if x > 0 {
                s = s.max((h - row[x - 1]).abs());
            }
            if x + 1 < width {
                s = s.max((h - row[x + 1]).abs());
            }
            if let Some(above) = above {
                s = s.max((h - above[x]).abs());
            }
            if let Some(below) = below {
                s = s.max((h - below[x]).abs());
            }
            visit(s);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn close(a: f64, b: f64) -> bool {
        (a - b).abs() < 1e-9
    }

    #[test]
    fn a_plane_ramp_has_erosion_score_zero() {
        // h = x + 2y: every cell has a vertical neighbour 2 away and none
        // farther, so s = 2 everywhere and σ(s) = 0.
        let cells = (0..6)
            .flat_map(|y| (0..5).map(move |x| (x + 2 * y) as f32))
            .collect();
        let map = Heightmap::from_cells(5, 6, cells).unwrap();
        let m = metrics(&map);
        assert_eq!(m.erosion_score, 0.0);
        assert_eq!((m.min, m.max), (0.0, 14.0));
        assert!(close(m.mean, 7.0));
        assert!(close(m.hypsometric_integral, 0.5));
    }

    #[test]
    fn a_3x3_spike_matches_the_hand_computation() {
        // Heights 0 except 4 at the centre. s: corners 0 (their neighbours
        // are edge cells at 0), the four edge cells and the centre 4.
        // mean(s) = 20/9, E[s²] = 80/9, σ² = 80/9 − 400/81 = 320/81,
        // σ/mean = (√320 / 9) / (20 / 9) = √0.8.
        // mean height = 4/9, hypsometric integral = (4/9) / 4 = 1/9.
        let mut map = Heightmap::flat(3, 3).unwrap();
        map.set(1, 1, 4.0);
        let m = metrics(&map);
        assert!(close(m.erosion_score, 0.8f64.sqrt()), "{}", m.erosion_score);
        assert!(close(m.mean, 4.0 / 9.0));
        assert!(close(m.hypsometric_integral, 1.0 / 9.0));
        let mut slopes = Vec::new();
        for_each_slope(&map, |s| slopes.push(s));
        assert_eq!(slopes, [0.0, 4.0, 0.0, 4.0, 4.0, 4.0, 0.0, 4.0, 0.0]);
    }

    #[test]
    fn a_flat_map_has_zero_score_and_zero_integral() {
        let map = Heightmap::from_cells(4, 3, vec![2.5; 12]).unwrap();
        let m = metrics(&map);
        assert_eq!(m.erosion_score, 0.0);
        assert_eq!(m.hypsometric_integral, 0.0);
        assert_eq!((m.min, m.max, m.mean), (2.5, 2.5, 2.5));
    }

    #[test]
    fn metrics_serialise_with_the_documented_names() {
        let map = Heightmap::flat(2, 2).unwrap();
        let json = serde_json::to_value(metrics(&map)).unwrap();
        let mut keys: Vec<_> = json.as_object().unwrap().keys().cloned().collect();
        keys.sort();
        assert_eq!(
            keys,
            [
                "erosion_score",
                "hypsometric_integral",
                "max",
                "mean",
                "min"
            ]
        );
    }
}
