//! `tablejudge layers …`

use std::path::Path;

use anyhow::Result;
use tablejudge_rules::layers::LayersSet;

use super::print_json;
use crate::cli::Output;
use crate::input::load_layers_set;
use crate::outcome::{BadInput, Outcome};

/// Finds a mission by id, or says which ids exist.
fn mission<'s>(
    set: &'s LayersSet,
    file: &Path,
    id: &str,
) -> Result<&'s tablejudge_rules::layers::Mission> {
    set.mission(id).ok_or_else(|| {
        let ids: Vec<&str> = set.missions().iter().map(|m| m.id()).collect();
        let known = match ids.as_slice() {
            [] => "it has no missions".to_owned(),
            [first, .., last] if ids.len() > 6 => {
                format!("its {} missions run from {first} to {last}", ids.len())
            }
            _ => format!("its missions are {}", ids.join(", ")),
        };
        BadInput(format!("{}: no mission {id:?}: {known}", file.display())).into()
    })
}

/// `layers solve`: every solution of a mission with exactly its number of layers.
pub fn solve(set_path: &Path, mission_id: &str, output: Output) -> Result<Outcome> {
    let set = load_layers_set(set_path)?;
    let mission = mission(&set, set_path, mission_id)?;
    let answer = set.solve_mission(mission);
    let outcome = if answer.solutions.is_empty() {
        Outcome::Fail
    } else {
        Outcome::Pass
    };
    if output.json {
        print_json(&answer)?;
        return Ok(outcome);
    }
    outln!("mission {} (level {}):", answer.mission, answer.layers);
    for row in mission.pattern().map(|k| k.char()).to_rows() {
        outln!("  {row}");
    }
    match answer.min_layers {
        Some(n) => outln!("fewest layers that make it: {n}"),
        None => outln!("no stack of these layers makes it"),
    }
    outln!(
        "{} solution{} with exactly {} layers (top layer first):",
        answer.solutions.len(),
        if answer.solutions.len() == 1 { "" } else { "s" },
        answer.layers
    );
    for (i, stack) in answer.solutions.iter().enumerate() {
        let parts: Vec<String> = stack.iter().map(ToString::to_string).collect();
        outln!("  {:>3}. {}", i + 1, parts.join(" / "));
    }
    Ok(outcome)
}
