//! Photos to grids: locate, refine, rectify, sample cells, normalise colour, classify.
//!
//! The entry point is [`read_grid`] (module [`read`]).
//!
//! One module per technique (imageproc/kornia style). OpenCV lives here and never leaks out:
//! the public API takes and returns [`image::RgbImage`] and the rules crate's types; only
//! [`mat`] speaks `Mat`, for the stages that call OpenCV.
//!
//! Pixel coordinates follow OpenCV (and imageproc): the centre of pixel `(x, y)` is at
//! `(x, y)`, so the image's outer top-left corner is at `(-0.5, -0.5)`.

#![forbid(unsafe_code)]

pub mod calibrate;
pub mod camera;
pub mod camouflage;
pub mod classify;
pub mod colour;
pub mod colour_chart;
pub mod enroll;
pub mod error;
pub mod geom;
pub mod judge_mat;
pub mod lattice;
pub mod layers;
pub mod locate;
pub mod mat;
pub mod observation;
pub mod photo_file;
pub mod preview;
pub mod read;
pub mod rectify;
pub mod refine;
pub mod sample;
pub mod video;
pub mod white_balance;

pub use camera::Camera;
pub use classify::{Classifier, ClassifierParams, Reading};
pub use colour::{Clipped, Lab, LinRgb, Measured, Xyz};
pub use enroll::{
    enroll, photo_role, ClusterReport, Conflict, EnrollError, EnrollOptions, EnrollPhoto,
    EnrollPhotos, EnrollReport, Enrolled, PhotoReport, PhotoRole,
};
pub use error::VisionError;
pub use layers::{
    judge, judge_against_photo, read_layers, read_mission_card, read_stack_and_mission, FoundGrid,
    GridKind, JudgeOptions, Judgement, LayersError, LayersReadOptions, LayersReader, LayersReading,
    MissionReading,
};
pub use locate::{Candidate, LocateParams, Located, Locator};
pub use observation::Observation;
pub use read::{
    read_grid, ColourCorrection, Diagnostics, GridReader, GridReading, ReadError, ReadOptions,
};
pub use rectify::{GridSize, Quad, Rectified};
pub use sample::{CellSample, SampleParams};
pub use white_balance::WhiteBalance;

#[cfg(test)]
mod pipeline_tests {
    use super::*;
    use crate::classify::tests::classic;
    use tablejudge_render::{render_grid, GridStyle};
    use tablejudge_rules::{Grid, Srgb};

    /// The stages together: the 24-patch chart as a 4 × 6 grid, photographed under warm light
    /// in perspective, is read back cell for cell.
    #[test]
    fn a_warm_perspective_photo_of_the_chart_reads_back() {
        let p = classic();
        let keys: Vec<_> = p.colors.keys().copied().collect();
        let cast = WhiteBalance {
            gains: [0.9, 0.9 * 0.438, 0.9 * 0.117],
        };
        let truth = Grid::from_fn(4, 6, |q| keys[q.row * 6 + q.col]);
        let printed = truth.map(|k| p.colors[k].srgb);
        let style = GridStyle {
            frame: cast.apply(Srgb::new(0x2b, 0x2b, 0x30)),
            background: cast.apply(Srgb::new(0x8a, 0x70, 0x55)),
            ..GridStyle::default()
        };
        let flat = render_grid(&printed.map(|&c| cast.apply(c)), &style).unwrap();
        let corners: Quad = [[150.0, 70.0], [530.0, 90.0], [560.0, 340.0], [110.0, 310.0]];
        let photo = flat
            .perspective(corners, 640, 420, style.background)
            .unwrap();

        let size = GridSize {
            rows: 4,
            cols: 6,
            cell_px: 24,
        };
        let rectified = rectify::rectify(&photo.image, &photo.corners, size).unwrap();
        let measured =
            sample::sample_colours(&rectified.image, 4, 6, &SampleParams::default()).unwrap();
        let palette: Vec<Srgb> = p.colors.values().map(|s| s.srgb).collect();
        let fit = WhiteBalance::from_palette(measured.cells(), &palette).unwrap();
        let classifier = Classifier::new(&p, ClassifierParams::default()).unwrap();
        let readings = classifier.classify_grid(&fit.balance.apply_grid(&measured));

        assert_eq!(readings.map(|r| r.label.unwrap()), truth);
        assert!(
            readings.cells().iter().all(|r| r.confidence > 0.5),
            "{readings:?}"
        );
        let o = Observation::new("synthetic", photo.corners, &readings);
        assert_eq!(o.readings().unwrap(), readings);
    }
}

#[cfg(test)]
mod read_tests;
#[cfg(test)]
mod test_scene;
