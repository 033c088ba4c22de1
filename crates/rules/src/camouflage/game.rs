//! Game histories and scoring of the four multiplayer modes: Speed Round, Diversify, Cover Some
//! Ground and Not My Stack!, each with or without the Centers Wild variant.
//!
//! A [`History`] is what happened on the table: the players and their decks, the starting
//! cards, and every placement in order (who, which card, where, turned how, and optionally
//! when). [`score`] replays it on the lattice and judges every placement against the physical
//! table of that moment.
//!
//! Interpretations (the rulebook's pictures are missing, so some are ours):
//! - **Going out** is derived, not recorded: a player is out at the placement that plays the
//!   last card of their deck (in Not My Stack, of the five cards left after the one laid at
//!   their own location). Illegal placements count as played (the card is physically on the
//!   table); a placement after the timer ran out does not (the timer stopped the player first).
//!   Out tokens 1, 2, … follow the order in which players went out.
//! - **Timer** (Diversify, Cover Some Ground): the first player out starts it. Beginners have
//!   60 s, Advanced 30 s: a placement whose time is more than that after the first player's
//!   last placement is late; without times on both placements it cannot be judged and is
//!   accepted. Expert has no extra time: every placement after the first player went out (in
//!   history order) is late. Late placements score 0.
//! - **Speed Round**: the winner is the first player to play all their cards with every one of
//!   them placed legally. A player who went out with an illegal card on the table did not
//!   really finish; play went on, so the next player out cleanly wins. Placements after the
//!   winner went out are flagged as after the game ended. Nobody wins when nobody finished
//!   cleanly.
//! - **"In physical contact"** (Diversify, Cover Some Ground): the cards directly beneath each
//!   of the card's squares when it was placed — never adjacent cards, and not cards further
//!   down a stack. Diversify scores the number of different such cards, Cover Some Ground the
//!   number of squares lying on a card. With wild centres a centre lying on a card, or a card
//!   lying on a centre, counts like any other square.
//! - Illegally placed or late cards score 0; unplayed cards score 0. Starting cards belong to no
//!   player and score nothing, but later cards touching them do score for them.
//! - Tie-breakers of Diversify and Cover Some Ground: #1 the earlier out token (a player who
//!   did not go out ranks after all who did), #2 more cards played that scored (legal, in
//!   time), #3 the higher best single card; still tied players share the victory.
//! - **Not My Stack!**: every location is its own table, started by its owner's own card. A
//!   placement on one's own location, or on a location whose owner is already out (frozen), is
//!   illegal; illegal placements do not count against the location's owner. Fewest counted
//!   cards on one's location wins; #1 earlier out token; #2 more different other locations
//!   played on legally; then shared victory.

use std::fmt;

use serde::{Deserialize, Serialize};
use thiserror::Error;

use super::board::{Board, Coverage, Illegal, LatticePos, PlacedCard, Placement, PlacementRules};
use super::set::{CamouflageSet, CardIdx, DeckIdx, SideIdx};
use crate::grid::Turn;

/// The game being played.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Mode {
    SpeedRound,
    Diversify,
    CoverSomeGround,
    NotMyStack,
}

impl Mode {
    pub const ALL: [Mode; 4] = [
        Mode::SpeedRound,
        Mode::Diversify,
        Mode::CoverSomeGround,
        Mode::NotMyStack,
    ];

    /// How many players the mode allows.
    pub const fn players(self) -> (usize, usize) {
        match self {
            Mode::NotMyStack => (3, 7),
            _ => (2, 6),
        }
    }
}

impl fmt::Display for Mode {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Mode::SpeedRound => "Speed Round",
            Mode::Diversify => "Diversify",
            Mode::CoverSomeGround => "Cover Some Ground",
            Mode::NotMyStack => "Not My Stack!",
        })
    }
}

/// The sand-timer level of Diversify and Cover Some Ground.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum TimerLevel {
    /// One minute after the first player goes out.
    #[default]
    Beginners,
    /// Thirty seconds.
    Advanced,
    /// No extra time.
    Expert,
}

impl TimerLevel {
    /// The time the others have after the first player goes out, in milliseconds.
    pub const fn extra_ms(self) -> u64 {
        match self {
            TimerLevel::Beginners => 60_000,
            TimerLevel::Advanced => 30_000,
            TimerLevel::Expert => 0,
        }
    }
}

/// Mode and variant.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct GameRules {
    pub mode: Mode,
    /// Centers Wild variant.
    #[serde(default)]
    pub wild_centres: bool,
    /// Used by Diversify and Cover Some Ground only.
    #[serde(default)]
    pub timer: TimerLevel,
}

/// A player and the deck they picked.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Player {
    pub name: String,
    pub deck: DeckIdx,
}

/// One card laid on the table by a player.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Play {
    /// Index into [`History::players`].
    pub player: usize,
    pub card: CardIdx,
    pub centre: LatticePos,
    pub turn: Turn,
    /// Milliseconds since the game began, when known.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub time_ms: Option<u64>,
    /// Not My Stack!: the player whose location it was played on. `None` in other modes.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub location: Option<usize>,
}

/// A game as it happened.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct History {
    pub side: SideIdx,
    pub players: Vec<Player>,
    /// Speed Round, Diversify, Cover Some Ground: the starting board, three cards of a deck no
    /// player picked, in the order they were laid. Not My Stack!: one card per player, the card
    /// each laid face up at their own location (`start[i]` for player `i`).
    pub start: Vec<Placement>,
    /// Every placement in order.
    pub plays: Vec<Play>,
}

