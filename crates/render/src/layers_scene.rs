//! Layers+ scenes: what lies on the table, the camera and the light, all resolved into an
//! explicit [`LayersSceneSpec`] that [`render_layers`](crate::render_layers) draws.
//!
//! Units on the table are cell sizes (a real cell is about 2 cm). Heights are above the
//! table. The *stack frame* has the nominal grid's cell (row 0, column 0) corner at its
//! origin, x along columns and y along rows, so cell `(r, c)` covers `[c, c+1] × [r, r+1]`.

use rand::seq::SliceRandom;
use rand::Rng;
use serde::{Deserialize, Serialize};
use tablejudge_rules::layers::{LayersSet, NamedPlacement, Placement, Side, Solver};
use tablejudge_rules::Srgb;

use crate::camera::{Camera, CameraSpec};
use crate::degrade::SensorSpec;
use crate::light::{GlareSpec, LightSpec, ShadowSpec};
use crate::table::TableSpec;
use crate::RenderError;

/// How hard the picture is to read.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Degradation {
    /// Neutral even light, no glare or shadow bands, ideal sensor, no distortion. The pose
    /// and the table are still random. For geometry tests.
    Clean,
    /// What a phone or webcam over a kitchen table typically gives.
    Realistic,
    /// Bad but plausible: strong casts, deep shadows, glare, blur, noise, low JPEG quality.
    Harsh,
}

/// Probability (0..=1) of each kind of distractor in a random scene.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub struct Distractors {
    /// The mission card beside the stack.
    pub mission_card: f64,
    /// One to three unused layers lying on the table.
    pub loose_layers: f64,
    /// Another player's card and stack, cut by the image edge.
    pub other_player: f64,
    /// Score tokens or coins.
    pub tokens: f64,
}

impl Distractors {
    /// Nothing but the player card and stack on the table.
    pub const NONE: Distractors = Distractors {
        mission_card: 0.0,
        loose_layers: 0.0,
        other_player: 0.0,
        tokens: 0.0,
    };
    /// Every kind, whenever it fits in the picture.
    pub const ALL: Distractors = Distractors {
        mission_card: 1.0,
        loose_layers: 1.0,
        other_player: 1.0,
        tokens: 1.0,
    };
}

impl Default for Distractors {
    /// Mixed, roughly as at a real game: the mission card is usually there.
    fn default() -> Self {
        Distractors {
            mission_card: 0.7,
            loose_layers: 0.5,
            other_player: 0.3,
            tokens: 0.4,
        }
    }
}

/// Which stack to put on the player card.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum StackChoice {
    /// Exactly these placements, top first.
    Given { stack: Vec<NamedPlacement> },
    /// Between `min_layers` and `max_layers` distinct random layers, random sides and turns.
    Random {
        min_layers: usize,
        max_layers: usize,
    },
    /// A solution of the mission (a random one when `None`), the whole stack turned by a
    /// random allowed turn. A shown mission card shows this mission.
    MissionSolution { mission: Option<String> },
    /// A mission's solution with one change (a layer flipped, turned, swapped, added or
    /// removed) so that it no longer matches under any turn.
    NearMiss { mission: Option<String> },
}

/// What a random scene may contain and how degraded it is.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct SceneOptions {
    pub width: u32,
    pub height: u32,
    pub stack: StackChoice,
    pub distractors: Distractors,
    pub degradation: Degradation,
}

impl Default for SceneOptions {
    /// 1920 × 1080, a random stack of 2 to 5 layers, mixed distractors, realistic.
    fn default() -> Self {
        SceneOptions {
            width: 1920,
            height: 1080,
            stack: StackChoice::Random {
                min_layers: 2,
                max_layers: 5,
            },
            distractors: Distractors::default(),
            degradation: Degradation::Realistic,
        }
    }
}

/// One layer of the stack and how far it is off the nominal grid.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct StackLayerSpec {
    pub placement: NamedPlacement,
    /// Translation in the stack frame, cells.
    pub offset: [f64; 2],
    /// Rotation about the grid's centre, degrees (clockwise on screen when seen from above).
    pub rotation_deg: f64,
}

/// A player card with a stack of layers on it.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct StackSpec {
    /// World position of the stack frame's origin (the nominal grid's outer corner at cell
    /// row 0, column 0).
    pub origin: [f64; 2],
    pub angle_deg: f64,
    /// Top first.
    pub layers: Vec<StackLayerSpec>,
    /// The player card beyond the layers' frame: left, top, right, bottom, cells.
    pub card_margins: [f64; 4],
}

