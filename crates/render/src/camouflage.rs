//! Camouflage scenes: a board of overlapping 3×3 cards on a table, seen by a random camera
//! under random light ([`CamouflageSceneSpec`]), drawn by [`render_camouflage`] with its
//! ground truth ([`CamouflageTruth`]).
//!
//! Units on the table are squares (a real square is about 2 cm). The *board frame* has
//! lattice square (row 0, column 0)'s corner at its origin, x along columns and y along rows,
//! so square `(r, c)` covers `[c, c+1] × [r, r+1]`. Cards lie in the order they were laid, each
//! a card's thickness above the one before, a little off the lattice as a hand leaves them.

use image::RgbImage;
use rand::Rng;
use serde::{Deserialize, Serialize};
use tablejudge_rules::camouflage::{
    Board, CamouflageSet, History, LatticePos, Placement, PlacementRules, SideIdx, Square,
};
use tablejudge_rules::{Pos, Srgb, Turn};

use crate::camera::{Camera, CameraSpec};
use crate::degrade::{develop, encode_jpeg, SensorSpec};
use crate::layers_render::Corners;
use crate::layers_scene::{
    chance, check_size, jitter, jpick, random_camera_on, random_light, random_sensor, random_table,
    rotate, srgb, uniform, Degradation,
};
use crate::light::{albedo, LightSpec};
use crate::objects::{CamouflageCard, Object, Shape};
use crate::raytrace::{rasterise, Renderer};
use crate::table::{Table, TableSpec};
use crate::RenderError;

/// The `format` of a Camouflage truth file.
pub const CAMOUFLAGE_TRUTH_FORMAT: &str = "tablejudge/camouflage-truth@1";

/// One card on the board.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct CardSpec {
    /// The card's id in the set.
    pub card: String,
    /// The lattice square of its centre.
    pub centre: LatticePos,
    pub turn: Turn,
    /// How far the hand left it off the lattice: translation (squares) and rotation about its
    /// centre (degrees).
    pub offset: [f64; 2],
    pub rotation_deg: f64,
}

/// How the cards are made.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct CardMaterial {
    /// Card thickness, squares.
    pub thickness: f64,
    /// Width of the stock border around the squares, squares.
    pub border: f64,
    /// Corner radius, squares.
    pub corner_radius: f64,
    pub stock: Srgb,
    /// The centre symbols' ink.
    pub ink: Srgb,
    pub gloss: f64,
    pub table_gloss: f64,
}

/// A forearm and hand held over the table (a player reaching in to lay a card).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct HandSpec {
    /// Where the arm comes from and where the hand's tip is, on the table (world units).
    pub from: [f64; 2],
    pub to: [f64; 2],
    pub radius: f64,
    /// Height of its top above the table, squares.
    pub height: f64,
    pub colour: Srgb,
}

/// One photo of a game: the table after `cards` cards were laid, perhaps with a hand over it.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct SeriesFrame {
    pub spec: CamouflageSceneSpec,
    /// How many cards lie on the table.
    pub cards: usize,
    /// A hand is over the table: the frame shows no settled board.
    pub hand: bool,
}

/// A photo series of the game that made `board`, one photo after each card (the starting
/// board's three cards in one), from one camera held a little unsteadily under one light.
/// Before a photo, with chance `hand_chance`, a photo with the hand still over the card just
/// laid. Every random choice comes from `rng`.
pub fn random_series(
    set: &CamouflageSet,
    board: &Board,
    rng: &mut impl Rng,
    size: (u32, u32),
    degradation: Degradation,
    hand_chance: f64,
) -> Result<Vec<SeriesFrame>, RenderError> {
    let base = CamouflageSceneSpec::random(set, board, rng, size, degradation)?;
    let n = base.cards.len();
    // The hand reaches for the card's lattice square.
    let aim = |c: &CardSpec| [f64::from(c.centre.col) + 0.5, f64::from(c.centre.row) + 0.5];
    Ok(series_frames(&base, n.min(3), rng, hand_chance, aim))
}

