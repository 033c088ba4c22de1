//! Drawing a [`LayersSceneSpec`]: ray casting the flat objects on the table in linear light,
//! then the camera's optics and sensor; and the ground truth of what was drawn.

use image::RgbImage;
use serde::{Deserialize, Serialize};
use tablejudge_rules::layers::{LayersSet, NamedPlacement, Placement};
use tablejudge_rules::{Grid, Key, Pos};

use crate::camera::{Camera, CameraSpec};
use crate::degrade::{develop, encode_jpeg, SensorSpec};
use crate::layers_scene::{
    check_size, mission_rect, rotate, Degradation, DigitPlace, LayersSceneSpec, MaterialSpec,
    StackSpec,
};
use crate::light::{albedo, LightSpec};
use crate::objects::{Object, Print, Shape};
use crate::raytrace::{rasterise, Renderer};
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

fn renderer<'a>(set: &LayersSet, spec: &LayersSceneSpec, built: &'a Built) -> Renderer<'a> {
    let (rows, cols) = (set.rows() as f64, set.cols() as f64);
    Renderer::new(
        &spec.camera,
        &spec.light,
        Table::new(&spec.table, spec.seed as u32 ^ 0xa5a5),
        spec.materials.table_gloss,
        spec.stack.to_world([cols / 2.0, rows / 2.0]),
        &built.objects,
    )
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
            if r.sees_top(obj, p) {
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
