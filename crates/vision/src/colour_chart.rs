//! A colour correction from a chart of known patches in the photo: the 3×3 matrix on linear
//! RGB that best takes what the camera measured to what was printed (least squares, OpenCV's
//! SVD solver), and the whole photo corrected with it.

use image::RgbImage;
use opencv::core::{self, Mat, CV_64F};
use opencv::prelude::*;
use serde::{Deserialize, Serialize};
use tablejudge_rules::Srgb;

use crate::colour::{delta_e_srgb, LinRgb};
use crate::error::VisionError;

/// `printed = matrix · measured`, on linear RGB, rows are the output channels.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub struct ColourMatrix(pub [[f64; 3]; 3]);

/// How well a fitted matrix explains the chart, per patch: ΔE₀₀ between printed and
/// measured, before and after the correction.
#[derive(Clone, Debug)]
pub struct ChartFit {
    pub matrix: ColourMatrix,
    pub before: Vec<f32>,
    pub after: Vec<f32>,
}

impl ChartFit {
    pub fn mean_after(&self) -> f32 {
        mean(&self.after)
    }
    pub fn mean_before(&self) -> f32 {
        mean(&self.before)
    }
}

fn mean(v: &[f32]) -> f32 {
    v.iter().sum::<f32>() / v.len().max(1) as f32
}

/// Fits the correction from `measured` patches to their `printed` colours; patches with
/// `use_patch` false (clipped, glared) are left out of the fit but still judged.
pub fn fit_chart(
    measured: &[Srgb],
    printed: &[Srgb],
    use_patch: &[bool],
) -> Result<ChartFit, VisionError> {
    let rows: Vec<usize> = (0..measured.len()).filter(|&i| use_patch[i]).collect();
    if rows.len() < 6 {
        return Err(VisionError::Geometry(format!(
            "{} usable patches; a colour correction needs at least 6",
            rows.len()
        )));
    }
    let lin = |c: Srgb| {
        let l = LinRgb::from_srgb(c);
        [f64::from(l.r), f64::from(l.g), f64::from(l.b)]
    };
    let to_mat = |values: Vec<[f64; 3]>| -> Result<Mat, VisionError> {
        Mat::from_slice_2d(&values).map_err(VisionError::opencv("building the chart's matrix"))
    };
    let x = to_mat(rows.iter().map(|&i| lin(measured[i])).collect())?;
    let y = to_mat(rows.iter().map(|&i| lin(printed[i])).collect())?;
    // X · Mᵀ = Y in the least-squares sense.
    let mut mt = Mat::default();
    core::solve(&x, &y, &mut mt, core::DECOMP_SVD)
        .map_err(VisionError::opencv("fitting the colour matrix"))?;
    if mt.typ() != CV_64F || mt.rows() != 3 || mt.cols() != 3 {
        return Err(VisionError::Geometry("the colour fit is not 3×3".into()));
    }
    let mut m = [[0.0; 3]; 3];
    for (r, row) in m.iter_mut().enumerate() {
        for (c, v) in row.iter_mut().enumerate() {
            *v = *mt
                .at_2d::<f64>(c as i32, r as i32)
                .map_err(VisionError::opencv("reading the colour matrix"))?;
        }
    }
    let matrix = ColourMatrix(m);
    let before = measured
        .iter()
        .zip(printed)
        .map(|(&m, &p)| delta_e_srgb(m, p))
        .collect();
    let after = measured
        .iter()
        .zip(printed)
        .map(|(&m, &p)| delta_e_srgb(matrix.apply_srgb(m), p))
        .collect();
    Ok(ChartFit {
        matrix,
        before,
        after,
    })
}

impl ColourMatrix {
    /// A gain on each channel and no mixing: a white balance.
    pub fn diagonal(gains: [f32; 3]) -> ColourMatrix {
        let [r, g, b] = gains.map(f64::from);
        ColourMatrix([[r, 0.0, 0.0], [0.0, g, 0.0], [0.0, 0.0, b]])
    }

    /// The corrected colour of a measured one.
    pub fn apply_linear(&self, c: LinRgb) -> LinRgb {
        let v = [f64::from(c.r), f64::from(c.g), f64::from(c.b)];
        let row = |r: [f64; 3]| (r[0] * v[0] + r[1] * v[1] + r[2] * v[2]).clamp(0.0, 1.0) as f32;
        LinRgb {
            r: row(self.0[0]),
            g: row(self.0[1]),
            b: row(self.0[2]),
        }
    }

    pub fn apply_srgb(&self, c: Srgb) -> Srgb {
        self.apply_linear(LinRgb::from_srgb(c)).to_srgb()
    }

    /// Corrects every pixel of `image` (through lookup tables: a 1080p photo in tens of ms).
    pub fn apply_to_image(&self, image: &mut RgbImage) {
        const STEPS: usize = 4096;
        let to_linear: Vec<f64> = (0..=255u8)
            .map(|v| f64::from(LinRgb::from_srgb(Srgb::new(v, v, v)).r))
            .collect();
        let to_srgb: Vec<u8> = (0..STEPS)
            .map(|i| {
                let v = i as f32 / (STEPS - 1) as f32;
                LinRgb { r: v, g: v, b: v }.to_srgb().r
            })
            .collect();
        let m = self.0;
        for p in image.pixels_mut() {
            let v = p.0.map(|c| to_linear[usize::from(c)]);
            for (out, row) in p.0.iter_mut().zip(m) {
                let l = (row[0] * v[0] + row[1] * v[1] + row[2] * v[2]).clamp(0.0, 1.0);
                *out = to_srgb[(l * (STEPS - 1) as f64).round() as usize];
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_camera_matrix_is_undone_by_the_fitted_one() {
        // A camera that mixes channels and tints warm.
        let camera = ColourMatrix([[0.85, 0.12, 0.02], [0.06, 0.70, 0.08], [0.01, 0.10, 0.45]]);
        let printed: Vec<Srgb> = (0..24u8)
            .map(|i| {
                Srgb::new(
                    30 + i * 9,
                    200 - i * 7,
                    40 + ((u16::from(i) * 37) % 180) as u8,
                )
            })
            .collect();
        let measured: Vec<Srgb> = printed.iter().map(|&c| camera.apply_srgb(c)).collect();
        let fit = fit_chart(&measured, &printed, &[true; 24]).unwrap();
        assert!(fit.mean_before() > 8.0, "{}", fit.mean_before());
        assert!(fit.mean_after() < 1.0, "{}", fit.mean_after());
        // The whole image corrected as the patches are.
        let mut img = RgbImage::from_fn(24, 1, |x, _| {
            let c = measured[x as usize];
            image::Rgb([c.r, c.g, c.b])
        });
        fit.matrix.apply_to_image(&mut img);
        for (x, &p) in printed.iter().enumerate() {
            let c = img.get_pixel(x as u32, 0).0;
            assert!(
                delta_e_srgb(Srgb::new(c[0], c[1], c[2]), p) < 1.5,
                "patch {x}"
            );
        }
    }

    #[test]
    fn too_few_usable_patches_are_refused() {
        let c = vec![Srgb::new(100, 100, 100); 24];
        let mut usable = [false; 24];
        usable[..5].fill(true);
        assert!(fit_chart(&c, &c, &usable).is_err());
    }
}
