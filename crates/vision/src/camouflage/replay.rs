//! Replaying a Camouflage game from readings of the table taken one after another.
//!
//! The tracker keeps the table as the rules crate models it and explains each new reading
//! against it, as igoki does for Go: register the reading on the table's lattice (any
//! quarter-turn and shift), check that every card already known is still seen as it was, then
//! name the new centres by peeling the pile from the top (the card lying highest shows all nine
//! squares; once named, its squares hide what is under it). A reading that cannot be explained
//! (a hand over the table, a moved card, a blurred photo) is skipped with the reason and the
//! next one is tried against the same table, so several cards laid between two photos are found
//! together.

use std::collections::{BTreeMap, HashMap, HashSet};

use serde::Serialize;
use tablejudge_rules::camouflage::{
    score, Board, CamouflageSet, CardIdx, DeckIdx, GameReport, GameRules, History, LatticePos,
    Placement, PlacementRules, Play, Player, Side, SideIdx, CENTRE_CHAR,
};
use tablejudge_rules::{Pos, Srgb, Turn};

use super::read::CamouflageReading;
use crate::colour::delta_e_srgb;

/// Squares a reading may show differently from the known table, away from any new card,
/// before it is taken for something over the table rather than a misread square or two.
const MISREAD_TOLERANCE: usize = 2;
/// A card no other new card may cover must show at least this many of its eight patterns
/// clearly to be named (one may be lost to glare)...
const TOP_CARD_KNOWN: usize = 7;
/// ...or this many when no other face of the set fits them: the decks that symbols tell
/// must not be what names a card seen this little, as a reader that takes two decks'
/// symbols for one would then name the wrong one.
const TOP_CARD_ALONE: usize = 6;
/// A card that other new cards may cover must show at least this many of its patterns.
const LOWER_CARD_KNOWN: usize = 4;
/// Squares of a card's face seen in one photo, its centre missed, that show the card was
/// there: one or two may be a hand's colours read as patterns.
const SQUARES_SHOWING_A_CARD: usize = 3;
/// More new centres than this in one reading are not ordered by trying every order.
const MAX_ORDERED: usize = 5;
/// A centre with more candidate faces than this is left unnamed.
const MAX_CANDIDATES: usize = 4;
/// At most this many choices of candidates are tried for the new centres of one reading.
const MAX_COMBINATIONS: usize = 64;
/// A known card whose centre the reader missed still counts as seen when this many of its
/// eight patterns are read as laid and none otherwise.
const MIN_AGREEING_AROUND_MISSED: usize = 5;
/// Squares of a new card's block that an earlier photo read as bare table, the table having
/// no card there, for that photo to show the card was not laid yet: the reader takes a card's
/// square for table seldom, two in one block hardly ever.
const BARE_SHOWING_NO_CARD: usize = 2;
/// Squares of a lone new card read unknown (in glare, on a border) with which one misread
/// square of it may still be made unknown ([`Tracker::with_lone_misreads_unknown`]): the card
/// is then named from six squares, as [`TOP_CARD_ALONE`] allows only where no other face fits.
const MAX_UNKNOWN_BESIDE_MISREAD: usize = 1;
/// The registration must beat the next best by this many agreeing squares.
const REGISTRATION_MARGIN: i32 = 3;

const TABLE: char = '.';
const UNKNOWN: char = '?';

/// A card the replay found on the table.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub struct TrackedCard {
    pub placement: Placement,
    /// The reading in which it was first named.
    pub frame: usize,
    /// The reading from which the card lay on the table already, its centre missed, when
    /// cards were laid over it after that: it goes under them in the replay.
    pub there_since: Option<usize>,
}

/// What the tracker made of one reading.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[serde(tag = "status", rename_all = "snake_case")]
pub enum FrameOutcome {
    /// The reading agrees with the table; `laid` cards (indices into [`Replay::cards`]) were
    /// new in it.
    Settled {
        laid: Vec<usize>,
        /// Centres seen that no card of the set explains (yet): a card misread or covered
        /// by a hand, or something on the table that looks like a centre.
        unexplained: Vec<LatticePos>,
        /// Squares seen differently from the table, away from new cards.
        misread: Vec<LatticePos>,
    },
    /// The reading was not used.
    Skipped { reason: String },
}

impl FrameOutcome {
    /// Whether the reading laid a card.
    pub fn laid_any(&self) -> bool {
        matches!(self, FrameOutcome::Settled { laid, .. } if !laid.is_empty())
    }
}

/// A whole replay: the cards in the order they were laid and what each reading gave.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Replay {
    pub cards: Vec<TrackedCard>,
    pub frames: Vec<FrameOutcome>,
    /// Why the replay cannot be trusted as a whole; empty when it can.
    pub doubts: Vec<String>,
    /// Cards (indices into `cards`) laid where two cards overlap that the photos show in
    /// either order: which cards they touch (Diversify's points) is not known.
    pub unsure_contacts: Vec<usize>,
    /// Cards (indices into `cards`) whose verdict (legal or not, the squares covered) depends
    /// on what the photos do not show: the order of several cards new in one photo, or a card
    /// beside it whose centre the last photo still shows unnamed.
    pub unsure_verdicts: Vec<usize>,
}

impl Replay {
    /// The game as the rules crate scores it: the first three cards are the starting board,
    /// and every later card is played by the player whose deck it is from (players named
    /// after their decks, in the order of their first card).
    pub fn history(&self, set: &CamouflageSet, side: SideIdx) -> Result<History, String> {
        if self.cards.len() < 3 {
            return Err(format!(
                "only {} card{} found: a game starts with a board of three cards",
                self.cards.len(),
                if self.cards.len() == 1 { "" } else { "s" }
            ));
        }
        let start_deck = set.card(self.cards[0].placement.card).deck;
        let mut players: Vec<Player> = Vec::new();
        let mut plays = Vec::with_capacity(self.cards.len() - 3);
        for (i, tracked) in self.cards.iter().enumerate() {
            let card = set.card(tracked.placement.card);
            if i < 3 {
                if card.deck != start_deck {
                    return Err(format!(
                        "the first photo's cards {} and {} are of different decks: the first \
                         photo must show the starting board, three cards of one deck",
                        set.card(self.cards[0].placement.card).id,
                        card.id
                    ));
                }
                continue;
            }
            if card.deck == start_deck {
                return Err(format!(
                    "card {} (photo {}) is from the starting board's deck, which no player plays",
                    card.id,
                    tracked.frame + 1
                ));
            }
            let player = match players.iter().position(|p| p.deck == card.deck) {
                Some(p) => p,
                None => {
                    players.push(Player {
                        name: set.deck(card.deck).id.clone(),
                        deck: card.deck,
                    });
                    players.len() - 1
                }
            };
            plays.push(Play {
                player,
                card: tracked.placement.card,
                centre: tracked.placement.centre,
                turn: tracked.placement.turn,
                time_ms: None,
                location: None,
            });
        }
        Ok(History {
            side,
            players,
            start: self.cards[..3].iter().map(|c| c.placement).collect(),
            plays,
        })
    }

    /// Cards of different players that appeared between the same two photos and do not
    /// overlap, so the photos cannot show which was laid first: when another order of them
    /// changes the scores, the ranking or the winners (who went out first, say), why. Orders
    /// of overlapping cards are the tracker's own doubts.
    pub fn order_doubts(
        &self,
        set: &CamouflageSet,
        side: SideIdx,
        rules: &GameRules,
    ) -> Vec<String> {
        let Ok(history) = self.history(set, side) else {
            return Vec::new();
        };
        let outcome = |h: &History| {
            score(set, rules, h).ok().map(|r: GameReport| {
                let scores: Vec<u32> = r.players.iter().map(|p| p.score).collect();
                (scores, r.ranking, r.winners)
            })
        };
        let Some(base) = outcome(&history) else {
            return Vec::new();
        };
        let mut doubts = Vec::new();
        let plays = &self.cards[3..];
        let mut start = 0;
        while start < plays.len() {
            let frame = plays[start].frame;
            let end = start
                + plays[start..]
                    .iter()
                    .take_while(|c| c.frame == frame)
                    .count();
            let group = start..end;
            start = end;
            let players: HashSet<usize> = group.clone().map(|k| history.plays[k].player).collect();
            let overlap = group.clone().any(|a| {
                group.clone().filter(|&b| b > a).any(|b| {
                    let (p, q) = (plays[a].placement.centre, plays[b].placement.centre);
                    (p.row - q.row).abs() <= 2 && (p.col - q.col).abs() <= 2
                })
            });
            if players.len() < 2 || overlap || group.len() > MAX_ORDERED {
                continue;
            }
            let mut differs = false;
            permutations(group.len(), &mut |perm| {
                if differs {
                    return;
                }
                let mut other = history.clone();
                for (i, &k) in perm.iter().enumerate() {
                    other.plays[group.start + i] = history.plays[group.start + k];
                }
                differs = outcome(&other).is_some_and(|o| o != base);
            });
            if differs {
                let cards: Vec<&str> = group
                    .clone()
                    .map(|k| set.card(plays[k].placement.card).id.as_str())
                    .collect();
                doubts.push(format!(
                    "cards {} of different players appeared together in photo {}, and which \
                     was laid first, which no photo shows, changes the scores or the winner: \
                     take a photo after each card",
                    cards.join(", "),
                    frame + 1
                ));
            }
        }
        doubts
    }
}

