//! A pinhole camera with mild radial distortion, looking at the table.
//!
//! World frame: `x`, `y` on the table plane (in cell sizes), `z` pointing *down into* the
//! table, so a surface `h` above the table lies at `z = -h`. This is right-handed and matches
//! the camera frame (x right, y down, z forward), so a camera straight above the table with no
//! roll sees the table's `x` to the right and `y` downwards — the same handedness as a grid's
//! columns and rows. Pixel centres are at integer coordinates (imageproc and OpenCV).

use serde::{Deserialize, Serialize};

/// Where the camera is and how it images, every random choice resolved.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct CameraSpec {
    pub width: u32,
    pub height: u32,
    /// Focal length in pixels (square pixels).
    pub focal_px: f64,
    /// Principal point in pixels.
    pub principal: [f64; 2],
    /// Radial distortion: a pixel at normalised distorted position `d` looks along the ray
    /// through `d · (1 + k1 |d|²)`. Positive is barrel distortion (straight lines bow
    /// outwards), as in webcams; 0 is an ideal pinhole.
    pub distortion_k1: f64,
    /// The table point (cells) the optical axis passes through.
    pub target: [f64; 2],
    /// Distance from the camera centre to `target`, in cell sizes.
    pub distance: f64,
    /// Angle of the optical axis from straight down, degrees.
    pub tilt_deg: f64,
    /// Direction (on the table, degrees from +x towards +y) in which the camera is displaced
    /// from straight above `target` when tilted.
    pub azimuth_deg: f64,
    /// Rotation of the picture about the optical axis, degrees.
    pub roll_deg: f64,
}

/// A camera ready to cast rays and project points.
#[derive(Clone, Debug)]
pub(crate) struct Camera {
    pub pos: [f64; 3],
    /// Rows: the camera's x (right), y (down) and z (forward) axes in world coordinates.
    pub rot: [[f64; 3]; 3],
    pub f: f64,
    pub c: [f64; 2],
    pub k1: f64,
    pub width: u32,
    pub height: u32,
}

pub(crate) fn dot(a: [f64; 3], b: [f64; 3]) -> f64 {
    a[0] * b[0] + a[1] * b[1] + a[2] * b[2]
}

fn cross(a: [f64; 3], b: [f64; 3]) -> [f64; 3] {
    [
        a[1] * b[2] - a[2] * b[1],
        a[2] * b[0] - a[0] * b[2],
        a[0] * b[1] - a[1] * b[0],
    ]
}

impl Camera {
    pub fn new(s: &CameraSpec) -> Camera {
        let (t, a, r) = (
            s.tilt_deg.to_radians(),
            s.azimuth_deg.to_radians(),
            s.roll_deg.to_radians(),
        );
        let offset = [t.sin() * a.cos(), t.sin() * a.sin(), -t.cos()];
        let pos = [
            s.target[0] + s.distance * offset[0],
            s.target[1] + s.distance * offset[1],
            s.distance * offset[2],
        ];
        let z = [-offset[0], -offset[1], -offset[2]];
        // A horizontal axis perpendicular to the tilt plane: defined even looking straight down.
        let x0 = [-a.sin(), a.cos(), 0.0];
        let y0 = cross(z, x0);
        let (cr, sr) = (r.cos(), r.sin());
        let x = [
            cr * x0[0] + sr * y0[0],
            cr * x0[1] + sr * y0[1],
            cr * x0[2] + sr * y0[2],
        ];
        let y = cross(z, x);
        Camera {
            pos,
            rot: [x, y, z],
            f: s.focal_px,
            c: s.principal,
            k1: s.distortion_k1,
            width: s.width,
            height: s.height,
        }
    }

