//! The camera's optics and sensor: blur, vignetting, noise, tone curve, sRGB encoding, JPEG.

use std::sync::OnceLock;

use image::{codecs::jpeg::JpegEncoder, RgbImage};
use serde::{Deserialize, Serialize};

use crate::table::hash2;
use crate::RenderError;

/// What the lens and sensor do to the picture, every random choice resolved.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct SensorSpec {
    /// Gaussian blur (defocus, lens softness), standard deviation in pixels; 0 = none.
    pub defocus_sigma_px: f64,
    /// Motion blur: a straight smear `length_px` long at `angle_deg`; 0 = none.
    pub motion_length_px: f64,
    pub motion_angle_deg: f64,
    /// Light fall-off towards the corners: the corner gets `1 - vignetting` of the centre.
    pub vignetting: f64,
    /// Shot noise: variance per unit of linear signal (photon noise grows with brightness).
    pub shot_noise: f64,
    /// Read noise: standard deviation in linear units, independent of the signal.
    pub read_noise: f64,
    /// Fraction of the noise shared by the three channels (luminance grain vs colour speckle).
    pub noise_luma_share: f64,
    /// Quality the picture is meant to be saved with (`encode_jpeg`), 1..=100.
    pub jpeg_quality: u8,
    /// Seed of the noise pattern.
    pub noise_seed: u32,
}

impl SensorSpec {
    /// An ideal sensor: no blur, no vignetting, no noise, near-lossless JPEG.
    pub fn ideal() -> SensorSpec {
        SensorSpec {
            defocus_sigma_px: 0.0,
            motion_length_px: 0.0,
            motion_angle_deg: 0.0,
            vignetting: 0.0,
            shot_noise: 0.0,
            read_noise: 0.0,
            noise_luma_share: 0.0,
            jpeg_quality: 95,
            noise_seed: 0,
        }
    }
}

/// A linear-light RGB image, row-major, three `f32` per pixel.
#[derive(Clone, Debug)]
pub(crate) struct Linear {
    pub width: usize,
    pub height: usize,
    pub data: Vec<f32>,
}

impl Linear {
    pub fn new(width: usize, height: usize) -> Linear {
        Linear {
            width,
            height,
            data: vec![0.0; width * height * 3],
        }
    }
}

fn gaussian_kernel(sigma: f64) -> Vec<f32> {
    let r = (3.0 * sigma).ceil().max(1.0) as i64;
    let k: Vec<f64> = (-r..=r)
        .map(|i| (-(i * i) as f64 / (2.0 * sigma * sigma)).exp())
        .collect();
    let s: f64 = k.iter().sum();
    k.iter().map(|v| (v / s) as f32).collect()
}

/// Convolves rows (`horizontal`) or columns with a symmetric kernel, clamping at the borders.
/// Columns are done a whole row at a time, so both passes stream through memory.
fn convolve(img: &mut Linear, k: &[f32], horizontal: bool) {
    let r = k.len() / 2;
    let (w, h) = (img.width, img.height);
    if horizontal {
        let mut line = vec![0f32; (w + 2 * r) * 3];
        for y in 0..h {
            let row = &mut img.data[y * w * 3..(y + 1) * w * 3];
            // The row with `r` copies of its end pixels on each side.
            for x in 0..w + 2 * r {
                let sx = x.saturating_sub(r).min(w - 1);
                line[x * 3..x * 3 + 3].copy_from_slice(&row[sx * 3..sx * 3 + 3]);
            }
            row.fill(0.0);
            for (j, &kv) in k.iter().enumerate() {
                let src = &line[j * 3..j * 3 + w * 3];
                for (o, s) in row.iter_mut().zip(src) {
                    *o += kv * s;
                }
            }
        }
    } else {
        let src = img.data.clone();
        let stride = w * 3;
        for y in 0..h {
            let out = &mut img.data[y * stride..(y + 1) * stride];
            out.fill(0.0);
            for (j, &kv) in k.iter().enumerate() {
                let sy = (y + j).saturating_sub(r).min(h - 1);
                for (o, s) in out.iter_mut().zip(&src[sy * stride..(sy + 1) * stride]) {
                    *o += kv * s;
                }
            }
        }
    }
}

/// Averages `taps` samples along a line through each pixel (nearest-pixel offsets).
fn motion_blur(img: &mut Linear, length: f64, angle_deg: f64) {
    let taps = length.ceil().max(2.0) as usize;
    let (c, s) = (angle_deg.to_radians().cos(), angle_deg.to_radians().sin());
    let offsets: Vec<(isize, isize)> = (0..taps)
        .map(|i| {
            let t = (i as f64 / (taps - 1) as f64 - 0.5) * length;
            ((t * c).round() as isize, (t * s).round() as isize)
        })
        .collect();
    let (w, h) = (img.width as isize, img.height as isize);
    let src = img.data.clone();
    let inv = 1.0 / taps as f32;
    for y in 0..h {
        for x in 0..w {
            let mut acc = [0f32; 3];
            for &(dx, dy) in &offsets {
                let (sx, sy) = ((x + dx).clamp(0, w - 1), (y + dy).clamp(0, h - 1));
                let o = ((sy * w + sx) * 3) as usize;
                acc[0] += src[o];
                acc[1] += src[o + 1];
                acc[2] += src[o + 2];
            }
            let o = ((y * w + x) * 3) as usize;
            img.data[o] = acc[0] * inv;
            img.data[o + 1] = acc[1] * inv;
            img.data[o + 2] = acc[2] * inv;
        }
    }
}