/// Follows a table through successive readings. Cloned to see how the game stands so far
/// without ending it (a live watch).
#[derive(Clone)]
pub struct Tracker<'a> {
    set: &'a CamouflageSet,
    side: SideIdx,
    board: Board,
    cards: Vec<TrackedCard>,
    used: Vec<bool>,
    frames: Vec<FrameOutcome>,
    doubts: Vec<String>,
    /// The reading whose new cards no later reading has agreed with yet, and how many doubts
    /// there were before it.
    tentative: Option<(usize, usize)>,
    /// Squares where two cards overlap and the photos did not show which lies on top.
    unsure_top: HashSet<LatticePos>,
    /// Cards laid on such squares: which cards they touch is not known.
    unsure_contacts: Vec<usize>,
    /// Cards whose verdict the photos leave open ([`Replay::unsure_verdicts`]).
    unsure_verdicts: Vec<usize>,
    /// Cards laid beside a centre new in the same photo and left unnamed there, with that
    /// centre: the card may lie on it or under it. Unless a later photo names it (and the
    /// photos then order the two), the card's verdict is left open.
    beside_unnamed: Vec<(usize, LatticePos)>,
    /// Cards taken back because the next photo did not show them, with the photo that did.
    withdrawn: Vec<(Placement, usize)>,
    /// Squares seen as card where the table has none: what they showed, and the first photo
    /// that showed card there (see [`Tracker::note_ghosts`]).
    ghosts: BTreeMap<LatticePos, (char, usize)>,
    /// The last photo each square was read as the table says it is.
    confirmed: HashMap<LatticePos, usize>,
    /// The last photo each square was read as bare table, the table having no card there: a
    /// card does not leave, so no card was there in any photo before.
    last_bare: HashMap<LatticePos, usize>,
    /// Doubts from ghosts: a hand over the card being laid looks the same as a card whose
    /// centre was missed. They stand unless later photos read the card's squares as its
    /// face and the squares beside it as bare table.
    pending: Vec<PendingDoubt>,
    /// Every face of the set's side: (card, turn, its nine squares row-major).
    faces: Vec<(CardIdx, Turn, [char; 9])>,
    /// (printed, read): a pattern and one of the two patterns of its side nearest it in
    /// colour, which a shadow or a cast may make it read as. Empty when the set gives no
    /// colours.
    alike_colours: HashSet<(char, char)>,
    /// Squares of new cards taken for misread ([`Tracker::with_lone_misreads_unknown`], and
    /// the starting board's [`Tracker::one_alike_misread`]): (the face's pattern, the pattern
    /// read). Read so again under the same card, they are that misreading again, not a
    /// change on the table.
    misread_alike: HashMap<LatticePos, (char, char)>,
    /// Where the last settled photo showed each centre of the table.
    last_px: HashMap<LatticePos, [f32; 2]>,
    /// The last settled photo, where it left new centres unnamed.
    unnamed_before: Option<UnnamedBefore>,
    /// The first photo whose new cards were too many to find the starting board among, with
    /// how many it showed: while no starting board is named, no later card can be.
    start_crowded: Option<(usize, usize)>,
    /// The cards of one deck the table starts with: the starting board's three, or a Not My
    /// Stack! location's one.
    start_cards: usize,
    /// Whether no player plays the starting cards' deck, so that a first photo shows it as
    /// the one deck of `start_cards` cards: true of the starting board's, not of a Not My
    /// Stack! location's card, whose owner plays that deck on the other locations.
    start_deck_unplayed: bool,
}

/// Cards one player may lay before another's first that are not yet doubted: all start at
/// once, and a player whose cards fit nowhere waits a few turns.
const LATE_FIRST_CARD: usize = 5;

/// A doubt about a card from squares seen only in the photo it was laid in.
#[derive(Clone, Debug)]
struct PendingDoubt {
    card: usize,
    /// The card's centre.
    centre: LatticePos,
    frame: usize,
    squares: Vec<LatticePos>,
    text: String,
}

/// A photo that showed new centres it could not name, as read: a later photo that names them
/// with other cards shows which came first ([`Tracker::keep_orders_seen`]).
#[derive(Clone)]
struct UnnamedBefore {
    /// How many cards the table had after it.
    cards: usize,
    unnamed: Vec<LatticePos>,
    squares: HashMap<LatticePos, char>,
}

/// Cards taken back off the table, with the doubts raised since.
struct TakenBack {
    cards: Vec<TrackedCard>,
    doubts: Vec<String>,
    pending: Vec<PendingDoubt>,
    unsure_contacts: Vec<usize>,
    unsure_verdicts: Vec<usize>,
    beside_unnamed: Vec<(usize, LatticePos)>,
}

/// A reading moved onto the table's lattice.
struct View {
    squares: HashMap<LatticePos, char>,
    centres: Vec<LatticePos>,
    /// Each centre's symbol group (alike symbols, so one deck).
    groups: HashMap<LatticePos, usize>,
}

impl View {
    fn at(&self, pos: LatticePos) -> char {
        self.squares.get(&pos).copied().unwrap_or(TABLE)
    }
}

/// The table's visible squares, for quick lookups.
struct TopMap {
    origin: LatticePos,
    rows: Vec<Vec<char>>,
}

impl TopMap {
    fn of(board: &Board) -> TopMap {
        match board.picture() {
            Some((origin, rows)) => TopMap {
                origin,
                rows: rows.iter().map(|r| r.chars().collect()).collect(),
            },
            None => TopMap {
                origin: LatticePos::default(),
                rows: Vec::new(),
            },
        }
    }

    fn at(&self, p: LatticePos) -> char {
        let (r, c) = (p.row - self.origin.row, p.col - self.origin.col);
        if r < 0 || c < 0 {
            return TABLE;
        }
        self.rows
            .get(r as usize)
            .and_then(|row| row.get(c as usize))
            .copied()
            .unwrap_or(TABLE)
    }
}

/// `pos` turned by `q` quarter-turns about the origin, then shifted by `shift`.
fn transform(pos: LatticePos, q: u8, shift: LatticePos) -> LatticePos {
    let (r, c) = (pos.row, pos.col);
    let (r, c) = match q % 4 {
        0 => (r, c),
        1 => (c, -r),
        2 => (-r, -c),
        _ => (-c, r),
    };
    LatticePos::new(r + shift.row, c + shift.col)
}

pub(super) fn block(centre: LatticePos) -> [LatticePos; 9] {
    std::array::from_fn(|i| centre.offset(i as i32 / 3 - 1, i as i32 % 3 - 1))
}

impl<'a> Tracker<'a> {
    /// A tracker for an empty table of `side` under the given placement rules.
    pub fn new(set: &'a CamouflageSet, side: SideIdx, rules: PlacementRules) -> Tracker<'a> {
        let mut faces = Vec::with_capacity(set.cards().len() * 4);
        for (i, _) in set.cards().iter().enumerate() {
            let card = CardIdx(i as u16);
            let face = set.face(card, side);
            for turn in Turn::ALL {
                let squares =
                    std::array::from_fn(|k| face.square(turn, Pos::new(k / 3, k % 3)).char());
                faces.push((card, turn, squares));
            }
        }
        Tracker {
            set,
            side,
            board: Board::new(side, rules),
            cards: Vec::new(),
            used: vec![false; set.cards().len()],
            frames: Vec::new(),
            doubts: Vec::new(),
            tentative: None,
            unsure_top: HashSet::new(),
            unsure_contacts: Vec::new(),
            unsure_verdicts: Vec::new(),
            beside_unnamed: Vec::new(),
            withdrawn: Vec::new(),
            ghosts: BTreeMap::new(),
            confirmed: HashMap::new(),
            last_bare: HashMap::new(),
            pending: Vec::new(),
            faces,
            alike_colours: alike_colours(set.side(side)),
            misread_alike: HashMap::new(),
            last_px: HashMap::new(),
            unnamed_before: None,
            start_crowded: None,
            start_cards: 3,
            start_deck_unplayed: true,
        }
    }

    /// A tracker for one Not My Stack! location: its table starts with one card, its owner's.
    pub fn for_location(
        set: &'a CamouflageSet,
        side: SideIdx,
        rules: PlacementRules,
    ) -> Tracker<'a> {
        Tracker {
            start_cards: 1,
            start_deck_unplayed: false,
            ..Tracker::new(set, side, rules)
        }
    }

    /// The table as known so far.
    pub fn board(&self) -> &Board {
        &self.board
    }

    /// Records a reading that could not be made at all (no board found in the photo).
    pub fn skip(&mut self, reason: String) -> &FrameOutcome {
        self.frames.push(FrameOutcome::Skipped { reason });
        self.frames.last().expect("just pushed")
    }

    /// How many readings it has been given (observed or skipped).
    pub fn frames_seen(&self) -> usize {
        self.frames.len()
    }

