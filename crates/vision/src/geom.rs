//! Small plane-geometry helpers in plain Rust: four-point homographies, quads, lines.
//!
//! These run in the inner loops of candidate scoring and refinement, where a call into OpenCV
//! per point would cost more than the arithmetic.

use crate::rectify::{apply_homography, Homography, Quad};

/// The homography taking `from[i]` to `to[i]` for four point pairs (the DLT with h₃₃ = 1,
/// solved by Gaussian elimination with partial pivoting); `None` when degenerate.
pub fn homography_4(from: &Quad, to: &Quad) -> Option<Homography> {
    let mut a = [[0.0f64; 9]; 8];
    for i in 0..4 {
        let (x, y) = (f64::from(from[i][0]), f64::from(from[i][1]));
        let (u, v) = (f64::from(to[i][0]), f64::from(to[i][1]));
        a[2 * i] = [x, y, 1.0, 0.0, 0.0, 0.0, -u * x, -u * y, u];
        a[2 * i + 1] = [0.0, 0.0, 0.0, x, y, 1.0, -v * x, -v * y, v];
    }
    for col in 0..8 {
        let pivot = (col..8).max_by(|&p, &q| a[p][col].abs().total_cmp(&a[q][col].abs()))?;
        if a[pivot][col].abs() < 1e-12 {
            return None;
        }
        a.swap(col, pivot);
        for row in 0..8 {
            if row != col {
                let f = a[row][col] / a[col][col];
                if f != 0.0 {
                    let pivot_row = a[col];
                    for (v, p) in a[row].iter_mut().zip(pivot_row).skip(col) {
                        *v -= f * p;
                    }
                }
            }
        }
    }
    let h: Vec<f64> = (0..8).map(|i| a[i][8] / a[i][i]).collect();
    let m = [[h[0], h[1], h[2]], [h[3], h[4], h[5]], [h[6], h[7], 1.0]];
    m.iter().flatten().all(|v| v.is_finite()).then_some(m)
}

/// The inverse of a homography (by cofactors); `None` when singular.
pub fn invert(m: &Homography) -> Option<Homography> {
    let c =
        |r0: usize, r1: usize, c0: usize, c1: usize| m[r0][c0] * m[r1][c1] - m[r0][c1] * m[r1][c0];
    let adj = [
        [c(1, 2, 1, 2), -c(0, 2, 1, 2), c(0, 1, 1, 2)],
        [-c(1, 2, 0, 2), c(0, 2, 0, 2), -c(0, 1, 0, 2)],
        [c(1, 2, 0, 1), -c(0, 2, 0, 1), c(0, 1, 0, 1)],
    ];
    let det = m[0][0] * adj[0][0] + m[0][1] * adj[1][0] + m[0][2] * adj[2][0];
    (det.abs() > 1e-15).then(|| adj.map(|row| row.map(|v| v / det)))
}

/// The axis-aligned box `[x0, x1] × [y0, y1]` as a clockwise quad from its top-left corner.
pub fn rect(x0: f32, y0: f32, x1: f32, y1: f32) -> Quad {
    [[x0, y0], [x1, y0], [x1, y1], [x0, y1]]
}

/// Maps every corner of `q` through `h`; `None` if one goes to infinity.
pub fn map_quad(h: &Homography, q: &Quad) -> Option<Quad> {
    let mut out = [[0.0; 2]; 4];
    for (o, &p) in out.iter_mut().zip(q) {
        *o = apply_homography(h, p)?;
    }
    Some(out)
}

/// Signed area (positive when clockwise on screen, y pointing down).
pub fn signed_area(q: &Quad) -> f32 {
    (0..4)
        .map(|i| {
            let (a, b) = (q[i], q[(i + 1) % 4]);
            a[0] * b[1] - b[0] * a[1]
        })
        .sum::<f32>()
        / 2.0
}

/// The centre of a quad (mean of its corners).
pub fn centre(q: &Quad) -> [f32; 2] {
    let s = q.iter().fold([0.0, 0.0], |s, p| [s[0] + p[0], s[1] + p[1]]);
    [s[0] / 4.0, s[1] / 4.0]
}

