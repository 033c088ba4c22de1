//! `tablejudge render layers` and `tablejudge render camouflage`

use std::path::Path;

use anyhow::{Context, Result};
use rand::Rng;
use rand::SeedableRng;
use rand_chacha::ChaCha8Rng;
use tablejudge_render::{
    render_camouflage, render_layers, CamouflageSceneSpec, Degradation, Distractors,
    LayersSceneSpec, SceneOptions, StackChoice,
};
use tablejudge_rules::camouflage::{random_board, CamouflageSet, DeckIdx, SideIdx};

use crate::cli::{DegradationArg, DistractorsArg};
use crate::input::{load_camouflage_set, load_layers_set};
use crate::outcome::{BadInput, Outcome};

pub struct RenderLayers<'a> {
    pub set: &'a Path,
    pub out: &'a Path,
    pub n: usize,
    pub seed: u64,
    pub size: (u32, u32),
    pub degradation: DegradationArg,
    pub mission: Option<String>,
    pub near_miss: bool,
    pub distractors: DistractorsArg,
}

pub fn degradation(d: DegradationArg) -> Degradation {
    match d {
        DegradationArg::Clean => Degradation::Clean,
        DegradationArg::Realistic => Degradation::Realistic,
        DegradationArg::Harsh => Degradation::Harsh,
    }
}

pub fn layers(args: RenderLayers<'_>) -> Result<Outcome> {
    let set = load_layers_set(args.set)?;
    if let Some(id) = &args.mission {
        if set.mission(id).is_none() {
            return Err(BadInput(format!("{}: no mission {id:?}", args.set.display())).into());
        }
    }
    create_out(args.out)?;
    let stack = match (args.near_miss, args.mission.clone()) {
        (true, mission) => StackChoice::NearMiss { mission },
        (false, Some(mission)) => StackChoice::MissionSolution {
            mission: Some(mission),
        },
        (false, None) if set.missions().is_empty() => StackChoice::Random {
            min_layers: 2,
            max_layers: set.layers().len().min(5),
        },
        (false, None) => StackChoice::MissionSolution { mission: None },
    };
    let options = SceneOptions {
        width: args.size.0,
        height: args.size.1,
        stack,
        distractors: match args.distractors {
            DistractorsArg::None => Distractors::NONE,
            DistractorsArg::Some => Distractors::default(),
            DistractorsArg::All => Distractors::ALL,
        },
        degradation: degradation(args.degradation),
    };
    let mut rng = ChaCha8Rng::seed_from_u64(args.seed);
    for i in 0..args.n {
        let spec = LayersSceneSpec::random(&set, &mut rng, &options)
            .with_context(|| format!("scene {i}"))?;
        let scene = render_layers(&set, &spec).with_context(|| format!("rendering scene {i}"))?;
        let stem = args.out.join(format!("scene_{i:04}"));
        let jpg = stem.with_extension("jpg");
        std::fs::write(&jpg, scene.jpeg()?)
            .with_context(|| format!("writing {}", jpg.display()))?;
        let truth = stem.with_extension("truth.json");
        std::fs::write(&truth, serde_json::to_string_pretty(&scene.truth)?)
            .with_context(|| format!("writing {}", truth.display()))?;
        outln!(
            "{}  visible {}",
            jpg.display(),
            scene.truth.visible.join(" ")
        );
    }
    Ok(Outcome::Pass)
}

fn create_out(out: &Path) -> Result<()> {
    std::fs::create_dir_all(out).map_err(|e| {
        BadInput(format!(
            "{}: cannot create the output folder ({e})",
            out.display()
        ))
        .into()
    })
}

pub struct RenderCamouflage<'a> {
    pub set: &'a Path,
    pub out: &'a Path,
    pub n: usize,
    pub seed: u64,
    pub cards: usize,
    pub side: Option<&'a str>,
    pub size: (u32, u32),
    pub degradation: DegradationArg,
}

/// The side named `name`, or the set's first.
pub fn camouflage_side(set: &CamouflageSet, file: &Path, name: Option<&str>) -> Result<SideIdx> {
    match name {
        None => Ok(SideIdx(0)),
        Some(n) => set.side_by_name(n).ok_or_else(|| {
            let sides: Vec<&str> = set.sides().iter().map(|s| s.name.as_str()).collect();
            BadInput(format!(
                "{}: no side {n:?}; its sides are {}",
                file.display(),
                sides.join(", ")
            ))
            .into()
        }),
    }
}

pub fn camouflage(args: RenderCamouflage<'_>) -> Result<Outcome> {
    let set = load_camouflage_set(args.set)?;
    let side = camouflage_side(&set, args.set, args.side)?;
    create_out(args.out)?;
    let mut rng = ChaCha8Rng::seed_from_u64(args.seed);
    for i in 0..args.n {
        let start = DeckIdx(rng.gen_range(0..set.decks().len() as u16));
        let board = random_board(&set, side, false, start, args.cards, rng.gen())
            .map_err(|e| BadInput(format!("{}: {e}", args.set.display())))?;
        let spec = CamouflageSceneSpec::random(
            &set,
            &board,
            &mut rng,
            args.size,
            degradation(args.degradation),
        )
        .with_context(|| format!("scene {i}"))?;
        let scene =
            render_camouflage(&set, &spec).with_context(|| format!("rendering scene {i}"))?;
        let stem = args.out.join(format!("board_{i:04}"));
        let jpg = stem.with_extension("jpg");
        std::fs::write(&jpg, scene.jpeg()?)
            .with_context(|| format!("writing {}", jpg.display()))?;
        let truth = stem.with_extension("truth.json");
        std::fs::write(&truth, serde_json::to_string_pretty(&scene.truth)?)
            .with_context(|| format!("writing {}", truth.display()))?;
        outln!("{}  {} cards", jpg.display(), scene.truth.cards.len());
    }
    Ok(Outcome::Pass)
}