    /// How many of the cards laid so far (the first of [`Replay::cards`]) no later reading can
    /// take back: all but those new in the last reading no reading after has agreed with.
    pub fn confirmed(&self) -> usize {
        match self.tentative {
            Some((frame, _)) => self.cards.iter().take_while(|c| c.frame < frame).count(),
            None => self.cards.len(),
        }
    }

    /// Explains the next reading against the table and lays the cards new in it.
    ///
    /// Cards new in a reading stay tentative until a later reading agrees with them. When
    /// the next reading cannot be explained with them but can without them, they were a
    /// misreading: they are taken back and that earlier reading is marked skipped.
    pub fn observe(&mut self, reading: &CamouflageReading) -> &FrameOutcome {
        let frame = self.frames.len();
        let doubts_before = self.doubts.len();
        let outcome = match self.explain(reading, frame) {
            Ok(o) => o,
            Err(reason) => match self.tentative {
                Some((earlier, earlier_doubts)) => {
                    let taken = self.take_back(earlier, earlier_doubts);
                    let (ghosts, doubts) = (self.ghosts.clone(), self.doubts.len());
                    match self.explain(reading, frame) {
                        // Only a reading that shows other cards instead takes them back.
                        Ok(o) if o.laid_any() => {
                            self.withdrawn
                                .extend(taken.cards.iter().map(|c| (c.placement, c.frame)));
                            self.frames[earlier] = FrameOutcome::Skipped {
                                reason: format!(
                                    "the cards it seemed to show were not seen in photo {}",
                                    frame + 1
                                ),
                            };
                            o
                        }
                        _ => {
                            self.ghosts = ghosts;
                            self.doubts.truncate(doubts);
                            self.put_back(taken);
                            FrameOutcome::Skipped { reason }
                        }
                    }
                }
                None => FrameOutcome::Skipped { reason },
            },
        };
        if let FrameOutcome::Settled { laid, .. } = &outcome {
            self.tentative = (!laid.is_empty()).then_some((frame, doubts_before));
        }
        self.frames.push(outcome);
        self.frames.last().expect("just pushed")
    }

    /// Takes the cards first named in reading `frame` off the table, with the doubts raised
    /// since; returns them to be put back.
    fn take_back(&mut self, frame: usize, doubts: usize) -> TakenBack {
        let mut cards = Vec::new();
        while self.cards.last().is_some_and(|c| c.frame == frame) {
            if let Some(c) = self.cards.pop() {
                self.board.pop();
                self.used[c.placement.card.0 as usize] = false;
                cards.push(c);
            }
        }
        cards.reverse();
        self.tentative = None;
        let kept = self.cards.len();
        let (pending, still): (Vec<_>, Vec<_>) =
            self.pending.drain(..).partition(|d| d.card >= kept);
        self.pending = still;
        let (unsure_contacts, still): (Vec<_>, Vec<_>) =
            self.unsure_contacts.drain(..).partition(|&k| k >= kept);
        self.unsure_contacts = still;
        let (unsure_verdicts, still): (Vec<_>, Vec<_>) =
            self.unsure_verdicts.drain(..).partition(|&k| k >= kept);
        self.unsure_verdicts = still;
        let (beside_unnamed, still): (Vec<_>, Vec<_>) =
            self.beside_unnamed.drain(..).partition(|&(k, _)| k >= kept);
        self.beside_unnamed = still;
        TakenBack {
            cards,
            doubts: self.doubts.split_off(doubts.min(self.doubts.len())),
            pending,
            unsure_contacts,
            unsure_verdicts,
            beside_unnamed,
        }
    }

    fn put_back(&mut self, taken: TakenBack) {
        if let Some(first) = taken.cards.first() {
            self.tentative = Some((first.frame, self.doubts.len()));
        }
        for c in taken.cards {
            self.board.place(self.set, c.placement);
            self.used[c.placement.card.0 as usize] = true;
            self.cards.push(c);
        }
        self.doubts.extend(taken.doubts);
        self.pending.extend(taken.pending);
        self.unsure_contacts.extend(taken.unsure_contacts);
        self.unsure_verdicts.extend(taken.unsure_verdicts);
        self.beside_unnamed.extend(taken.beside_unnamed);
    }

    /// The replay so far, with what keeps the last reading from vouching for the whole table.
    pub fn finish(self) -> Replay {
        let mut doubts = self.doubts;
        for d in &self.pending {
            // Beside the card, only bare table clears a square: a card whose centre was
            // missed stays there, or is covered and never seen as table again. Bare table in
            // the photo the card was laid in or any later one clears it, though later cards
            // cover it: a card does not leave, so what showed there before was over the
            // table (a hand).
            let cleared = d.squares.iter().all(|q| {
                self.last_bare.get(q).is_some_and(|&f| f >= d.frame)
                    || self
                        .confirmed
                        .get(q)
                        .is_some_and(|&f| f > d.frame && q.within_one(d.centre))
            });
            if !cleared {
                doubts.push(d.text.clone());
            }
        }
        // With no starting board named, no later card could be: every centre and square of
        // card is left unexplained for that one reason, said instead.
        let crowded_out = self.start_crowded.filter(|_| self.cards.is_empty());
        if let Some((frame, new)) = crowded_out {
            let start = if self.start_cards == 1 {
                "the first card".to_string()
            } else {
                format!(
                    "the starting board ({} cards of one deck)",
                    self.start_cards
                )
            };
            doubts.push(format!(
                "{start} was never named: no photo before photo {} let its cards be named, \
                 and from that photo on too many cards were new, or fitted too many faces, \
                 to find it among ({new} new in photo {}); begin with a photo of it alone, \
                 in focus, with nothing over it",
                frame + 1,
                frame + 1,
            ));
        }
        // Squares that still look like a card no card found explains: a card missed.
        let left: Vec<LatticePos> = self.ghosts.keys().copied().collect();
        if !left.is_empty() && crowded_out.is_none() {
            doubts.push(format!(
                "square{} {} still look{} like a card that no card found explains: a card \
                 whose centre was never seen; retake the photos with every centre in view",
                if left.len() == 1 { "" } else { "s" },
                list(&left[..left.len().min(6)]),
                if left.len() == 1 { "s" } else { "" }
            ));
        }
        match self.frames.last() {
            None => doubts.push("no photo was given".into()),
            Some(FrameOutcome::Skipped { reason }) => doubts.push(format!(
                "the last photo was not used ({reason}): take one more photo of the final \
                 table with nothing over it"
            )),
            Some(FrameOutcome::Settled {
                unexplained,
                misread,
                ..
            }) => {
                if !unexplained.is_empty() && crowded_out.is_none() {
                    doubts.push(format!(
                        "the last photo shows {} centre{} no card of the set explains, at {}: \
                         retake it in focus with nothing over the cards",
                        unexplained.len(),
                        if unexplained.len() == 1 { "" } else { "s" },
                        list(unexplained)
                    ));
                }
                // A square the photos before read as its top card shows, once that card
                // was laid, is that card's: cards do not change, so the last photo misread it.
                let vouched = |q: &LatticePos| {
                    let laid = self.board.top(*q).and_then(|(k, _)| self.cards.get(k));
                    laid.is_some_and(|card| self.confirmed.get(q).is_some_and(|&f| f >= card.frame))
                };
                let misread: Vec<LatticePos> =
                    misread.iter().copied().filter(|q| !vouched(q)).collect();
                if !misread.is_empty() {
                    doubts.push(format!(
                        "in the last photo {} square{} differ from the cards laid, at {}",
                        misread.len(),
                        if misread.len() == 1 { "" } else { "s" },
                        list(&misread)
                    ));
                }
            }
        }
        if self.cards.is_empty() && crowded_out.is_none() {
            doubts.push("no card was recognised in any photo".into());
        }
        // A centre left unnamed that the last photo no longer shows was no card (cards do not
        // leave); one still there unnamed may lie under the cards beside it.
        let still_unnamed = |c: LatticePos| match self.frames.last() {
            Some(FrameOutcome::Settled { unexplained, .. }) => unexplained.contains(&c),
            _ => !self.cards.iter().any(|t| t.placement.centre == c),
        };
        let mut unsure_verdicts = self.unsure_verdicts;
        unsure_verdicts.extend(
            self.beside_unnamed
                .iter()
                .filter(|&&(_, c)| still_unnamed(c))
                .map(|&(k, _)| k),
        );
        unsure_verdicts.sort_unstable();
        unsure_verdicts.dedup();
        // A card found after cards laid over it goes under them, in the photo that showed
        // it there first; never under the starting cards, which were laid before any play
        // (squares seen before they were named are theirs).
        let start_frame = self
            .cards
            .get(self.start_cards.saturating_sub(1))
            .map_or(0, |c| c.frame);
        let mut order: Vec<usize> = (0..self.cards.len()).collect();
        order.sort_by_key(|&k| {
            let c = &self.cards[k];
            (c.there_since.unwrap_or(c.frame).max(start_frame), k)
        });
        let mut moved_to = vec![0; order.len()];
        for (to, &from) in order.iter().enumerate() {
            moved_to[from] = to;
        }
        let mut frames = self.frames;
        for f in &mut frames {
            if let FrameOutcome::Settled { laid, .. } = f {
                for k in laid.iter_mut() {
                    *k = moved_to[*k];
                }
            }
        }
        Replay {
            cards: order.iter().map(|&k| self.cards[k]).collect(),
            frames,
            doubts,
            unsure_contacts: self.unsure_contacts.iter().map(|&k| moved_to[k]).collect(),
            unsure_verdicts: unsure_verdicts.iter().map(|&k| moved_to[k]).collect(),
        }
    }

