//! Drawing a [`LayersSceneSpec`]: ray casting the flat objects on the table in linear light,
//! then the camera's optics and sensor; and the ground truth of what was drawn.

use image::RgbImage;
use serde::{Deserialize, Serialize};
use tablejudge_rules::layers::{LayersSet, NamedPlacement, Placement};
use tablejudge_rules::{Grid, Key, Pos};

use crate::camera::{Camera, CameraSpec};
use crate::degrade::{develop, encode_jpeg, Linear, SensorSpec};
use crate::layers_scene::{
    check_size, mission_rect, rotate, Degradation, DigitPlace, LayersSceneSpec, MaterialSpec,
    StackSpec,
};
use crate::light::{albedo, LightSpec, Lighting};
use crate::objects::{Hit, Object, Print, Shape};
use crate::table::Table;
use crate::RenderError;

/// The `format` of a truth file.
pub const TRUTH_FORMAT: &str = "tablejudge/render-truth@1";

/// Four image points `[x, y]`, clockwise from the corner at cell (row 0, column 0).
pub type Corners = [[f64; 2]; 4];

/// What one cell of the stack shows and how well it can be seen.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct CellTruth {
    /// The visible colour key (`LayersSet::compose`).
    pub key: Key,
    /// The cell's centre in the image, on the surface that shows it.
    pub center: [f64; 2],
    /// The id of the layer showing the cell, `None` where the player card shows.
    pub layer: Option<String>,
    /// Fraction of the cell's middle (its central 60 % square) the camera sees directly, not
    /// hidden by an upper layer's hole wall or outside the picture.
    pub visible: f64,
    /// Strongest glare over the cell's middle, added radiance in units of white.
    pub glare: f64,
    /// Lowest irradiance over the cell's middle relative to the scene's reference (1 = as lit
    /// at the stack's centre without shadows).
    pub light: f64,
    /// Glare over the cell strong enough to wash out its colour (`glare` > 0.1).
    pub glared: bool,
    /// An arm or lamp-edge shadow over the cell (more than 20 % of its direct light blocked).
    pub shadowed: bool,
}

/// One layer of the stack as drawn.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct LayerTruth {
    pub placement: NamedPlacement,
    /// Its own grid corners (it is slightly off the others).
    pub corners: Corners,
}

/// The mission card as drawn.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct MissionTruth {
    pub id: String,
    /// The printed level digit.
    pub layers: usize,
    pub pattern: Vec<String>,
    /// The printed grid's corners.
    pub corners: Corners,
    /// The box around the printed digit(s).
    pub digit_corners: Corners,
    /// Whether the stack's visible grid matches the pattern under some turn.
    pub matches_stack: bool,
}

/// An unused layer on the table.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct LooseLayerTruth {
    pub placement: NamedPlacement,
    pub corners: Corners,
    /// Image positions of its holes' centres (the table shows there).
    pub holes: Vec<[f64; 2]>,
}

/// The distractors in the picture.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct DistractorTruth {
    pub mission_card: bool,
    pub loose_layers: Vec<LooseLayerTruth>,
    /// Another player's stack, top first, if one is (partly) in the picture.
    pub other_player: Option<Vec<NamedPlacement>>,
    pub tokens: usize,
}

/// Everything known about a rendered scene; written as JSON next to the image.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct LayersTruth {
    pub format: String,
    pub width: u32,
    pub height: u32,
    pub rows: usize,
    pub cols: usize,
    /// The stack's grid outer corners (the cell area of the top layer, not its frame), in
    /// pixels, clockwise from the corner at cell (row 0, column 0) — formats.md §4.
    pub corners: Corners,
    /// The stack, top first.
    pub stack: Vec<NamedPlacement>,
    /// The visible grid, one string per row.
    pub visible: Vec<String>,
    /// Per cell, row-major as `visible`.
    pub cells: Vec<Vec<CellTruth>>,
    pub layers: Vec<LayerTruth>,
    pub player_card_corners: Corners,
    pub mission: Option<MissionTruth>,
    pub distractors: DistractorTruth,
    /// Whether any cell is `glared` / `shadowed`.
    pub glare_on_cells: bool,
    pub shadow_on_cells: bool,
    pub degradation: Degradation,
    pub camera: CameraSpec,
    pub light: LightSpec,
    pub sensor: SensorSpec,
}

/// A rendered scene: the picture (before JPEG) and its truth.
#[derive(Clone, Debug)]
pub struct LayersScene {
    pub image: RgbImage,
    pub truth: LayersTruth,
}

