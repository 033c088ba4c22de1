//! Synthetic scenes of grids, for tests, evaluation and demos.
//!
//! Pure Rust (`image` + `imageproc`), no OpenCV, so that it is an independent check of the
//! vision crate. Everything is deterministic: the same inputs give the same pixels.
//!
//! Pixel coordinates follow imageproc and OpenCV: the centre of pixel `(x, y)` is at `(x, y)`,
//! so the outer edge of a cell that starts at pixel column 10 lies at x = 9.5.
//!
//! Two levels:
//!
//! - [`render_grid`] and [`Scene::perspective`]: a flat fronto-parallel grid in its frame and a
//!   perspective view of it, for small unit tests.
//! - [`render_layers`]: a photo-like Layers+ scene — a stack of layers with holes on a player
//!   card, on a busy table, with distractors, seen by a random camera under random light, with
//!   blur, noise and JPEG — and its ground truth ([`LayersTruth`]). Every random choice is
//!   made up front by [`LayersSceneSpec::random`], so a spec renders to the same pixels every
//!   time.

#![forbid(unsafe_code)]

mod camera;
mod camouflage;
mod chessboard;
mod degrade;
mod font;
mod layers_render;
mod layers_scene;
#[cfg(test)]
mod layers_tests;
mod light;
mod objects;
mod raytrace;
mod table;

pub use camera::CameraSpec;
pub use camouflage::{
    random_locations_series, random_series, render_camouflage, CamouflageScene,
    CamouflageSceneSpec, CamouflageTruth, CardMaterial, CardSpec, HandSpec, SeriesFrame,
    SquareTruth, CAMOUFLAGE_TRUTH_FORMAT,
};
pub use chessboard::{
    chessboard_views, corner_pixel, render_chessboard, Chessboard, ChessboardView, LensSpec,
};
pub use degrade::{encode_jpeg, SensorSpec};
pub use layers_render::{
    render_layers, CellTruth, Corners, DistractorTruth, LayerTruth, LayersScene, LayersTruth,
    LooseLayerTruth, MissionTruth, TRUTH_FORMAT,
};
pub use layers_scene::{
    Degradation, DigitPlace, Distractors, LayersSceneSpec, LooseLayerSpec, MaterialSpec,
    MissionCardSpec, SceneOptions, StackChoice, StackLayerSpec, StackSpec, TokenSpec,
};
pub use light::{kelvin_to_linear_rgb, GlareSpec, LightSpec, ShadowSpec, NEUTRAL_KELVIN};
pub use table::TableSpec;

use image::{Rgb, RgbImage};
use imageproc::geometric_transformations::{warp_into, Interpolation, Projection};
use tablejudge_rules::{Grid, Srgb};
use thiserror::Error;

/// Four points `[x, y]` in pixels: a grid's outer corners, clockwise from the corner of cell
/// (row 0, column 0) — top-left, top-right, bottom-right, bottom-left when upright.
pub type Quad = [[f32; 2]; 4];

/// How a flat grid is drawn.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct GridStyle {
    /// Side of one square cell, in pixels.
    pub cell_px: u32,
    /// Colour of the solid frame around the cells.
    pub frame: Srgb,
    /// Width of the frame in cell sizes (a Layers+ set's `frame_width`).
    pub frame_width: f32,
    /// Table visible around the frame, in cell sizes.
    pub margin: f32,
    /// Colour of the table.
    pub background: Srgb,
}

impl Default for GridStyle {
    /// 32 px cells in the reference set's dark frame (0.3 cells wide) on a wooden table.
    fn default() -> Self {
        GridStyle {
            cell_px: 32,
            frame: Srgb::new(0x2b, 0x2b, 0x30),
            frame_width: 0.3,
            margin: 0.5,
            background: Srgb::new(0x8a, 0x70, 0x55),
        }
    }
}

/// A rendered picture and where the grid is in it.
#[derive(Clone, Debug, PartialEq)]
pub struct Scene {
    pub image: RgbImage,
    /// The grid's outer corners (the inner edge of the frame) in this image.
    pub corners: Quad,
}