    fn explain(
        &mut self,
        reading: &CamouflageReading,
        frame: usize,
    ) -> Result<FrameOutcome, String> {
        let view = self.register(reading)?;
        let top = TopMap::of(&self.board);
        let known_centres = self.visible_centres(&top);
        let known: HashSet<LatticePos> = known_centres.iter().copied().collect();

        // New centres, and known centres whose surroundings changed: a card laid right on
        // top of another's centre shows no new centre. Changes that a new card beside it
        // may have made (its squares over the known card's edge) do not count: a face that
        // happens to fit the rest would otherwise be taken for a card laid on top.
        let mut new: Vec<LatticePos> = view
            .centres
            .iter()
            .copied()
            .filter(|c| !known.contains(c))
            .collect();
        let beside_new = |p: LatticePos, new: &[LatticePos]| new.iter().any(|&n| n.within_one(p));
        let mut covered_over: Vec<LatticePos> = Vec::new();
        for &c in &known_centres {
            let changed: Vec<LatticePos> = block(c)
                .into_iter()
                .filter(|&p| p != c && differs(top.at(p), view.at(p)))
                .collect();
            if changed.len() >= 3
                && changed.iter().any(|&p| !beside_new(p, &new))
                && view.at(c) == CENTRE_CHAR
            {
                covered_over.push(c);
            }
        }
        new.extend(covered_over);

        for &c in &known_centres {
            let seen = view.at(c);
            // The reader may miss a centre whose card is plainly there: its squares as laid.
            let around: Vec<char> = block(c)
                .iter()
                .filter(|&&p| p != c)
                .map(|&p| view.at(p))
                .collect();
            let agree = block(c)
                .iter()
                .filter(|&&p| p != c && view.at(p) == top.at(p))
                .count();
            let still_there = agree >= MIN_AGREEING_AROUND_MISSED
                && around.iter().all(|&ch| ch != TABLE)
                && block(c)
                    .iter()
                    .all(|&p| p == c || !differs(top.at(p), view.at(p)));
            if seen != CENTRE_CHAR && !still_there && !new.iter().any(|&n| n.within_one(c)) {
                return Err(format!(
                    "the centre of the card at {c} is not seen: a hand or something else over \
                     the table"
                ));
            }
        }
        let mut misread: Vec<LatticePos> = view
            .squares
            .iter()
            .filter(|&(&p, &seen)| {
                differs(top.at(p), seen)
                    && !new.iter().any(|&n| n.within_one(p))
                    && self.misread_alike.get(&p) != Some(&(top.at(p), seen))
            })
            .map(|(&p, _)| p)
            .collect();
        // Cards the table knows but the reading lost entirely.
        for placed in self.board.placed() {
            for p in placed.placement.squares() {
                if top.at(p) != TABLE
                    && !view.squares.contains_key(&p)
                    && !new.iter().any(|&n| n.within_one(p))
                {
                    misread.push(p);
                }
            }
        }
        misread.sort();
        misread.dedup();
        if misread.len() > MISREAD_TOLERANCE {
            return Err(format!(
                "{} squares look different from the cards laid, away from any new card ({}): \
                 a hand or something else over the table, or a card moved",
                misread.len(),
                list(&misread[..misread.len().min(6)])
            ));
        }

        self.note_orphans(&view, frame);
        let view = self.with_lone_misreads_unknown(view, &new);
        let (laid, unexplained) = self.name_and_lay(&view, &new, frame);
        self.unnamed_before = (!unexplained.is_empty()).then(|| UnnamedBefore {
            cards: self.cards.len(),
            unnamed: unexplained.clone(),
            squares: view.squares.clone(),
        });
        self.note_ghosts(&view, frame);
        for (c, &at) in reading.centres.iter().zip(&view.centres) {
            self.last_px.insert(at, c.px);
        }
        Ok(FrameOutcome::Settled {
            laid,
            unexplained,
            misread,
        })
    }

    /// The centres of the cards laid that nothing covers.
    fn visible_centres(&self, top: &TopMap) -> Vec<LatticePos> {
        self.board
            .placed()
            .iter()
            .map(|p| p.placement.centre)
            .filter(|&c| top.at(c) == CENTRE_CHAR)
            .collect()
    }

    /// How far, in squares, the reading's centres lie from where the last settled photo showed
    /// the known centres they are taken for under `to_table` (the mean over those it shows);
    /// `None` when it shows none.
    fn photo_distance(
        &self,
        reading: &CamouflageReading,
        to_table: impl Fn(LatticePos) -> LatticePos,
    ) -> Option<f32> {
        // A square's side in the photo, at the first centre.
        let (lattice, first) = (reading.lattice.as_ref()?, reading.centres.first()?);
        let (c, r) = (first.col as f32, first.row as f32);
        let (a, b) = (lattice.to_photo([c, r])?, lattice.to_photo([c + 1.0, r])?);
        let square = (a[0] - b[0]).hypot(a[1] - b[1]).max(1.0);
        let d: Vec<f32> = reading
            .centres
            .iter()
            .filter_map(|c| {
                let was = self.last_px.get(&to_table(LatticePos::new(c.row, c.col)))?;
                Some((was[0] - c.px[0]).hypot(was[1] - c.px[1]) / square)
            })
            .collect();
        (!d.is_empty()).then(|| d.iter().sum::<f32>() / d.len() as f32)
    }

    /// Moves the reading onto the table's lattice: the quarter-turn and shift under which most
    /// squares agree with the table (the first reading defines the lattice).
    fn register(&self, reading: &CamouflageReading) -> Result<View, String> {
        let squares: Vec<(LatticePos, char)> = reading
            .squares
            .iter()
            .chain(&reading.beyond)
            .map(|s| (LatticePos::new(s.row, s.col), s.kind.char()))
            .chain(reading.table_ring.iter().map(|&p| (p, TABLE)))
            .collect();
        let centres: Vec<(LatticePos, usize)> = reading
            .centres
            .iter()
            .map(|c| (LatticePos::new(c.row, c.col), c.symbol_group))
            .collect();
        let make = |q: u8, shift: LatticePos| View {
            squares: squares
                .iter()
                .map(|&(p, ch)| (transform(p, q, shift), ch))
                .collect(),
            centres: centres
                .iter()
                .map(|&(p, _)| transform(p, q, shift))
                .collect(),
            groups: centres
                .iter()
                .map(|&(p, g)| (transform(p, q, shift), g))
                .collect(),
        };
        if self.board.is_empty() {
            return Ok(make(0, LatticePos::default()));
        }
        let top = TopMap::of(&self.board);
        let known = self.visible_centres(&top);
        let mut tried = HashSet::new();
        let mut scores: Vec<(i32, u8, LatticePos)> = Vec::new();
        for q in 0..4u8 {
            for &(rc, _) in &centres {
                let turned = transform(rc, q, LatticePos::default());
                for &kc in &known {
                    let shift = LatticePos::new(kc.row - turned.row, kc.col - turned.col);
                    if !tried.insert((q, shift)) {
                        continue;
                    }
                    let score: i32 = squares
                        .iter()
                        .map(|&(p, seen)| {
                            let expected = top.at(transform(p, q, shift));
                            match (expected, seen) {
                                (_, UNKNOWN) | (TABLE, _) => 0,
                                (e, s) if e == s => 1,
                                _ => -1,
                            }
                        })
                        .sum();
                    scores.push((score, q, shift));
                }
            }
        }
        scores.sort_by_key(|s| std::cmp::Reverse(s.0));
        let Some(&(best, q, shift)) = scores.first() else {
            return Err("no card centre to register the photo on the table by".into());
        };
        let second = scores.get(1).map_or(i32::MIN, |s| s.0);
        if best > 0 && best.saturating_sub(second) < REGISTRATION_MARGIN {
            // Squares alone do not tell (a table of one or two cards, a card laid on them):
            // the camera keeps still between photos, so the known centres lie where the last
            // photo showed them.
            let near = scores
                .iter()
                .filter(|s| s.0 > 0 && best - s.0 < REGISTRATION_MARGIN)
                .filter_map(|&(_, q, shift)| {
                    self.photo_distance(reading, |p| transform(p, q, shift))
                        .map(|d| (d, q, shift))
                })
                .min_by(|a, b| a.0.total_cmp(&b.0));
            if let Some((_, q, shift)) = near.filter(|n| n.0 < 0.25) {
                return Ok(make(q, shift));
            }
        }
        if best <= 0 || best.saturating_sub(second) < REGISTRATION_MARGIN {
            return Err(
                "the cards in this photo cannot be matched with the table seen before: \
                 too few squares agree (a moved camera, a hand, or a different table)"
                    .into(),
            );
        }
        Ok(make(q, shift))
    }

