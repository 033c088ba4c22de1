//! The reader against rendered boards, whose truth is known square by square.

use std::collections::{BTreeMap, BTreeSet};

use rand::SeedableRng;
use rand_chacha::ChaCha8Rng;
use tablejudge_render::{
    render_camouflage, CamouflageSceneSpec, CamouflageTruth, Degradation, SquareTruth,
};
use tablejudge_rules::camouflage::{random_board, CamouflageSet, DeckIdx, LatticePos, SideIdx};

use super::*;
use crate::camouflage::test_support::reading_of;
use crate::colour::LinRgb;
use tablejudge_rules::{Key, Srgb, Turn};

fn set() -> CamouflageSet {
    let json = include_str!("../../../../models/camouflage/reference.json");
    CamouflageSet::from_json(json, "reference.json").unwrap()
}

fn scene(
    set: &CamouflageSet,
    cards: usize,
    seed: u64,
    d: Degradation,
) -> (image::RgbImage, CamouflageTruth) {
    let board = random_board(set, SideIdx(0), false, DeckIdx(1), cards, seed).unwrap();
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    let spec = CamouflageSceneSpec::random(set, &board, &mut rng, (960, 720), d).unwrap();
    photo(set, &spec)
}

/// The photo of `spec` through JPEG, as photos come, and its truth.
fn photo(set: &CamouflageSet, spec: &CamouflageSceneSpec) -> (image::RgbImage, CamouflageTruth) {
    let s = render_camouflage(set, spec).unwrap();
    let jpeg = s.jpeg().unwrap();
    (crate::mat::decode_rgb(&jpeg).unwrap(), s.truth)
}

/// How a reading compares with the truth, the reading turned and shifted onto the truth's
/// lattice the way that matches the most centres, then the most squares.
#[derive(Debug, Default, PartialEq)]
struct Comparison {
    centres_missed: usize,
    centres_extra: usize,
    /// Card squares read as a different pattern, or as table.
    wrong: usize,
    unknown: usize,
    /// Truth deck → the symbol groups its centres were given.
    groups: BTreeMap<String, Vec<usize>>,
}

fn compare(reading: &CamouflageReading, truth: &CamouflageTruth) -> Comparison {
    let t: BTreeMap<(i32, i32), char> = truth
        .squares
        .iter()
        .map(|s| ((s.row, s.col), s.square))
        .collect();
    let read: Vec<((i32, i32), char)> = reading
        .squares
        .iter()
        .filter(|s| s.kind != SquareKind::Table)
        .map(|s| ((s.row, s.col), s.kind.char()))
        .collect();
    type Placed = BTreeMap<(i32, i32), char>;
    let mut best: Option<(usize, Placed)> = None;
    let anchor = truth.squares.iter().find(|s| s.square == '*').unwrap();
    for turn in 0..4 {
        let turned: Vec<((i32, i32), char)> = read
            .iter()
            .map(|&((r, c), k)| {
                let p = match turn {
                    0 => (r, c),
                    1 => (c, -r),
                    2 => (-r, -c),
                    _ => (-c, r),
                };
                (p, k)
            })
            .collect();
        for &((r, c), k) in &turned {
            if k != '*' {
                continue;
            }
            let (dr, dc) = (anchor.row - r, anchor.col - c);
            let moved: BTreeMap<(i32, i32), char> = turned
                .iter()
                .map(|&((r, c), k)| ((r + dr, c + dc), k))
                .collect();
            let score = t.iter().filter(|(p, k)| moved.get(p) == Some(k)).count()
                + 1000
                    * t.iter()
                        .filter(|(p, &k)| k == '*' && moved.get(p) == Some(&'*'))
                        .count();
            if best.as_ref().is_none_or(|b| score > b.0) {
                best = Some((score, moved));
            }
        }
    }
    let moved = best.map(|b| b.1).unwrap_or_default();
    let mut out = Comparison::default();
    for (p, &k) in &t {
        let got = moved.get(p).copied().unwrap_or('.');
        match (k, got) {
            ('*', '*') => {}
            ('*', _) => out.centres_missed += 1,
            (_, '?') => out.unknown += 1,
            (k, g) if k != g => out.wrong += 1,
            _ => {}
        }
    }
    out.centres_extra = moved
        .iter()
        .filter(|(p, &k)| k == '*' && t.get(p) != Some(&'*'))
        .count();
    out
}

fn read(
    img: &image::RgbImage,
    set: &CamouflageSet,
) -> Result<CamouflageReading, CamouflageReadError> {
    let options = CamouflageReadOptions {
        colours: Some(SideColours { set, side: None }),
        camera: None,
    };
    read_camouflage(img, &options)
}

/// Boards of 8 to 16 cards, in clean and in realistic light, each read square for square:
/// every centre, every pattern, the side.
#[test]
fn rendered_boards_are_read_square_for_square() {
    let set = set();
    for (seed, d) in [
        (2, Degradation::Clean),
        (2, Degradation::Realistic),
        (6, Degradation::Clean),
        (6, Degradation::Realistic),
        (8, Degradation::Realistic),
    ] {
        let (img, truth) = scene(&set, 8 + seed as usize, seed, d);
        let reading = read(&img, &set).unwrap_or_else(|e| panic!("board {seed} {d:?}: {e}"));
        assert_eq!(
            compare(&reading, &truth),
            Comparison::default(),
            "board {seed} {d:?}: {:?}",
            reading.picture
        );
        assert_eq!(reading.side.as_deref(), Some("animal"));
        assert_eq!(reading.centres.len(), truth.cards.len());
    }
}

/// The lattice block is upright and its corners are where the truth's board is: each read
/// centre lies on a true centre, within a tenth of a square.
#[test]
fn centres_are_found_where_the_cards_lie() {
    let set = set();
    let (img, truth) = scene(&set, 10, 2, Degradation::Realistic);
    let reading = read(&img, &set).unwrap();
    let pitch = crate::geom::dist(reading.corners[0], reading.corners[1]) / reading.cols as f32;
    for c in &reading.centres {
        let nearest = truth
            .squares
            .iter()
            .filter(|s| s.square == '*')
            .map(|s| crate::geom::dist(c.px, [s.center[0] as f32, s.center[1] as f32]))
            .fold(f32::MAX, f32::min);
        assert!(nearest < 0.1 * pitch, "{c:?} is {nearest} px from a centre");
    }
    // Upright: the block's top edge runs more left to right than its side does.
    let [a, b, _, d] = reading.corners;
    assert!(b[0] > a[0], "{:?}", reading.corners);
    assert!((b[0] - a[0]).abs() / reading.cols as f32 >= (d[0] - a[0]).abs() / reading.rows as f32);
}

/// A checked tablecloth alone: light squares with dark marks on them, but red ones and on
/// no cards: no centre, so no board.
#[test]
fn a_table_without_cards_has_no_centres() {
    let img = image::RgbImage::from_fn(640, 480, |x, y| {
        let (a, b) = ((x / 24) % 2 == 0, (y / 24) % 2 == 0);
        match (a, b) {
            (true, true) => image::Rgb([200, 30, 40]),
            (false, false) => image::Rgb([245, 240, 235]),
            _ => image::Rgb([225, 140, 145]),
        }
    });
    let set = set();
    assert_eq!(
        read(&img, &set).unwrap_err(),
        CamouflageReadError::NoCentres
    );
}

/// A set side without colours cannot name the squares: the error says which pattern.
#[test]
fn a_side_without_colours_is_named() {
    let mut json: serde_json::Value =
        serde_json::from_str(include_str!("../../../../models/camouflage/reference.json")).unwrap();
    json["sides"]["animal"]["g"]
        .as_object_mut()
        .unwrap()
        .remove("srgb");
    let set = CamouflageSet::from_json(&json.to_string(), "mine.json").unwrap();
    let (img, _) = scene(&set, 8, 2, Degradation::Realistic);
    let options = CamouflageReadOptions {
        colours: Some(SideColours {
            set: &set,
            side: Some(SideIdx(0)),
        }),
        camera: None,
    };
    let e = read_camouflage(&img, &options).unwrap_err();
    assert!(
        matches!(e, CamouflageReadError::NoColour { ref side, key } if side == "animal" && key.char() == 'g'),
        "{e:?}"
    );
}

/// The tone curve fitted to a photo's squares undoes a camera curve that compresses
/// highlights: squares measured through it are named as printed.
#[test]
fn the_tone_curve_follows_the_photo() {
    let printed: Vec<LinRgb> = [
        "#a8642d", "#c8963e", "#1f6f8b", "#5d7b36", "#e2761b", "#e9e6dc",
    ]
    .iter()
    .map(|h| LinRgb::from_srgb(h.parse::<Srgb>().unwrap()))
    .collect();
    // Measured = printed^0.8 × 1.1: every square brighter, the darker ones more so.
    let measured: Vec<Option<[f32; 3]>> = printed
        .iter()
        .cycle()
        .take(30)
        .map(|p| Some([p.r, p.g, p.b].map(|v| 1.1 * v.powf(0.8))))
        .collect();
    let curve = super::read::fit_gains(&measured, &printed, 1.0);
    for (m, p) in measured.iter().flatten().zip(printed.iter().cycle()) {
        let back = super::read::apply_gains(*m, curve);
        for (got, want) in back.iter().zip([p.r, p.g, p.b]) {
            assert!(
                (got - want).abs() < 0.02 * want.max(0.05),
                "{back:?} vs {p:?}"
            );
        }
    }
}

/// Every deck's symbol is found on its centre square, the hollow ones (ring, square) and the
/// one of two bars (found as either bar) included, on a clean board of three cards of that
/// deck.
#[test]
fn every_decks_symbol_is_found() {
    let set = set();
    for deck in 0..set.decks().len() as u16 {
        let board = random_board(&set, SideIdx(0), false, DeckIdx(deck), 3, 3).unwrap();
        let mut rng = ChaCha8Rng::seed_from_u64(3);
        let spec =
            CamouflageSceneSpec::random(&set, &board, &mut rng, (960, 720), Degradation::Clean)
                .unwrap();
        let s = render_camouflage(&set, &spec).unwrap();
        let image = crate::mat::decode_rgb(&s.jpeg().unwrap()).unwrap();
        let symbols = super::seeds::find_symbols(&image).unwrap();
        for t in s.truth.squares.iter().filter(|q| q.square == '*') {
            let found = symbols.iter().any(|s| {
                crate::geom::dist(s.centre, [t.center[0] as f32, t.center[1] as f32]) < 0.5 * s.size
            });
            assert!(
                found,
                "deck {}: no symbol found at {:?}",
                set.deck(DeckIdx(deck)).id,
                t.center
            );
        }
    }
}

/// A lone card small in a large photo (one location of a whole table): its eight dark
/// pattern squares close into one ring-shaped blob with the same middle as the symbol, light
/// table all around it. That blob must not hide the symbol inside it.
#[test]
fn a_small_cards_symbol_is_found_inside_the_blob_its_squares_make() {
    let (w, side) = (2160u32, 50u32);
    let mut image = image::RgbImage::from_pixel(w, w, image::Rgb([228, 222, 210]));
    let (x0, y0) = (w / 2 - 3 * side / 2, w / 2 - 3 * side / 2);
    for k in 0..9u32 {
        let colour = if k == 4 {
            image::Rgb([242, 238, 228])
        } else {
            image::Rgb([30, 90, 150])
        };
        for y in 0..side {
            for x in 0..side {
                image.put_pixel(x0 + (k % 3) * side + x, y0 + (k / 3) * side + y, colour);
            }
        }
    }
    // A diamond 20 pixels across in the middle of the centre square.
    let mid = (w / 2) as i32;
    for y in -10..=10i32 {
        for x in -10..=10i32 {
            if x.abs() + y.abs() <= 10 {
                image.put_pixel((mid + x) as u32, (mid + y) as u32, image::Rgb([25, 20, 25]));
            }
        }
    }
    let symbols = super::seeds::find_symbols(&image).unwrap();
    assert!(
        symbols.iter().any(|s| {
            crate::geom::dist(s.centre, [mid as f32, mid as f32]) < 3.0 && s.size < 30.0
        }),
        "{symbols:?}"
    );
}

