//! Enrolling a Layers+ box from photos: builds a `tablejudge/layers-set@1` file (formats.md §2)
//! from photos of the user's own layers and mission cards, learning the palette from them.
//!
//! The photo protocol is in `docs/ENROLL.md`; in short, for every layer `X` one photo
//! `X-front.*` of the layer alone on the player card and one `X-back.*` of the same layer
//! turned over left-to-right, plus optionally one photo per mission card named by its id,
//! `L-NN.*`, where `L` is how many layers its solution uses.
//!
//! The steps ([`enroll`]):
//! 1. read every layer photo's grid with [`read_grid`] (no palette, no correction) and measure,
//!    on rings just outside the cell area, the frame's colour, the card's colour beyond it,
//!    and the frame's width (where the ring colour changes);
//! 2. white-balance each photo so that its card and frame match their (geometric) mean over
//!    all photos: the card is the one colour every photo shares, the frame the other;
//! 3. cluster every cell colour (and the rings) in CIELAB by average linkage on CIEDE2000,
//!    then refine by nearest-median reassignment; the card's cluster is `w`, the frame's `k`,
//!    the others get hue letters;
//! 4. holes are cells that show the card colour on both sides (front and the mirrored back),
//!    after turning the back photo to agree best with the front; one-sided card colour is a
//!    conflict, reported and kept as a printed card-coloured cell;
//! 5. mission photos are read with the learned palette;
//! 6. the rules crate checks the result.

use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;

use image::RgbImage;
use tablejudge_rules::layers::{LayersSet, RawLayer, RawLayersSet, RawMission, LAYERS_SET_FORMAT};
use tablejudge_rules::palette::Swatch;
use tablejudge_rules::{Grid, Key, Palette, Pos, SetError, Srgb, Turn};
use thiserror::Error;

use crate::colour::{Lab, LinRgb};
use crate::geom::{homography_4, rect};
use crate::read::{read_grid, sample_grid, ColourCorrection, ReadError, ReadOptions};
use crate::rectify::{apply_homography, Quad};
use crate::white_balance::{WhiteBalance, WhiteBalanceError};

#[cfg(test)]
mod tests;

/// Where the photo protocol is documented; every naming error points there.
pub const PROTOCOL_DOC: &str = "docs/ENROLL.md";

/// One photo and the file it came from (its name says what it shows).
#[derive(Clone, Debug)]
pub struct EnrollPhoto {
    /// The file name or path; only the name's stem is interpreted.
    pub file: String,
    pub image: RgbImage,
}

/// Everything the user supplies: the grid size and the photos.
#[derive(Clone, Debug)]
pub struct EnrollPhotos {
    pub rows: usize,
    pub cols: usize,
    pub photos: Vec<EnrollPhoto>,
}

impl EnrollPhotos {
    /// Decodes the photo files (any format OpenCV reads), honouring their EXIF orientation.
    pub fn open<P: AsRef<Path>>(
        rows: usize,
        cols: usize,
        paths: &[P],
    ) -> Result<EnrollPhotos, EnrollError> {
        let photos = paths
            .iter()
            .map(|p| {
                let file = p.as_ref().display().to_string();
                let image = crate::mat::read_rgb(p.as_ref()).map_err(|e| {
                    // The error names the file already; the message names it once.
                    let reason = e.to_string();
                    EnrollError::Open {
                        reason: reason
                            .strip_prefix(&format!("{file}: "))
                            .unwrap_or(&reason)
                            .to_owned(),
                        file: file.clone(),
                    }
                })?;
                Ok(EnrollPhoto { file, image })
            })
            .collect::<Result<Vec<_>, EnrollError>>()?;
        Ok(EnrollPhotos { rows, cols, photos })
    }
}

/// Tuning of [`enroll`].
#[derive(Clone, Debug, PartialEq)]
pub struct EnrollOptions {
    /// The set's `name`.
    pub name: String,
    /// How grids are found; the colour correction and palette are set by [`enroll`].
    pub read: ReadOptions,
    /// Average-linkage clusters closer than this CIEDE2000 distance are one colour.
    pub merge_delta_e: f32,
    /// The player card's printed colour when the user knows it (e.g. measured once under
    /// daylight); otherwise the mean over the photos is taken as neutral.
    pub card_srgb: Option<Srgb>,
    /// The widest frame expected, in cell sizes; the ring profile looks this far out and a
    /// little more.
    pub max_frame_width: f32,
}

impl Default for EnrollOptions {
    fn default() -> Self {
        let mut read = ReadOptions::default();
        // A bright player card seen through a hole clips in some channels; only pixels
        // clipped in all three count as glare, so a white card is not taken for a reflection.
        read.sample.glare_min = 255;
        EnrollOptions {
            name: "enrolled".into(),
            read,
            merge_delta_e: 12.0,
            card_srgb: None,
            max_frame_width: 0.5,
        }
    }
}

/// What one photo shows, from its file name.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum PhotoRole {
    /// `X-front.*`: layer `X`, front up.
    Front { layer: String },
    /// `X-back.*`: layer `X` turned over left-to-right.
    Back { layer: String },
    /// `L-NN.*`: mission `L-NN` whose solution uses `L` layers.
    Mission { id: String, layers: usize },
}