/// Physical make of the components.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct MaterialSpec {
    /// Layer thickness, cells.
    pub layer_thickness: f64,
    /// Corner radius of layers, cells.
    pub layer_corner_radius: f64,
    /// Thin dark lines printed between neighbouring cells of a layer.
    pub layer_seams: bool,
    pub layer_gloss: f64,
    pub card_thickness: f64,
    pub card_corner_radius: f64,
    /// Strength of the paper texture on cards.
    pub card_paper: f64,
    pub card_gloss: f64,
    pub table_gloss: f64,
}

/// Where the level digit sits on a mission card.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum DigitPlace {
    Right,
    Below,
}

/// The mission card lying on the table.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct MissionCardSpec {
    pub mission: String,
    /// World position of its printed grid's corner at cell (row 0, column 0).
    pub origin: [f64; 2],
    pub angle_deg: f64,
    pub body: Srgb,
    pub ink: Srgb,
    pub digit_place: DigitPlace,
    /// Digit height, cells.
    pub digit_height: f64,
    /// Card beyond the printed frame: left, top, right, bottom (before room for the digit).
    pub margins: [f64; 4],
}

/// An unused layer lying flat on the table.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct LooseLayerSpec {
    pub placement: NamedPlacement,
    /// World position of its grid's corner at cell (row 0, column 0).
    pub origin: [f64; 2],
    pub angle_deg: f64,
}

/// A token or coin.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct TokenSpec {
    pub center: [f64; 2],
    pub radius: f64,
    pub thickness: f64,
    pub colour: Srgb,
}

/// Everything about one scene, with every random choice made: render it any number of times
/// and get the same pixels.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct LayersSceneSpec {
    /// Seed of the procedural textures.
    pub seed: u64,
    pub degradation: Degradation,
    pub camera: CameraSpec,
    pub table: TableSpec,
    pub materials: MaterialSpec,
    pub stack: StackSpec,
    pub mission_card: Option<MissionCardSpec>,
    pub loose_layers: Vec<LooseLayerSpec>,
    pub other_player: Option<StackSpec>,
    pub tokens: Vec<TokenSpec>,
    pub light: LightSpec,
    pub sensor: SensorSpec,
}

pub(crate) fn uniform(rng: &mut impl Rng, a: f64, b: f64) -> f64 {
    if a < b {
        rng.gen_range(a..b)
    } else {
        a
    }
}

pub(crate) fn chance(rng: &mut impl Rng, p: f64) -> bool {
    rng.gen::<f64>() < p
}

pub(crate) fn jitter(rng: &mut impl Rng, c: Srgb, amount: f64) -> Srgb {
    let f = |v: u8, rng: &mut dyn rand::RngCore| {
        let d = (rng.gen::<f64>() * 2.0 - 1.0) * amount;
        (f64::from(v) + d).clamp(0.0, 255.0) as u8
    };
    Srgb::new(f(c.r, rng), f(c.g, rng), f(c.b, rng))
}

pub(crate) fn pick<T: Copy>(rng: &mut impl Rng, items: &[T]) -> T {
    items[rng.gen_range(0..items.len())]
}

/// A colour picked from `hexes` and jittered by up to `amount` per channel.
pub(crate) fn jpick(rng: &mut impl Rng, hexes: &[u32], amount: f64) -> Srgb {
    let c = srgb(pick(rng, hexes));
    jitter(rng, c, amount)
}

pub(crate) fn srgb(hex: u32) -> Srgb {
    Srgb::new((hex >> 16) as u8, (hex >> 8) as u8, hex as u8)
}

/// Rotates `v` by `deg` degrees.
pub(crate) fn rotate(v: [f64; 2], deg: f64) -> [f64; 2] {
    let (s, c) = deg.to_radians().sin_cos();
    [c * v[0] - s * v[1], s * v[0] + c * v[1]]
}

impl StackSpec {
    /// A point of the stack frame in world coordinates.
    pub fn to_world(&self, p: [f64; 2]) -> [f64; 2] {
        let r = rotate(p, self.angle_deg);
        [self.origin[0] + r[0], self.origin[1] + r[1]]
    }
}

