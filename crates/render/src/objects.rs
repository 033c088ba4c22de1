//! Flat things lying on the table: layers, cards, tokens.
//!
//! Each is a slab: a 2-D shape in its own frame (x right, y down, in cells), placed on the
//! table by a rotation and translation, with its top surface `top` above the table and a
//! thickness. Rays hit its top where the shape is solid, or its cut edge (a hole wall or the
//! outline) where the ray passes the top plane outside the shape but the bottom plane inside.

use crate::font::digit_ink;
use crate::table::vnoise;

/// A printed grid: the pattern on a mission card.
#[derive(Clone, Debug)]
pub(crate) struct Print {
    pub rows: usize,
    pub cols: usize,
    pub frame_width: f64,
    pub cells: Vec<[f32; 3]>,
    pub frame: [f32; 3],
    /// The level printed beside the grid: its digits, the first digit box's top-left (local
    /// cells), a digit's width and height, the pen width and the ink colour.
    pub digits: Vec<u8>,
    pub digit_at: [f64; 2],
    pub digit_size: [f64; 2],
    pub pen: f64,
    pub ink: [f32; 3],
}

#[derive(Clone, Debug)]
pub(crate) enum Shape {
    /// A layer: the cell grid occupies `[0, cols] × [0, rows]`, the frame `frame_width` around.
    Layer {
        rows: usize,
        cols: usize,
        frame_width: f64,
        radius: f64,
        /// Per cell, row-major: its colour, or `None` for a hole.
        cells: Vec<Option<[f32; 3]>>,
        frame: [f32; 3],
        /// Thin printed lines between neighbouring cells.
        seams: bool,
    },
    /// A rounded card `rect` = [x0, y0, x1, y1], optionally printed.
    Card {
        rect: [f64; 4],
        radius: f64,
        body: [f32; 3],
        print: Option<Print>,
        /// Strength of the paper fibre texture.
        paper: f64,
    },
    /// A disc of `radius` centred on the local origin, with an embossed ring.
    Disc { radius: f64, colour: [f32; 3] },
    /// A forearm and hand reaching over the table: a capsule from the local origin along +x
    /// for `length`, `radius` wide.
    Arm {
        length: f64,
        radius: f64,
        colour: [f32; 3],
    },
    /// A Camouflage card: 3 × 3 unit squares over `[0, 3]²`, printed edge to edge inside a
    /// thin border of card stock; the centre square shows the deck's symbol on the stock.
    Camouflage(Box<CamouflageCard>),
}

/// Distance from `l` to the segment from the origin to `(length, 0)`.
fn arm_distance(l: [f64; 2], length: f64) -> f64 {
    let x = l[0].clamp(0.0, length);
    ((l[0] - x).powi(2) + l[1] * l[1]).sqrt()
}

/// The print of a Camouflage card (see [`Shape::Camouflage`]).
#[derive(Clone, Debug)]
pub(crate) struct CamouflageCard {
    /// Each square's pattern colour, row-major as it lies; the centre's is unused.
    pub squares: [[f32; 3]; 9],
    /// Each square's print texture (see [`pattern_texture`]), so that a pattern is more than a
    /// flat colour, as on the real cards.
    pub textures: [u8; 9],
    pub stock: [f32; 3],
    pub ink: [f32; 3],
    /// The deck's symbol (see [`symbol_ink`]), upright when the card lies unturned.
    pub symbol: u8,
    /// Clockwise quarter-turns the card lies turned by (the symbol turns with it).
    pub turn: u8,
    /// Width of the stock border, squares.
    pub border: f64,
    pub radius: f64,
}