/// Why enrolling failed; every message names the file and says what to do.
#[derive(Clone, Debug, PartialEq, Error)]
pub enum EnrollError {
    #[error("{rows}x{cols}: a Layers+ grid has 2 to 8 rows and columns; give the size of your layers' grids")]
    Size { rows: usize, cols: usize },
    #[error("{file}: cannot open the photo ({reason})")]
    Open { file: String, reason: String },
    #[error(
        "{file}: name not understood ({reason}); name layer photos like A-front.jpg and \
         A-back.jpg, mission photos like 3-07.jpg (see {PROTOCOL_DOC})"
    )]
    Name { file: String, reason: String },
    #[error("{file} and {other} both show {what}: keep one photo of each (see {PROTOCOL_DOC})")]
    Duplicate {
        file: String,
        other: String,
        what: String,
    },
    #[error(
        "{file} shows the {have} of layer {layer} but no photo of its {missing} was given: add \
         {layer}-{missing}.jpg (see {PROTOCOL_DOC})"
    )]
    MissingSide {
        file: String,
        layer: String,
        have: &'static str,
        missing: &'static str,
    },
    #[error("no layer photos: photograph each layer's front and back (see {PROTOCOL_DOC})")]
    NoLayers,
    #[error("{file}: {source} (see {PROTOCOL_DOC})")]
    Read {
        file: String,
        #[source]
        source: ReadError,
    },
    #[error(
        "{file}: cannot tell the frame from the player card around it ({reason}); photograph \
         the layer alone in the middle of the player card, with card visible all round (see \
         {PROTOCOL_DOC})"
    )]
    Frame { file: String, reason: String },
    #[error("{file}: white balance failed ({source}); retake the photo in brighter, even light")]
    WhiteBalance {
        file: String,
        #[source]
        source: WhiteBalanceError,
    },
    #[error(
        "the player card and the frame look like one colour (ΔE {delta_e:.1}): enrolling needs \
         a card that differs from the frame (see {PROTOCOL_DOC})"
    )]
    CardIsFrame { delta_e: f32 },
    #[error(
        "{count} colours found, more than keys allow: retake the photos in even light without \
         shadows, or raise the merge threshold"
    )]
    TooManyColours { count: usize },
    #[error("the enrolled set is invalid: {0}")]
    Invalid(#[from] SetError),
}

/// An enrolled set and how it was learned.
#[derive(Clone, Debug, PartialEq)]
pub struct Enrolled {
    pub raw: RawLayersSet,
    pub report: EnrollReport,
}

/// How sure the enrolment is, photo by photo and colour by colour.
#[derive(Clone, Debug, PartialEq)]
pub struct EnrollReport {
    pub photos: Vec<PhotoReport>,
    /// The learned palette, one entry per key.
    pub clusters: Vec<ClusterReport>,
    /// Cells the photos disagree on, or read with little confidence.
    pub conflicts: Vec<Conflict>,
    /// The median of the photos' frame widths, in cell sizes (rounded to 0.01).
    pub frame_width: f64,
    /// Problems the rules crate found in the result (twin layers, unsolvable missions).
    pub problems: Vec<String>,
}

/// One photo as read.
#[derive(Clone, Debug, PartialEq)]
pub struct PhotoReport {
    pub file: String,
    pub role: PhotoRole,
    /// The grid reader's confidence times how well the cells fit the learned colours.
    pub confidence: f32,
    pub white_balance: WhiteBalance,
    /// The frame width measured in this photo (layer photos), cell sizes.
    pub frame_width: Option<f64>,
    /// The largest CIEDE2000 distance of a cell from its colour's median.
    pub worst_cell_delta_e: f32,
}

/// One learned colour.
#[derive(Clone, Debug, PartialEq)]
pub struct ClusterReport {
    pub key: char,
    pub name: String,
    pub srgb: Srgb,
    /// How many samples (cells and rings) it holds.
    pub members: usize,
    /// Median and largest CIEDE2000 distance of a member from the median colour.
    pub spread: f32,
    pub max_delta_e: f32,
}

/// A cell the enrolment had to decide on, or doubts.
#[derive(Clone, Debug, PartialEq)]
pub struct Conflict {
    pub file: String,
    /// 1-based row and column as people count, in the grid as read from that photo.
    pub row: usize,
    pub col: usize,
    pub message: String,
}

/// Tells what a photo shows from its file name (see the module docs).
pub fn photo_role(file: &str) -> Result<PhotoRole, EnrollError> {
    let stem = Path::new(file)
        .file_stem()
        .and_then(|s| s.to_str())
        .unwrap_or("");
    let bad = |reason: &str| EnrollError::Name {
        file: file.to_owned(),
        reason: reason.to_owned(),
    };
    let Some((head, tail)) = stem.rsplit_once(['-', '_']) else {
        return Err(bad("no '-' separating the layer or level from the rest"));
    };
    match tail.to_ascii_lowercase().as_str() {
        "front" | "back" => {
            if head.is_empty() || !head.chars().all(|c| c.is_ascii_alphanumeric()) {
                return Err(bad("a layer id is letters and digits, e.g. A or 12"));
            }
            let layer = head.to_owned();
            Ok(if tail.eq_ignore_ascii_case("front") {
                PhotoRole::Front { layer }
            } else {
                PhotoRole::Back { layer }
            })
        }
        _ => {
            // A mission: the level is the number before the first '-'.
            let (level, rest) = stem.split_once(['-', '_']).unwrap_or((stem, ""));
            let layers: usize = level
                .parse()
                .map_err(|_| bad("it ends in neither -front nor -back, and does not start with a mission level number"))?;
            if layers == 0 || rest.is_empty() {
                return Err(bad("a mission photo is named LEVEL-NUMBER, e.g. 3-07"));
            }
            Ok(PhotoRole::Mission {
                id: stem.to_owned(),
                layers,
            })
        }
    }
}