/// A photo of `base` after each card from the `first` cards on, each with a new sensor
/// noise and the camera a little moved, and with chance `hand_chance` a photo before it with
/// the hand still over the card just laid, reaching for the board-frame point `aim` gives.
fn series_frames(
    base: &CamouflageSceneSpec,
    first: usize,
    rng: &mut impl Rng,
    hand_chance: f64,
    aim: impl Fn(&CardSpec) -> [f64; 2],
) -> Vec<SeriesFrame> {
    let cam = Camera::new(&base.camera);
    let mut frames = Vec::new();
    for cards in first..=base.cards.len() {
        let mut spec = base.clone();
        spec.cards.truncate(cards);
        shake(&mut spec, rng);
        if cards > first && chance(rng, hand_chance) {
            let at = aim(&spec.cards[cards - 1]);
            frames.push(SeriesFrame {
                spec: with_hand(&spec, at, &cam, rng),
                cards,
                hand: true,
            });
        }
        frames.push(SeriesFrame {
            spec,
            cards,
            hand: false,
        });
    }
    frames
}

/// A photo series of a Not My Stack! game, one photo after each card (every location's own
/// card in the first), as [`random_series`] makes one of a single board. `history` is the
/// game as played, every play naming its location.
pub fn random_locations_series(
    set: &CamouflageSet,
    history: &History,
    rng: &mut impl Rng,
    size: (u32, u32),
    degradation: Degradation,
    hand_chance: f64,
) -> Result<Vec<SeriesFrame>, RenderError> {
    let mut locations: Vec<Board> = history
        .start
        .iter()
        .map(|&p| {
            let mut b = Board::new(history.side, PlacementRules::GAME);
            b.place(set, p);
            b
        })
        .collect();
    let mut order: Vec<(usize, usize)> = (0..locations.len()).map(|l| (l, 0)).collect();
    for play in &history.plays {
        let l = play
            .location
            .filter(|&l| l < locations.len())
            .ok_or(RenderError::NoLocation)?;
        order.push((l, locations[l].placed().len()));
        locations[l].place(
            set,
            Placement {
                card: play.card,
                centre: play.centre,
                turn: play.turn,
            },
        );
    }
    let base =
        CamouflageSceneSpec::random_locations(set, &locations, &order, rng, size, degradation)?;
    // The hand reaches for where the card lies, off its lattice square to its location.
    let aim = |c: &CardSpec| {
        [
            f64::from(c.centre.col) + 0.5 + c.offset[0],
            f64::from(c.centre.row) + 0.5 + c.offset[1],
        ]
    };
    Ok(series_frames(
        &base,
        history.start.len(),
        rng,
        hand_chance,
        aim,
    ))
}

/// A new sensor noise and the small move of a hand-held or clamped camera between photos.
fn shake(spec: &mut CamouflageSceneSpec, rng: &mut impl Rng) {
    spec.sensor.noise_seed = rng.gen();
    let shake = 0.002 * spec.camera.distance;
    spec.camera.target[0] += uniform(rng, -shake, shake);
    spec.camera.target[1] += uniform(rng, -shake, shake);
    spec.camera.roll_deg += uniform(rng, -0.3, 0.3);
}

/// `spec` with a hand reaching in from past the picture's edge, where a player sits, to near
/// board-frame point `at` (the card just laid).
fn with_hand(
    spec: &CamouflageSceneSpec,
    at: [f64; 2],
    cam: &Camera,
    rng: &mut impl Rng,
) -> CamouflageSceneSpec {
    let (w, h) = (f64::from(spec.camera.width), f64::from(spec.camera.height));
    let tip = spec.to_world([
        at[0] + uniform(rng, -1.0, 1.0),
        at[1] + uniform(rng, -1.0, 1.0),
    ]);
    let t = rng.gen::<f64>();
    let (px, py) = match rng.gen_range(0..4) {
        0 => (t * w, -0.3 * h),
        1 => (t * w, 1.3 * h),
        2 => (-0.3 * w, t * h),
        _ => (1.3 * w, t * h),
    };
    let from = cam.ground(px, py, 0.0).unwrap_or([tip[0] + 30.0, tip[1]]);
    let mut held = spec.clone();
    held.sensor.noise_seed = rng.gen();
    held.hands.push(HandSpec {
        from,
        to: tip,
        radius: uniform(rng, 0.9, 1.5),
        height: uniform(rng, 1.5, 4.0),
        // Skin tones and sleeves.
        colour: jpick(
            rng,
            &[0xe0b095, 0xc68c6a, 0x8d5a3c, 0x5a3a28, 0x2a3a6a, 0x9a2a2a],
            10.0,
        ),
    });
    held
}