impl LayersScene {
    /// The picture as the camera would save it: JPEG at the scene's quality.
    pub fn jpeg(&self) -> Result<Vec<u8>, RenderError> {
        encode_jpeg(&self.image, self.truth.sensor.jpeg_quality)
    }
}

/// Indices into the object list of what the truth needs.
struct Built {
    objects: Vec<Object>,
    /// Stack layers, top first.
    stack: Vec<usize>,
    card: usize,
    mission: Option<usize>,
    loose: Vec<usize>,
}

fn resolve(set: &LayersSet, n: &NamedPlacement) -> Result<Placement, RenderError> {
    set.placement(n)
        .ok_or_else(|| RenderError::UnknownLayer(n.layer.clone()))
}

fn colour_of(set: &LayersSet, key: Key) -> [f32; 3] {
    // Every key of a validated set is in its palette; black keeps a bad key visible.
    set.colors().get(&key).map_or([0.0; 3], |s| albedo(s.srgb))
}

#[allow(clippy::too_many_arguments)] // The pieces of one layer's make; grouped only here.
fn layer_object(
    set: &LayersSet,
    p: Placement,
    origin: [f64; 2],
    angle_deg: f64,
    top: f64,
    m: &MaterialSpec,
    seed: u32,
) -> Object {
    let shown = set.layers()[p.layer].shown(p.side, p.turn);
    let frame = colour_of(set, set.frame());
    let shape = Shape::Layer {
        rows: shown.rows(),
        cols: shown.cols(),
        frame_width: set.frame_width(),
        radius: m.layer_corner_radius.min(set.frame_width()),
        cells: shown
            .cells()
            .iter()
            .map(|k| k.map(|k| colour_of(set, k)))
            .collect(),
        frame,
        seams: m.layer_seams,
    };
    Object::new(
        shape,
        origin,
        angle_deg.to_radians(),
        top,
        m.layer_thickness,
        m.layer_gloss,
        frame.map(|v| v * 0.45),
        seed,
    )
}

/// Adds a player card and its stack; returns (card, layers top first).
fn add_stack(
    set: &LayersSet,
    s: &StackSpec,
    m: &MaterialSpec,
    objects: &mut Vec<Object>,
    seed: u32,
) -> Result<(usize, Vec<usize>), RenderError> {
    let f = set.frame_width();
    let (cols, rows) = (set.cols() as f64, set.rows() as f64);
    let mg = s.card_margins;
    let body = colour_of(set, set.card());
    objects.push(Object::new(
        Shape::Card {
            rect: [-f - mg[0], -f - mg[1], cols + f + mg[2], rows + f + mg[3]],
            radius: m.card_corner_radius,
            body,
            print: None,
            paper: m.card_paper,
        },
        s.origin,
        s.angle_deg.to_radians(),
        m.card_thickness,
        m.card_thickness,
        m.card_gloss,
        body.map(|v| v * 0.75),
        seed,
    ));
    let card = objects.len() - 1;
    let placements = s
        .layers
        .iter()
        .map(|l| resolve(set, &l.placement))
        .collect::<Result<Vec<_>, _>>()?;
    set.check_stack(&placements)?;
    let n = s.layers.len();
    let gc = [cols / 2.0, rows / 2.0];
    let mut ids = Vec::with_capacity(n);
    for (i, (l, &p)) in s.layers.iter().zip(&placements).enumerate() {
        let r = rotate(gc, l.rotation_deg);
        let origin = s.to_world([gc[0] + l.offset[0] - r[0], gc[1] + l.offset[1] - r[1]]);
        let top = m.card_thickness + (n - i) as f64 * m.layer_thickness;
        objects.push(layer_object(
            set,
            p,
            origin,
            s.angle_deg + l.rotation_deg,
            top,
            m,
            seed.wrapping_add(i as u32 + 1),
        ));
        ids.push(objects.len() - 1);
    }
    Ok((card, ids))
}

fn digits(n: usize) -> Vec<u8> {
    n.to_string().bytes().map(|b| b - b'0').collect()
}

/// Digit box (top-left, width, height, pen) of a mission card in its own frame.
fn digit_box(
    set: &LayersSet,
    mc: &crate::layers_scene::MissionCardSpec,
) -> ([f64; 2], f64, f64, f64) {
    let f = set.frame_width();
    let (cols, rows) = (set.cols() as f64, set.rows() as f64);
    let dh = mc.digit_height;
    let dw = 0.62 * dh;
    let at = match mc.digit_place {
        DigitPlace::Right => [cols + f + mc.margins[2] * 0.5 + 0.2, rows / 2.0 - dh / 2.0],
        DigitPlace::Below => [cols / 2.0 - dw / 2.0, rows + f + mc.margins[3] * 0.5 + 0.2],
    };
    (at, dw, dh, 0.16 * dh)
}

