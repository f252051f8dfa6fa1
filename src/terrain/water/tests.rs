use super::*;
use crate::render::alloc_count::allocations_during;
use crate::terrain::diamond_square::diamond_square;

/// A layer with the default parameters but `evaporation`.
fn layer(w: usize, h: usize, evaporation: f32) -> WaterLayer {
    let params = WaterParams {
        evaporation,
        ..WaterParams::default()
    };
    WaterLayer::new(w, h, &params).unwrap()
}

fn total(cells: &[f32]) -> f64 {
    cells.iter().map(|&v| f64::from(v)).sum()
}

/// Σ depth over the cells `keep` selects.
fn water_where(water: &WaterLayer, keep: impl Fn(usize) -> bool) -> f64 {
    (0..water.depth().len())
        .filter(|&i| keep(i))
        .map(|i| f64::from(water.depth()[i]))
        .sum()
}

/// A round bowl of radius 14 cells (floor 0 at the centre, 0.06 at its
/// edge) inside a wall 0.1 high, with a notch 3 cells wide to the east
/// 0.08 high, on a plain at 0.02: the rim's lowest point is the notch, at
/// 0.08. Returns the ground, which cells are inside, and the rim's height.
fn bowl(n: usize) -> (Vec<f32>, Vec<bool>, f32) {
    let c = (n / 2) as f32;
    let mut ground = vec![0.0; n * n];
    let mut inside = vec![false; n * n];
    for y in 0..n {
        for x in 0..n {
            let (dx, dy) = (x as f32 - c, y as f32 - c);
            let r = (dx * dx + dy * dy).sqrt();
            let i = y * n + x;
            inside[i] = r <= 14.0;
            ground[i] = if inside[i] {
                0.06 * (r / 14.0) * (r / 14.0)
            } else if r <= 16.0 && dx > 0.0 && dy.abs() <= 1.0 {
                0.08
            } else if r <= 16.0 {
                0.1
            } else {
                0.02
            };
        }
    }
    (ground, inside, 0.08)
}

/// The lowest and highest water surface over the wet cells `inside`.
fn surface_range(water: &WaterLayer, ground: &[f32], inside: &[bool]) -> (f32, f32) {
    (0..ground.len())
        .filter(|&i| inside[i] && water.depth()[i] > 1e-4)
        .map(|i| ground[i] + water.depth()[i])
        .fold((f32::INFINITY, f32::NEG_INFINITY), |(lo, hi), v| {
            (lo.min(v), hi.max(v))
        })
}

#[test]
fn rain_fills_a_bowl_to_its_lowest_rim_and_spills_over() {
    let n = 41;
    let (ground, inside, rim) = bowl(n);
    let mut water = layer(n, n, 0.0);
    let mut carved = vec![0.0; n * n];
    let rate = 0.01;
    let rain = WaterSource::RainDisc {
        centre: [0.5, 0.5],
        radius: 0.15,
        rate,
    };
    water.add_source(rain, Some(40.0)).unwrap();
    let raining_steps = (40.0 / water.time_step()).round() as usize;
    // While it rains on a full bowl the surface stands above the rim by
    // the head that carries the rain over it. A cell's pipes pass at most
    // its depth a step (Mei's scaling), so the 3 notch cells carry the
    // inflow Q (depth × cells per second) only once their water stands
    // Q · Δt / 3 above the rim; the surface also slopes down across the
    // lake to the notch, against friction, by about as much again. So the
    // tolerance is twice that head (0.0054 here, 7 % of the rim's height;
    // the highest surface measured is 0.0043 above the rim).
    let rained_cells = (0..n * n)
        .filter(|&i| {
            let (dx, dy) = ((i % n) as f32 - 20.0, (i / n) as f32 - 20.0);
            dx * dx + dy * dy <= 6.0 * 6.0
        })
        .count();
    let head = rate * rained_cells as f32 * water.time_step() / 3.0;
    let tolerance = 2.0 * head;
    assert!(tolerance < 0.006, "a small tolerance: {tolerance}");
    let mut highest = f32::NEG_INFINITY;
    for _ in 0..raining_steps {
        water.step(&ground, &mut carved);
        highest = highest.max(surface_range(&water, &ground, &inside).1);
    }
    assert!(
        highest <= rim + tolerance,
        "{highest} vs {rim} + {tolerance}"
    );
    assert!(highest > rim, "the bowl filled to its rim while it rained");
    let spilled = water.ledger().drained;
    assert!(
        spilled > 0.1 * water.ledger().rained,
        "it spilled: {spilled}"
    );
    // Rain stopped: the lake drains over the notch down to the rim, flat.
    water.steps(4000, &ground, &mut carved);
    let (lo, hi) = surface_range(&water, &ground, &inside);
    assert!(hi <= rim + 1e-4 && lo >= rim - 1e-4, "{lo}..{hi} vs {rim}");
    let basin: f64 = (0..n * n)
        .filter(|&i| inside[i])
        .map(|i| f64::from((rim - ground[i]).max(0.0)))
        .sum();
    let lake = water_where(&water, |i| inside[i]);
    assert!((lake - basin).abs() < 0.01 * basin, "{lake} vs {basin}");
}

