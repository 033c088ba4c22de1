//! Scoring: one round, a six-round game, and the solo time attack.
//!
//! Score tokens: the rules' table of which tokens each player count uses lost its picture. We
//! use tokens worth 1..=N for N players, which fits the four-player example (tokens 4, 3, 2, 1)
//! and the box (24 tokens = six rounds × four values).

use std::fmt;
use std::ops::RangeInclusive;

use serde::{Deserialize, Serialize};
use thiserror::Error;

/// The game is for 2 to 4 players (4 player cards); one player plays the time attack instead.
pub const PLAYERS: RangeInclusive<usize> = 2..=4;

/// Rounds in a game.
pub const ROUNDS: usize = 6;

/// The solo time attack lasts three minutes.
pub const SOLO_TIME_LIMIT_SECONDS: u32 = 180;

/// The score tokens in play for `players` players, highest first: N, N-1, …, 1.
pub fn score_tokens(players: usize) -> Vec<u8> {
    // PLAYERS caps N at 4, but any N up to 255 has a meaning here.
    (1..=u8::try_from(players).unwrap_or(u8::MAX))
        .rev()
        .collect()
}

/// A player who covered their layers in time, and whether their stack matched the mission.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Finish {
    /// Index of the player, 0-based; the player to the left of player `i` is `i + 1`.
    pub player: usize,
    pub correct: bool,
}

/// What happened in a round, in order.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[serde(tag = "event", rename_all = "snake_case")]
pub enum RoundEvent {
    /// A finished player took the highest token left in the centre.
    Took { player: usize, token: u8 },
    /// A player's stack was checked while they held `token`.
    Verified {
        player: usize,
        token: u8,
        correct: bool,
    },
    /// `token` was passed down to the player holding the next lower token.
    Passed { token: u8, to: usize },
    /// `token` went back to the game box: nobody held a lower token.
    ReturnedToBox { token: u8 },
}

/// Why a round cannot be scored.
#[derive(Clone, Debug, PartialEq, Eq, Error)]
pub enum RoundError {
    #[error("{found} players: the game is for 2 to 4 players (one player plays the time attack)")]
    PlayerCount { found: usize },
    #[error("there is no player {player}: players are numbered 0 to {}", players - 1)]
    UnknownPlayer { player: usize, players: usize },
    #[error("player {player} finished twice: list each finished player once, in finishing order")]
    FinishedTwice { player: usize },
}

/// The result of one round.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct RoundOutcome {
    /// The token each player keeps (their points this round), by player index.
    pub tokens: Vec<Option<u8>>,
    /// Tokens that went back to the box, in the order they went.
    pub returned_to_box: Vec<u8>,
    /// Tokens nobody took in time.
    pub left_in_centre: Vec<u8>,
    pub events: Vec<RoundEvent>,
}

impl RoundOutcome {
    /// The points `player` scored this round: their token's value, or 0.
    pub fn points(&self, player: usize) -> u32 {
        self.tokens
            .get(player)
            .copied()
            .flatten()
            .map_or(0, u32::from)
    }
}