/// The placements of a stack choice, and the mission they are about (index into
/// `set.missions()`), if any.
fn resolve_stack(
    set: &LayersSet,
    rng: &mut impl Rng,
    choice: &StackChoice,
) -> Result<(Vec<Placement>, Option<usize>), RenderError> {
    let n_layers = set.layers().len();
    let random_placement = |rng: &mut dyn rand::RngCore, layer: usize| {
        let side = if rng.gen::<bool>() {
            Side::Front
        } else {
            Side::Back
        };
        let turns = set.layer_turns();
        Placement::new(layer, side, turns[rng.gen_range(0..turns.len())])
    };
    match choice {
        StackChoice::Given { stack } => {
            let placements = stack
                .iter()
                .map(|n| {
                    set.placement(n)
                        .ok_or_else(|| RenderError::UnknownLayer(n.layer.clone()))
                })
                .collect::<Result<Vec<_>, _>>()?;
            set.check_stack(&placements)?;
            Ok((placements, None))
        }
        StackChoice::Random {
            min_layers,
            max_layers,
        } => {
            let hi = (*max_layers).min(n_layers).max(1);
            let lo = (*min_layers).clamp(1, hi);
            let n = rng.gen_range(lo..=hi);
            let mut order: Vec<usize> = (0..n_layers).collect();
            order.shuffle(rng);
            Ok((
                order[..n]
                    .iter()
                    .map(|&l| random_placement(rng, l))
                    .collect(),
                None,
            ))
        }
        StackChoice::MissionSolution { mission } | StackChoice::NearMiss { mission } => {
            let solver = Solver::new(set);
            let candidates: Vec<usize> = match mission {
                Some(id) => vec![set
                    .missions()
                    .iter()
                    .position(|m| m.id() == id)
                    .ok_or_else(|| RenderError::UnknownMission(id.clone()))?],
                None => {
                    let mut all: Vec<usize> = (0..set.missions().len()).collect();
                    all.shuffle(rng);
                    all
                }
            };
            for &mi in &candidates {
                let m = &set.missions()[mi];
                let solutions = solver.solutions(m.pattern(), m.layers());
                let Some(sol) = solutions.choose(rng) else {
                    continue;
                };
                let turn = pick(rng, set.layer_turns());
                let solved: Vec<Placement> = sol
                    .stack
                    .iter()
                    .map(|p| Placement::new(p.layer, p.side, p.turn.then(turn)))
                    .collect();
                if matches!(choice, StackChoice::MissionSolution { .. }) {
                    return Ok((solved, Some(mi)));
                }
                for _ in 0..200 {
                    let mut s = solved.clone();
                    let i = rng.gen_range(0..s.len());
                    match rng.gen_range(0..5) {
                        0 => {
                            s[i].side = match s[i].side {
                                Side::Front => Side::Back,
                                Side::Back => Side::Front,
                            }
                        }
                        1 => s[i].turn = s[i].turn.then(pick(rng, set.layer_turns())),
                        2 => {
                            let unused: Vec<usize> = (0..n_layers)
                                .filter(|l| s.iter().all(|p| p.layer != *l))
                                .collect();
                            if let Some(&l) = unused.choose(rng) {
                                s[i] = random_placement(rng, l);
                            }
                        }
                        3 if s.len() > 1 => {
                            s.remove(i);
                        }
                        _ => {
                            let unused: Vec<usize> = (0..n_layers)
                                .filter(|l| s.iter().all(|p| p.layer != *l))
                                .collect();
                            if let Some(&l) = unused.choose(rng) {
                                let at = rng.gen_range(0..=s.len());
                                s.insert(at, random_placement(rng, l));
                            }
                        }
                    }
                    let shown = set.compose(&s)?;
                    if !shown.eq_up_to_turn(m.pattern()) {
                        return Ok((s, Some(mi)));
                    }
                }
            }
            Err(RenderError::NoSolution(
                mission.clone().unwrap_or_else(|| "any".to_owned()),
            ))
        }
    }
}

fn named(set: &LayersSet, p: &Placement) -> Result<NamedPlacement, RenderError> {
    set.named(p)
        .ok_or_else(|| RenderError::UnknownLayer(p.layer.to_string()))
}

pub(crate) fn random_table(rng: &mut impl Rng) -> TableSpec {
    let angle_deg = uniform(rng, 0.0, 180.0);
    match rng.gen_range(0..5) {
        0 => {
            let (light, dark) = pick(
                rng,
                &[
                    (0xc89a66, 0x8a5a32),
                    (0xe0c49a, 0xb08858),
                    (0x9a6a44, 0x5a361e),
                    (0x6e4a32, 0x3a2416),
                    (0xd8b890, 0xa07850),
                ],
            );
            TableSpec::Wood {
                light: jitter(rng, srgb(light), 12.0),
                dark: jitter(rng, srgb(dark), 12.0),
                plank_width: uniform(rng, 4.0, 10.0),
                grain: uniform(rng, 0.6, 2.5),
                angle_deg,
            }
        }
        1 => {
            let stripe = pick(
                rng,
                &[0xc0282c, 0x2050a0, 0x2a7a3a, 0x202020, 0xd06020, 0x7030a0],
            );
            TableSpec::Checks {
                ground: jpick(rng, &[0xf4f0e8, 0xffffff, 0xe8e0c8], 6.0),
                stripe: jitter(rng, srgb(stripe), 20.0),
                period: uniform(rng, 0.6, 3.0),
                duty: uniform(rng, 0.3, 0.55),
                angle_deg,
            }
        }
        2 => TableSpec::Stripes {
            a: jpick(rng, &[0xe8dcc0, 0x304870, 0x8a2030, 0xf0f0f0], 15.0),
            b: jpick(rng, &[0x1a3050, 0xd09030, 0x40703a, 0xa0a0a8], 15.0),
            accent: jpick(rng, &[0xffffff, 0xe0c020, 0xc02020], 15.0),
            period: uniform(rng, 0.8, 4.0),
            angle_deg,
        },
        3 => TableSpec::Floral {
            ground: jpick(
                rng,
                &[0x1e2a5a, 0xf0e8d8, 0x3a5a3a, 0x8a1a2a, 0xe8d0a0],
                15.0,
            ),
            petal: jpick(
                rng,
                &[0xe8a0b0, 0xf0f0f0, 0xe04040, 0xf0c020, 0x8080e0],
                20.0,
            ),
            heart: jpick(rng, &[0xf0c020, 0x602010, 0xffffff], 15.0),
            leaf: jpick(rng, &[0x3a8a3a, 0x206040, 0x90b050], 15.0),
            spacing: uniform(rng, 1.0, 3.5),
            angle_deg,
        },
        _ => TableSpec::Solid {
            colour: jpick(
                rng,
                &[
                    0x808080, 0x2a5a3a, 0x1a1a1a, 0xeeeeea, 0xc8b8a0, 0x3a4a6a, 0x9a3a2a,
                ],
                15.0,
            ),
            mottle: uniform(rng, 0.03, 0.25),
        },
    }
}