/// A hollow square drawn in a thin line, a little turned, and blurred (a small card far from
/// the camera: seed 4's game 138) is dark only where the line falls on a pixel's middle; the
/// lighter pixels where it falls between two are most of it. A thin stroke is judged by the
/// darker half of its ink. A solid grey blob darker in its middle (a cloth's check) is judged
/// by all of its ink, and is no symbol.
#[test]
fn a_thin_hollow_square_blurred_is_found_and_a_solid_grey_blob_is_not() {
    // The symbols found near the middle of a card whose centre square (stock 250, luma 30
    // where fully inked) is inked as `coverage` says at (x, y) from its middle, supersampled
    // four by four.
    let symbols_in = |coverage: &dyn Fn(f32, f32) -> f32| {
        let (w, mid, half) = (720u32, 360i32, 18i32);
        let mut image = image::RgbImage::from_pixel(w, w, image::Rgb([120, 100, 80]));
        for y in -3 * half..3 * half {
            for x in -3 * half..3 * half {
                let colour = if x.abs() < half && y.abs() < half {
                    let mut covered = 0.0;
                    for k in 0..16 {
                        let (sx, sy) = ((k % 4) as f32 + 0.5, (k / 4) as f32 + 0.5);
                        covered += coverage(x as f32 + sx / 4.0 - 0.5, y as f32 + sy / 4.0 - 0.5);
                    }
                    let l = (250.0 - 220.0 * covered / 16.0).round() as u8;
                    image::Rgb([l, l, l])
                } else {
                    image::Rgb([40, 130, 170])
                };
                image.put_pixel((mid + x) as u32, (mid + y) as u32, colour);
            }
        }
        let image = imageproc::filter::gaussian_blur_f32(&image, 0.7);
        super::seeds::find_symbols(&image)
            .unwrap()
            .into_iter()
            .filter(|s| crate::geom::dist(s.centre, [mid as f32, mid as f32]) < 4.0)
            .count()
    };
    // An outline 18 pixels across and 1.1 wide, turned 7°.
    let (cos, sin) = (7f32.to_radians().cos(), 7f32.to_radians().sin());
    let outline = |x: f32, y: f32| {
        let m = (x * cos + y * sin).abs().max((y * cos - x * sin).abs());
        if (7.9..=9.0).contains(&m) {
            1.0
        } else {
            0.0
        }
    };
    assert_eq!(symbols_in(&outline), 1);
    // A square blob 13 pixels across, the ink's cover falling from 0.85 in its middle to 0.2
    // at its edge.
    let blob = |x: f32, y: f32| {
        let m = x.abs().max(y.abs());
        if m <= 6.5 {
            0.85 - 0.65 * m / 6.5
        } else {
            0.0
        }
    };
    assert_eq!(symbols_in(&blob), 0);
}

/// A card whose symbol the reader cannot see (smudged over here) is not read as table: its
/// squares that no other card's block reaches are read as card with no centre, so the
/// reading says a card is missing rather than report table there.
#[test]
fn a_card_whose_centre_is_missed_is_not_read_as_table() {
    let set = set();
    let (mut img, truth) = scene(&set, 6, 2, Degradation::Clean);
    // The card whose centre is farthest from the others: most of its squares are its own.
    let centres: Vec<&SquareTruth> = truth.squares.iter().filter(|s| s.square == '*').collect();
    let lonely = centres
        .iter()
        .max_by(|a, b| {
            let nearest = |c: &SquareTruth| {
                centres
                    .iter()
                    .filter(|o| (o.row, o.col) != (c.row, c.col))
                    .map(|o| (o.row - c.row).abs().max((o.col - c.col).abs()))
                    .min()
                    .unwrap_or(0)
            };
            nearest(a).cmp(&nearest(b))
        })
        .unwrap();
    // Its symbol smudged with the colour of the pattern beside it.
    let side = centres
        .iter()
        .filter(|c| (c.row, c.col) != (lonely.row, lonely.col))
        .map(|c| {
            crate::geom::dist(
                [c.center[0] as f32, c.center[1] as f32],
                [lonely.center[0] as f32, lonely.center[1] as f32],
            )
        })
        .fold(f32::MAX, f32::min)
        / 2.0;
    let [x, y] = [lonely.center[0] as f32, lonely.center[1] as f32];
    let r = 0.45 * side;
    for py in (y - r) as u32..=(y + r) as u32 {
        for px in (x - r) as u32..=(x + r) as u32 {
            img.put_pixel(px, py, image::Rgb([168, 100, 45]));
        }
    }
    let reading = read(&img, &set).unwrap();
    assert_eq!(reading.centres.len(), truth.cards.len() - 1);
    assert!(
        reading.orphans().count() >= 2,
        "the missed card's own squares read as table: {:?}",
        reading.picture
    );
}

/// An arm reaching from the photo's edge over the board hides a whole card, centre and all.
/// Around the board it fills a good share of the squares the table is judged by, but only on
/// its own side: what lies under it beside the cards is not taken for bare table, so the
/// reading is not whole.
#[test]
fn an_arm_over_a_card_is_not_taken_for_the_table() {
    let set = set();
    let (mut img, truth) = scene(&set, 6, 2, Degradation::Clean);
    let at: BTreeMap<(i32, i32), [f32; 2]> = truth
        .squares
        .iter()
        .map(|s| ((s.row, s.col), [s.center[0] as f32, s.center[1] as f32]))
        .collect();
    let centres: Vec<(i32, i32)> = truth
        .squares
        .iter()
        .filter(|s| s.square == '*')
        .map(|s| (s.row, s.col))
        .collect();
    // The card farthest from the others, most of its squares its own.
    let apart = |&(r, c): &(i32, i32)| {
        centres
            .iter()
            .filter(|&&o| o != (r, c))
            .map(|&(or, oc)| (or - r).abs().max((oc - c).abs()))
            .min()
            .unwrap_or(0)
    };
    let hidden = *centres.iter().max_by_key(|p| apart(p)).unwrap();
    let (r, c) = hidden;
    let middle = centres
        .iter()
        .map(|p| at[p])
        .fold([0.0, 0.0], |m, p| [m[0] + p[0], m[1] + p[1]])
        .map(|v| v / centres.len() as f32);
    let here = at[&hidden];
    let step = |to: (i32, i32)| [at[&to][0] - here[0], at[&to][1] - here[1]];
    let (right, down) = (step((r, c + 1)), step((r + 1, c)));
    // Along the lattice, the way from the board's middle through the hidden card.
    let out = [here[0] - middle[0], here[1] - middle[1]];
    let (along, across) = [
        (right, down),
        (down, right),
        (right.map(|v| -v), down),
        (down.map(|v| -v), right),
    ]
    .into_iter()
    .max_by(|a, b| {
        let dot = |u: [f32; 2]| u[0] * out[0] + u[1] * out[1];
        dot(a.0).total_cmp(&dot(b.0))
    })
    .unwrap();
    let bare = read(&img, &set).unwrap();
    assert_eq!(bare.orphans().count(), 0, "{:?}", bare.picture);
    // Its three rows of squares, whole, from the card's inner column to past the photo's edge.
    for k in -1..60 {
        for j in -1..=1 {
            fill_square(
                &mut img,
                here,
                [along, across],
                [k as f32, j as f32],
                1.04,
                image::Rgb([196, 142, 112]),
            );
        }
    }

    let reading = read(&img, &set).unwrap();
    assert!(reading.centres.len() < bare.centres.len());
    assert!(
        reading.orphans().count() > 0,
        "the arm read as table beside the cards: {:?}",
        reading.picture
    );
}

/// A cloth striped along the board's rows, the two rows of squares above and below the board
/// red where green stripes run farther out: the green is the table's all round. An arm of
/// blue reaching from the left to the board is not, though it fills many squares there.
#[test]
fn a_stripe_along_the_board_is_the_table_and_an_arm_from_one_side_is_not() {
    let (green, red, blue) = ([60u8, 150, 70], [170u8, 40, 40], [40u8, 60, 170]);
    // Lattice squares of 20 pixels, square (0, 0) centred at pixel (200, 200).
    let of = |v: u32| (v as i32 - 190).div_euclid(20);
    let img = image::RgbImage::from_fn(640, 480, |x, y| {
        let (row, col) = (of(y), of(x));
        let stripe =
            if (-6..=-5).contains(&row) || (-2..=4).contains(&row) || (7..=8).contains(&row) {
                green
            } else {
                red
            };
        image::Rgb(if col <= -1 && (0..=2).contains(&row) {
            blue
        } else {
            stripe
        })
    });
    let lookup = crate::refine::Lookup::new(&img, None);
    let lattice =
        BoardLattice::new([[20.0, 0.0, 200.0], [0.0, 20.0, 200.0], [0.0, 0.0, 1.0]]).unwrap();
    let centres = centres_at(&[(1, 1, 0.8)]);
    let table = super::read::TableLook::around(&lookup, &lattice, 3, 3, &centres).unwrap();
    let lab = |row, col| {
        super::read::square_lab(&lookup, &lattice, LatticePos::new(row, col), &centres).unwrap()
    };
    assert!(table.is_like_all_round(lab(-1, 1)), "the green stripe");
    assert!(table.is_like_all_round(lab(-3, 1)), "the red stripe");
    assert!(
        table.is_like(lab(1, -1)),
        "the arm is among the squares around"
    );
    assert!(!table.is_like_all_round(lab(1, -1)), "the arm");
}

/// Fills the lattice square `[col, row]` (its middle at `origin` + col·u + row·v, sides along
/// `u` and `v`) scaled by `scale` about its middle.
fn fill_square(
    image: &mut image::RgbImage,
    origin: [f32; 2],
    [u, v]: [[f32; 2]; 2],
    [col, row]: [f32; 2],
    scale: f32,
    colour: image::Rgb<u8>,
) {
    let at = |dc: f32, dr: f32| {
        let (c, r) = (col + scale * dc, row + scale * dr);
        imageproc::point::Point::new(
            (origin[0] + c * u[0] + r * v[0]).round() as i32,
            (origin[1] + c * u[1] + r * v[1]).round() as i32,
        )
    };
    let corners = [at(-0.5, -0.5), at(0.5, -0.5), at(0.5, 0.5), at(-0.5, 0.5)];
    imageproc::drawing::draw_polygon_mut(image, &corners, colour);
}

/// Pattern colours for the drawn cards: rusts, greens, blue, ochre.
const CARD_PATTERNS: [[u8; 3]; 8] = [
    [200, 110, 40],
    [230, 130, 30],
    [110, 140, 50],
    [215, 170, 60],
    [40, 120, 150],
    [215, 170, 60],
    [230, 130, 30],
    [110, 140, 50],
];

/// The 3 × 3 squares of a card about `origin`: `own` colours a square where it says,
/// [`CARD_PATTERNS`] the others in reading order.
fn fill_card(
    image: &mut image::RgbImage,
    origin: [f32; 2],
    axes: [[f32; 2]; 2],
    own: impl Fn(i32, i32) -> Option<[u8; 3]>,
) {
    let mut next = CARD_PATTERNS.iter();
    for row in -1..=1 {
        for col in -1..=1 {
            let colour = own(row, col).unwrap_or_else(|| *next.next().expect("a pattern each"));
            let at = [col as f32, row as f32];
            fill_square(image, origin, axes, at, 1.0, image::Rgb(colour));
        }
    }
}

/// A small card on a cloth of bold stripes: the stripes' edges beside the card outweigh one
/// of the card's own line families, and a square taken along them is askew. The seed around
/// the symbol must be the centre square, whose sides lie on edges all round.
#[test]
fn a_small_cards_centre_square_is_not_taken_askew_along_a_cloths_stripes() {
    let (w, h) = (1280u32, 720u32);
    // Stripes 30 pixels wide at 60°, dark green on pink.
    let mut image = image::RgbImage::from_fn(w, h, |x, y| {
        let t = x as f32 * 60f32.to_radians().cos() + y as f32 * 60f32.to_radians().sin();
        if (t / 30.0).floor() as i32 % 2 == 0 {
            image::Rgb([20, 70, 65])
        } else {
            image::Rgb([235, 205, 210])
        }
    });
    // A card of 24-pixel squares turned by -9°.
    let side = 24.0f32;
    let a = (-9f32).to_radians();
    let (u, v) = (
        [side * a.cos(), side * a.sin()],
        [-side * a.sin(), side * a.cos()],
    );
    let origin = [640.0f32, 360.0];
    fill_card(&mut image, origin, [u, v], |row, col| {
        ((row, col) == (0, 0)).then_some([240, 235, 222])
    });
    // The symbol: a dark disc in the middle.
    imageproc::drawing::draw_filled_circle_mut(&mut image, (640, 360), 6, image::Rgb([25, 20, 25]));
    // A lens's blur: edges run at their true angle, not in pixel steps.
    let image = imageproc::filter::gaussian_blur_f32(&image, 1.2);
    let seeds = super::seeds::symbol_seeds(&image).unwrap();
    let truth: Vec<[f32; 2]> = [[-0.5f32, -0.5], [0.5, -0.5], [0.5, 0.5], [-0.5, 0.5]]
        .iter()
        .map(|&[c, r]| {
            [
                origin[0] + c * u[0] + r * v[0],
                origin[1] + c * u[1] + r * v[1],
            ]
        })
        .collect();
    let around: Vec<&super::seeds::Seed> = seeds
        .iter()
        .filter(|s| crate::geom::dist(s.symbol, origin) < 3.0)
        .collect();
    assert!(!around.is_empty(), "no seed around the symbol: {seeds:?}");
    for seed in around {
        let worst = seed
            .quad
            .iter()
            .map(|&q| {
                truth
                    .iter()
                    .map(|&t| crate::geom::dist(q, t))
                    .fold(f32::MAX, f32::min)
            })
            .fold(0.0f32, f32::max);
        assert!(
            worst < 0.2 * side,
            "seed {:?} is not the centre square {truth:?}",
            seed.quad
        );
    }
}

