//! A live preview window (OpenCV highgui), for `tablejudge watch`.

use image::RgbImage;
use opencv::highgui;

use crate::error::VisionError;
use crate::mat::rgb_to_mat;

/// A window showing one image at a time. Closing it, `q` or Esc ask to stop.
pub struct PreviewWindow {
    title: String,
}

impl PreviewWindow {
    /// Opens the window; fails where there is no display to open it on.
    pub fn open(title: &str) -> Result<PreviewWindow, VisionError> {
        if !has_display() {
            // Checked first: OpenCV's Qt and GTK backends abort the process without one.
            return Err(VisionError::NoDisplay);
        }
        highgui::named_window(title, highgui::WINDOW_NORMAL | highgui::WINDOW_KEEPRATIO)
            .map_err(VisionError::opencv("opening a preview window"))?;
        Ok(PreviewWindow {
            title: title.to_owned(),
        })
    }

    /// Shows `image` and handles the window's events for a millisecond; `false` when the
    /// user asked to stop.
    pub fn show(&mut self, image: &RgbImage) -> Result<bool, VisionError> {
        highgui::imshow(&self.title, &rgb_to_mat(image)?)
            .map_err(VisionError::opencv("showing a preview frame"))?;
        let key = highgui::wait_key(1).map_err(VisionError::opencv("reading a key"))?;
        if key == i32::from(b'q') || key == 27 {
            return Ok(false);
        }
        let visible = highgui::get_window_property(&self.title, highgui::WND_PROP_VISIBLE)
            .map_err(VisionError::opencv("asking whether the preview is open"))?;
        Ok(visible >= 1.0)
    }
}

impl Drop for PreviewWindow {
    fn drop(&mut self) {
        // Closing a window that is already gone is no error worth reporting.
        let _ = highgui::destroy_window(&self.title);
    }
}

/// Whether a window can be shown: on Linux and the BSDs, an X or Wayland display is named
/// (or Qt is told which platform to draw on); elsewhere there always is one.
fn has_display() -> bool {
    if cfg!(any(target_os = "windows", target_os = "macos")) {
        return true;
    }
    ["DISPLAY", "WAYLAND_DISPLAY", "QT_QPA_PLATFORM"]
        .iter()
        .any(|v| std::env::var_os(v).is_some_and(|s| !s.is_empty()))
}
