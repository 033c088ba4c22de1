//! The shipped Camouflage reference set: valid, complete, playable, and every puzzle solvable.

use tablejudge_rules::camouflage::{
    check_arrangement, find_starting_board, simulate_game, solve, CamouflageSet, DeckIdx, SideIdx,
};

const REFERENCE: &str = include_str!("../../../models/camouflage/reference.json");

fn reference() -> CamouflageSet {
    CamouflageSet::from_json(REFERENCE, "models/camouflage/reference.json")
        .unwrap_or_else(|e| panic!("{e}"))
}

#[test]
fn has_eight_decks_of_six_cards_on_two_sides_of_six_patterns() {
    let set = reference();
    assert_eq!(set.decks().len(), 8);
    assert!(set.decks().iter().all(|d| d.cards.len() == 6));
    assert_eq!(set.cards().len(), 48);
    let names: Vec<&str> = set.sides().iter().map(|s| s.name.as_str()).collect();
    assert_eq!(names, ["animal", "gems"]);
    for side in set.sides() {
        assert_eq!(side.patterns.len(), 6);
        let mut colours: Vec<_> = side.patterns.values().map(|p| p.srgb).collect();
        assert!(colours.iter().all(Option::is_some));
        colours.sort();
        colours.dedup();
        assert_eq!(colours.len(), 6, "distinct colours on {}", side.name);
    }
    // The file is exactly what the set writes back.
    let written = serde_json::to_string_pretty(&set.to_raw()).unwrap() + "\n";
    assert_eq!(written, REFERENCE);
}

#[test]
fn every_deck_has_a_starting_board_and_random_play_gets_most_cards_down() {
    let set = reference();
    for s in 0..2u8 {
        for d in 0..8u16 {
            assert!(
                find_starting_board(&set, DeckIdx(d), SideIdx(s), false).is_ok(),
                "deck {d} side {s}"
            );
        }
        let players: Vec<DeckIdx> = (1..7).map(DeckIdx).collect();
        let (board, sim) = simulate_game(&set, SideIdx(s), false, DeckIdx(0), &players, 1).unwrap();
        let placed: usize = sim.placed.iter().sum();
        assert!(
            placed * 4 >= sim.dealt * 3,
            "side {s}: {placed} of {}",
            sim.dealt
        );
        assert!(board.placed().iter().all(|p| p.is_legal()));
    }
}

#[test]
fn twenty_puzzles_all_solved_by_the_solver() {
    let set = reference();
    let puzzles = set.puzzles();
    assert_eq!(puzzles.len(), 20);
    let mut difficulties: Vec<u8> = puzzles.iter().map(|p| p.difficulty).collect();
    difficulties.sort();
    difficulties.dedup();
    assert_eq!(difficulties, [1, 2, 3, 4, 5]);
    assert!(puzzles.iter().any(|p| p.wild_centres));
    assert!(puzzles.iter().any(|p| p.cards.len() >= 6));
    assert!(puzzles.iter().all(|p| p.cards.len() >= 3));
    for p in puzzles {
        let solution = solve(&set, p).unwrap_or_else(|| panic!("puzzle {} unsolved", p.id));
        assert_eq!(solution.len(), p.cards.len());
        if let Err(e) = check_arrangement(&set, p, &solution) {
            panic!("puzzle {}: {e}", p.id);
        }
    }
}