/// How a square of `stock` inked where `ink_at(x, y)` (pixels of a 26-pixel square) with
/// `ink`, amid blue pattern squares, measures as a centre.
fn look_of(
    stock: [u8; 3],
    ink: [u8; 3],
    ink_at: &dyn Fn(u32, u32) -> bool,
) -> super::seeds::CentreLook {
    look_painted(&|x, y| if ink_at(x, y) { ink } else { stock })
}

/// The look of a square of 26 pixels painted pixel by pixel (`paint(x, y)`, from its top-left
/// corner), on a teal table.
fn look_painted(paint: &dyn Fn(u32, u32) -> [u8; 3]) -> super::seeds::CentreLook {
    let side = 26u32;
    let mut image = image::RgbImage::from_pixel(3 * side, 3 * side, image::Rgb([40, 120, 150]));
    for y in side..2 * side {
        for x in side..2 * side {
            image.put_pixel(x, y, image::Rgb(paint(x - side, y - side)));
        }
    }
    let lookup = crate::refine::Lookup::new(&image, None);
    let s = side as f32;
    let h = crate::geom::homography_4(
        &[[0.0, 0.0], [1.0, 0.0], [1.0, 1.0], [0.0, 1.0]],
        &crate::geom::rect(s, s, 2.0 * s, 2.0 * s),
    )
    .unwrap();
    super::seeds::CentreLook::measure(&lookup, &h).unwrap()
}

/// A symbol too fine for the photo blurs into a grey patch on its centre's stock: it is a
/// centre, however far across the middle it is printed. A light pattern's faint speckle,
/// which reaches the square's edges, and a thin streak of grain are not.
#[test]
fn a_symbol_blurred_grey_is_a_centre_and_a_light_speckle_is_not() {
    let (stock, grey) = ([248u8, 248, 244], [192u8, 192, 194]);
    // Three bars merged by blur: one grey patch of 14 × 10 pixels in the middle.
    let blurred = look_of(stock, grey, &|x, y| {
        (6..20).contains(&x) && (8..18).contains(&y)
    });
    assert!(blurred.is_centre(None), "{blurred:?}");
    // A thin ring blurred grey, as wide as the middle the symbol is printed in.
    let ring = look_of(stock, grey, &|x, y| {
        let d = (x as f32 - 12.5).hypot(y as f32 - 12.5);
        (5.0..9.0).contains(&d)
    });
    assert!(ring.is_centre(None), "{ring:?}");
    // The same with a darker neighbour's edge blurred into one corner of the stock.
    let cornered = look_of(stock, grey, &|x, y| {
        let d = (x as f32 - 12.5).hypot(y as f32 - 12.5);
        (5.0..9.0).contains(&d) || (x <= 2 && y <= 2)
    });
    assert!(cornered.is_centre(None), "{cornered:?}");
    // Specks all over the square, up to its edges.
    let speckle = look_of(stock, grey, &|x, y| {
        (x * 7 + y * 13) % 11 == 0 && x > 3 && y > 3 && x < 23 && y < 23
    });
    assert!(!speckle.is_centre(None), "{speckle:?}");
    // A streak of wood grain across part of the middle.
    let grain = look_of(stock, grey, &|x, y| {
        (8..19).contains(&x) && (13..15).contains(&y)
    });
    assert!(!grain.is_centre(None), "{grain:?}");
}

/// Blur spreads a thin symbol into faint grey that is neither dark enough to count as ink nor
/// one solid patch: a hollow ring, two bars. Its darkness in all is a symbol's: a centre.
#[test]
fn a_hollow_or_barred_symbol_blurred_faint_is_a_centre() {
    let (stock, grey) = ([248u8, 248, 244], [165u8, 165, 168]);
    let thin_ring = look_of(stock, grey, &|x, y| {
        let d = (x as f32 - 12.5).hypot(y as f32 - 12.5);
        (6.5..8.0).contains(&d)
    });
    assert!(thin_ring.is_centre(None), "{thin_ring:?}");
    let two_bars = look_of(stock, grey, &|x, y| {
        (6..20).contains(&x) && ((9..11).contains(&y) || (15..17).contains(&y))
    });
    assert!(two_bars.is_centre(None), "{two_bars:?}");
}

/// Two thin bars blurred faint on clipped stock (an over-exposed photo of small squares:
/// a bat's "||" in the evaluation) are neither dark nor much in all, as clipping took off the
/// stock the light that blur spread into them: a centre. The same grey on stock that is not
/// clipped is not, unless a centre was seen there before.
#[test]
fn two_bars_blurred_faint_on_clipped_stock_are_a_centre() {
    let bars =
        |x: u32, y: u32| ((8..11).contains(&x) || (15..18).contains(&x)) && (6..20).contains(&y);
    let clipped = look_of([253, 253, 250], [210, 210, 212], &bars);
    assert!(clipped.is_centre(None), "{clipped:?}");
    let lit = look_of([200, 200, 196], [166, 166, 168], &bars);
    assert!(!lit.is_centre(None), "{lit:?}");
    assert!(lit.is_centre_seen_before(None), "{lit:?}");
    // Clean stock seen before, with nothing on it, is no centre.
    let bare = look_of([200, 200, 196], [166, 166, 168], &|_, _| false);
    assert!(!bare.is_centre_seen_before(None), "{bare:?}");
}

/// A centre's square of `side` pixels at `origin` amid pattern squares, with a zebra's light
/// speckled square on its right, lighter than its own stock, blurred as a lens would.
fn centre_beside_a_zebra() -> (image::RgbImage, [f32; 2], f32) {
    let side = 26.0f32;
    let mut image = image::RgbImage::from_pixel(160, 160, image::Rgb([120, 90, 60]));
    let origin = [80.0f32, 80.0];
    let (u, v) = ([side, 0.0], [0.0, side]);
    fill_card(&mut image, origin, [u, v], |row, col| {
        match (row, col) {
            (0, 0) => Some([236, 234, 228]),
            // The zebra: lighter stock than the centre's (another print, a brighter light).
            (0, 1) => Some([252, 250, 244]),
            _ => None,
        }
    });
    // The zebra's dark speckle, and the centre's symbol.
    for y in 68..93u32 {
        for x in 94..119u32 {
            if (x * 7 + y * 13) % 23 == 0 {
                image.put_pixel(x, y, image::Rgb([60, 55, 50]));
            }
        }
    }
    imageproc::drawing::draw_filled_circle_mut(&mut image, (80, 80), 5, image::Rgb([25, 20, 25]));
    let image = imageproc::filter::gaussian_blur_f32(&image, 1.0);
    (image, origin, side)
}

/// A centre's square settles where its stock is, not onto a light pattern beside it: the
/// lattice drawn a quarter of a square off towards a zebra's light speckled square, or a
/// fifth away from it, settles onto the centre.
#[test]
fn a_centre_beside_a_light_pattern_settles_on_its_own_stock() {
    let (image, origin, side) = centre_beside_a_zebra();
    let lookup = crate::refine::Lookup::new(&image, None);
    for off in [0.25f32, -0.2] {
        let o = origin[0] - side * off;
        let h = [
            [f64::from(side), 0.0, f64::from(o)],
            [0.0, f64::from(side), f64::from(origin[1])],
            [0.0, 0.0, 1.0],
        ];
        let lattice = super::lattice::BoardLattice::new(h).unwrap();
        let (at, px) = super::lattice::settle(&lookup, &lattice, LatticePos::new(0, 0)).unwrap();
        assert!(
            crate::geom::dist(px, origin) < 0.08 * side,
            "from {off} of a square off, settled at {at:?} = {px:?}, not {origin:?}"
        );
    }
}

/// A seed's square drawn a quarter of a square off its stock towards the zebra beside it
/// (and a little down) takes in the speckle and the pattern below, and fails as a centre
/// there: it is judged where it settles, on its stock.
#[test]
fn a_seed_drawn_off_its_stock_is_judged_where_it_settles() {
    let (image, origin, side) = centre_beside_a_zebra();
    let lookup = crate::refine::Lookup::new(&image, None);
    let off = [origin[0] + 0.25 * side, origin[1] + 0.15 * side];
    let quad = [[-0.5f32, -0.5], [0.5, -0.5], [0.5, 0.5], [-0.5, 0.5]]
        .map(|[c, r]| [off[0] + c * side, off[1] + r * side]);
    let seed = super::seeds::Seed {
        quad,
        area: side * side,
        symbol: origin,
    };
    let measured =
        crate::geom::homography_4(&[[0.0, 0.0], [1.0, 0.0], [1.0, 1.0], [0.0, 1.0]], &quad)
            .and_then(|h| super::seeds::CentreLook::measure(&lookup, &h))
            .unwrap();
    assert!(
        !measured.is_centre(None),
        "passes where drawn: {measured:?}"
    );
    let settled = super::read::seed_as_centre(&lookup, seed).expect("no centre where it settles");
    let middle = crate::geom::centre(&settled.quad);
    assert!(
        crate::geom::dist(middle, origin) < 0.08 * side,
        "settled at {middle:?}, not {origin:?}"
    );
}

/// Black ink under a warm lamp, on stock the exposure clipped to white, carries the lamp's
/// cast: it is a centre's symbol. On stock that shows the light (not clipped) the same
/// colour is a brown mark, and a red mark is no symbol on either.
#[test]
fn black_ink_under_a_warm_light_on_clipped_stock_is_a_symbol_and_a_red_mark_is_not() {
    let symbol = |x: u32, y: u32| (8..18).contains(&x) && (8..18).contains(&y);
    let (clipped, lit) = ([253u8, 252, 244], [200u8, 200, 196]);
    let (warm_black, red) = ([70u8, 58, 35], [150u8, 40, 30]);
    let warm = look_of(clipped, warm_black, &symbol);
    assert!(warm.is_centre(None), "{warm:?}");
    let brown = look_of(lit, warm_black, &symbol);
    assert!(!brown.is_centre(None), "{brown:?}");
    for stock in [clipped, lit] {
        let mark = look_of(stock, red, &symbol);
        assert!(!mark.is_centre(None), "{mark:?}");
    }
}

/// Cream stock over-exposed in red and green but not blue (a warm light: game 122 of the
/// evaluation's seed 4) is clipped too: black ink on it carries the lamp's cast and is a
/// symbol. A yellow pattern clipped in the same two channels is no stock: the same mark on it
/// is not.
#[test]
fn black_ink_on_stock_clipped_in_two_channels_is_a_symbol() {
    let symbol = |x: u32, y: u32| (8..18).contains(&x) && (8..18).contains(&y);
    let cream = look_of([252, 251, 209], [90, 68, 44], &symbol);
    assert!(cream.is_centre(None), "{cream:?}");
    let yellow = look_of([252, 240, 90], [90, 65, 19], &symbol);
    assert!(!yellow.is_centre(None), "{yellow:?}");
}

/// Under a warm lamp whose red overshoots the clip far more than its green (seed 4's games
/// 95, 114 and 137), black ink on the cream stock comes out red against it, with no blue
/// cast: red's overshoot alone, as the clip leaves it. It is a symbol; a green mark on the
/// same stock, which no overshoot of the clipped red and green explains, is not.
#[test]
fn black_ink_on_stock_clipped_far_in_red_is_a_symbol_and_a_green_mark_is_not() {
    let symbol = |x: u32, y: u32| (8..18).contains(&x) && (8..18).contains(&y);
    let stock = [255u8, 248, 205];
    let black = look_of(stock, [85, 52, 40], &symbol);
    assert!(black.ink_tint > 0.5, "{black:?}");
    assert!(black.is_centre(None), "{black:?}");
    let green = look_of(stock, [40, 110, 40], &symbol);
    assert!(!green.is_centre(None), "{green:?}");
}

/// A hollow square symbol in the middle of a square of 26 pixels ([`look_painted`]).
fn hollow_square(x: u32, y: u32) -> bool {
    (9..17).contains(&x)
        && (9..17).contains(&y)
        && !((11..15).contains(&x) && (11..15).contains(&y))
}

/// A card laid beside a centre seen before may lie over a sliver of its square (seed 4's game
/// 7: a fifth of it, under an orange pattern): the ring is then tinted, but its stock, the
/// ring without the darker sliver, is still the photo's typical stock. A pattern square with
/// a dark spot is not: its ring's stock is the pattern's.
#[test]
fn a_centre_seen_before_with_a_neighbours_edge_over_one_side_is_like_the_stock() {
    let (stock, orange, ink) = ([235u8, 232, 225], [220u8, 120, 40], [40u8, 40, 40]);
    let typical = Some(stock.map(f32::from));
    let sliver = look_painted(&|x, y| {
        if hollow_square(x, y) {
            ink
        } else if x >= 23 {
            orange
        } else {
            stock
        }
    });
    assert!(sliver.ring_dark >= 0.2, "{sliver:?}");
    assert!(sliver.is_centre_seen_before(typical), "{sliver:?}");
    // A new centre's ring is judged by its mean, darker samples and all: by its light
    // samples alone, a square with a blue stripe of a cloth along its edge would pass.
    let cream = [240u8, 236, 190];
    let striped = look_painted(&|x, y| {
        if hollow_square(x, y) {
            ink
        } else if y < 3 && x < 16 {
            [0, 0, 255]
        } else {
            cream
        }
    });
    assert!(striped.ring_dark < 0.2, "{striped:?}");
    assert!(
        !striped.is_centre(Some(cream.map(f32::from))),
        "{striped:?}"
    );
    let tan = look_painted(&|x, y| {
        if hollow_square(x, y) {
            ink
        } else {
            [190, 150, 80]
        }
    });
    assert!(!tan.is_centre_seen_before(typical), "{tan:?}");
}