    /// The (unnormalised) world direction of the ray through pixel position `(px, py)`.
    #[inline]
    pub fn ray(&self, px: f64, py: f64) -> [f64; 3] {
        let xd = (px - self.c[0]) / self.f;
        let yd = (py - self.c[1]) / self.f;
        let k = 1.0 + self.k1 * (xd * xd + yd * yd);
        let (xu, yu) = (xd * k, yd * k);
        let [rx, ry, rz] = self.rot;
        [
            rx[0] * xu + ry[0] * yu + rz[0],
            rx[1] * xu + ry[1] * yu + rz[1],
            rx[2] * xu + ry[2] * yu + rz[2],
        ]
    }

    /// Where the ray through `(px, py)` meets the plane `height` above the table.
    pub fn ground(&self, px: f64, py: f64, height: f64) -> Option<[f64; 2]> {
        let d = self.ray(px, py);
        let t = (-height - self.pos[2]) / d[2];
        (d[2] > 1e-9 && t > 0.0).then(|| [self.pos[0] + t * d[0], self.pos[1] + t * d[1]])
    }

    /// The pixel position of world point `p`, or `None` behind the camera.
    pub fn project(&self, p: [f64; 3]) -> Option<[f64; 2]> {
        let v = [p[0] - self.pos[0], p[1] - self.pos[1], p[2] - self.pos[2]];
        let (x, y, z) = (
            dot(self.rot[0], v),
            dot(self.rot[1], v),
            dot(self.rot[2], v),
        );
        if z <= 1e-9 {
            return None;
        }
        let (xu, yu) = (x / z, y / z);
        let ru = (xu * xu + yu * yu).sqrt();
        // Invert r_u = r_d (1 + k1 r_d²) by Newton's method; mild distortion converges fast.
        let mut rd = ru;
        for _ in 0..20 {
            let g = rd * (1.0 + self.k1 * rd * rd) - ru;
            let dg = 1.0 + 3.0 * self.k1 * rd * rd;
            if dg.abs() < 1e-9 {
                break;
            }
            rd -= g / dg;
        }
        let s = if ru > 1e-12 { rd / ru } else { 1.0 };
        Some([self.f * xu * s + self.c[0], self.f * yu * s + self.c[1]])
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn spec(tilt: f64, k1: f64) -> CameraSpec {
        CameraSpec {
            width: 640,
            height: 480,
            focal_px: 600.0,
            principal: [319.5, 239.5],
            distortion_k1: k1,
            target: [3.0, 2.0],
            distance: 20.0,
            tilt_deg: tilt,
            azimuth_deg: 30.0,
            roll_deg: 70.0,
        }
    }

    #[test]
    fn rays_and_projections_invert_each_other() {
        for (tilt, k1) in [(0.0, 0.0), (35.0, 0.0), (25.0, 0.08), (40.0, -0.03)] {
            let cam = Camera::new(&spec(tilt, k1));
            // The target is on the optical axis.
            let c = cam.project([3.0, 2.0, 0.0]).unwrap();
            assert!((c[0] - 319.5).abs() < 1e-6 && (c[1] - 239.5).abs() < 1e-6);
            for (px, py) in [(10.0, 20.0), (600.0, 400.0), (320.0, 5.0)] {
                let g = cam.ground(px, py, 0.3).unwrap();
                let p = cam.project([g[0], g[1], -0.3]).unwrap();
                assert!(
                    (p[0] - px).abs() < 1e-6 && (p[1] - py).abs() < 1e-6,
                    "{p:?}"
                );
            }
        }
    }

    #[test]
    fn straight_down_without_roll_is_not_mirrored() {
        let mut s = spec(0.0, 0.0);
        s.roll_deg = 0.0;
        let cam = Camera::new(&s);
        // Three table points turning clockwise on the table stay clockwise in the image.
        let p: Vec<[f64; 2]> = [[0.0, 0.0], [1.0, 0.0], [1.0, 1.0]]
            .iter()
            .map(|q| cam.project([q[0], q[1], 0.0]).unwrap())
            .collect();
        let cross =
            (p[1][0] - p[0][0]) * (p[2][1] - p[1][1]) - (p[1][1] - p[0][1]) * (p[2][0] - p[1][0]);
        assert!(cross > 0.0);
    }
}
