//! Seeds of the lattice: card centres found without knowing the lattice, and the test that a
//! lattice square is a card centre.
//!
//! A centre is a square of light card stock with dark ink in its middle (the deck's symbol),
//! bordered by pattern squares. Thresholded against its neighbourhood it is a light convex
//! quad with dark holes near its middle only: a table's light tiles have no holes, textured
//! patterns have holes everywhere. The thresholds run at several window sizes, ArUco-style,
//! because the size of a square in the photo is not known yet.

use image::RgbImage;
use opencv::core::{Mat, Point, Vector};
use opencv::imgproc;
use opencv::prelude::*;
use rayon::prelude::*;

use crate::error::VisionError;
use crate::geom::{centre, inside, round_to_i32, signed_area};
use crate::mat::rgb_to_mat;
use crate::rectify::{apply_homography, Homography, Quad};
use crate::refine::Lookup;

/// A square around a symbol: probably a card centre.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) struct Seed {
    /// Clockwise on screen, starting at the corner nearest the photo's top-left.
    pub quad: Quad,
    pub area: f32,
    /// The symbol's position in the photo (the quad may be undistorted later).
    pub symbol: [f32; 2],
}

/// Squares that may be card centres, found two ways: around the photo's symbols (dark ink
/// hugged by light stock, its square from the lattice lines around it), and as light quads
/// with ink inside.
pub(crate) fn find_seeds(image: &RgbImage) -> Result<Vec<Seed>, VisionError> {
    let mut seeds = symbol_seeds(image)?;
    seeds.extend(find_light_quads(image)?);
    Ok(seeds)
}

/// The squares around the photo's symbols, from the lattice lines near each.
pub(crate) fn symbol_seeds(image: &RgbImage) -> Result<Vec<Seed>, VisionError> {
    let symbols = find_symbols(image)?;
    let edges = Edges::new(image)?;
    // In parallel: a gingham's dark checks pass for symbols by the thousand, and a replay
    // reading its photos in runs leaves a core idle once the shorter run is done.
    Ok(symbols
        .par_iter()
        .filter_map(|s| square_around(&edges, s))
        .collect())
}

/// A compact dark blob with light, even stock all around it.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) struct Symbol {
    pub centre: [f32; 2],
    /// The longer side of its bounding box, pixels.
    pub size: f32,
}

/// Symbols of any size from a 250th to a 12th of the photo's short side. Dark ink is found
/// against its neighbourhood (adaptive threshold at two window sizes), its parts joined by a
/// small closing (a symbol of two bars is one symbol), and kept when the band just around it
/// is light and even: stock, not a pattern's texture. The band hugs the ink, so the test does
/// not depend on how large the symbol is within its square.
pub(crate) fn find_symbols(image: &RgbImage) -> Result<Vec<Symbol>, VisionError> {
    find_symbols_where(image, image.width().min(image.height()) as i32, &|_| true)
}

/// [`find_symbols`] in a part of a photo whose short side is `short` pixels (symbols are
/// looked for at the sizes of the whole photo), only where `wanted(centre)` says a symbol
/// would matter: the test of the stock around each blob is most of the search's time.
pub(crate) fn find_symbols_where(
    image: &RgbImage,
    short: i32,
    wanted: &dyn Fn([f32; 2]) -> bool,
) -> Result<Vec<Symbol>, VisionError> {
    let cv = VisionError::opencv;
    let rgb = rgb_to_mat(image)?;
    let mut grey = Mat::default();
    imgproc::cvt_color_def(&rgb, &mut grey, imgproc::COLOR_BGR2GRAY).map_err(cv("cvt_color"))?;
    let luma = grey_image(&grey)?;
    let (min_area, max_area) = (
        (short as f32 / 250.0).powi(2).max(12.0),
        (short as f32 / 12.0).powi(2),
    );
    let mut symbols: Vec<Symbol> = Vec::new();
    for div in [12, 24] {
        let block = ((short / div) | 1).max(11);
        let mut bin = Mat::default();
        imgproc::adaptive_threshold(
            &grey,
            &mut bin,
            255.0,
            imgproc::ADAPTIVE_THRESH_MEAN_C,
            imgproc::THRESH_BINARY_INV,
            block,
            25.0,
        )
        .map_err(cv("adaptive_threshold"))?;
        let k = (short / 240).max(3) | 1;
        let kernel = imgproc::get_structuring_element_def(
            imgproc::MORPH_ELLIPSE,
            opencv::core::Size::new(k, k),
        )
        .map_err(cv("structuring element"))?;
        let mut closed = Mat::default();
        imgproc::morphology_ex_def(&bin, &mut closed, imgproc::MORPH_CLOSE, &kernel)
            .map_err(cv("morphology"))?;
        let (mut labels, mut stats, mut centroids) =
            (Mat::default(), Mat::default(), Mat::default());
        let n = imgproc::connected_components_with_stats_def(
            &closed,
            &mut labels,
            &mut stats,
            &mut centroids,
        )
        .map_err(cv("connected_components"))?;
        let labels_data = labels.data_typed::<i32>().map_err(cv("labels"))?;
        let (w, h) = (image.width() as i32, image.height() as i32);
        for i in 1..n {
            let stat = |c: i32| stats.at_2d::<i32>(i, c).copied().map_err(cv("stats"));
            let (x, y, bw, bh, area) = (
                stat(imgproc::CC_STAT_LEFT)?,
                stat(imgproc::CC_STAT_TOP)?,
                stat(imgproc::CC_STAT_WIDTH)?,
                stat(imgproc::CC_STAT_HEIGHT)?,
                stat(imgproc::CC_STAT_AREA)? as f32,
            );
            // Up to 6:1: one bar of a two-bar symbol is 5:1.
            if area < min_area || area > max_area || bw.max(bh) > 6 * bw.min(bh) {
                continue;
            }
            let size = bw.max(bh) as f32;
            let centre = [
                *centroids.at_2d::<f64>(i, 0).map_err(cv("centroid"))? as f32,
                *centroids.at_2d::<f64>(i, 1).map_err(cv("centroid"))? as f32,
            ];
            // The same symbol found again; a blob twice the size or more about the same middle
            // is another thing (a whole card whose squares closed into one blob).
            if symbols.iter().any(|s| {
                crate::geom::dist(s.centre, centre) < 0.5 * s.size.max(size)
                    && s.size.max(size) < 2.0 * s.size.min(size)
            }) {
                continue;
            }
            if !wanted(centre) {
                continue;
            }
            let window = (x, y, bw, bh);
            if stock_around(&luma, labels_data, w, h, i, window)? {
                symbols.push(Symbol { centre, size });
            }
        }
    }
    Ok(symbols)
}