fn build(set: &LayersSet, spec: &LayersSceneSpec) -> Result<Built, RenderError> {
    let m = &spec.materials;
    let seed = spec.seed as u32;
    let mut objects = Vec::new();
    let (card, stack) = add_stack(set, &spec.stack, m, &mut objects, seed)?;
    let mut mission = None;
    if let Some(mc) = &spec.mission_card {
        let mis = set
            .mission(&mc.mission)
            .ok_or_else(|| RenderError::UnknownMission(mc.mission.clone()))?;
        let (at, dw, dh, pen) = digit_box(set, mc);
        let print = Print {
            rows: set.rows(),
            cols: set.cols(),
            frame_width: set.frame_width(),
            cells: mis
                .pattern()
                .cells()
                .iter()
                .map(|&k| colour_of(set, k))
                .collect(),
            frame: colour_of(set, set.frame()),
            digits: digits(mis.layers()),
            digit_at: at,
            digit_size: [dw, dh],
            pen,
            ink: albedo(mc.ink),
        };
        let body = albedo(mc.body);
        objects.push(Object::new(
            Shape::Card {
                rect: mission_rect(set, &mc.margins, mc.digit_place, mc.digit_height),
                radius: m.card_corner_radius,
                body,
                print: Some(print),
                paper: m.card_paper,
            },
            mc.origin,
            mc.angle_deg.to_radians(),
            m.card_thickness,
            m.card_thickness,
            m.card_gloss,
            body.map(|v| v * 0.8 + 0.1),
            seed ^ 0x1234,
        ));
        mission = Some(objects.len() - 1);
    }
    let mut loose = Vec::new();
    for (i, l) in spec.loose_layers.iter().enumerate() {
        let p = resolve(set, &l.placement)?;
        objects.push(layer_object(
            set,
            p,
            l.origin,
            l.angle_deg,
            m.layer_thickness,
            m,
            seed ^ (0x100 + i as u32),
        ));
        loose.push(objects.len() - 1);
    }
    if let Some(other) = &spec.other_player {
        add_stack(set, other, m, &mut objects, seed ^ 0x777)?;
    }
    for (i, t) in spec.tokens.iter().enumerate() {
        let c = albedo(t.colour);
        objects.push(Object::new(
            Shape::Disc {
                radius: t.radius,
                colour: c,
            },
            t.center,
            0.0,
            t.thickness,
            t.thickness,
            0.8,
            c.map(|v| v * 0.6),
            seed ^ (0x200 + i as u32),
        ));
    }
    if objects.len() > usize::from(u16::MAX) {
        return Err(RenderError::TooManyObjects(objects.len()));
    }
    Ok(Built {
        objects,
        stack,
        card,
        mission,
        loose,
    })
}

const TILE: usize = 16;

struct Renderer<'a> {
    cam: Camera,
    light: Lighting,
    table: Table,
    objects: &'a [Object],
    /// All objects, highest top first.
    order: Vec<u16>,
    table_gloss: f64,
    /// Horizontal shift of a shadow per unit of height (away from the lamp).
    shadow_step: [f64; 2],
    /// Unit horizontal direction towards the lamp and its horizontal share.
    lamp_flat: [f64; 2],
    lamp_horizontal: f64,
}

