//! Reading the user's files, with messages that name the file and the fix.

use std::path::Path;

use anyhow::Result;
use tablejudge_rules::set::AnySet;

use crate::outcome::BadInput;

/// Reads a text file, or says which file could not be read and why.
pub fn read_text(path: &Path) -> Result<String> {
    std::fs::read_to_string(path).map_err(|e| {
        let fix = match e.kind() {
            std::io::ErrorKind::NotFound => "check the path",
            std::io::ErrorKind::PermissionDenied => "check the file's permissions",
            std::io::ErrorKind::InvalidData => "a set file must be UTF-8 JSON",
            _ => "check the file",
        };
        BadInput(format!("{}: cannot read: {e} ({fix})", path.display())).into()
    })
}

/// Reads and validates any set file (palette, Layers+ set, Camouflage set).
pub fn load_set(path: &Path) -> Result<AnySet> {
    let text = read_text(path)?;
    tablejudge_rules::set::parse_any(&text, &path.display().to_string())
        .map_err(|e| BadInput(e.to_string()).into())
}

/// Reads a set file that must be a Layers+ set.
pub fn load_layers_set(path: &Path) -> Result<tablejudge_rules::layers::LayersSet> {
    match load_set(path)? {
        AnySet::Layers(set) => Ok(set),
        _ => Err(BadInput(format!(
            "{}: not a Layers+ set (its format is not \"{}\"): pass a Layers+ set file, e.g. models/layers/reference.json",
            path.display(),
            tablejudge_rules::layers::LAYERS_SET_FORMAT
        ))
        .into()),
    }
}

/// Reads a set file that must be a Camouflage set.
pub fn load_camouflage_set(path: &Path) -> Result<tablejudge_rules::camouflage::CamouflageSet> {
    match load_set(path)? {
        AnySet::Camouflage(set) => Ok(set),
        _ => Err(BadInput(format!(
            "{}: not a Camouflage set (its format is not \"{}\"): pass a Camouflage set file, e.g. models/camouflage/reference.json",
            path.display(),
            tablejudge_rules::camouflage::CAMOUFLAGE_FORMAT
        ))
        .into()),
    }
}

/// Reads a palette file (`tablejudge/palette@1`).
pub fn load_palette(path: &Path) -> Result<tablejudge_rules::Palette> {
    match load_set(path)? {
        AnySet::Palette(p) => Ok(p),
        _ => Err(BadInput(format!(
            "{}: not a palette (its format is not \"{}\"): pass a palette file, e.g. the 24-patch chart's",
            path.display(),
            tablejudge_rules::palette::PALETTE_FORMAT
        ))
        .into()),
    }
}