/// A card laid beside a centre seen before may shade one side of it (its shadow, in game 60
/// of the evaluation's seed 4), with a darker square's blurred edge on another: still the
/// centre, its ring clean but for that side. Shaded on two opposite sides, or with a pattern
/// of another hue along the side, it is not.
#[test]
fn a_centre_seen_before_shaded_along_one_side_is_found() {
    let (stock, shade, ink) = ([235u8, 232, 225], [150u8, 148, 142], [40u8, 40, 40]);
    let painted = |shade: [u8; 3], shaded: &dyn Fn(u32, u32) -> bool| {
        look_painted(&|x, y| {
            if hollow_square(x, y) {
                ink
            } else if shaded(x, y) {
                shade
            } else {
                stock
            }
        })
    };
    let one_side = |x: u32, y: u32| x >= 23 || (y >= 23 && x < 13);
    let shaded = painted(shade, &one_side);
    assert!(shaded.ring_dark >= 0.35, "{shaded:?}");
    assert!(shaded.is_centre_seen_before(None), "{shaded:?}");
    let opposite_sides = painted(shade, &|x, _| !(3..23).contains(&x));
    assert!(
        !opposite_sides.is_centre_seen_before(None),
        "{opposite_sides:?}"
    );
    // A light blue pattern along that side, as dark as the shadow: the square is drawn off
    // the centre and takes in the card beside it, so it is no centre seen before.
    let pattern_side = painted([120, 160, 220], &one_side);
    assert!(pattern_side.ring_dark >= 0.35, "{pattern_side:?}");
    assert!(
        !pattern_side.is_centre_seen_before(None),
        "{pattern_side:?}"
    );
}
/// A large hollow square blurred grey (seed 4's game 128, its squares seen corner-on) covers
/// two thirds of the middle with faint ink: a centre. A grey square filling the middle is not.
#[test]
fn a_large_hollow_square_blurred_grey_is_a_symbol() {
    let (stock, grey) = ([235u8, 232, 225], [165u8, 163, 158]);
    let hollow = look_painted(&|x, y| {
        let outer = (4..22).contains(&x) && (4..22).contains(&y);
        let inner = (8..17).contains(&x) && (8..18).contains(&y);
        if outer && !inner {
            grey
        } else {
            stock
        }
    });
    assert!((0.65..0.7).contains(&hollow.ink), "{hollow:?}");
    assert!(hollow.is_centre(None), "{hollow:?}");
    let filled = look_painted(&|x, y| {
        if (4..22).contains(&x) && (4..22).contains(&y) {
            grey
        } else {
            stock
        }
    });
    assert!(!filled.is_centre(None), "{filled:?}");
}

/// Every symbol of a photo is printed in one black and lit like its own stock: a mark of
/// another colour among them (a cloth's green check on white, dark enough to pass for black
/// on its own) is no symbol, black ink a little warmer or cooler than the rest is. With two
/// centres nothing says which ink is the odd one.
#[test]
fn a_mark_unlike_the_ink_of_the_photos_other_symbols_is_no_symbol() {
    let inked = |chroma: [f32; 2]| super::seeds::CentreLook {
        ink_chroma: chroma,
        ..centre_look(0.8)
    };
    let mut centres: BTreeMap<LatticePos, super::seeds::CentreLook> = [
        ((1, 1), [-0.02, -0.10]),
        ((1, 3), [0.0, -0.15]),
        ((3, 1), [-0.03, -0.05]),
        ((3, 3), [-0.01, -0.18]),
    ]
    .into_iter()
    .map(|((r, c), chroma)| (LatticePos::new(r, c), inked(chroma)))
    .collect();
    let typical = super::lattice::typical_ink(&centres);
    // The green dot of a windowpane cloth, from a photo of the evaluation.
    assert!(!inked([-0.41, -0.17]).inked_like(typical));
    assert!(inked([0.12, -0.25]).inked_like(typical));
    centres.retain(|p, _| p.row == 1);
    assert_eq!(super::lattice::typical_ink(&centres), None);
    assert!(inked([-0.41, -0.17]).inked_like(None));
}

/// The kinds of a board picture: `.` table, `*` centre, else the pattern of that key.
fn kinds_of(picture: &[&str]) -> BTreeMap<LatticePos, SquareKind> {
    picture
        .iter()
        .zip(0..)
        .flat_map(|(row, r)| {
            row.chars().zip(0..).map(move |(ch, c)| {
                let kind = match ch {
                    '.' => SquareKind::Table,
                    '*' => SquareKind::Centre,
                    '?' => SquareKind::Unknown,
                    k => SquareKind::Pattern(Key::new(k).unwrap()),
                };
                (LatticePos::new(r, c), kind)
            })
        })
        .collect()
}

/// The centres of `picture` whose card fits no card of the reference set's animal side.
fn misfits(set: &CamouflageSet, picture: &[&str]) -> Vec<(i32, i32)> {
    let kinds = kinds_of(picture);
    let centres: BTreeMap<LatticePos, super::seeds::CentreLook> = kinds
        .iter()
        .filter(|(_, &k)| k == SquareKind::Centre)
        .map(|(&p, _)| (p, centre_look(0.8)))
        .collect();
    let kind = |p: LatticePos| kinds.get(&p).copied().unwrap_or(SquareKind::Table);
    super::read::centres_fitting_no_card(set, SideIdx(0), &centres, kind)
        .into_iter()
        .map(|p| (p.row, p.col))
        .collect()
}

/// A card's own squares (those no other centre reaches) are one of the set's faces, turned
/// some way: true of every card of boards laid by the rules. A white cloth's check taken for
/// a centre beside a card has the cloth round it, named the white pattern (zebra), and no
/// face has five zebra squares; nor does a card with one of its own squares misread.
#[test]
fn a_centre_whose_own_squares_fit_no_card_is_not_trusted() {
    let set = set();
    for seed in 0..6 {
        let board = random_board(&set, SideIdx(0), false, DeckIdx(0), 12, seed).unwrap();
        let (_, picture) = board.picture().unwrap();
        let picture: Vec<&str> = picture.iter().map(String::as_str).collect();
        assert_eq!(misfits(&set, &picture), vec![], "board {seed}: {picture:?}");
    }
    // fox-1 (tgt / z*g / tlt) turned a quarter clockwise, and the cloth's check beside it.
    assert_eq!(misfits(&set, &["tzt", "l*g", "tgt"]), vec![]);
    assert_eq!(misfits(&set, &["tztzz", "l*g*z", "tgtzz"]), vec![(1, 3)]);
    // The same card with its own corner misread.
    assert_eq!(misfits(&set, &["tzp", "l*g", "tgt"]), vec![(1, 1)]);
    // Unknown squares fit any face.
    assert_eq!(misfits(&set, &["?z?", "l*?", "???"]), vec![]);
}

/// A centre whose ink map is `depth` dark over a fifth of its middle.
fn centre_look(depth: f32) -> super::seeds::CentreLook {
    let mut symbol = [0.0f32; 144];
    for v in symbol.iter_mut().step_by(5) {
        *v = depth;
    }
    super::seeds::CentreLook {
        ring: [230.0, 228.0, 220.0],
        ring_stock: [230.0, 228.0, 220.0],
        ring_luma: 228.0,
        ring_dark: 0.0,
        ring_dark_but_one_side: 0.0,
        darkest_side_a_shade: false,
        ink: 0.2,
        faint: 0.2,
        ink_tint: 0.0,
        ink_chroma: [0.0, 0.0],
        symbol,
        settled: None,
        recognised: false,
        drift: [0.0; 2],
    }
}

fn centres_at(at: &[(i32, i32, f32)]) -> BTreeMap<LatticePos, super::seeds::CentreLook> {
    at.iter()
        .map(|&(row, col, depth)| (LatticePos::new(row, col), centre_look(depth)))
        .collect()
}

fn kept(centres: &BTreeMap<LatticePos, super::seeds::CentreLook>) -> Vec<(i32, i32)> {
    centres.keys().map(|p| (p.row, p.col)).collect()
}

#[test]
fn of_centres_side_by_side_the_speck_goes_and_the_printed_symbols_stay() {
    // A light pattern's speck amid the centres of three cards around it.
    let mut amid = centres_at(&[
        (4, 4, 0.8),
        (4, 6, 0.8),
        (6, 6, 0.8),
        (5, 5, 0.8),
        (1, 1, 0.8),
    ]);
    super::read::drop_touching_centres(&mut amid);
    assert_eq!(kept(&amid), vec![(1, 1), (4, 4), (4, 6), (6, 6)]);
    // A grey speck beside a black symbol.
    let mut beside = centres_at(&[(2, 2, 0.85), (3, 3, 0.4)]);
    super::read::drop_touching_centres(&mut beside);
    assert_eq!(kept(&beside), vec![(2, 2)]);
    // Two alike: nothing tells which is the card's, so neither is trusted.
    let mut alike = centres_at(&[(2, 2, 0.8), (2, 3, 0.75), (8, 8, 0.8)]);
    super::read::drop_touching_centres(&mut alike);
    assert_eq!(kept(&alike), vec![(8, 8)]);
    // A cloth's checks in a row: the middle one touches both others.
    let mut row = centres_at(&[(0, 0, 0.5), (0, 1, 0.5), (0, 2, 0.5)]);
    super::read::drop_touching_centres(&mut row);
    assert_eq!(kept(&row), vec![(0, 0), (0, 2)]);
    // A printed symbol with two grey specks of its card's patterns beside it, touching each
    // other (seed 4's game 16) or not (game 197): the symbol stays, however many it touches.
    for specks in [[(1, 1), (1, 2)], [(1, 1), (3, 1)]] {
        let mut among = centres_at(&[
            (2, 2, 0.8),
            (specks[0].0, specks[0].1, 0.2),
            (specks[1].0, specks[1].1, 0.2),
            (7, 7, 0.8),
        ]);
        super::read::drop_touching_centres(&mut among);
        assert_eq!(kept(&among), vec![(2, 2), (7, 7)], "specks at {specks:?}");
    }
}

proptest::proptest! {
    #[test]
    fn no_two_centres_kept_touch_and_none_apart_from_the_others_is_dropped(
        at in proptest::collection::vec((0i32..8, 0i32..8, 0.2f32..0.9), 0..24)
    ) {
        let before = centres_at(&at);
        let mut after = before.clone();
        super::read::drop_touching_centres(&mut after);
        let touch = |p: &LatticePos, q: &LatticePos| {
            p != q && (p.row - q.row).abs() <= 1 && (p.col - q.col).abs() <= 1
        };
        for p in after.keys() {
            proptest::prop_assert!(!after.keys().any(|q| touch(p, q)), "{p:?} touches another");
        }
        for p in before.keys().filter(|p| !before.keys().any(|q| touch(p, q))) {
            proptest::prop_assert!(after.contains_key(p), "{p:?} touched none yet was dropped");
        }
    }
}

#[test]
fn a_square_between_two_patterns_is_told_only_when_twice_as_likely_as_the_rest() {
    let set = set();
    let side = set.side(SideIdx(0));
    let linear = |k: char| {
        let c = LinRgb::from_srgb(side.patterns[&Key::new(k).unwrap()].srgb.unwrap());
        [c.r, c.g, c.b]
    };
    let printed: Vec<Option<[f32; 3]>> = side
        .patterns
        .keys()
        .map(|k| Some(linear(k.char())))
        .collect();
    let colours = SideColours {
        set: &set,
        side: Some(SideIdx(0)),
    };
    let named = super::read::name_side(colours, &printed, false).unwrap();
    let (brown, tan) = (linear('g'), linear('l'));
    // From one pattern's colour to the other's, as a hand's shade or blur mixes them.
    let mut between = 0;
    for i in 0..=100 {
        let t = i as f32 / 100.0;
        let mixed: [f32; 3] = std::array::from_fn(|c| (1.0 - t) * brown[c] + t * tan[c]);
        let (kind, _, confidence) = super::read::card_square(Some(mixed), Some(&named));
        assert_eq!(
            matches!(kind, SquareKind::Pattern(_)),
            confidence >= 2.0 / 3.0,
            "at {t}: {kind:?} with confidence {confidence}"
        );
        if (0.5..2.0 / 3.0).contains(&confidence) {
            between += 1;
        }
    }
    // The nearest pattern more likely than all else, yet not twice as likely: not told.
    assert!(between > 0);
    assert!(matches!(
        super::read::card_square(Some(brown), Some(&named)).0,
        SquareKind::Pattern(k) if k == Key::new('g').unwrap()
    ));
}

/// The side of the reference set as named from its own printed colours.
fn printed_side(set: &CamouflageSet) -> super::read::NamedSide {
    let side = set.side(SideIdx(0));
    let printed: Vec<Option<[f32; 3]>> = side
        .patterns
        .values()
        .map(|p| Some(LinRgb::from_srgb(p.srgb.unwrap()).to_array()))
        .collect();
    let colours = SideColours {
        set,
        side: Some(SideIdx(0)),
    };
    super::read::name_side(colours, &printed, false).unwrap()
}

