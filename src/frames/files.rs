//! Photos and folders of photos as a frame source, and the photos of a folder in order.

use std::path::{Path, PathBuf};

use anyhow::Result;

use super::{Frame, FrameSource, SourceEvent};
use crate::outcome::BadInput;
use crate::photo::{decode_photo, taken_at};

/// File extensions taken for photos (compared lower-cased).
pub const PHOTO_EXTENSIONS: [&str; 3] = ["jpg", "jpeg", "png"];

/// Whether `path` names a photo by its extension.
pub fn is_photo(path: &Path) -> bool {
    path.extension()
        .and_then(|x| x.to_str())
        .is_some_and(|x| PHOTO_EXTENSIONS.contains(&x.to_ascii_lowercase().as_str()))
}

/// How the photos of a folder are put in order.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum PhotoOrder {
    /// By the time in their EXIF tags when every photo has one, else by file name.
    Auto,
    /// By file name (the order a camera numbers them).
    Name,
    /// By the time in their EXIF tags; photos without one are bad input.
    Time,
}

/// The photos of a folder, in `order`.
pub fn photos_in(folder: &Path, order: PhotoOrder) -> Result<Vec<PathBuf>> {
    let entries = std::fs::read_dir(folder).map_err(|e| {
        BadInput(format!(
            "{}: cannot list the folder ({e}): give a folder of photos (.jpg, .jpeg, .png)",
            folder.display()
        ))
    })?;
    let mut photos: Vec<PathBuf> = entries
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.is_file() && is_photo(p))
        .collect();
    photos.sort();
    if photos.is_empty() {
        return Err(BadInput(format!(
            "{}: no photos (.jpg, .jpeg, .png) in the folder",
            folder.display()
        ))
        .into());
    }
    if order == PhotoOrder::Name {
        return Ok(photos);
    }
    let times: Vec<Option<String>> = photos.iter().map(|p| taken_at(p)).collect();
    let missing: Vec<String> = photos
        .iter()
        .zip(&times)
        .filter(|(_, t)| t.is_none())
        .map(|(p, _)| p.display().to_string())
        .collect();
    if !missing.is_empty() {
        if order == PhotoOrder::Time {
            return Err(BadInput(format!(
                "{} photo{} without an EXIF time (DateTimeOriginal): {}; order them by name \
                 with --order name",
                missing.len(),
                if missing.len() == 1 { "" } else { "s" },
                missing.join(", ")
            ))
            .into());
        }
        return Ok(photos);
    }
    // A stable sort: photos taken in the same instant stay in name order.
    let mut timed: Vec<(String, PathBuf)> = times.into_iter().flatten().zip(photos).collect();
    timed.sort_by(|a, b| a.0.cmp(&b.0));
    Ok(timed.into_iter().map(|(_, p)| p).collect())
}

/// Photos read one after another: one photo, or the photos of a folder. Every photo is a
/// still scene of its own; one that cannot be decoded is reported and the source goes on.
pub struct PhotoFiles {
    name: String,
    paths: std::vec::IntoIter<PathBuf>,
    index: u64,
}

impl PhotoFiles {
    /// One photo.
    pub fn photo(path: &Path) -> PhotoFiles {
        PhotoFiles::from_paths(path.display().to_string(), vec![path.to_path_buf()])
    }

    /// The photos of a folder, in `order`.
    pub fn folder(folder: &Path, order: PhotoOrder) -> Result<PhotoFiles> {
        Ok(PhotoFiles::from_paths(
            folder.display().to_string(),
            photos_in(folder, order)?,
        ))
    }

    fn from_paths(name: String, paths: Vec<PathBuf>) -> PhotoFiles {
        PhotoFiles {
            name,
            paths: paths.into_iter(),
            index: 0,
        }
    }
}

impl FrameSource for PhotoFiles {
    fn next_event(&mut self) -> Result<SourceEvent> {
        let Some(path) = self.paths.next() else {
            return Ok(SourceEvent::End);
        };
        let index = self.index;
        self.index += 1;
        let name = path.display().to_string();
        Ok(match decode_photo(&path) {
            Ok(image) => SourceEvent::Frame(Frame {
                image,
                name,
                index,
                time_s: None,
            }),
            Err(why) => SourceEvent::Unreadable { name, why },
        })
    }

    fn name(&self) -> &str {
        &self.name
    }

    fn is_stream(&self) -> bool {
        false
    }
}