impl Renderer<'_> {
    /// Ambient and lamp visibility at table point `p`, `h` above the table, from the objects
    /// above it among `cands` (highest first), except `skip`.
    fn occlusion(&self, cands: &[u16], skip: usize, p: [f64; 2], h: f64) -> (f64, f64) {
        let (mut amb, mut lamp) = (1.0, 1.0);
        let lamp_on = self.light.direct > 0.0;
        for &j in cands {
            let o = &self.objects[usize::from(j)];
            if o.top <= h + 1e-9 {
                break;
            }
            if usize::from(j) == skip {
                continue;
            }
            let dz = o.top - h;
            // Ambient occlusion: a sheet close above blocks part of the sky.
            let c = o.coverage(p, 1.2 * dz + 0.01);
            amb *= 1.0 - 0.45 * c;
            if lamp_on {
                let q = [
                    p[0] + self.shadow_step[0] * dz,
                    p[1] + self.shadow_step[1] * dz,
                ];
                lamp *= 1.0 - o.coverage(q, self.light.lamp_size * dz + 0.004);
            }
        }
        (amb, lamp)
    }

    /// Linear radiance of a top surface.
    #[allow(clippy::too_many_arguments)] // Hot path: the parts of a hit, unpacked.
    fn shade(
        &self,
        cands: &[u16],
        skip: usize,
        p: [f64; 2],
        h: f64,
        alb: [f32; 3],
        gloss: f64,
    ) -> [f32; 3] {
        let l = &self.light;
        let (amb, lamp) = self.occlusion(cands, skip, p, h);
        let band = if l.direct > 0.0 {
            l.band_visibility(p)
        } else {
            1.0
        };
        let direct = if l.direct > 0.0 {
            l.direct * lamp * band * l.lamp_falloff(p)
        } else {
            0.0
        };
        let e = (l.ramp(p) * (l.ambient * amb + direct)) as f32;
        let g = (l.glare(p) * gloss * lamp * band) as f32;
        [0, 1, 2].map(|i| l.cast[i] * (alb[i] * e + g))
    }

    /// Linear radiance of a cut edge seen along `d`.
    fn shade_wall(&self, o: &Object, p: [f64; 2], d: [f64; 3]) -> [f32; 3] {
        let l = &self.light;
        let n = (d[0] * d[0] + d[1] * d[1]).sqrt().max(1e-9);
        // The wall faces back towards the camera.
        let facing = (-(d[0] * self.lamp_flat[0] + d[1] * self.lamp_flat[1]) / n).max(0.0);
        let direct =
            l.direct * l.band_visibility(p) * l.lamp_falloff(p) * facing * self.lamp_horizontal;
        let e = (l.ramp(p) * (0.5 * l.ambient + direct)) as f32;
        [0, 1, 2].map(|i| l.cast[i] * o.edge[i] * e)
    }

    /// One ray through pixel position `(px, py)`: its radiance and the id of what it hit.
    fn sample(&self, cands: &[u16], px: f64, py: f64) -> ([f32; 3], u32) {
        let d = self.cam.ray(px, py);
        if d[2] < 1e-6 {
            // Above the horizon (cannot happen with tilts up to 40°): a dim wall.
            return ([0.05; 3], u32::MAX);
        }
        let pos = self.cam.pos;
        let norm2 = d[0] * d[0] + d[1] * d[1] + d[2] * d[2];
        for &i in cands {
            let i = usize::from(i);
            let o = &self.objects[i];
            if let Some((hit, p, l)) = o.hit(pos, d) {
                let id = (i as u32 + 1) << 16;
                return match hit {
                    Hit::Top => {
                        let t = (-o.top - pos[2]) / d[2];
                        let fp = t * norm2 / (self.cam.f * d[2]);
                        let (alb, sub) = o.shape.surface(l, fp, o.seed);
                        (self.shade(cands, i, p, o.top, alb, o.gloss), id | sub)
                    }
                    Hit::Wall => (self.shade_wall(o, p, d), id | 0xffff),
                };
            }
        }
        let t = -pos[2] / d[2];
        let p = [pos[0] + t * d[0], pos[1] + t * d[1]];
        let fp = (t * norm2 / (self.cam.f * d[2])).min(50.0);
        let alb = self.table.albedo(p[0], p[1], fp);
        (
            self.shade(cands, usize::MAX, p, 0.0, alb, self.table_gloss),
            0,
        )
    }

    /// The convex outline in pixels (clockwise or not) of everything an object, its shadow and
    /// its contact darkening can touch, and how far real edges may bow outside it (lens
    /// distortion between the sampled points); `None` when part of it is behind the camera.
    fn outline(&self, o: &Object) -> Option<(Vec<[f64; 2]>, f64)> {
        let b = o.shape.bounds();
        let m = 1.2 * o.top + 0.06;
        let e = [b[0] - m, b[1] - m, b[2] + m, b[3] + m];
        let mut pts = Vec::with_capacity(24);
        for (fx, fy) in [
            (0.0, 0.0),
            (0.5, 0.0),
            (1.0, 0.0),
            (1.0, 0.5),
            (1.0, 1.0),
            (0.5, 1.0),
            (0.0, 1.0),
            (0.0, 0.5),
        ] {
            let l = [e[0] + fx * (e[2] - e[0]), e[1] + fy * (e[3] - e[1])];
            let wp = o.to_world(l);
            let s = [
                wp[0] - self.shadow_step[0] * o.top,
                wp[1] - self.shadow_step[1] * o.top,
            ];
            for p in [
                [wp[0], wp[1], 0.0],
                [wp[0], wp[1], -o.top],
                [s[0], s[1], 0.0],
            ] {
                pts.push(self.cam.project(p)?);
            }
        }
        let pad = 3.0 + 0.02 * self.cam.k1.abs() * f64::from(self.cam.width);
        Some((convex_hull(pts), pad))
    }
}