/// The kinds, as board characters, of squares named `(key, colour)` once the squares of one
/// name that fall into two looks are unnamed.
fn after_unnaming(side: &super::read::NamedSide, named: &[(char, &str)]) -> String {
    let mut squares: Vec<SquareReading> = named
        .iter()
        .zip(0..)
        .map(|(&(key, srgb), col)| SquareReading {
            row: 0,
            col,
            kind: SquareKind::Pattern(Key::new(key).unwrap()),
            srgb: srgb.parse().unwrap(),
            confidence: 0.9,
        })
        .collect();
    super::read::unname_split_patterns(squares.iter_mut(), side);
    squares.iter().map(|s| s.kind.char()).collect()
}

#[test]
fn squares_of_one_name_that_look_two_ways_are_not_told() {
    let set = set();
    let side = printed_side(&set);
    // Tan (leopard) squares, and orange ones an over-exposed warm photo also named tan.
    let two_looks = [
        ('l', "#c6b566"),
        ('l', "#c2af62"),
        ('l', "#cab461"),
        ('l', "#ce9e3e"),
        ('l', "#ce9839"),
        ('g', "#a8642d"),
    ];
    assert_eq!(after_unnaming(&side, &two_looks), "?????g");
    // One look, however the shade varies, and a lone square in glare: all stay told.
    let one_look = [
        ('l', "#c28f3a"),
        ('l', "#be8d39"),
        ('l', "#cb9d41"),
        ('l', "#b98938"),
        ('l', "#e7bf8b"),
    ];
    assert_eq!(after_unnaming(&side, &one_look), "lllll");
}

#[test]
fn a_clipped_stock_lets_the_squares_be_lit_brighter_than_it_says() {
    let set = set();
    let side = set.side(SideIdx(0));
    // Lit 1.6 times as brightly as the clipped stock says: a square's channel reaches at most
    // the stock's own clipped value. Mostly warm patterns, as on a close-up of three cards.
    let lit: Vec<(Key, [f32; 3])> = ['l', 't', 'g', 'p', 's']
        .into_iter()
        .map(|k| {
            let k = Key::new(k).unwrap();
            let c = LinRgb::from_srgb(side.patterns[&k].srgb.unwrap()).to_array();
            (k, c.map(|v| (1.6 * v).min(0.87)))
        })
        .collect();
    let measured: Vec<Option<[f32; 3]>> = [5, 4, 3, 2, 1]
        .into_iter()
        .zip(&lit)
        .flat_map(|(n, &(_, m))| std::iter::repeat_n(Some(m), n))
        .collect();
    let told = |stock_clipped: bool| {
        let colours = SideColours {
            set: &set,
            side: Some(SideIdx(0)),
        };
        let named = super::read::name_side(colours, &measured, stock_clipped).unwrap();
        lit.iter()
            .filter(|&&(k, m)| {
                super::read::card_square(Some(m), Some(&named)).0 == SquareKind::Pattern(k)
            })
            .count()
    };
    assert_eq!(told(true), lit.len());
    // Taking the stock at its word, the tone curve cannot reach so far.
    assert!(told(false) < lit.len());
}

/// Something light with a dark fleck on the table beside the board (a cloth's light stripe
/// and a crumb) passes for a centre; the table runs along its outer side, where a card's own
/// centre always has its pattern squares. It is not a centre.
#[test]
fn a_centre_with_the_table_along_one_side_is_not_a_centre() {
    let set = set();
    let (mut img, truth) = scene(&set, 6, 4, Degradation::Clean);
    let at: BTreeMap<(i32, i32), &SquareTruth> =
        truth.squares.iter().map(|s| ((s.row, s.col), s)).collect();
    let middle = |p: (i32, i32)| at.get(&p).map(|s| [s.center[0] as f32, s.center[1] as f32]);
    let card = |p: (i32, i32)| at.contains_key(&p);
    let centre_near = |(r, c): (i32, i32)| {
        (-1..=1)
            .any(|dr| (-1..=1).any(|dc| at.get(&(r + dr, c + dc)).is_some_and(|s| s.square == '*')))
    };
    // A table square just above the board: table all along its top, cards below it, no
    // centre touching it.
    let (r, c) = (-2..40)
        .flat_map(|r| (-2..40).map(move |c| (r, c)))
        .find(|&(r, c)| {
            !card((r, c))
                && !(-1..=1).any(|dc| card((r - 1, c + dc)))
                && card((r + 1, c))
                && card((r + 2, c))
                && card((r + 1, c + 1))
                && !centre_near((r, c))
        })
        .expect("a table square above the board");
    let below = middle((r + 1, c)).unwrap();
    let across = {
        let right = middle((r + 1, c + 1)).unwrap();
        [right[0] - below[0], right[1] - below[1]]
    };
    let down = {
        let under = middle((r + 2, c)).unwrap();
        [under[0] - below[0], under[1] - below[1]]
    };
    let here = [below[0] - down[0], below[1] - down[1]];
    // Card-like stock, and grey ink gathered in its middle.
    fill_square(
        &mut img,
        here,
        [across, down],
        [0.0, 0.0],
        0.92,
        image::Rgb([238, 236, 228]),
    );
    fill_square(
        &mut img,
        here,
        [across, down],
        [0.0, 0.0],
        0.3,
        image::Rgb([70, 70, 70]),
    );

    let reading = read(&img, &set).unwrap();
    let found = compare(&reading, &truth);
    assert_eq!(
        (found.centres_missed, found.centres_extra),
        (0, 0),
        "{:?}",
        reading.picture
    );
}

/// The photo after the next card, read from the reading of the photo before it, reads as the
/// photo read whole does, the new card found; a photo where the board is not where it was
/// (the camera moved, another board) is not followed into.
#[test]
fn the_next_photo_of_a_series_is_read_from_the_last() {
    let set = set();
    let board = random_board(&set, SideIdx(0), false, DeckIdx(1), 10, 3).unwrap();
    let mut rng = ChaCha8Rng::seed_from_u64(3);
    let frames = tablejudge_render::random_series(
        &set,
        &board,
        &mut rng,
        (960, 720),
        Degradation::Realistic,
        0.0,
    )
    .unwrap();
    let options = CamouflageReadOptions {
        colours: Some(SideColours {
            set: &set,
            side: None,
        }),
        camera: None,
    };
    let last = &frames[frames.len() - 1].spec;
    let (before_image, _) = photo(&set, &frames[frames.len() - 2].spec);
    let before = read(&before_image, &set).unwrap();
    let (image, truth) = photo(&set, last);
    let again = reread_camouflage(&image, &options, &[&before])
        .unwrap()
        .expect("the board is where it was");
    assert_eq!(compare(&again, &truth), Comparison::default());
    assert_eq!(again.centres.len(), before.centres.len() + 1);
    let whole = read(&image, &set).unwrap();
    assert_eq!(again.picture, whole.picture);
    assert_eq!(again.side, whole.side);
    // Only a followed reading vouches for the next photo, with its symbols' size.
    assert!(again.symbol_size.is_some() && before.symbol_size.is_none());
    assert!(whole.symbol_size.is_none());
    // Followed again from that followed reading: it vouches for the squares unchanged.
    let still = reread_camouflage(&image, &options, &[&before, &again])
        .unwrap()
        .expect("nothing changed");
    assert_eq!(still.picture, again.picture);

    // After it, a photo with a hand over the board: two centres seen, and a lattice fitted
    // to them that is off by 8% away from them. The board is followed from the fuller one.
    let lattice = before.lattice.unwrap();
    let mut handed = before.clone();
    handed.centres.truncate(2);
    let [c0, r0] = [handed.centres[0].col as f64, handed.centres[0].row as f64];
    let scale = 1.08;
    let h = lattice.homography;
    handed.lattice = BoardLattice::new(std::array::from_fn(|r| {
        [
            h[r][0] * scale,
            h[r][1] * scale,
            h[r][0] * (1.0 - scale) * c0 + h[r][1] * (1.0 - scale) * r0 + h[r][2],
        ]
    }));
    let followed = reread_camouflage(&image, &options, &[&before, &handed])
        .unwrap()
        .expect("the board is followed from the photo that shows it whole");
    assert_eq!(followed.picture, again.picture);

    // After it, a photo read through a cloth's motifs: more "centres" than the board has, on
    // a lattice of the cloth's 0.4 of a square off the board's, all but two fitting no card.
    // The board is followed from the fullest reading that is not mostly misfits.
    let mut cloth = before.clone();
    let off = 0.4;
    cloth.lattice = BoardLattice::new(std::array::from_fn(|r| {
        [h[r][0], h[r][1], h[r][0] * off + h[r][1] * off + h[r][2]]
    }));
    let motifs: Vec<CentreReading> = (0..before.centres.len() + 4)
        .map(|k| CentreReading {
            row: 40 + k as i32,
            col: 40,
            px: [5.0 + k as f32, 5.0],
            symbol_group: 0,
            symbol: Vec::new(),
        })
        .collect();
    cloth.misfits = before.centres[2..]
        .iter()
        .chain(&motifs)
        .map(|c| LatticePos::new(c.row, c.col))
        .collect();
    cloth.centres.extend(motifs);
    let followed = reread_camouflage(&image, &options, &[&before, &cloth])
        .unwrap()
        .expect("the board is followed from the reading that shows its cards");
    assert_eq!(followed.picture, again.picture);
    // Its two "centres" that fit a card are the cloth's too (a hand hid the board, and the
    // search found the cloth): they lie on pattern squares of this photo, and are not looked
    // for there.
    let mut hidden = cloth.clone();
    for c in &mut hidden.centres[..2] {
        c.px = lattice
            .to_photo([c.col as f32, c.row as f32 + 1.0])
            .unwrap();
    }
    let followed = reread_camouflage(&image, &options, &[&before, &hidden])
        .unwrap()
        .expect("the centres of a reading grown through a cloth are not looked for");
    assert_eq!(followed.picture, again.picture);

    // A centre an earlier photo showed, here a pattern square: not where it was.
    let mut earlier = before.clone();
    let c = &before.centres[0];
    earlier.centres.push(CentreReading {
        row: c.row + 1,
        col: c.col,
        px: lattice
            .to_photo([c.col as f32, c.row as f32 + 1.0])
            .unwrap(),
        symbol_group: 0,
        symbol: Vec::new(),
    });
    assert_eq!(
        reread_camouflage(&image, &options, &[&earlier, &before]).unwrap(),
        None
    );
    // Gone from the last two photos: covered by a card laid over it, no longer looked for.
    let gone = reread_camouflage(&image, &options, &[&earlier, &before, &before])
        .unwrap()
        .expect("a centre gone from two photos running is not looked for");
    assert_eq!(gone.picture, again.picture);
    let mut moved = last.clone();
    moved.camera.target[0] += 0.05 * moved.camera.distance;
    let (moved, _) = photo(&set, &moved);
    assert_eq!(
        reread_camouflage(&moved, &options, &[&before]).unwrap(),
        None
    );
    let (other, _) = scene(&set, 10, 5, Degradation::Realistic);
    assert_eq!(
        reread_camouflage(&other, &options, &[&before]).unwrap(),
        None
    );
}

/// Between two photos from one camera, the squares a card was laid on look changed and the
/// squares away from it do not: following a board tries new centres only where squares
/// changed, and a card laid always changes its own.
#[test]
fn a_card_laid_changes_the_looks_of_its_own_squares_only() {
    let set = set();
    let board = random_board(&set, SideIdx(0), false, DeckIdx(1), 12, 4).unwrap();
    let mut rng = ChaCha8Rng::seed_from_u64(4);
    let spec =
        CamouflageSceneSpec::random(&set, &board, &mut rng, (960, 720), Degradation::Realistic)
            .unwrap();
    let mut fewer = spec.clone();
    fewer.cards.pop();
    let (before_image, _) = photo(&set, &fewer);
    let (image, _) = photo(&set, &spec);
    let before = read(&before_image, &set).unwrap();
    let after = read(&image, &set).unwrap();
    let lattice = before.lattice.unwrap();
    let new: Vec<LatticePos> = after
        .centres
        .iter()
        .filter_map(|c| lattice.square_of(c.px))
        .filter(|p| {
            !before
                .centres
                .iter()
                .any(|b| (b.row, b.col) == (p.row, p.col))
        })
        .collect();
    assert_eq!(new.len(), 1, "one card laid: {new:?}");
    let lookup = crate::refine::Lookup::new(&image, None);
    let (mut own, mut own_changed, mut away) = (0, 0, 0);
    for (&pos, was) in &before.looks.0 {
        let Some(is) = super::looks::SquareLook::measure(&lookup, &lattice, pos) else {
            continue;
        };
        if pos == new[0] {
            assert!(is.differs(was), "the new card's centre square");
        }
        if pos.within_one(new[0]) {
            own += 1;
            own_changed += usize::from(is.differs(was));
        } else {
            away += 1;
            assert!(!is.differs(was), "square {pos} away from the card laid");
        }
    }
    assert_eq!(own, 9);
    assert!(
        own_changed >= 6,
        "{own_changed} of the card's 9 squares changed"
    );
    assert!(away > 40, "{away} squares compared away from the card");
}