    /// Names the new centres: each one's candidates are the faces agreeing with its clear
    /// squares that no other new card may cover; then every choice of candidates and every
    /// order of laying them is tried against the whole picture. Centres named alike by every
    /// solution are laid (in the first solution's order); the rest stay unexplained.
    ///
    /// The starting board lies in every photo from the first, and a square of it under glare
    /// or in shadow may read as a pattern near its own in every one. Where no starting board
    /// is laid from the photo as read, the naming is tried again with one such square taken
    /// for misread ([`Tracker::one_alike_misread`]). Only then: the faces it lets in crowd
    /// the candidates of photos that need none (seed 4's game 169 lost its starting board
    /// so, docs/ACCURACY.md).
    fn name_and_lay(
        &mut self,
        view: &View,
        new: &[LatticePos],
        frame: usize,
    ) -> (Vec<usize>, Vec<LatticePos>) {
        let named = self.name_and_lay_reading(view, new, frame, false);
        if self.board.is_empty() && named.0.is_empty() {
            // Naming no starting board changes nothing in the tracker.
            return self.name_and_lay_reading(view, new, frame, true);
        }
        named
    }

    /// [`Tracker::name_and_lay`], with one square of a starting board taken for misread
    /// where `start_misread`.
    fn name_and_lay_reading(
        &mut self,
        view: &View,
        new: &[LatticePos],
        frame: usize,
        start_misread: bool,
    ) -> (Vec<usize>, Vec<LatticePos>) {
        let first_board = self.board.is_empty();
        let one_misread = first_board && start_misread;
        // A centre no face fits even where its neighbours may lie on it is no card that could
        // hide squares of the others (a misread card or a pattern on the table): the others
        // are then named without it.
        let fits = |centre: LatticePos, among: &[LatticePos]| {
            let others: Vec<LatticePos> = among.iter().copied().filter(|&o| o != centre).collect();
            self.candidates(view, centre, &others, one_misread)
        };
        let (cards, mut unexplained): (Vec<LatticePos>, Vec<LatticePos>) =
            new.iter().partition(|&&c| !fits(c, new).is_empty());
        let mut open: Vec<(LatticePos, Vec<Placement>)> = Vec::new();
        for &centre in &cards {
            let mut cands = fits(centre, &cards);
            if cands.len() > MAX_CANDIDATES {
                // Overlapping squares match in a legal game, so a card shows its face whole
                // whether it lies on top or under others: the faces that agree with every
                // square seen round it are the likely ones (the whole picture decides below).
                cands.retain(|p| self.agrees_all_round(view, p, one_misread));
            }
            if cands.is_empty() || cands.len() > MAX_CANDIDATES {
                unexplained.push(centre);
            } else {
                open.push((centre, cands));
            }
        }
        let combinations: usize = open.iter().map(|(_, c)| c.len()).product();
        // New cards laid on the starting board, where it is named among more than can be
        // ordered: named in the next photo, as cards new there.
        let mut later: Vec<LatticePos> = Vec::new();
        if first_board && (open.len() > MAX_ORDERED || combinations > MAX_COMBINATIONS) {
            let Some(start) = self.starting_board_among(&open, unexplained.len()) else {
                // Too many cards to find the starting board among: wait for a photo that
                // shows it alone.
                self.start_crowded.get_or_insert((frame, new.len()));
                unexplained.extend(open.iter().map(|(p, _)| *p));
                return (Vec::new(), unexplained);
            };
            later = open
                .iter()
                .map(|(p, _)| *p)
                .filter(|p| start.iter().all(|(q, _)| q != p))
                .collect();
            open = start;
        }
        if !first_board && (open.len() > MAX_ORDERED || combinations > MAX_COMBINATIONS) {
            // Too many to try every order: lay those named for sure, in reading order.
            self.doubts.push(format!(
                "{} new cards in photo {}: their order is not checked; take a photo after \
                 each card",
                open.len(),
                frame + 1
            ));
            let sure: Vec<Placement> = open
                .iter()
                .filter(|(_, c)| c.len() == 1)
                .map(|(_, c)| c[0])
                .collect();
            unexplained.extend(open.iter().filter(|(_, c)| c.len() > 1).map(|(p, _)| *p));
            let laid = self.lay(&sure, frame, HashSet::new());
            self.unsure_verdicts.extend(&laid);
            return (laid, unexplained);
        }
        // Centres no face was chosen for: they may be of any deck, as may those set aside.
        let unnamed = unexplained.len();
        unexplained.extend(&later);
        let wild: HashSet<LatticePos> = unexplained.iter().flat_map(|&c| block(c)).collect();
        let mut solutions: Vec<Vec<Placement>> = Vec::new();
        // Orders that show the photo but for one square read as a pattern near the face's in
        // colour, with that square, its pattern and the pattern read.
        let mut all_but_one: Vec<(Vec<Placement>, (LatticePos, char, char))> = Vec::new();
        let mut choice = vec![0usize; open.len()];
        loop {
            let chosen: Vec<Placement> =
                open.iter().zip(&choice).map(|((_, c), &k)| c[k]).collect();
            let distinct = chosen
                .iter()
                .enumerate()
                .all(|(i, p)| chosen[..i].iter().all(|q| q.card != p.card));
            if distinct {
                permutations(chosen.len(), &mut |perm| {
                    let order: Vec<Placement> = perm.iter().map(|&i| chosen[i]).collect();
                    if self.shows(&order, view, &wild) {
                        solutions.push(order);
                    } else if one_misread {
                        if let Some(misread) = self.one_alike_misread(&order, view, &wild) {
                            all_but_one.push((order, misread));
                        }
                    }
                });
            }
            // The next choice, like an odometer.
            let mut i = 0;
            while i < choice.len() {
                choice[i] += 1;
                if choice[i] < open[i].1.len() {
                    break;
                }
                choice[i] = 0;
                i += 1;
            }
            if i == choice.len() {
                break;
            }
        }
        // Taking a square for misread, the orders that show all the rest name the starting
        // board, when they agree on the one square.
        let mut misread_square = None;
        if solutions.is_empty() {
            // Only orders that hold a whole starting board, of one deck.
            all_but_one.retain(|(order, _)| {
                order.iter().any(|p| {
                    let deck = self.set.card(p.card).deck;
                    order
                        .iter()
                        .filter(|q| self.set.card(q.card).deck == deck)
                        .count()
                        >= self.start_cards
                })
            });
            if let Some(&(_, misread)) = all_but_one.first() {
                if all_but_one.iter().all(|(_, m)| m.0 == misread.0) {
                    misread_square = Some(misread);
                    solutions = all_but_one.into_iter().map(|(o, _)| o).collect();
                }
            }
        }
        self.keep_likely_decks(&mut solutions, view);
        self.keep_orders_seen(&mut solutions);
        let Some(first) = solutions.first().cloned() else {
            unexplained.extend(open.iter().map(|(p, _)| *p));
            return (Vec::new(), unexplained);
        };
        // A centre is named only when every solution names it alike.
        let face = |p: &Placement| self.face_squares(p);
        let sure: Vec<Placement> = first
            .iter()
            .copied()
            .filter(|p| {
                solutions.iter().all(|s| {
                    s.iter()
                        .any(|q| q.centre == p.centre && q.card == p.card && face(q) == face(p))
                })
            })
            .collect();
        unexplained.extend(first.iter().filter(|p| !sure.contains(p)).map(|p| p.centre));
        // Orders the photo cannot tell apart must judge the cards alike.
        let start_deck = first_board.then(|| self.set.card(first[0].card).deck);
        if first_board
            && (sure
                .iter()
                .filter(|p| Some(self.set.card(p.card).deck) == start_deck)
                .count()
                < self.start_cards
                || start_deck.is_some_and(|d| !self.start_deck_is_sure(d, &open, unnamed)))
        {
            // Not the whole starting board yet: wait for a photo that shows it.
            unexplained.extend(sure.iter().map(|p| p.centre));
            return (Vec::new(), unexplained);
        }
        // Each card's legality and the squares it covers. Which cards it touches is left
        // out: where the order changes that, the card lies on squares whose top card is not
        // sure (`unsure_top`, below), which doubts the replay where contacts score.
        let judged = |order: &[Placement]| {
            let mut board = self.board.clone();
            let mut out: Vec<(CardIdx, bool, u8)> = order
                .iter()
                .filter(|p| sure.iter().any(|q| q.centre == p.centre))
                .map(|&p| {
                    let placed = board.place(self.set, p);
                    // The starting board scores nothing (and is laid in a legal order).
                    if Some(self.set.card(p.card).deck) == start_deck {
                        (p.card, true, 0)
                    } else {
                        (p.card, placed.is_legal(), placed.covered_squares())
                    }
                })
                .collect();
            out.sort();
            out
        };
        if first_board {
            // The starting board was laid by the rules before play: of the orders the photo
            // allows, only those that lay it legally (when there are any).
            let start_legal = |o: &[Placement]| {
                let mut board = self.board.clone();
                o[..self.start_cards.min(o.len())]
                    .iter()
                    .all(|&p| board.place(self.set, p).is_legal())
            };
            if solutions.iter().any(|o| start_legal(o)) {
                solutions.retain(|o| start_legal(o));
            }
        }
        let order = solutions[0].clone();
        let verdict = judged(&order);
        // Where two of these cards overlap and the photo allows either on top, the pattern
        // there is sure but not which card shows it: the cards a later card touches there
        // are not known.
        let mut either_way: HashSet<LatticePos> = HashSet::new();
        for (i, a) in order.iter().enumerate() {
            for b in &order[i + 1..] {
                let b_first = solutions.iter().any(|o| {
                    let pos = |p: &Placement| o.iter().position(|q| q.centre == p.centre);
                    pos(b) < pos(a)
                });
                if b_first {
                    let under_b: HashSet<LatticePos> = b.squares().into_iter().collect();
                    either_way.extend(a.squares().into_iter().filter(|q| under_b.contains(q)));
                }
            }
        }
        // The cards whose own verdict differs between the orders.
        let mut unsure: HashSet<CardIdx> = HashSet::new();
        for other in solutions.iter().map(|o| judged(o)) {
            unsure.extend(
                verdict
                    .iter()
                    .filter(|v| !other.contains(v))
                    .map(|&(card, _, _)| card),
            );
        }
        if !unsure.is_empty() {
            let at: Vec<LatticePos> = sure.iter().map(|p| p.centre).collect();
            self.doubts.push(format!(
                "the cards at {} were laid between two photos, and the order they were laid \
                 in, which photo {} does not show, changes the verdict: take a photo after \
                 each card",
                list(&at),
                frame + 1
            ));
        }
        let order: Vec<Placement> = order.into_iter().filter(|p| sure.contains(p)).collect();
        if !first_board {
            self.doubt_late_first_cards(&order, &verdict, frame);
        }
        if let Some((at, face, seen)) = misread_square {
            self.misread_alike.insert(at, (face, seen));
        }
        let laid = self.lay(&order, frame, either_way);
        self.unsure_verdicts.extend(
            laid.iter()
                .filter(|&&k| unsure.contains(&self.cards[k].placement.card)),
        );
        for &k in &laid {
            let squares = self.cards[k].placement.squares();
            self.beside_unnamed.extend(
                unexplained
                    .iter()
                    .filter(|&&c| block(c).iter().any(|q| squares.contains(q)))
                    .map(|&c| (k, c)),
            );
        }
        (laid, unexplained)
    }