/// One layer photo after reading: raw cell colours and the two rings.
struct LayerShot {
    index: usize,
    cells: Grid<Srgb>,
    card: Srgb,
    frame: Srgb,
    frame_width: f64,
    confidence: f32,
}

/// Builds a set file from the photos (see the module docs and `docs/ENROLL.md`).
pub fn enroll(photos: &EnrollPhotos, options: &EnrollOptions) -> Result<Enrolled, EnrollError> {
    let (rows, cols) = (photos.rows, photos.cols);
    if !(2..=8).contains(&rows) || !(2..=8).contains(&cols) {
        return Err(EnrollError::Size { rows, cols });
    }
    let roles = photos
        .photos
        .iter()
        .map(|p| photo_role(&p.file))
        .collect::<Result<Vec<_>, _>>()?;
    let pairs = pair_layers(&photos.photos, &roles)?;

    // 1. Read the layer photos.
    let read = ReadOptions {
        colour: ColourCorrection::None,
        ..options.read.clone()
    };
    let mut shots: BTreeMap<usize, LayerShot> = BTreeMap::new();
    for &(f, b) in pairs.values() {
        for index in [f, b] {
            let photo = &photos.photos[index];
            let reading = read_grid(&photo.image, rows, cols, None, &read).map_err(|source| {
                EnrollError::Read {
                    file: photo.file.clone(),
                    source,
                }
            })?;
            let inner = inside_the_frame(&photo.image, &reading.corners, rows, cols, options);
            let (corners, cells) = match inner {
                Some(inner) => {
                    let samples = sample_grid(&photo.image, None, &inner, rows, cols, &read)
                        .map_err(|source| EnrollError::Read {
                            file: photo.file.clone(),
                            source,
                        })?;
                    (inner, samples.map(|s| s.srgb))
                }
                None => (reading.corners, reading.samples.map(|s| s.srgb)),
            };
            let ring =
                measure_rings(&photo.image, &corners, rows, cols, options).map_err(|reason| {
                    EnrollError::Frame {
                        file: photo.file.clone(),
                        reason,
                    }
                })?;
            shots.insert(
                index,
                LayerShot {
                    index,
                    cells,
                    card: ring.card,
                    frame: ring.frame,
                    frame_width: ring.frame_width,
                    confidence: reading.confidence,
                },
            );
        }
    }

    // 2. White balance: card and frame to their geometric means over the photos.
    let mean = |f: &dyn Fn(&LayerShot) -> Srgb| -> Srgb {
        let mut acc = [0.0f64; 3];
        for s in shots.values() {
            let l = LinRgb::from_srgb(f(s)).to_array();
            for c in 0..3 {
                acc[c] += f64::from(l[c].max(1e-4)).ln();
            }
        }
        let n = shots.len().max(1) as f64;
        let m = acc.map(|v| (v / n).exp() as f32);
        LinRgb::from_array(m).to_srgb()
    };
    let card_target = options.card_srgb.unwrap_or_else(|| mean(&|s| s.card));
    let frame_target = mean(&|s| s.frame);
    let mut balance: BTreeMap<usize, WhiteBalance> = BTreeMap::new();
    for s in shots.values() {
        let wb = WhiteBalance::from_references(&[(s.card, card_target), (s.frame, frame_target)])
            .map_err(|source| EnrollError::WhiteBalance {
            file: photos.photos[s.index].file.clone(),
            source,
        })?;
        balance.insert(s.index, wb);
    }

    // 3. Cluster.
    let mut points: Vec<Point> = Vec::new();
    for s in shots.values() {
        let wb = balance[&s.index];
        for (pos, &c) in s.cells.iter() {
            points.push(Point::new(
                wb.apply_linear(LinRgb::from_srgb(c)),
                Some((s.index, pos)),
                Ring::None,
            ));
        }
        points.push(Point::new(
            wb.apply_linear(LinRgb::from_srgb(s.card)),
            None,
            Ring::Card,
        ));
        points.push(Point::new(
            wb.apply_linear(LinRgb::from_srgb(s.frame)),
            None,
            Ring::Frame,
        ));
    }
    let labels = cluster(&points, options.merge_delta_e);
    let clusters = summarise(&points, &labels);
    let majority = |ring: Ring| -> usize {
        let mut count: BTreeMap<usize, usize> = BTreeMap::new();
        for (p, &l) in points.iter().zip(&labels) {
            if p.ring == ring {
                *count.entry(l).or_default() += 1;
            }
        }
        // Every photo adds one point of each ring, and there is at least one photo.
        count
            .into_iter()
            .max_by_key(|&(_, n)| n)
            .map_or(0, |(l, _)| l)
    };
    let card_cluster = majority(Ring::Card);
    let frame_cluster = majority(Ring::Frame);
    if card_cluster == frame_cluster {
        return Err(EnrollError::CardIsFrame {
            delta_e: Lab::from_srgb(card_target).delta_e(Lab::from_srgb(frame_target)),
        });
    }
    let keys = name_clusters(&clusters, card_cluster, frame_cluster)?;

    // Per-photo grids of cluster labels and fit.
    let mut label_of: BTreeMap<(usize, Pos), usize> = BTreeMap::new();
    let mut worst: BTreeMap<usize, f32> = BTreeMap::new();
    for (p, &l) in points.iter().zip(&labels) {
        if let Some((photo, pos)) = p.cell {
            label_of.insert((photo, pos), l);
            let d = p.lab.delta_e(clusters[l].lab);
            let w = worst.entry(photo).or_insert(0.0);
            *w = w.max(d);
        }
    }
    let grid_of = |photo: usize| -> Grid<usize> {
        Grid::from_fn(rows, cols, |pos| {
            label_of.get(&(photo, pos)).copied().unwrap_or(card_cluster)
        })
    };

    // 4. Holes, with the back turned to agree with the front.
    let mut conflicts = Vec::new();
    let mut layers = Vec::new();
    for (id, &(fi, bi)) in &pairs {
        let front = grid_of(fi);
        let back_read = grid_of(bi);
        let turns: &[Turn] = if rows == cols {
            &Turn::ALL
        } else {
            &[Turn::R0, Turn::R180]
        };
        let front_card = front.map(|&l| l == card_cluster).mirrored();
        let (turn, _) = turns
            .iter()
            .map(|&t| {
                let b = back_read.turned(t);
                let agree = b
                    .iter()
                    .filter(|&(p, &l)| (l == card_cluster) == front_card[p])
                    .count();
                (t, agree)
            })
            // The first best: the photo as taken wins ties.
            .fold(
                (Turn::R0, 0usize),
                |best, (t, a)| if a > best.1 { (t, a) } else { best },
            );
        let back = back_read.turned(turn);
        let key = |l: usize| keys[&l].char();
        let mut front_rows = Vec::with_capacity(rows);
        let mut back_rows = Vec::with_capacity(rows);
        for r in 0..rows {
            let mut fr = String::new();
            let mut br = String::new();
            for c in 0..cols {
                let f = front[Pos::new(r, c)];
                // The back cell behind front (r, c) is at the mirrored column.
                let bpos = Pos::new(r, cols - 1 - c);
                let b = back[bpos];
                let (fc, bc) = (f == card_cluster, b == card_cluster);
                if fc && bc {
                    fr.push('.');
                } else {
                    fr.push(key(f));
                    if fc != bc {
                        let (file, side, other, other_file) = if fc {
                            (
                                &photos.photos[fi].file,
                                "front",
                                key(b),
                                &photos.photos[bi].file,
                            )
                        } else {
                            (
                                &photos.photos[bi].file,
                                "back",
                                key(f),
                                &photos.photos[fi].file,
                            )
                        };
                        let at = if fc {
                            Pos::new(r, c)
                        } else {
                            back_pos_in_photo(bpos, turn, rows, cols)
                        };
                        conflicts.push(Conflict {
                            file: file.clone(),
                            row: at.row + 1,
                            col: at.col + 1,
                            message: format!(
                                "layer {id}: the {side} shows the card colour here but {other_file} \
                                 shows '{other}' behind it, so it is taken as a printed \
                                 card-coloured cell, not a hole; if it is a hole, retake both \
                                 photos"
                            ),
                        });
                    }
                }
            }
            for c in 0..cols {
                let b = back[Pos::new(r, c)];
                let f = front[Pos::new(r, cols - 1 - c)];
                br.push(if b == card_cluster && f == card_cluster {
                    '.'
                } else {
                    key(b)
                });
            }
            front_rows.push(fr);
            back_rows.push(br);
        }
        layers.push(RawLayer {
            id: id.clone(),
            front: front_rows,
            back: back_rows,
        });
    }

    // The learned palette; a hue name that repeats is told apart by lightness, then number.
    let mut names_used: BTreeSet<String> = BTreeSet::new();
    let colors: BTreeMap<Key, Swatch> = keys
        .iter()
        .map(|(&l, &k)| {
            let lab = clusters[l].lab;
            let base = if l == card_cluster {
                "player card".to_owned()
            } else if l == frame_cluster {
                "frame".to_owned()
            } else {
                let hue = hue_name(lab).0;
                let twin = keys.keys().any(|&o| {
                    o != l
                        && o != card_cluster
                        && o != frame_cluster
                        && hue_name(clusters[o].lab).0 == hue
                });
                match (twin, lab.l < 50.0) {
                    (false, _) => hue.to_owned(),
                    (true, true) => format!("dark {hue}"),
                    (true, false) => format!("light {hue}"),
                }
            };
            let mut name = base.clone();
            let mut n = 2;
            while !names_used.insert(name.clone()) {
                name = format!("{base} {n}");
                n += 1;
            }
            (
                k,
                Swatch {
                    name,
                    srgb: clusters[l].srgb,
                },
            )
        })
        .collect();
    let palette = Palette {
        name: options.name.clone(),
        colors: colors.clone(),
    };

    let mut reports: Vec<PhotoReport> = shots
        .values()
        .map(|s| {
            let w = worst.get(&s.index).copied().unwrap_or(0.0);
            PhotoReport {
                file: photos.photos[s.index].file.clone(),
                role: roles[s.index].clone(),
                confidence: s.confidence * fit_factor(w, options.merge_delta_e),
                white_balance: balance[&s.index],
                frame_width: Some(s.frame_width),
                worst_cell_delta_e: w,
            }
        })
        .collect();

    // 5. Missions, read with the learned palette.
    let card_key = keys[&card_cluster];
    let mission_read = ReadOptions {
        colour: ColourCorrection::FromPalette,
        ..options.read.clone()
    };
    let mut missions = Vec::new();
    let mut seen_missions: BTreeMap<String, usize> = BTreeMap::new();
    for (i, (photo, role)) in photos.photos.iter().zip(&roles).enumerate() {
        let PhotoRole::Mission { id, layers: level } = role else {
            continue;
        };
        if let Some(&j) = seen_missions.get(id) {
            return Err(EnrollError::Duplicate {
                file: photo.file.clone(),
                other: photos.photos[j].file.clone(),
                what: format!("mission {id}"),
            });
        }
        seen_missions.insert(id.clone(), i);
        let reading = read_grid(&photo.image, rows, cols, Some(&palette), &mission_read).map_err(
            |source| EnrollError::Read {
                file: photo.file.clone(),
                source,
            },
        )?;
        let mut worst_d = 0.0f32;
        let pattern: Vec<String> = (0..rows)
            .map(|r| {
                (0..cols)
                    .map(|c| {
                        let cell = &reading.cells[Pos::new(r, c)];
                        let lab = Lab::from_srgb(cell.srgb);
                        // The nearest learned colour, whatever the classifier's outlier rule.
                        // The palette always holds the card, so `None` cannot happen.
                        let (k, d) = nearest(&colors, lab).unwrap_or((card_key, f32::INFINITY));
                        worst_d = worst_d.max(d);
                        if d > options.merge_delta_e {
                            conflicts.push(Conflict {
                                file: photo.file.clone(),
                                row: r + 1,
                                col: c + 1,
                                message: format!(
                                    "mission {id}: the cell is ΔE {d:.1} from the nearest learned \
                                     colour '{}'; check it, or retake in even light",
                                    k.char()
                                ),
                            });
                        }
                        k.char()
                    })
                    .collect()
            })
            .collect();
        reports.push(PhotoReport {
            file: photo.file.clone(),
            role: role.clone(),
            confidence: reading.confidence * fit_factor(worst_d, options.merge_delta_e),
            white_balance: reading.white_balance,
            frame_width: None,
            worst_cell_delta_e: worst_d,
        });
        missions.push(RawMission {
            id: id.clone(),
            layers: *level,
            pattern,
        });
    }

    // 6. Check with the rules crate.
    let mut widths: Vec<f64> = shots.values().map(|s| s.frame_width).collect();
    widths.sort_by(f64::total_cmp);
    let frame_width = (widths[widths.len() / 2] * 100.0).round() / 100.0;
    let raw = RawLayersSet {
        format: LAYERS_SET_FORMAT.to_owned(),
        name: options.name.clone(),
        rows,
        cols,
        colors: tablejudge_rules::palette::raw_swatches(&colors),
        card: keys[&card_cluster].char().to_string(),
        frame: keys[&frame_cluster].char().to_string(),
        frame_width,
        layers,
        missions,
    };
    let file = format!("{} (enrolled)", options.name);
    let set = LayersSet::from_raw(&raw, &file)?;
    let problems = set
        .check_layers_differ(&file)
        .into_iter()
        .chain(set.check_missions(&file))
        .map(|e| e.to_string())
        .collect();
    let clusters = keys
        .iter()
        .map(|(&l, &k)| ClusterReport {
            key: k.char(),
            name: colors[&k].name.clone(),
            srgb: clusters[l].srgb,
            members: clusters[l].members,
            spread: clusters[l].spread,
            max_delta_e: clusters[l].max,
        })
        .collect();
    Ok(Enrolled {
        raw,
        report: EnrollReport {
            photos: reports,
            clusters,
            conflicts,
            frame_width,
            problems,
        },
    })
}