/// Whether `p` lies inside the convex clockwise quad `q`.
pub fn inside(q: &Quad, p: [f32; 2]) -> bool {
    (0..4).all(|i| {
        let (a, b) = (q[i], q[(i + 1) % 4]);
        (b[0] - a[0]) * (p[1] - a[1]) - (b[1] - a[1]) * (p[0] - a[0]) >= 0.0
    })
}

/// Distance between two points.
pub fn dist(a: [f32; 2], b: [f32; 2]) -> f32 {
    (a[0] - b[0]).hypot(a[1] - b[1])
}

/// `v` rounded half away from zero, as `f32::round` does, without its libm call (the build
/// targets x86-64 without SSE4.1, where `round` is a function call: in the seed search's
/// inner loops it cost more than the arithmetic). `v` within ±2³¹.
pub fn round_to_i32(v: f32) -> i32 {
    let t = v as i32;
    // `v - t` is exact: both lie within a factor of two of each other, or `t` is 0.
    let frac = v - t as f32;
    if frac >= 0.5 {
        t + 1
    } else if frac <= -0.5 {
        t - 1
    } else {
        t
    }
}

/// The quad with its corner list turned by `k` places: corner `k` becomes corner 0.
pub fn turn(q: &Quad, k: usize) -> Quad {
    [q[k % 4], q[(k + 1) % 4], q[(k + 2) % 4], q[(k + 3) % 4]]
}

/// A line `n · p = d` with unit normal `n`, fitted to points by total least squares.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Line {
    pub n: [f64; 2],
    pub d: f64,
}

impl Line {
    /// The total-least-squares line through `pts` (at least two distinct points).
    pub fn fit(pts: &[[f64; 2]]) -> Option<Line> {
        if pts.len() < 2 {
            return None;
        }
        let k = pts.len() as f64;
        let (mx, my) = pts.iter().fold((0.0, 0.0), |s, p| (s.0 + p[0], s.1 + p[1]));
        let (mx, my) = (mx / k, my / k);
        let (mut sxx, mut sxy, mut syy) = (0.0, 0.0, 0.0);
        for p in pts {
            let (dx, dy) = (p[0] - mx, p[1] - my);
            sxx += dx * dx;
            sxy += dx * dy;
            syy += dy * dy;
        }
        // The normal is the eigenvector of the smaller eigenvalue of the scatter matrix.
        let theta = 0.5 * (2.0 * sxy).atan2(sxx - syy);
        let n = [-theta.sin(), theta.cos()];
        let ok = (sxx + syy) > 1e-9;
        ok.then_some(Line {
            n,
            d: n[0] * mx + n[1] * my,
        })
    }

    /// Signed distance of `p` from the line.
    pub fn distance(&self, p: [f64; 2]) -> f64 {
        self.n[0] * p[0] + self.n[1] * p[1] - self.d
    }

    /// The intersection with another line; `None` when (nearly) parallel.
    pub fn intersect(&self, o: &Line) -> Option<[f64; 2]> {
        let det = self.n[0] * o.n[1] - self.n[1] * o.n[0];
        if det.abs() < 1e-9 {
            return None;
        }
        Some([
            (self.d * o.n[1] - self.n[1] * o.d) / det,
            (self.n[0] * o.d - self.d * o.n[0]) / det,
        ])
    }
}