/// Standard normal quantiles at evenly spaced probabilities: a fast, deterministic source of
/// Gaussian noise indexed by a hash.
fn normal_table() -> &'static [f32] {
    const N: usize = 4096;
    static TABLE: OnceLock<Vec<f32>> = OnceLock::new();
    TABLE.get_or_init(|| {
        (0..N)
            .map(|i| inverse_normal((i as f64 + 0.5) / N as f64) as f32)
            .collect()
    })
}

/// Acklam's rational approximation of the standard normal quantile (error < 1.2e-9).
fn inverse_normal(p: f64) -> f64 {
    const A: [f64; 6] = [
        -3.969_683_028_665_376e1,
        2.209_460_984_245_205e2,
        -2.759_285_104_469_687e2,
        1.383_577_518_672_69e2,
        -3.066_479_806_614_716e1,
        2.506_628_277_459_239,
    ];
    const B: [f64; 5] = [
        -5.447_609_879_822_406e1,
        1.615_858_368_580_409e2,
        -1.556_989_798_598_866e2,
        6.680_131_188_771_972e1,
        -1.328_068_155_288_572e1,
    ];
    const C: [f64; 6] = [
        -7.784_894_002_430_293e-3,
        -3.223_964_580_411_365e-1,
        -2.400_758_277_161_838,
        -2.549_732_539_343_734,
        4.374_664_141_464_968,
        2.938_163_982_698_783,
    ];
    const D: [f64; 4] = [
        7.784_695_709_041_462e-3,
        3.224_671_290_700_398e-1,
        2.445_134_137_142_996,
        3.754_408_661_907_416,
    ];
    let tail = |q: f64| {
        (((((C[0] * q + C[1]) * q + C[2]) * q + C[3]) * q + C[4]) * q + C[5])
            / ((((D[0] * q + D[1]) * q + D[2]) * q + D[3]) * q + 1.0)
    };
    if p < 0.02425 {
        tail((-2.0 * p.ln()).sqrt())
    } else if p > 1.0 - 0.02425 {
        -tail((-2.0 * (1.0 - p).ln()).sqrt())
    } else {
        let q = p - 0.5;
        let r = q * q;
        (((((A[0] * r + A[1]) * r + A[2]) * r + A[3]) * r + A[4]) * r + A[5]) * q
            / (((((B[0] * r + B[1]) * r + B[2]) * r + B[3]) * r + B[4]) * r + 1.0)
    }
}

/// A phone-like tone curve: linear up to 0.9 (so every printed colour up to near-white comes
/// out as printed), then a soft shoulder reaching 1 at 1.5, so glare rolls off instead of
/// clipping hard.
#[inline]
pub(crate) fn tone(v: f32) -> f32 {
    if v <= 0.9 {
        v.max(0.0)
    } else {
        let t = ((v - 0.9) / 0.6).min(1.0);
        0.9 + 0.1 * (2.0 * t - t * t)
    }
}

/// sRGB encoding through a 16-bit table (built once): `powf` per channel would dominate the
/// frame time.
fn srgb_lut() -> &'static [u8] {
    static LUT: OnceLock<Vec<u8>> = OnceLock::new();
    LUT.get_or_init(|| {
        (0..=u16::MAX)
            .map(|i| crate::light::linear_to_srgb(f32::from(i) / 65535.0))
            .collect()
    })
}