/// The nearest palette colour to `lab` and its CIEDE2000 distance.
fn nearest(colors: &BTreeMap<Key, Swatch>, lab: Lab) -> Option<(Key, f32)> {
    let mut best: Option<(Key, f32)> = None;
    for (&k, s) in colors {
        let d = lab.delta_e(Lab::from_srgb(s.srgb));
        if best.is_none_or(|(_, b)| d < b) {
            best = Some((k, d));
        }
    }
    best
}

/// Confidence factor of a photo whose worst cell is `d` from its colour: full up to half the
/// merge threshold, none at 1.5 times it.
fn fit_factor(d: f32, threshold: f32) -> f32 {
    (1.0 - (d - 0.5 * threshold) / threshold).clamp(0.0, 1.0)
}

/// Where back cell `p` (in the turned grid) was in the photo as read.
fn back_pos_in_photo(p: Pos, turn: Turn, rows: usize, cols: usize) -> Pos {
    let (tr, tc) = turn.turned_size(rows, cols);
    turn.inverse().apply(p, tr, tc)
}

/// Layer id → (front photo, back photo), checking that every layer has exactly one of each.
fn pair_layers(
    photos: &[EnrollPhoto],
    roles: &[PhotoRole],
) -> Result<BTreeMap<String, (usize, usize)>, EnrollError> {
    let mut fronts: BTreeMap<String, usize> = BTreeMap::new();
    let mut backs: BTreeMap<String, usize> = BTreeMap::new();
    for (i, role) in roles.iter().enumerate() {
        let (map, layer, side) = match role {
            PhotoRole::Front { layer } => (&mut fronts, layer, "front"),
            PhotoRole::Back { layer } => (&mut backs, layer, "back"),
            PhotoRole::Mission { .. } => continue,
        };
        if let Some(&j) = map.get(layer) {
            return Err(EnrollError::Duplicate {
                file: photos[i].file.clone(),
                other: photos[j].file.clone(),
                what: format!("the {side} of layer {layer}"),
            });
        }
        map.insert(layer.clone(), i);
    }
    let ids: BTreeSet<&String> = fronts.keys().chain(backs.keys()).collect();
    if ids.is_empty() {
        return Err(EnrollError::NoLayers);
    }
    ids.into_iter()
        .map(|id| match (fronts.get(id), backs.get(id)) {
            (Some(&f), Some(&b)) => Ok((id.clone(), (f, b))),
            (Some(&f), None) => Err(EnrollError::MissingSide {
                file: photos[f].file.clone(),
                layer: id.clone(),
                have: "front",
                missing: "back",
            }),
            (None, Some(&b)) => Err(EnrollError::MissingSide {
                file: photos[b].file.clone(),
                layer: id.clone(),
                have: "back",
                missing: "front",
            }),
            // `id` came from one of the two maps.
            (None, None) => Err(EnrollError::NoLayers),
        })
        .collect()
}