/// Why a history cannot be scored (bad input rather than a rule broken on the table).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Error)]
#[serde(tag = "problem", rename_all = "snake_case")]
pub enum HistoryError {
    #[error("{mode} is for {min} to {max} players, the history has {found}")]
    PlayerCount {
        mode: Mode,
        found: usize,
        min: usize,
        max: usize,
    },
    #[error("players {first} and {second} both picked deck #{}: each player picks their own deck", deck.0)]
    SharedDeck {
        deck: DeckIdx,
        first: usize,
        second: usize,
    },
    #[error("the starting board has {found} cards; it is made of 3 cards")]
    StartSize { found: usize },
    #[error("starting card #{} is from a player's deck or another deck than the other starting cards: the starting board is three cards of one deck no player picked", card.0)]
    StartDeck { card: CardIdx },
    #[error("Not My Stack! starts with one card per player ({players} players), found {found}")]
    LocationCount { found: usize, players: usize },
    #[error("player {player}'s location card #{} is not from their deck", card.0)]
    LocationCardDeck { player: usize, card: CardIdx },
    #[error("play {play}: there is no player {player}")]
    UnknownPlayer { play: usize, player: usize },
    #[error("play {play}: card #{} is not in player {player}'s deck", card.0)]
    NotTheirCard {
        play: usize,
        player: usize,
        card: CardIdx,
    },
    #[error("play {play}: card #{} is already on the table", card.0)]
    CardTwice { play: usize, card: CardIdx },
    #[error("play {play}: Not My Stack! placements must name the location (a player index below {players})")]
    Location { play: usize, players: usize },
    #[error("play {play}: only Not My Stack! placements name a location")]
    LocationOutsideNotMyStack { play: usize },
    #[error("play {play}: its time is earlier than the play before")]
    TimeGoesBack { play: usize },
    #[error("card index {} is not in the set", card.0)]
    UnknownCard { card: CardIdx },
    #[error("player {player}'s deck index {} is not in the set", deck.0)]
    UnknownDeck { player: usize, deck: DeckIdx },
    #[error("side index {} is not in the set", side.0)]
    UnknownSide { side: SideIdx },
}

/// Why a placement scores nothing.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[serde(tag = "fault", rename_all = "snake_case")]
pub enum Fault {
    /// It broke the placement rules on the table as it was.
    Illegal(Illegal),
    /// Not My Stack!: played on the player's own location.
    OwnLocation,
    /// Not My Stack!: the location's owner was already out.
    FrozenLocation { owner: usize, out_at_play: usize },
    /// Placed after the timer ran out (deadline in ms since the start).
    AfterTimer { time_ms: u64, deadline_ms: u64 },
    /// Expert: placed after the first player went out at `out_at_play`.
    NoExtraTime { out_at_play: usize },
    /// Speed Round: placed after the winner went out at `out_at_play`.
    AfterGameOver { out_at_play: usize },
}

/// The verdict on one placement.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct PlayReport {
    /// Empty when the placement stands.
    pub faults: Vec<Fault>,
    /// Diversify / Cover Some Ground: the card's points. Not My Stack!: 1 when the card counts
    /// against the location's owner. Speed Round: 1 when the card counts as played.
    pub points: u32,
}

/// One player's result.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct PlayerReport {
    /// Diversify / Cover Some Ground: total points. Not My Stack!: cards counted on the
    /// player's own location (fewer is better). Speed Round: cards played that stand.
    pub score: u32,
    /// Out token (1 = first out), when the player went out.
    pub out_token: Option<u8>,
    /// The play at which the player went out.
    pub out_at_play: Option<usize>,
    /// Placements that stand (no fault).
    pub cards_played: u32,
    /// The best single card's points (Diversify / Cover Some Ground).
    pub best_card: u32,
    /// Not My Stack!: different other locations played on legally.
    pub locations_played: u32,
}

/// The scored game.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct GameReport {
    pub rules: GameRules,
    /// Verdicts of the starting cards (the first card of every table is free).
    pub start: Vec<Result<Coverage, Illegal>>,
    pub plays: Vec<PlayReport>,
    pub players: Vec<PlayerReport>,
    /// Players best first; players tied on every tie-breaker are adjacent in index order.
    pub ranking: Vec<usize>,
    /// The winners: several when they share the victory, none when nobody won a Speed Round.
    pub winners: Vec<usize>,
}

/// Points of a standing card in Diversify (different cards in contact) or Cover Some Ground
/// (squares lying on cards); 0 in the other modes.
pub fn card_points(mode: Mode, placed: &PlacedCard) -> u32 {
    match mode {
        Mode::Diversify => placed.cards_in_contact().len() as u32,
        Mode::CoverSomeGround => placed.covered_squares() as u32,
        Mode::SpeedRound | Mode::NotMyStack => 0,
    }
}