fn grey_image(grey: &Mat) -> Result<image::GrayImage, VisionError> {
    let cv = VisionError::opencv;
    let bytes = grey.data_bytes().map_err(cv("grey bytes"))?.to_vec();
    image::GrayImage::from_raw(grey.cols() as u32, grey.rows() as u32, bytes)
        .ok_or_else(|| VisionError::Geometry("a grey image of the wrong size".into()))
}

/// Whether blob `label` (bounding box `window`) is ink on stock: the band from 7% to 15% of
/// its size away from it (in straight-line distance) is light (the ink, or a thin stroke's
/// darker half, under 55% of it) and even (under 8% of the band much darker than its
/// median). The band stays on the centre square even around the widest symbols (a hollow
/// square two thirds of the square wide), turned 45° so that its bounding box is wider still.
fn stock_around(
    luma: &image::GrayImage,
    labels: &[i32],
    w: i32,
    h: i32,
    label: i32,
    (x, y, bw, bh): (i32, i32, i32, i32),
) -> Result<bool, VisionError> {
    let size = bw.max(bh) as f32;
    let near = (0.07 * size).round().max(2.0);
    let far = ((0.15 * size).round()).max(near + 2.0);
    let reach = far as i32;
    let (x0, y0, x1, y1) = (x - reach, y - reach, x + bw + reach, y + bh + reach);
    if x0 < 0 || y0 < 0 || x1 > w || y1 > h {
        return Ok(false);
    }
    let (cw, ch) = (x1 - x0, y1 - y0);
    // Zero on the ink: OpenCV measures each pixel's distance to the nearest zero.
    let mut off_ink = vec![255u8; (cw * ch) as usize];
    let mut ink: Vec<u8> = Vec::new();
    for yy in y0..y1 {
        for xx in x0..x1 {
            if labels[(yy * w + xx) as usize] == label {
                off_ink[((yy - y0) * cw + (xx - x0)) as usize] = 0;
                ink.push(luma.get_pixel(xx as u32, yy as u32).0[0]);
            }
        }
    }
    let cv = VisionError::opencv;
    let off_ink = Mat::new_rows_cols_with_data(ch, cw, &off_ink).map_err(cv("ink Mat"))?;
    let mut distance = Mat::default();
    imgproc::distance_transform_def(
        &off_ink,
        &mut distance,
        imgproc::DIST_L2,
        imgproc::DIST_MASK_PRECISE,
    )
    .map_err(cv("distance_transform"))?;
    let distance = distance.data_typed::<f32>().map_err(cv("distances"))?;
    let mut band: Vec<f32> = Vec::new();
    for (k, &d) in distance.iter().enumerate() {
        if d > near && d <= far {
            let (px, py) = (k as i32 % cw + x0, k as i32 / cw + y0);
            band.push(f32::from(luma.get_pixel(px as u32, py as u32).0[0]));
        }
    }
    if band.is_empty() || ink.is_empty() {
        return Ok(false);
    }
    let mut sorted = band.clone();
    sorted.sort_by(f32::total_cmp);
    let median = sorted[sorted.len() / 2];
    let dark = band.iter().filter(|&&l| l < 0.8 * median).count() as f32 / band.len() as f32;
    // A thin stroke's blurred fringe, lighter than its core, is most of its pixels (a hollow
    // square's outline a pixel or two wide, filling under half its box): its darker half is
    // its ink. A solid blob's ink is all of it (a cloth's grey check has a darker middle too).
    let thin = (ink.len() as i32) < bw * bh / 2;
    ink.sort_unstable();
    let ink = if thin {
        &ink[..ink.len().div_ceil(2)]
    } else {
        &ink[..]
    };
    let ink = ink.iter().map(|&l| f32::from(l)).sum::<f32>() / ink.len() as f32;
    Ok(median > 40.0 && ink < 0.55 * median && dark < 0.08)
}

/// The photo's colour gradients: at each pixel, that of the channel changing most (a border
/// between two patterns of equal brightness still shows in one channel).
struct Edges {
    width: i32,
    height: i32,
    /// Gradient magnitude and direction (radians in 0..π) per pixel, row-major, (0, 0) where
    /// weaker than [`MIN_EDGE`]; computed once, as every symbol's window looks at them.
    grad: Vec<(f32, f32)>,
}

impl Edges {
    fn new(image: &RgbImage) -> Result<Edges, VisionError> {
        let cv = VisionError::opencv;
        let bgr = rgb_to_mat(image)?;
        let (mut dx, mut dy) = (Mat::default(), Mat::default());
        imgproc::sobel_def(&bgr, &mut dx, opencv::core::CV_16S, 1, 0).map_err(cv("sobel"))?;
        imgproc::sobel_def(&bgr, &mut dy, opencv::core::CV_16S, 0, 1).map_err(cv("sobel"))?;
        let dx = dx
            .data_typed::<opencv::core::Vec3s>()
            .map_err(cv("sobel x"))?;
        let dy = dy
            .data_typed::<opencv::core::Vec3s>()
            .map_err(cv("sobel y"))?;
        let grad = dx
            .iter()
            .zip(dy)
            .map(|(gx, gy)| {
                let squared = |c: usize| i32::from(gx[c]).pow(2) + i32::from(gy[c]).pow(2);
                let c = (0..3).max_by_key(|&c| squared(c)).unwrap_or(0);
                // Weak gradients are never looked at (see `square_around`): most pixels.
                if (squared(c) as f32) < MIN_EDGE * MIN_EDGE {
                    return (0.0, 0.0);
                }
                let (gx, gy) = (f32::from(gx[c]), f32::from(gy[c]));
                (gx.hypot(gy), gy.atan2(gx).rem_euclid(std::f32::consts::PI))
            })
            .collect();
        Ok(Edges {
            width: image.width() as i32,
            height: image.height() as i32,
            grad,
        })
    }
}

/// Gradient magnitude (Sobel, 8-bit) below which a pixel is not on an edge.
const MIN_EDGE: f32 = 40.0;

/// Symbols at least this large (pixels) have their window sampled sparsely.
const LARGE_SYMBOL: f32 = 16.0;