/// Brightness factor of a printed pattern at `q` (square-local, 0..1) for texture `kind`:
/// stripes, spots, mottle or grain, each averaging about 1 over a square, faded to its mean
/// where a pixel spans several of its features.
fn pattern_texture(kind: u8, q: [f64; 2], fp: f64, seed: u32) -> f64 {
    use crate::light::smoothstep;
    let (x, y) = (q[0], q[1]);
    match kind % 4 {
        0 => {
            // Wavy stripes about 3.5 per square.
            let fade = 1.0 - smoothstep(0.06, 0.15, fp);
            let w = (x * 0.8 + y * 0.6) * 3.5 + 0.35 * (y * 5.0).sin();
            1.0 + 0.25 * fade * (w * std::f64::consts::TAU).sin()
        }
        1 => {
            // Dark spots covering about a fifth of the square.
            let fade = 1.0 - smoothstep(0.08, 0.2, fp);
            let n = vnoise(x * 7.0, y * 7.0, seed);
            let spot = smoothstep(0.6, 0.66, n);
            1.0 + fade * (0.1 - 0.5 * spot)
        }
        2 => {
            let fade = 1.0 - smoothstep(0.1, 0.3, fp);
            1.0 + 0.3 * fade * (vnoise(x * 4.0, y * 4.0, seed ^ 0x33) - 0.5)
        }
        _ => {
            let fade = 1.0 - smoothstep(0.02, 0.06, fp);
            1.0 + 0.12 * fade * (vnoise(x * 25.0, y * 25.0, seed ^ 0x77) - 0.5)
        }
    }
}

/// Coverage (0..1) of deck symbol `symbol` at `q` in the centre square (0..1 each way),
/// antialiased over the pixel footprint `fp`: eight simple shapes, one per deck.
fn symbol_ink(symbol: u8, q: [f64; 2], fp: f64) -> f64 {
    use crate::light::smoothstep;
    let (x, y) = (q[0] - 0.5, q[1] - 0.5);
    let r = (x * x + y * y).sqrt();
    // Signed distance (negative inside) of each shape, in squares.
    let d = match symbol % 8 {
        0 => (r - 0.27).abs() - 0.06,
        1 => {
            // A triangle pointing up.
            let a = (y - 0.22).max(x.abs() * 1.8 - y * 0.9 - 0.27);
            a.max(-0.25 - y)
        }
        2 => (x.abs().max(y.abs()) - 0.3).max(x.abs().min(y.abs()) - 0.07),
        3 => x.abs() + y.abs() - 0.32,
        4 => (x.abs().max(y.abs()) - 0.27).abs() - 0.06,
        5 => ((y.abs() - 0.13).abs() - 0.06).max(x.abs() - 0.3),
        6 => {
            let (u, v) = (
                (x + y) * std::f64::consts::FRAC_1_SQRT_2,
                (x - y) * std::f64::consts::FRAC_1_SQRT_2,
            );
            (u.abs().max(v.abs()) - 0.32).max(u.abs().min(v.abs()) - 0.07)
        }
        _ => (r - 0.3).max(-(((x - 0.08).powi(2) + (y + 0.08).powi(2)).sqrt() - 0.12)),
    };
    let w = fp.max(1e-3);
    1.0 - smoothstep(-0.5 * w, 0.5 * w, d)
}

/// A slab on the table.
#[derive(Clone, Debug)]
pub(crate) struct Object {
    pub origin: [f64; 2],
    pub cos: f64,
    pub sin: f64,
    pub top: f64,
    pub thickness: f64,
    pub shape: Shape,
    /// Specular strength: how much of a glare blob this surface reflects.
    pub gloss: f64,
    /// Colour of the cut edge (core material).
    pub edge: [f32; 3],
    /// Bounding circle in world coordinates.
    pub centre: [f64; 2],
    pub reach: f64,
    pub seed: u32,
}

fn rounded_inside(x: f64, y: f64, r: [f64; 4], rad: f64) -> bool {
    if x < r[0] || y < r[1] || x > r[2] || y > r[3] {
        return false;
    }
    let qx = (r[0] + rad - x).max(x - (r[2] - rad)).max(0.0);
    let qy = (r[1] + rad - y).max(y - (r[3] - rad)).max(0.0);
    qx * qx + qy * qy <= rad * rad
}

/// Area of the overlap of two axis-aligned rectangles `[x0, y0, x1, y1]`.
#[inline]
fn overlap(a: [f64; 4], b: [f64; 4]) -> f64 {
    let w = (a[2].min(b[2]) - a[0].max(b[0])).max(0.0);
    let h = (a[3].min(b[3]) - a[1].max(b[1])).max(0.0);
    w * h
}

