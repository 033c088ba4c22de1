//! `tablejudge set check FILE`

use std::collections::BTreeMap;
use std::path::Path;

use anyhow::Result;
use serde::Serialize;
use tablejudge_rules::set::{parse_any, AnySet};
use tablejudge_rules::SetError;

use super::print_json;
use crate::cli::Output;
use crate::input::read_text;
use crate::outcome::Outcome;

#[derive(Serialize)]
struct Report<'a> {
    file: &'a str,
    valid: bool,
    #[serde(skip_serializing_if = "Option::is_none")]
    format: Option<&'static str>,
    #[serde(skip_serializing_if = "Option::is_none")]
    name: Option<String>,
    /// What the file holds, e.g. {"layers": 5, "missions": 55}.
    summary: BTreeMap<String, serde_json::Value>,
    errors: Vec<ErrorReport>,
}

#[derive(Serialize)]
struct ErrorReport {
    place: String,
    problem: String,
    message: String,
}

impl From<&SetError> for ErrorReport {
    fn from(e: &SetError) -> ErrorReport {
        ErrorReport {
            place: e.place.to_string(),
            problem: e.problem.to_string(),
            message: e.to_string(),
        }
    }
}

/// What a valid set holds, in words and as JSON fields; plus the errors found beyond parsing.
fn describe(
    set: &AnySet,
    file: &str,
) -> (String, BTreeMap<String, serde_json::Value>, Vec<SetError>) {
    let mut summary = BTreeMap::new();
    match set {
        AnySet::Palette(p) => {
            summary.insert("colors".into(), p.colors.len().into());
            (
                format!("palette \"{}\" of {} colours", p.name, p.colors.len()),
                summary,
                vec![],
            )
        }
        AnySet::Layers(s) => {
            let mut per_level: BTreeMap<usize, usize> = BTreeMap::new();
            for m in s.missions() {
                *per_level.entry(m.layers()).or_default() += 1;
            }
            let levels: Vec<String> = per_level
                .iter()
                .map(|(l, n)| format!("{n} of level {l}"))
                .collect();
            summary.insert("rows".into(), s.rows().into());
            summary.insert("cols".into(), s.cols().into());
            summary.insert("layers".into(), s.layers().len().into());
            summary.insert("missions".into(), s.missions().len().into());
            let text = format!(
                "Layers+ set \"{}\": {}×{} cells, {} layers, {} missions{}",
                s.name(),
                s.rows(),
                s.cols(),
                s.layers().len(),
                s.missions().len(),
                if levels.is_empty() {
                    String::new()
                } else {
                    format!(" ({})", levels.join(", "))
                }
            );
            let mut errors = s.check_layers_differ(file);
            errors.extend(s.check_missions(file));
            (text, summary, errors)
        }
        AnySet::Camouflage(s) => {
            let cards = s.cards().len();
            summary.insert("decks".into(), s.decks().len().into());
            summary.insert("cards".into(), cards.into());
            summary.insert("puzzles".into(), s.puzzles().len().into());
            let text = format!(
                "Camouflage set \"{}\": {} decks, {} cards, {} puzzles",
                s.name(),
                s.decks().len(),
                cards,
                s.puzzles().len()
            );
            (text, summary, s.check_puzzles(file))
        }
    }
}

fn format_of(set: &AnySet) -> &'static str {
    use tablejudge_rules::{camouflage, layers, palette};
    match set {
        AnySet::Palette(_) => palette::PALETTE_FORMAT,
        AnySet::Layers(_) => layers::LAYERS_SET_FORMAT,
        AnySet::Camouflage(_) => camouflage::CAMOUFLAGE_FORMAT,
    }
}

fn name_of(set: &AnySet) -> String {
    match set {
        AnySet::Palette(p) => p.name.clone(),
        AnySet::Layers(s) => s.name().to_owned(),
        AnySet::Camouflage(s) => s.name().to_owned(),
    }
}

pub fn check(path: &Path, output: Output) -> Result<Outcome> {
    let text = read_text(path)?;
    let file = path.display().to_string();
    let (report, description) = match parse_any(&text, &file) {
        Ok(set) => {
            let (description, summary, errors) = describe(&set, &file);
            let report = Report {
                file: &file,
                valid: errors.is_empty(),
                format: Some(format_of(&set)),
                name: Some(name_of(&set)),
                summary,
                errors: errors.iter().map(ErrorReport::from).collect(),
            };
            (report, Some(description))
        }
        Err(e) => (
            Report {
                file: &file,
                valid: false,
                format: None,
                name: None,
                summary: BTreeMap::new(),
                errors: vec![ErrorReport::from(&e)],
            },
            None,
        ),
    };
    let outcome = if report.valid {
        Outcome::Pass
    } else {
        Outcome::BadInput
    };
    if output.json {
        print_json(&report)?;
    } else if report.valid {
        outln!("{file}: valid {}", description.unwrap_or_default());
    } else {
        for e in &report.errors {
            eprintln!("{}", e.message);
        }
        eprintln!(
            "{file}: invalid ({} problem{})",
            report.errors.len(),
            if report.errors.len() == 1 { "" } else { "s" }
        );
    }
    Ok(outcome)
}
