//! What a ray aims at on the hologram: a point of the land's surface (its (u, v)), or the base and sides under the land.
//!
//! The ray is marched through the hologram's bounds in steps of half a
//! sample and the crossing into the land refined by bisection, so a ray
//! grazing a ridge finds the ridge and not the valley behind it.
use glam::{Vec2, Vec3};

pub use crate::app::world::placement::Land;
use crate::app::world::placement::{HOLOGRAM_SIZE_M, Placement, probe_surface};
use crate::input::{Aabb, Ray};

/// Most steps one march takes (a ray crossing a 1025-sample map corner to
/// corner at half a sample a step needs about 2900; the cap keeps a frame's
/// cost bounded on bigger maps, which then march coarser).
const MAX_STEPS: usize = 4096;
/// Bisection rounds refining a crossing: 2⁻¹² of a step.
const REFINE_ROUNDS: usize = 12;

/// Where a ray meets the hologram first.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum AimedAt {
    /// The land's surface at this (u, v).
    Surface(Vec2),
    /// The base or the sides under the land's edge: where a hand takes the
    /// hologram to move it.
    Base,
}

/// How far above (positive) or below the land `point` (hologram space)
/// lies, with its (u, v): points off the footprint are measured at its
/// nearest edge.
fn above_land(point: Vec3, land: Land<'_>) -> (f32, Vec2) {
    let half = HOLOGRAM_SIZE_M / 2.0;
    let inside = Vec3::new(
        point.x.clamp(-half, half),
        point.y,
        point.z.clamp(-half, half),
    );
    let probe = probe_surface(inside, land).expect("a point clamped onto the footprint");
    (probe.height_above_surface, Vec2::new(probe.u, probe.v))
}

/// Where a ray lands on the hologram: what it meets, and where in the
/// room, with the outward normal of the surface there (for a cursor that
/// lies on it).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Landing {
    /// The land's (u, v), or the base.
    pub at: AimedAt,
    /// The point met, in the room.
    pub point: Vec3,
    /// The surface's outward unit normal there, in the room.
    pub normal: Vec3,
}

/// What `ray` (in the room) meets first on the hologram at `placement`
/// with `land` inside `bounds` (hologram space), if anything: entering
/// the bounds below the land means the base or the sides; entering above,
/// the first point where it passes into the land is the surface it aims at.
pub fn aim(ray: &Ray, placement: &Placement, land: Land<'_>, bounds: Aabb) -> Option<AimedAt> {
    land_on(ray, placement, land, bounds).map(|landing| landing.at)
}

/// Where `ray` lands on the hologram, as [`aim`] finds it, with the point
/// and the surface's normal there.
pub fn land_on(ray: &Ray, placement: &Placement, land: Land<'_>, bounds: Aabb) -> Option<Landing> {
    let local = placement.ray_to_local(ray);
    let (entry, exit) = bounds.span(&local)?;
    let at = |t: f32| local.origin + local.direction * t;
    let in_room = |point: Vec3, normal: Vec3| {
        (
            placement.to_room(point),
            placement.pose.orientation * normal,
        )
    };
    let (above, _) = above_land(at(entry), land);
    if above < 0.0 {
        let (point, normal) = in_room(at(entry), face_normal(at(entry), bounds));
        return Some(Landing {
            at: AimedAt::Base,
            point,
            normal,
        });
    }
    let heights = land.heights;
    let sample = HOLOGRAM_SIZE_M / (heights.width().max(heights.height()) - 1) as f32;
    let length = (exit - entry) * local.direction.length();
    let steps = ((length / (sample * 0.5)).ceil() as usize).clamp(1, MAX_STEPS);
    let step = (exit - entry) / steps as f32;
    let mut outside = entry;
    for i in 1..=steps {
        let t = entry + step * i as f32;
        if above_land(at(t), land).0 <= 0.0 {
            let mut inside = t;
            for _ in 0..REFINE_ROUNDS {
                let middle = (outside + inside) / 2.0;
                if above_land(at(middle), land).0 <= 0.0 {
                    inside = middle;
                } else {
                    outside = middle;
                }
            }
            let (_, uv) = above_land(at(inside), land);
            let (point, normal) = in_room(at(inside), land_normal(land, uv, sample));
            return Some(Landing {
                at: AimedAt::Surface(uv),
                point,
                normal,
            });
        }
        outside = t;
    }
    None
}