/// A slope rising east from 0.05 at x = 12 to 0.25 at the east edge, above
/// a flat foot (x < 12, height 0) ringed on the map's edge by a lip 0.05
/// high: the foot holds water up to 0.05.
fn slope_and_foot(w: usize, h: usize) -> Vec<f32> {
    (0..w * h)
        .map(|i| {
            let (x, y) = (i % w, i / w);
            if x >= 12 {
                0.05 + 0.2 * (x - 12) as f32 / (w - 13) as f32
            } else if x == 0 || y == 0 || y == h - 1 {
                0.05
            } else {
                0.0
            }
        })
        .collect()
}

#[test]
fn rain_on_a_slope_ends_at_its_foot_or_off_the_edge() {
    let (w, h) = (40, 24);
    let ground = slope_and_foot(w, h);
    let mut water = layer(w, h, 0.02);
    let mut carved = vec![0.0; w * h];
    // About 9 units of rain; the foot holds 12.
    let upslope = WaterSource::RainDisc {
        centre: [0.85, 0.5],
        radius: 0.2,
        rate: 0.05,
    };
    water.add_source(upslope, Some(1.0)).unwrap();
    water.steps(150, &ground, &mut carved);
    let on_slope = |i: usize| i % w >= 12;
    assert!(
        water_where(&water, on_slope) > 0.0,
        "it rained on the slope"
    );
    water.steps(1000, &ground, &mut carved);
    let ledger = water.ledger();
    let slope = water_where(&water, on_slope);
    let foot = water_where(&water, |i| i % w < 12);
    assert!(slope < 1e-3 * ledger.rained, "{slope} left on the slope");
    // Some ran off the slope's open sides; most ran down into the foot.
    assert!(foot > 0.5 * ledger.rained, "{foot} of {}", ledger.rained);
    assert!(foot + ledger.drained > 0.99 * (ledger.rained - ledger.evaporated));
}

/// A rough 48×40 map of heights in [0, 0.25].
fn rough(w: usize, h: usize, seed: u64) -> Vec<f32> {
    let map = diamond_square(w, h, 1.0, seed).unwrap();
    let (lo, hi) = map.min_max();
    map.cells()
        .iter()
        .map(|&v| 0.25 * (v - lo) / (hi - lo))
        .collect()
}