    /// Doubts the cards of `order` judged illegal (in `verdict`: card, legal, squares
    /// covered) that are the first of their deck when another player has laid
    /// [`LATE_FIRST_CARD`] cards already. A player whose cards fit nowhere may wait that long,
    /// but a first card so late that also breaks the rules is more likely a mark beside the
    /// cards taken for a centre (a cloth's check framed by the card just laid beside it: seed
    /// 4's game 95, where it made that card illegal too).
    fn doubt_late_first_cards(
        &mut self,
        order: &[Placement],
        verdict: &[(CardIdx, bool, u8)],
        frame: usize,
    ) {
        let deck = |p: &Placement| self.set.card(p.card).deck;
        let mut laid: HashMap<DeckIdx, usize> = HashMap::new();
        for c in &self.cards[self.start_cards.min(self.cards.len())..] {
            *laid.entry(deck(&c.placement)).or_default() += 1;
        }
        let most = laid.values().copied().max().unwrap_or(0);
        let start_deck = self.cards.first().map(|c| deck(&c.placement));
        for p in order {
            let illegal = verdict.iter().any(|&(c, legal, _)| c == p.card && !legal);
            if illegal
                && most >= LATE_FIRST_CARD
                && !laid.contains_key(&deck(p))
                && Some(deck(p)) != start_deck
            {
                self.doubts.push(format!(
                    "card {} at {}, found in photo {} and judged illegal, is the first of its \
                     deck, after another player had laid {most} cards: a mark beside the cards \
                     taken for a card's centre, or a player who had not played yet; retake the \
                     photos with nothing but the cards near them",
                    self.set.card(p.card).id,
                    p.centre,
                    frame + 1,
                ));
            }
        }
    }

    /// Of the `solutions` (orders of the new cards), those the photo before shows, when there
    /// are any: where it showed a centre it could not name, with no card laid since, and
    /// showed another new card's block as the table was (its centre, no square otherwise,
    /// and bare table in [`BARE_SHOWING_NO_CARD`] of its squares), the first was laid before
    /// the other. Squares over cards tell nothing (a card laid legally shows their patterns
    /// there), nor those of the unnamed centres' blocks (that card changed them), nor a
    /// centre among them: a card laid over it first would have hidden it.
    fn keep_orders_seen(&self, solutions: &mut Vec<Vec<Placement>>) {
        let Some(before) = self
            .unnamed_before
            .as_ref()
            .filter(|b| b.cards == self.cards.len())
        else {
            return;
        };
        let top = TopMap::of(&self.board);
        let changed: HashSet<LatticePos> = before.unnamed.iter().flat_map(|&c| block(c)).collect();
        let not_yet_laid = |c: LatticePos| {
            if changed.contains(&c) || top.at(c) == CENTRE_CHAR {
                return false;
            }
            let mut bare = 0;
            for q in block(c)
                .into_iter()
                .filter(|q| *q != c && !changed.contains(q))
            {
                match before.squares.get(&q) {
                    Some(&seen) if seen == top.at(q) => bare += usize::from(seen == TABLE),
                    Some(&UNKNOWN) | None => {}
                    Some(_) => return false,
                }
            }
            before.squares.get(&c) == Some(&top.at(c)) && bare >= BARE_SHOWING_NO_CARD
        };
        let seen_first = |o: &[Placement]| {
            o.iter().enumerate().all(|(i, later)| {
                !not_yet_laid(later.centre)
                    || !o[i + 1..]
                        .iter()
                        .any(|p| before.unnamed.contains(&p.centre))
            })
        };
        if solutions.iter().any(|o| seen_first(o)) {
            solutions.retain(|o| seen_first(o));
        }
    }

    /// Whether the starting board's deck is surely `start`: no other deck can have
    /// `start_cards` of the new centres, counting those `open` may name of it and the
    /// `unnamed` ones, which may be of any deck. The starting board's deck is played by no
    /// one, so its cards are the only `start_cards` of one deck until a player has laid as
    /// many; a starting card left unnamed may otherwise leave three of a player's cards
    /// taken for the starting board. Always true where the deck may be played too
    /// (`start_deck_unplayed`): the card lying under the others is taken for the starting
    /// one there ([`Tracker::keep_likely_decks`]).
    fn start_deck_is_sure(
        &self,
        start: DeckIdx,
        open: &[(LatticePos, Vec<Placement>)],
        unnamed: usize,
    ) -> bool {
        if !self.start_deck_unplayed {
            return true;
        }
        let deck = |p: &Placement| self.set.card(p.card).deck;
        let k = self.start_cards;
        unnamed < k
            && open.iter().flat_map(|(_, c)| c.iter().map(deck)).all(|d| {
                d == start
                    || open
                        .iter()
                        .filter(|(_, c)| c.iter().any(|p| deck(p) == d))
                        .count()
                        + unnamed
                        < k
            })
    }

    /// The starting board among more new cards than can be ordered (the photos that showed it
    /// with fewer cards on it misread): the centres that faces of one deck fit, each with
    /// those faces only, where that deck fits exactly as many centres as the board has cards
    /// and no other deck fits so many. No player plays the starting deck, so its cards are
    /// those. Only where every new centre is named: an unnamed one could be the board's, and
    /// another deck's face fitting one of the three a misreading.
    fn starting_board_among(
        &self,
        open: &[(LatticePos, Vec<Placement>)],
        unnamed: usize,
    ) -> Option<Vec<(LatticePos, Vec<Placement>)>> {
        let k = self.start_cards;
        if !self.start_deck_unplayed || unnamed > 0 {
            return None;
        }
        let deck = |p: &Placement| self.set.card(p.card).deck;
        let fitting = |d: DeckIdx| {
            open.iter()
                .filter(|(_, c)| c.iter().any(|p| deck(p) == d))
                .count()
        };
        let decks: HashSet<DeckIdx> = open.iter().flat_map(|(_, c)| c.iter().map(deck)).collect();
        let mut starts = decks.into_iter().filter(|&d| fitting(d) >= k);
        let (Some(start), None) = (starts.next(), starts.next()) else {
            return None;
        };
        if fitting(start) != k {
            return None;
        }
        let board: Vec<(LatticePos, Vec<Placement>)> = open
            .iter()
            .filter_map(|(c, cands)| {
                let own: Vec<Placement> =
                    cands.iter().copied().filter(|p| deck(p) == start).collect();
                (!own.is_empty()).then_some((*c, own))
            })
            .collect();
        let combinations: usize = board.iter().map(|(_, c)| c.len()).product();
        (combinations <= MAX_COMBINATIONS).then_some(board)
    }