/// Why a scene could not be rendered.
#[derive(Clone, Debug, PartialEq, Error)]
pub enum RenderError {
    #[error("cell size must be at least 1 pixel")]
    ZeroCell,
    #[error("{name} must be a finite number of cells, at least 0, got {value}")]
    BadWidth { name: &'static str, value: f32 },
    #[error("the image would be larger than 32768 pixels on a side")]
    TooLarge,
    #[error("the corners {0:?} do not form a proper quadrilateral")]
    DegenerateQuad(Quad),
    #[error("image size {width}×{height} is out of range: each side must be 16..=16384 pixels")]
    ImageSize { width: u32, height: u32 },
    #[error("layer {0:?} is not in the set")]
    UnknownLayer(String),
    #[error("mission {0:?} is not in the set")]
    UnknownMission(String),
    #[error("no stack could be made for mission {0:?}: it has no solution with its layer count")]
    NoSolution(String),
    #[error(transparent)]
    Stack(#[from] tablejudge_rules::layers::StackError),
    #[error("a scene with {0} objects is too large to render (at most 65535)")]
    TooManyObjects(usize),
    #[error("card {0:?} is not in the set")]
    UnknownCard(String),
    #[error("side {0:?} is not in the set")]
    UnknownSide(String),
    #[error("a board with no cards has nothing to render")]
    EmptyBoard,
    #[error("a Not My Stack! play names no location of the game")]
    NoLocation,
    #[error("JPEG encoding failed: {0}")]
    Jpeg(String),
}

const MAX_SIDE: u64 = 32768;

fn rgb(c: Srgb) -> Rgb<u8> {
    Rgb(c.to_array())
}

fn px_of(name: &'static str, cells: f32, cell_px: u32) -> Result<u32, RenderError> {
    if !(cells.is_finite() && cells >= 0.0) {
        return Err(RenderError::BadWidth { name, value: cells });
    }
    let px = (cells * cell_px as f32).round();
    if px > MAX_SIDE as f32 {
        return Err(RenderError::TooLarge);
    }
    // In range 0..=MAX_SIDE, checked above.
    Ok(px as u32)
}

/// Draws `grid` seen straight from above: square cells, the frame, the table around it.
pub fn render_grid(grid: &Grid<Srgb>, style: &GridStyle) -> Result<Scene, RenderError> {
    render_patches(grid, style, 0.0)
}

/// Like [`render_grid`], but each cell is a patch inset by `gap / 2` cell sizes on every side,
/// the frame colour showing between patches: a printed colour chart (patches on a black body).
/// The corners are still the outer corners of the cell pitch.
pub fn render_patches(
    grid: &Grid<Srgb>,
    style: &GridStyle,
    gap: f32,
) -> Result<Scene, RenderError> {
    let cell = style.cell_px;
    let half_gap = px_of("gap", gap / 2.0, cell)?.min(cell.saturating_sub(1) / 2);
    if cell == 0 {
        return Err(RenderError::ZeroCell);
    }
    let frame = px_of("frame_width", style.frame_width, cell)?;
    let margin = px_of("margin", style.margin, cell)?;
    let origin = u64::from(margin) + u64::from(frame);
    let side = |n: usize| 2 * origin + n as u64 * u64::from(cell);
    let (w, h) = (side(grid.cols()), side(grid.rows()));
    if w > MAX_SIDE || h > MAX_SIDE {
        return Err(RenderError::TooLarge);
    }
    // All sizes are at most MAX_SIDE, checked above, so they fit in u32 and f32 exactly.
    let (w, h, origin) = (w as u32, h as u32, origin as u32);
    let (grid_w, grid_h) = (w - 2 * origin, h - 2 * origin);
    let framed = |x: u32, y: u32| {
        let inside = |v: u32, lo: u32, len: u32| v >= lo && v < lo + len;
        inside(x, margin, grid_w + 2 * frame) && inside(y, margin, grid_h + 2 * frame)
    };
    let image = RgbImage::from_fn(w, h, |x, y| {
        if x >= origin && y >= origin && x < origin + grid_w && y < origin + grid_h {
            let (gx, gy) = (x - origin, y - origin);
            let in_patch = |v: u32| (half_gap..cell - half_gap).contains(&(v % cell));
            if in_patch(gx) && in_patch(gy) {
                rgb(grid[tablejudge_rules::Pos::new((gy / cell) as usize, (gx / cell) as usize)])
            } else {
                rgb(style.frame)
            }
        } else if framed(x, y) {
            rgb(style.frame)
        } else {
            rgb(style.background)
        }
    });
    let (l, t) = (origin as f32 - 0.5, origin as f32 - 0.5);
    let (r, b) = (l + grid_w as f32, t + grid_h as f32);
    Ok(Scene {
        image,
        corners: [[l, t], [r, t], [r, b], [l, b]],
    })
}

impl Scene {
    /// The same scene seen in perspective: the projective map that takes this scene's grid
    /// corners to `corners` is applied to the whole picture, with bilinear sampling, into a
    /// `width` × `height` image; whatever falls outside the original is `background`.
    pub fn perspective(
        &self,
        corners: Quad,
        width: u32,
        height: u32,
        background: Srgb,
    ) -> Result<Scene, RenderError> {
        if u64::from(width) > MAX_SIDE || u64::from(height) > MAX_SIDE {
            return Err(RenderError::TooLarge);
        }
        let projection = projection(self.corners, corners)?;
        let mut out = RgbImage::new(width, height);
        warp_into(
            &self.image,
            &projection,
            Interpolation::Bilinear,
            rgb(background),
            &mut out,
        );
        Ok(Scene {
            image: out,
            corners,
        })
    }
}

/// The projective map taking `from` to `to`, refusing quads that are not convex and
/// clockwise (a mirrored or twisted quad would silently flip the grid).
pub fn projection(from: Quad, to: Quad) -> Result<Projection, RenderError> {
    for q in [from, to] {
        if !is_convex_clockwise(q) {
            return Err(RenderError::DegenerateQuad(q));
        }
    }
    let pts = |q: Quad| q.map(|[x, y]| (x, y));
    Projection::from_control_points(pts(from), pts(to)).ok_or(RenderError::DegenerateQuad(to))
}

/// Convex, non-degenerate and clockwise as seen on screen (y pointing down).
pub fn is_convex_clockwise(q: Quad) -> bool {
    (0..4).all(|i| {
        let [a, b, c] = [q[i], q[(i + 1) % 4], q[(i + 2) % 4]];
        let cross = (b[0] - a[0]) * (c[1] - b[1]) - (b[1] - a[1]) * (c[0] - b[0]);
        cross.is_finite() && cross > 1e-3
    })
}

/// Where `projection` takes the point `p`.
pub fn project(projection: &Projection, [x, y]: [f32; 2]) -> [f32; 2] {
    let (u, v) = *projection * (x, y);
    [u, v]
}

#[cfg(test)]
mod tests {
    use super::*;
    use tablejudge_rules::Pos;

    fn colours() -> Grid<Srgb> {
        Grid::from_fn(3, 4, |p| {
            Srgb::new(
                40 + 60 * p.row as u8,
                30 + 50 * p.col as u8,
                200 - 40 * p.col as u8,
            )
        })
    }

    fn at(img: &RgbImage, x: f32, y: f32) -> Srgb {
        let p = img.get_pixel(x.round() as u32, y.round() as u32).0;
        Srgb::new(p[0], p[1], p[2])
    }

    #[test]
    fn cells_frame_and_table_are_where_the_style_says() {
        let style = GridStyle {
            cell_px: 10,
            frame_width: 0.3,
            margin: 0.5,
            ..GridStyle::default()
        };
        let g = colours();
        let s = render_grid(&g, &style).unwrap();
        // 5 px table + 3 px frame on each side.
        assert_eq!(s.image.dimensions(), (4 * 10 + 16, 3 * 10 + 16));
        assert_eq!(
            s.corners,
            [[7.5, 7.5], [47.5, 7.5], [47.5, 37.5], [7.5, 37.5]]
        );
        for (p, &c) in g.iter() {
            let (x, y) = (8 + 10 * p.col as u32, 8 + 10 * p.row as u32);
            // Every pixel of the cell, corners included.
            for (dx, dy) in [(0, 0), (9, 0), (0, 9), (9, 9), (5, 5)] {
                assert_eq!(at(&s.image, (x + dx) as f32, (y + dy) as f32), c, "{p:?}");
            }
        }
        for (x, y) in [(5, 5), (7, 20), (20, 7), (48, 38), (50, 30), (30, 40)] {
            assert_eq!(at(&s.image, x as f32, y as f32), style.frame, "({x}, {y})");
        }
        for (x, y) in [(0, 0), (4, 20), (51, 20), (20, 4), (55, 45)] {
            assert_eq!(
                at(&s.image, x as f32, y as f32),
                style.background,
                "({x}, {y})"
            );
        }
    }

    #[test]
    fn patches_leave_the_frame_colour_showing_between_them() {
        let style = GridStyle {
            cell_px: 10,
            frame_width: 0.3,
            margin: 0.5,
            ..GridStyle::default()
        };
        let g = colours();
        let s = render_patches(&g, &style, 0.4).unwrap();
        // The same geometry as a touching grid: only the cells' insides change.
        assert_eq!(s.corners, render_grid(&g, &style).unwrap().corners);
        for (p, &c) in g.iter() {
            let (x, y) = (8 + 10 * p.col as u32, 8 + 10 * p.row as u32);
            // 2 px of frame colour on each side of a 6 px patch.
            assert_eq!(at(&s.image, (x + 5) as f32, (y + 5) as f32), c, "{p:?}");
            assert_eq!(at(&s.image, (x + 2) as f32, (y + 2) as f32), c, "{p:?}");
            assert_eq!(
                at(&s.image, (x + 1) as f32, (y + 5) as f32),
                style.frame,
                "{p:?}"
            );
            assert_eq!(
                at(&s.image, (x + 5) as f32, (y + 8) as f32),
                style.frame,
                "{p:?}"
            );
        }
    }

    #[test]
    fn perspective_view_puts_every_cell_centre_where_the_homography_says() {
        let g = colours();
        let flat = render_grid(&g, &GridStyle::default()).unwrap();
        let view: Quad = [[60.0, 40.0], [250.0, 70.0], [230.0, 200.0], [40.0, 170.0]];
        let s = flat
            .perspective(view, 300, 240, Srgb::new(0, 0, 0))
            .unwrap();
        assert_eq!(s.corners, view);
        let h = projection(flat.corners, view).unwrap();
        let cell = GridStyle::default().cell_px as f32;
        for (p, &c) in g.iter() {
            let centre = [
                flat.corners[0][0] + (p.col as f32 + 0.5) * cell,
                flat.corners[0][1] + (p.row as f32 + 0.5) * cell,
            ];
            let [x, y] = project(&h, centre);
            assert_eq!(at(&s.image, x, y), c, "{p:?} at ({x}, {y})");
        }
        // Outside the warped scene is the given background.
        assert_eq!(at(&s.image, 2.0, 2.0), Srgb::new(0, 0, 0));
        // Bilinear sampling blends across a cell edge: a pixel on the edge between two cells
        // of different colours is neither.
        let edge = project(
            &h,
            [flat.corners[0][0] + cell, flat.corners[0][1] + 0.5 * cell],
        );
        let e = at(&s.image, edge[0], edge[1]);
        assert_ne!(e, g[Pos::new(0, 0)]);
        assert_ne!(e, g[Pos::new(0, 1)]);
    }

    #[test]
    fn rendering_is_deterministic() {
        let g = colours();
        let a = render_grid(&g, &GridStyle::default()).unwrap();
        let b = render_grid(&g, &GridStyle::default()).unwrap();
        assert_eq!(a, b);
        let view: Quad = [[10.0, 12.0], [200.0, 5.0], [210.0, 150.0], [5.0, 140.0]];
        let black = Srgb::new(0, 0, 0);
        assert_eq!(
            a.perspective(view, 220, 160, black).unwrap(),
            b.perspective(view, 220, 160, black).unwrap()
        );
    }

    #[test]
    fn bad_styles_and_quads_are_rejected() {
        let g = colours();
        let zero = GridStyle {
            cell_px: 0,
            ..GridStyle::default()
        };
        assert_eq!(render_grid(&g, &zero), Err(RenderError::ZeroCell));
        let neg = GridStyle {
            frame_width: -1.0,
            ..GridStyle::default()
        };
        assert!(matches!(
            render_grid(&g, &neg),
            Err(RenderError::BadWidth { .. })
        ));
        let s = render_grid(&g, &GridStyle::default()).unwrap();
        // Counter-clockwise: a mirror image.
        let mirrored: Quad = [[0.0, 0.0], [0.0, 10.0], [10.0, 10.0], [10.0, 0.0]];
        let black = Srgb::new(0, 0, 0);
        assert!(matches!(
            s.perspective(mirrored, 20, 20, black),
            Err(RenderError::DegenerateQuad(_))
        ));
        let collapsed: Quad = [[0.0, 0.0], [10.0, 0.0], [10.0, 0.0], [0.0, 10.0]];
        assert!(s.perspective(collapsed, 20, 20, black).is_err());
    }
}