/// Everything about one Camouflage scene, every random choice made.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct CamouflageSceneSpec {
    /// Seed of the procedural textures.
    pub seed: u64,
    pub degradation: Degradation,
    /// The side of the cards face up (a side name of the set).
    pub side: String,
    /// The board frame in the world: its origin and its angle (degrees).
    pub origin: [f64; 2],
    pub angle_deg: f64,
    /// The cards in the order they were laid.
    pub cards: Vec<CardSpec>,
    pub material: CardMaterial,
    /// Hands over the table.
    #[serde(default)]
    pub hands: Vec<HandSpec>,
    pub camera: CameraSpec,
    pub table: TableSpec,
    pub light: LightSpec,
    pub sensor: SensorSpec,
}

/// What one visible lattice square shows.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct SquareTruth {
    pub row: i32,
    pub col: i32,
    /// The pattern key, or `*` for a card's centre.
    pub square: char,
    /// The card on top there (index into the truth's `cards`) and its deck.
    pub card: usize,
    pub deck: String,
    /// The square's middle in the picture.
    pub center: [f64; 2],
    /// Fraction of the square's inner part the camera sees (the picture's edge or a hand may
    /// hide some).
    pub visible: f64,
}

/// Ground truth of a rendered Camouflage scene.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct CamouflageTruth {
    pub format: String,
    pub width: u32,
    pub height: u32,
    pub side: String,
    /// The cards in the order they were laid.
    pub cards: Vec<CardSpec>,
    /// Every lattice square with a card on it, row by row.
    pub squares: Vec<SquareTruth>,
    /// The visible board as text, `.` for the table, from `top_left`.
    pub top_left: LatticePos,
    pub picture: Vec<String>,
    /// The board's bounding box of squares in the picture, clockwise from its top-left
    /// corner (at table height).
    pub corners: Corners,
    pub degradation: Degradation,
    pub camera: CameraSpec,
    pub light: LightSpec,
    pub sensor: SensorSpec,
}

/// A rendered Camouflage scene.
#[derive(Clone, Debug)]
pub struct CamouflageScene {
    pub image: RgbImage,
    pub truth: CamouflageTruth,
}

impl CamouflageScene {
    /// The picture as a JPEG of the scene's quality.
    pub fn jpeg(&self) -> Result<Vec<u8>, RenderError> {
        encode_jpeg(&self.image, self.truth.sensor.jpeg_quality)
    }
}

impl CamouflageSceneSpec {
    /// A point of the board frame in world coordinates.
    pub fn to_world(&self, p: [f64; 2]) -> [f64; 2] {
        let r = rotate(p, self.angle_deg);
        [self.origin[0] + r[0], self.origin[1] + r[1]]
    }

    /// Makes every random choice of a scene of `board` (its cards in the order laid); the
    /// same `rng` state gives the same spec.
    pub fn random(
        set: &CamouflageSet,
        board: &Board,
        rng: &mut impl Rng,
        (width, height): (u32, u32),
        degradation: Degradation,
    ) -> Result<CamouflageSceneSpec, RenderError> {
        check_size(width, height)?;
        let Some((lo, hi)) = board.bounds() else {
            return Err(RenderError::EmptyBoard);
        };
        let seed: u64 = rng.gen();
        let sloppy = degradation != Degradation::Clean;
        let cards = board
            .placed()
            .iter()
            .map(|pc| {
                let p = pc.placement;
                let (offset, rotation_deg) = if sloppy {
                    (
                        [uniform(rng, -0.04, 0.04), uniform(rng, -0.04, 0.04)],
                        uniform(rng, -1.2, 1.2),
                    )
                } else {
                    ([0.0; 2], 0.0)
                };
                CardSpec {
                    card: set.card(p.card).id.clone(),
                    centre: p.centre,
                    turn: p.turn,
                    offset,
                    rotation_deg,
                }
            })
            .collect();
        let side_name = set.side(board.side()).name.clone();
        let area = (
            [f64::from(lo.col), f64::from(lo.row)],
            [f64::from(hi.col + 1), f64::from(hi.row + 1)],
        );
        Ok(dress(
            side_name,
            seed,
            cards,
            area,
            rng,
            (width, height),
            degradation,
        ))
    }