/// The rings around a layer's cell area.
struct Rings {
    frame: Srgb,
    card: Srgb,
    frame_width: f64,
}

/// Profiles the median colour of rings at growing distance outside the cell area and splits
/// it where it changes most: inside is the frame, outside the card.
fn measure_rings(
    image: &RgbImage,
    corners: &Quad,
    rows: usize,
    cols: usize,
    options: &EnrollOptions,
) -> Result<Rings, String> {
    let (r, c) = (rows as f32, cols as f32);
    let g = homography_4(&rect(0.0, 0.0, c, r), corners)
        .ok_or_else(|| "the grid's corners are degenerate".to_owned())?;
    let reach = options.max_frame_width.max(0.1) + 0.15;
    let (offsets, profile) = ring_profile(image, &g, r, c, reach, 1.0);
    if profile.len() < 6 {
        return Err("the frame runs off the picture".into());
    }
    // The frame's outer edge.
    let split =
        split_profile(&profile).ok_or_else(|| "too few samples around the grid".to_owned())?;
    let (k, contrast) = (split.at, split.contrast);
    let edge = 0.5 * (offsets[k - 1] + offsets[k]);
    if contrast < 5.0 {
        return Err(format!("they differ by only ΔE {contrast:.1}"));
    }
    // The middle of the frame, and card a little beyond its edge (away from shading and the
    // layer's side walls).
    let pick = |lo: f32, hi: f32| -> Option<Srgb> {
        let sel: Vec<[f32; 3]> = offsets
            .iter()
            .zip(&profile)
            .filter(|(&d, _)| d >= lo && d <= hi)
            .map(|(_, &m)| m)
            .collect();
        median3(&sel).map(to_srgb)
    };
    let frame = pick(0.25 * edge, 0.75 * edge)
        .or_else(|| pick(0.0, edge))
        .ok_or_else(|| "the frame is too thin to sample".to_owned())?;
    let card = pick(edge + 0.06, edge + 0.3)
        .or_else(|| pick(edge, reach))
        .ok_or_else(|| "no card visible beyond the frame".to_owned())?;
    Ok(Rings {
        frame,
        card,
        frame_width: f64::from(edge),
    })
}