/// Random light for a scene centred on `centre` whose subject covers `[0, extent]` of the
/// frame `area` maps to the table (glare often falls on it).
pub(crate) fn random_light(
    rng: &mut impl Rng,
    degradation: Degradation,
    centre: [f64; 2],
    area: &dyn Fn([f64; 2]) -> [f64; 2],
    extent: [f64; 2],
    edge_point: [f64; 2],
) -> LightSpec {
    if degradation == Degradation::Clean {
        return LightSpec::neutral(centre);
    }
    let harsh = degradation == Degradation::Harsh;
    let kelvin = (uniform(rng, 2800f64.ln(), 7500f64.ln())).exp();
    let lamp_dir = uniform(rng, 0.0, 360.0);
    let lamp_far = uniform(rng, 0.0, 40.0);
    let lamp_off = rotate([lamp_far, 0.0], lamp_dir);
    let mut shadows = Vec::new();
    if chance(rng, if harsh { 0.6 } else { 0.3 }) {
        let reach = uniform(rng, 0.0, extent[0]);
        let to = rotate([reach, 0.0], uniform(rng, 0.0, 360.0));
        let depth = if harsh {
            uniform(rng, 0.5, 0.85)
        } else {
            uniform(rng, 0.3, 0.65)
        };
        shadows.push(ShadowSpec::Arm {
            from: edge_point,
            to: [centre[0] + to[0], centre[1] + to[1]],
            radius: uniform(rng, 1.0, 2.5),
            softness: uniform(rng, 0.3, 1.5),
            depth,
        });
    }
    if chance(rng, if harsh { 0.4 } else { 0.25 }) {
        let at = rotate(
            [uniform(rng, 0.0, extent[0]), 0.0],
            uniform(rng, 0.0, 360.0),
        );
        shadows.push(ShadowSpec::Edge {
            point: [centre[0] + at[0], centre[1] + at[1]],
            normal_deg: uniform(rng, 0.0, 360.0),
            softness: uniform(rng, 0.2, 2.0),
            depth: if harsh {
                uniform(rng, 0.3, 0.6)
            } else {
                uniform(rng, 0.2, 0.45)
            },
        });
    }
    let mut glares = Vec::new();
    if chance(rng, if harsh { 0.7 } else { 0.45 }) {
        for _ in 0..rng.gen_range(1..=2) {
            // Often right over the cells: that is where a lamp above the table reflects.
            let center = if chance(rng, 0.6) {
                area([uniform(rng, 0.0, extent[0]), uniform(rng, 0.0, extent[1])])
            } else {
                let d = rotate([uniform(rng, 0.0, 8.0), 0.0], uniform(rng, 0.0, 360.0));
                [centre[0] + d[0], centre[1] + d[1]]
            };
            let r = uniform(rng, 0.2, 1.0);
            glares.push(GlareSpec {
                center,
                radii: [r, r * uniform(rng, 0.3, 1.0)],
                angle_deg: uniform(rng, 0.0, 180.0),
                intensity: if harsh {
                    uniform(rng, 0.6, 2.5)
                } else {
                    uniform(rng, 0.3, 1.2)
                },
            });
        }
    }
    LightSpec {
        kelvin,
        white_balance_correction: if harsh {
            uniform(rng, 0.2, 0.8)
        } else {
            uniform(rng, 0.5, 0.9)
        },
        exposure_ev: uniform(rng, -1.0, 1.0),
        ambient: uniform(rng, 0.35, 0.8),
        lamp: [
            centre[0] + lamp_off[0],
            centre[1] + lamp_off[1],
            uniform(rng, 20.0, 80.0),
        ],
        gradient: [uniform(rng, -0.008, 0.008), uniform(rng, -0.008, 0.008)],
        lamp_size: uniform(rng, 0.05, 0.3),
        shadows,
        glares,
    }
}