    /// Narrows the solutions by what decks tell. The starting board is three cards of one
    /// deck. Alike symbols mean one deck: when the reading's symbol groups agree with the
    /// decks of the cards already known, new cards must agree with them too. A narrowing
    /// that would leave nothing is not made.
    fn keep_likely_decks(&self, solutions: &mut Vec<Vec<Placement>>, view: &View) {
        let deck = |p: &Placement| self.set.card(p.card).deck;
        if self.board.is_empty() {
            // The starting cards, of one deck, lie under everything else.
            let k = self.start_cards;
            solutions.retain(|s| {
                s.len() >= k
                    && s[..k].iter().all(|p| deck(p) == deck(&s[0]))
                    && s[k..].iter().all(|p| deck(p) != deck(&s[0]))
            });
            return;
        }
        let mut group_deck: HashMap<usize, DeckIdx> = HashMap::new();
        let mut deck_group: HashMap<DeckIdx, usize> = HashMap::new();
        for placed in self.board.placed() {
            let Some(&g) = view.groups.get(&placed.placement.centre) else {
                continue;
            };
            let d = self.set.card(placed.placement.card).deck;
            if *group_deck.entry(g).or_insert(d) != d || *deck_group.entry(d).or_insert(g) != g {
                // The reader's groups do not follow the decks in this photo.
                return;
            }
        }
        let agrees = |p: &Placement| {
            let Some(g) = view.groups.get(&p.centre) else {
                return true;
            };
            match group_deck.get(g) {
                Some(&d) => d == deck(p),
                None => deck_group.get(&deck(p)).is_none_or(|&h| h == *g),
            }
        };
        let kept: Vec<Vec<Placement>> = solutions
            .iter()
            .filter(|s| s.iter().all(agrees))
            .cloned()
            .collect();
        if !kept.is_empty() {
            *solutions = kept;
        }
    }

    /// The faces (card and turn, one turn per distinct look) that agree with every clear
    /// square around `centre` that none of the `others` new cards may cover; but for one
    /// read as a pattern near the face's in colour where `one_alike` (a starting board's
    /// card: see [`Tracker::one_alike_misread`]).
    fn candidates(
        &self,
        view: &View,
        centre: LatticePos,
        others: &[LatticePos],
        one_alike: bool,
    ) -> Vec<Placement> {
        let squares = block(centre);
        if view.at(centre) != CENTRE_CHAR {
            return Vec::new();
        }
        // Squares another new card may lie on show this card or that one; a legal overlap
        // shows the same pattern either way, so they count when they agree but never refute.
        let open: Vec<bool> = (0..9)
            .map(|k| !others.iter().any(|&o| o.within_one(squares[k])))
            .collect();
        let on_top = open.iter().all(|&o| o);
        let needed = if on_top {
            TOP_CARD_ALONE
        } else {
            LOWER_CARD_KNOWN
        };
        let mut found: Vec<(CardIdx, Turn, [char; 9], usize)> = Vec::new();
        for &(card, turn, face) in &self.faces {
            if self.used[card.0 as usize]
                || found.iter().any(|&(c, _, f, _)| c == card && f == face)
            {
                continue;
            }
            let mut support = 0;
            let mut refuted = false;
            let mut misread_allowed = one_alike;
            for k in (0..9).filter(|&k| k != 4) {
                let seen = view.at(squares[k]);
                if seen == UNKNOWN {
                    continue;
                }
                if seen == face[k] {
                    support += 1;
                } else if open[k] {
                    if misread_allowed && self.alike_colours.contains(&(face[k], seen)) {
                        misread_allowed = false;
                    } else {
                        refuted = true;
                        break;
                    }
                }
            }
            if !refuted && support >= needed {
                found.push((card, turn, face, support));
            }
        }
        if on_top && found.len() > 1 {
            found.retain(|&(_, _, _, support)| support >= TOP_CARD_KNOWN);
        }
        found
            .into_iter()
            .map(|(card, turn, _, _)| Placement { card, centre, turn })
            .collect()
    }

    /// A new card alone (no other new card within reach of its squares) that shows its eight
    /// squares (but [`MAX_UNKNOWN_BESIDE_MISREAD`] unknown), where no unused face agrees with
    /// all of them but exactly one agrees with all but one, read as a pattern near the face's
    /// in colour: that one square is taken for misread (made unknown), the nearest face by far
    /// the likelier when a square in shadow is misread now and then.
    fn with_lone_misreads_unknown(&mut self, mut view: View, new: &[LatticePos]) -> View {
        for &centre in new {
            if new
                .iter()
                .any(|&o| o != centre && o.squares_from(centre) <= 2)
            {
                continue;
            }
            let squares = block(centre);
            let seen: Vec<char> = squares.iter().map(|&p| view.at(p)).collect();
            let unknown = seen.iter().filter(|&&ch| ch == UNKNOWN).count();
            if seen[4] != CENTRE_CHAR
                || unknown > MAX_UNKNOWN_BESIDE_MISREAD
                || seen.contains(&TABLE)
            {
                continue;
            }
            let mut nearest: Option<(usize, [char; 9])> = None;
            let mut ambiguous = false;
            for &(card, _, face) in &self.faces {
                if self.used[card.0 as usize] {
                    continue;
                }
                // The squares the face disagrees on: none, one (which), or more.
                let mut off = (0..9).filter(|&k| k != 4 && ![UNKNOWN, face[k]].contains(&seen[k]));
                match (off.next(), off.next()) {
                    (None, _) => {
                        ambiguous = true;
                        break;
                    }
                    (Some(k), None) => match nearest {
                        Some((_, f)) if f != face => {
                            ambiguous = true;
                            break;
                        }
                        _ => nearest = Some((k, face)),
                    },
                    _ => {}
                }
            }
            let Some((k, face)) = nearest else {
                continue;
            };
            if !ambiguous && self.alike_colours.contains(&(face[k], seen[k])) {
                self.misread_alike.insert(squares[k], (face[k], seen[k]));
                view.squares.insert(squares[k], UNKNOWN);
            }
        }
        view
    }

    /// Whether every square seen round `p`'s centre shows its face; but for one square read
    /// as a pattern near the face's in colour where `one_alike` (a starting board's card:
    /// see [`Tracker::one_alike_misread`]).
    fn agrees_all_round(&self, view: &View, p: &Placement, one_alike: bool) -> bool {
        let face = self.face_squares(p);
        let mut off = block(p.centre)
            .into_iter()
            .zip(face)
            .filter(|&(q, f)| q != p.centre && ![UNKNOWN, f].contains(&view.at(q)));
        match (off.next(), off.next()) {
            (None, _) => true,
            (Some((q, f)), None) => one_alike && self.alike_colours.contains(&(f, view.at(q))),
            _ => false,
        }
    }

    /// The one square where laying `order` does not give the top square the reading shows
    /// (but on `wild` squares), when that square was read as a pattern near the face's in
    /// colour: the square, the face's pattern and the pattern read.
    fn one_alike_misread(
        &self,
        order: &[Placement],
        view: &View,
        wild: &HashSet<LatticePos>,
    ) -> Option<(LatticePos, char, char)> {
        let top = self.top_squares(order);
        let mut off = top
            .iter()
            .filter(|&(pos, &sq)| shown_otherwise(view, wild, *pos, sq));
        match (off.next(), off.next()) {
            (Some((&at, &face)), None) => {
                let seen = view.at(at);
                self.alike_colours
                    .contains(&(face, seen))
                    .then_some((at, face, seen))
            }
            _ => None,
        }
    }

    fn face_squares(&self, p: &Placement) -> [char; 9] {
        let face = self.set.face(p.card, self.side);
        std::array::from_fn(|k| face.square(p.turn, Pos::new(k / 3, k % 3)).char())
    }

    /// Remembers the squares this reading shows as card where the table has none: a card the
    /// reader did not find the centre of. A square later read as table is forgotten.
    fn note_ghosts(&mut self, view: &View, frame: usize) {
        let top = TopMap::of(&self.board);
        for (&p, &seen) in &view.squares {
            let on_card = seen != TABLE && seen != UNKNOWN;
            if on_card && top.at(p) == TABLE {
                self.note_ghost(p, seen, frame);
            } else if seen == TABLE || top.at(p) != TABLE {
                self.ghosts.remove(&p);
            }
            if seen == top.at(p) {
                self.confirmed.insert(p, frame);
                if seen == TABLE {
                    self.last_bare.insert(p, frame);
                }
            }
        }
    }

    /// Square `p` shows `seen`, card where the table has none, in photo `frame`: kept with
    /// the first photo that showed card there.
    fn note_ghost(&mut self, p: LatticePos, seen: char, frame: usize) {
        let since = self.ghosts.get(&p).map_or(frame, |g| g.1);
        self.ghosts.insert(p, (seen, since));
    }

    /// Remembers the squares this reading shows as card with no centre found near them: a
    /// card is there that the reader missed.
    fn note_orphans(&mut self, view: &View, frame: usize) {
        let top = TopMap::of(&self.board);
        for (&p, &seen) in &view.squares {
            if seen != TABLE
                && seen != UNKNOWN
                && top.at(p) == TABLE
                && !view.centres.iter().any(|&c| c.within_one(p))
            {
                self.note_ghost(p, seen, frame);
            }
        }
    }