#[test]
fn the_ledger_balances_over_a_long_run() {
    // Rain and springs are counted from the f32 depths before and after,
    // evaporation and the sea likewise, so the only imbalance is f32
    // rounding inside the pipes' depth update (each step rounds each
    // cell's new depth once, about 6e-8 of it, and the errors mostly
    // cancel): measured about 1e-8 of the water that went through. 1e-6
    // of it is allowed; a term missing from the ledger (an edge's drain,
    // a source's step) would be off by 1e-3 or more.
    let (w, h) = (48, 40);
    let ground = rough(w, h, 5);
    let mut water = layer(w, h, 0.05);
    let mut carved = vec![0.0; w * h];
    water.set_sea_level(Some(0.03)).unwrap();
    let disc = WaterSource::RainDisc {
        centre: [0.3, 0.6],
        radius: 0.2,
        rate: 0.4,
    };
    water.add_source(disc, Some(8.0)).unwrap();
    let spring = WaterSource::Spring {
        at: [0.8, 0.2],
        rate: 3.0,
    };
    let spring = water.add_source(spring, None).unwrap();
    let mut checked = 0;
    for step in 0..6000 {
        if step == 1000 {
            let everywhere = WaterSource::RainEverywhere { rate: 0.1 };
            water.add_source(everywhere, Some(2.0)).unwrap();
        }
        if step == 4000 {
            assert!(water.stop_source(spring));
        }
        water.step(&ground, &mut carved);
        if step % 500 == 499 {
            let ledger = water.ledger();
            let through = ledger.rained + ledger.sea.abs();
            let imbalance = ledger.imbalance();
            assert!(imbalance.abs() <= 1e-6 * through, "{step}: {ledger:?}");
            checked += 1;
        }
    }
    let ledger = water.ledger();
    assert_eq!(checked, 12);
    assert!(ledger.drained > 0.0 && ledger.evaporated > 0.0 && ledger.sea != 0.0);
    assert!(ledger.on_map > 0.0 && ledger.rained > ledger.on_map);
    assert_eq!(water.sources().count(), 0, "every source stopped");
}

#[test]
fn the_sea_holds_the_cells_below_it_at_its_level_exactly() {
    let (w, h) = (48, 40);
    let ground = rough(w, h, 8);
    let sea = 0.08;
    let mut water = layer(w, h, 0.02);
    let mut carved = vec![0.0; w * h];
    water.set_sea_level(Some(sea)).unwrap();
    let everywhere = WaterSource::RainEverywhere { rate: 0.3 };
    water.add_source(everywhere, Some(1.0)).unwrap();
    let below: Vec<usize> = (0..w * h).filter(|&i| ground[i] < sea).collect();
    assert!(below.len() > 100 && below.len() < w * h - 100);
    for _ in 0..400 {
        water.step(&ground, &mut carved);
        for &i in &below {
            assert_eq!(ground[i] + water.depth()[i], sea, "cell {i}");
        }
    }
    assert!(water.ledger().imbalance().abs() < 1e-6 * water.ledger().rained);
    water.set_sea_level(None).unwrap();
    water.step(&ground, &mut carved);
    assert!(below.iter().any(|&i| ground[i] + water.depth()[i] != sea));
}