/// The convex hull of `pts` (Andrew's monotone chain), counter-clockwise in x-right/y-up terms.
fn convex_hull(mut pts: Vec<[f64; 2]>) -> Vec<[f64; 2]> {
    pts.sort_by(|a, b| a[0].total_cmp(&b[0]).then(a[1].total_cmp(&b[1])));
    let cross = |o: [f64; 2], a: [f64; 2], b: [f64; 2]| {
        (a[0] - o[0]) * (b[1] - o[1]) - (a[1] - o[1]) * (b[0] - o[0])
    };
    let mut hull: Vec<[f64; 2]> = Vec::with_capacity(pts.len() + 1);
    for pass in 0..2 {
        let start = hull.len();
        let iter: Box<dyn Iterator<Item = &[f64; 2]>> = if pass == 0 {
            Box::new(pts.iter())
        } else {
            Box::new(pts.iter().rev())
        };
        for &p in iter {
            while hull.len() >= start + 2
                && cross(hull[hull.len() - 2], hull[hull.len() - 1], p) <= 0.0
            {
                hull.pop();
            }
            hull.push(p);
        }
        hull.pop();
    }
    hull
}

/// Whether the pixel rectangle `r` = [x0, y0, x1, y1] comes within `pad` of convex `poly`
/// (separating axes: the rectangle's own axes, then each polygon edge).
fn rect_meets_polygon(r: [f64; 4], poly: &[[f64; 2]], pad: f64) -> bool {
    let (mut lo, mut hi) = ([f64::INFINITY; 2], [f64::NEG_INFINITY; 2]);
    for p in poly {
        lo = [lo[0].min(p[0]), lo[1].min(p[1])];
        hi = [hi[0].max(p[0]), hi[1].max(p[1])];
    }
    if hi[0] + pad < r[0] || hi[1] + pad < r[1] || lo[0] - pad > r[2] || lo[1] - pad > r[3] {
        return false;
    }
    let n = poly.len();
    if n < 3 {
        return true;
    }
    // Orientation of the hull decides which side of an edge is outside.
    let area: f64 = (0..n)
        .map(|i| {
            let (a, b) = (poly[i], poly[(i + 1) % n]);
            a[0] * b[1] - a[1] * b[0]
        })
        .sum();
    let sign = if area >= 0.0 { 1.0 } else { -1.0 };
    let corners = [[r[0], r[1]], [r[2], r[1]], [r[2], r[3]], [r[0], r[3]]];
    (0..n).all(|i| {
        let (a, b) = (poly[i], poly[(i + 1) % n]);
        let (ex, ey) = (b[0] - a[0], b[1] - a[1]);
        let len = (ex * ex + ey * ey).sqrt().max(1e-9);
        // Outward normal for a positively oriented polygon.
        let (nx, ny) = (sign * ey / len, -sign * ex / len);
        let nearest = corners
            .iter()
            .map(|c| (c[0] - a[0]) * nx + (c[1] - a[1]) * ny)
            .fold(f64::INFINITY, f64::min);
        nearest <= pad
    })
}

/// Renders `spec` (made for `set`) into a picture and its ground truth.
pub fn render_layers(set: &LayersSet, spec: &LayersSceneSpec) -> Result<LayersScene, RenderError> {
    check_size(spec.camera.width, spec.camera.height)?;
    let built = build(set, spec)?;
    let r = renderer(set, spec, &built);
    let img = rasterise(&r);
    let image = develop(img, &spec.sensor);
    let truth = truth(set, spec, &r, &built)?;
    Ok(LayersScene { image, truth })
}

fn renderer<'a>(set: &LayersSet, spec: &LayersSceneSpec, built: &'a Built) -> Renderer<'a> {
    let cam = Camera::new(&spec.camera);
    let (rows, cols) = (set.rows() as f64, set.cols() as f64);
    let reference = spec.stack.to_world([cols / 2.0, rows / 2.0]);
    let light = Lighting::new(&spec.light, reference);
    let up = (-light.to_lamp[2]).max(0.05);
    let flat = (light.to_lamp[0].powi(2) + light.to_lamp[1].powi(2)).sqrt();
    let mut order: Vec<u16> = (0..built.objects.len() as u16).collect();
    order.sort_by(|&a, &b| {
        built.objects[usize::from(b)]
            .top
            .total_cmp(&built.objects[usize::from(a)].top)
    });
    Renderer {
        cam,
        table: Table::new(&spec.table, spec.seed as u32 ^ 0xa5a5),
        objects: &built.objects,
        order,
        table_gloss: spec.materials.table_gloss,
        shadow_step: [light.to_lamp[0] / up, light.to_lamp[1] / up],
        lamp_flat: if flat > 1e-9 {
            [light.to_lamp[0] / flat, light.to_lamp[1] / flat]
        } else {
            [0.0, 0.0]
        },
        lamp_horizontal: flat,
        light,
    }
}

