//! Not My Stack!: several boards on one table, one per player's location, each followed by its
//! own [`Tracker`] through the same photos.
//!
//! A location is known by where it lies in the photo: a board read in a later photo belongs to
//! the location whose centres it shares (the camera stays put, the cards do not move). The
//! first card seen at a location is its owner's own card, which names the owner; every later
//! card there was played on it by the player whose deck it is from.

use std::collections::HashSet;

use serde::Serialize;
use tablejudge_rules::camouflage::{
    score, CamouflageSet, GameRules, History, PlacementRules, Play, Player, SideIdx,
};

use super::lattice::BoardLattice;
use super::read::CamouflageReading;
use super::replay::{permutations, FrameOutcome, Replay, Tracker};

/// More cards than this first seen in one photo are not ordered by trying every order.
const MAX_ORDERED: usize = 6;

/// Where a location's cards lie in the photo, as last read: its block of squares.
struct Footprint {
    lattice: Option<BoardLattice>,
    rows: usize,
    cols: usize,
}

impl Footprint {
    fn of(reading: &CamouflageReading) -> Footprint {
        Footprint {
            lattice: reading.lattice,
            rows: reading.rows,
            cols: reading.cols,
        }
    }

    /// How many of `reading`'s centres lie on this location: within its block, or within
    /// [`GROWTH`] squares of it, where a card laid since can have its centre.
    fn shared(&self, reading: &CamouflageReading) -> usize {
        let Some(lattice) = &self.lattice else {
            return 0;
        };
        let (rows, cols) = (self.rows as f32, self.cols as f32);
        reading
            .centres
            .iter()
            .filter(|c| {
                lattice.to_lattice(c.px).is_some_and(|[x, y]| {
                    x >= -0.5 - GROWTH
                        && y >= -0.5 - GROWTH
                        && x <= cols - 0.5 + GROWTH
                        && y <= rows - 0.5 + GROWTH
                })
            })
            .count()
    }
}

/// A card laid on a location overlaps a card there, so its centre lies at most a square past
/// the location's block; half a square more allows for the camera moving between photos.
const GROWTH: f32 = 1.5;

struct Location<'a> {
    tracker: Tracker<'a>,
    footprint: Footprint,
    /// For each photo, the board of its reading taken for this location.
    boards: Vec<Option<usize>>,
}

/// Follows every location of a Not My Stack! table through successive photos.
pub struct LocationsTracker<'a> {
    set: &'a CamouflageSet,
    side: SideIdx,
    rules: PlacementRules,
    locations: Vec<Location<'a>>,
    photos: usize,
}

/// One location's replay.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct LocationReplay {
    /// The photo in which it was first seen.
    pub first_photo: usize,
    /// Its cards, the owner's own card first; `frames` has one entry per photo.
    #[serde(flatten)]
    pub replay: Replay,
    /// For each photo, the board of its reading (an index into the boards read) taken for
    /// this location.
    pub boards: Vec<Option<usize>>,
}

/// A whole Not My Stack! replay.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct LocationsReplay {
    /// In the order first seen (the largest board first within a photo).
    pub locations: Vec<LocationReplay>,
    /// Why the replay cannot be trusted as a whole (each location's own doubts included,
    /// named by location); empty when it can.
    pub doubts: Vec<String>,
}

/// A card of the history, and where the replay found it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct FoundPlay {
    pub location: usize,
    /// Index into the location's `replay.cards`.
    pub card: usize,
}

impl<'a> LocationsTracker<'a> {
    pub fn new(set: &'a CamouflageSet, side: SideIdx, rules: PlacementRules) -> Self {
        LocationsTracker {
            set,
            side,
            rules,
            locations: Vec::new(),
            photos: 0,
        }
    }

    /// Records a photo that could not be read at all.
    pub fn skip(&mut self, reason: &str) {
        for l in &mut self.locations {
            l.tracker.skip(reason.to_string());
            l.boards.push(None);
        }
        self.photos += 1;
    }