/// The card square around a symbol, from the lattice lines near it: two strong edge
/// directions (the lattice's two families of lines, not square to each other in a tilted
/// photo), and along each the spacing and offset that put the most edge on the lines of
/// the 3 × 3 squares of the card (±½ and ±1½ squares from the centre). Of the squares that
/// pairs of strong directions give, the one with the most edge along its sides.
fn square_around(edges: &Edges, symbol: &Symbol) -> Option<Seed> {
    let s = symbol.size;
    let [cx, cy] = symbol.centre;
    // Squares of 1.2 to 4 symbol sizes; the window reaches the card's outer lines.
    let (min_side, max_side) = (1.2 * s, 4.0 * s);
    let reach = (1.6 * max_side).ceil() as i32;
    let (x0, x1) = (
        (cx as i32 - reach).max(0),
        (cx as i32 + reach).min(edges.width - 1),
    );
    let (y0, y1) = (
        (cy as i32 - reach).max(0),
        (cy as i32 + reach).min(edges.height - 1),
    );
    let mut hist = [0.0f32; BINS];
    let mut samples: Vec<([f32; 2], f32, f32)> = Vec::new();
    // Each sample's direction bin, apart: a family's lines look at the few bins about its
    // direction, and a scan of these bytes passes over the rest at little cost.
    let mut bins: Vec<u8> = Vec::new();
    // The window grows with the symbol's square; a large one is sampled every few pixels
    // (lattice lines still cross dozens of its rows), so that a cloth's big blobs, which pass
    // for symbols, cost about what a card's symbol does. (A close-up's own large symbols are
    // sampled so too: one close-up over bold stripes reads worse for it, docs/ACCURACY.md.)
    let step = ((s / LARGE_SYMBOL) as usize).max(1);
    for y in (y0..=y1).step_by(step) {
        for x in (x0..=x1).step_by(step) {
            let (dx, dy) = (x as f32 - cx, y as f32 - cy);
            // The symbol's own outline says nothing of the lattice.
            if dx.abs().max(dy.abs()) < 0.6 * s {
                continue;
            }
            let (m, angle) = edges.grad[(y * edges.width + x) as usize];
            if m < MIN_EDGE {
                continue;
            }
            let bin = direction_bin(angle);
            hist[bin] += m;
            samples.push(([dx, dy], angle, m));
            bins.push(bin as u8);
        }
    }
    let smooth: Vec<f32> = (0..BINS)
        .map(|i| hist[(i + BINS - 1) % BINS] + 2.0 * hist[i] + hist[(i + 1) % BINS])
        .collect();
    // The strongest directions are the lattice's two families, unless a table's stripes
    // beside a small card outweigh one of them: each pair of strong directions at least 40°
    // apart (a square seen at up to 50° of tilt) gives a square, and the square whose sides
    // run along edges all round wins.
    let strongest = smooth.iter().fold(0.0f32, |a, &b| a.max(b));
    let mut peaks: Vec<usize> = (0..BINS)
        .filter(|&i| {
            smooth[i] >= 0.1 * strongest
                && smooth[i] > smooth[(i + BINS - 1) % BINS]
                && smooth[i] >= smooth[(i + 1) % BINS]
        })
        .collect();
    peaks.sort_by(|&a, &b| smooth[b].total_cmp(&smooth[a]));
    peaks.truncate(6);
    let apart = |a: usize, b: usize| {
        let d = a.abs_diff(b);
        d.min(BINS - d) * 180 / BINS >= 40
    };
    let mut pairs: Vec<(usize, usize)> = (0..peaks.len())
        .flat_map(|i| (i + 1..peaks.len()).map(move |j| (i, j)))
        .filter(|&(i, j)| apart(peaks[i], peaks[j]))
        .collect();
    pairs.sort_by(|a, b| {
        let strength = |&(i, j): &(usize, usize)| smooth[peaks[i]] + smooth[peaks[j]];
        strength(b).total_cmp(&strength(a))
    });
    // Each paired direction's lines, found once; of the squares of each pair, the one with
    // the most edge along its sides, the strongest pair's on a tie.
    let families: Vec<Option<Family>> = (0..peaks.len())
        .map(|k| {
            let paired = pairs.iter().any(|&(i, j)| i == k || j == k);
            let along = Along {
                samples: &samples,
                bins: &bins,
                bin: peaks[k],
            };
            paired
                .then(|| lines_along(along, (min_side, max_side), reach as f32, step))
                .flatten()
        })
        .collect();
    let mut best: Option<(f32, Quad)> = None;
    for (i, j) in pairs {
        let (Some(f1), Some(f2)) = (families[i], families[j]) else {
            continue;
        };
        let Some(quad) = square_of(symbol.centre, f1, f2) else {
            continue;
        };
        let support = edge_support(edges, &quad);
        if best.is_none_or(|(b, _)| support > b) {
            best = Some((support, quad));
        }
    }
    let (_, mut quad) = best?;
    if signed_area(&quad) < 0.0 {
        quad.reverse();
    }
    let first = (0..4)
        .min_by(|&i, &j| (quad[i][0] + quad[i][1]).total_cmp(&(quad[j][0] + quad[j][1])))
        .unwrap_or(0);
    let quad = crate::geom::turn(&quad, first);
    Some(Seed {
        area: signed_area(&quad).abs(),
        quad,
        symbol: symbol.centre,
    })
}

/// A family of lattice lines: their normal, the offset of the centre square's middle from
/// the symbol along it, and their spacing.
type Family = ([f32; 2], f32, f32);

/// The centre square about the symbol at `[cx, cy]` whose sides lie on the lines of two
/// families.
fn square_of([cx, cy]: [f32; 2], (n1, o1, p1): Family, (n2, o2, p2): Family) -> Option<Quad> {
    // The point at offsets (t1, t2) along the two normals.
    let at = |t1: f32, t2: f32| -> Option<[f32; 2]> {
        let det = n1[0] * n2[1] - n1[1] * n2[0];
        if det.abs() < 1e-3 {
            return None;
        }
        Some([
            cx + (t1 * n2[1] - t2 * n1[1]) / det,
            cy + (n1[0] * t2 - n2[0] * t1) / det,
        ])
    };
    Some([
        at(o1 - p1 / 2.0, o2 - p2 / 2.0)?,
        at(o1 + p1 / 2.0, o2 - p2 / 2.0)?,
        at(o1 + p1 / 2.0, o2 + p2 / 2.0)?,
        at(o1 - p1 / 2.0, o2 + p2 / 2.0)?,
    ])
}

/// The share of points along the quad's four sides that lie on an edge running along the
/// side (within a pixel across it): about all of them for a centre square, whose stock
/// meets the patterns all round; fewer for a square askew along a table's stripes.
fn edge_support(edges: &Edges, quad: &Quad) -> f32 {
    const PER_SIDE: usize = 12;
    let tolerance = 20f32.to_radians();
    let mut on = 0;
    for k in 0..4 {
        let (a, b) = (quad[k], quad[(k + 1) % 4]);
        let (dx, dy) = (b[0] - a[0], b[1] - a[1]);
        let len = dx.hypot(dy).max(1e-3);
        let n = [-dy / len, dx / len];
        let normal = n[1].atan2(n[0]).rem_euclid(std::f32::consts::PI);
        for i in 0..PER_SIDE {
            let t = 0.1 + 0.8 * (i as f32 + 0.5) / PER_SIDE as f32;
            let p = [a[0] + t * dx, a[1] + t * dy];
            let hit = [-1.0f32, 0.0, 1.0].iter().any(|&d| {
                let (x, y) = (round_to_i32(p[0] + d * n[0]), round_to_i32(p[1] + d * n[1]));
                if x < 0 || y < 0 || x >= edges.width || y >= edges.height {
                    return false;
                }
                let (m, angle) = edges.grad[(y * edges.width + x) as usize];
                let off = (angle - normal).abs();
                m >= MIN_EDGE && off.min(std::f32::consts::PI - off) <= tolerance
            });
            on += usize::from(hit);
        }
    }
    on as f32 / (4 * PER_SIDE) as f32
}