pub(crate) fn random_sensor(rng: &mut impl Rng, degradation: Degradation) -> SensorSpec {
    let noise_seed = rng.gen();
    match degradation {
        Degradation::Clean => SensorSpec {
            noise_seed,
            ..SensorSpec::ideal()
        },
        Degradation::Realistic => {
            let motion = chance(rng, 0.15);
            SensorSpec {
                defocus_sigma_px: uniform(rng, 0.3, 1.2),
                motion_length_px: if motion { uniform(rng, 1.5, 4.0) } else { 0.0 },
                motion_angle_deg: uniform(rng, 0.0, 180.0),
                vignetting: uniform(rng, 0.0, 0.35),
                shot_noise: uniform(rng, 0.0003, 0.003),
                read_noise: uniform(rng, 0.0005, 0.004),
                noise_luma_share: uniform(rng, 0.5, 0.9),
                jpeg_quality: rng.gen_range(55..=95),
                noise_seed,
            }
        }
        Degradation::Harsh => {
            let motion = chance(rng, 0.4);
            SensorSpec {
                defocus_sigma_px: uniform(rng, 0.8, 2.2),
                motion_length_px: if motion { uniform(rng, 2.0, 8.0) } else { 0.0 },
                motion_angle_deg: uniform(rng, 0.0, 180.0),
                vignetting: uniform(rng, 0.2, 0.5),
                shot_noise: uniform(rng, 0.002, 0.008),
                read_noise: uniform(rng, 0.003, 0.01),
                noise_luma_share: uniform(rng, 0.3, 0.8),
                jpeg_quality: rng.gen_range(45..=75),
                noise_seed,
            }
        }
    }
}

/// A random stack spec around `centre`: misaligned layers on a player card.
fn random_stack(
    rng: &mut impl Rng,
    set: &LayersSet,
    placements: &[Placement],
    centre: [f64; 2],
    angle_deg: f64,
    jitter_scale: f64,
) -> Result<StackSpec, RenderError> {
    let (rows, cols) = (set.rows() as f64, set.cols() as f64);
    let origin_rel = rotate([-cols / 2.0, -rows / 2.0], angle_deg);
    let layers = placements
        .iter()
        .map(|p| {
            let off = rotate(
                [uniform(rng, 0.0, 0.05 * jitter_scale), 0.0],
                uniform(rng, 0.0, 360.0),
            );
            Ok(StackLayerSpec {
                placement: named(set, p)?,
                offset: off,
                rotation_deg: uniform(rng, -1.5, 1.5) * jitter_scale,
            })
        })
        .collect::<Result<Vec<_>, RenderError>>()?;
    let mut card_margins = [0.0; 4].map(|_: f64| uniform(rng, 0.5, 0.9));
    // Real player cards are often longer on one side (a title or score strip).
    if chance(rng, 0.5) {
        card_margins[rng.gen_range(0..4)] += uniform(rng, 0.3, 1.5);
    }
    Ok(StackSpec {
        origin: [centre[0] + origin_rel[0], centre[1] + origin_rel[1]],
        angle_deg,
        layers,
        card_margins,
    })
}

/// Half the diagonal of a card-sized object: a bounding radius for placing things apart.
fn stack_radius(set: &LayersSet, margins: &[f64; 4]) -> f64 {
    let f = set.frame_width();
    let w = set.cols() as f64 + 2.0 * f + margins[0] + margins[2];
    let h = set.rows() as f64 + 2.0 * f + margins[1] + margins[3];
    0.5 * (w * w + h * h).sqrt()
}