fn validate(set: &CamouflageSet, rules: &GameRules, h: &History) -> Result<(), HistoryError> {
    let mode = rules.mode;
    let (min, max) = mode.players();
    if !(min..=max).contains(&h.players.len()) {
        return Err(HistoryError::PlayerCount {
            mode,
            found: h.players.len(),
            min,
            max,
        });
    }
    if h.side.0 as usize >= set.sides().len() {
        return Err(HistoryError::UnknownSide { side: h.side });
    }
    let known = |card: CardIdx| {
        if (card.0 as usize) < set.cards().len() {
            Ok(card)
        } else {
            Err(HistoryError::UnknownCard { card })
        }
    };
    for (i, p) in h.players.iter().enumerate() {
        if p.deck.0 as usize >= set.decks().len() {
            return Err(HistoryError::UnknownDeck {
                player: i,
                deck: p.deck,
            });
        }
        if let Some(j) = h.players[..i].iter().position(|q| q.deck == p.deck) {
            return Err(HistoryError::SharedDeck {
                deck: p.deck,
                first: j,
                second: i,
            });
        }
    }
    let mut used = vec![false; set.cards().len()];
    if mode == Mode::NotMyStack {
        if h.start.len() != h.players.len() {
            return Err(HistoryError::LocationCount {
                found: h.start.len(),
                players: h.players.len(),
            });
        }
        for (i, s) in h.start.iter().enumerate() {
            let card = known(s.card)?;
            if set.card(card).deck != h.players[i].deck {
                return Err(HistoryError::LocationCardDeck { player: i, card });
            }
            used[card.0 as usize] = true;
        }
    } else {
        if h.start.len() != 3 {
            return Err(HistoryError::StartSize {
                found: h.start.len(),
            });
        }
        let deck = set.card(known(h.start[0].card)?).deck;
        for s in &h.start {
            let card = known(s.card)?;
            let d = set.card(card).deck;
            if d != deck || h.players.iter().any(|p| p.deck == d) || used[card.0 as usize] {
                return Err(HistoryError::StartDeck { card });
            }
            used[card.0 as usize] = true;
        }
    }
    let mut last_time = None;
    for (k, play) in h.plays.iter().enumerate() {
        let player = h
            .players
            .get(play.player)
            .ok_or(HistoryError::UnknownPlayer {
                play: k,
                player: play.player,
            })?;
        let card = known(play.card)?;
        if set.card(card).deck != player.deck {
            return Err(HistoryError::NotTheirCard {
                play: k,
                player: play.player,
                card,
            });
        }
        if std::mem::replace(&mut used[card.0 as usize], true) {
            return Err(HistoryError::CardTwice { play: k, card });
        }
        match (mode, play.location) {
            (Mode::NotMyStack, Some(l)) if l < h.players.len() => {}
            (Mode::NotMyStack, _) => {
                return Err(HistoryError::Location {
                    play: k,
                    players: h.players.len(),
                })
            }
            (_, Some(_)) => return Err(HistoryError::LocationOutsideNotMyStack { play: k }),
            (_, None) => {}
        }
        if let Some(t) = play.time_ms {
            if last_time.is_some_and(|l| t < l) {
                return Err(HistoryError::TimeGoesBack { play: k });
            }
            last_time = Some(t);
        }
    }
    Ok(())
}