/// The edge samples of a symbol's window (offset from the symbol, gradient direction and
/// strength), each with its direction bin of [`square_around`]'s histogram, and the bin of
/// the direction whose lines are looked for.
#[derive(Clone, Copy)]
struct Along<'a> {
    samples: &'a [([f32; 2], f32, f32)],
    bins: &'a [u8],
    bin: usize,
}

/// Bins of [`square_around`]'s histogram of edge directions over 0..π: 2° each.
const BINS: usize = 90;

/// Direction bins (of 2°) each way from a family's own bin that may hold a gradient within
/// 8° of its normal: four, and one more for the bin's width.
const BINS_NEAR: usize = 5;

/// The histogram bin of an edge direction in 0..π.
fn direction_bin(angle: f32) -> usize {
    ((angle / std::f32::consts::PI * BINS as f32) as usize).min(BINS - 1)
}

/// The direction in the middle of histogram bin `bin`.
fn bin_direction(bin: usize) -> f32 {
    (bin as f32 + 0.5) / BINS as f32 * std::f32::consts::PI
}

/// How many bins apart two direction bins are, round the half turn.
fn bins_apart(a: usize, b: usize) -> usize {
    let d = a.abs_diff(b);
    d.min(BINS - d)
}

/// The family of lattice lines with normal along the middle of `along`'s bin: the normal, the
/// offset of the centre square's middle and the spacing, chosen to put the most edge strength
/// (of gradients within 8° of the normal) within a pixel of the lines at ±½ and ±1½ spacings
/// from the middle, searched in steps of half the window's sampling `step`.
fn lines_along(
    along: Along,
    (min_side, max_side): (f32, f32),
    reach: f32,
    step: usize,
) -> Option<Family> {
    let angle = bin_direction(along.bin);
    let n = [angle.cos(), angle.sin()];
    // Edge strength by offset along the normal, in half-pixel bins.
    let bins = (4.0 * reach) as usize + 1;
    let mut profile = vec![0.0f32; bins];
    let tolerance = 8f32.to_radians();
    let near = |b: u8| bins_apart(usize::from(b), along.bin) <= BINS_NEAR;
    for (&([dx, dy], a, m), _) in along
        .samples
        .iter()
        .zip(along.bins)
        .filter(|(_, &b)| near(b))
    {
        let d = (a - angle).abs();
        if d.min(std::f32::consts::PI - d) > tolerance {
            continue;
        }
        let t = dx * n[0] + dy * n[1];
        let k = round_to_i32((t + reach) * 2.0);
        if let Some(bin) = usize::try_from(k).ok().filter(|&k| k < bins) {
            profile[bin] += m;
        }
    }
    // Strength within a pixel of a bin, from running sums over the profile padded so that
    // every line looked at (up to 1.7 spacings out) has its window: this is the inner loop.
    let pad = max_side as usize + 8;
    let zeros = std::iter::repeat_n(0.0f32, pad);
    let running: Vec<f32> = std::iter::once(0.0)
        .chain(
            zeros
                .clone()
                .chain(profile)
                .chain(zeros)
                .scan(0.0, |sum, p| {
                    *sum += p;
                    Some(*sum)
                }),
        )
        .collect();
    let window = |k: usize| running[k + 3] - running[k - 2];
    let mut best = (0.0f32, 0.0f32, 0.0f32);
    // Half a pixel, or half the sampling step of a large symbol's window.
    let inc = 0.5 * step as f32;
    let mut side = min_side;
    while side <= max_side {
        // The four lines' bins from the middle's, in half pixels.
        let lines = [-1.5f32, -0.5, 0.5, 1.5].map(|k| round_to_i32(2.0 * k * side) as isize);
        let shift = 0.2 * side;
        let mut o = -shift;
        while o <= shift {
            let middle = round_to_i32((o + reach) * 2.0) as isize + pad as isize;
            let score: f32 = lines.iter().map(|&d| window((middle + d) as usize)).sum();
            if score > best.0 {
                best = (score, o, side);
            }
            o += inc;
        }
        side += inc;
    }
    (best.0 > 0.0).then_some((n, best.1, best.2))
}

/// Light quads with holes near their middle, at every threshold window, ArUco-style;
/// duplicates merged. A centre is found this way when its stock stands apart from its
/// neighbours, whatever the table's stripes do to the lattice lines around it.
fn find_light_quads(image: &RgbImage) -> Result<Vec<Seed>, VisionError> {
    let cv = VisionError::opencv;
    let rgb = rgb_to_mat(image)?;
    let mut grey = Mat::default();
    imgproc::cvt_color_def(&rgb, &mut grey, imgproc::COLOR_RGB2GRAY).map_err(cv("cvt_color"))?;
    let short = image.width().min(image.height()) as i32;
    let min_area = (short as f32 / 80.0).max(6.0).powi(2);
    let max_area = (short as f32 / 3.0).powi(2);
    let mut seeds: Vec<Seed> = Vec::new();
    let mut bin = Mat::default();
    // Windows from about two squares of a small board to two of a close-up one; at each,
    // stricter and stricter levels of light, which part a centre from a light neighbour.
    for (div, level) in [24, 12, 6]
        .into_iter()
        .flat_map(|d| [4.0, 12.0, 20.0, 30.0].map(|l| (d, l)))
    {
        let block = ((short / div) | 1).max(11);
        imgproc::adaptive_threshold(
            &grey,
            &mut bin,
            255.0,
            imgproc::ADAPTIVE_THRESH_MEAN_C,
            imgproc::THRESH_BINARY,
            block,
            -level,
        )
        .map_err(cv("adaptive_threshold"))?;
        let mut contours: Vector<Vector<Point>> = Vector::new();
        let mut hierarchy: Vector<opencv::core::Vec4i> = Vector::new();
        imgproc::find_contours_with_hierarchy_def(
            &bin,
            &mut contours,
            &mut hierarchy,
            imgproc::RETR_CCOMP,
            imgproc::CHAIN_APPROX_SIMPLE,
        )
        .map_err(cv("find_contours"))?;
        for (i, contour) in contours.iter().enumerate() {
            let h = hierarchy.get(i).map_err(cv("hierarchy"))?;
            // Outer boundaries only (their holes are listed as children).
            if h[3] >= 0 || h[2] < 0 {
                continue;
            }
            let area = imgproc::contour_area_def(&contour).map_err(cv("contour_area"))? as f32;
            if area < min_area || area > max_area {
                continue;
            }
            let Some(quad) = quad_of(&contour)? else {
                continue;
            };
            let quad_area = signed_area(&quad).abs();
            if area < 0.8 * quad_area {
                continue;
            }
            if !holes_in_middle(&contours, &hierarchy, h[2], &quad, quad_area)? {
                continue;
            }
            let c = centre(&quad);
            let side = quad_area.sqrt();
            if seeds
                .iter()
                .all(|s| crate::geom::dist(centre(&s.quad), c) > 0.3 * side)
            {
                seeds.push(Seed {
                    quad,
                    area: quad_area,
                    symbol: c,
                });
            }
        }
    }
    Ok(seeds)
}