/// Applies the lens (blur, vignetting) and sensor (noise), then the tone curve and sRGB
/// encoding.
pub(crate) fn develop(mut img: Linear, s: &SensorSpec) -> RgbImage {
    if s.defocus_sigma_px > 0.15 {
        let k = gaussian_kernel(s.defocus_sigma_px);
        convolve(&mut img, &k, true);
        convolve(&mut img, &k, false);
    }
    if s.motion_length_px >= 1.0 {
        motion_blur(&mut img, s.motion_length_px, s.motion_angle_deg);
    }
    let (w, h) = (img.width, img.height);
    let (cx, cy) = ((w as f32 - 1.0) * 0.5, (h as f32 - 1.0) * 0.5);
    let inv_r2 = 1.0 / (cx * cx + cy * cy).max(1.0);
    let vig = s.vignetting as f32;
    let noisy = s.shot_noise > 0.0 || s.read_noise > 0.0;
    let table: &[f32] = if noisy { normal_table() } else { &[] };
    let (shot, read2, luma) = (
        s.shot_noise as f32,
        (s.read_noise * s.read_noise) as f32,
        (s.noise_luma_share.clamp(0.0, 1.0)) as f32,
    );
    let chroma = (1.0 - luma * luma).max(0.0).sqrt();
    let lut = srgb_lut();
    let mut out = RgbImage::new(w as u32, h as u32);
    for (y, row) in out.rows_mut().enumerate() {
        let dy = y as f32 - cy;
        for (x, px) in row.enumerate() {
            let o = (y * w + x) * 3;
            let dx = x as f32 - cx;
            let r2 = (dx * dx + dy * dy) * inv_r2;
            // cos⁴-like fall-off, `vig` at the corners.
            let v = 1.0 - vig * r2 * (0.6 + 0.4 * r2);
            let mut c = [img.data[o] * v, img.data[o + 1] * v, img.data[o + 2] * v];
            if noisy {
                let hsh = hash2(x as i32, y as i32, s.noise_seed);
                let n_l = table[(hsh & 4095) as usize];
                let n = [
                    table[((hsh >> 12) & 4095) as usize],
                    table[((hsh >> 20) & 4095) as usize],
                    table[(hash2(y as i32, x as i32, !s.noise_seed) & 4095) as usize],
                ];
                for ch in 0..3 {
                    let sd = (shot * c[ch].max(0.0) + read2).sqrt();
                    c[ch] += sd * (luma * n_l + chroma * n[ch]);
                }
            }
            let enc = |v: f32| lut[(tone(v).clamp(0.0, 1.0) * 65535.0 + 0.5) as usize];
            px.0 = [enc(c[0]), enc(c[1]), enc(c[2])];
        }
    }
    out
}

/// Encodes `image` as a baseline JPEG at `quality` (clamped to 1..=100).
pub fn encode_jpeg(image: &RgbImage, quality: u8) -> Result<Vec<u8>, RenderError> {
    let mut buf = Vec::new();
    JpegEncoder::new_with_quality(&mut buf, quality.clamp(1, 100))
        .encode_image(image)
        .map_err(|e| RenderError::Jpeg(e.to_string()))?;
    Ok(buf)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn flat(w: usize, h: usize, v: f32) -> Linear {
        let mut l = Linear::new(w, h);
        l.data.iter_mut().for_each(|p| *p = v);
        l
    }

    #[test]
    fn an_ideal_sensor_keeps_flat_grey() {
        let img = develop(flat(8, 6, 0.2), &SensorSpec::ideal());
        let expect = crate::light::linear_to_srgb(0.2);
        assert!(img.pixels().all(|p| p.0 == [expect; 3]));
    }

    #[test]
    fn noise_grows_with_signal_and_vignetting_darkens_corners() {
        let mut s = SensorSpec::ideal();
        s.shot_noise = 0.002;
        s.read_noise = 0.002;
        let spread = |v: f32| {
            let img = develop(flat(64, 64, v), &s);
            // In linear light: sRGB's steep dark end would magnify dark noise.
            let vals: Vec<f64> = img
                .pixels()
                .map(|p| f64::from(crate::light::srgb_to_linear(p.0[1])))
                .collect();
            let m = vals.iter().sum::<f64>() / vals.len() as f64;
            (vals.iter().map(|x| (x - m).powi(2)).sum::<f64>() / vals.len() as f64).sqrt()
        };
        let (dark, bright) = (spread(0.02), spread(0.5));
        assert!(dark > 0.001 && bright > 2.0 * dark, "{dark} {bright}");
        let mut s = SensorSpec::ideal();
        s.vignetting = 0.4;
        let img = develop(flat(64, 48, 0.5), &s);
        assert!(img.get_pixel(0, 0).0[0] + 20 < img.get_pixel(32, 24).0[0]);
    }

    #[test]
    fn blur_spreads_a_point_and_keeps_energy() {
        let mut l = Linear::new(21, 21);
        l.data[(10 * 21 + 10) * 3] = 1.0;
        let k = gaussian_kernel(1.5);
        convolve(&mut l, &k, true);
        convolve(&mut l, &k, false);
        let total: f32 = l.data.iter().step_by(3).sum();
        assert!((total - 1.0).abs() < 1e-3);
        assert!(l.data[(10 * 21 + 12) * 3] > 0.01);
        motion_blur(&mut l, 6.0, 30.0);
        let total: f32 = l.data.iter().step_by(3).sum();
        assert!((total - 1.0).abs() < 1e-2);
    }

    #[test]
    fn jpeg_round_trips_close_to_the_original() {
        let img = RgbImage::from_fn(64, 48, |x, y| {
            image::Rgb([(x * 4) as u8, (y * 5) as u8, 128])
        });
        let bytes = encode_jpeg(&img, 90).unwrap();
        assert_eq!(&bytes[..2], &[0xff, 0xd8]);
        let back = image::load_from_memory(&bytes).unwrap().to_rgb8();
        assert_eq!(back.dimensions(), (64, 48));
        let err: f64 = img
            .pixels()
            .zip(back.pixels())
            .map(|(a, b)| (f64::from(a.0[0]) - f64::from(b.0[0])).abs())
            .sum::<f64>()
            / (64.0 * 48.0);
        assert!(err < 4.0, "{err}");
        assert!(encode_jpeg(&img, 20).unwrap().len() < bytes.len());
    }
}