/// Scores a round. `finishers` are the players who covered their layers in time, in finishing
/// order; the others get no token.
///
/// Finished players take the highest token left, in finishing order. Verification goes from the
/// highest token down: a correct player keeps their token; a wrong one scores nothing and passes
/// the token to the player with the next lower token, who passes their own token on down the
/// same way; with nobody lower, the token goes back to the box.
pub fn score_round(players: usize, finishers: &[Finish]) -> Result<RoundOutcome, RoundError> {
    if !PLAYERS.contains(&players) {
        return Err(RoundError::PlayerCount { found: players });
    }
    let mut correct: Vec<Option<bool>> = vec![None; players];
    for f in finishers {
        let slot = correct.get_mut(f.player).ok_or(RoundError::UnknownPlayer {
            player: f.player,
            players,
        })?;
        if slot.replace(f.correct).is_some() {
            return Err(RoundError::FinishedTwice { player: f.player });
        }
    }

    let mut events = Vec::new();
    let mut centre = score_tokens(players).into_iter();
    let mut tokens: Vec<Option<u8>> = vec![None; players];
    for f in finishers {
        // At most `players` distinct finishers, and there are `players` tokens.
        if let Some(token) = centre.next() {
            tokens[f.player] = Some(token);
            events.push(RoundEvent::Took {
                player: f.player,
                token,
            });
        }
    }
    let left_in_centre: Vec<u8> = centre.collect();

    let mut verified = vec![false; players];
    let mut returned_to_box = Vec::new();
    while let Some((player, token)) = highest_holder(&tokens, |p| !verified[p], None) {
        verified[player] = true;
        let is_correct = correct[player] == Some(true);
        events.push(RoundEvent::Verified {
            player,
            token,
            correct: is_correct,
        });
        if is_correct {
            continue;
        }
        tokens[player] = None;
        let mut passing = token;
        while let Some((lower, own)) = highest_holder(&tokens, |_| true, Some(passing)) {
            tokens[lower] = Some(passing);
            events.push(RoundEvent::Passed {
                token: passing,
                to: lower,
            });
            passing = own;
        }
        returned_to_box.push(passing);
        events.push(RoundEvent::ReturnedToBox { token: passing });
    }

    Ok(RoundOutcome {
        tokens,
        returned_to_box,
        left_in_centre,
        events,
    })
}

/// The player among `eligible` holding the highest token (below `below`, if given), with that
/// token.
fn highest_holder(
    tokens: &[Option<u8>],
    eligible: impl Fn(usize) -> bool,
    below: Option<u8>,
) -> Option<(usize, u8)> {
    tokens
        .iter()
        .enumerate()
        .filter_map(|(p, t)| t.map(|t| (p, t)))
        .filter(|&(p, t)| below.is_none_or(|b| t < b) && eligible(p))
        .max_by_key(|&(_, t)| t)
}

/// Why a game move is not allowed.
#[derive(Clone, Debug, PartialEq, Eq, Error)]
pub enum GameError {
    #[error(transparent)]
    Round(#[from] RoundError),
    #[error(
        "player {chooser} chose the mission deck, but player {starting_player} is the starting \
         player this round and chooses it"
    )]
    NotTheStartingPlayer {
        chooser: usize,
        starting_player: usize,
    },
    #[error("the game is over: it has {ROUNDS} rounds")]
    Over,
    #[error("the game is not over: {rounds_played} of {ROUNDS} rounds played")]
    NotOver { rounds_played: usize },
}

/// One round as played.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct PlayedRound {
    pub starting_player: usize,
    /// The deck the starting player chose: its number of layers.
    pub deck: usize,
    pub outcome: RoundOutcome,
}

/// A game of six rounds for 2 to 4 players.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Game {
    players: usize,
    first_starting_player: usize,
    rounds: Vec<PlayedRound>,
}

impl Game {
    /// A new game; `starting_player` starts the first round (the rules pick the player with the
    /// most colourful clothing).
    pub fn new(players: usize, starting_player: usize) -> Result<Game, GameError> {
        if !PLAYERS.contains(&players) {
            return Err(RoundError::PlayerCount { found: players }.into());
        }
        if starting_player >= players {
            return Err(RoundError::UnknownPlayer {
                player: starting_player,
                players,
            }
            .into());
        }
        Ok(Game {
            players,
            first_starting_player: starting_player,
            rounds: Vec::new(),
        })
    }

    /// Number of players.
    pub fn players(&self) -> usize {
        self.players
    }

    /// The rounds played so far, first first.
    pub fn rounds(&self) -> &[PlayedRound] {
        &self.rounds
    }

    /// Whether all six rounds have been played.
    pub fn is_over(&self) -> bool {
        self.rounds.len() == ROUNDS
    }

    /// The starting player of the next round: the player to the left of the previous one, i.e.
    /// the next index, wrapping round. `None` once the game is over.
    pub fn starting_player(&self) -> Option<usize> {
        (!self.is_over()).then(|| (self.first_starting_player + self.rounds.len()) % self.players)
    }