/// The bare table (no objects, shadows or sensor effects) at pixel `(px, py)` as sRGB, for
/// tests that check what shows through holes.
#[cfg(test)]
pub(crate) fn bare_table_srgb(
    set: &LayersSet,
    spec: &LayersSceneSpec,
    px: f64,
    py: f64,
) -> Result<tablejudge_rules::Srgb, RenderError> {
    let built = build(set, spec)?;
    let r = renderer(set, spec, &built);
    let c = r.sample(&[], px, py).0;
    let v = c.map(|v| crate::light::linear_to_srgb(crate::degrade::tone(v)));
    Ok(tablejudge_rules::Srgb::new(v[0], v[1], v[2]))
}

/// Casts one ray per pixel, then four more wherever neighbouring pixels hit different things
/// (antialiasing where it matters, at a fraction of full supersampling's cost).
fn rasterise(r: &Renderer) -> Linear {
    let (w, h) = (r.cam.width as usize, r.cam.height as usize);
    let (tx, ty) = (w.div_ceil(TILE), h.div_ceil(TILE));
    let mut tiles: Vec<Vec<u16>> = vec![Vec::new(); tx * ty];
    for &i in &r.order {
        let outline = r.outline(&r.objects[usize::from(i)]);
        for ty_ in 0..ty {
            for tx_ in 0..tx {
                let rect = [
                    (tx_ * TILE) as f64 - 0.5,
                    (ty_ * TILE) as f64 - 0.5,
                    ((tx_ + 1) * TILE) as f64 - 0.5,
                    ((ty_ + 1) * TILE) as f64 - 0.5,
                ];
                // Behind the camera in part: be safe, it may touch any tile.
                let meets = outline
                    .as_ref()
                    .is_none_or(|(poly, pad)| rect_meets_polygon(rect, poly, *pad));
                if meets {
                    tiles[ty_ * tx + tx_].push(i);
                }
            }
        }
    }
    let mut img = Linear::new(w, h);
    let mut ids = vec![0u32; w * h];
    // Tiles that see only the table (no object, shadow or contact darkening) are shaded on a
    // lattice of every other pixel and interpolated: the table is most of the picture, its
    // texture is smooth at that scale, and the lens blurs more than this anyway.
    let (lw, lh) = (w / 2 + 2, h / 2 + 2);
    let mut lattice: Vec<Option<[f32; 3]>> = vec![None; lw * lh];
    let mut at = |i: usize, j: usize| -> [f32; 3] {
        *lattice[j * lw + i].get_or_insert_with(|| r.sample(&[], (2 * i) as f64, (2 * j) as f64).0)
    };
    for y in 0..h {
        let trow = (y / TILE) * tx;
        for x in 0..w {
            let cands = &tiles[trow + x / TILE];
            let o = (y * w + x) * 3;
            if cands.is_empty() {
                let (i, j) = (x / 2, y / 2);
                let (fx, fy) = ((x % 2) as f32 * 0.5, (y % 2) as f32 * 0.5);
                let (a, b) = (at(i, j), at(i + 1, j));
                let (c, d) = (at(i, j + 1), at(i + 1, j + 1));
                for k in 0..3 {
                    let top = a[k] + (b[k] - a[k]) * fx;
                    let bottom = c[k] + (d[k] - c[k]) * fx;
                    img.data[o + k] = top + (bottom - top) * fy;
                }
                continue;
            }
            let (c, id) = r.sample(cands, x as f64, y as f64);
            img.data[o..o + 3].copy_from_slice(&c);
            ids[y * w + x] = id;
        }
    }
    let mut edge = vec![false; w * h];
    for y in 0..h {
        for x in 0..w {
            let i = y * w + x;
            if x + 1 < w && ids[i] != ids[i + 1] {
                edge[i] = true;
                edge[i + 1] = true;
            }
            if y + 1 < h && ids[i] != ids[i + w] {
                edge[i] = true;
                edge[i + w] = true;
            }
        }
    }
    // A rotated grid: four sub-samples whose x and y offsets are all different.
    const SUB: [(f64, f64); 4] = [
        (-0.375, -0.125),
        (0.125, -0.375),
        (0.375, 0.125),
        (-0.125, 0.375),
    ];
    for y in 0..h {
        for x in 0..w {
            if !edge[y * w + x] {
                continue;
            }
            let cands = &tiles[(y / TILE) * tx + x / TILE];
            let o = (y * w + x) * 3;
            let mut acc = [img.data[o], img.data[o + 1], img.data[o + 2]];
            for (dx, dy) in SUB {
                let (c, _) = r.sample(cands, x as f64 + dx, y as f64 + dy);
                acc = [acc[0] + c[0], acc[1] + c[1], acc[2] + c[2]];
            }
            img.data[o..o + 3].copy_from_slice(&acc.map(|v| v * 0.2));
        }
    }
    img
}