/// The land's upward unit normal at `uv` (hologram space), from its slope
/// across one `sample` (metres) either way.
fn land_normal(land: Land<'_>, uv: Vec2, sample: f32) -> Vec3 {
    let step = sample / HOLOGRAM_SIZE_M;
    let slope = |du: f32, dv: f32| {
        (land.y_m(uv.x + du, uv.y + dv) - land.y_m(uv.x - du, uv.y - dv)) / (2.0 * sample)
    };
    Vec3::new(-slope(step, 0.0), 1.0, -slope(0.0, step)).normalize()
}

/// The outward normal of the face of `bounds` nearest `point` (a point on
/// it, where a ray entered).
fn face_normal(point: Vec3, bounds: Aabb) -> Vec3 {
    let faces = [
        (point.x - bounds.min.x, -Vec3::X),
        (bounds.max.x - point.x, Vec3::X),
        (point.y - bounds.min.y, -Vec3::Y),
        (bounds.max.y - point.y, Vec3::Y),
        (point.z - bounds.min.z, -Vec3::Z),
        (bounds.max.z - point.z, Vec3::Z),
    ];
    faces
        .into_iter()
        .min_by(|a, b| a.0.abs().total_cmp(&b.0.abs()))
        .map_or(Vec3::Y, |(_, normal)| normal)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::app::world::placement::{hologram_bounds, land_y_m};
    use crate::input::Pose;
    use crate::terrain::Heightmap;
    use glam::Quat;

    fn placement() -> Placement {
        Placement::at(Pose::new(Vec3::new(0.0, 1.0, -1.0), Quat::IDENTITY))
    }

    /// A map with a ridge along v = 0.5, 0.2 high.
    fn ridge() -> Heightmap {
        let mut map = Heightmap::flat(33, 33).unwrap();
        for x in 0..33 {
            map.set(x, 16, 0.2);
        }
        map
    }

    fn bounds(map: &Heightmap) -> Aabb {
        let (low, high) = map.min_max();
        hologram_bounds(low, high)
    }

    /// A point `y` metres above the land's zero in hologram space.
    fn at(x: f32, y: f32, z: f32) -> Vec3 {
        Vec3::new(x, land_y_m(0.0) + y, z)
    }

    #[test]
    fn a_ray_from_above_meets_the_surface_where_it_points() {
        let map = Heightmap::flat(33, 33).unwrap();
        let target = placement().to_room(at(0.1, 0.0, -0.05));
        let from = target + Vec3::new(0.0, 0.5, 0.5);
        let ray = Ray::new(from, target - from);
        let Some(AimedAt::Surface(uv)) =
            aim(&ray, &placement(), Land::new(&map, 1.0), bounds(&map))
        else {
            panic!("the ray should meet the surface");
        };
        assert!(uv.abs_diff_eq(Vec2::new(0.7, 0.4), 1e-3), "{uv}");
    }

    #[test]
    fn a_ridge_in_the_way_is_what_the_ray_meets() {
        let map = ridge();
        // Aimed at the flat ground behind the ridge, from the front and low.
        let target = placement().to_room(at(0.0, 0.0, -0.15));
        let from = placement().to_room(at(0.0, 0.12, 0.6));
        let ray = Ray::new(from, target - from);
        let Some(AimedAt::Surface(uv)) =
            aim(&ray, &placement(), Land::new(&map, 1.0), bounds(&map))
        else {
            panic!("the ray should meet the ridge");
        };
        assert!((uv.y - 0.5).abs() < 0.04, "{uv}");
    }

    #[test]
    fn an_exaggerated_ridge_is_met_where_it_is_drawn() {
        let map = ridge();
        // Level with the top of the ridge drawn twice as tall (0.2 m at 1×),
        // above the ridge as it is: only the drawn ridge is in the way.
        let from = placement().to_room(at(0.0, 0.15, 0.6));
        let target = placement().to_room(at(0.0, 0.15, -0.2));
        let ray = Ray::new(from, target - from);
        let (low, high) = map.min_max();
        let tall = hologram_bounds(low * 2.0, high * 2.0);
        let Some(AimedAt::Surface(uv)) = aim(&ray, &placement(), Land::new(&map, 2.0), tall) else {
            panic!("the ray should meet the ridge drawn twice as tall");
        };
        assert!((uv.y - 0.5).abs() < 0.04, "{uv}");
        assert_eq!(aim(&ray, &placement(), Land::new(&map, 1.0), tall), None);
    }

    #[test]
    fn a_ray_entering_below_the_land_takes_the_base() {
        let map = ridge();
        let mut box_with_base = bounds(&map);
        box_with_base.min.y -= 0.03;
        let from = placement().to_room(Vec3::new(0.0, -0.015, 0.6));
        let ray = Ray::new(
            from,
            placement().to_room(Vec3::new(0.0, -0.015, 0.0)) - from,
        );
        assert_eq!(
            aim(&ray, &placement(), Land::new(&map, 1.0), box_with_base),
            Some(AimedAt::Base)
        );
    }

    #[test]
    fn a_ray_that_misses_meets_nothing() {
        let map = ridge();
        let from = placement().to_room(Vec3::new(0.0, 0.3, 0.6));
        let ray = Ray::new(from, Vec3::Y);
        assert_eq!(
            aim(&ray, &placement(), Land::new(&map, 1.0), bounds(&map)),
            None
        );
    }

    #[test]
    fn a_landing_lies_on_the_land_with_its_slope_and_on_the_base_facing_out() {
        // A slope rising along +x: 0.1 high across the map.
        let mut map = Heightmap::flat(33, 33).unwrap();
        for y in 0..33 {
            for x in 0..33 {
                map.set(x, y, 0.1 * x as f32 / 32.0);
            }
        }
        let land = Land::new(&map, 1.0);
        let target = placement().to_room(surface_point_at(land, 0.5, 0.5));
        let from = target + Vec3::new(0.0, 0.5, 0.5);
        let landing = land_on(
            &Ray::new(from, target - from),
            &placement(),
            land,
            bounds(&map),
        )
        .expect("the ray meets the slope");
        assert!(
            (landing.point - target).length() < 2e-3,
            "{:?}",
            landing.point
        );
        // Rising 0.1 m (times the map's vertical scale) over 0.5 m along x:
        // the normal leans back along -x, and stays unit length.
        let rise = land.y_m(1.0, 0.5) - land.y_m(0.0, 0.5);
        let expected = Vec3::new(-rise / HOLOGRAM_SIZE_M, 1.0, 0.0).normalize();
        assert!(
            landing.normal.abs_diff_eq(expected, 1e-3),
            "{}",
            landing.normal
        );
        // From the front, low: the base's front face, facing the ray back.
        let mut box_with_base = bounds(&map);
        box_with_base.min.y -= 0.03;
        let from = placement().to_room(Vec3::new(0.0, -0.015, 0.6));
        let ray = Ray::new(
            from,
            placement().to_room(Vec3::new(0.0, -0.015, 0.0)) - from,
        );
        let base = land_on(&ray, &placement(), land, box_with_base).unwrap();
        assert_eq!(base.at, AimedAt::Base);
        assert!(base.normal.abs_diff_eq(Vec3::Z, 1e-5), "{}", base.normal);
        assert!((base.point.z - placement().to_room(Vec3::new(0.0, 0.0, 0.25)).z).abs() < 1e-4);
    }

    fn surface_point_at(land: Land<'_>, u: f32, v: f32) -> Vec3 {
        crate::app::world::placement::surface_point(land, u, v)
    }
}