impl LayersSceneSpec {
    /// Makes every random choice of a scene; the same `rng` state gives the same spec.
    pub fn random(
        set: &LayersSet,
        rng: &mut impl Rng,
        options: &SceneOptions,
    ) -> Result<LayersSceneSpec, RenderError> {
        check_size(options.width, options.height)?;
        let degradation = options.degradation;
        let (placements, mission_index) = resolve_stack(set, rng, &options.stack)?;
        let seed: u64 = rng.gen();
        let (rows, cols) = (set.rows(), set.cols());
        let fw = set.frame_width();
        let materials = MaterialSpec {
            layer_thickness: uniform(rng, 0.03, 0.05),
            layer_corner_radius: uniform(rng, 0.05, 0.25),
            layer_seams: chance(rng, 0.4),
            layer_gloss: uniform(rng, 0.5, 0.9),
            card_thickness: uniform(rng, 0.015, 0.03),
            card_corner_radius: uniform(rng, 0.15, 0.5),
            card_paper: uniform(rng, 0.02, 0.08),
            card_gloss: uniform(rng, 0.1, 0.35),
            table_gloss: uniform(rng, 0.05, 0.5),
        };
        let angle = uniform(rng, 0.0, 360.0);
        let stack = random_stack(rng, set, &placements, [0.0, 0.0], angle, 1.0)?;
        let card_r = stack_radius(set, &stack.card_margins);
        let camera = random_camera(rng, options, set, &stack, degradation);
        let cam = Camera::new(&camera);
        let (w, h) = (f64::from(options.width), f64::from(options.height));
        // A table point just outside the picture, where an arm or another player comes from.
        let edge_ground = |rng: &mut dyn rand::RngCore, out: f64| -> Option<[f64; 2]> {
            let t = rng.gen::<f64>();
            let (px, py) = match rng.gen_range(0..4) {
                0 => (t * w, -out * h),
                1 => (t * w, h * (1.0 + out)),
                2 => (-out * w, t * h),
                _ => (w * (1.0 + out), t * h),
            };
            cam.ground(px, py, 0.0)
        };
        let in_view = |p: [f64; 2], margin: f64| {
            cam.project([p[0], p[1], 0.0]).is_some_and(|q| {
                q[0] > margin * w
                    && q[1] > margin * h
                    && q[0] < (1.0 - margin) * w
                    && q[1] < (1.0 - margin) * h
            })
        };
        let table = random_table(rng);
        // Things on the table so far, as bounding circles, so that nothing interpenetrates.
        let mut taken: Vec<([f64; 2], f64)> = vec![([0.0, 0.0], card_r)];
        let free = |taken: &[([f64; 2], f64)], c: [f64; 2], r: f64| {
            taken.iter().all(|&(o, ro)| {
                ((c[0] - o[0]).powi(2) + (c[1] - o[1]).powi(2)).sqrt() > r + ro + 0.1
            })
        };
        let layer_r =
            0.5 * ((cols as f64 + 2.0 * fw).powi(2) + (rows as f64 + 2.0 * fw).powi(2)).sqrt();

        let d = options.distractors;
        let mut mission_card = None;
        if chance(rng, d.mission_card) && !set.missions().is_empty() {
            let mi = mission_index.unwrap_or_else(|| rng.gen_range(0..set.missions().len()));
            let digit_place = if chance(rng, 0.5) {
                DigitPlace::Right
            } else {
                DigitPlace::Below
            };
            let margins = [0.0; 4].map(|_: f64| uniform(rng, 0.3, 0.7));
            let digit_height = uniform(rng, 0.7, 1.2);
            let (mw, mh) = mission_size(set, &margins, digit_place, digit_height);
            let r = 0.5 * (mw * mw + mh * mh).sqrt();
            // Usually roughly aligned with the player card, as people put it down.
            let aligned = chance(rng, 0.5);
            for _ in 0..40 {
                let dist = card_r + r + uniform(rng, 0.2, 3.0);
                let c = rotate([dist, 0.0], uniform(rng, 0.0, 360.0));
                if !in_view(c, 0.05) || !free(&taken, c, r) {
                    continue;
                }
                let angle_deg = if aligned {
                    stack.angle_deg + uniform(rng, -15.0, 15.0)
                } else {
                    uniform(rng, 0.0, 360.0)
                };
                let (body, ink) = pick(
                    rng,
                    &[
                        (0xf6f4ee, 0x202020),
                        (0xfaf6e4, 0x302820),
                        (0xd8d8d8, 0x181818),
                        (0x1a1a1e, 0xf0f0f0),
                        (0x1c2a4a, 0xf4f0e0),
                        (0x1e4a48, 0xf0f0f0),
                        (0xb89a70, 0x201810),
                    ],
                );
                // The printed grid's corner, placed so that the card's middle lands on `c`.
                let mid = mission_middle(set, &margins, digit_place, digit_height);
                let m = rotate(mid, angle_deg);
                mission_card = Some(MissionCardSpec {
                    mission: set.missions()[mi].id().to_owned(),
                    origin: [c[0] - m[0], c[1] - m[1]],
                    angle_deg,
                    body: jitter(rng, srgb(body), 6.0),
                    ink: srgb(ink),
                    digit_place,
                    digit_height,
                    margins,
                });
                taken.push((c, r));
                break;
            }
        }

        let mut loose_layers = Vec::new();
        if chance(rng, d.loose_layers) {
            let mut unused: Vec<usize> = (0..set.layers().len())
                .filter(|l| placements.iter().all(|p| p.layer != *l))
                .collect();
            unused.shuffle(rng);
            let n = rng.gen_range(1..=3usize).min(unused.len());
            for &l in &unused[..n] {
                for _ in 0..40 {
                    let dist = card_r + layer_r + uniform(rng, 0.2, 6.0);
                    let c = rotate([dist, 0.0], uniform(rng, 0.0, 360.0));
                    if !in_view(c, 0.0) || !free(&taken, c, layer_r) {
                        continue;
                    }
                    let side = if chance(rng, 0.5) {
                        Side::Front
                    } else {
                        Side::Back
                    };
                    let p = Placement::new(l, side, pick(rng, set.layer_turns()));
                    let angle_deg = uniform(rng, 0.0, 360.0);
                    let o = rotate([-(cols as f64) / 2.0, -(rows as f64) / 2.0], angle_deg);
                    loose_layers.push(LooseLayerSpec {
                        placement: named(set, &p)?,
                        origin: [c[0] + o[0], c[1] + o[1]],
                        angle_deg,
                    });
                    taken.push((c, layer_r));
                    break;
                }
            }
        }

        let mut other_player = None;
        if chance(rng, d.other_player) {
            for _ in 0..30 {
                let out = uniform(rng, -0.05, 0.15);
                let Some(edge) = edge_ground(rng, out) else {
                    continue;
                };
                if !free(&taken, edge, card_r) {
                    continue;
                }
                let (others, _) = resolve_stack(
                    set,
                    rng,
                    &StackChoice::Random {
                        min_layers: 2,
                        max_layers: 5,
                    },
                )?;
                let angle = uniform(rng, 0.0, 360.0);
                other_player = Some(random_stack(rng, set, &others, edge, angle, 1.5)?);
                taken.push((edge, card_r));
                break;
            }
        }

        let mut tokens = Vec::new();
        if chance(rng, d.tokens) {
            for _ in 0..rng.gen_range(1..=4) {
                let radius = uniform(rng, 0.5, 1.1);
                for _ in 0..30 {
                    let dist = card_r + uniform(rng, 0.5, 12.0);
                    let c = rotate([dist, 0.0], uniform(rng, 0.0, 360.0));
                    if !in_view(c, 0.0) || !free(&taken, c, radius) {
                        continue;
                    }
                    let colour = pick(
                        rng,
                        &[
                            0xd4af37, 0xc0c0c8, 0xb87333, 0xc02828, 0x2850c0, 0x208040, 0xf0f0f0,
                            0x202020,
                        ],
                    );
                    tokens.push(TokenSpec {
                        center: c,
                        radius,
                        thickness: uniform(rng, 0.08, 0.15),
                        colour: jitter(rng, srgb(colour), 10.0),
                    });
                    taken.push((c, radius));
                    break;
                }
            }
        }

        let arm_from = edge_ground(rng, 0.3).unwrap_or([card_r * 4.0, 0.0]);
        let light = random_light(
            rng,
            degradation,
            [0.0, 0.0],
            &|p| stack.to_world(p),
            [cols as f64, rows as f64],
            arm_from,
        );
        let sensor = random_sensor(rng, degradation);
        Ok(LayersSceneSpec {
            seed,
            degradation,
            camera,
            table,
            materials,
            stack,
            mission_card,
            loose_layers,
            other_player,
            tokens,
            light,
            sensor,
        })
    }