    /// Lays `order` on the table and returns the new cards' indices. A card laid where it may
    /// touch card squares no known card explains (seen in this photo or before) is judged
    /// against a table that may lack a card: the replay is doubted.
    ///
    /// `either_way`: squares where two of these cards overlap and the photo allows either on
    /// top. They stay unsure once all are laid: laying one of these cards does not settle them,
    /// as laying a later card over them does.
    fn lay(
        &mut self,
        order: &[Placement],
        frame: usize,
        either_way: HashSet<LatticePos>,
    ) -> Vec<usize> {
        let mut laid = Vec::with_capacity(order.len());
        // A square seen before showing what a card laid now shows there was that card: no
        // card missed (seed 4's game 187: the starting board, its centres not named in the
        // first photo, laid together in the second).
        let shown_now = self.top_squares(order);
        let missed = |q: &LatticePos, g: &(char, usize)| shown_now.get(q) != Some(&g.0);
        for &p in order {
            if p.squares()
                .iter()
                .any(|q| self.unsure_top.contains(q) || either_way.contains(q))
            {
                self.unsure_contacts.push(self.cards.len());
            }
            // A square showing what this card shows there was most likely this card, seen
            // before it could be named (under a hand, say).
            let top = TopMap::of(&self.board);
            let face = self.face_squares(&p);
            let mut over: Vec<LatticePos> = p
                .squares()
                .into_iter()
                .enumerate()
                .filter(|&(k, q)| {
                    self.ghosts
                        .get(&q)
                        .is_some_and(|g| g.0 != face[k] && missed(&q, g))
                        && top.at(q) == TABLE
                })
                .map(|(_, q)| q)
                // A missed card with a square within 3 of this card's centre may lie under it.
                .chain(
                    self.ghosts
                        .iter()
                        .filter(|&(&q, g)| {
                            q.squares_from(p.centre) <= 3
                                && !q.within_one(p.centre)
                                && top.at(q) == TABLE
                                && missed(&q, g)
                        })
                        .map(|(&q, _)| q),
                )
                .collect();
            // The card's own squares, then the ghosts near it: named in one order.
            over.sort();
            if !over.is_empty() {
                let text = format!(
                    "card {} laid in photo {} at {} lies on or beside squares that look like a \
                     card whose centre was not found ({}): its verdict is not sure; retake \
                     the photos with every card's centre in view and in focus",
                    self.set.card(p.card).id,
                    frame + 1,
                    p.centre,
                    list(&over)
                );
                // They may be the hand that laid it: later photos decide.
                self.pending.push(PendingDoubt {
                    card: self.cards.len(),
                    centre: p.centre,
                    frame,
                    squares: over,
                    text,
                });
            }
            let there_since = self.cards_laid_over(&p, &face, frame);
            // Squares seen before showing this card's face were this card: a card laid on it
            // next in the same photo shows the same patterns where they overlap, and must not
            // take them for itself seen earlier (seed 4's game 187).
            for (k, q) in p.squares().into_iter().enumerate() {
                if self.ghosts.get(&q).is_some_and(|g| g.0 == face[k]) {
                    self.ghosts.remove(&q);
                }
            }
            self.board.place(self.set, p);
            for q in p.squares() {
                self.unsure_top.remove(&q);
            }
            self.used[p.card.0 as usize] = true;
            self.cards.push(TrackedCard {
                placement: p,
                frame,
                there_since,
            });
            laid.push(self.cards.len() - 1);
        }
        self.unsure_top.extend(either_way);
        laid
    }

    /// The cards laid over `p` before it was found. A square of `p` seen showing its face
    /// in an earlier photo, its centre missed, or `p` itself seen there in a photo the next
    /// one did not confirm, was `p` already there: a card laid over it since was laid after
    /// it, though the replay lays `p` now, on top (overlapping squares match, so the photos
    /// show either way up alike). Where the photos show `p` there for sure (named in a photo
    /// the next one did not confirm, or three of its squares seen), the cards first seen
    /// after that photo go over it in the replay ([`Replay::cards`]): it returns that photo.
    /// The verdicts of cards it may lie under or over, as the photos do not tell, are
    /// doubted.
    fn cards_laid_over(&mut self, p: &Placement, face: &[char; 9], frame: usize) -> Option<usize> {
        let mut ghost_since: Vec<usize> = p
            .squares()
            .iter()
            .zip(face)
            .filter_map(|(q, &f)| self.ghosts.get(q).filter(|g| g.0 == f).map(|g| g.1))
            .filter(|&since| since < frame)
            .collect();
        ghost_since.sort_unstable();
        let named_since = self
            .withdrawn
            .iter()
            .filter(|(w, _)| w == p)
            .map(|&(_, seen)| seen)
            .filter(|&since| since < frame)
            .min();
        let since = ghost_since
            .first()
            .copied()
            .into_iter()
            .chain(named_since)
            .min()?;
        let sure_since = ghost_since
            .get(SQUARES_SHOWING_A_CARD - 1)
            .copied()
            .into_iter()
            .chain(named_since)
            .min();
        let mine: HashSet<LatticePos> = p.squares().into_iter().collect();
        let over: Vec<&TrackedCard> = self
            .cards
            .iter()
            // Not the cards new in this photo too: the orders of those that the photo allows
            // are judged where they are named (`Tracker::name_and_lay_reading`).
            .filter(|c| c.frame >= since && c.frame < frame)
            .filter(|c| c.placement.squares().iter().any(|q| mine.contains(q)))
            .collect();
        let unordered: Vec<&str> = over
            .iter()
            .filter(|c| sure_since.is_none_or(|s| c.frame <= s))
            .map(|c| self.set.card(c.placement.card).id.as_str())
            .collect();
        let reordered = sure_since.filter(|&s| over.iter().any(|c| c.frame > s));
        if !unordered.is_empty() {
            self.doubts.push(format!(
                "card {} at {}, found in photo {}, was on the table in photo {} already (a \
                 photo missed its centre): {}, laid over it since, {} judged without it; \
                 retake the photos with every card's centre in view and in focus",
                self.set.card(p.card).id,
                p.centre,
                frame + 1,
                since + 1,
                unordered.join(", "),
                if unordered.len() == 1 { "was" } else { "were" },
            ));
        }
        reordered
    }

    /// Whether laying `order` on the table gives the top squares the reading shows, except
    /// on `wild` squares (those of cards not named).
    fn shows(&self, order: &[Placement], view: &View, wild: &HashSet<LatticePos>) -> bool {
        self.top_squares(order)
            .iter()
            .all(|(pos, &sq)| !shown_otherwise(view, wild, *pos, sq))
    }

    /// The top pattern of every square once `order` is laid.
    fn top_squares(&self, order: &[Placement]) -> HashMap<LatticePos, char> {
        let mut top: HashMap<LatticePos, char> = HashMap::new();
        for p in order {
            let face = self.face_squares(p);
            for (k, pos) in p.squares().into_iter().enumerate() {
                top.insert(pos, face[k]);
            }
        }
        top
    }
}

/// Each pattern of `side` with the two patterns nearest it in colour (see
/// [`Tracker::alike_colours`]); none when a pattern has no colour.
fn alike_colours(side: &Side) -> HashSet<(char, char)> {
    let colours: Vec<(char, Srgb)> = side
        .patterns
        .iter()
        .filter_map(|(k, p)| Some((k.char(), p.srgb?)))
        .collect();
    if colours.len() < side.patterns.len() {
        return HashSet::new();
    }
    let mut alike = HashSet::new();
    for &(a, colour) in &colours {
        let mut others: Vec<(f32, char)> = colours
            .iter()
            .filter(|&&(b, _)| b != a)
            .map(|&(b, other)| (delta_e_srgb(colour, other), b))
            .collect();
        others.sort_by(|x, y| x.0.total_cmp(&y.0));
        alike.extend(others.iter().take(2).map(|&(_, b)| (a, b)));
    }
    alike
}

/// Whether the reading shows square `pos` as other than `sq` (an unknown reading, or a
/// `wild` square, shows anything).
fn shown_otherwise(view: &View, wild: &HashSet<LatticePos>, pos: LatticePos, sq: char) -> bool {
    let seen = view.at(pos);
    !wild.contains(&pos) && seen != UNKNOWN && seen != sq
}

/// Whether the table's square `expected` and the reading's `seen` disagree (an unknown
/// reading agrees with anything).
fn differs(expected: char, seen: char) -> bool {
    seen != UNKNOWN && expected != TABLE && seen != expected
}

fn list(positions: &[LatticePos]) -> String {
    positions
        .iter()
        .map(|p| format!("({}, {})", p.row, p.col))
        .collect::<Vec<_>>()
        .join(", ")
}

/// Calls `f` with every permutation of `0..n` (Heap's algorithm).
pub(super) fn permutations(n: usize, f: &mut dyn FnMut(&[usize])) {
    fn heap(k: usize, a: &mut Vec<usize>, f: &mut dyn FnMut(&[usize])) {
        if k <= 1 {
            f(a);
            return;
        }
        for i in 0..k {
            heap(k - 1, a, f);
            let j = if k % 2 == 0 { i } else { 0 };
            a.swap(j, k - 1);
        }
    }
    let mut a: Vec<usize> = (0..n).collect();
    heap(n, &mut a, f);
}

#[cfg(test)]
#[path = "replay_tests.rs"]
mod tests;