/// A symbol in the middle of a square on or beside the board that is no centre found is a
/// centre that following the board missed.
#[test]
fn a_symbol_on_no_centre_found_is_a_centre_missed() {
    let set = set();
    let (image, _) = scene(&set, 10, 2, Degradation::Realistic);
    let reading = read(&image, &set).unwrap();
    let mut centres = centre_looks(&image, &reading);
    let whole = unexplained_symbol(&image, &reading, &centres, None);
    assert!(!whole.missed);
    let size = whole.symbol_size.expect("the centres' symbols measured");
    let missed = *centres.keys().nth(3).unwrap();
    centres.remove(&missed);
    assert!(unexplained_symbol(&image, &reading, &centres, None).missed);
    // Searched only where a reading followed before does not vouch for the photo: found
    // there, and not looked for elsewhere.
    let only = |squares: &[LatticePos]| squares.iter().copied().collect::<BTreeSet<_>>();
    let search = |squares: &BTreeSet<LatticePos>| {
        let vouched = super::read::Vouched {
            squares,
            symbol_size: size,
        };
        unexplained_symbol(&image, &reading, &centres, Some(&vouched)).missed
    };
    assert!(search(&only(&[missed])));
    assert!(!search(&only(&[missed.offset(0, 1)])));
    assert!(!search(&only(&[])));
}

/// A reading followed from another needs its symbols searched for only where that one does
/// not vouch for the photo: squares changed or not looked at, beyond its search's reach,
/// where it had a centre and this one has none, or beside a square of card it found no
/// centre for.
#[test]
fn a_followed_reading_vouches_for_the_squares_unchanged() {
    let set = set();
    let (image, _) = scene(&set, 10, 2, Degradation::Realistic);
    let reading = read(&image, &set).unwrap();
    let centres = centre_looks(&image, &reading);
    let unvouched = |centres: &BTreeMap<LatticePos, _>,
                     orphans: &[LatticePos],
                     changed: &[LatticePos]| {
        super::read::unvouched_squares(&reading, centres, orphans, |q| Some(!changed.contains(&q)))
    };
    let set_of = |squares: &[LatticePos]| squares.iter().copied().collect::<BTreeSet<_>>();
    assert_eq!(unvouched(&centres, &[], &[]), set_of(&[]));
    let first = *centres.keys().next().unwrap();
    let beside = first.offset(1, 1);
    assert_eq!(unvouched(&centres, &[], &[beside]), set_of(&[beside]));
    // A centre gone.
    let mut fewer = centres.clone();
    fewer.remove(&first);
    let gone = unvouched(&fewer, &[], &[]);
    assert!(gone.contains(&first), "{gone:?}");
    assert!(gone.iter().all(|q| *q == first), "{gone:?}");
    // Beside an orphan square.
    let orphans = unvouched(&centres, &[beside], &[]);
    assert!(orphans.iter().all(|q| q.within_one(beside)), "{orphans:?}");
    assert!(orphans.contains(&first), "{orphans:?}");
    // A centre far out (no new card lies so, but the reach is what is tested): the squares
    // near it and more than two squares from every centre before.
    let bottom = *centres.keys().max_by_key(|p| p.row).unwrap();
    let far = bottom.offset(4, 0);
    let mut more = centres.clone();
    more.insert(far, centres[&first]);
    let reach = unvouched(&more, &[], &[]);
    assert!(
        reach.contains(&far) && reach.contains(&far.offset(2, 0)),
        "{reach:?}"
    );
    assert!(!reach.contains(&far.offset(-2, 0)), "{reach:?}");
}

/// The look of each centre `reading` found in `image`, where its lattice puts it.
fn centre_looks(
    image: &image::RgbImage,
    reading: &CamouflageReading,
) -> BTreeMap<LatticePos, super::seeds::CentreLook> {
    let lattice = reading.lattice.unwrap();
    let lookup = crate::refine::Lookup::new(image, None);
    reading
        .centres
        .iter()
        .map(|c| {
            let pos = LatticePos::new(c.row, c.col);
            let look = super::seeds::CentreLook::measure(&lookup, &lattice.square(pos)).unwrap();
            (pos, look)
        })
        .collect()
}

/// Whether following `reading`'s board with only `centres` found leaves a symbol that looks
/// like a centre missed ([`super::read::unexplained_symbol`]).
fn unexplained_symbol(
    image: &image::RgbImage,
    reading: &CamouflageReading,
    centres: &BTreeMap<LatticePos, super::seeds::CentreLook>,
    vouched: Option<&super::read::Vouched>,
) -> super::read::SymbolSearch {
    let lattice = reading.lattice.unwrap();
    let lookup = crate::refine::Lookup::new(image, None);
    let options = CamouflageReadOptions::default();
    super::read::unexplained_symbol(image, &lookup, &options, &lattice, centres, vouched).unwrap()
}

/// Asserts that the photo of `spec` reads every centre and no other.
fn assert_every_centre_read(set: &CamouflageSet, spec: &CamouflageSceneSpec, seed: u64) {
    let (img, truth) = photo(set, spec);
    let got = compare(&read(&img, set).unwrap(), &truth);
    assert_eq!(
        (got.centres_missed, got.centres_extra),
        (0, 0),
        "seed {seed}: {got:?}"
    );
}

/// A board of six cards and a seventh laid one square diagonally off the centre of a card at
/// the board's edge (an illegal play): it hides that centre, and its own lies three squares
/// from every centre in view. The seventh's centre is returned.
fn a_card_over_an_edge_centre(set: &CamouflageSet, seed: u64) -> (CamouflageSceneSpec, LatticePos) {
    let mut board = random_board(set, SideIdx(0), false, DeckIdx(1), 6, seed).unwrap();
    let centres: Vec<LatticePos> = board.placed().iter().map(|p| p.placement.centre).collect();
    let apart = |under: LatticePos, at: LatticePos| {
        centres
            .iter()
            .filter(|&&o| o != under)
            .map(|o| o.squares_from(at))
            .min()
            .unwrap()
    };
    let (under, at) = centres
        .iter()
        .flat_map(|&c| [(1, 1), (1, -1), (-1, 1), (-1, -1)].map(|(dr, dc)| (c, c.offset(dr, dc))))
        .max_by_key(|&(under, at)| apart(under, at))
        .unwrap();
    assert_eq!(apart(under, at), 3, "seed {seed}: no edge card to cover so");
    let over = tablejudge_rules::camouflage::Placement {
        card: set.deck(DeckIdx(2)).cards[0],
        centre: at,
        turn: Turn::from_quarter_turns(0),
    };
    assert!(!board.place(set, over).is_legal());
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    let spec =
        CamouflageSceneSpec::random(set, &board, &mut rng, (960, 720), Degradation::Realistic)
            .unwrap();
    (spec, at)
}

/// A card laid over another's centre three squares from every other centre is found all the
/// same.
#[test]
fn a_card_over_a_centre_three_squares_from_every_other_is_found() {
    let set = set();
    for seed in [2u64, 3, 4] {
        let (spec, _) = a_card_over_an_edge_centre(&set, seed);
        assert_every_centre_read(&set, &spec, seed);
    }
}

/// Such a card whose centre gave no seed (a light pattern beside it joins its stock in one
/// blob: seed 4's game 83) is found by its squares, which look like card with no centre.
/// Each of these boards fails without it. Of seeds 2 to 11, 2 and 5 miss another centre,
/// whose ink is on the edge of passing, and in 4 too few of the card's squares lie within the
/// reading's block and the ring round it.
#[test]
fn a_card_over_a_centre_that_gave_no_seed_is_found_by_its_squares() {
    let set = set();
    for seed in [3u64, 6, 7, 8] {
        let (spec, at) = a_card_over_an_edge_centre(&set, seed);
        let (image, truth) = photo(&set, &spec);
        let px = |row: i32, col: i32| {
            let s = truth
                .squares
                .iter()
                .find(|s| (s.row, s.col) == (row, col))
                .unwrap();
            [s.center[0] as f32, s.center[1] as f32]
        };
        let middle = px(at.row, at.col);
        let side = crate::geom::dist(middle, px(at.row, at.col + 1));
        let lookup = crate::refine::Lookup::new(&image, None);
        let options = CamouflageReadOptions {
            colours: Some(SideColours {
                set: &set,
                side: None,
            }),
            camera: None,
        };
        let mut seeds = super::read::centre_seeds(&image, &lookup, &options).unwrap();
        let before = seeds.len();
        seeds.retain(|s| crate::geom::dist(crate::geom::centre(&s.quad), middle) > side);
        assert!(
            seeds.len() < before,
            "seed {seed}: its centre gave no seed to take away"
        );
        let reading = super::read::read_from_seeds(&lookup, &options, &seeds).unwrap();
        let got = compare(&reading, &truth);
        assert_eq!(
            (got.centres_missed, got.centres_extra),
            (0, 0),
            "seed {seed}: {got:?}"
        );
    }
}

/// A clean photo of a board, its reading, and the lattice point of its middle centre.
fn a_centre_to_edit(set: &CamouflageSet) -> (image::RgbImage, CamouflageReading, [f32; 2]) {
    let (image, truth) = scene(set, 8, 4, Degradation::Clean);
    let reading = read(&image, set).unwrap();
    assert_eq!(compare(&reading, &truth), Comparison::default());
    let centre = &reading.centres[reading.centres.len() / 2];
    let at = [centre.col as f32, centre.row as f32];
    (image, reading, at)
}

/// `image` with `edit` applied to every pixel, given its offset `[col, row]` in squares from
/// the lattice point `at`.
fn edited(
    image: &image::RgbImage,
    lattice: &BoardLattice,
    at: [f32; 2],
    edit: impl Fn([f32; 2], &mut image::Rgb<u8>),
) -> image::RgbImage {
    let mut out = image.clone();
    for (x, y, p) in out.enumerate_pixels_mut() {
        if let Some([c, r]) = lattice.to_lattice([x as f32 + 0.5, y as f32 + 0.5]) {
            edit([c - at[0], r - at[1]], p);
        }
    }
    out
}

/// The stock of the centre at lattice point `at`: the pixel in its ring, right of its symbol.
fn stock_of(image: &image::RgbImage, lattice: &BoardLattice, at: [f32; 2]) -> image::Rgb<u8> {
    let [x, y] = lattice.to_photo([at[0] + 0.42, at[1]]).unwrap();
    *image.get_pixel(x as u32, y as u32)
}

/// `image` read as the photo after the one `before` was read from.
fn followed(
    set: &CamouflageSet,
    image: &image::RgbImage,
    before: &CamouflageReading,
) -> Option<CamouflageReading> {
    let options = CamouflageReadOptions {
        colours: Some(SideColours { set, side: None }),
        camera: None,
    };
    reread_camouflage(image, &options, &[before]).unwrap()
}

/// A centre whose ring the blurred edges of darker squares above and below it shade is no
/// centre to a photo read whole, but it is to a photo followed from one that saw a centre
/// there. A centre an earlier photo found fitting no card does not stop the following.
#[test]
fn a_centre_seen_before_is_found_with_its_ring_shaded() {
    let set = set();
    let (image, before, at) = a_centre_to_edit(&set);
    let lattice = before.lattice.unwrap();
    // The outer edge of its ring's top and bottom sides at 60% of their light.
    let shaded = edited(&image, &lattice, at, |[dc, dr], p| {
        if dc.abs() < 0.5 && (0.41..0.5).contains(&dr.abs()) {
            p.0 = p.0.map(|v| (f32::from(v) * 0.6) as u8);
        }
    });
    let whole = read(&shaded, &set).unwrap();
    assert_eq!(whole.centres.len(), before.centres.len() - 1);
    let again = followed(&set, &shaded, &before).expect("the board is where it was");
    assert_eq!(again.centres.len(), before.centres.len());
    // The shading may leave a square beside it not told.
    let agrees = |reading: &CamouflageReading| {
        reading.picture.len() == before.picture.len()
            && reading.picture.iter().zip(&before.picture).all(|(a, b)| {
                a.len() == b.len() && a.chars().zip(b.chars()).all(|(x, y)| x == y || x == '?')
            })
    };
    assert!(agrees(&again), "{:?}", again.picture);

    // A centre that fitted no card, on a pattern square: the board is followed all the same.
    let mut misfit = before.clone();
    let pos = LatticePos::new(at[1] as i32 + 1, at[0] as i32);
    misfit.centres.push(CentreReading {
        row: pos.row,
        col: pos.col,
        px: lattice.to_photo([at[0], at[1] + 1.0]).unwrap(),
        symbol_group: 0,
        symbol: Vec::new(),
    });
    assert_eq!(followed(&set, &shaded, &misfit), None);
    misfit.misfits.push(pos);
    let again = followed(&set, &shaded, &misfit).expect("a misfit centre need not be found again");
    assert!(agrees(&again), "{:?}", again.picture);
}