/// The convex hull of a contour's points (Andrew's monotone chain) into `out`, without
/// collinear points, turning the way OpenCV's `convexHull(…, clockwise = false)` does and,
/// like it, starting where the hull's contour indices run in order when some rotation makes
/// them do so. Several times faster than the OpenCV call on long contours, where its per-call
/// setup and pointer sort dominate.
pub fn convex_hull(contour: &[[i32; 2]], out: &mut Vec<[i32; 2]>) {
    out.clear();
    // Indices sorted by x, then y; a repeated point keeps its first index. Sorting dominates
    // the time, so the key is one integer where the points allow (a photo's always do).
    let mut order: Vec<u32> = (0..contour.len() as u32).collect();
    let (min, max) = contour
        .iter()
        .fold(([i32::MAX; 2], [i32::MIN; 2]), |(lo, hi), p| {
            (
                [lo[0].min(p[0]), lo[1].min(p[1])],
                [hi[0].max(p[0]), hi[1].max(p[1])],
            )
        });
    let span = i64::from(max[0]) - i64::from(min[0]) + 1;
    let tall = i64::from(max[1]) - i64::from(min[1]) + 1;
    if span <= 1 << 16 && tall <= 1 << 16 && contour.len() <= u32::MAX as usize {
        let mut keys: Vec<u64> = contour
            .iter()
            .zip(0u64..)
            .map(|(p, i)| {
                let x = (i64::from(p[0]) - i64::from(min[0])) as u64;
                let y = (i64::from(p[1]) - i64::from(min[1])) as u64;
                x << 48 | y << 32 | i
            })
            .collect();
        keys.sort_unstable();
        order = keys.iter().map(|&k| k as u32).collect();
    } else {
        order.sort_unstable_by_key(|&i| (contour[i as usize], i));
    }
    order.dedup_by_key(|i| contour[*i as usize]);
    if order.len() < 3 {
        out.extend(order.iter().map(|&i| contour[i as usize]));
        return;
    }
    let at = |i: u32| contour[i as usize];
    let cross = |o: [i32; 2], a: [i32; 2], b: [i32; 2]| {
        i64::from(a[0] - o[0]) * i64::from(b[1] - o[1])
            - i64::from(a[1] - o[1]) * i64::from(b[0] - o[0])
    };
    let mut hull: Vec<u32> = Vec::with_capacity(order.len() + 1);
    // One chain left to right, then the other back; a turn the wrong way (or none) pops.
    for pass in 0..2 {
        let floor = if pass == 0 { 2 } else { hull.len() + 1 };
        let chain: Box<dyn Iterator<Item = &u32>> = if pass == 0 {
            Box::new(order.iter())
        } else {
            Box::new(order.iter().rev().skip(1))
        };
        for &i in chain {
            while hull.len() >= floor
                && cross(at(hull[hull.len() - 2]), at(hull[hull.len() - 1]), at(i)) <= 0
            {
                hull.pop();
            }
            hull.push(i);
        }
    }
    hull.pop();
    // Start where the contour indices run in order round the hull, if they do anywhere.
    let n = hull.len();
    let runs = |up: bool| {
        (0..n).find(|&s| (0..n - 1).all(|k| (hull[(s + k) % n] < hull[(s + k + 1) % n]) == up))
    };
    let start = runs(true).or_else(|| runs(false)).unwrap_or(0);
    out.extend((0..n).map(|k| at(hull[(start + k) % n])));
}

#[cfg(test)]
mod tests {
    use super::*;

    proptest::proptest! {
        #[test]
        fn round_to_i32_rounds_like_f32_round(v in -1.0e6f32..1.0e6) {
            proptest::prop_assert_eq!(round_to_i32(v), v.round() as i32);
        }
    }

    #[test]
    fn round_to_i32_at_the_halves() {
        for v in [
            0.0,
            0.5,
            -0.5,
            0.499_999_97,
            -0.499_999_97,
            1.5,
            -1.5,
            2.5,
            -2.5,
            1e6 + 0.5,
        ] {
            assert_eq!(round_to_i32(v), v.round() as i32, "{v}");
        }
    }

    #[test]
    fn four_point_homography_maps_corners_and_inverts() {
        let from = rect(0.0, 0.0, 4.0, 3.0);
        let to: Quad = [[140.0, 60.0], [520.0, 95.0], [580.0, 330.0], [90.0, 300.0]];
        let h = homography_4(&from, &to).unwrap();
        let back = invert(&h).unwrap();
        for i in 0..4 {
            let p = apply_homography(&h, from[i]).unwrap();
            assert!(dist(p, to[i]) < 1e-3, "{p:?}");
            let q = apply_homography(&back, to[i]).unwrap();
            assert!(dist(q, from[i]) < 1e-4, "{q:?}");
        }
        assert!(homography_4(&from, &[[0.0, 0.0]; 4]).is_none());
    }