/// Replays and scores a game. Fails only on a malformed history; broken rules on the table are
/// reported per placement.
pub fn score(
    set: &CamouflageSet,
    rules: &GameRules,
    history: &History,
) -> Result<GameReport, HistoryError> {
    validate(set, rules, history)?;
    let mode = rules.mode;
    let n = history.players.len();
    let table_rules = PlacementRules::game(rules.wild_centres);
    // One table, or one per location in Not My Stack!.
    let tables = if mode == Mode::NotMyStack { n } else { 1 };
    let mut boards: Vec<Board> = (0..tables)
        .map(|_| Board::new(history.side, table_rules))
        .collect();
    let mut start = Vec::with_capacity(history.start.len());
    for (i, s) in history.start.iter().enumerate() {
        let b = if mode == Mode::NotMyStack { i } else { 0 };
        start.push(boards[b].place(set, *s).verdict.clone());
    }
    let hand = |p: usize| {
        let deck = set.deck(history.players[p].deck).cards.len();
        if mode == Mode::NotMyStack {
            deck - 1
        } else {
            deck
        }
    };

    let mut played = vec![0usize; n];
    let mut out_at: Vec<Option<usize>> = vec![None; n];
    let mut first_out: Option<(usize, Option<u64>)> = None;
    let mut clean = vec![true; n];
    let mut speed_winner: Option<(usize, usize)> = None;
    let mut reports = Vec::with_capacity(history.plays.len());
    for (k, play) in history.plays.iter().enumerate() {
        let mut faults = Vec::new();
        let b = play.location.unwrap_or(0);
        let placement = Placement {
            card: play.card,
            centre: play.centre,
            turn: play.turn,
        };
        let placed = boards[b].place(set, placement).clone();
        if let Err(e) = &placed.verdict {
            faults.push(Fault::Illegal(e.clone()));
        }
        if mode == Mode::NotMyStack {
            if b == play.player {
                faults.push(Fault::OwnLocation);
            } else if let Some(o) = out_at[b] {
                faults.push(Fault::FrozenLocation {
                    owner: b,
                    out_at_play: o,
                });
            }
        }
        let mut late = false;
        if matches!(mode, Mode::Diversify | Mode::CoverSomeGround) {
            if let Some((out_play, out_time)) = first_out {
                match rules.timer {
                    TimerLevel::Expert => {
                        faults.push(Fault::NoExtraTime {
                            out_at_play: out_play,
                        });
                        late = true;
                    }
                    level => {
                        if let (Some(t0), Some(t)) = (out_time, play.time_ms) {
                            let deadline_ms = t0 + level.extra_ms();
                            if t > deadline_ms {
                                faults.push(Fault::AfterTimer {
                                    time_ms: t,
                                    deadline_ms,
                                });
                                late = true;
                            }
                        }
                    }
                }
            }
        }
        if let (Mode::SpeedRound, Some((_, out_play))) = (mode, speed_winner) {
            faults.push(Fault::AfterGameOver {
                out_at_play: out_play,
            });
        }
        if faults.iter().any(|f| matches!(f, Fault::Illegal(_))) {
            clean[play.player] = false;
        }
        if !late {
            played[play.player] += 1;
            if played[play.player] == hand(play.player) {
                out_at[play.player] = Some(k);
                if first_out.is_none() {
                    first_out = Some((k, play.time_ms));
                }
                if mode == Mode::SpeedRound && speed_winner.is_none() && clean[play.player] {
                    speed_winner = Some((play.player, k));
                }
            }
        }
        let points = if !faults.is_empty() {
            0
        } else {
            match mode {
                Mode::Diversify | Mode::CoverSomeGround => card_points(mode, &placed),
                Mode::SpeedRound | Mode::NotMyStack => 1,
            }
        };
        reports.push(PlayReport { faults, points });
    }

    let mut order: Vec<usize> = (0..n).filter(|&p| out_at[p].is_some()).collect();
    order.sort_by_key(|&p| out_at[p]);
    let mut players: Vec<PlayerReport> = (0..n)
        .map(|p| PlayerReport {
            score: 0,
            out_token: order.iter().position(|&q| q == p).map(|i| i as u8 + 1),
            out_at_play: out_at[p],
            cards_played: 0,
            best_card: 0,
            locations_played: 0,
        })
        .collect();
    let mut locations = vec![vec![false; n]; n];
    for (play, r) in history.plays.iter().zip(&reports) {
        if !r.faults.is_empty() {
            continue;
        }
        let pr = &mut players[play.player];
        pr.cards_played += 1;
        pr.best_card = pr.best_card.max(r.points);
        match mode {
            Mode::Diversify | Mode::CoverSomeGround => pr.score += r.points,
            Mode::SpeedRound => pr.score += 1,
            Mode::NotMyStack => {
                let l = play.location.unwrap_or(0);
                locations[play.player][l] = true;
                players[l].score += 1;
            }
        }
    }
    for (p, pr) in players.iter_mut().enumerate() {
        pr.locations_played = locations[p].iter().filter(|&&x| x).count() as u32;
    }
    let (mut ranking, mut winners) = rank(mode, &players);
    if mode == Mode::SpeedRound {
        winners = speed_winner.map(|(p, _)| vec![p]).unwrap_or_default();
        // The winner is the first to go out cleanly, who may have gone out after a player
        // with an illegal card: the ranking starts with the winner.
        if let Some(&w) = winners.first() {
            ranking.retain(|&p| p != w);
            ranking.insert(0, w);
        }
    }
    Ok(GameReport {
        rules: *rules,
        start,
        plays: reports,
        players,
        ranking,
        winners,
    })
}