    /// Makes every random choice of a Not My Stack! scene: each location's table (its cards
    /// in the order laid) set out around the middle of the table, facing its owner, the way
    /// players lay them in front of themselves. The cards are in `order` (location, index
    /// into that location's placements), the order they were laid across the table.
    ///
    /// Location `l`'s lattice lies `l` strides of columns from location 0's in the spec and
    /// its truth, so that the locations' squares never share a lattice position; each card's
    /// `offset` and `rotation_deg` carry it to where its location lies on the table.
    pub fn random_locations(
        set: &CamouflageSet,
        locations: &[Board],
        order: &[(usize, usize)],
        rng: &mut impl Rng,
        (width, height): (u32, u32),
        degradation: Degradation,
    ) -> Result<CamouflageSceneSpec, RenderError> {
        check_size(width, height)?;
        let bounds: Vec<(LatticePos, LatticePos)> = locations
            .iter()
            .map(|b| b.bounds().ok_or(RenderError::EmptyBoard))
            .collect::<Result<_, _>>()?;
        let Some(first) = locations.first() else {
            return Err(RenderError::EmptyBoard);
        };
        let seed: u64 = rng.gen();
        let n = locations.len();
        // Each location in front of its player: players sit around an oval table, the
        // location turned to face them, a little askew.
        let reach: Vec<f64> = bounds
            .iter()
            .map(|(lo, hi)| {
                let (w, h) = (
                    f64::from(hi.col - lo.col + 1),
                    f64::from(hi.row - lo.row + 1),
                );
                0.5 * w.hypot(h)
            })
            .collect();
        let seat: Vec<f64> = (0..n)
            .map(|l| 90.0 + 360.0 * l as f64 / n as f64 + uniform(rng, -10.0, 10.0))
            .collect();
        let facing: Vec<f64> = seat
            .iter()
            .map(|&a| a - 90.0 + uniform(rng, -15.0, 15.0))
            .collect();
        let at = |l: usize, k: f64| {
            let a = seat[l].to_radians();
            [1.5 * k * a.cos(), k * a.sin()]
        };
        // The smallest oval on which no two locations come within two squares.
        let mut k = 1.0;
        while (0..n).any(|i| {
            (i + 1..n).any(|j| {
                let (p, q) = (at(i, k), at(j, k));
                (p[0] - q[0]).hypot(p[1] - q[1]) < reach[i] + reach[j] + 2.0
            })
        }) {
            k += 0.5;
        }
        let mut stride = Vec::with_capacity(n);
        let mut next = 0;
        for (lo, hi) in &bounds {
            stride.push(next - lo.col);
            next += hi.col - lo.col + 3;
        }
        let sloppy = degradation != Degradation::Clean;
        let mut cards = Vec::with_capacity(order.len());
        let mut area = ([f64::INFINITY; 2], [f64::NEG_INFINITY; 2]);
        for &(l, i) in order {
            let p = locations[l]
                .placed()
                .get(i)
                .ok_or(RenderError::EmptyBoard)?
                .placement;
            let (lo, hi) = bounds[l];
            let middle = [
                f64::from(lo.col + hi.col + 1) / 2.0,
                f64::from(lo.row + hi.row + 1) / 2.0,
            ];
            let (hand, twist) = if sloppy {
                (
                    [uniform(rng, -0.04, 0.04), uniform(rng, -0.04, 0.04)],
                    uniform(rng, -1.2, 1.2),
                )
            } else {
                ([0.0; 2], 0.0)
            };
            let local = rotate(
                [
                    f64::from(p.centre.col) + 0.5 - middle[0] + hand[0],
                    f64::from(p.centre.row) + 0.5 - middle[1] + hand[1],
                ],
                facing[l],
            );
            let o = at(l, k);
            let mid = [o[0] + local[0], o[1] + local[1]];
            for (d, v) in mid.iter().enumerate() {
                area.0[d] = area.0[d].min(v - 1.5);
                area.1[d] = area.1[d].max(v + 1.5);
            }
            let centre = p.centre.offset(0, stride[l]);
            cards.push(CardSpec {
                card: set.card(p.card).id.clone(),
                centre,
                turn: p.turn,
                offset: [
                    mid[0] - f64::from(centre.col) - 0.5,
                    mid[1] - f64::from(centre.row) - 0.5,
                ],
                rotation_deg: facing[l] + twist,
            });
        }
        let side_name = set.side(first.side()).name.clone();
        Ok(dress(
            side_name,
            seed,
            cards,
            area,
            rng,
            (width, height),
            degradation,
        ))
    }
}