/// Area of the overlap of rectangle `b` with rectangle `r` whose corners are rounded with
/// radius `rad`: a card's shadow is as round as the card.
fn rounded_overlap(b: [f64; 4], r: [f64; 4], rad: f64) -> f64 {
    let mut area = overlap(b, r);
    let rad = rad.min(0.5 * (r[2] - r[0])).min(0.5 * (r[3] - r[1]));
    if rad <= 0.0 || area == 0.0 {
        return area;
    }
    // Each corner square loses what of `b` over it lies outside its quarter circle (exact
    // along y, midpoint columns along x: plenty at shadow softness).
    const N: usize = 8;
    for (square, [cx, cy]) in [
        (
            [r[0], r[1], r[0] + rad, r[1] + rad],
            [r[0] + rad, r[1] + rad],
        ),
        (
            [r[2] - rad, r[1], r[2], r[1] + rad],
            [r[2] - rad, r[1] + rad],
        ),
        (
            [r[2] - rad, r[3] - rad, r[2], r[3]],
            [r[2] - rad, r[3] - rad],
        ),
        (
            [r[0], r[3] - rad, r[0] + rad, r[3]],
            [r[0] + rad, r[3] - rad],
        ),
    ] {
        let part = [
            b[0].max(square[0]),
            b[1].max(square[1]),
            b[2].min(square[2]),
            b[3].min(square[3]),
        ];
        let (w, h) = (part[2] - part[0], part[3] - part[1]);
        if w <= 0.0 || h <= 0.0 {
            continue;
        }
        // Column by column: the part of the column farther from the centre than the arc.
        let mut outside = 0.0;
        for i in 0..N {
            let dx = part[0] + (i as f64 + 0.5) / N as f64 * w - cx;
            let half = (rad * rad - dx * dx).max(0.0).sqrt();
            let inside = (part[3].min(cy + half) - part[1].max(cy - half)).max(0.0);
            outside += (h - inside) * w / N as f64;
        }
        area -= outside;
    }
    area.max(0.0)
}

/// The result of a ray meeting an object.
pub(crate) enum Hit {
    Top,
    Wall,
}

impl Object {
    /// Builds an object placed at `origin` turned by `angle` (radians), computing its
    /// bounding circle.
    #[allow(clippy::too_many_arguments)] // One call site per kind of object; a struct adds nothing.
    pub fn new(
        shape: Shape,
        origin: [f64; 2],
        angle: f64,
        top: f64,
        thickness: f64,
        gloss: f64,
        edge: [f32; 3],
        seed: u32,
    ) -> Object {
        let bounds = shape.bounds();
        let mut o = Object {
            origin,
            cos: angle.cos(),
            sin: angle.sin(),
            top,
            thickness,
            shape,
            gloss,
            edge,
            centre: [0.0; 2],
            reach: 0.0,
            seed,
        };
        let c = o.to_world([(bounds[0] + bounds[2]) * 0.5, (bounds[1] + bounds[3]) * 0.5]);
        o.centre = c;
        o.reach = 0.5 * ((bounds[2] - bounds[0]).powi(2) + (bounds[3] - bounds[1]).powi(2)).sqrt();
        o
    }

    #[inline]
    pub fn to_local(&self, p: [f64; 2]) -> [f64; 2] {
        let (dx, dy) = (p[0] - self.origin[0], p[1] - self.origin[1]);
        [
            self.cos * dx + self.sin * dy,
            -self.sin * dx + self.cos * dy,
        ]
    }

    #[inline]
    pub fn to_world(&self, l: [f64; 2]) -> [f64; 2] {
        [
            self.origin[0] + self.cos * l[0] - self.sin * l[1],
            self.origin[1] + self.sin * l[0] + self.cos * l[1],
        ]
    }

    #[inline]
    fn near(&self, p: [f64; 2]) -> bool {
        let (dx, dy) = (p[0] - self.centre[0], p[1] - self.centre[1]);
        dx * dx + dy * dy <= self.reach * self.reach
    }

    /// Whether the ray from `pos` along `d` hits this object's top or a cut edge; returns the
    /// world point on the top plane (for a top hit) or bottom plane (for a wall).
    #[inline]
    pub fn hit(&self, pos: [f64; 3], d: [f64; 3]) -> Option<(Hit, [f64; 2], [f64; 2])> {
        let t = (-self.top - pos[2]) / d[2];
        let p = [pos[0] + t * d[0], pos[1] + t * d[1]];
        let near_top = self.near(p);
        if near_top {
            let l = self.to_local(p);
            if self.shape.solid(l) {
                return Some((Hit::Top, p, l));
            }
        }
        let tb = (-(self.top - self.thickness) - pos[2]) / d[2];
        let pb = [pos[0] + tb * d[0], pos[1] + tb * d[1]];
        if !near_top && !self.near(pb) {
            return None;
        }
        let lb = self.to_local(pb);
        self.shape.solid(lb).then_some((Hit::Wall, pb, lb))
    }