/// The contour as a convex quad, clockwise from its top-left-most corner, if it is one.
fn quad_of(contour: &Vector<Point>) -> Result<Option<Quad>, VisionError> {
    let cv = VisionError::opencv;
    let peri = imgproc::arc_length(contour, true).map_err(cv("arc_length"))?;
    let mut approx: Vector<Point> = Vector::new();
    imgproc::approx_poly_dp(contour, &mut approx, 0.05 * peri, true)
        .map_err(cv("approx_poly_dp"))?;
    if approx.len() != 4 || !imgproc::is_contour_convex(&approx).map_err(cv("convex"))? {
        return Ok(None);
    }
    let mut q: Quad = [[0.0; 2]; 4];
    for (o, p) in q.iter_mut().zip(approx.iter()) {
        *o = [p.x as f32, p.y as f32];
    }
    if signed_area(&q) < 0.0 {
        q.reverse();
    }
    // A square seen at up to ~50° of tilt: its two pairs of sides within a factor of 1.7 (a
    // centre merged with a light neighbour into a 1 × 2 block is twice as long).
    let len = |i: usize| crate::geom::dist(q[i], q[(i + 1) % 4]);
    let (a, b) = (len(0) + len(2), len(1) + len(3));
    if a.max(b) > 1.7 * a.min(b) {
        return Ok(None);
    }
    let first = (0..4)
        .min_by(|&i, &j| (q[i][0] + q[i][1]).total_cmp(&(q[j][0] + q[j][1])))
        .unwrap_or(0);
    Ok(Some(crate::geom::turn(&q, first)))
}

/// Whether the holes of a light region (its children, from `first`) are ink of a symbol: all
/// in the quad's middle, covering between 3% and 60% of it.
fn holes_in_middle(
    contours: &Vector<Vector<Point>>,
    hierarchy: &Vector<opencv::core::Vec4i>,
    first: i32,
    quad: &Quad,
    quad_area: f32,
) -> Result<bool, VisionError> {
    let cv = VisionError::opencv;
    let c = centre(quad);
    // The quad shrunk to 80% about its centre: ink stays inside it.
    let inner: Quad = quad.map(|p| [c[0] + 0.8 * (p[0] - c[0]), c[1] + 0.8 * (p[1] - c[1])]);
    let mut hole_area = 0.0;
    let mut child = first;
    while child >= 0 {
        let hole = contours.get(child as usize).map_err(cv("hole"))?;
        let a = imgproc::contour_area_def(&hole).map_err(cv("contour_area"))? as f32;
        // Speckles of noise are not ink.
        if a >= 0.002 * quad_area {
            if !hole
                .iter()
                .all(|p| inside(&inner, [p.x as f32, p.y as f32]))
            {
                return Ok(false);
            }
            hole_area += a;
        }
        child = hierarchy.get(child as usize).map_err(cv("hierarchy"))?[0];
    }
    Ok((0.03..=0.6).contains(&(hole_area / quad_area)))
}

/// What a lattice square looks like as a possible centre (see [`CentreLook::is_centre`]).
#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) struct CentreLook {
    /// Mean of the stock ring just inside the square's edge, sRGB 0..255 per channel.
    pub ring: [f32; 3],
    /// Mean of the ring's samples not much darker than its median: its stock without the
    /// sliver of a neighbouring card's edge or shadow along one side.
    pub ring_stock: [f32; 3],
    /// Median luma of the ring.
    pub ring_luma: f32,
    /// Share of ring samples much darker than the ring's median (texture, ink, edges).
    pub ring_dark: f32,
    /// [`CentreLook::ring_dark`] of the ring without its darkest side: a card laid beside the
    /// square may shade one side of it.
    pub ring_dark_but_one_side: f32,
    /// Whether the dark samples of the ring's darkest side are a shade of its stock (its hue,
    /// darker): a shadow, not a neighbouring pattern come in where the square is drawn off.
    pub darkest_side_a_shade: bool,
    /// Share of the middle's samples much darker than the ring: the symbol's ink.
    pub ink: f32,
    /// Share of the middle's samples a little darker than a clean ring (0 where the ring is
    /// not clean): a symbol too fine for the photo blurs this faint.
    pub faint: f32,
    /// How coloured the ink is against the stock: 0 for grey or black ink.
    pub ink_tint: f32,
    /// The ink's colour against the stock's as log-chroma, (ln R/G, ln B/G) of the ratios:
    /// (0, 0) for grey ink under a light the stock shows.
    pub ink_chroma: [f32; 2],
    /// The ink map of the middle, [`SYMBOL_SIDE`]² values in 0..1, row-major in the lattice
    /// frame.
    pub symbol: [f32; SYMBOL_CELLS],
    /// Where the square's middle settled in the photo ([`super::lattice::settle`]), once it
    /// has been.
    pub settled: Option<[f32; 2]>,
    /// Found again by its symbol, as the two photos before saw it
    /// ([`super::lattice::centre_seen_before_at`]).
    pub recognised: bool,
    /// How far (in squares, `[col, row]`) the square lies off the board's lattice, where the
    /// reading measured it: a pile is no flat lattice (cards lie on others, a little askew).
    pub drift: [f32; 2],
}

/// Side of a symbol's ink map.
pub(crate) const SYMBOL_SIDE: usize = 12;
pub(crate) const SYMBOL_CELLS: usize = SYMBOL_SIDE * SYMBOL_SIDE;

/// A colour against a reference, channel by channel: the mean of the three ratios (how much
/// lighter) and their spread, max − min (how differently tinted; 0 for the same hue).
pub(crate) fn against(colour: [f32; 3], reference: [f32; 3]) -> (f32, f32) {
    let ratio: [f32; 3] = std::array::from_fn(|c| colour[c] / reference[c].max(1.0));
    let mean = (ratio[0] + ratio[1] + ratio[2]) / 3.0;
    let spread = ratio.iter().fold(f32::MIN, |a, &b| a.max(b))
        - ratio.iter().fold(f32::MAX, |a, &b| a.min(b));
    (mean, spread)
}