    /// Explains the boards read in the next photo: each against the location it lies on; a
    /// board on no known location whose cards the set explains starts a new location.
    pub fn observe(&mut self, boards: &[CamouflageReading]) {
        let photo = self.photos;
        // The board each location shares most centres with.
        let mut claimed: Vec<Option<usize>> = vec![None; self.locations.len()];
        let mut owner_of_board: Vec<Vec<usize>> = vec![Vec::new(); boards.len()];
        for (l, loc) in self.locations.iter().enumerate() {
            let best = boards
                .iter()
                .enumerate()
                .map(|(b, r)| (loc.footprint.shared(r), b))
                .filter(|&(n, _)| n > 0)
                .max();
            if let Some((_, b)) = best {
                claimed[l] = Some(b);
                owner_of_board[b].push(l);
            }
        }
        for (l, b) in claimed.iter().enumerate() {
            self.locations[l].boards.push(*b);
            let reason = match b {
                None => format!(
                    "location {} was not found in the photo (covered, or out of view)",
                    l + 1
                ),
                Some(b) if owner_of_board[*b].len() > 1 => format!(
                    "locations {} were read as one board",
                    owner_of_board[*b]
                        .iter()
                        .map(|k| (k + 1).to_string())
                        .collect::<Vec<_>>()
                        .join(" and ")
                ),
                Some(b) => {
                    let loc = &mut self.locations[l];
                    if let FrameOutcome::Settled { .. } = loc.tracker.observe(&boards[*b]) {
                        loc.footprint = Footprint::of(&boards[*b]);
                    }
                    continue;
                }
            };
            self.locations[l].tracker.skip(reason);
        }
        for (b, reading) in boards.iter().enumerate() {
            // A board on a known location that another board of it was taken for is a part
            // of that location read apart (a centre missed between them), not a new one.
            if !owner_of_board[b].is_empty()
                || self
                    .locations
                    .iter()
                    .any(|l| l.footprint.shared(reading) > 0)
            {
                continue;
            }
            let mut tracker = Tracker::for_location(self.set, self.side, self.rules);
            for _ in 0..photo {
                tracker.skip("the location was not seen yet".into());
            }
            // Only a board whose cards the set explains is a location: a pattern of the
            // cloth can pass for a lone centre.
            if tracker.observe(reading).laid_any() {
                let mut boards = vec![None; photo];
                boards.push(Some(b));
                self.locations.push(Location {
                    tracker,
                    footprint: Footprint::of(reading),
                    boards,
                });
            }
        }
        self.photos += 1;
    }

    pub fn finish(self) -> LocationsReplay {
        let mut doubts = Vec::new();
        let mut locations = Vec::with_capacity(self.locations.len());
        for (l, loc) in self.locations.into_iter().enumerate() {
            let replay = loc.tracker.finish();
            let first_photo = replay.cards.first().map_or(0, |c| c.frame);
            for d in &replay.doubts {
                doubts.push(format!("location {}: {d}", l + 1));
            }
            let first = replay
                .cards
                .iter()
                .filter(|c| c.frame == first_photo)
                .count();
            if first > 1 {
                doubts.push(format!(
                    "location {} was first seen in photo {} with {first} cards on it: when \
                     the cards on it were played is not known; retake the series with every \
                     location in view",
                    l + 1,
                    first_photo + 1
                ));
            }
            locations.push(LocationReplay {
                first_photo,
                replay,
                boards: loc.boards,
            });
        }
        LocationsReplay { locations, doubts }
    }
}