/// The best two-step fit (least squares in Lab) of a profile of ring colours.
struct Split {
    /// Where the second part starts.
    at: usize,
    /// ΔE₀₀ between the parts' means.
    contrast: f32,
    /// The largest ΔE₀₀ from the first part's mean of a ring in it, short of the last two.
    first_spread: f32,
}

fn split_profile(profile: &[[f32; 3]]) -> Option<Split> {
    let labs: Vec<Lab> = profile
        .iter()
        .map(|m| Lab::from_srgb(to_srgb(*m)))
        .collect();
    let sq = |a: Lab, b: Lab| (a.l - b.l).powi(2) + (a.a - b.a).powi(2) + (a.b - b.b).powi(2);
    let mean = |s: &[Lab]| {
        let n = s.len() as f32;
        Lab::new(
            s.iter().map(|x| x.l).sum::<f32>() / n,
            s.iter().map(|x| x.a).sum::<f32>() / n,
            s.iter().map(|x| x.b).sum::<f32>() / n,
        )
    };
    let cost = |s: &[Lab]| {
        let m = mean(s);
        s.iter().map(|&x| sq(x, m)).sum::<f32>()
    };
    let at = (2..labs.len().checked_sub(2)?).min_by(|&a, &b| {
        (cost(&labs[..a]) + cost(&labs[a..])).total_cmp(&(cost(&labs[..b]) + cost(&labs[b..])))
    })?;
    let first = mean(&labs[..at]);
    Some(Split {
        at,
        contrast: first.delta_e(mean(&labs[at..])),
        // Leaving out the last two rings, which blur into the second part.
        first_spread: labs[..at.saturating_sub(2).max(1)]
            .iter()
            .map(|&x| x.delta_e(first))
            .fold(0.0, f32::max),
    })
}

/// The reader may outline the frame's *outer* edge: a light frame on a dark card can outline
/// it more strongly than the cells do, the more so when holes along the edges show the card.
/// Then walking inward the rings are one colour (the frame) for at most a frame's width, and
/// then the cells begin; along the cells' edge the rings' colour keeps changing or stays for a
/// whole cell. Returns the cell area inside such a band.
fn inside_the_frame(
    image: &RgbImage,
    corners: &Quad,
    rows: usize,
    cols: usize,
    options: &EnrollOptions,
) -> Option<Quad> {
    let (r, c) = (rows as f32, cols as f32);
    let g = homography_4(&rect(0.0, 0.0, c, r), corners)?;
    let reach = options.max_frame_width.max(0.1) + 0.15;
    let (offsets, profile) = ring_profile(image, &g, r, c, reach, -1.0);
    let split = split_profile(&profile)?;
    let inset = 0.5 * (offsets[split.at - 1] + offsets[split.at]);
    // The band is the frame when it is uniform, differs from the cells, and differs from
    // what lies outside it (the card).
    let band = median3(&profile[..split.at])?;
    let outside = ring_median(image, &g, r, c, 0.1)?;
    let differs = Lab::from_srgb(to_srgb(band)).delta_e(Lab::from_srgb(to_srgb(outside)));
    let frame = split.contrast >= 10.0
        && split.first_spread <= split.contrast / 3.0
        && differs >= 5.0
        && (0.06..=options.max_frame_width).contains(&inset);
    frame
        .then(|| crate::geom::map_quad(&g, &rect(inset, inset, c - inset, r - inset)))
        .flatten()
}