/// Luma (Rec. 601) of an sRGB colour.
pub(crate) fn luma(p: [f32; 3]) -> f32 {
    0.299 * p[0] + 0.587 * p[1] + 0.114 * p[2]
}

/// The most of a centre's ring that may be much darker than its median: a pattern's texture
/// darkens more.
const CLEAN_RING: f32 = 0.2;
/// The most for a centre seen before in the same place: a whole side (a quarter of the ring)
/// and some.
const SEEN_BEFORE_RING: f32 = 0.35;
/// The least ink for a centre seen before in the same place: a trace of its symbol.
const SEEN_BEFORE_INK: f32 = 0.005;
/// The most of a centre's middle its symbol's ink may cover: more is a darker square framed
/// by light (a pattern's), not a symbol. A large hollow square blurred grey, counted against
/// the faint limit, covers up to two thirds (seed 4's game 128: 0.667).
const MAX_INK: f32 = 0.7;
/// Ink darker than this share of the stock's brightness is a symbol's.
const DARK_INK: f32 = 0.6;
/// On clean stock, a symbol blurred grey is still this much darker than the stock.
const FAINT_INK: f32 = 0.85;
/// The least share of a centre's middle that its symbol's ink covers.
const MIN_INK: f32 = 0.04;
/// The least darkness (1 − luma / the stock's, less [`INK_MASS_FLOOR`]) that a symbol
/// blurred grey sums to, as a share of the middle: what [`MIN_INK`] of ink as dark as
/// [`DARK_INK`] sums to, about.
const MIN_INK_MASS: f32 = 0.015;
/// Darkness under this is the stock's noise and grain, not ink.
const INK_MASS_FLOOR: f32 = 0.1;
/// The least share of a centre's middle that a symbol blurred grey covers: blur spreads ink,
/// so a faint patch smaller than this is a streak of the table's grain, not a symbol.
const MIN_FAINT: f32 = 0.2;
/// The least share of a centre's middle that a symbol blurred grey on clipped stock covers.
const MIN_FAINT_ON_CLIPPED: f32 = 0.1;

impl CentreLook {
    /// Measures the square whose unit square `[0,1]²` the homography `h` maps into the photo.
    pub fn measure(lookup: &Lookup, h: &Homography) -> Option<CentreLook> {
        const N: usize = 24;
        let mut ring = Vec::with_capacity(N * 4);
        // The side of the square (top, right, bottom, left) each ring sample lies along.
        let mut ring_side = Vec::with_capacity(N * 4);
        let mut ring_rgb = Vec::with_capacity(N * 4);
        let mut ring_sum = [0.0f32; 3];
        // The middle's samples, each with its place on the N × N grid.
        let mut middle: Vec<([usize; 2], [f32; 3])> = Vec::with_capacity(N * N / 2);
        for i in 0..N {
            for j in 0..N {
                let (x, y) = ((j as f32 + 0.5) / N as f32, (i as f32 + 0.5) / N as f32);
                let d = (x - 0.5).abs().max((y - 0.5).abs());
                if !(d < 0.36 || (0.38..0.45).contains(&d)) {
                    continue;
                }
                let p = lookup.rgb(apply_homography(h, [x, y])?)?;
                if d < 0.36 {
                    middle.push(([j, i], p));
                } else {
                    ring.push(luma(p));
                    ring_rgb.push(p);
                    ring_side.push(if (x - 0.5).abs() >= (y - 0.5).abs() {
                        if x > 0.5 {
                            1
                        } else {
                            3
                        }
                    } else if y > 0.5 {
                        2
                    } else {
                        0
                    });
                    for c in 0..3 {
                        ring_sum[c] += p[c];
                    }
                }
            }
        }
        let n = ring.len() as f32;
        let mut sorted = ring.clone();
        sorted.sort_by(f32::total_cmp);
        let ring_luma = sorted[sorted.len() / 2];
        let (mut dark_by_side, mut count_by_side) = ([0usize; 4], [0usize; 4]);
        for (&l, &side) in ring.iter().zip(&ring_side) {
            count_by_side[side] += 1;
            if l < 0.8 * ring_luma {
                dark_by_side[side] += 1;
            }
        }
        let dark_count: usize = dark_by_side.iter().sum();
        let ring_dark = dark_count as f32 / n;
        let darkest = (0..4).max_by_key(|&k| dark_by_side[k]).unwrap_or(0);
        let ring_dark_but_one_side = (dark_count - dark_by_side[darkest]) as f32
            / (ring.len() - count_by_side[darkest]).max(1) as f32;
        let (mut shade, mut stock) = (([0.0f32; 3], 0.0f32), ([0.0f32; 3], 0.0f32));
        for ((&l, &side), p) in ring.iter().zip(&ring_side).zip(&ring_rgb) {
            let into = if l >= 0.8 * ring_luma {
                &mut stock
            } else if side == darkest {
                &mut shade
            } else {
                continue;
            };
            for (sum, v) in into.0.iter_mut().zip(p) {
                *sum += v;
            }
            into.1 += 1.0;
        }
        let ring_mean = ring_sum.map(|s| s / n);
        let ring_stock = if stock.1 > 0.0 {
            stock.0.map(|v| v / stock.1)
        } else {
            ring_mean
        };
        let darkest_side_a_shade = shade.1 > 0.0 && stock.1 > 0.0 && {
            let (mean, spread) = against(shade.0.map(|v| v / shade.1), ring_stock);
            spread < 0.15 * mean
        };
        // Ink is what is much darker than the stock. A symbol too fine for the photo's
        // resolution (bars closer than a pixel or two, a thin ring) blurs grey: one solid
        // patch of grey in the middle of stock that is clean all round is ink too, however
        // far across the middle the symbol is printed, and so is grey as dark in all as a
        // symbol's ink (blur spreads ink but keeps its sum: a hollow ring, two bars). A
        // light pattern's faint texture is not: it marks the band at the square's edge too,
        // or is scattered thin. On clipped stock the sum is not kept (the light that blur
        // spreads into the ink was clipped off the stock first): grey over a tenth of the
        // middle is ink there.
        let blurred_ink = || {
            let sum: f32 = middle
                .iter()
                .map(|(_, p)| (1.0 - luma(*p) / ring_luma.max(1.0) - INK_MASS_FLOOR).max(0.0))
                .sum();
            sum >= MIN_INK_MASS * middle.len() as f32
        };
        let dark = middle
            .iter()
            .filter(|(_, p)| luma(*p) < DARK_INK * ring_luma)
            .count();
        // Clean but for a few samples: blur brings a darker neighbour's edge into one corner.
        let ring_clean =
            (ring.iter().filter(|&&l| l < FAINT_INK * ring_luma).count() as f32) < 0.05 * n;
        // The faint samples of a clean ring's middle: how many, and their bounding box.
        let faint_samples = ring_clean.then(|| {
            middle
                .iter()
                .filter(|(_, p)| luma(*p) < FAINT_INK * ring_luma)
                .fold((0usize, [N, N], [0, 0]), |(n, lo, hi), &([x, y], _)| {
                    (
                        n + 1,
                        [lo[0].min(x), lo[1].min(y)],
                        [hi[0].max(x), hi[1].max(y)],
                    )
                })
        });
        let faint = faint_samples.map_or(0.0, |(count, _, _)| count as f32 / middle.len() as f32);
        let faint_patch = faint_samples.is_some_and(|(count, [x0, y0], [x1, y1])| {
            (count as f32) >= MIN_FAINT * middle.len() as f32
                && count * 2 >= (x1 - x0 + 1) * (y1 - y0 + 1)
        });
        let limit = if ring_clean
            && (dark as f32) < MIN_INK * middle.len() as f32
            && (faint_patch
                || blurred_ink()
                || (clipped(ring_mean) && faint >= MIN_FAINT_ON_CLIPPED))
        {
            FAINT_INK
        } else {
            DARK_INK
        };
        let mut ink_sum = [0.0f32; 3];
        let mut ink_count = 0;
        for (_, p) in middle.iter().filter(|(_, p)| luma(*p) < limit * ring_luma) {
            ink_count += 1;
            for c in 0..3 {
                ink_sum[c] += p[c];
            }
        }
        let ink = ink_count as f32 / middle.len() as f32;
        // The ink's colour relative to the stock's: equal ratios for grey or black ink under
        // any light; a red or blue mark (a table's check, a pattern's spot) differs.
        let (mean_ratio, spread) = against(ink_sum, ring_mean);
        let ink_tint = if ink_count == 0 {
            0.0
        } else {
            spread / mean_ratio.max(1e-3)
        };
        let ratio: [f32; 3] = std::array::from_fn(|c| {
            (ink_sum[c] / ink_count.max(1) as f32).max(1.0) / ring_mean[c].max(1.0)
        });
        let ink_chroma = [(ratio[0] / ratio[1]).ln(), (ratio[2] / ratio[1]).ln()];
        let mut symbol = [0.0f32; SYMBOL_CELLS];
        const S: usize = SYMBOL_SIDE;
        for (k, v) in symbol.iter_mut().enumerate() {
            // The middle 0.72 of the square, where symbols are printed.
            let x = 0.14 + 0.72 * ((k % S) as f32 + 0.5) / S as f32;
            let y = 0.14 + 0.72 * ((k / S) as f32 + 0.5) / S as f32;
            let l = luma(lookup.rgb(apply_homography(h, [x, y])?)?);
            *v = (1.0 - l / ring_luma.max(1.0)).clamp(0.0, 1.0);
        }
        Some(CentreLook {
            ring: ring_mean,
            ink_tint,
            ink_chroma,
            ring_stock,
            ring_luma,
            ring_dark,
            ring_dark_but_one_side,
            darkest_side_a_shade,
            ink,
            faint,
            symbol,
            settled: None,
            recognised: false,
            drift: [0.0; 2],
        })
    }