/// The rest of a scene whose cards are chosen: card stock, the board's place on the table,
/// camera, table cloth, light and sensor, framing `area` (board-frame corners, min and max).
fn dress(
    side_name: String,
    seed: u64,
    cards: Vec<CardSpec>,
    (min, max): ([f64; 2], [f64; 2]),
    rng: &mut impl Rng,
    (width, height): (u32, u32),
    degradation: Degradation,
) -> CamouflageSceneSpec {
    let stock = jitter(rng, srgb(0xf4f0e6), 8.0);
    let material = CardMaterial {
        thickness: uniform(rng, 0.012, 0.02),
        border: uniform(rng, 0.02, 0.06),
        corner_radius: uniform(rng, 0.05, 0.15),
        stock,
        ink: jitter(rng, srgb(0x26221e), 10.0),
        gloss: uniform(rng, 0.1, 0.4),
        table_gloss: uniform(rng, 0.05, 0.5),
    };
    let angle_deg = uniform(rng, 0.0, 360.0);
    // The board frame's origin is placed so that the board's middle is the world origin.
    let extent = [max[0] - min[0], max[1] - min[1]];
    let mid = [min[0] + extent[0] / 2.0, min[1] + extent[1] / 2.0];
    let m = rotate(mid, angle_deg);
    let origin = [-m[0], -m[1]];
    let frame = |p: [f64; 2]| {
        let r = rotate(p, angle_deg);
        [origin[0] + r[0], origin[1] + r[1]]
    };
    let (c0, r0) = (min[0], min[1]);
    let (c1, r1) = (max[0], max[1]);
    let corners = [[c0, r0], [c1, r0], [c1, r1], [c0, r1]].map(frame);
    let side = extent[0].max(extent[1]);
    let camera = random_camera_on(
        rng,
        (width, height),
        degradation,
        [0.0, 0.0],
        side,
        &corners,
        [0.6, 0.35],
    );
    let table = random_table(rng);
    let cam = Camera::new(&camera);
    let arm_from = cam
        .ground(f64::from(width) * 1.2, f64::from(height) * 0.5, 0.0)
        .unwrap_or([side * 2.0, 0.0]);
    let light = random_light(
        rng,
        degradation,
        [0.0, 0.0],
        &|p| frame([p[0] + c0, p[1] + r0]),
        extent,
        arm_from,
    );
    let sensor = random_sensor(rng, degradation);
    CamouflageSceneSpec {
        seed,
        degradation,
        side: side_name,
        origin,
        angle_deg,
        cards,
        material,
        hands: Vec::new(),
        camera,
        table,
        light,
        sensor,
    }
}

/// The set's placements of `spec`'s cards, checked against the set.
fn placements(
    set: &CamouflageSet,
    spec: &CamouflageSceneSpec,
) -> Result<Vec<Placement>, RenderError> {
    spec.cards
        .iter()
        .map(|c| {
            let card = set
                .card_by_id(&c.card)
                .ok_or_else(|| RenderError::UnknownCard(c.card.clone()))?;
            Ok(Placement {
                card,
                centre: c.centre,
                turn: c.turn,
            })
        })
        .collect()
}

/// The picture's pattern colour of `key` on `side`, grey when the set gives none.
fn pattern_albedo(set: &CamouflageSet, side: usize, key: tablejudge_rules::Key) -> [f32; 3] {
    set.sides()[side]
        .patterns
        .get(&key)
        .and_then(|p| p.srgb)
        .map_or([0.5; 3], albedo)
}