    /// Fraction of a `2r`-wide square around table point `p` that this object covers.
    #[inline]
    pub fn coverage(&self, p: [f64; 2], r: f64) -> f64 {
        let (dx, dy) = (p[0] - self.centre[0], p[1] - self.centre[1]);
        let m = self.reach + 1.5 * r;
        if dx * dx + dy * dy > m * m {
            return 0.0;
        }
        self.shape.coverage(self.to_local(p), r)
    }
}

impl Shape {
    /// Local bounding box `[x0, y0, x1, y1]`.
    pub fn bounds(&self) -> [f64; 4] {
        match self {
            Shape::Layer {
                rows,
                cols,
                frame_width: f,
                ..
            } => [-f, -f, *cols as f64 + f, *rows as f64 + f],
            Shape::Card { rect, .. } => *rect,
            Shape::Disc { radius, .. } => [-radius, -radius, *radius, *radius],
            Shape::Camouflage(_) => [0.0, 0.0, 3.0, 3.0],
            Shape::Arm { length, radius, .. } => [-radius, -radius, length + radius, *radius],
        }
    }

    #[inline]
    pub fn solid(&self, l: [f64; 2]) -> bool {
        match self {
            Shape::Layer {
                rows,
                cols,
                radius,
                cells,
                ..
            } => {
                if !rounded_inside(l[0], l[1], self.bounds(), *radius) {
                    return false;
                }
                let (x, y) = (l[0], l[1]);
                if x >= 0.0 && y >= 0.0 && x < *cols as f64 && y < *rows as f64 {
                    cells[y as usize * cols + x as usize].is_some()
                } else {
                    true
                }
            }
            Shape::Card { rect, radius, .. } => rounded_inside(l[0], l[1], *rect, *radius),
            Shape::Disc { radius, .. } => l[0] * l[0] + l[1] * l[1] <= radius * radius,
            Shape::Camouflage(c) => rounded_inside(l[0], l[1], [0.0, 0.0, 3.0, 3.0], c.radius),
            Shape::Arm { length, radius, .. } => arm_distance(l, *length) <= *radius,
        }
    }

    /// Box-filtered occupancy around `l` (half-width `r`): soft shadows and ambient occlusion.
    fn coverage(&self, l: [f64; 2], r: f64) -> f64 {
        let r = r.max(1e-4);
        let area = 4.0 * r * r;
        let b = [l[0] - r, l[1] - r, l[0] + r, l[1] + r];
        match self {
            Shape::Layer {
                rows,
                cols,
                cells,
                radius,
                ..
            } => {
                let grid = [0.0, 0.0, *cols as f64, *rows as f64];
                let mut covered = rounded_overlap(b, self.bounds(), *radius) - overlap(b, grid);
                if overlap(b, grid) > 0.0 {
                    let c0 = b[0].max(0.0) as usize;
                    let r0 = b[1].max(0.0) as usize;
                    let c1 = (b[2].max(0.0) as usize).min(cols - 1);
                    let r1 = (b[3].max(0.0) as usize).min(rows - 1);
                    for row in r0..=r1 {
                        for col in c0..=c1 {
                            if cells[row * cols + col].is_some() {
                                let cell =
                                    [col as f64, row as f64, col as f64 + 1.0, row as f64 + 1.0];
                                covered += overlap(b, cell);
                            }
                        }
                    }
                }
                (covered / area).clamp(0.0, 1.0)
            }
            Shape::Card { rect, radius, .. } => {
                (rounded_overlap(b, *rect, *radius) / area).clamp(0.0, 1.0)
            }
            Shape::Disc { radius, .. } => {
                let d = (l[0] * l[0] + l[1] * l[1]).sqrt();
                1.0 - crate::light::smoothstep(radius - r, radius + r, d)
            }
            Shape::Camouflage(c) => {
                (rounded_overlap(b, [0.0, 0.0, 3.0, 3.0], c.radius) / area).clamp(0.0, 1.0)
            }
            Shape::Arm { length, radius, .. } => {
                let d = arm_distance(l, *length);
                1.0 - crate::light::smoothstep(radius - r, radius + r, d)
            }
        }
    }