#[test]
fn carving_cuts_a_channel_builds_a_fan_and_conserves_sediment() {
    let (w, h) = (48, 32);
    // A slope rising east, with a shallow groove along y = 16 that
    // gathers the rain, above the flat, lipped foot.
    let start: Vec<f32> = slope_and_foot(w, h)
        .iter()
        .enumerate()
        .map(|(i, &b)| {
            let (x, y) = (i % w, i / w);
            let across = (y as f32 - 16.0).abs() / 4.0;
            if x >= 12 {
                b - 0.01 * (1.0 - across).max(0.0)
            } else {
                b
            }
        })
        .collect();
    let mut water = layer(w, h, 0.02);
    let mut carved = vec![0.0; w * h];
    water.set_carving(true, &mut carved);
    let upslope = WaterSource::RainDisc {
        centre: [0.9, 0.5],
        radius: 0.15,
        rate: 0.3,
    };
    water.add_source(upslope, None).unwrap();
    let mut ground = start.clone();
    for _ in 0..1500 {
        // As the app does each frame: the ground is the start plus the
        // carving so far.
        for ((g, s), c) in ground.iter_mut().zip(&start).zip(&carved) {
            *g = s + c;
        }
        water.step(&ground, &mut carved);
    }
    let channel = |i: usize| (16..40).contains(&(i % w)) && (i / w).abs_diff(16) <= 2;
    let foot = |i: usize| i % w < 12;
    let mean = |keep: &dyn Fn(usize) -> bool| {
        let cells: Vec<f32> = (0..w * h).filter(|&i| keep(i)).map(|i| carved[i]).collect();
        total(&cells) / cells.len() as f64
    };
    let (cut, fan) = (mean(&channel), mean(&foot));
    let ledger = water.sediment_ledger();
    // Measured: the channel 0.049 lower on average, the foot 0.091 higher.
    assert!(cut < -0.01, "the channel is lowered: {cut}");
    assert!(fan > 0.01, "a fan is laid down below it: {fan}");
    // Mass: the ground's change and the sediment in suspension sum to
    // zero, up to f32 rounding of each cell's running sums (1e-6 of what
    // was moved).
    let moved = ledger.eroded + ledger.deposited;
    let suspended = ledger.suspended;
    assert!(suspended > 0.0);
    assert!((total(&carved) + suspended).abs() < 1e-6 * moved);
    assert!((ledger.eroded - ledger.deposited - suspended).abs() < 1e-6 * moved);
    // Turning carving off lays the suspended sediment down.
    water.set_carving(false, &mut carved);
    assert_eq!(water.sediment_ledger().suspended, 0.0);
    assert!(total(&carved).abs() < 1e-6 * moved, "{}", total(&carved));
}

/// Two layers with every source, the sea and carving on a rough map.
fn busy_layer(w: usize, h: usize, carved: &mut [f32]) -> WaterLayer {
    let mut water = layer(w, h, 0.05);
    water.set_sea_level(Some(0.04)).unwrap();
    water.set_carving(true, carved);
    let sources = [
        WaterSource::RainDisc {
            centre: [0.4, 0.5],
            radius: 0.25,
            rate: 0.3,
        },
        WaterSource::RainEverywhere { rate: 0.05 },
        WaterSource::Spring {
            at: [0.9, 0.1],
            rate: 2.0,
        },
    ];
    for (k, source) in sources.into_iter().enumerate() {
        water.add_source(source, Some(1.0 + k as f32)).unwrap();
    }
    water
}

#[test]
fn stepping_is_deterministic_and_batching_changes_nothing() {
    let (w, h) = (40, 30);
    let ground = rough(w, h, 3);
    let (mut carved_a, mut carved_b) = (vec![0.0; w * h], vec![0.0; w * h]);
    let mut a = busy_layer(w, h, &mut carved_a);
    let mut b = busy_layer(w, h, &mut carved_b);
    assert_eq!(a.checksum(), b.checksum());
    for _ in 0..300 {
        a.step(&ground, &mut carved_a);
    }
    for _ in 0..100 {
        b.steps(3, &ground, &mut carved_b);
    }
    let bits = |v: &[f32]| v.iter().map(|x| x.to_bits()).collect::<Vec<_>>();
    assert_eq!(bits(a.depth()), bits(b.depth()));
    assert_eq!(bits(a.sediment()), bits(b.sediment()));
    assert_eq!(bits(&carved_a), bits(&carved_b));
    assert_eq!(a.checksum(), b.checksum());
    assert_eq!(a.ledger(), b.ledger());
    assert!(a.depth().iter().any(|&d| d > 0.0) && carved_a.iter().any(|&c| c != 0.0));
    // The checksum sees a change of one step.
    b.step(&ground, &mut carved_b);
    assert_ne!(a.checksum(), b.checksum());
}