fn project_or_nan(cam: &Camera, p: [f64; 2], h: f64) -> [f64; 2] {
    cam.project([p[0], p[1], -h]).unwrap_or([f64::NAN; 2])
}

fn grid_corners(r: &Renderer, o: &Object, rows: f64, cols: f64) -> Corners {
    [[0.0, 0.0], [cols, 0.0], [cols, rows], [0.0, rows]]
        .map(|l| project_or_nan(&r.cam, o.to_world(l), o.top))
}

fn rows_of(g: &Grid<Key>) -> Vec<String> {
    (0..g.rows())
        .map(|r| g.row(r).iter().map(|k| k.char()).collect())
        .collect()
}

/// The truth about one stack cell: sampled over its middle.
fn cell_truth(
    r: &Renderer,
    set: &LayersSet,
    spec: &LayersSceneSpec,
    built: &Built,
    pos: Pos,
    key: Key,
    stack: &[Placement],
) -> CellTruth {
    let shown_by = stack
        .iter()
        .position(|p| set.layers()[p.layer].shown(p.side, p.turn)[pos].is_some());
    let (obj, layer) = match shown_by {
        Some(i) => (
            built.stack[i],
            Some(spec.stack.layers[i].placement.layer.clone()),
        ),
        None => (built.card, None),
    };
    let o = &built.objects[obj];
    let (w, h) = (f64::from(r.cam.width), f64::from(r.cam.height));
    let centre = o.to_world([pos.col as f64 + 0.5, pos.row as f64 + 0.5]);
    let l = &r.light;
    let (mut seen, mut total) = (0usize, 0usize);
    let (mut glare, mut light, mut band_min) = (0f64, f64::INFINITY, 1f64);
    for i in 0..5 {
        for j in 0..5 {
            total += 1;
            let lp = [
                pos.col as f64 + 0.2 + 0.15 * i as f64,
                pos.row as f64 + 0.2 + 0.15 * j as f64,
            ];
            let p = o.to_world(lp);
            let target = [p[0], p[1], -o.top];
            let inside = r.cam.project(target).is_some_and(|q| {
                q[0] >= -0.5 && q[1] >= -0.5 && q[0] <= w - 0.5 && q[1] <= h - 0.5
            });
            let d = [
                target[0] - r.cam.pos[0],
                target[1] - r.cam.pos[1],
                target[2] - r.cam.pos[2],
            ];
            let first = r.order.iter().find_map(|&k| {
                r.objects[usize::from(k)]
                    .hit(r.cam.pos, d)
                    .map(|(hit, _, _)| (usize::from(k), hit))
            });
            if inside && matches!(first, Some((k, Hit::Top)) if k == obj) {
                seen += 1;
            }
            let (amb, lamp) = r.occlusion(&r.order, obj, p, o.top);
            let band = l.band_visibility(p);
            band_min = band_min.min(band);
            light = light.min(l.irradiance(p, amb, lamp));
            glare = glare.max(l.glare(p) * o.gloss * lamp * band);
        }
    }
    CellTruth {
        key,
        center: project_or_nan(&r.cam, centre, o.top),
        layer,
        visible: seen as f64 / total as f64,
        glare,
        light,
        glared: glare > 0.1,
        shadowed: band_min < 0.8,
    }
}