    /// Light, even stock around dark, uncoloured ink in the middle. `stock` is the typical
    /// centre's ring colour in this photo, when one is known: a centre's stock is lit and
    /// printed like the others, neither much darker (a mid-tone pattern square with a dark
    /// spot) nor of another hue (a leopard's tan around its spot).
    pub fn is_centre(&self, stock: Option<[f32; 3]>) -> bool {
        self.ring_dark < CLEAN_RING && self.passes_but_for_ring(stock, MIN_INK)
    }

    /// Whether the square would pass for a centre but for its ring: a square drawn a little
    /// off its stock takes in the pattern beside it there.
    pub fn is_centre_but_for_ring(&self) -> bool {
        self.ring_dark >= CLEAN_RING && self.passes_but_for_ring(None, MIN_INK)
    }

    /// [`CentreLook::is_centre`] for a square where an earlier photo of the same board saw a
    /// centre: the blurred edges of darker squares beside it may then shade the outer part of
    /// its ring, more where the card lies a little askew of the lattice, a card laid beside it
    /// may shade a whole side, and glare may leave little of its symbol.
    ///
    /// A symbol too fine for the photo (two thin bars in a small square, out of focus) may
    /// leave no ink as dark as [`DARK_INK`] and too little grey to pass for blurred ink
    /// anywhere: where a centre was seen before, grey over [`MIN_INK`] of the middle of clean
    /// stock is its symbol still. (A card laid over it brings a pattern, which marks the
    /// ring too.)
    pub fn is_centre_seen_before(&self, stock: Option<[f32; 3]>) -> bool {
        // Clean but for one side: the shadow of a card laid beside it, a darker square's
        // blurred edge beyond (seed 4's game 60). A card laid over it marks every side.
        let shaded_side = self.ring_dark_but_one_side < CLEAN_RING && self.darkest_side_a_shade;
        if self.ring_dark >= SEEN_BEFORE_RING && !shaded_side {
            return false;
        }
        self.passes_but_for_ring(stock, SEEN_BEFORE_INK)
            || (self.ink < SEEN_BEFORE_INK
                && self.faint >= MIN_INK
                && CentreLook {
                    ink: self.faint,
                    ..*self
                }
                .passes_but_for_ring(stock, MIN_INK))
    }

    /// Whether the square may be a centre seen before, recognised by its symbol: its ring
    /// mostly clean (as [`CentreLook::is_centre_seen_before`] asks), lit, and what ink it
    /// has uncoloured.
    pub fn recognisable(&self) -> bool {
        self.ring_dark < SEEN_BEFORE_RING && self.ring_luma > 40.0 && self.ink_tint < 0.5
    }

    /// Whether the ring is of `stock`, the typical centre's ring colour in this photo (when
    /// known): lit and printed like the others, neither much darker (a mid-tone pattern
    /// square) nor of another hue (a leopard's tan around its spot).
    pub fn like_stock(&self, stock: Option<[f32; 3]>) -> bool {
        // A ring dark along one side only (a centre seen before: a neighbouring card's edge
        // over a sliver of it, seed 4's game 7) is judged by its stock, not its tinted mean.
        // A new centre's ring is clean all round: its mean, mid-tones and all, is its stock
        // (a striped cloth's light stripes alone would pass for stock).
        let ring = if self.ring_dark >= CLEAN_RING && self.ring_dark_but_one_side < CLEAN_RING {
            self.ring_stock
        } else {
            self.ring
        };
        stock.is_none_or(|s| {
            let (mean, spread) = against(ring, s);
            self.ring_luma > 0.6 * luma(s) && spread < 0.15 * mean
        })
    }