#[test]
fn a_step_allocates_nothing() {
    let (w, h) = (40, 30);
    let ground = rough(w, h, 4);
    let mut carved = vec![0.0; w * h];
    let mut water = busy_layer(w, h, &mut carved);
    let spring = WaterSource::Spring {
        at: [0.1, 0.9],
        rate: 1.0,
    };
    water.add_source(spring, None).unwrap();
    let allocations = allocations_during(|| water.steps(200, &ground, &mut carved));
    assert_eq!(allocations, 0);
    assert!(
        water.sources().count() < 4,
        "sources ran out during the steps"
    );
}

#[test]
fn sources_stop_when_their_time_is_up_or_when_told() {
    let mut water = layer(8, 8, 0.0);
    let mut carved = vec![0.0; 64];
    let ground = vec![0.0; 64];
    let dt = water.time_step();
    let spring = WaterSource::Spring {
        at: [0.5, 0.5],
        rate: 1.0,
    };
    let timed = water.add_source(spring, Some(10.0 * dt)).unwrap();
    let endless = water.add_source(spring, None).unwrap();
    assert_eq!(water.sources().next(), Some((timed, spring, Some(10))));
    water.steps(10, &ground, &mut carved);
    assert_eq!(water.sources().map(|s| s.0).collect::<Vec<_>>(), [endless]);
    assert!(water.stop_source(endless) && !water.stop_source(timed));
    let rained = water.ledger().rained;
    water.steps(5, &ground, &mut carved);
    assert_eq!(water.ledger().rained, rained);
    // 20 steps of the spring, the cell's depth rounded once a step.
    let expected = 20.0 * f64::from(dt);
    assert!((rained - expected).abs() < 1e-6 * expected, "{rained}");
}

#[test]
fn out_of_range_values_are_one_line_errors() {
    let d = WaterParams::default();
    let bad_params = [
        (
            WaterParams {
                cell_size: 0.0,
                ..d
            },
            "cell_size",
        ),
        (
            WaterParams {
                gravity: f32::NAN,
                ..d
            },
            "gravity",
        ),
        (
            WaterParams {
                friction: -1.0,
                ..d
            },
            "friction",
        ),
        (
            WaterParams {
                evaporation: 2.0,
                ..d
            },
            "evaporation",
        ),
        (
            WaterParams {
                capacity: -0.1,
                ..d
            },
            "capacity",
        ),
    ];
    for (params, name) in bad_params {
        let message = WaterLayer::new(4, 4, &params).unwrap_err().to_string();
        assert!(
            message.starts_with(name) && !message.contains('\n'),
            "{message}"
        );
    }
    assert!(WaterLayer::new(1, 4, &d).is_err());
    let mut water = layer(4, 4, 0.0);
    let bad_sources = [
        (WaterSource::RainEverywhere { rate: -1.0 }, None, "rate"),
        (
            WaterSource::Spring {
                at: [1.5, 0.0],
                rate: 1.0,
            },
            None,
            "u",
        ),
        (
            WaterSource::RainDisc {
                centre: [0.5, 0.5],
                radius: 2.0,
                rate: 1.0,
            },
            None,
            "radius",
        ),
        (
            WaterSource::RainEverywhere { rate: 1.0 },
            Some(0.0),
            "seconds",
        ),
        (
            WaterSource::RainEverywhere { rate: 1.0 },
            Some(1e9),
            "seconds",
        ),
    ];
    for (source, seconds, name) in bad_sources {
        let message = water.add_source(source, seconds).unwrap_err().to_string();
        assert!(message.starts_with(name), "{message}");
    }
    assert!(water.set_sea_level(Some(f32::INFINITY)).is_err());
    let rain = WaterSource::RainEverywhere { rate: 1.0 };
    for _ in 0..MAX_SOURCES {
        water.add_source(rain, None).unwrap();
    }
    assert!(water.add_source(rain, None).is_err());
}