    /// Albedo of the top surface at `l` seen with pixel footprint `fp`, and a region id that
    /// changes wherever the albedo jumps (for edge antialiasing).
    pub fn surface(&self, l: [f64; 2], fp: f64, seed: u32) -> ([f32; 3], u32) {
        match self {
            Shape::Layer {
                rows,
                cols,
                cells,
                frame,
                seams,
                ..
            } => {
                let (x, y) = (l[0], l[1]);
                let inside = x >= 0.0 && y >= 0.0 && x < *cols as f64 && y < *rows as f64;
                // Moulded plastic: faint large-scale unevenness only.
                let tex = 1.0 + 0.03 * (vnoise(x * 2.0, y * 2.0, seed) - 0.5) as f32;
                if !inside {
                    return (frame.map(|v| v * tex), 1);
                }
                let (col, row) = (x as usize, y as usize);
                let Some(c) = cells[row * cols + col] else {
                    return (*frame, 1);
                };
                let mut c = c.map(|v| v * tex);
                let mut id = 2 + (row * cols + col) as u32;
                if *seams {
                    let (fx, fy) = (x - col as f64, y - row as f64);
                    let d = fx.min(1.0 - fx).min(fy).min(1.0 - fy);
                    if d < 0.012 {
                        c = c.map(|v| v * 0.55);
                        id |= 0x8000;
                    }
                }
                let _ = (rows, fp);
                (c, id)
            }
            Shape::Card {
                body, print, paper, ..
            } => {
                let fade = 1.0 - crate::light::smoothstep(0.01, 0.05, fp);
                let fibre = (vnoise(l[0] * 30.0, l[1] * 30.0, seed) - 0.5) * fade
                    + 0.5 * (vnoise(l[0] * 3.0, l[1] * 3.0, seed ^ 0x5a) - 0.5);
                let tex = (1.0 + paper * fibre) as f32;
                let mut c = *body;
                let mut id = 1;
                if let Some(p) = print {
                    let (x, y) = (l[0], l[1]);
                    let f = p.frame_width;
                    let (w, h) = (p.cols as f64, p.rows as f64);
                    if x >= -f && y >= -f && x < w + f && y < h + f {
                        if x >= 0.0 && y >= 0.0 && x < w && y < h {
                            let (col, row) = (x as usize, y as usize);
                            c = p.cells[row * p.cols + col];
                            id = 3 + (row * p.cols + col) as u32;
                        } else {
                            c = p.frame;
                            id = 2;
                        }
                    }
                    let [dw, dh] = p.digit_size;
                    for (i, &digit) in p.digits.iter().enumerate() {
                        let q = [x - p.digit_at[0] - i as f64 * dw * 1.35, y - p.digit_at[1]];
                        let a = digit_ink(digit, q, dw, dh, p.pen, fp.max(1e-3));
                        if a > 0.0 {
                            let a = a as f32;
                            c = [0, 1, 2].map(|k| c[k] + (p.ink[k] - c[k]) * a);
                            id = 0x4000;
                        }
                    }
                }
                (c.map(|v| v * tex), id)
            }
            Shape::Disc { radius, colour } => {
                let d = (l[0] * l[0] + l[1] * l[1]).sqrt() / radius;
                // An embossed ring near the rim catches less light.
                let ring = if (0.72..0.8).contains(&d) { 0.7 } else { 1.0 };
                (colour.map(|v| v * ring), if ring < 1.0 { 2 } else { 1 })
            }
            Shape::Arm { colour, .. } => {
                let tex = 1.0 + 0.08 * (vnoise(l[0] * 3.0, l[1] * 3.0, seed) - 0.5) as f32;
                (colour.map(|v| v * tex), 1)
            }
            Shape::Camouflage(c) => {
                let (x, y) = (l[0], l[1]);
                if x < c.border || y < c.border || x > 3.0 - c.border || y > 3.0 - c.border {
                    return (c.stock, 1);
                }
                let (col, row) = ((x as usize).min(2), (y as usize).min(2));
                let i = row * 3 + col;
                let q = [x - col as f64, y - row as f64];
                if i == 4 {
                    // Back to the printed card's frame: undo the clockwise turns.
                    let mut q = q;
                    for _ in 0..c.turn % 4 {
                        q = [q[1], 1.0 - q[0]];
                    }
                    let a = symbol_ink(c.symbol, q, fp) as f32;
                    let id = if a > 0.0 { 0x4000 } else { 2 + i as u32 };
                    return (
                        [0, 1, 2].map(|k| c.stock[k] + (c.ink[k] - c.stock[k]) * a),
                        id,
                    );
                }
                let t = pattern_texture(c.textures[i], q, fp, seed.wrapping_add(i as u32)) as f32;
                (c.squares[i].map(|v| (v * t).min(1.0)), 2 + i as u32)
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn layer() -> Object {
        // 2 × 2 with a hole at (row 0, col 1).
        let shape = Shape::Layer {
            rows: 2,
            cols: 2,
            frame_width: 0.3,
            radius: 0.1,
            cells: vec![
                Some([1.0, 0.0, 0.0]),
                None,
                Some([0.0, 1.0, 0.0]),
                Some([0.0, 0.0, 1.0]),
            ],
            frame: [0.1; 3],
            seams: false,
        };
        Object::new(shape, [10.0, 5.0], 0.3, 0.1, 0.05, 0.5, [0.05; 3], 1)
    }

    #[test]
    fn local_and_world_frames_invert() {
        let o = layer();
        let w = o.to_world([1.3, -0.2]);
        let l = o.to_local(w);
        assert!((l[0] - 1.3).abs() < 1e-12 && (l[1] + 0.2).abs() < 1e-12);
    }

    #[test]
    fn holes_are_empty_and_cells_solid() {
        let o = layer();
        assert!(o.shape.solid([0.5, 0.5]));
        assert!(!o.shape.solid([1.5, 0.5]));
        assert!(o.shape.solid([-0.2, 1.0]));
        assert!(!o.shape.solid([-0.35, 1.0]));
        // Rounded corner: the very corner of the bounding box is outside.
        assert!(!o.shape.solid([-0.299, -0.299]));
        // Coverage: full in a solid cell, none in the hole's middle, partial at its edge.
        assert!((o.shape.coverage([0.5, 0.5], 0.2) - 1.0).abs() < 1e-9);
        assert_eq!(o.shape.coverage([1.5, 0.5], 0.2), 0.0);
        assert!((o.shape.coverage([1.0, 0.5], 0.2) - 0.5).abs() < 1e-9);
    }

    #[test]
    fn a_ray_through_a_hole_near_its_wall_hits_the_wall() {
        let o = layer();
        // Straight down through the hole's middle: no hit.
        let mid = o.to_world([1.5, 0.5]);
        assert!(o.hit([mid[0], mid[1], -10.0], [0.0, 0.0, 1.0]).is_none());
        // Slanted so that it enters the hole at its left edge and would leave under the cell.
        let edge = o.to_world([1.01, 0.5]);
        let under = o.to_world([0.9, 0.5]);
        let d = [under[0] - edge[0], under[1] - edge[1], 0.05];
        let start = [
            edge[0] - d[0] * 100.0,
            edge[1] - d[1] * 100.0,
            -0.1 - 0.05 * 100.0,
        ];
        assert!(matches!(o.hit(start, d), Some((Hit::Wall, _, _))));
    }

    #[test]
    fn a_rounded_card_shades_only_under_itself() {
        let card = Shape::Card {
            rect: [0.0, 0.0, 4.0, 6.0],
            radius: 1.0,
            body: [0.9; 3],
            print: None,
            paper: 0.0,
        };
        // Inside the rectangle but past the rounded corner: no cover, as for a real card.
        assert!(card.coverage([0.05, 0.05], 0.01) < 1e-9);
        assert!(card.coverage([3.95, 5.95], 0.01) < 1e-9);
        assert!(card.coverage([1.0, 0.05], 0.01) > 1.0 - 1e-9);
        assert!(card.coverage([2.0, 3.0], 0.5) > 1.0 - 1e-9);
        // The whole card: its rectangle less the four corners' (4 − π)·r².
        let whole = rounded_overlap([-1.0, -1.0, 5.0, 7.0], [0.0, 0.0, 4.0, 6.0], 1.0);
        let exact = 24.0 - (4.0 - std::f64::consts::PI);
        assert!((whole - exact).abs() < 0.02, "{whole} vs {exact}");
    }
}