/// The objects on the table: the cards of `placed` (the spec's, resolved) in the order laid,
/// then the hands.
fn build(
    set: &CamouflageSet,
    side: SideIdx,
    placed: &[Placement],
    spec: &CamouflageSceneSpec,
) -> Result<Vec<Object>, RenderError> {
    let keys: Vec<tablejudge_rules::Key> = set.side(side).patterns.keys().copied().collect();
    let m = &spec.material;
    let mut objects = Vec::with_capacity(spec.cards.len());
    let stock = albedo(m.stock);
    for (i, (c, p)) in spec.cards.iter().zip(placed).enumerate() {
        let face = set.face(p.card, side);
        let mut squares = [[0.0f32; 3]; 9];
        let mut textures = [0u8; 9];
        for (k, (sq, tex)) in squares.iter_mut().zip(textures.iter_mut()).enumerate() {
            if let Square::Pattern(key) = face.square(p.turn, Pos::new(k / 3, k % 3)) {
                *sq = pattern_albedo(set, side.0 as usize, key);
                *tex = keys.iter().position(|&x| x == key).unwrap_or(0) as u8;
            }
        }
        let shape = Shape::Camouflage(Box::new(CamouflageCard {
            squares,
            textures,
            stock,
            ink: albedo(m.ink),
            symbol: set.card(p.card).deck.0 as u8,
            turn: p.turn.quarter_turns(),
            border: m.border,
            radius: m.corner_radius,
        }));
        // The card's corner in the board frame, turned about the card's middle.
        let mid = [
            f64::from(c.centre.col) + 0.5 + c.offset[0],
            f64::from(c.centre.row) + 0.5 + c.offset[1],
        ];
        let r = rotate([1.5, 1.5], c.rotation_deg);
        let corner = spec.to_world([mid[0] - r[0], mid[1] - r[1]]);
        let top = (i + 1) as f64 * m.thickness;
        objects.push(Object::new(
            shape,
            corner,
            (spec.angle_deg + c.rotation_deg).to_radians(),
            top,
            m.thickness,
            m.gloss,
            stock.map(|v| v * 0.8),
            (spec.seed as u32).wrapping_add(i as u32 * 7919),
        ));
    }
    for (i, h) in spec.hands.iter().enumerate() {
        let (dx, dy) = (h.to[0] - h.from[0], h.to[1] - h.from[1]);
        let colour = albedo(h.colour);
        objects.push(Object::new(
            Shape::Arm {
                length: (dx * dx + dy * dy).sqrt(),
                radius: h.radius,
                colour,
            },
            h.from,
            dy.atan2(dx),
            h.height,
            h.radius.min(h.height),
            0.2,
            colour.map(|v| v * 0.7),
            (spec.seed as u32) ^ (0x4a4d + i as u32),
        ));
    }
    if objects.len() > usize::from(u16::MAX) {
        return Err(RenderError::TooManyObjects(objects.len()));
    }
    Ok(objects)
}

/// Renders `spec` (made for `set`) into a picture and its ground truth.
pub fn render_camouflage(
    set: &CamouflageSet,
    spec: &CamouflageSceneSpec,
) -> Result<CamouflageScene, RenderError> {
    check_size(spec.camera.width, spec.camera.height)?;
    let side = set
        .side_by_name(&spec.side)
        .ok_or_else(|| RenderError::UnknownSide(spec.side.clone()))?;
    let placed = placements(set, spec)?;
    let objects = build(set, side, &placed, spec)?;
    let r = Renderer::new(
        &spec.camera,
        &spec.light,
        Table::new(&spec.table, spec.seed as u32 ^ 0xa5a5),
        spec.material.table_gloss,
        [0.0, 0.0],
        &objects,
    );
    let image = develop(rasterise(&r), &spec.sensor);
    let truth = truth(set, side, &placed, spec, &r)?;
    Ok(CamouflageScene { image, truth })
}

