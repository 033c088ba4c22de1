//! Synthetic photos for the vision tests and benches (compiled only into them): a grid drawn
//! by `tablejudge-render`, seen in perspective, composited over a busy tablecloth, with a
//! colour cast and a little noise. Deterministic for a given seed.

#![allow(dead_code)]

use image::{Rgb, RgbImage};
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use tablejudge_render::{render_grid, GridStyle, Quad};
use tablejudge_rules::{Grid, Srgb};

/// Where a grid of `half` pixels half-side, centred at `(cx, cy)`, appears when the table is
/// turned by `rot_deg` in its plane and tilted by `tilt_deg` away from the camera (a pinhole
/// `dist` half-sides away). `aspect` = cols / rows stretches the square.
pub fn view(cx: f32, cy: f32, half: f32, aspect: f32, rot_deg: f32, tilt_deg: f32) -> Quad {
    let (ax, ay) = if aspect >= 1.0 {
        (half, half / aspect)
    } else {
        (half * aspect, half)
    };
    let (s, c) = rot_deg.to_radians().sin_cos();
    let (ts, tc) = tilt_deg.to_radians().sin_cos();
    let d = 3.5 * half;
    [[-ax, -ay], [ax, -ay], [ax, ay], [-ax, ay]].map(|[x, y]| {
        let (xr, yr) = (c * x - s * y, s * x + c * y);
        let (y3, z3) = (yr * tc, yr * ts);
        let k = d / (d + z3);
        [cx + xr * k, cy + y3 * k]
    })
}

/// A busy tablecloth: a random plaid of coloured stripes, scattered blotches and noise.
pub fn tablecloth(w: u32, h: u32, seed: u64) -> RgbImage {
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    let base: [f32; 3] = [
        rng.gen_range(60.0..200.0),
        rng.gen_range(60.0..200.0),
        rng.gen_range(60.0..200.0),
    ];
    let mut img = RgbImage::from_fn(w, h, |_, _| Rgb(base.map(|v| v as u8)));
    let stripes: Vec<(bool, f32, f32, [f32; 3])> = (0..14)
        .map(|_| {
            (
                rng.gen_bool(0.5),
                rng.gen_range(0.0..w.max(h) as f32),
                rng.gen_range(3.0..25.0),
                [
                    rng.gen_range(-60.0..60.0),
                    rng.gen_range(-60.0..60.0),
                    rng.gen_range(-60.0..60.0),
                ],
            )
        })
        .collect();
    let blotches: Vec<(f32, f32, f32, [f32; 3])> = (0..40)
        .map(|_| {
            (
                rng.gen_range(0.0..w as f32),
                rng.gen_range(0.0..h as f32),
                rng.gen_range(3.0..18.0),
                [
                    rng.gen_range(0.0..255.0),
                    rng.gen_range(0.0..255.0),
                    rng.gen_range(0.0..255.0),
                ],
            )
        })
        .collect();
    for (x, y, p) in img.enumerate_pixels_mut() {
        let (xf, yf) = (x as f32, y as f32);
        let mut c = base;
        for &(vertical, pos, width, tint) in &stripes {
            let v = if vertical { xf } else { yf };
            if (v - pos).abs() < width {
                for i in 0..3 {
                    c[i] += tint[i] * 0.5;
                }
            }
        }
        for &(bx, by, r, col) in &blotches {
            if (xf - bx).hypot(yf - by) < r {
                c = col;
            }
        }
        // A fine weave.
        let weave = if (x + y) % 4 < 2 { 6.0 } else { -6.0 };
        *p = Rgb(c.map(|v| (v + weave).clamp(0.0, 255.0) as u8));
    }
    img
}

/// Draws the grid (cells `colours`, `style`) so that its cell area lands on `corners` in `bg`.
pub fn place(bg: &mut RgbImage, colours: &Grid<Srgb>, style: &GridStyle, corners: Quad) {
    let flat = render_grid(colours, style).unwrap();
    place_image(bg, &flat.image, flat.corners, corners);
}