/// A centre seen before in shadow, with squares brighter than its stock to its right and
/// below: the search for the square's edges settles it a fifth of a square towards each, off
/// its symbol (seed 4's game 195). It is found where the lattice puts it.
#[test]
fn a_centre_seen_before_settled_off_its_symbol_is_found_where_it_was() {
    let set = set();
    let (image, before, at) = a_centre_to_edit(&set);
    let lattice = before.lattice.unwrap();
    let decoy = edited(&image, &lattice, at, |[dc, dr], p| {
        if dc.abs() < 0.5 && dr.abs() < 0.5 {
            p.0 = p.0.map(|v| (f32::from(v) * 0.75) as u8);
        } else if (-0.5..1.5).contains(&dc) && (-0.5..1.5).contains(&dr) {
            *p = image::Rgb([255, 255, 255]);
        }
    });
    let again = followed(&set, &decoy, &before).expect("the board is where it was");
    assert_eq!(again.centres.len(), before.centres.len());
}

/// A centre seen before with a pattern's edge along one side of its ring and its symbol
/// blurred grey (seed 4's game 181: a hollow square of 14 pixels) passes for no centre,
/// clean or inked, but it shows the symbol the two photos before saw there: it is found
/// again. Another symbol there (a card laid over it, a hand) is not.
#[test]
fn a_centre_seen_before_is_recognised_by_its_symbol() {
    let set = set();
    let (image, before, at) = a_centre_to_edit(&set);
    let lattice = before.lattice.unwrap();
    let stock = stock_of(&image, &lattice, at);
    let faded = |p: &mut image::Rgb<u8>| {
        for (v, s) in p.0.iter_mut().zip(stock.0) {
            *v = (f32::from(s) - 0.35 * (f32::from(s) - f32::from(*v))) as u8;
        }
    };
    let blurred = edited(&image, &lattice, at, |[dc, dr], p| {
        if dc.abs() < 0.5 && (-0.5..-0.37).contains(&dr) {
            *p = image::Rgb([30, 130, 160]);
        } else if dc.abs() < 0.36 && dr.abs() < 0.36 {
            faded(p);
        }
    });
    let options = CamouflageReadOptions {
        colours: Some(SideColours {
            set: &set,
            side: None,
        }),
        camera: None,
    };
    let again = reread_camouflage(&blurred, &options, &[&before, &before])
        .unwrap()
        .expect("the centre is recognised");
    assert_eq!(again.centres.len(), before.centres.len());
    // Seen in one photo only, it might be a mark taken for a centre once: not recognised.
    assert_eq!(followed(&set, &blurred, &before), None);
    // The same square with a grey bar for its symbol.
    let barred = edited(&blurred, &lattice, at, |[dc, dr], p| {
        if dc.abs() < 0.36 && dr.abs() < 0.36 {
            *p = stock;
            if dr.abs() < 0.08 {
                *p = image::Rgb([40, 40, 40]);
                faded(p);
            }
        }
    });
    assert_eq!(
        reread_camouflage(&barred, &options, &[&before, &before]).unwrap(),
        None
    );
}

/// A centre whose symbol glare washes out but for a trace is no centre to a photo read
/// whole, but it is to a photo followed from one that saw a centre there.
#[test]
fn a_centre_seen_before_is_found_with_its_symbol_washed_out() {
    let set = set();
    let (image, before, at) = a_centre_to_edit(&set);
    let lattice = before.lattice.unwrap();
    let stock = stock_of(&image, &lattice, at);
    // The middle of the square as bare stock, but for a dot.
    let glared = edited(&image, &lattice, at, |[dc, dr], p| {
        let d = dc.abs().max(dr.abs());
        if d < 0.05 {
            *p = image::Rgb([40, 40, 40]);
        } else if d < 0.37 {
            *p = stock;
        }
    });
    let whole = read(&glared, &set).unwrap();
    assert_eq!(whole.centres.len(), before.centres.len() - 1);
    let again = followed(&set, &glared, &before).expect("the board is where it was");
    assert_eq!(again.centres.len(), before.centres.len());
    assert_eq!(again.picture, before.picture);
}

/// A centre seen before with only three of its eight neighbours unlike its stock (cards laid
/// since brought light patterns, nearly its stock's colour, round it) is still a centre to a
/// photo followed from one that saw it; read whole, the photo does not show it framed as a
/// new centre must be (four neighbours unlike its stock).
#[test]
fn a_centre_seen_before_is_found_with_light_patterns_round_it() {
    let set = set();
    let (image, before, at) = a_centre_to_edit(&set);
    let lattice = before.lattice.unwrap();
    let stock = stock_of(&image, &lattice, at);
    let light = image::Rgb(stock.0.map(|v| (f32::from(v) * 0.9) as u8));
    // The top row of neighbours teal, the other five a light grey a tenth below the stock.
    let framed_by_three = edited(&image, &lattice, at, |[dc, dr], p| {
        let (col, row) = (dc.round() as i32, dr.round() as i32);
        if col.abs() > 1 || row.abs() > 1 || (col, row) == (0, 0) {
            return;
        }
        *p = if row == -1 {
            image::Rgb([30, 130, 160])
        } else {
            light
        };
    });
    let whole = read(&framed_by_three, &set).unwrap();
    assert_eq!(whole.centres.len(), before.centres.len() - 1);
    let again = followed(&set, &framed_by_three, &before).expect("the board is where it was");
    assert_eq!(again.centres.len(), before.centres.len());
}

/// A pile is no flat lattice: cards lie on others, each a card's thickness higher, so seen at
/// an angle the cards laid last lie off the lattice the first ones fit, by a third of a
/// square and more for cards a twentieth of a square thick. Their centres are found from the
/// cards beside them that lie off it the same way. (Without following that drift, 3 centres
/// of these boards were missed; 2 still are. Seed 8's pile, read on a lattice grown with
/// perspective only where its centres span it, has 3 squares of a card near them misread,
/// 1 before; its reading is undecided either way, for the symbols on no card.)
#[test]
fn cards_lying_off_the_lattice_together_are_found() {
    let set = set();
    let mut total = Comparison::default();
    for seed in 5u64..=10 {
        let board = random_board(&set, SideIdx(0), false, DeckIdx(1), 16, seed).unwrap();
        let mut rng = ChaCha8Rng::seed_from_u64(seed);
        let mut spec =
            CamouflageSceneSpec::random(&set, &board, &mut rng, (960, 720), Degradation::Clean)
                .unwrap();
        spec.material.thickness = 0.05;
        let (img, truth) = photo(&set, &spec);
        let got = compare(&read(&img, &set).unwrap(), &truth);
        total.centres_missed += got.centres_missed;
        total.centres_extra += got.centres_extra;
        total.wrong += got.wrong;
    }
    assert!(total.centres_missed <= 2, "{total:?}");
    assert_eq!(total.centres_extra, 0, "{total:?}");
    assert!(total.wrong <= 3, "{total:?}");
}

/// Cards `n` × `n` tiled edge to edge on a felt, a little turned, squares of 18 pixels.
fn tiled_cards(n: usize) -> image::RgbImage {
    let side = 18.0f32;
    let span = 3.0 * side * n as f32;
    let size = (span + 120.0) as u32;
    let mut image = image::RgbImage::from_pixel(size, size, image::Rgb([50, 90, 60]));
    let a = 4f32.to_radians();
    let (u, v) = (
        [side * a.cos(), side * a.sin()],
        [-side * a.sin(), side * a.cos()],
    );
    let first = 60.0 + 1.5 * side;
    for i in 0..n {
        for j in 0..n {
            let (c, r) = (3.0 * j as f32, 3.0 * i as f32);
            let origin = [first + c * u[0] + r * v[0], first + c * u[1] + r * v[1]];
            fill_card(&mut image, origin, [u, v], |row, col| {
                ((row, col) == (0, 0)).then_some([240, 235, 222])
            });
            let at = (origin[0].round() as i32, origin[1].round() as i32);
            imageproc::drawing::draw_filled_circle_mut(&mut image, at, 4, image::Rgb([25, 20, 25]));
        }
    }
    imageproc::filter::gaussian_blur_f32(&image, 1.0)
}

/// No board has more cards than a box holds: a lattice of a hundred card-like motifs (a
/// cloth whose motifs line up, here cards printed edge to edge) is not read as a board, and
/// sixteen such cards are one.
#[test]
fn a_lattice_of_more_centres_than_a_box_holds_is_no_board() {
    let set = set();
    let board = read(&tiled_cards(4), &set).expect("sixteen cards are a board");
    assert_eq!(board.centres.len(), 16);
    let cloth = read(&tiled_cards(10), &set);
    assert!(
        matches!(cloth, Err(CamouflageReadError::NoCentres)),
        "{:?}",
        cloth.map(|r| r.centres.len())
    );
}

#[test]
fn a_centre_drifting_alone_keeps_to_the_lattice() {
    let drifts: BTreeMap<LatticePos, [f32; 2]> = [
        ((0, 0), [0.0, 0.0]),
        ((0, 2), [0.0, 0.3]),
        ((1, 4), [0.05, 0.25]),
        ((6, 6), [0.3, 0.0]),
        ((6, 8), [0.0, 0.3]),
    ]
    .into_iter()
    .map(|((r, c), d)| (LatticePos::new(r, c), d))
    .collect();
    let at = |r, c| super::read::shared_drift(&drifts, LatticePos::new(r, c));
    // Two overlapping cards drifting the same way.
    assert_eq!(at(0, 2), [0.0, 0.3]);
    assert_eq!(at(1, 4), [0.05, 0.25]);
    // Alone, or beside one drifting another way.
    assert_eq!(at(6, 6), [0.0, 0.0]);
    assert_eq!(at(6, 8), [0.0, 0.0]);
    assert_eq!(at(0, 0), [0.0, 0.0]);
}

/// A small board far from the camera on a cloth of small flowers with dark hearts: each
/// flower is a light blob with a dark middle, as a centre is, and they lie thick enough for
/// a lattice to grow through dozens of them. The board is the one whose cards are read
/// whole, however many flowers line up.
#[test]
fn a_small_board_on_a_cloth_of_dark_hearted_flowers_is_found() {
    let flowers = tablejudge_render::TableSpec::Floral {
        ground: Srgb::new(70, 110, 60),
        petal: Srgb::new(240, 205, 50),
        heart: Srgb::new(80, 45, 20),
        leaf: Srgb::new(80, 170, 70),
        spacing: 1.4,
        angle_deg: 10.0,
    };
    for seed in [31u64, 32] {
        assert_small_board_read_on(seed, 3, 10.0, flowers.clone());
    }
}

/// A small board of `cards` cards (seed `seed`), squares of about 20 pixels, seen at
/// `tilt_deg` on `table`: every centre read, and no other.
fn assert_small_board_read_on(
    seed: u64,
    cards: usize,
    tilt_deg: f64,
    table: tablejudge_render::TableSpec,
) {
    let set = set();
    let board = random_board(&set, SideIdx(0), false, DeckIdx(1), cards, seed).unwrap();
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    let mut spec =
        CamouflageSceneSpec::random(&set, &board, &mut rng, (1280, 720), Degradation::Clean)
            .unwrap();
    spec.table = table;
    spec.camera.distance = spec.camera.focal_px / 20.0;
    spec.camera.tilt_deg = tilt_deg;
    let (img, truth) = photo(&set, &spec);
    let got = compare(&read(&img, &set).unwrap(), &truth);
    assert_eq!(
        (got.centres_missed, got.centres_extra),
        (0, 0),
        "seed {seed}: {got:?}"
    );
}

/// A small board far from the camera on a black-and-white gingham whose checks are two
/// squares wide: a grey check by a card's corner, the black one beside it, passes for a
/// centre, but its "stock" is the cloth's grey, far darker than the cards'. (Seed 42's board
/// is still lost to a lattice grown askew through the cloth: docs/ACCURACY.md.)
#[test]
fn a_gingham_check_by_a_card_is_no_centre() {
    let gingham = tablejudge_render::TableSpec::Checks {
        ground: Srgb::new(235, 225, 205),
        stripe: Srgb::new(25, 25, 25),
        period: 4.0,
        duty: 0.5,
        angle_deg: 30.0,
    };
    assert_small_board_read_on(41, 4, 30.0, gingham);
}

/// A small board on a plaid printed at the cards' own lattice: thin grey bands one square
/// apart, black where they cross. The board's lattice runs on through the cloth, whose light
/// squares between crossings pass for centres, past any board's count of cards; the board is
/// grown again from its centres that the cloth does not frame. (Seed 52's board is still
/// read with seven of the plaid's squares beside it as centres, framed by cards on one side:
/// docs/ACCURACY.md.)
#[test]
fn a_small_board_on_a_plaid_of_its_own_lattice_is_found() {
    let plaid = tablejudge_render::TableSpec::Checks {
        ground: Srgb::new(240, 232, 210),
        stripe: Srgb::new(30, 30, 35),
        period: 1.0,
        duty: 0.3,
        angle_deg: 0.0,
    };
    assert_small_board_read_on(51, 4, 30.0, plaid);
}