fn truth(
    set: &CamouflageSet,
    side: SideIdx,
    placed: &[Placement],
    spec: &CamouflageSceneSpec,
    r: &Renderer,
) -> Result<CamouflageTruth, RenderError> {
    // The board as the rules see it: legality does not matter here, only what lies on top.
    let mut board = Board::new(side, tablejudge_rules::camouflage::PlacementRules::GAME);
    for &p in placed {
        board.place(set, p);
    }
    let Some((top_left, picture)) = board.picture() else {
        return Err(RenderError::EmptyBoard);
    };
    let (lo, hi) = board.bounds().ok_or(RenderError::EmptyBoard)?;
    let mut squares = Vec::new();
    for row in lo.row..=hi.row {
        for col in lo.col..=hi.col {
            let pos = LatticePos::new(row, col);
            let Some((card, square)) = board.top(pos) else {
                continue;
            };
            let o = &r.objects[card];
            let c = &spec.cards[card];
            // The square's middle on its card: the card's local frame is the turned card.
            let local = [
                f64::from(col - c.centre.col) + 1.5,
                f64::from(row - c.centre.row) + 1.5,
            ];
            let centre = o.to_world(local);
            // A 5 × 5 raster over the square's inner part.
            let seen = (0..25)
                .filter(|k| {
                    let (i, j) = (f64::from(k % 5), f64::from(k / 5));
                    let l = [local[0] - 0.3 + 0.15 * i, local[1] - 0.3 + 0.15 * j];
                    r.sees_top(card, o.to_world(l))
                })
                .count();
            let deck = set.card(placed[card].card).deck;
            squares.push(SquareTruth {
                row,
                col,
                square: square.char(),
                card,
                deck: set.deck(deck).id.clone(),
                center: r
                    .cam
                    .project([centre[0], centre[1], -o.top])
                    .unwrap_or([f64::NAN; 2]),
                visible: seen as f64 / 25.0,
            });
        }
    }
    let (c0, r0) = (f64::from(lo.col), f64::from(lo.row));
    let (c1, r1) = (f64::from(hi.col + 1), f64::from(hi.row + 1));
    let corners = [[c0, r0], [c1, r0], [c1, r1], [c0, r1]].map(|p| {
        let q = spec.to_world(p);
        r.cam.project([q[0], q[1], 0.0]).unwrap_or([f64::NAN; 2])
    });
    Ok(CamouflageTruth {
        format: CAMOUFLAGE_TRUTH_FORMAT.to_owned(),
        width: r.cam.width,
        height: r.cam.height,
        side: spec.side.clone(),
        cards: spec.cards.clone(),
        squares,
        top_left,
        picture,
        corners,
        degradation: spec.degradation,
        camera: spec.camera.clone(),
        light: spec.light.clone(),
        sensor: spec.sensor.clone(),
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use rand::SeedableRng;
    use rand_chacha::ChaCha8Rng;
    use tablejudge_rules::camouflage::{random_board, DeckIdx, SideIdx};

    fn set() -> CamouflageSet {
        let json = include_str!("../../../models/camouflage/reference.json");
        CamouflageSet::from_json(json, "reference.json").unwrap()
    }

    fn scene(set: &CamouflageSet, cards: usize, seed: u64, d: Degradation) -> CamouflageScene {
        let board = random_board(set, SideIdx(0), false, DeckIdx(1), cards, seed).unwrap();
        let mut rng = ChaCha8Rng::seed_from_u64(seed);
        let spec = CamouflageSceneSpec::random(set, &board, &mut rng, (800, 600), d).unwrap();
        render_camouflage(set, &spec).unwrap()
    }

    /// The mean of each channel over a 9 × 9 window: a square's print averaged over its
    /// texture.
    fn mean_at(img: &RgbImage, p: [f64; 2]) -> [f32; 3] {
        let (x, y) = (p[0].round() as i64, p[1].round() as i64);
        let mut sum = [0f32; 3];
        for dy in -4..=4 {
            for dx in -4..=4 {
                let v = img.get_pixel((x + dx) as u32, (y + dy) as u32).0;
                for k in 0..3 {
                    sum[k] += f32::from(v[k]) / 81.0;
                }
            }
        }
        sum
    }

    #[test]
    fn the_truth_is_the_board_the_rules_see() {
        let set = set();
        let s = scene(&set, 10, 4, Degradation::Realistic);
        let t = &s.truth;
        assert_eq!(t.cards.len(), 10);
        // Every card's centre shows (no wild centres): one `*` per card, in picture and list.
        let stars: usize = t.picture.iter().map(|r| r.matches('*').count()).sum();
        assert_eq!(stars, 10);
        assert_eq!(t.squares.iter().filter(|q| q.square == '*').count(), 10);
        for q in &t.squares {
            let row = &t.picture[(q.row - t.top_left.row) as usize];
            assert_eq!(
                row.chars().nth((q.col - t.top_left.col) as usize),
                Some(q.square)
            );
            assert!(q.visible == 1.0, "{q:?}: the camera sees the whole board");
        }
    }

    #[test]
    fn each_square_is_drawn_in_its_pattern_colour_and_each_centre_with_its_symbol() {
        let set = set();
        let s = scene(&set, 8, 9, Degradation::Clean);
        let side = &set.sides()[0];
        let colours: Vec<(char, [f32; 3])> = side
            .patterns
            .iter()
            .map(|(k, p)| (k.char(), p.srgb.unwrap().to_array().map(f32::from)))
            .collect();
        let mut checked = 0;
        for q in s.truth.squares.iter().filter(|q| q.square != '*') {
            let m = mean_at(&s.image, q.center);
            let nearest = colours
                .iter()
                .min_by(|a, b| {
                    let d = |c: &[f32; 3]| (0..3).map(|i| (c[i] - m[i]).powi(2)).sum::<f32>();
                    d(&a.1).total_cmp(&d(&b.1))
                })
                .unwrap();
            assert_eq!(
                nearest.0, q.square,
                "square ({}, {}) reads {m:?}",
                q.row, q.col
            );
            checked += 1;
        }
        assert!(checked > 30);
        // A centre is light stock with dark ink on it: dark pixels in its inner half, light
        // ones near its corners.
        let at = |row: i32, col: i32| {
            let q = s
                .truth
                .squares
                .iter()
                .find(|q| q.row == row && q.col == col);
            q.map(|q| q.center)
        };
        for q in s.truth.squares.iter().filter(|q| q.square == '*') {
            // Every centre has its card's eight squares around it.
            let right = at(q.row, q.col + 1).unwrap();
            let below = at(q.row + 1, q.col).unwrap();
            let u = [(right[0] - q.center[0]), (right[1] - q.center[1])];
            let v = [(below[0] - q.center[0]), (below[1] - q.center[1])];
            let lum = |a: f64, b: f64| {
                let p = [
                    q.center[0] + a * u[0] + b * v[0],
                    q.center[1] + a * u[1] + b * v[1],
                ];
                let px = s
                    .image
                    .get_pixel(p[0].round() as u32, p[1].round() as u32)
                    .0;
                (f32::from(px[0]) + f32::from(px[1]) + f32::from(px[2])) / 3.0
            };
            let steps: Vec<f64> = (-4..=4).map(|i| f64::from(i) * 0.06).collect();
            let darkest = steps
                .iter()
                .flat_map(|&a| steps.iter().map(move |&b| (a, b)))
                .map(|(a, b)| lum(a, b))
                .fold(f32::INFINITY, f32::min);
            let corners = [(-0.38, -0.38), (0.38, -0.38), (0.38, 0.38), (-0.38, 0.38)];
            let lightest_corner = corners.iter().map(|&(a, b)| lum(a, b)).fold(0.0, f32::max);
            assert!(
                darkest < 90.0 && lightest_corner > 190.0,
                "centre ({}, {}) of {}: darkest {darkest}, corner {lightest_corner}",
                q.row,
                q.col,
                q.deck
            );
        }
    }

    #[test]
    fn a_series_shows_each_placement_once_settled_and_hands_over_the_card_being_laid() {
        let set = set();
        let board = random_board(&set, SideIdx(1), false, DeckIdx(2), 9, 5).unwrap();
        let mut rng = ChaCha8Rng::seed_from_u64(5);
        let frames = random_series(
            &set,
            &board,
            &mut rng,
            (480, 360),
            Degradation::Realistic,
            0.5,
        )
        .unwrap();
        let settled: Vec<usize> = frames.iter().filter(|f| !f.hand).map(|f| f.cards).collect();
        assert_eq!(settled, (3..=9).collect::<Vec<_>>());
        let hands: Vec<usize> = (0..frames.len()).filter(|&i| frames[i].hand).collect();
        assert!(!hands.is_empty());
        for i in hands {
            // The hand comes before the settled photo of the same board.
            assert_eq!(frames[i + 1].cards, frames[i].cards);
            assert!(!frames[i + 1].hand);
            let s = render_camouflage(&set, &frames[i].spec).unwrap();
            assert_eq!(s.truth.cards.len(), frames[i].cards);
            let hidden = s.truth.squares.iter().filter(|q| q.visible < 1.0).count();
            assert!(hidden > 0, "photo {i}: the hand hides no square");
        }
    }

    #[test]
    fn a_spec_renders_to_the_same_pixels_every_time() {
        let set = set();
        let a = scene(&set, 6, 2, Degradation::Harsh);
        let b = scene(&set, 6, 2, Degradation::Harsh);
        assert_eq!(a.image, b.image);
        assert_eq!(a.truth, b.truth);
    }
}