    /// Plays the next round: `chosen_by` must be the starting player, who chose `deck`;
    /// `finishers` as for [`score_round`].
    pub fn play_round(
        &mut self,
        chosen_by: usize,
        deck: usize,
        finishers: &[Finish],
    ) -> Result<&PlayedRound, GameError> {
        let starting_player = self.starting_player().ok_or(GameError::Over)?;
        if chosen_by != starting_player {
            return Err(GameError::NotTheStartingPlayer {
                chooser: chosen_by,
                starting_player,
            });
        }
        let outcome = score_round(self.players, finishers)?;
        self.rounds.push(PlayedRound {
            starting_player,
            deck,
            outcome,
        });
        Ok(&self.rounds[self.rounds.len() - 1])
    }

    /// Each player's points so far: the sum of the tokens they kept.
    pub fn totals(&self) -> Vec<u32> {
        (0..self.players)
            .map(|p| self.rounds.iter().map(|r| r.outcome.points(p)).sum())
            .collect()
    }

    /// The winners once six rounds are played: every player with the highest total (a tie
    /// shares the victory).
    pub fn winners(&self) -> Result<Vec<usize>, GameError> {
        if !self.is_over() {
            return Err(GameError::NotOver {
                rounds_played: self.rounds.len(),
            });
        }
        let totals = self.totals();
        let best = totals.iter().copied().max().unwrap_or(0);
        Ok((0..self.players).filter(|&p| totals[p] == best).collect())
    }
}

/// The solo time attack's score: the sum of the levels (the `layers` numbers) of the missions
/// completed before the time ran out.
pub fn solo_score(completed_levels: &[usize]) -> usize {
    completed_levels.iter().sum()
}

/// How good a solo score is, by the rules' table. The table says "< 10" and "> 51", leaving
/// 10 and 51 out: 10 counts as "Try harder!" and 51 as "What a genius!".
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum SoloRating {
    TryHarder,
    NotBad,
    PrettyGood,
    Great,
    Impressive,
    Genius,
}

impl SoloRating {
    /// Every rating, lowest first.
    pub const ALL: [SoloRating; 6] = [
        SoloRating::TryHarder,
        SoloRating::NotBad,
        SoloRating::PrettyGood,
        SoloRating::Great,
        SoloRating::Impressive,
        SoloRating::Genius,
    ];

    /// The rating of a score.
    pub fn of(score: usize) -> SoloRating {
        match score {
            0..=10 => SoloRating::TryHarder,
            11..=20 => SoloRating::NotBad,
            21..=30 => SoloRating::PrettyGood,
            31..=40 => SoloRating::Great,
            41..=50 => SoloRating::Impressive,
            _ => SoloRating::Genius,
        }
    }

    /// The rules' words for it.
    pub fn message(self) -> &'static str {
        match self {
            SoloRating::TryHarder => "Try harder!",
            SoloRating::NotBad => "Not bad... you could do better.",
            SoloRating::PrettyGood => "That was pretty good.",
            SoloRating::Great => "Great result!",
            SoloRating::Impressive => "Impressive!",
            SoloRating::Genius => "What a genius!",
        }
    }
}