/// Ring colours every 0.02 cells up to `reach` from the cell area's edge, outward
/// (`direction` 1) or inward (-1), with their distances; rings mostly off the picture are
/// left out.
fn ring_profile(
    image: &RgbImage,
    g: &crate::rectify::Homography,
    r: f32,
    c: f32,
    reach: f32,
    direction: f32,
) -> (Vec<f32>, Vec<[f32; 3]>) {
    let step = 0.02f32;
    (1..=(reach / step).round() as usize)
        .map(|i| i as f32 * step)
        .filter_map(|d| ring_median(image, g, r, c, direction * d).map(|m| (d, m)))
        .unzip()
}

/// The per-channel median sRGB of points `d` cells outside the cell area, along the straight
/// parts of its four sides (the frame's corners may be rounded).
fn ring_median(
    image: &RgbImage,
    g: &crate::rectify::Homography,
    r: f32,
    c: f32,
    d: f32,
) -> Option<[f32; 3]> {
    let mut pts: Vec<[f32; 2]> = Vec::new();
    let per = 12usize;
    for i in 0..(per as f32 * c) as usize {
        let x = (i as f32 + 0.5) / per as f32;
        pts.push([x, -d]);
        pts.push([x, r + d]);
    }
    for i in 0..(per as f32 * r) as usize {
        let y = (i as f32 + 0.5) / per as f32;
        pts.push([-d, y]);
        pts.push([c + d, y]);
    }
    let vals: Vec<[f32; 3]> = pts
        .into_iter()
        .filter_map(|p| apply_homography(g, p))
        .filter_map(|p| bilinear(image, p))
        .collect();
    // Half of the ring off the picture is not a ring.
    if vals.len() * 2 < ((r + c) as usize) * 2 * per {
        return None;
    }
    median3(&vals)
}

fn median3(vals: &[[f32; 3]]) -> Option<[f32; 3]> {
    if vals.is_empty() {
        return None;
    }
    let mut out = [0.0; 3];
    for (ch, o) in out.iter_mut().enumerate() {
        let mut v: Vec<f32> = vals.iter().map(|x| x[ch]).collect();
        v.sort_by(f32::total_cmp);
        *o = v[v.len() / 2];
    }
    Some(out)
}

fn to_srgb(m: [f32; 3]) -> Srgb {
    let b = m.map(|v| v.round().clamp(0.0, 255.0) as u8);
    Srgb::new(b[0], b[1], b[2])
}

/// Bilinear sRGB at pixel position `p` (pixel centres at integers), if inside.
fn bilinear(image: &RgbImage, [x, y]: [f32; 2]) -> Option<[f32; 3]> {
    let (w, h) = image.dimensions();
    if x < 0.0 || y < 0.0 || x > (w - 1) as f32 || y > (h - 1) as f32 {
        return None;
    }
    let (x0, y0) = (x.floor() as u32, y.floor() as u32);
    let (x1, y1) = ((x0 + 1).min(w - 1), (y0 + 1).min(h - 1));
    let (fx, fy) = (x - x0 as f32, y - y0 as f32);
    let px = |x: u32, y: u32| image.get_pixel(x, y).0.map(f32::from);
    let (a, b, c, d) = (px(x0, y0), px(x1, y0), px(x0, y1), px(x1, y1));
    Some([0, 1, 2].map(|i| {
        (a[i] * (1.0 - fx) + b[i] * fx) * (1.0 - fy) + (c[i] * (1.0 - fx) + d[i] * fx) * fy
    }))
}

/// Which ring a clustered point came from, if any.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Ring {
    None,
    Card,
    Frame,
}

/// One colour to cluster: white-balanced, with where it came from.
struct Point {
    lin: LinRgb,
    lab: Lab,
    cell: Option<(usize, Pos)>,
    ring: Ring,
}

impl Point {
    fn new(lin: LinRgb, cell: Option<(usize, Pos)>, ring: Ring) -> Point {
        Point {
            lin,
            lab: Lab::from_linear(lin),
            cell,
            ring,
        }
    }
}

