//! What the Camouflage examples share: the reference set, and reading with it as
//! `camouflage read --set` does.

use tablejudge_rules::camouflage::CamouflageSet;
use tablejudge_vision::camouflage::CamouflageReadOptions;
use tablejudge_vision::camouflage::{read_camouflage, CamouflageReading, SideColours};

/// The repository's reference set (models/camouflage/reference.json).
pub fn reference_set() -> Result<CamouflageSet, Box<dyn std::error::Error>> {
    Ok(CamouflageSet::from_json(
        include_str!("../../../../models/camouflage/reference.json"),
        "reference",
    )?)
}

/// The photo read whole with `set`, its side found from the patterns; `None` when no board
/// is found.
pub fn read(set: &CamouflageSet, image: &image::RgbImage) -> Option<CamouflageReading> {
    let options = CamouflageReadOptions {
        colours: Some(SideColours { set, side: None }),
        camera: None,
    };
    read_camouflage(image, &options).ok()
}