    /// What a flat, unshadowed, glare-free surface printed in `printed` looks like in this
    /// scene at the reference irradiance (the stack's centre), before vignetting, blur and
    /// noise: the light's residual cast and the exposure, through the tone curve.
    pub fn expected_srgb(&self, printed: Srgb) -> Srgb {
        let cast = self.light.cast();
        let a = crate::light::albedo(printed);
        let v: [u8; 3] =
            [0, 1, 2].map(|i| crate::light::linear_to_srgb(crate::degrade::tone(a[i] * cast[i])));
        Srgb::new(v[0], v[1], v[2])
    }
}

/// Size (w, h) of a mission card with these margins and digit.
pub(crate) fn mission_size(
    set: &LayersSet,
    margins: &[f64; 4],
    place: DigitPlace,
    digit_height: f64,
) -> (f64, f64) {
    let r = mission_rect(set, margins, place, digit_height);
    (r[2] - r[0], r[3] - r[1])
}

/// The mission card's outline in its own frame (printed grid at `[0, cols] × [0, rows]`).
pub(crate) fn mission_rect(
    set: &LayersSet,
    margins: &[f64; 4],
    place: DigitPlace,
    digit_height: f64,
) -> [f64; 4] {
    let f = set.frame_width();
    let (w, h) = (set.cols() as f64, set.rows() as f64);
    let room = digit_height + 0.4;
    let (extra_r, extra_b) = match place {
        DigitPlace::Right => (room, 0.0),
        DigitPlace::Below => (0.0, room),
    };
    [
        -f - margins[0],
        -f - margins[1],
        w + f + margins[2] + extra_r,
        h + f + margins[3] + extra_b,
    ]
}