/// Starts whose "centres" touch one another are a cloth's, grown last: centres of cards in
/// view are never neighbours, but a misread square or two may sit beside a real centre.
#[test]
fn starts_of_touching_centres_are_crowded() {
    let look = look_of([235, 235, 230], [20, 20, 20], &|x, y| {
        (10..16).contains(&x) && (10..16).contains(&y)
    });
    let centres = |at: &[(i32, i32)]| -> BTreeMap<LatticePos, super::seeds::CentreLook> {
        at.iter()
            .map(|&(r, c)| (LatticePos::new(r, c), look))
            .collect()
    };
    // A cloth's checks: a block of them, each beside others.
    assert!(super::read::crowded(&centres(&[
        (0, 0),
        (0, 1),
        (1, 0),
        (1, 1),
        (3, 3)
    ])));
    // A board: centres two apart; with one misread square beside a centre.
    assert!(!super::read::crowded(&centres(&[
        (0, 0),
        (0, 2),
        (2, 1),
        (4, 4)
    ])));
    assert!(!super::read::crowded(&centres(&[
        (0, 0),
        (0, 1),
        (0, 3),
        (2, 2),
        (4, 0)
    ])));
}

/// A fine gingham round a small board: its black crossings, a dark blot on white as a
/// centre's symbol is, fall in the middle of lattice squares beside the board now and then,
/// but with the cloth all round them, not a card's patterns. Following the board into the
/// next photo takes them for no centre it missed (before, nearly every photo of a gingham
/// series was read whole for them, at four times the cost).
#[test]
fn a_gingham_crossing_beside_the_board_is_no_centre_missed() {
    let set = set();
    for (period, seed) in [(0.8f64, 64u64), (1.0, 64)] {
        let gingham = tablejudge_render::TableSpec::Checks {
            ground: Srgb::new(240, 240, 238),
            stripe: Srgb::new(30, 30, 30),
            period,
            duty: 0.3,
            angle_deg: 20.0,
        };
        let (image, truth) = photo_on_table(&set, 5, seed, gingham, |spec| {
            spec.camera.distance = spec.camera.focal_px / 22.0;
        });
        let reading = read(&image, &set).unwrap();
        assert_eq!(compare(&reading, &truth).centres_missed, 0, "seed {seed}");
        let centres = centre_looks(&image, &reading);
        assert!(
            !unexplained_symbol(&image, &reading, &centres, None).missed,
            "period {period}, seed {seed}"
        );
    }
}

/// A photo of a random board of `cards` cards on `table`, in realistic light, its scene
/// adjusted by `adjust`.
fn photo_on_table(
    set: &CamouflageSet,
    cards: usize,
    seed: u64,
    table: tablejudge_render::TableSpec,
    adjust: impl Fn(&mut CamouflageSceneSpec),
) -> (image::RgbImage, CamouflageTruth) {
    let board = random_board(set, SideIdx(0), false, DeckIdx(1), cards, seed).unwrap();
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    let mut spec =
        CamouflageSceneSpec::random(set, &board, &mut rng, (1280, 720), Degradation::Realistic)
            .unwrap();
    spec.table = table;
    adjust(&mut spec);
    photo(set, &spec)
}

/// A cloth's dark check cut by a card's edge leaves a dark sliver in a lattice square beside
/// the board: on a light check it passes for a symbol on stock, but lies at the square's edge,
/// not in its middle as every symbol is printed; on a grey stripe it fits no card and its
/// stock is clearly darker than the centres'. Neither is a centre. (Before, these two boards
/// read 12 and 21 centres that are not there, and the first missed six of its own.)
#[test]
fn slivers_of_a_gingham_check_beside_the_cards_are_no_centres() {
    let set = set();
    for seed in [4u64, 5] {
        let gingham = tablejudge_render::TableSpec::Checks {
            ground: Srgb::new(232, 224, 200),
            stripe: Srgb::new(25, 25, 25),
            period: 2.0,
            duty: 0.5,
            angle_deg: 35.0,
        };
        let (image, truth) = photo_on_table(&set, 10, seed, gingham, |_| {});
        let got = compare(&read(&image, &set).unwrap(), &truth);
        assert_eq!(got.centres_missed, 0, "seed {seed}");
        assert!(
            got.centres_extra <= 1,
            "seed {seed}: {} extra",
            got.centres_extra
        );
    }
}

/// Every symbol is printed in the middle of its square, whatever its shape: a triangle's ink
/// lies a little off the middle, a dark sliver at the square's edge far off it.
#[test]
fn a_symbol_lies_in_the_middle_of_its_square_and_a_sliver_at_its_edge_does_not() {
    let (stock, black) = ([240u8, 236, 226], [30u8, 30, 30]);
    let plus = look_of(stock, black, &|x, y| {
        ((11..15).contains(&x) && (6..20).contains(&y))
            || ((6..20).contains(&x) && (11..15).contains(&y))
    });
    assert!(plus.ink_centred(), "{plus:?}");
    // A triangle, point up, from 7 to 19 pixels down: its ink lies low in the square.
    let triangle = look_of(stock, black, &|x, y| {
        (7..19).contains(&y) && (x as i32 - 13).abs() <= (y as i32 - 7) / 2
    });
    assert!(triangle.ink_centred(), "{triangle:?}");
    // A check's corner cut by a card's edge, in one corner of the square.
    let sliver = look_of(stock, black, &|x, y| x < 9 && y < 12);
    assert!(!sliver.ink_centred(), "{sliver:?}");
}

/// A board shows a face of the set whole round a centre, as the card laid last always does;
/// boards that show none rank below. A cloth read as a lattice of "centres", its cream check
/// named a light pattern all round each, has every "card" read whole but shows no face:
/// before, such a reading outranked the real board on a dotted gingham (docs/ACCURACY.md).
#[test]
fn a_cloth_read_as_one_pattern_all_round_its_centres_shows_no_face() {
    let set = set();
    for seed in 0..4 {
        let board = random_board(&set, SideIdx(0), false, DeckIdx(1), 6, seed).unwrap();
        let real = reading_of(&board, 1, |_, _, ch| ch);
        let shown = real.faces_shown(&set);
        assert!((1..=6).contains(&shown), "seed {seed}: {shown} faces");
        let cloth = reading_of(&board, 1, |_, _, ch| match ch {
            '*' | '.' => ch,
            _ => 'z',
        });
        assert_eq!(cloth.cards_read_whole(), 6, "seed {seed}");
        assert_eq!(cloth.faces_shown(&set), 0, "seed {seed}");
    }
}

/// A lattice started from the one seed found on a board of small squares reaches the centres
/// two squares away. The quad is a centre's as the seed search drew it in a photo of a
/// starting board seen from afar (seed 4's game 45, squares of 21 pixels): its corners lie up
/// to two pixels off the square's. The homography through those four corners took the noise
/// for perspective and put one neighbour 9 pixels off, beyond where settling looks; the
/// lattice is affine until its points span a few squares.
#[test]
fn a_lattice_started_from_one_small_noisy_square_reaches_the_next_centres() {
    let seed = super::seeds::Seed {
        quad: [
            [619.0, 305.0],
            [635.0, 320.0],
            [623.0, 333.0],
            [605.0, 320.0],
        ],
        area: 420.0,
        symbol: [620.5, 319.5],
    };
    let starts = super::lattice::fit_seeds(&[seed], 1);
    let (lattice, _, _) = &starts[0];
    // The centres two squares away in the photo's truth: two cards' centres, and the points
    // opposite them across the seed's.
    let (centre, a, b) = (
        [620.7f32, 320.3f32],
        [588.4f32, 292.5f32],
        [648.6f32, 293.9f32],
    );
    let opposite = |p: [f32; 2]| [2.0 * centre[0] - p[0], 2.0 * centre[1] - p[1]];
    let neighbours = [a, b, opposite(a), opposite(b)];
    let side = crate::geom::dist(centre, a) / 2.0;
    for (c, r) in [(2.0, 0.0), (-2.0, 0.0), (0.0, 2.0), (0.0, -2.0)] {
        let p = lattice.to_photo([c, r]).unwrap();
        let off = neighbours
            .iter()
            .map(|&q| crate::geom::dist(p, q))
            .fold(f32::MAX, f32::min);
        // Settling finds a centre up to a third of a square off the lattice.
        assert!(
            off < 0.25 * side,
            "lattice point ({c}, {r}) at {p:?} lies {off:.1} px from every true centre"
        );
    }
}

/// Not My Stack! locations on a cloth of flowers with dark hearts, thick enough for lattices
/// to grow through them: every board read is a location (its centres are cards' centres),
/// and every location is read. A lattice through the flowers reads as a board of "centres",
/// none of whose cards shows a face of the set: no location.
#[test]
fn a_cloth_of_flowers_reads_as_no_location() {
    let set = set();
    let decks: Vec<DeckIdx> = (1..5).map(DeckIdx).collect();
    let flowers = tablejudge_render::TableSpec::Floral {
        ground: Srgb::new(185, 30, 35),
        petal: Srgb::new(245, 242, 235),
        heart: Srgb::new(90, 60, 30),
        leaf: Srgb::new(110, 170, 70),
        spacing: 1.2,
        angle_deg: 15.0,
    };
    let options = CamouflageReadOptions {
        colours: Some(SideColours {
            set: &set,
            side: None,
        }),
        camera: None,
    };
    for seed in [1u64, 2, 3] {
        let history = tablejudge_rules::camouflage::simulate_not_my_stack(
            &set,
            SideIdx(0),
            false,
            &decks,
            seed,
            0.0,
        );
        let mut rng = ChaCha8Rng::seed_from_u64(seed);
        let frames = tablejudge_render::random_locations_series(
            &set,
            &history,
            &mut rng,
            (1920, 1080),
            Degradation::Clean,
            0.0,
        )
        .unwrap();
        // A few cards into the game: every location holds one to three.
        let mut spec = frames[frames.len().min(6) - 1].spec.clone();
        spec.table = flowers.clone();
        let (image, truth) = photo(&set, &spec);
        let centres: Vec<[f64; 2]> = truth
            .squares
            .iter()
            .filter(|s| s.square == '*' && s.visible > 0.9)
            .map(|s| s.center)
            .collect();
        let boards = read_camouflage_boards(&image, &options, 8).unwrap();
        let mut found = 0;
        for b in &boards {
            for c in &b.centres {
                let [x, y] = c.px;
                let near = centres
                    .iter()
                    .any(|t| (t[0] - f64::from(x)).hypot(t[1] - f64::from(y)) < 8.0);
                assert!(
                    near,
                    "seed {seed}: a centre read at ({x:.0}, {y:.0}) is no card's"
                );
                found += 1;
            }
        }
        assert_eq!(found, centres.len(), "seed {seed}: {} boards", boards.len());
    }
}

#[test]
fn a_photo_larger_than_the_working_size_reads_as_at_the_working_size_in_its_own_pixels() {
    let set = set();
    let (photo, truth) = scene(&set, 8, 11, Degradation::Realistic);
    // 2.5 times the 960 × 720 photo: read from a copy of 1920 × 1440.
    let f = 2.5f32;
    let big = image::imageops::resize(&photo, 2400, 1800, image::imageops::FilterType::Triangle);
    let options = CamouflageReadOptions {
        colours: Some(SideColours {
            set: &set,
            side: None,
        }),
        camera: None,
    };
    let small = read_camouflage(&photo, &options).unwrap();
    let large = read_camouflage(&big, &options).unwrap();
    assert_eq!(compare(&large, &truth), compare(&small, &truth));
    assert_eq!(large.picture, small.picture);
    // Every position in the big photo's pixels: where the small photo's are, times 2.5
    // (within a tenth of a square: the two are read at different sizes).
    let (l, s) = (large.lattice.unwrap(), small.lattice.unwrap());
    let square = crate::geom::dist(
        s.to_photo([0.0, 0.0]).unwrap(),
        s.to_photo([1.0, 0.0]).unwrap(),
    );
    let near =
        |a: [f32; 2], b: [f32; 2]| crate::geom::dist(a, [b[0] * f, b[1] * f]) < 0.1 * square * f;
    for (a, b) in large.centres.iter().zip(&small.centres) {
        assert!(near(a.px, b.px), "{:?} against {:?}", a.px, b.px);
    }
    for (a, b) in large.corners.iter().zip(&small.corners) {
        assert!(near(*a, *b), "{a:?} against {b:?}");
    }
    assert!(near(
        l.to_photo([1.5, 2.5]).unwrap(),
        s.to_photo([1.5, 2.5]).unwrap()
    ));
    let size = (large.symbol_size, small.symbol_size);
    assert_eq!(size, (None, None), "a whole read measures no symbol size");
    // Followed from its own reading, the big photo reads the same again, in its pixels.
    let again = reread_camouflage(&big, &options, &[&large])
        .unwrap()
        .expect("the board followed");
    assert_eq!(again.picture, large.picture);
    for (a, b) in again.centres.iter().zip(&large.centres) {
        let d = crate::geom::dist(a.px, b.px);
        assert!(d < 0.1 * square * f, "{:?} against {:?}", a.px, b.px);
    }
    let measured = again
        .symbol_size
        .expect("a followed reading measures its symbols");
    assert!(
        measured > 15.0,
        "{measured} pixels: in the big photo's pixels"
    );
}