impl LocationsReplay {
    /// The game as the rules crate scores it: a player per location, named after the deck of
    /// its first card; every later card played, in the order of the photos it first showed
    /// in, by the player whose deck it is from. Returns where each play was found, too.
    pub fn history(
        &self,
        set: &CamouflageSet,
        side: SideIdx,
    ) -> Result<(History, Vec<FoundPlay>), String> {
        let mut players: Vec<Player> = Vec::new();
        let mut start = Vec::new();
        for (l, loc) in self.locations.iter().enumerate() {
            let Some(first) = loc.replay.cards.first() else {
                return Err(format!("no card was recognised at location {}", l + 1));
            };
            let deck = set.card(first.placement.card).deck;
            if let Some(k) = players.iter().position(|p| p.deck == deck) {
                return Err(format!(
                    "locations {} and {} both start with a card of deck {}: each player starts \
                     their own location with a card of their deck",
                    k + 1,
                    l + 1,
                    set.deck(deck).id
                ));
            }
            players.push(Player {
                name: set.deck(deck).id.clone(),
                deck,
            });
            start.push(first.placement);
        }
        let mut found: Vec<(usize, usize, usize)> = Vec::new();
        for (l, loc) in self.locations.iter().enumerate() {
            for (k, c) in loc.replay.cards.iter().enumerate().skip(1) {
                found.push((c.frame, l, k));
            }
        }
        found.sort();
        let mut plays = Vec::with_capacity(found.len());
        for &(frame, l, k) in &found {
            let tracked = self.locations[l].replay.cards[k];
            let card = set.card(tracked.placement.card);
            let Some(player) = players.iter().position(|p| p.deck == card.deck) else {
                return Err(format!(
                    "card {} (photo {}, location {}) is of deck {}, which starts no location: \
                     every player's own card must be in view from the first photo",
                    card.id,
                    frame + 1,
                    l + 1,
                    set.deck(card.deck).id
                ));
            };
            plays.push(Play {
                player,
                card: tracked.placement.card,
                centre: tracked.placement.centre,
                turn: tracked.placement.turn,
                time_ms: None,
                location: Some(l),
            });
        }
        let found = found
            .into_iter()
            .map(|(_, location, card)| FoundPlay { location, card })
            .collect();
        Ok((
            History {
                side,
                players,
                start,
                plays,
            },
            found,
        ))
    }

    /// Cards first seen in the same photo, which the photos cannot order, when another order
    /// of them changes the scores, the ranking or the winners (whose location froze first,
    /// who went out first): why. Overlapping cards on one location keep the tracker's order.
    pub fn order_doubts(
        &self,
        set: &CamouflageSet,
        side: SideIdx,
        rules: &GameRules,
    ) -> Vec<String> {
        let Ok((history, found)) = self.history(set, side) else {
            return Vec::new();
        };
        let outcome = |h: &History| {
            score(set, rules, h).ok().map(|r| {
                let scores: Vec<u32> = r.players.iter().map(|p| p.score).collect();
                let faults: Vec<usize> = r.plays.iter().map(|p| p.faults.len()).collect();
                (scores, r.ranking, r.winners, faults)
            })
        };
        let Some(base) = outcome(&history) else {
            return Vec::new();
        };
        let frame_of =
            |i: usize| self.locations[found[i].location].replay.cards[found[i].card].frame;
        let mut doubts = Vec::new();
        let mut start = 0;
        while start < found.len() {
            let frame = frame_of(start);
            let end = (start..found.len())
                .take_while(|&i| frame_of(i) == frame)
                .last()
                .map_or(start + 1, |i| i + 1);
            let group = start..end;
            start = end;
            let players: HashSet<usize> = group.clone().map(|k| history.plays[k].player).collect();
            if group.len() < 2 || players.len() < 2 {
                continue;
            }
            let cards: Vec<&str> = group
                .clone()
                .map(|k| set.card(history.plays[k].card).id.as_str())
                .collect();
            if group.len() > MAX_ORDERED {
                doubts.push(format!(
                    "cards {} of different players first showed together in photo {}: the \
                     order they were played in is not known; take a photo after each card",
                    cards.join(", "),
                    frame + 1
                ));
                continue;
            }
            // Overlapping cards on one location: the lower was laid first.
            let before = |a: usize, b: usize| {
                let (pa, pb) = (&history.plays[a], &history.plays[b]);
                pa.location == pb.location
                    && (pa.centre.row - pb.centre.row).abs() <= 2
                    && (pa.centre.col - pb.centre.col).abs() <= 2
                    && a < b
            };
            let mut differs = false;
            permutations(group.len(), &mut |perm| {
                if differs {
                    return;
                }
                let order: Vec<usize> = perm.iter().map(|&k| group.start + k).collect();
                let keeps = (0..order.len())
                    .all(|i| (i + 1..order.len()).all(|j| !before(order[j], order[i])));
                if !keeps {
                    return;
                }
                let mut other = history.clone();
                for (i, &k) in order.iter().enumerate() {
                    other.plays[group.start + i] = history.plays[k];
                }
                differs = outcome(&other).is_some_and(|o| o != base);
            });
            if differs {
                doubts.push(format!(
                    "cards {} of different players first showed together in photo {}, and \
                     which was played first, which no photo shows, changes the scores or \
                     which cards count: take a photo after each card",
                    cards.join(", "),
                    frame + 1
                ));
            }
        }
        doubts
    }
}