/// Average-linkage agglomerative clustering on CIEDE2000 (Lance–Williams updates), stopped at
/// `threshold`, then three rounds of reassignment to the nearest cluster median. Returns a
/// dense label per point.
fn cluster(points: &[Point], threshold: f32) -> Vec<usize> {
    let n = points.len();
    let mut d = vec![0.0f32; n * n];
    for i in 0..n {
        for j in i + 1..n {
            let v = points[i].lab.delta_e(points[j].lab);
            d[i * n + j] = v;
            d[j * n + i] = v;
        }
    }
    let mut size = vec![1usize; n];
    let mut alive = vec![true; n];
    let mut owner: Vec<usize> = (0..n).collect();
    loop {
        let mut best = (f32::INFINITY, 0, 0);
        for i in 0..n {
            if !alive[i] {
                continue;
            }
            for j in i + 1..n {
                if alive[j] && d[i * n + j] < best.0 {
                    best = (d[i * n + j], i, j);
                }
            }
        }
        let (v, i, j) = best;
        if v > threshold || !v.is_finite() {
            break;
        }
        // Merge j into i.
        let (si, sj) = (size[i] as f32, size[j] as f32);
        for k in 0..n {
            if alive[k] && k != i && k != j {
                let m = (si * d[i * n + k] + sj * d[j * n + k]) / (si + sj);
                d[i * n + k] = m;
                d[k * n + i] = m;
            }
        }
        size[i] += size[j];
        alive[j] = false;
        for o in owner.iter_mut() {
            if *o == j {
                *o = i;
            }
        }
    }
    let mut labels = dense(&owner);
    for _ in 0..3 {
        let centres: Vec<Lab> = summarise(points, &labels).iter().map(|c| c.lab).collect();
        let next: Vec<usize> = points
            .iter()
            .map(|p| {
                (0..centres.len())
                    .min_by(|&a, &b| {
                        p.lab
                            .delta_e(centres[a])
                            .total_cmp(&p.lab.delta_e(centres[b]))
                    })
                    .unwrap_or(0)
            })
            .collect();
        let next = dense(&next);
        if next == labels {
            break;
        }
        labels = next;
    }
    labels
}

/// Renumbers labels 0.. in order of first appearance.
fn dense(labels: &[usize]) -> Vec<usize> {
    let mut map: BTreeMap<usize, usize> = BTreeMap::new();
    labels
        .iter()
        .map(|&l| {
            let next = map.len();
            *map.entry(l).or_insert(next)
        })
        .collect()
}

/// A cluster's median colour and spread.
struct Summary {
    lab: Lab,
    srgb: Srgb,
    members: usize,
    spread: f32,
    max: f32,
}

fn summarise(points: &[Point], labels: &[usize]) -> Vec<Summary> {
    let k = labels.iter().copied().max().map_or(0, |m| m + 1);
    (0..k)
        .map(|l| {
            let lins: Vec<[f32; 3]> = points
                .iter()
                .zip(labels)
                .filter(|(_, &x)| x == l)
                .map(|(p, _)| p.lin.to_array())
                .collect();
            let lin = LinRgb::from_array(median3(&lins).unwrap_or([0.0; 3]));
            let lab = Lab::from_linear(lin);
            let mut ds: Vec<f32> = points
                .iter()
                .zip(labels)
                .filter(|(_, &x)| x == l)
                .map(|(p, _)| p.lab.delta_e(lab))
                .collect();
            ds.sort_by(f32::total_cmp);
            Summary {
                lab,
                srgb: lin.to_srgb(),
                members: lins.len(),
                spread: ds.get(ds.len() / 2).copied().unwrap_or(0.0),
                max: ds.last().copied().unwrap_or(0.0),
            }
        })
        .collect()
}

/// A colour's name and the keys to try for it, most fitting first.
fn hue_name(lab: Lab) -> (&'static str, &'static str) {
    let chroma = lab.a.hypot(lab.b);
    let hue = lab.b.atan2(lab.a).to_degrees().rem_euclid(360.0);
    if chroma < 12.0 {
        return match lab.l {
            l if l < 30.0 => ("black", "xk"),
            l if l > 80.0 => ("white", "hw"),
            _ => ("grey", "ae"),
        };
    }
    let dark = lab.l < 45.0;
    match hue {
        h if !(20.0..345.0).contains(&h) => ("pink", "pmq"),
        h if h < 45.0 => ("red", "rdq"),
        h if h < 70.0 && dark => ("brown", "nu"),
        h if h < 70.0 => ("orange", "osz"),
        h if h < 105.0 && dark => ("olive", "ol"),
        h if h < 105.0 => ("yellow", "yl"),
        h if h < 170.0 => ("green", "gfd"),
        h if h < 235.0 => ("teal", "tca"),
        h if h < 285.0 => ("blue", "bcn"),
        h if h < 320.0 => ("purple", "vpu"),
        _ => ("magenta", "mpq"),
    }
}

/// Keys: `w` for the card, `k` for the frame, hue letters for the rest (most members first,
/// so the common colours get the natural letters), then any free letter or digit.
fn name_clusters(
    clusters: &[Summary],
    card: usize,
    frame: usize,
) -> Result<BTreeMap<usize, Key>, EnrollError> {
    let mut used: BTreeSet<char> = BTreeSet::from(['w', 'k']);
    let mut out = BTreeMap::new();
    let key = |c: char| {
        Key::new(c).map_err(|_| EnrollError::TooManyColours {
            count: clusters.len(),
        })
    };
    out.insert(card, key('w')?);
    out.insert(frame, key('k')?);
    let mut order: Vec<usize> = (0..clusters.len())
        .filter(|&l| l != card && l != frame)
        .collect();
    order.sort_by_key(|&l| std::cmp::Reverse(clusters[l].members));
    let spare = ('a'..='z').chain('0'..='9');
    for l in order {
        let (_, tries) = hue_name(clusters[l].lab);
        let c = tries
            .chars()
            .chain(spare.clone())
            .find(|c| !used.contains(c))
            .ok_or(EnrollError::TooManyColours {
                count: clusters.len(),
            })?;
        used.insert(c);
        out.insert(l, key(c)?);
    }
    Ok(out)
}