/// Orders players best first by the mode's objective and tie-breakers, and returns the players
/// tied for first on every tie-breaker (they share the victory).
///
/// Speed Round ranks by out order, then cards played; its winner is decided in [`score`].
pub fn rank(mode: Mode, players: &[PlayerReport]) -> (Vec<usize>, Vec<usize>) {
    // A smaller key is better. Players who did not go out come after all who did.
    let key = |p: &PlayerReport| {
        let out = p.out_token.map_or(u32::MAX, u32::from);
        match mode {
            Mode::Diversify | Mode::CoverSomeGround => (
                u32::MAX - p.score,
                out,
                u32::MAX - p.cards_played,
                u32::MAX - p.best_card,
            ),
            Mode::NotMyStack => (p.score, out, u32::MAX - p.locations_played, 0),
            Mode::SpeedRound => (out, u32::MAX - p.cards_played, 0, 0),
        }
    };
    let mut order: Vec<usize> = (0..players.len()).collect();
    order.sort_by_key(|&p| key(&players[p]));
    let winners = match order.first() {
        None => Vec::new(),
        Some(&best) => order
            .iter()
            .copied()
            .take_while(|&p| key(&players[p]) == key(&players[best]))
            .collect(),
    };
    (order, winners)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::camouflage::board::Breach;
    use crate::camouflage::testing::uniform_set;

    const SIDE: SideIdx = SideIdx(0);

    fn card(set: &CamouflageSet, id: &str) -> CardIdx {
        set.card_by_id(id).unwrap()
    }

    fn at(set: &CamouflageSet, id: &str, row: i32, col: i32) -> Placement {
        Placement {
            card: card(set, id),
            centre: LatticePos::new(row, col),
            turn: Turn::R0,
        }
    }

    /// The Diversify scoring example: from the bottom, cards score 0 (nothing below), 1, 2, and
    /// the top card 1 although it lies above the bottom card, because it only touches one card.
    /// The picture is missing; this layout has exactly those numbers.
    #[test]
    fn diversify_scoring_example() {
        let set = uniform_set();
        let mut b = Board::new(SIDE, PlacementRules::GAME);
        let bottom = b.place(&set, at(&set, "h-1", 0, 0)).clone();
        let right = b.place(&set, at(&set, "h-2", 0, 2)).clone();
        let below = b.place(&set, at(&set, "h-3", 2, 0)).clone();
        let top = b.place(&set, at(&set, "h-4", 2, -2)).clone();
        for c in [&bottom, &right, &below, &top] {
            assert!(c.is_legal(), "{:?}", c.verdict);
        }
        let points: Vec<u32> = [&top, &below, &right, &bottom]
            .iter()
            .map(|c| card_points(Mode::Diversify, c))
            .collect();
        assert_eq!(points, vec![1, 2, 1, 0]);
        // The top card lies above the bottom card (under `below` at (1,-1)) without touching it.
        let stack = b.stack(LatticePos::new(1, -1));
        assert_eq!(stack.iter().map(|s| s.0).collect::<Vec<_>>(), vec![0, 2, 3]);
        assert_eq!(top.cards_in_contact(), vec![2]);
    }

    /// The Cover Some Ground example: from the top, 4, 2, 3, 3 and 0 (no squares below). The
    /// picture is missing; this layout has exactly those numbers. The card worth 2 covers only
    /// two squares, which the three-square minimum forbids in play: the example illustrates the
    /// counting only, and in a real game that card would have been placed illegally (score 0).
    #[test]
    fn cover_some_ground_scoring_example() {
        let set = uniform_set();
        let mut b = Board::new(SIDE, PlacementRules::GAME);
        let c0 = b.place(&set, at(&set, "h-1", 0, 0)).clone();
        let a = b.place(&set, at(&set, "h-2", 0, -2)).clone();
        let bb = b.place(&set, at(&set, "h-3", -2, 0)).clone();
        let d = b.place(&set, at(&set, "h-4", 2, 1)).clone();
        let e = b.place(&set, at(&set, "h-5", 0, 2)).clone();
        let points: Vec<u32> = [&e, &d, &bb, &a, &c0]
            .iter()
            .map(|c| card_points(Mode::CoverSomeGround, c))
            .collect();
        assert_eq!(points, vec![4, 2, 3, 3, 0]);
        assert!(e.is_legal() && bb.is_legal() && a.is_legal());
        assert_eq!(
            d.verdict,
            Err(Illegal {
                breaches: vec![Breach::TooFewCovered {
                    covered: 2,
                    required: 3
                }]
            })
        );
    }

    /// Plays `(player, card id)` in order, each at the first legal move of the physical table
    /// (or far away, illegally, when `illegal` lists its index), at one second per play.
    fn auto_history(
        set: &CamouflageSet,
        players: &[&str],
        start_deck: &str,
        plays: &[(usize, &str)],
        illegal: &[usize],
        wild: bool,
    ) -> History {
        let players: Vec<Player> = players
            .iter()
            .map(|d| Player {
                name: format!("player {d}"),
                deck: set.deck_by_id(d).unwrap(),
            })
            .collect();
        let mut board = Board::new(SIDE, PlacementRules::game(wild));
        let start: Vec<Placement> = [(0, 0), (0, 2), (0, 4)]
            .iter()
            .enumerate()
            .map(|(i, &(r, c))| at(set, &format!("{start_deck}-{}", i + 1), r, c))
            .collect();
        for s in &start {
            assert!(board.place(set, *s).is_legal());
        }
        let mut out = Vec::new();
        for (k, &(player, id)) in plays.iter().enumerate() {
            let c = card(set, id);
            let (centre, turn) = if illegal.contains(&k) {
                (LatticePos::new(100 + 10 * k as i32, 100), Turn::R0)
            } else {
                let m = board.legal_moves(set, c)[0];
                (m.centre, m.turn)
            };
            board.place(
                set,
                Placement {
                    card: c,
                    centre,
                    turn,
                },
            );
            out.push(Play {
                player,
                card: c,
                centre,
                turn,
                time_ms: Some(1000 * (k as u64 + 1)),
                location: None,
            });
        }
        History {
            side: SIDE,
            players,
            start,
            plays: out,
        }
    }

    fn rules(mode: Mode) -> GameRules {
        GameRules {
            mode,
            wild_centres: false,
            timer: TimerLevel::Beginners,
        }
    }

    fn all_cards(player: usize, deck: &str) -> Vec<(usize, String)> {
        (1..=6).map(|i| (player, format!("{deck}-{i}"))).collect()
    }

    #[test]
    fn speed_round_first_player_out_wins_and_later_plays_are_after_the_game() {
        let set = uniform_set();
        let mut seq = all_cards(0, "a");
        seq.insert(2, (1, "b-1".into()));
        seq.push((1, "b-2".into()));
        let plays: Vec<(usize, &str)> = seq.iter().map(|(p, s)| (*p, s.as_str())).collect();
        let h = auto_history(&set, &["a", "b"], "h", &plays, &[], false);
        let r = score(&set, &rules(Mode::SpeedRound), &h).unwrap();
        assert_eq!(r.winners, vec![0]);
        assert_eq!(r.players[0].out_token, Some(1));
        assert_eq!(r.players[1].out_token, None);
        assert_eq!(
            r.plays.last().unwrap().faults,
            vec![Fault::AfterGameOver { out_at_play: 6 }]
        );
        assert_eq!(r.ranking, vec![0, 1]);
    }

    #[test]
    fn speed_round_player_out_with_an_illegal_card_does_not_win() {
        let set = uniform_set();
        let mut seq = all_cards(0, "a");
        seq.extend(all_cards(1, "b"));
        let plays: Vec<(usize, &str)> = seq.iter().map(|(p, s)| (*p, s.as_str())).collect();
        // Player 0's third card is laid touching nothing.
        let h = auto_history(&set, &["a", "b"], "h", &plays, &[2], false);
        let r = score(&set, &rules(Mode::SpeedRound), &h).unwrap();
        assert!(matches!(r.plays[2].faults[0], Fault::Illegal(_)));
        assert_eq!(r.players[0].out_token, Some(1));
        assert_eq!(r.winners, vec![1]);
        // Nobody finished cleanly: no winner.
        let h = auto_history(&set, &["a", "b"], "h", &plays, &[2, 8], false);
        let r = score(&set, &rules(Mode::SpeedRound), &h).unwrap();
        assert!(r.winners.is_empty());
    }

    #[test]
    fn diversify_and_cover_sum_card_points_and_illegal_or_unplayed_cards_score_zero() {
        let set = uniform_set();
        let plays = [(0, "a-1"), (1, "b-1"), (0, "a-2"), (1, "b-2"), (0, "a-3")];
        let h = auto_history(&set, &["a", "b"], "h", &plays, &[4], false);
        for mode in [Mode::Diversify, Mode::CoverSomeGround] {
            let r = score(&set, &rules(mode), &h).unwrap();
            // Recompute from a fresh board: the points are the card points of standing cards.
            let mut board = Board::new(SIDE, PlacementRules::GAME);
            for s in &h.start {
                board.place(&set, *s);
            }
            let mut expected = [0u32; 2];
            for (k, p) in h.plays.iter().enumerate() {
                let pc = board
                    .place(
                        &set,
                        Placement {
                            card: p.card,
                            centre: p.centre,
                            turn: p.turn,
                        },
                    )
                    .clone();
                let pts = if k == 4 { 0 } else { card_points(mode, &pc) };
                assert_eq!(r.plays[k].points, pts, "{mode} play {k}");
                expected[p.player] += pts;
            }
            assert!(r.plays[1].points >= 1);
            assert_eq!(r.plays[4].points, 0);
            assert!(matches!(r.plays[4].faults[0], Fault::Illegal(_)));
            assert_eq!(
                r.players.iter().map(|p| p.score).collect::<Vec<_>>(),
                expected.to_vec()
            );
            assert_eq!(r.players[0].cards_played, 2);
        }
        // Cover Some Ground: every legal card covers at least three squares.
        let r = score(&set, &rules(Mode::CoverSomeGround), &h).unwrap();
        assert!(r.plays[..4].iter().all(|p| p.points >= 3));
    }

    fn stats(score: u32, out: Option<u8>, cards: u32, best: u32, locs: u32) -> PlayerReport {
        PlayerReport {
            score,
            out_token: out,
            out_at_play: None,
            cards_played: cards,
            best_card: best,
            locations_played: locs,
        }
    }

    #[test]
    fn diversify_tie_breakers_in_order_then_shared_victory() {
        for mode in [Mode::Diversify, Mode::CoverSomeGround] {
            // Highest score wins outright.
            let p = [stats(10, None, 3, 3, 0), stats(12, None, 2, 6, 0)];
            assert_eq!(rank(mode, &p), (vec![1, 0], vec![1]));
            // #1 first player out.
            let p = [stats(12, Some(2), 6, 3, 0), stats(12, Some(1), 6, 3, 0)];
            assert_eq!(rank(mode, &p).1, vec![1]);
            // Going out beats not going out.
            let p = [stats(12, None, 6, 3, 0), stats(12, Some(2), 5, 3, 0)];
            assert_eq!(rank(mode, &p).1, vec![1]);
            // #2 most cards played.
            let p = [stats(12, None, 4, 5, 0), stats(12, None, 5, 3, 0)];
            assert_eq!(rank(mode, &p).1, vec![1]);
            // #3 highest scoring single card.
            let p = [stats(12, None, 5, 4, 0), stats(12, None, 5, 5, 0)];
            assert_eq!(rank(mode, &p).1, vec![1]);
            // Still tied: shared victory.
            let p = [
                stats(12, None, 5, 5, 0),
                stats(9, None, 5, 5, 0),
                stats(12, None, 5, 5, 0),
            ];
            assert_eq!(rank(mode, &p), (vec![0, 2, 1], vec![0, 2]));
        }
    }

    #[test]
    fn not_my_stack_tie_breakers() {
        let m = Mode::NotMyStack;
        // Fewest cards on your own location wins.
        let p = [
            stats(3, None, 5, 0, 2),
            stats(1, None, 5, 0, 2),
            stats(2, Some(1), 5, 0, 3),
        ];
        assert_eq!(rank(m, &p), (vec![1, 2, 0], vec![1]));
        // #1 first out.
        let p = [stats(1, Some(2), 5, 0, 2), stats(1, Some(1), 5, 0, 1)];
        assert_eq!(rank(m, &p).1, vec![1]);
        // #2 most different other locations.
        let p = [stats(1, None, 5, 0, 2), stats(1, None, 5, 0, 3)];
        assert_eq!(rank(m, &p).1, vec![1]);
        // Shared.
        let p = [stats(1, None, 5, 0, 3), stats(1, None, 4, 0, 3)];
        assert_eq!(rank(m, &p).1, vec![0, 1]);
    }

    #[test]
    fn first_out_takes_token_one_and_starts_the_timer() {
        let set = uniform_set();
        let mut seq = all_cards(0, "a");
        seq.push((1, "b-1".into()));
        seq.push((1, "b-2".into()));
        let plays: Vec<(usize, &str)> = seq.iter().map(|(p, s)| (*p, s.as_str())).collect();
        let mut h = auto_history(&set, &["a", "b"], "h", &plays, &[], false);
        // Player 0 goes out at play 5, time 6000 ms.
        for (level, extra) in [
            (TimerLevel::Beginners, 60_000),
            (TimerLevel::Advanced, 30_000),
        ] {
            h.plays[6].time_ms = Some(6000 + extra);
            h.plays[7].time_ms = Some(6000 + extra + 1);
            let r = score(
                &set,
                &GameRules {
                    mode: Mode::Diversify,
                    wild_centres: false,
                    timer: level,
                },
                &h,
            )
            .unwrap();
            assert_eq!(r.players[0].out_token, Some(1));
            assert!(r.plays[6].faults.is_empty(), "{level:?}");
            assert_eq!(
                r.plays[7].faults,
                vec![Fault::AfterTimer {
                    time_ms: 6001 + extra,
                    deadline_ms: 6000 + extra
                }]
            );
            assert_eq!(r.plays[7].points, 0);
        }
        // Expert: no extra time at all, with or without times.
        h.plays[6].time_ms = None;
        h.plays[7].time_ms = None;
        let r = score(
            &set,
            &GameRules {
                mode: Mode::CoverSomeGround,
                wild_centres: false,
                timer: TimerLevel::Expert,
            },
            &h,
        )
        .unwrap();
        assert_eq!(
            r.plays[6].faults,
            vec![Fault::NoExtraTime { out_at_play: 5 }]
        );
        // Without times a Beginners timer cannot be judged: the plays stand.
        let r = score(&set, &rules(Mode::Diversify), &h).unwrap();
        assert!(r.plays[6].faults.is_empty() && r.plays[7].faults.is_empty());
    }

    #[test]
    fn second_player_out_takes_token_two() {
        let set = uniform_set();
        let mut seq = all_cards(1, "b");
        seq.extend(all_cards(0, "a"));
        let plays: Vec<(usize, &str)> = seq.iter().map(|(p, s)| (*p, s.as_str())).collect();
        let h = auto_history(&set, &["a", "b", "c"], "h", &plays, &[], false);
        let r = score(&set, &rules(Mode::CoverSomeGround), &h).unwrap();
        assert_eq!(r.players[1].out_token, Some(1));
        assert_eq!(r.players[0].out_token, Some(2));
        assert_eq!(r.players[2].out_token, None);
        assert_eq!(r.players[2].score, 0);
    }

    #[test]
    fn centers_wild_applies_to_every_mode() {
        let set = uniform_set();
        let h0 = auto_history(&set, &["a", "b", "c"], "h", &[], &[], true);
        // One column over the middle starting card: covers its centre; legal only when wild.
        let mut h = h0.clone();
        h.plays.push(Play {
            player: 0,
            card: card(&set, "a-1"),
            centre: LatticePos::new(1, 2),
            turn: Turn::R0,
            time_ms: None,
            location: None,
        });
        for mode in [Mode::SpeedRound, Mode::Diversify, Mode::CoverSomeGround] {
            let mut r = rules(mode);
            assert!(!score(&set, &r, &h).unwrap().plays[0].faults.is_empty());
            r.wild_centres = true;
            let rep = score(&set, &r, &h).unwrap();
            assert!(rep.plays[0].faults.is_empty(), "{mode}");
            if mode == Mode::CoverSomeGround {
                // Rows 0..1, columns 1..3 of the starting row: six squares, a centre included.
                assert_eq!(rep.plays[0].points, 6);
            }
            if mode == Mode::Diversify {
                // The middle and right starting cards.
                assert_eq!(rep.plays[0].points, 2);
            }
        }
        // Not My Stack!: same on a location.
        let h = nms_history(&set, &[(0, "a-2", 1, LatticePos::new(0, 1))]);
        let mut r = rules(Mode::NotMyStack);
        assert!(!score(&set, &r, &h).unwrap().plays[0].faults.is_empty());
        r.wild_centres = true;
        assert!(score(&set, &r, &h).unwrap().plays[0].faults.is_empty());
    }

    /// Not My Stack! with players on decks a, b, c, each location started by `<deck>-1` at the
    /// origin; plays are (player, card, location, centre).
    fn nms_history(set: &CamouflageSet, plays: &[(usize, &str, usize, LatticePos)]) -> History {
        let decks = ["a", "b", "c"];
        History {
            side: SIDE,
            players: decks
                .iter()
                .map(|d| Player {
                    name: d.to_string(),
                    deck: set.deck_by_id(d).unwrap(),
                })
                .collect(),
            start: decks
                .iter()
                .map(|d| at(set, &format!("{d}-1"), 0, 0))
                .collect(),
            plays: plays
                .iter()
                .map(|&(player, id, loc, centre)| Play {
                    player,
                    card: card(set, id),
                    centre,
                    turn: Turn::R0,
                    time_ms: None,
                    location: Some(loc),
                })
                .collect(),
        }
    }

    /// Five legal spots around a lone card at the origin, each covering three squares.
    const SPOTS: [(i32, i32); 5] = [(0, 2), (0, -2), (-2, 0), (2, 0), (0, 4)];

    #[test]
    fn not_my_stack_scoring_own_and_frozen_locations() {
        let set = uniform_set();
        let mut plays = Vec::new();
        // Player 0 plays all five remaining cards: three on location 1, two on location 2.
        for (i, loc) in [1, 1, 1, 2, 2].into_iter().enumerate() {
            let spot = SPOTS[plays
                .iter()
                .filter(|p: &&(usize, String, usize, LatticePos)| p.2 == loc)
                .count()];
            plays.push((
                0,
                format!("a-{}", i + 2),
                loc,
                LatticePos::new(spot.0, spot.1),
            ));
        }
        // Player 1 plays on its own location (illegal), then on location 2.
        plays.push((1, "b-2".into(), 1, LatticePos::new(2, 0)));
        plays.push((1, "b-3".into(), 2, LatticePos::new(-2, 0)));
        // Player 2 plays on frozen location 0 (player 0 is out) and on location 1.
        plays.push((2, "c-2".into(), 0, LatticePos::new(0, 2)));
        plays.push((2, "c-3".into(), 1, LatticePos::new(0, 4)));
        let refs: Vec<(usize, &str, usize, LatticePos)> = plays
            .iter()
            .map(|(p, c, l, x)| (*p, c.as_str(), *l, *x))
            .collect();
        let h = nms_history(&set, &refs);
        let r = score(&set, &rules(Mode::NotMyStack), &h).unwrap();
        assert!(
            r.plays[..5].iter().all(|p| p.faults.is_empty()),
            "{:?}",
            r.plays
        );
        assert_eq!(r.players[0].out_token, Some(1));
        assert_eq!(r.plays[5].faults, vec![Fault::OwnLocation]);
        assert!(r.plays[6].faults.is_empty());
        assert_eq!(
            r.plays[7].faults,
            vec![Fault::FrozenLocation {
                owner: 0,
                out_at_play: 4
            }]
        );
        // Location 1: three of player 0's and one of player 2's; location 2: two + one.
        assert_eq!(
            r.players.iter().map(|p| p.score).collect::<Vec<_>>(),
            vec![0, 4, 3]
        );
        assert_eq!(r.players[0].locations_played, 2);
        assert_eq!(r.players[1].locations_played, 1);
        assert_eq!(r.winners, vec![0]);
        assert_eq!(r.ranking, vec![0, 2, 1]);
    }

    #[test]
    fn malformed_histories_are_rejected() {
        let set = uniform_set();
        let h = auto_history(&set, &["a", "b"], "h", &[(0, "a-1")], &[], false);
        let one = History {
            players: h.players[..1].to_vec(),
            ..h.clone()
        };
        assert_eq!(
            score(&set, &rules(Mode::Diversify), &one),
            Err(HistoryError::PlayerCount {
                mode: Mode::Diversify,
                found: 1,
                min: 2,
                max: 6
            })
        );
        assert!(matches!(
            score(&set, &rules(Mode::NotMyStack), &h),
            Err(HistoryError::PlayerCount { min: 3, max: 7, .. })
        ));
        let mut bad = h.clone();
        bad.plays[0].player = 1;
        assert!(matches!(
            score(&set, &rules(Mode::Diversify), &bad),
            Err(HistoryError::NotTheirCard {
                play: 0,
                player: 1,
                ..
            })
        ));
        let mut bad = h.clone();
        bad.plays.push(bad.plays[0]);
        assert!(matches!(
            score(&set, &rules(Mode::Diversify), &bad),
            Err(HistoryError::CardTwice { play: 1, .. })
        ));
        let mut bad = h.clone();
        bad.players[1].deck = bad.players[0].deck;
        assert!(matches!(
            score(&set, &rules(Mode::Diversify), &bad),
            Err(HistoryError::SharedDeck { .. })
        ));
        let mut bad = h.clone();
        bad.start.pop();
        assert_eq!(
            score(&set, &rules(Mode::Diversify), &bad),
            Err(HistoryError::StartSize { found: 2 })
        );
        let mut bad = h.clone();
        bad.start[1].card = card(&set, "a-6");
        assert!(matches!(
            score(&set, &rules(Mode::Diversify), &bad),
            Err(HistoryError::StartDeck { .. })
        ));
        let mut bad = h.clone();
        bad.plays[0].location = Some(1);
        assert_eq!(
            score(&set, &rules(Mode::Diversify), &bad),
            Err(HistoryError::LocationOutsideNotMyStack { play: 0 })
        );
        let mut bad = h.clone();
        bad.plays.push(Play {
            time_ms: Some(10),
            card: card(&set, "a-2"),
            ..bad.plays[0]
        });
        assert_eq!(
            score(&set, &rules(Mode::Diversify), &bad),
            Err(HistoryError::TimeGoesBack { play: 1 })
        );
        let nms = nms_history(&set, &[(0, "a-2", 1, LatticePos::new(0, 2))]);
        let mut bad = nms.clone();
        bad.plays[0].location = None;
        assert!(matches!(
            score(&set, &rules(Mode::NotMyStack), &bad),
            Err(HistoryError::Location { play: 0, .. })
        ));
        let mut bad = nms;
        bad.start[0].card = card(&set, "b-6");
        assert!(matches!(
            score(&set, &rules(Mode::NotMyStack), &bad),
            Err(HistoryError::LocationCardDeck { player: 0, .. })
        ));
    }
}
