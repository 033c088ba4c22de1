//! A small stroke font for the digit printed on mission cards.
//!
//! Each digit is a few polylines in a unit box (x 0..1 left to right, y 0..1 top to bottom),
//! drawn with a round pen; ink coverage is computed analytically from the distance to the
//! strokes, so it is antialiased at any scale.

const ZERO: &[&[[f64; 2]]] = &[&[
    [0.5, 0.0],
    [0.88, 0.15],
    [1.0, 0.5],
    [0.88, 0.85],
    [0.5, 1.0],
    [0.12, 0.85],
    [0.0, 0.5],
    [0.12, 0.15],
    [0.5, 0.0],
]];
const ONE: &[&[[f64; 2]]] = &[
    &[[0.2, 0.22], [0.55, 0.0], [0.55, 1.0]],
    &[[0.2, 1.0], [0.9, 1.0]],
];
const TWO: &[&[[f64; 2]]] = &[&[
    [0.05, 0.2],
    [0.3, 0.02],
    [0.7, 0.02],
    [0.95, 0.25],
    [0.88, 0.47],
    [0.05, 1.0],
    [0.98, 1.0],
]];
const THREE: &[&[[f64; 2]]] = &[&[
    [0.05, 0.1],
    [0.5, 0.0],
    [0.9, 0.14],
    [0.9, 0.36],
    [0.42, 0.5],
    [0.95, 0.65],
    [0.95, 0.86],
    [0.5, 1.0],
    [0.05, 0.9],
]];
const FOUR: &[&[[f64; 2]]] = &[&[[0.72, 1.0], [0.72, 0.0], [0.0, 0.7], [1.0, 0.7]]];
const FIVE: &[&[[f64; 2]]] = &[&[
    [0.92, 0.0],
    [0.15, 0.0],
    [0.08, 0.46],
    [0.55, 0.38],
    [0.95, 0.58],
    [0.9, 0.9],
    [0.5, 1.0],
    [0.05, 0.9],
]];
const SIX: &[&[[f64; 2]]] = &[&[
    [0.85, 0.05],
    [0.45, 0.0],
    [0.1, 0.3],
    [0.04, 0.7],
    [0.3, 1.0],
    [0.75, 0.98],
    [0.96, 0.75],
    [0.8, 0.5],
    [0.4, 0.44],
    [0.06, 0.64],
]];
const SEVEN: &[&[[f64; 2]]] = &[&[[0.0, 0.0], [1.0, 0.0], [0.35, 1.0]]];
const EIGHT: &[&[[f64; 2]]] = &[
    &[
        [0.5, 0.0],
        [0.85, 0.12],
        [0.85, 0.35],
        [0.5, 0.48],
        [0.15, 0.35],
        [0.15, 0.12],
        [0.5, 0.0],
    ],
    &[
        [0.5, 0.48],
        [0.93, 0.65],
        [0.93, 0.88],
        [0.5, 1.0],
        [0.07, 0.88],
        [0.07, 0.65],
        [0.5, 0.48],
    ],
];

/// The strokes of `digit` (0..=9); `flip` is set for 9, drawn as a 6 turned half-way round.
fn strokes(digit: u8) -> (&'static [&'static [[f64; 2]]], bool) {
    match digit {
        0 => (ZERO, false),
        1 => (ONE, false),
        2 => (TWO, false),
        3 => (THREE, false),
        4 => (FOUR, false),
        5 => (FIVE, false),
        6 => (SIX, false),
        7 => (SEVEN, false),
        8 => (EIGHT, false),
        _ => (SIX, true),
    }
}

fn segment_distance(p: [f64; 2], a: [f64; 2], b: [f64; 2]) -> f64 {
    let (ax, ay) = (b[0] - a[0], b[1] - a[1]);
    let (px, py) = (p[0] - a[0], p[1] - a[1]);
    let t = ((px * ax + py * ay) / (ax * ax + ay * ay).max(1e-12)).clamp(0.0, 1.0);
    let (dx, dy) = (px - t * ax, py - t * ay);
    (dx * dx + dy * dy).sqrt()
}

/// Ink coverage (0..=1) of `digit` at `p`, in a box `width` × `height` from its top-left,
/// with a pen `pen` wide; `aa` is the antialiasing width (one pixel), all in the same units.
pub(crate) fn digit_ink(digit: u8, p: [f64; 2], width: f64, height: f64, pen: f64, aa: f64) -> f64 {
    let (lines, flip) = strokes(digit);
    let margin = pen + aa;
    if p[0] < -margin || p[1] < -margin || p[0] > width + margin || p[1] > height + margin {
        return 0.0;
    }
    let mut q = [p[0] / width, p[1] / height];
    if flip {
        q = [1.0 - q[0], 1.0 - q[1]];
    }
    let mut best = f64::INFINITY;
    for line in lines {
        for w in line.windows(2) {
            // Distances in the box's own units: scale the unit-box segment back.
            let a = [w[0][0] * width, w[0][1] * height];
            let b = [w[1][0] * width, w[1][1] * height];
            let pp = [q[0] * width, q[1] * height];
            best = best.min(segment_distance(pp, a, b));
        }
    }
    let half = pen * 0.5;
    (0.5 - (best - half) / aa.max(1e-6)).clamp(0.0, 1.0)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn digits_have_ink_on_their_strokes_and_none_far_away() {
        for d in 0..=9u8 {
            let inked = (0..20)
                .flat_map(|i| (0..30).map(move |j| [i as f64 * 0.05, j as f64 * 0.05]))
                .filter(|&p| digit_ink(d, p, 1.0, 1.5, 0.15, 0.02) > 0.5)
                .count();
            assert!(inked > 20 && inked < 400, "{d}: {inked}");
            assert_eq!(digit_ink(d, [5.0, 5.0], 1.0, 1.5, 0.15, 0.02), 0.0);
        }
        // 1 and 7 differ.
        assert!(digit_ink(7, [0.1, 0.0], 1.0, 1.0, 0.1, 0.01) > 0.9);
        assert!(digit_ink(1, [0.1, 0.0], 1.0, 1.0, 0.1, 0.01) < 0.1);
    }
}