    #[test]
    fn lines_fit_and_intersect() {
        let a = Line::fit(&[[0.0, 1.0], [2.0, 1.0], [5.0, 1.0]]).unwrap();
        let b = Line::fit(&[[3.0, -4.0], [3.0, 0.0], [3.0, 7.0]]).unwrap();
        let p = a.intersect(&b).unwrap();
        assert!((p[0] - 3.0).abs() < 1e-9 && (p[1] - 1.0).abs() < 1e-9);
        assert!(a.distance([7.0, 3.0]).abs() - 2.0 < 1e-9);
        assert!(inside(&rect(0.0, 0.0, 2.0, 2.0), [1.0, 1.0]));
        assert!(!inside(&rect(0.0, 0.0, 2.0, 2.0), [3.0, 1.0]));
        assert!(signed_area(&rect(0.0, 0.0, 2.0, 3.0)) > 0.0);
    }

    /// The hull matches OpenCV's point for point, in the same order, on contours of random
    /// blobs (the locator feeds it contours).
    #[test]
    fn convex_hull_matches_opencv() {
        use opencv::core::{Mat, Point, Scalar, Vector, CV_8UC1};
        use opencv::imgproc;
        use rand::{Rng, SeedableRng};
        let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(7);
        let mut ours = Vec::new();
        let (mut checked, mut simple) = (0, 0);
        for _ in 0..40 {
            let mut img = Mat::new_rows_cols_with_default(120, 160, CV_8UC1, Scalar::all(0.0))
                .expect("a Mat");
            for _ in 0..rng.gen_range(1..12) {
                let c = Point::new(rng.gen_range(0..160), rng.gen_range(0..120));
                let r = rng.gen_range(1..30);
                imgproc::circle(&mut img, c, r, Scalar::all(255.0), -1, imgproc::LINE_8, 0)
                    .expect("a circle");
                let d = Point::new(c.x + rng.gen_range(-40..40), c.y + rng.gen_range(-40..40));
                imgproc::line(&mut img, c, d, Scalar::all(255.0), 1, imgproc::LINE_8, 0)
                    .expect("a line");
            }
            let mut contours: Vector<Vector<Point>> = Vector::new();
            imgproc::find_contours_def(
                &img,
                &mut contours,
                imgproc::RETR_LIST,
                imgproc::CHAIN_APPROX_SIMPLE,
            )
            .expect("contours");
            for contour in contours.iter() {
                let mut theirs: Vector<Point> = Vector::new();
                imgproc::convex_hull_def(&contour, &mut theirs).expect("hull");
                let theirs: Vec<[i32; 2]> = theirs.iter().map(|p| [p.x, p.y]).collect();
                let pts: Vec<[i32; 2]> = contour.iter().map(|p| [p.x, p.y]).collect();
                convex_hull(&pts, &mut ours);
                // The same cycle…
                let shift = ours.iter().position(|p| Some(p) == theirs.first());
                let turned: Vec<[i32; 2]> = shift.map_or(Vec::new(), |k| {
                    ours[k..].iter().chain(&ours[..k]).copied().collect()
                });
                assert_eq!(turned, theirs, "contour {pts:?}");
                // …from the same start, except where a thin contour runs back over itself
                // (which of a repeated point's indices OpenCV keeps is not defined).
                let mut unique = pts.clone();
                unique.sort_unstable();
                unique.dedup();
                if unique.len() == pts.len() {
                    assert_eq!(ours, theirs, "contour {pts:?}");
                    simple += 1;
                }
                checked += 1;
            }
        }
        assert!(checked > 100 && simple > 50, "{checked}, {simple}");
    }
}