    fn passes_but_for_ring(&self, stock: Option<[f32; 3]>, min_ink: f32) -> bool {
        (min_ink..MAX_INK).contains(&self.ink)
            && (self.ink_tint < 0.5 || self.cast_of_a_clipped_light())
            && self.ring_luma > 40.0
            && self.like_stock(stock)
    }

    /// Whether the ink is of the colour of `typical`, the ink of the photo's other centres:
    /// every symbol is printed in one black and lit like its own stock, so a mark of another
    /// colour (a cloth's green check on a white one) is no symbol, even one dark enough to
    /// pass for black on its own.
    pub fn inked_like(&self, typical: Option<[f32; 2]>) -> bool {
        typical.is_none_or(|[u, v]| {
            (self.ink_chroma[0] - u).hypot(self.ink_chroma[1] - v) < MAX_INK_CHROMA_SPREAD
        })
    }

    /// Whether the ink lies about the middle of the square, as every symbol is printed: a
    /// sliver of a cloth's dark check at the square's edge, beside a card, is not.
    pub fn ink_centred(&self) -> bool {
        ink_off_centre(&self.symbol) <= MAX_INK_OFF_CENTRE
    }

    /// Whether ink that looks tinted against the stock is black ink carrying the light's cast
    /// that a clipped stock no longer shows. Over-exposed stock reads 255 in a clipped channel
    /// however far the light overshoots it there, so black ink's ratio to the stock comes out
    /// too high in that channel by the overshoot: in log-chroma (ln R/G, ln B/G) a clipped red
    /// shifts the ink by (+1, 0), green by (−1, −1), blue by (0, +1). Black ink's colour is a
    /// mix, with no negative share, of the shifts of the channels the stock clipped (red
    /// alone up under a warm lamp whose green stays near the clip: seed 4's games 95, 114 and
    /// 137), within the sensor's noise and short of the strongest cast a camera leaves. A red
    /// or blue mark on a white cloth is far along, a green one on stock with green unclipped
    /// off the mix.
    fn cast_of_a_clipped_light(&self) -> bool {
        if !clipped(self.ring) {
            return false;
        }
        let [r, g, b] = self.ring.map(|c| c >= CLIPPED_STOCK);
        let [u, v] = self.ink_chroma;
        // The overshoots: u = red's − green's, v = blue's − green's; green's is fixed by a
        // channel left unclipped (its overshoot 0), or the least that leaves none negative.
        let green = match (r, g, b) {
            (_, false, _) => 0.0,
            (true, true, true) => 0f32.max(-u).max(-v),
            (true, true, false) => -v,
            (false, true, _) => -u,
        };
        let overshoot = [u + green, green, v + green];
        let misfit = overshoot
            .iter()
            .zip([r, g, b])
            .map(|(&e, clipped)| if clipped { (-e).max(0.0) } else { e.abs() })
            .fold(0f32, f32::hypot);
        misfit < MAX_OFF_CAST && u.hypot(v) < MAX_CAST
    }
}

/// How far the ink's middle (weighted by darkness) may lie from the square's, as a share of
/// the ink map's side: printed symbols, blurred, lit unevenly and beside darker patterns,
/// stay within 0.24 of it in renders (3,321 centres); a sliver of a cloth's check cut by a
/// card's edge lies 0.3 to 0.5 off (docs/ACCURACY.md; `examples/ink_offsets.rs`).
const MAX_INK_OFF_CENTRE: f32 = 0.3;

/// How far the middle of an ink map ([`SYMBOL_SIDE`]² darkness values, row-major), weighted
/// by darkness, lies from the map's middle, as a share of its side; 0 for a map without ink.
pub(crate) fn ink_off_centre(symbol: &[f32]) -> f32 {
    const S: usize = SYMBOL_SIDE;
    let mass: f32 = symbol.iter().sum();
    if mass <= 0.0 {
        return 0.0;
    }
    let middle = |axis: fn(usize) -> usize| {
        symbol
            .iter()
            .enumerate()
            .map(|(k, v)| v * (axis(k) as f32 + 0.5) / S as f32)
            .sum::<f32>()
            / mass
            - 0.5
    };
    middle(|k| k % S).hypot(middle(|k| k / S))
}

/// How far (log-chroma) one symbol's ink may be from the photo's typical ink: about the
/// cast a clipped stock leaves on black ink under a warm light (up to 0.3 in renders of
/// that), short of a green or blue mark (0.4 and more).
const MAX_INK_CHROMA_SPREAD: f32 = 0.35;

/// A channel of stock this bright (of 255) may be clipped: the stock's colour no longer shows
/// the light's.
const CLIPPED_STOCK: f32 = 230.0;

/// Whether stock of mean colour `ring` may be clipped: white or cream stock over-exposed in
/// two channels or all three (under a warm light its blue stays below the clip, under a cool
/// one its red), its third channel still light. A saturated colour clipped in one or two
/// channels (a yellow pattern) is no stock.
fn clipped(ring: [f32; 3]) -> bool {
    let clipped_channels = ring.iter().filter(|&&c| c >= CLIPPED_STOCK).count();
    clipped_channels >= 2 && ring.iter().all(|&c| c >= 0.5 * CLIPPED_STOCK)
}
/// The strongest cast left on black ink by a clipped stock, in log-chroma: about a tungsten
/// lamp under a camera's daylight balance.
const MAX_CAST: f32 = 0.7;
/// How far from a mix of the clipped channels' shifts black ink's colour may be, in
/// log-chroma: a light's green or magenta tint and the sensor's noise.
const MAX_OFF_CAST: f32 = 0.2;

#[cfg(test)]
mod tests {
    use super::*;

    /// Passing over the samples outside [`BINS_NEAR`] bins loses none that `lines_along`
    /// takes: every direction within 8° of a family's lies in a bin that near its own.
    #[test]
    fn every_direction_a_family_takes_lies_in_a_bin_near_its_own() {
        use std::f32::consts::PI;
        let tolerance = 8f32.to_radians();
        for family in 0..BINS {
            let a = bin_direction(family);
            for k in 0..18_000 {
                let angle = k as f32 / 18_000.0 * PI;
                let d = (angle - a).abs();
                if d.min(PI - d) <= tolerance {
                    assert!(
                        bins_apart(direction_bin(angle), family) <= BINS_NEAR,
                        "{angle} for the family of bin {family}"
                    );
                }
            }
        }
        // And the bins near are not all of them.
        assert!(bins_apart(direction_bin(PI / 2.0), 0) > BINS_NEAR);
    }
}