impl fmt::Display for SoloRating {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.message())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const ALEX: usize = 0;
    const SAM: usize = 1;
    const ELI: usize = 2;
    const TRACY: usize = 3;

    fn finish(player: usize, correct: bool) -> Finish {
        Finish { player, correct }
    }

    #[test]
    fn n_players_play_for_tokens_worth_n_down_to_1() {
        assert_eq!(score_tokens(2), vec![2, 1]);
        assert_eq!(score_tokens(3), vec![3, 2, 1]);
        assert_eq!(score_tokens(4), vec![4, 3, 2, 1]);
    }

    #[test]
    fn the_rules_example_alex_sam_eli_tracy() {
        // Alex, Sam and Eli finished in that order and took 4, 3 and 2; Tracy did not finish.
        let finishers = [finish(ALEX, true), finish(SAM, false), finish(ELI, true)];
        let round = score_round(4, &finishers).unwrap();
        use RoundEvent::*;
        assert_eq!(
            round.events,
            vec![
                Took {
                    player: ALEX,
                    token: 4
                },
                Took {
                    player: SAM,
                    token: 3
                },
                Took {
                    player: ELI,
                    token: 2
                },
                // Alex is correct and keeps the 4.
                Verified {
                    player: ALEX,
                    token: 4,
                    correct: true
                },
                // Sam is wrong: his 3 goes to Eli, whose 2 goes to the box (nobody holds 1).
                Verified {
                    player: SAM,
                    token: 3,
                    correct: false
                },
                Passed { token: 3, to: ELI },
                ReturnedToBox { token: 2 },
                // Eli is correct and keeps the 3.
                Verified {
                    player: ELI,
                    token: 3,
                    correct: true
                },
            ]
        );
        assert_eq!(round.tokens, vec![Some(4), None, Some(3), None]);
        let points: Vec<u32> = (0..4).map(|p| round.points(p)).collect();
        assert_eq!(points, vec![4, 0, 3, 0]);
        assert_eq!(round.points(TRACY), 0);
        assert_eq!(round.returned_to_box, vec![2]);
        assert_eq!(round.left_in_centre, vec![1]);
    }

    #[test]
    fn finishers_take_the_highest_token_left_in_finishing_order() {
        let finishers = [finish(2, true), finish(0, true), finish(1, true)];
        let round = score_round(3, &finishers).unwrap();
        assert_eq!(round.tokens, vec![Some(2), Some(1), Some(3)]);
        assert!(round.returned_to_box.is_empty());
        assert!(round.left_in_centre.is_empty());
    }

    #[test]
    fn unfinished_players_get_no_token() {
        let round = score_round(4, &[finish(3, true)]).unwrap();
        assert_eq!(round.tokens, vec![None, None, None, Some(4)]);
        assert_eq!(round.left_in_centre, vec![3, 2, 1]);
        let nobody = score_round(2, &[]).unwrap();
        assert_eq!(nobody.tokens, vec![None, None]);
        assert!(nobody.events.is_empty());
    }

    #[test]
    fn a_wrong_token_passes_down_the_whole_chain_and_the_lowest_goes_to_the_box() {
        let finishers = [
            finish(0, false),
            finish(1, true),
            finish(2, true),
            finish(3, true),
        ];
        let round = score_round(4, &finishers).unwrap();
        assert_eq!(round.tokens, vec![None, Some(4), Some(3), Some(2)]);
        assert_eq!(round.returned_to_box, vec![1]);
    }

    #[test]
    fn verification_goes_from_the_highest_token_down_with_passed_tokens() {
        // Player 0 (4) is wrong: 1 now holds 4, 2 holds 3, 3 holds 2, token 1 goes to the box.
        // Player 1 is then checked with the 4, is wrong too: 2 gets 4, 3 gets 3, 2 to the box.
        let finishers = [
            finish(0, false),
            finish(1, false),
            finish(2, true),
            finish(3, true),
        ];
        let round = score_round(4, &finishers).unwrap();
        let verified: Vec<(usize, u8)> = round
            .events
            .iter()
            .filter_map(|e| match *e {
                RoundEvent::Verified { player, token, .. } => Some((player, token)),
                _ => None,
            })
            .collect();
        assert_eq!(verified, vec![(0, 4), (1, 4), (2, 4), (3, 3)]);
        assert_eq!(round.tokens, vec![None, None, Some(4), Some(3)]);
        assert_eq!(round.returned_to_box, vec![1, 2]);
    }

    #[test]
    fn a_wrong_lowest_holder_returns_the_token_to_the_box() {
        let round = score_round(2, &[finish(0, true), finish(1, false)]).unwrap();
        assert_eq!(round.tokens, vec![Some(2), None]);
        assert_eq!(round.returned_to_box, vec![1]);
        assert_eq!(round.points(1), 0);
    }

    #[test]
    fn rejects_bad_rounds() {
        assert_eq!(
            score_round(1, &[]),
            Err(RoundError::PlayerCount { found: 1 })
        );
        assert_eq!(
            score_round(5, &[]),
            Err(RoundError::PlayerCount { found: 5 })
        );
        assert_eq!(
            score_round(3, &[finish(3, true)]),
            Err(RoundError::UnknownPlayer {
                player: 3,
                players: 3
            })
        );
        assert_eq!(
            score_round(3, &[finish(1, true), finish(1, false)]),
            Err(RoundError::FinishedTwice { player: 1 })
        );
    }

    #[test]
    fn the_game_has_six_rounds_and_the_start_passes_to_the_left() {
        let mut game = Game::new(3, 1).unwrap();
        let mut starters = Vec::new();
        while let Some(start) = game.starting_player() {
            starters.push(start);
            game.play_round(start, 3, &[finish(0, true)]).unwrap();
        }
        assert_eq!(starters, vec![1, 2, 0, 1, 2, 0]);
        assert_eq!(game.rounds().len(), ROUNDS);
        assert!(game.is_over());
        assert_eq!(game.play_round(0, 2, &[]).unwrap_err(), GameError::Over);
    }

    #[test]
    fn only_the_starting_player_chooses_the_deck() {
        let mut game = Game::new(4, 2).unwrap();
        assert_eq!(
            game.play_round(0, 5, &[]).unwrap_err(),
            GameError::NotTheStartingPlayer {
                chooser: 0,
                starting_player: 2
            }
        );
        assert!(game.rounds().is_empty());
        let round = game.play_round(2, 5, &[]).unwrap();
        assert_eq!((round.starting_player, round.deck), (2, 5));
    }

    #[test]
    fn totals_add_kept_tokens_and_the_highest_total_wins() {
        let mut game = Game::new(3, 0).unwrap();
        assert_eq!(
            game.winners().unwrap_err(),
            GameError::NotOver { rounds_played: 0 }
        );
        for _ in 0..ROUNDS {
            let start = game.starting_player().unwrap();
            game.play_round(
                start,
                2,
                &[finish(2, true), finish(0, false), finish(1, true)],
            )
            .unwrap();
        }
        // Each round: 2 keeps 3; 0 is wrong, so 1 gets 2 and token 1 goes to the box.
        assert_eq!(game.totals(), vec![0, 12, 18]);
        assert_eq!(game.winners().unwrap(), vec![2]);
    }

    #[test]
    fn a_tie_shares_the_victory() {
        let mut game = Game::new(4, 3).unwrap();
        for round in 0..ROUNDS {
            let start = game.starting_player().unwrap();
            // Players 0 and 1 take turns being first and second; 3 never finishes.
            let (first, second) = if round % 2 == 0 { (0, 1) } else { (1, 0) };
            let finishers = [finish(first, true), finish(second, true), finish(2, true)];
            game.play_round(start, 4, &finishers).unwrap();
        }
        assert_eq!(game.totals(), vec![21, 21, 12, 0]);
        assert_eq!(game.winners().unwrap(), vec![0, 1]);
    }

    #[test]
    fn a_game_needs_2_to_4_players_and_a_real_starting_player() {
        assert!(Game::new(1, 0).is_err());
        assert!(Game::new(5, 0).is_err());
        assert_eq!(
            Game::new(2, 2).unwrap_err(),
            GameError::Round(RoundError::UnknownPlayer {
                player: 2,
                players: 2
            })
        );
    }

    #[test]
    fn solo_score_is_the_sum_of_completed_levels() {
        assert_eq!(solo_score(&[2, 3, 5, 5, 4]), 19);
        assert_eq!(solo_score(&[]), 0);
        assert_eq!(SOLO_TIME_LIMIT_SECONDS, 3 * 60);
    }

    #[test]
    fn solo_ratings_follow_the_table_with_10_and_51_placed() {
        let cases = [
            (0, "Try harder!"),
            (9, "Try harder!"),
            (10, "Try harder!"),
            (11, "Not bad... you could do better."),
            (20, "Not bad... you could do better."),
            (21, "That was pretty good."),
            (30, "That was pretty good."),
            (31, "Great result!"),
            (40, "Great result!"),
            (41, "Impressive!"),
            (50, "Impressive!"),
            (51, "What a genius!"),
            (52, "What a genius!"),
            (200, "What a genius!"),
        ];
        for (score, message) in cases {
            assert_eq!(SoloRating::of(score).to_string(), message, "score {score}");
        }
        let bands: Vec<SoloRating> = (0..=60).map(SoloRating::of).collect();
        assert!(
            bands.windows(2).all(|w| w[0] <= w[1]),
            "ratings rise with the score"
        );
        assert!(SoloRating::ALL.iter().all(|r| bands.contains(r)));
    }
}