fn mission_middle(
    set: &LayersSet,
    margins: &[f64; 4],
    place: DigitPlace,
    digit_height: f64,
) -> [f64; 2] {
    let r = mission_rect(set, margins, place, digit_height);
    [(r[0] + r[2]) * 0.5, (r[1] + r[3]) * 0.5]
}

pub(crate) fn check_size(width: u32, height: u32) -> Result<(), RenderError> {
    if !(16..=16384).contains(&width) || !(16..=16384).contains(&height) {
        return Err(RenderError::ImageSize { width, height });
    }
    Ok(())
}

/// A random camera that sees the whole player card, its frame spanning 20–70 % of the image's
/// shorter side.
fn random_camera(
    rng: &mut impl Rng,
    options: &SceneOptions,
    set: &LayersSet,
    stack: &StackSpec,
    degradation: Degradation,
) -> CameraSpec {
    let f = set.frame_width();
    let (cols, rows) = (set.cols() as f64, set.rows() as f64);
    let side = cols.max(rows) + 2.0 * f;
    let centre = stack.to_world([cols / 2.0, rows / 2.0]);
    let m = stack.card_margins;
    let card = [
        [-f - m[0], -f - m[1]],
        [cols + f + m[2], -f - m[1]],
        [cols + f + m[2], rows + f + m[3]],
        [-f - m[0], rows + f + m[3]],
    ]
    .map(|p| stack.to_world(p));
    let size = (options.width, options.height);
    random_camera_on(rng, size, degradation, centre, side, &card, [0.2, 0.5])
}

/// A random camera looking near `centre` that sees every point of `must_see`, a thing `side`
/// across spanning `fraction[0]` to `fraction[0] + fraction[1]` of the image's shorter side.
pub(crate) fn random_camera_on(
    rng: &mut impl Rng,
    (width, height): (u32, u32),
    degradation: Degradation,
    centre: [f64; 2],
    side: f64,
    must_see: &[[f64; 2]],
    fraction: [f64; 2],
) -> CameraSpec {
    let (w, h) = (f64::from(width), f64::from(height));
    let mut best = None;
    for attempt in 0..200 {
        // Shrink the ranges as attempts fail, so that a fitting camera is always found.
        let ease = 1.0 - attempt as f64 / 250.0;
        let hfov = uniform(rng, 50.0, 75.0).to_radians();
        let focal_px = (w * 0.5) / (hfov * 0.5).tan();
        let fraction = uniform(rng, fraction[0], fraction[0] + fraction[1] * ease);
        let distance = focal_px * side / (fraction * w.min(h));
        let span = w.min(h) / fraction * side / w.min(h);
        let off = rotate(
            [
                uniform(rng, 0.0, (1.0 - fraction) * 0.45 * span * ease),
                0.0,
            ],
            uniform(rng, 0.0, 360.0),
        );
        let k1 = match degradation {
            Degradation::Clean => 0.0,
            Degradation::Realistic if chance(rng, 0.5) => 0.0,
            Degradation::Realistic => uniform(rng, 0.0, 0.05),
            Degradation::Harsh => uniform(rng, 0.0, 0.1),
        };
        let spec = CameraSpec {
            width,
            height,
            focal_px,
            principal: [
                (w - 1.0) * 0.5 + uniform(rng, -0.01, 0.01) * w,
                (h - 1.0) * 0.5 + uniform(rng, -0.01, 0.01) * h,
            ],
            distortion_k1: k1,
            target: [centre[0] + off[0], centre[1] + off[1]],
            distance,
            // sqrt: not too many near-vertical shots, as handheld phones are rarely level.
            tilt_deg: 40.0 * uniform(rng, 0.0, 1.0).sqrt() * ease,
            azimuth_deg: uniform(rng, 0.0, 360.0),
            roll_deg: uniform(rng, 0.0, 360.0),
        };
        let cam = Camera::new(&spec);
        let fits = must_see.iter().all(|p| {
            cam.project([p[0], p[1], 0.0]).is_some_and(|q| {
                q[0] > 0.02 * w && q[1] > 0.02 * h && q[0] < 0.98 * w && q[1] < 0.98 * h
            })
        });
        if fits {
            return spec;
        }
        best = Some(spec);
    }
    // Unreachable in practice (the last attempts look straight down at a small stack);
    // keep the last try rather than fail.
    best.unwrap_or_else(|| CameraSpec {
        width,
        height,
        focal_px: w,
        principal: [(w - 1.0) * 0.5, (h - 1.0) * 0.5],
        distortion_k1: 0.0,
        target: centre,
        distance: w * side / (0.3 * w.min(h)),
        tilt_deg: 0.0,
        azimuth_deg: 0.0,
        roll_deg: 0.0,
    })
}
