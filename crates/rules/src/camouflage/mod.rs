//! Camouflage (seed 004): overlapping 3×3 cards on one square lattice.

mod board;
mod game;
mod puzzle;
mod set;
mod sim;
mod start;
#[cfg(test)]
pub(crate) mod testing;

pub use board::{
    Board, Breach, Coverage, Illegal, LatticePos, Move, PlacedCard, Placement, PlacementRules,
};
pub use game::{
    card_points, rank, score, Fault, GameReport, GameRules, History, HistoryError, Mode, Play,
    PlayReport, Player, PlayerReport, TimerLevel,
};
pub use puzzle::{
    check_arrangement, cropped_outline, footprint, solve, NotSolved, PuzzleFault, Solved,
};
pub use set::{
    CamouflageProblem, CamouflageSet, Card, CardIdx, Deck, DeckIdx, Face, OutlineSquare, Pattern,
    Puzzle, RawCamouflageSet, RawCard, RawDeck, RawPattern, RawPuzzle, Side, SideIdx, Square,
    CAMOUFLAGE_FORMAT, CENTRE_CHAR, DIFFICULTIES,
};
pub use sim::{
    random_board, simulate_game, simulate_game_with_mistakes, simulate_not_my_stack, Simulation,
};
pub use start::{find_starting_board, NoStartingBoard};