/// A colour chart: patches filling `fill` of each cell side on a body of `body` colour with a
/// margin of `margin` cells, drawn fronto-parallel with `cell_px` per cell; returns the image
/// and its cell-area corners (the lattice, half a gap outside the outer patches).
pub fn chart(
    colours: &Grid<Srgb>,
    cell_px: u32,
    fill: f32,
    margin: f32,
    body: Srgb,
) -> (RgbImage, Quad) {
    let m = (margin * cell_px as f32).round() as u32;
    let (w, h) = (
        colours.cols() as u32 * cell_px + 2 * m,
        colours.rows() as u32 * cell_px + 2 * m,
    );
    let gap = (1.0 - fill) / 2.0;
    let img = RgbImage::from_fn(w, h, |x, y| {
        let (gx, gy) = (
            (x as f32 + 0.5 - m as f32) / cell_px as f32,
            (y as f32 + 0.5 - m as f32) / cell_px as f32,
        );
        if gx < 0.0 || gy < 0.0 || gx >= colours.cols() as f32 || gy >= colours.rows() as f32 {
            return Rgb(body.to_array());
        }
        let (fx, fy) = (gx.fract(), gy.fract());
        if fx < gap || fx > 1.0 - gap || fy < gap || fy > 1.0 - gap {
            return Rgb(body.to_array());
        }
        Rgb(colours[tablejudge_rules::Pos::new(gy as usize, gx as usize)].to_array())
    });
    let (l, t) = (m as f32 - 0.5, m as f32 - 0.5);
    let (r, b) = (
        l + (colours.cols() as u32 * cell_px) as f32,
        t + (colours.rows() as u32 * cell_px) as f32,
    );
    (img, [[l, t], [r, t], [r, b], [l, b]])
}

/// Places a flat picture whose marked quad is `from` so that the quad lands on `to`.
pub fn place_image(bg: &mut RgbImage, flat: &RgbImage, from: Quad, to: Quad) {
    let scene = tablejudge_render::Scene {
        image: flat.clone(),
        corners: from,
    };
    let (w, h) = bg.dimensions();
    // Rendered over black and over white: the difference is the coverage, so edges blend
    // with the tablecloth as a real photo's would.
    let black = scene
        .perspective(to, w, h, Srgb::new(0, 0, 0))
        .unwrap()
        .image;
    let white = scene
        .perspective(to, w, h, Srgb::new(255, 255, 255))
        .unwrap()
        .image;
    for (x, y, p) in bg.enumerate_pixels_mut() {
        let (b, wh) = (black.get_pixel(x, y).0, white.get_pixel(x, y).0);
        let outside = (f32::from(wh[1]) - f32::from(b[1])) / 255.0;
        for (v, &over_black) in p.0.iter_mut().zip(&b) {
            *v = (f32::from(over_black) + outside * f32::from(*v))
                .round()
                .clamp(0.0, 255.0) as u8;
        }
    }
}

/// A camera on daylight white balance under light of this cast (linear-RGB gains), plus
/// noise of ±`noise` levels.
pub fn cast(img: &mut RgbImage, gains: [f32; 3], noise: f32, seed: u64) {
    let lin = |v: u8| {
        let c = f32::from(v) / 255.0;
        if c <= 0.04045 {
            c / 12.92
        } else {
            ((c + 0.055) / 1.055).powf(2.4)
        }
    };
    let enc = |l: f32| {
        let l = l.clamp(0.0, 1.0);
        let c = if l <= 0.0031308 {
            12.92 * l
        } else {
            1.055 * l.powf(1.0 / 2.4) - 0.055
        };
        c * 255.0
    };
    let luts: Vec<Vec<f32>> = gains
        .iter()
        .map(|&g| (0..=255u8).map(|v| enc(lin(v) * g)).collect())
        .collect();
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    for p in img.pixels_mut() {
        for i in 0..3 {
            let n = if noise > 0.0 {
                rng.gen_range(-noise..noise)
            } else {
                0.0
            };
            p.0[i] = (luts[i][p.0[i] as usize] + n).round().clamp(0.0, 255.0) as u8;
        }
    }
}

/// A camera left on daylight balance under 2800 K light (see white_balance's tests), a bit
/// under-exposed.
pub const WARM: [f32; 3] = [0.95, 0.95 * 0.438, 0.95 * 0.117];
/// Shade on a cloudy day.
pub const COOL: [f32; 3] = [0.62, 0.78, 1.0];

/// The Layers+-like style: dark frame 0.3 cells wide on a light player card.
pub fn layer_style(cell_px: u32) -> GridStyle {
    GridStyle {
        cell_px,
        frame: Srgb::new(0x2b, 0x2b, 0x30),
        frame_width: 0.3,
        margin: 0.6,
        background: Srgb::new(0xf2, 0xef, 0xe6),
    }
}