fn truth(
    set: &LayersSet,
    spec: &LayersSceneSpec,
    r: &Renderer,
    built: &Built,
) -> Result<LayersTruth, RenderError> {
    let (rows, cols) = (set.rows(), set.cols());
    let stack: Vec<Placement> = spec
        .stack
        .layers
        .iter()
        .map(|l| resolve(set, &l.placement))
        .collect::<Result<_, _>>()?;
    let visible = set.compose(&stack)?;
    let top = built.stack.first().map_or(built.card, |&i| i);
    let corners = grid_corners(r, &built.objects[top], rows as f64, cols as f64);
    let cells: Vec<Vec<CellTruth>> = (0..rows)
        .map(|row| {
            (0..cols)
                .map(|col| {
                    let pos = Pos::new(row, col);
                    cell_truth(r, set, spec, built, pos, visible[pos], &stack)
                })
                .collect()
        })
        .collect();
    let layers = spec
        .stack
        .layers
        .iter()
        .zip(&built.stack)
        .map(|(l, &i)| LayerTruth {
            placement: l.placement.clone(),
            corners: grid_corners(r, &built.objects[i], rows as f64, cols as f64),
        })
        .collect();
    let card = &built.objects[built.card];
    let cb = card.shape.bounds();
    let player_card_corners = [
        [cb[0], cb[1]],
        [cb[2], cb[1]],
        [cb[2], cb[3]],
        [cb[0], cb[3]],
    ]
    .map(|l| project_or_nan(&r.cam, card.to_world(l), card.top));
    let mission = match (&spec.mission_card, built.mission) {
        (Some(mc), Some(i)) => {
            let o = &built.objects[i];
            let mis = set
                .mission(&mc.mission)
                .ok_or_else(|| RenderError::UnknownMission(mc.mission.clone()))?;
            let (at, dw, dh, pen) = digit_box(set, mc);
            let n = digits(mis.layers()).len() as f64;
            let x1 = at[0] + dw * (1.35 * (n - 1.0) + 1.0) + pen / 2.0;
            let (x0, y0, y1) = (at[0] - pen / 2.0, at[1] - pen / 2.0, at[1] + dh + pen / 2.0);
            Some(MissionTruth {
                id: mis.id().to_owned(),
                layers: mis.layers(),
                pattern: rows_of(mis.pattern()),
                corners: grid_corners(r, o, rows as f64, cols as f64),
                digit_corners: [[x0, y0], [x1, y0], [x1, y1], [x0, y1]]
                    .map(|l| project_or_nan(&r.cam, o.to_world(l), o.top)),
                matches_stack: visible.eq_up_to_turn(mis.pattern()),
            })
        }
        _ => None,
    };
    let loose_layers = spec
        .loose_layers
        .iter()
        .zip(&built.loose)
        .map(|(l, &i)| {
            let o = &built.objects[i];
            let p = resolve(set, &l.placement)?;
            let shown = set.layers()[p.layer].shown(p.side, p.turn);
            let holes = shown
                .iter()
                .filter(|(_, k)| k.is_none())
                .map(|(q, _)| {
                    project_or_nan(
                        &r.cam,
                        o.to_world([q.col as f64 + 0.5, q.row as f64 + 0.5]),
                        o.top,
                    )
                })
                .collect();
            Ok(LooseLayerTruth {
                placement: l.placement.clone(),
                corners: grid_corners(r, o, shown.rows() as f64, shown.cols() as f64),
                holes,
            })
        })
        .collect::<Result<Vec<_>, RenderError>>()?;
    let glare_on_cells = cells.iter().flatten().any(|c| c.glared);
    let shadow_on_cells = cells.iter().flatten().any(|c| c.shadowed);
    Ok(LayersTruth {
        format: TRUTH_FORMAT.to_owned(),
        width: spec.camera.width,
        height: spec.camera.height,
        rows,
        cols,
        corners,
        stack: spec
            .stack
            .layers
            .iter()
            .map(|l| l.placement.clone())
            .collect(),
        visible: rows_of(&visible),
        cells,
        layers,
        player_card_corners,
        mission,
        distractors: DistractorTruth {
            mission_card: spec.mission_card.is_some(),
            loose_layers,
            other_player: spec
                .other_player
                .as_ref()
                .map(|o| o.layers.iter().map(|l| l.placement.clone()).collect()),
            tokens: spec.tokens.len(),
        },
        glare_on_cells,
        shadow_on_cells,
        degradation: spec.degradation,
        camera: spec.camera.clone(),
        light: spec.light.clone(),
        sensor: spec.sensor.clone(),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tiles_meet_only_polygons_they_touch() {
        let diamond = convex_hull(vec![
            [10.0, 0.0],
            [20.0, 10.0],
            [10.0, 20.0],
            [0.0, 10.0],
            [10.0, 10.0],
        ]);
        assert_eq!(diamond.len(), 4);
        assert!(rect_meets_polygon([8.0, 8.0, 12.0, 12.0], &diamond, 0.0));
        // In the diamond's bounding box but outside it, past its top-left edge.
        assert!(!rect_meets_polygon([0.0, 0.0, 3.0, 3.0], &diamond, 0.0));
        assert!(rect_meets_polygon([0.0, 0.0, 3.0, 3.0], &diamond, 3.0));
        assert!(!rect_meets_polygon([30.0, 30.0, 40.0, 40.0], &diamond, 1.0));
    }
}
